"""Boot and console behaviour of the real image under QEMU (docs/PROTOCOL.md).

The banner and prompt, `status` keys, the clock on each CPU, `hz`, bad
options, the line discipline byte by byte, `halt` (with and without
QEMU's debug-exit) and `reboot`, a PC without COM2, the ISO through GRUB
with its menu driven over COM1, an exception's report, the clock against
the CMOS clock under -icount, the TSC calibration and a stalled QEMU."""
import os
import re
import signal
import time

import pytest

from rand86 import ISO, RTC_VM, Rand86

STATUS_KEYS = ["version", "uptime_ms", "cpu_khz", "clock", "hz", "credit",
               "primary_bits", "secondary_bits", "credited_bits", "random_bytes",
               "urandom_bytes", "batch_samples", "batch_flushes", "batch_overwrites",
               "spent_bits", "console_rx_dropped", "seeded", "seeded_ms"]


def test_banner_is_first_line_and_boot_ends_with_prompt():
    with Rand86() as vm:
        assert vm.boot_log.startswith("rand86 "), vm.boot_log
        first = vm.boot_log.split("\r\n")[0]
        assert first.split()[0] == "rand86" and len(first.split()) == 2, first
        assert vm.com1.unconsumed() == b"", "output after the prompt: %r" % vm.com1.unconsumed()


def test_status_has_spec_keys_with_plausible_values():
    with Rand86() as vm:
        st = vm.status()
        for k in STATUS_KEYS:
            assert k in st, "status lacks %r: %r" % (k, st)
        assert st["hz"] == "100"
        assert st["credit"] == "measured"
        assert int(st["cpu_khz"]) > 10000, st["cpu_khz"]
        u1 = int(st["uptime_ms"])
        time.sleep(0.3)
        u2 = int(vm.status()["uptime_ms"])
        assert u2 > u1, "uptime did not advance: %d -> %d" % (u1, u2)


def test_status_counters_come_after_the_other_keys_and_stay_0_here():
    # docs/PROTOCOL.md: irq_spurious and timer_lost_ticks come after every
    # other key (stream=egd adds egd_rx_dropped after them)
    with Rand86() as vm:
        keys = [l.split(": ", 1)[0] for l in vm.ok("status") if ": " in l]
        assert keys[-2:] == ["irq_spurious", "timer_lost_ticks"], keys
        assert len(set(keys)) == len(keys), keys
        assert "egd_rx_dropped" not in keys, keys
        st = vm.status()
        # QEMU's 8259 lowers INTR as soon as a request goes: no spurious
        # vector ever; and the TSC clock does not track merged ticks
        assert st["irq_spurious"] == "0", st
        assert st["clock"] == "tsc" and st["timer_lost_ticks"] == "0", st


@pytest.mark.parametrize("cpu", [None, "pentium"])
def test_cpus_with_tsc_report_tsc_clock(cpu):
    with Rand86(cpu=cpu) as vm:
        st = vm.status()
        assert st["clock"] == "tsc", st


def test_486_with_4mib_boots_on_pit_clock():
    with Rand86(cpu="486", mem=4) as vm:
        st = vm.status()
        assert st["clock"] == "pit", st
        assert st["cpu_khz"] == "1193", st
        u1 = int(st["uptime_ms"])
        time.sleep(0.3)
        assert int(vm.status()["uptime_ms"]) > u1


def test_hz_option_is_reflected_in_status():
    with Rand86(append="hz=1000") as vm:
        assert vm.status()["hz"] == "1000"


@pytest.mark.parametrize("word", ["hz=5", "hz=abc", "bogus=1", "baud=300", "stream=maybe",
                                  "ne2k=0x300", "credit="])
def test_bad_option_warns_and_boot_continues(word):
    with Rand86(append="hz=250 %s" % word) as vm:
        assert "warning: ignoring boot option '%s'" % word in vm.boot_log, vm.boot_log
        st = vm.status()
        assert st["hz"] == "250", "a good option next to a bad one was lost"


def test_unknown_command_names_itself():
    with Rand86() as vm:
        body, final = vm.cmd("frobnicate 1")
        assert final == "error: unknown command 'frobnicate' (try help)"


def test_help_lists_the_commands():
    with Rand86() as vm:
        body = vm.ok("help")
        names = {l.split()[0] for l in body if l.strip()}
        assert {"help", "status", "reboot", "halt"} <= names, body


def test_backspace_and_delete_erase():
    with Rand86() as vm:
        vm.send(b"statux\x08s\r")
        vm.com1.expect(rb"\r\nok\r\nrand86> ")
        vm.send(b"hxx\x7f\x7felp\r")
        m = vm.com1.expect(rb"(.*?)\r\nok\r\nrand86> ")
        assert b"status" in m.group(1)


def test_ctrl_c_drops_the_line():
    with Rand86() as vm:
        vm.send(b"halt 5\x03")
        vm.com1.expect(rb"\^C\r\nrand86> ")
        # the dropped line did not run: the machine is still here
        assert vm.proc.poll() is None
        vm.ok("status")


def test_crlf_and_lf_end_lines_once():
    with Rand86() as vm:
        vm.send(b"help\r\n")
        vm.com1.expect(rb"ok\r\nrand86> ")
        time.sleep(0.3)
        assert vm.com1.unconsumed() == b"", "CRLF ran an extra empty line: %r" % vm.com1.unconsumed()
        vm.send(b"status\n")
        vm.com1.expect(rb"uptime_ms: .*?ok\r\nrand86> ")


def test_control_bytes_and_high_bytes_are_ignored():
    with Rand86() as vm:
        vm.send(b"st\x01\x02\x80\xffat\x1bus\r")
        vm.com1.expect(rb"uptime_ms: .*?ok\r\nrand86> ")


def test_overlong_line_is_discarded_with_error():
    with Rand86() as vm:
        vm.send(b"x" * 250 + b"\r")
        vm.com1.expect(rb"\r\nerror: line too long \(max 200\)\r\nrand86> ")
        vm.ok("status")


@pytest.mark.timeout(240)
def test_random_bytes_and_long_lines_leave_console_answering():
    import random
    rnd = random.Random(86)
    with Rand86() as vm:
        u1 = int(vm.status()["uptime_ms"])
        junk = bytes(rnd.getrandbits(8) for _ in range(100 * 1024))
        for i in range(0, len(junk), 4096):
            vm.send(junk[i:i + 4096])
            time.sleep(0.01)
        vm.send(b"y" * 5000 + b"\r")
        # 100 KiB take a while to flow in through the UART, and bytes the
        # full ring drops echo nothing: a longer quiet before the Ctrl-C
        vm.settle(quiet=1.5)
        st = vm.status()
        assert int(st["uptime_ms"]) > u1, "uptime went backwards: rebooted?"
        assert vm.proc.poll() is None


def test_halt_3_exits_qemu_with_debug_exit_code():
    with Rand86() as vm:
        vm.send(b"halt 3\r")
        vm.com1.expect(rb"ok\r\n")
        assert vm.exit_code() == (3 << 1) | 1


def test_halt_on_a_pc_without_debug_exit_ends_with_ok(monkeypatch):
    # A real PC has nothing at port 0xf4: the CPU stops after the reply,
    # which still ends with exactly one line, `ok`, and nothing after it.
    import rand86.qemu                 # qemu_argv() reads it there
    monkeypatch.setattr(rand86.qemu, "DEBUG_EXIT", "isa-debug-exit,iobase=0x500,iosize=1")
    with Rand86() as vm:
        vm.send(b"halt 3\r")
        reply = vm.com1.expect(rb"halt 3\r\n(.*?)ok\r\n", 10).group(1)
        assert all(l.startswith(b"#") for l in reply.splitlines()), reply
        time.sleep(1.0)
        assert vm.com1.unconsumed() == b"", "output after ok: %r" % vm.com1.unconsumed()
        assert vm.proc.poll() is None, "QEMU exited: port 0xf4 was not moved"


def test_halt_rejects_bad_codes():
    with Rand86() as vm:
        assert vm.cmd("halt 256")[1].startswith("error: ")
        assert vm.cmd("halt -1")[1].startswith("error: ")
        assert vm.cmd("halt x")[1].startswith("error: ")
        assert vm.proc.poll() is None


def test_reboot_resets_the_machine():
    # -no-reboot turns the reset into a QEMU exit.
    with Rand86() as vm:
        vm.send(b"reboot\r")
        vm.com1.expect(rb"ok\r\n")
        assert vm.exit_code() == 0


def test_no_com2_is_reported_and_prompt_reached():
    with Rand86(com2=False) as vm:
        assert "com2: no 16550" in vm.boot_log


GRUB_TITLE = rb"\x1b\[\d+;3H[ *](rand86[^\x1b]*?) *\x1b"   # one menu row, as GRUB draws it
GRUB_COUNTDOWN = rb"executed automatically in (\d+)s"
DOWN, ENTER = b"\x1b[B", b"\r"                              # the arrow key as a VT100 sends it


def grub_menu(vm):
    """Wait for the ISO's GRUB menu on COM1; its entry titles, in order."""
    m = vm.com1.expect(rb"(.*?)" + GRUB_COUNTDOWN, 60)
    titles = [t.decode() for t in re.findall(GRUB_TITLE, m.group(1))]
    return titles, int(m.group(2))


def test_iso_boots_through_grub_with_menu_options():
    # built by `make test-qemu` before any test runs (a build here could
    # race another worker's)
    assert os.path.exists(ISO), "make iso builds %s" % ISO
    with Rand86(cdrom=ISO, wait_prompt=False) as vm:
        grub_menu(vm)
        vm.send(ENTER)                  # the default entry, without its timeout
        log = vm.com1.expect(rb"(rand86 \d[^\r\n]*\r\n.*?)rand86> ", 60).group(1)
        assert b"ignoring boot option" not in log, log
        st = vm.status()
        # the GRUB entry passes hz=250 (see boot/grub.cfg)
        assert st["hz"] == "250", st


def test_iso_menu_is_driven_from_com1():
    # A headless PC: the menu reaches COM1, waits a few seconds, each title
    # names the options its entry adds, and arrow keys sent as ANSI escapes
    # plus Enter pick the credit=tso entry.
    assert os.path.exists(ISO), "make iso builds %s" % ISO
    with Rand86(cdrom=ISO, wait_prompt=False) as vm:
        titles, seconds = grub_menu(vm)
        assert 3 <= seconds <= 10, "the menu waits %d s" % seconds
        tso = [i for i, t in enumerate(titles) if "credit=tso" in t.split()]
        assert len(tso) == 1, titles
        vm.send(DOWN * tso[0] + ENTER)
        vm.com1.expect(rb"rand86 \d[^\r\n]*\r\n.*?rand86> ", 60)
        st = vm.status()
        assert st["credit"] == "tso", st
        assert st["hz"] == "250", st


def test_exception_is_reported_on_console_and_vga_then_halts():
    # An NMI (vector 2) injected over QMP goes through the exception path.
    with Rand86() as vm:
        vm.qmp.execute("inject-nmi")
        m = vm.com1.expect(rb"\*\*\* exception 2 \(NMI\) error=0x([0-9a-f]{8}) eip=0x([0-9a-f]{8})"
                           rb".*?eax=[0-9a-f]{8} ebx=[0-9a-f]{8}.*?\*\*\* halted", 10)
        assert int(m.group(2), 16) >= 0x100000, "EIP outside the kernel image"
        path = os.path.join(vm.dir, "vga.bin")
        deadline = time.monotonic() + 10       # the screen may be written after COM1
        while True:
            vm.qmp.execute("pmemsave", val=0xB8000, size=4000, filename=path)
            with open(path, "rb") as f:
                screen = f.read()[0::2].decode("latin-1")
            if "*** exception 2 (NMI)" in screen or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert "*** exception 2 (NMI)" in screen, screen
        vm.send(b"status\r")
        time.sleep(1.0)
        assert b"ok" not in vm.com1.unconsumed(), "the appliance went on after an exception"
        assert vm.proc.poll() is None, "an exception reset the machine (triple fault?)"


def test_tsc_calibration_is_exact_in_guest_time():
    # Under -icount the TSC counts virtual nanoseconds and the PIT runs on
    # the same virtual clock: calibrating one against the other must give
    # 1,000,000 kHz, and uptime_ms (the TSC over cpu_khz) then counts
    # guest milliseconds. A calibration error of X% shows as X% here,
    # exactly, whatever the host's load (host-time figures: make bench).
    with Rand86(accel_name="tcg", extra=["-icount", "shift=0,sleep=off"]) as vm:
        st = vm.status()
        assert st["clock"] == "tsc", st
        khz = int(st["cpu_khz"])
        assert abs(khz - 1000000) <= 1000, "cpu_khz %d under -icount (1 GHz virtual TSC)" % khz


# Under -icount the PIT, the TSC and the CMOS clock (-rtc clock=vm) all
# run on QEMU's virtual clock, so no tick is late however busy the host.
ICOUNT_RTC = ["-icount", "shift=6,sleep=off"] + RTC_VM
CLOCK_GUEST_S = 120          # a 1% drift is 1.2 s by then
CLOCK_START_MS = 500         # guest time before uptime_ms starts (boot, calibration)


def uptime_between_rtc_reads(vm):
    """(RTC seconds, uptime_ms, RTC seconds): the CMOS clock before and after `status`."""
    r0 = vm.rtc_seconds()
    u = int(vm.status()["uptime_ms"])
    return r0, u, vm.rtc_seconds()


@pytest.mark.timeout(150)
@pytest.mark.parametrize("cpu,hz", [(None, 100), ("486", 100), ("486", 1000)])
def test_uptime_keeps_guest_time_under_icount(cpu, hz):
    # uptime_ms is the clock divided by cpu_khz (TSC) or PIT ticks counted
    # (486): a calibration error or a lost tick shows as uptime_ms falling
    # behind the CMOS clock, which counts virtual seconds from boot. It
    # may lag by the boot before the clock starts, never more, nor run ahead.
    with Rand86(cpu=cpu, append="hz=%d stream=off" % hz, accel_name="tcg", extra=ICOUNT_RTC) as vm:
        st = vm.status()
        assert st["clock"] == ("pit" if cpu == "486" else "tsc"), st
        r0 = 0
        while r0 < CLOCK_GUEST_S:
            r0, u, r1 = uptime_between_rtc_reads(vm)
            assert r0 * 1000 - CLOCK_START_MS <= u < (r1 + 1) * 1000, \
                "uptime_ms %d outside guest time %d..%d s (hz=%d)" % (u, r0, r1 + 1, hz)
            time.sleep(0.5)


def test_uptime_counts_a_stall_of_the_emulator():
    # Stopped for 3 s, QEMU delivers the missed PIT ticks as one, while the
    # TSC (the host's) ran on: uptime must follow the TSC, not the ticks.
    # Host time is the reference here by definition: the behaviour is
    # that a stall of the machine counts, as the CMOS clock (which follows
    # the host's) says; the bound is a sixth of the stall.
    # A guard that took the TSC for a leap here lost the whole stall.
    with Rand86() as vm:
        assert vm.status()["clock"] == "tsc"
        t0 = time.monotonic()
        u0 = int(vm.status()["uptime_ms"])
        os.kill(vm.proc.pid, signal.SIGSTOP)
        try:
            time.sleep(3.0)
        finally:
            os.kill(vm.proc.pid, signal.SIGCONT)
        u1 = int(vm.status()["uptime_ms"])
        host_ms = (time.monotonic() - t0) * 1000
        assert abs((u1 - u0) - host_ms) < 500, "guest uptime %d ms over %d host ms" % (
            u1 - u0, host_ms)
