# rand86: a bare-metal x86 interrupt-entropy appliance.
# `make` builds build/rand86.elf; `make run` boots it; `make test` tests it.

BUILD     := build
PYTHON    := /usr/bin/python3
CC        := gcc
VERSION   := 0.1.0

# --- newlib, built once from Debian's newlib-source into build/ ---
NEWLIB_TAR    := /usr/src/newlib/newlib-3.3.0.tar.xz
NEWLIB_PREFIX := $(BUILD)/newlib
NEWLIB_STAMP  := $(NEWLIB_PREFIX)/.built
NEWLIB_CC     := gcc -m32 -march=i386 -ffreestanding -fno-pic -fno-stack-protector
NEWLIB_INC    := $(NEWLIB_PREFIX)/i386-elf/include
NEWLIB_LIBC   := $(NEWLIB_PREFIX)/i386-elf/lib/libc.a

# --- the kernel ---
# No padding between functions, loops and jumps (-falign-*=1): 620 bytes of
# the 96 KiB image budget; the 386 has no cache to align for and the 486's
# 16-byte prefetch gains little on code this small.
KCFLAGS := -m32 -march=i386 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
	-fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 -mgeneral-regs-only \
	-O2 -g -std=gnu11 -Wall -Wextra -Werror -nostdinc -ffunction-sections -fdata-sections -falign-functions=1 -falign-jumps=1 -falign-loops=1 -falign-labels=1 \
	-isystem $(NEWLIB_INC) -isystem $(shell gcc -m32 -print-file-name=include) \
	-I. -DRAND86_VERSION='"$(VERSION)"'
KASFLAGS := -m32 -march=i386 -I.
KLDFLAGS := -m elf_i386 -T link.ld -nostdlib -z noexecstack --no-warn-rwx-segments --gc-sections

include entropy/entropy.mk

KSRCS := $(wildcard boot/*.c kern/*.c app/*.c arch/x86/*.c drivers/*.c lib/*.c) $(ENTROPY_SRCS)
KASMS := $(wildcard boot/*.S arch/x86/*.S)
KOBJS := $(patsubst %.c,$(BUILD)/k/%.o,$(KSRCS)) $(patsubst %.S,$(BUILD)/k/%.o,$(KASMS))
# Deferred (=): on a fresh machine gcc-multilib arrives with `deps`, after parsing.
LIBGCC = $(shell gcc -m32 -print-libgcc-file-name)

.PHONY: all iso run test test-host test-qemu test-lib deps clean distclean bench fuzz bench-host compare rngtest soak \
	credit-vectors
all: $(BUILD)/rand86.elf

deps:
	@scripts/deps

$(NEWLIB_STAMP): | deps
	rm -rf $(BUILD)/newlib-src $(BUILD)/newlib-obj
	mkdir -p $(BUILD)/newlib-src $(BUILD)/newlib-obj
	tar -C $(BUILD)/newlib-src -xf $(NEWLIB_TAR)
	cd $(BUILD)/newlib-obj && ../newlib-src/newlib-salsa/configure \
		--target=i386-elf --prefix=$(abspath $(NEWLIB_PREFIX)) \
		--disable-newlib-supplied-syscalls --enable-newlib-nano-formatted-io \
		--disable-newlib-io-float --disable-multilib --disable-nls \
		CC_FOR_TARGET="$(NEWLIB_CC)" AS_FOR_TARGET="as --32" \
		LD_FOR_TARGET="ld -m elf_i386" AR_FOR_TARGET=ar RANLIB_FOR_TARGET=ranlib \
		> ../newlib-configure.log 2>&1
	$(MAKE) -C $(BUILD)/newlib-obj all-target-newlib > $(BUILD)/newlib-build.log 2>&1 || \
		{ tail -30 $(BUILD)/newlib-build.log; exit 1; }
	$(MAKE) -C $(BUILD)/newlib-obj install-target-newlib > $(BUILD)/newlib-install.log 2>&1
	rm -rf $(BUILD)/newlib-src $(BUILD)/newlib-obj
	touch $@

# Cold code, built for size to keep text+data < 96 KiB: the VGA dashboard
# (and drivers/vga.c) redraws one row per main-loop pass four times a second (-Os saves ~3.8
# KB); the shell, its commands, the option parser and its warnings, the
# formatting helpers (64-bit decimals, escapes), the bench harness around
# its timed calls, PCI probing, the CMOS clock and the clock's setup run
# once per command or once per boot (~1.5 KB). Also cold: the disk driver
# (a read every 100 ms), device probing, the line editor and number
# parsing (one call per console byte or word), the meter and the
# fixed-point maths (measure.c, fixed.c: the flush's per-sample update, and
# every 512 samples of a source the full assessment, ~6 M instructions
# either way), the EGD parser (a request at a time), the boot sequence,
# the i8042 driver (a key press is a few dozen instructions at either
# level) and the RTC's periodic handler.
# What stays -O2: the entropy core's sample, flush and read paths
# (random.c, pool.c, crng.c, capture.c, estimate.c, sha1.c), the IDT's
# dispatch, the 8259, the PIT's tick, kprintf, the main loop and the
# console layer (kern/console.c).
# arch/x86/clock.c is -Os although clock_now and entropy_now are hot: at
# either level they are a compare and an rdtsc (disassembled; a trusted
# sample is 263 instructions at -Os against 275, make bench): keep new hot
# code out of it.
# The byte paths are -Os too, for the budget alone: the 16550 driver (both
# COM ports' interrupts and output), the NE2000 driver and the stream
# server (COM2, EGD, TCP) would add 560, 272 and 672 bytes at -O2, 65,718
# with all three. The rates in docs/BENCHMARKS.md are measured with them
# at -Os.
COLD_OBJS := app/dashboard app/shell app/cmd_system app/cmd_entropy app/cmd_bench \
	lib/options lib/fmt lib/num lib/lineedit kern/options kern/devices drivers/pci \
	drivers/ata drivers/i8042 boot/main kern/sources arch/x86/clock arch/x86/cmos \
	entropy/est_stat entropy/est_pred app/egd \
	entropy/measure entropy/fixed drivers/vga arch/x86/rtc drivers/ne2000 app/serve \
	drivers/serial
$(COLD_OBJS:%=$(BUILD)/k/%.o): KCFLAGS := $(filter-out -O2,$(KCFLAGS)) -Os

$(BUILD)/k/%.o: %.c $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/k/%.o: %.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(KASFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/rand86.elf: $(KOBJS) link.ld $(NEWLIB_STAMP)
	@echo "  LD      $@"
	@ld $(KLDFLAGS) -Map=$(BUILD)/rand86.map -o $@ $(KOBJS) $(NEWLIB_LIBC) $(LIBGCC)
	@size $@

-include $(KOBJS:.o=.d)

# --- boot media ---
iso: $(BUILD)/rand86.iso
$(BUILD)/rand86.iso: $(BUILD)/rand86.elf boot/grub.cfg
	rm -rf $(BUILD)/isodir && mkdir -p $(BUILD)/isodir/boot/grub
	cp $(BUILD)/rand86.elf $(BUILD)/isodir/boot/rand86.elf
	cp boot/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# Old PCs: SYSLINUX (mboot.c32) on FAT, built without root (scripts/mkmedia).
floppy: $(BUILD)/rand86-floppy.img
hdd: $(BUILD)/rand86-hdd.img
$(BUILD)/rand86-floppy.img: $(BUILD)/rand86.elf boot/syslinux.cfg boot/syslinux.msg scripts/mkmedia | deps
	scripts/mkmedia floppy $@ $(BUILD)/rand86.elf
$(BUILD)/rand86-hdd.img: $(BUILD)/rand86.elf boot/syslinux.cfg boot/syslinux.msg scripts/mkmedia | deps
	scripts/mkmedia hdd $@ $(BUILD)/rand86.elf
clean-media:
	rm -f $(BUILD)/rand86-floppy.img $(BUILD)/rand86-hdd.img $(BUILD)/sha1-i386-test.elf
clean: clean-media
.PHONY: floppy hdd clean-media

# --- running ---
# Every QEMU and Bochs command line is built by the harness, the Python
# package rand86/ at the root; scripts run as modules from here (-m), so
# they and the tests import it by name.
PYRUN   := $(PYTHON) -m
RUN_APPEND ?=
# A path: COM2 on that Unix socket (for a second QEMU's rng-egd) instead of a pty.
RUN_COM2_SOCKET ?=
# A window (the VGA dashboard; its keyboard and mouse feed the trusted
# sources) when there is a display to open it on, else none.
RUN_DISPLAY ?= $(if $(DISPLAY)$(WAYLAND_DISPLAY),gtk,none)

run: deps $(BUILD)/rand86.elf
	@$(PYRUN) scripts.run --append "$(RUN_APPEND)" --display $(RUN_DISPLAY) \
		--com2-socket "$(RUN_COM2_SOCKET)"

# --- tests ---
HOST_CFLAGS := -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -I.
LIB_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/host/%,$(wildcard tests/unit/test_lib_*.c))

$(BUILD)/host/test_lib_%: tests/unit/test_lib_%.c lib/options.c lib/num.c lib/lineedit.c lib/fmt.c \
		$(wildcard lib/*.h) | deps
	@mkdir -p $(dir $@)
	gcc $(HOST_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

test-lib: $(LIB_TESTS)
	@for t in $(LIB_TESTS); do echo "== $$t"; $$t || exit 1; done

test-host: test-lib test-entropy

# Drivers on the host: the real driver source against a device model and
# fakes of arch/x86's io.h and cpu.h (tests/unit/fake/ shadows arch/x86,
# whose other headers only declare what the model defines).
DRV_TESTS := $(BUILD)/host/test_drv_ne2000
$(BUILD)/host/test_drv_ne2000: tests/unit/test_drv_ne2000.c tests/unit/ne2k_model.c drivers/ne2000.c \
		lib/fmt.c lib/options.c lib/num.c tests/unit/ne2k_model.h tests/unit/fake/arch/x86/io.h \
		tests/unit/fake/arch/x86/cpu.h drivers/ne2000.h drivers/pci.h entropy/entropy.h \
		arch/x86/irq.h arch/x86/pic.h arch/x86/clock.h $(wildcard lib/*.h) | deps
	@mkdir -p $(dir $@)
	gcc -Itests/unit/fake -Itests/unit $(HOST_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

DRV_TESTS += $(BUILD)/host/test_drv_rtc
$(BUILD)/host/test_drv_rtc: tests/unit/test_drv_rtc.c arch/x86/rtc.c arch/x86/cmos.c arch/x86/rtc.h \
		arch/x86/cmos.h tests/unit/fake/arch/x86/io.h tests/unit/fake/arch/x86/cpu.h arch/x86/irq.h \
		arch/x86/clock.h | deps
	@mkdir -p $(dir $@)
	gcc -Itests/unit/fake $(HOST_CFLAGS) -o $@ tests/unit/test_drv_rtc.c -lcmocka

DRV_TESTS += $(BUILD)/host/test_drv_pic
$(BUILD)/host/test_drv_pic: tests/unit/test_drv_pic.c arch/x86/pic.c arch/x86/pic.h arch/x86/irq.h \
		tests/unit/fake/arch/x86/io.h tests/unit/fake/arch/x86/cpu.h | deps
	@mkdir -p $(dir $@)
	gcc -Itests/unit/fake $(HOST_CFLAGS) -o $@ tests/unit/test_drv_pic.c -lcmocka

test-drv: $(DRV_TESTS)
	@for t in $(DRV_TESTS); do echo "== $$t"; $$t || exit 1; done

test-host: test-drv
.PHONY: test-drv

# Fuzz targets: `make fuzz`, and their corpora replayed in test-host.
include tests/fuzz/fuzz.mk

# The i386 assembly SHA-1 against the portable C, as a bare multiboot kernel
# under QEMU (this host runs no 32-bit binaries). Exit status 1 = pass.
SHA1_TEST_OBJS := $(BUILD)/k/tests/unit/test_sha1_i386.o $(BUILD)/k/sha1_portable.o $(BUILD)/k/boot/multiboot.o
$(BUILD)/k/sha1_portable.o: entropy/sha1.c $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@$(CC) $(KCFLAGS) -DRNG_SHA1_PORTABLE -c $< -o $@
$(BUILD)/sha1-i386-test.elf: $(SHA1_TEST_OBJS) link.ld
	@ld $(KLDFLAGS) -o $@ $(SHA1_TEST_OBJS) $(NEWLIB_LIBC) $(LIBGCC)
test-sha1-i386: $(BUILD)/sha1-i386-test.elf
	@echo "== $<"
	@$(PYRUN) scripts.run --batch --kernel $<; \
	rc=$$?; [ $$rc -eq 1 ] || { echo "test-sha1-i386: QEMU exit status $$rc (1 = pass)"; exit 1; }
test-host: test-sha1-i386
.PHONY: test-sha1-i386

# The QEMU tests on every core (python3-pytest-xdist): each machine has
# its own temporary directory, sockets and disk copies, and the images and
# the Linux guest are built here, before any test starts. PYTEST_JOBS=0
# runs them one at a time in this process.
PYTEST_ARGS ?=
# One worker more than there are cores: many tests spend their time on a
# pace (a typist's keys over QMP, a guest's seconds) rather than the CPU,
# and no verdict depends on how fast the host runs the guest (docs/TESTING.md).
PYTEST_JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
test-qemu: $(BUILD)/rand86.elf $(BUILD)/rand86.iso
	$(PYRUN) pytest -q -p no:cacheprovider -n $(PYTEST_JOBS) --dist loadgroup $(PYTEST_ARGS) tests/qemu

test-qemu: $(BUILD)/rand86-floppy.img $(BUILD)/rand86-hdd.img $(BUILD)/linux/initrd.gz
# test_honesty.py assesses its captures with the host's full assessment.
test-qemu: $(BUILD)/host/h_estimate

# A Linux guest for the client tests: Debian packages fetched once, kept in build/.
$(BUILD)/linux/initrd.gz: scripts/linux-guest | deps
	rm -f $@
	scripts/linux-guest $(BUILD)

# The old-PC media and Bochs tests alone (also part of test-qemu).
test-media: $(BUILD)/rand86.elf $(BUILD)/rand86.iso $(BUILD)/rand86-floppy.img $(BUILD)/rand86-hdd.img
	$(PYRUN) pytest -q -p no:cacheprovider -rxX -n $(PYTEST_JOBS) --dist loadgroup $(PYTEST_ARGS) tests/qemu/test_media.py tests/qemu/test_bochs.py
.PHONY: test-media

# Both cores for the builds too: a fresh clone's newlib takes 2 min 26 s
# alone, 1 min 56 s on two (its make shares this one's job slots).
TEST_JOBS ?= $(shell nproc)
test: deps
	$(MAKE) -j$(TEST_JOBS) test-host
	$(MAKE) -j$(TEST_JOBS) test-qemu

clean:
	rm -rf $(BUILD)/k $(BUILD)/host $(BUILD)/rand86.elf $(BUILD)/rand86.iso $(BUILD)/isodir

distclean:
	rm -rf $(BUILD)

# --- measurements (not tests: no thresholds) ---
bench: deps $(BUILD)/rand86.elf $(BUILD)/uart-ceiling.elf $(BUILD)/linux/initrd.gz
	$(MAKE) bench-host > $(BUILD)/bench-host.txt
	$(PYRUN) scripts.bench --host-table $(BUILD)/bench-host.txt --out docs/BENCHMARKS.md

# make bench's same-run baseline for the serial ports (scripts/ceiling/uart.c)
$(BUILD)/uart-ceiling.elf: scripts/ceiling/uart.c scripts/ceiling/uart.ld
	@mkdir -p $(BUILD)
	$(CC) -m32 -march=i386 -ffreestanding -fno-pic -fno-stack-protector -nostdlib -O2 \
		-Wall -Wextra -Werror -T scripts/ceiling/uart.ld -Wl,--build-id=none \
		-Wl,--no-warn-rwx-segments -o $@ scripts/ceiling/uart.c

rngtest: deps $(BUILD)/rand86.elf
	$(PYRUN) scripts.rngtest_qemu

# --- soak: 10 minutes of keys, frames, COM2 garbage and console commands,
# every docs/PROTOCOL.md invariant checked (not in `make test`); SOAK_SECONDS to change ---
SOAK_SECONDS ?= 600
soak: deps $(BUILD)/rand86.elf
	$(PYRUN) scripts.soak --seconds $(SOAK_SECONDS)

# --- SP 800-90B 3.1.4's restart test on every emulator configuration the
# suite boots (docs/restart.md). RESTART=quick (minutes) or full (the
# standard's 1,000 x 1,000; Bochs 30 minutes a machine): scripts/restart_test.py ---
RESTART ?= quick
restart-test: deps $(BUILD)/rand86.elf
	$(PYRUN) scripts.restart_test --size $(RESTART)
.PHONY: restart-test

# --- credited bits vs the meter and SP 800-90B (docs/compare.md, docs/compare.png,
# docs/dashboard.png); ea_non_iid too when it is on PATH ---
compare: deps $(BUILD)/rand86.elf $(BUILD)/host/h_estimate
	$(PYRUN) scripts.compare

# The captures the credit rule is derived from (tests/vectors/credit/,
# docs/ENTROPY.md "What a window is paid"); then the table to put in
# entropy/entropy.h.
credit-vectors: deps $(BUILD)/rand86.elf $(BUILD)/host/credit_derive
	$(PYRUN) scripts.credit_vectors
	$(BUILD)/host/credit_derive $(sort $(wildcard tests/vectors/credit/*.txt)) | tail -1
