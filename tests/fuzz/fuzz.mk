# tests/fuzz/: a libFuzzer target for every path that takes bytes from
# outside (docs/TESTING.md "Fuzzing"), built for the host from the
# kernel's own source with ASan and UBSan. Included by the top Makefile.
#   make fuzz                 every target on both cores, FUZZ_MINUTES in all (30),
#                             then executions, exec/s and the lines of each parser reached
#                             (docs/fuzz.md)
#   make test-fuzz-corpus     every corpus file through its target once (part of test-host)

FUZZ_TARGETS := console_line egd_request boot_options ne2000_rx i8042_stream ata_identify entropy
FUZZ_MINUTES ?= 30
FUZZ_JOBS ?= 2
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_INC := -Itests/unit/fake -Itests/unit -I. -Itests/fuzz
FUZZ_CLANG := clang-14
FUZZ_COMMA := ,
FUZZ_EMPTY :=
FUZZ_SPACE := $(FUZZ_EMPTY) $(FUZZ_EMPTY)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror $(FUZZ_INC)

# Per target: what it links (the files it #includes whole are in _DEPS),
# and the files whose line coverage `make fuzz` reports.
FUZZ_LINK_console_line := tests/fuzz/fuzz_pc.c lib/lineedit.c lib/num.c lib/fmt.c lib/kprintf.c
FUZZ_DEPS_console_line := app/shell.c drivers/serial.c
FUZZ_COVER_console_line := app/shell.c lib/lineedit.c lib/num.c lib/fmt.c
FUZZ_LINK_egd_request := tests/fuzz/fuzz_pc.c lib/kprintf.c $(ENTROPY_SRCS) tests/unit/entropy_platform_stub.c
FUZZ_DEPS_egd_request := app/egd.c drivers/serial.c
FUZZ_COVER_egd_request := app/egd.c
FUZZ_LINK_boot_options := tests/fuzz/fuzz_pc.c lib/kprintf.c lib/options.c lib/num.c lib/fmt.c
FUZZ_DEPS_boot_options := kern/options.c
FUZZ_COVER_boot_options := lib/options.c kern/options.c
FUZZ_LINK_ne2000_rx := lib/fmt.c lib/options.c lib/num.c
FUZZ_DEPS_ne2000_rx := drivers/ne2000.c tests/unit/ne2k_model.c tests/unit/ne2k_model.h
FUZZ_COVER_ne2000_rx := drivers/ne2000.c
FUZZ_LIBS_ne2000_rx := -lcmocka
FUZZ_LINK_i8042_stream := tests/fuzz/fuzz_pc.c lib/kprintf.c
FUZZ_DEPS_i8042_stream := drivers/i8042.c
FUZZ_COVER_i8042_stream := drivers/i8042.c
FUZZ_LINK_ata_identify := tests/fuzz/fuzz_pc.c lib/kprintf.c lib/fmt.c
FUZZ_DEPS_ata_identify := drivers/ata.c
FUZZ_COVER_ata_identify := drivers/ata.c
# entropy/ under arbitrary operations (tests/fuzz/entropy_ops.c). The
# meter's SP 800-90B estimators give the fuzzer no coverage feedback: a
# full assessment was 90% of this target's time and its comparisons
# drowned the accounting's, which is what it hunts; they are still
# built with ASan and UBSan, and tests/vectors/ check their figures.
FUZZ_LINK_entropy := tests/fuzz/entropy_ops.c $(ENTROPY_SRCS) $(ENTROPY_STUB)
FUZZ_DEPS_entropy := tests/fuzz/entropy_ops.h tests/fuzz/entropy_nocov.txt
FUZZ_COVER_entropy := entropy/random.c entropy/pool.c entropy/crng.c entropy/source.c \
	entropy/estimate.c entropy/measure.c entropy/capture.c
FUZZ_FLAGS_entropy := -fsanitize-coverage-ignorelist=tests/fuzz/entropy_nocov.txt

FUZZ_HDRS := tests/fuzz/fuzz_pc.h tests/fuzz/fuzz_oracle.h $(wildcard tests/unit/fake/arch/x86/*.h) \
	$(wildcard lib/*.h drivers/*.h app/*.h kern/*.h arch/x86/*.h entropy/*.h)

# The device model is the test bench, not the code under test: no
# coverage feedback from it (its microsecond steps would drown the driver's).
$(FUZZ_DIR)/ne2k_model.o: tests/unit/ne2k_model.c tests/unit/ne2k_model.h $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -c -o $@ $<
FUZZ_OBJ_ne2000_rx := $(FUZZ_DIR)/ne2k_model.o

# fuzz_T: libFuzzer; replay_T: gcc, a plain run of files (make test);
# cover_T: the same run, counting lines (make fuzz).
define FUZZ_RULES
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $$(FUZZ_LINK_$(1)) $$(FUZZ_DEPS_$(1)) $$(FUZZ_OBJ_$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$$(FUZZ_FLAGS_$(1)) -o $$@ $$< $$(FUZZ_LINK_$(1)) $$(FUZZ_OBJ_$(1)) $$(FUZZ_LIBS_$(1))
$(FUZZ_DIR)/replay_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/replay.c $$(FUZZ_LINK_$(1)) $$(FUZZ_DEPS_$(1)) $(FUZZ_HDRS) | deps
	@mkdir -p $$(dir $$@)
	gcc $(FUZZ_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -o $$@ $$< tests/fuzz/replay.c \
		$$(FUZZ_LINK_$(1)) $$(if $$(FUZZ_OBJ_$(1)),tests/unit/ne2k_model.c) $$(FUZZ_LIBS_$(1))
$(FUZZ_DIR)/cover_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/replay.c $$(FUZZ_LINK_$(1)) $$(FUZZ_DEPS_$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CLANG) $(FUZZ_CFLAGS) -fprofile-instr-generate -fcoverage-mapping -o $$@ $$< tests/fuzz/replay.c \
		$$(FUZZ_LINK_$(1)) $$(if $$(FUZZ_OBJ_$(1)),tests/unit/ne2k_model.c) $$(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULES,$(t))))

# Every kept input (seeds, and each input that ever found a bug) through
# its target once; a broken invariant stops make.
test-fuzz-corpus: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/replay_%)
	@set -e; for t in $(FUZZ_TARGETS); do $(FUZZ_DIR)/replay_$$t tests/fuzz/$$t; done
test-host: test-fuzz-corpus

fuzz: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%) $(FUZZ_TARGETS:%=$(FUZZ_DIR)/cover_%)
	$(PYTHON) -m scripts.fuzz --minutes $(FUZZ_MINUTES) --jobs $(FUZZ_JOBS) --dir $(FUZZ_DIR) \
		--out docs/fuzz.md \
		$(foreach t,$(FUZZ_TARGETS),--target $(t):$(subst $(FUZZ_SPACE),$(FUZZ_COMMA),$(FUZZ_COVER_$(t))))
.PHONY: fuzz test-fuzz-corpus
