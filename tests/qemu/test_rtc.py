"""The `rtc` source: the CMOS clock's periodic interrupt (docs/PROTOCOL.md
"Devices" and "Boot options"; docs/ENTROPY.md, "The RTC").

Registers A and B are read from outside, through QEMU's monitor (`o` and
`i` on ports 0x70/0x71 with the machine stopped), so the test does not
take rand86's word for what it left in them. The missed acknowledgement
is covered on a model of the chip (tests/unit/test_drv_rtc.c): QEMU's
monitor can read register C but cannot make the guest miss an edge.
The deterministic machine's rtc is in test_seeding.py.
"""
import re
import time

import pytest

from rand86 import RTC_VM, Rand86

# QEMU's mc146818rtc as SeaBIOS leaves it: 32.768 kHz divider with rate
# 6 (1024 Hz) selected, periodic interrupt off; 24-hour BCD, no interrupt
# enabled (SeaBIOS src/hw/rtc.c, rtc_setup).
BIOS_A, BIOS_B = 0x26, 0x02
PIE, RATE = 0x40, 0x0F
RTC_LINE = re.compile(r"rtc: IRQ 8 at (\d+) Hz timed by the (TSC|PIT): trusted")


def cmos_registers(vm, regs=(0x0A, 0x0B)):
    """Read CMOS registers through the monitor with the guest stopped; the
    index is left on register D with NMI enabled, as rand86 leaves it."""
    vals = []
    vm.qmp.execute("stop")
    try:
        for reg in regs:
            hmp(vm, "o /b 0x70 0x%02x" % (0x80 | reg))
            vals.append(int(hmp(vm, "i /b 0x71").split("=")[1], 16))
        hmp(vm, "o /b 0x70 0x0d")
    finally:
        vm.qmp.execute("cont")
    return vals


def hmp(vm, line):
    return vm.qmp.execute("human-monitor-command", **{"command-line": line})


def rate_select(hz):
    """The datasheet's r for hz: 32768 >> (r - 1) == hz."""
    return next(r for r in range(3, 16) if 32768 >> (r - 1) == hz)


def events_per_guest_second(vm, guest_ms):
    """The rtc's interrupts over guest_ms of guest time (status uptime_ms)."""
    s0, u0 = vm.sources()["rtc"], int(vm.status()["uptime_ms"])
    while int(vm.status()["uptime_ms"]) - u0 < guest_ms:
        time.sleep(0.2)
    s1, u1 = vm.sources()["rtc"], int(vm.status()["uptime_ms"])
    return (int(s1["events"]) - int(s0["events"])) * 1000.0 / (u1 - u0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("append,hz", [("", 4096), ("rtc=2", 2), ("rtc=8192", 8192)])
def test_rtc_interrupts_at_its_rate_as_a_trusted_source(append, hz):
    with Rand86(append=append) as vm:
        m = RTC_LINE.search(vm.boot_log)
        assert m and int(m.group(1)) == hz and m.group(2) == "TSC", vm.boot_log
        src = vm.sources()["rtc"]
        assert (src["irq"], src["trust"], src["hz"], src["timed_by"]) == ("8", "trusted", str(hz), "tsc")
        a, b = cmos_registers(vm)
        assert (a & ~RATE, a & RATE) == (BIOS_A & ~RATE, rate_select(hz)), hex(a)
        assert b == BIOS_B | PIE, hex(b)
        rate = events_per_guest_second(vm, 8000 if hz == 2 else 3000)
        # Never more than hz. TCG merges periods when the host is late, so
        # how many fewer depends on the host (5,677 a second at rtc=8192
        # with the suite on both cores): register A, read above, is what
        # proves the rate programmed; the figure only has to show it runs:
        # above ten times the 20 a second a missed acknowledgement leaves
        # (1,945 at rtc=8192 with four busy loops beside the suite).
        low = min(hz * 0.25, 200)
        assert low <= rate <= 1.02 * hz + 0.5, "%.1f interrupts a second at rtc=%d" % (rate, hz)
        assert vm.sources()["rtc"]["rearms"] == "0"


@pytest.mark.timeout(90)
@pytest.mark.parametrize("append,why", [("rtc=off", "rtc=off"), ("credit=xymoron", "xymoron"),
                                        ("credit=tso", "tso")])
def test_rtc_off_leaves_the_cmos_clock_as_the_bios_set_it(append, why):
    """rtc=off, and the seed's rules (their sources are the 2002 set)."""
    with Rand86(append=append) as vm:
        assert "rtc: off (%s): CMOS clock left as it was" % why in vm.boot_log, vm.boot_log
        assert "rtc" not in vm.sources()
        time.sleep(1.0)
        assert cmos_registers(vm) == [BIOS_A, BIOS_B]


@pytest.mark.timeout(60)
def test_a_rate_the_divider_cannot_make_is_warned_and_the_default_kept():
    with Rand86(append="rtc=1000") as vm:
        assert "warning: ignoring boot option 'rtc=1000'" in vm.boot_log
        assert vm.sources()["rtc"]["hz"] == "4096"


@pytest.mark.timeout(150)
def test_cmos_clock_reads_right_with_the_rtc_interrupt_running():
    """rand86's own reading of the time of day (status cmos_seconds, the
    uptime clock's arbiter) against QEMU's, with 8192 interrupts a second
    selecting register C between the clock code's accesses."""
    with Rand86(append="rtc=8192", extra=RTC_VM) as vm:
        e0, u0 = int(vm.sources()["rtc"]["events"]), int(vm.status()["uptime_ms"])
        reads = 0
        while reads < 60 or int(vm.status()["uptime_ms"]) - u0 < 3000:
            r0 = vm.rtc_seconds()
            c = int(vm.status()["cmos_seconds"])
            r1 = vm.rtc_seconds()
            assert r0 <= c <= r1, "rand86 read %d s, QEMU's clock %d..%d s" % (c, r0, r1)
            reads += 1
        e1, u1 = int(vm.sources()["rtc"]["events"]), int(vm.status()["uptime_ms"])
        # running all along. A missed acknowledgement would stop IRQ 8
        # until the main loop rearms it, 50 ms later at the least: at most
        # 20 interrupts a guest second. TCG drops periods whose timer it
        # runs late (7,358 over 3 s under the suite's load; 1,793 with
        # four busy loops beside it), never down to that: ten times it.
        assert e1 - e0 >= 200 * (u1 - u0) // 1000, (e0, e1, u0, u1)


@pytest.mark.timeout(60)
def test_a_c_read_from_outside_is_harmless():
    """Something else reading register C (a BIOS in SMM) takes one period's
    flag: that interrupt is a stray, and the next period interrupts again."""
    with Rand86(append="rtc=64") as vm:
        for _ in range(20):
            vm.qmp.execute("stop")
            hmp(vm, "o /b 0x70 0x8c")
            hmp(vm, "i /b 0x71")
            hmp(vm, "o /b 0x70 0x0d")
            vm.qmp.execute("cont")
            time.sleep(0.05)
        e0 = int(vm.sources()["rtc"]["events"])
        vm.wait_guest_ms(1000)
        src = vm.sources()["rtc"]
        assert int(src["events"]) - e0 >= 32, src      # of 64 a guest second
        assert src["rearms"] == "0", src


@pytest.mark.timeout(90)
def test_headless_tcg_seeds_from_the_rtc_first():
    # How soon is a property of the host (make bench); the deadline is the
    # guest's chance, the verdict what seeded it.
    with Rand86(append="stream=urandom") as vm:
        deadline = time.monotonic() + 60
        while vm.status()["seeded"] != "1":
            assert time.monotonic() < deadline, vm.status()
            time.sleep(0.2)
        st, src = vm.status(), vm.sources()
        assert 0 < int(st["seeded_ms"]) <= int(st["uptime_ms"]), st
        rtc, timer = int(src["rtc"]["credited"]), int(src["timer"]["credited"])
        assert rtc + timer >= 256 and rtc > timer, (src["rtc"], src["timer"])
        vm.com2.read_exact(64, 30)                 # COM2 streams urandom now
