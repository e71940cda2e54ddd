"""Holding up on real hardware and against hostile input.

Each test attacks one weakness from outside: the PIT clock on a CPU without
a TSC, console bytes that arrive at awkward moments, a crafted or flooding
network peer, and boot options that collide with a fixed device.
"""
import random
import re
import time

import pytest

from rand86 import BROADCAST, RTC_VM, SRC_MAC, Rand86, Wire

ISA = ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
PCI = ["-device", "ne2k_pci,netdev=n0"]
PROMPT_AFTER = rb"\r\n(ok|error: [^\r\n]*)\r\nrand86> "


@pytest.fixture
def wire():
    w = Wire()
    yield w
    w.close()


# ---- 1. the PIT clock (no TSC) never runs backwards ----

def rapid_uptimes(vm, total=800, batch=100):
    """`status` sent `batch` at a time (700 bytes: fits the 1 KiB RX ring);
    returns every uptime_ms in the order the replies came."""
    ups = []
    while len(ups) < total:
        vm.send(b"status\r" * batch)
        for _ in range(batch):
            m = vm.com1.expect(rb"uptime_ms: (\d+)\r\n.*?\r\nok\r\nrand86> ", 60)
            ups.append(int(m.group(1)))
    return ups


@pytest.mark.timeout(150)
@pytest.mark.parametrize("hz", [18, 100, 250, 1000])
def test_pit_clock_uptime_never_decreases(hz):
    with Rand86(cpu="486", append="hz=%d stream=off" % hz) as vm:
        assert vm.status()["clock"] == "pit"
        ups = rapid_uptimes(vm)
        back = [(a, b) for a, b in zip(ups, ups[1:]) if b < a]
        print("hz=%d: %d regressions in %d status replies, worst %d ms" % (
            hz, len(back), len(ups), max([a - b for a, b in back], default=0)))
        assert not back, "uptime_ms went backwards %d times at hz=%d: %r" % (len(back), hz, back[:10])


# A 486 at about a million instructions a second (-icount shift=10: 1024
# ns of guest time each) ticking at hz=1000. A receive interrupt that
# takes a burst of COM2 bytes, a timing sample each (a few hundred
# instructions), runs for several ticks; the 8259 merges the ticks that
# came meanwhile into one, and channel 2 finds them (arch/x86/pit.c).
SLOW_486 = ["-icount", "shift=10,sleep=off"] + RTC_VM
BURST = 1024


@pytest.mark.timeout(120)
def test_ticks_merged_behind_a_slow_handler_are_counted():
    with Rand86(cpu="486", append="hz=1000 stream=off", accel_name="tcg", extra=SLOW_486) as vm:
        r0 = vm.rtc_seconds()
        st0 = vm.status()
        assert st0["clock"] == "pit", st0
        events = int(vm.sources()["serial2"]["events"])
        vm.com2.write(bytes(range(256)) * (BURST // 256))
        vm.wait_events("serial2", events + BURST, timeout=60)    # every byte in, by guest count
        st1 = vm.status()
        r1 = vm.rtc_seconds()
        lost = int(st1["timer_lost_ticks"]) - int(st0["timer_lost_ticks"])
        print("timer_lost_ticks +%d over %d..%d s of guest time (CMOS clock)" % (lost, r0, r1))
        assert lost > 0, "no merged tick counted behind %d bytes' interrupts: %r" % (BURST, st1)
        # no more than the PIT ticked in that guest time
        assert lost <= 1000 * (r1 - r0 + 1), (lost, r0, r1)


# ---- 5. console input at awkward moments ----

def passes_while_random_waits(vm, ending):
    p0 = int(vm.status()["main_loop_passes"])
    vm.send(b"random 1000" + ending)
    vm.com1.expect(rb"# waiting for entropy", 10)
    time.sleep(3.0)            # the same host span for both endings: a ratio is judged
    vm.send(b"\x03")
    m = vm.com1.expect(PROMPT_AFTER, 10)
    assert m.group(1).startswith(b"error: interrupted"), m.group(0)
    vm.com1.skip_all()
    return int(vm.status()["main_loop_passes"]) - p0


@pytest.mark.timeout(60)
def test_crlf_lets_the_loop_sleep_like_cr():
    # rtc=off: its 4096 wake-ups a second would fill the pool for
    # `random 1000` within the 3 s, and blur the count of idle passes
    with Rand86(append="stream=off rtc=off") as vm:
        cr = passes_while_random_waits(vm, b"\r")
        crlf = passes_while_random_waits(vm, b"\r\n")
        print("main-loop passes in 3 s of waiting: CR %d, CRLF %d" % (cr, crlf))
        assert crlf < 10 * cr + 5000, "a CRLF kept the idle loop busy: %d passes vs %d with CR" % (crlf, cr)


@pytest.mark.timeout(120)
def test_ctrl_c_in_the_same_write_as_the_command_stops_it():
    with Rand86(append="stream=off") as vm:
        for line, want in ((b"stream urandom", b"ok"), (b"urandom 100000 bin", b"error: interrupted")):
            for i in range(10):
                vm.send(line + b"\r\x03")
                m = vm.com1.expect(PROMPT_AFTER, 5)
                assert m.group(1).startswith(want), (line, i, m.group(1))
                vm.com1.skip_all()
                # the Ctrl-C was consumed by the command: nothing is left for the shell
                time.sleep(0.05)
                assert b"^C" not in vm.com1.unconsumed(), (line, i)
                vm.ok("status")


@pytest.mark.timeout(60)
def test_type_ahead_over_the_ring_is_counted_and_ctrl_c_still_stops():
    with Rand86(append="stream=off") as vm:
        assert vm.status()["console_rx_dropped"] == "0"
        vm.send(b"random 1000\r")
        vm.com1.expect(rb"# waiting for entropy", 10)
        vm.send(b"a" * 3000 + b"\x03")            # 3 KiB typed while the command runs
        m = vm.com1.expect(PROMPT_AFTER, 10)
        assert m.group(1).startswith(b"error: interrupted"), m.group(0)
        time.sleep(0.5)
        vm.send(b"\r")              # the Ctrl-C the full ring lost took the type-ahead with it
        assert vm.com1.read_until(b"rand86> ", 10) == b"\r\n"
        dropped = int(vm.status()["console_rx_dropped"])
        print("console_rx_dropped after 3001 bytes of type-ahead: %d" % dropped)
        assert 1500 < dropped <= 3001, dropped


def reply_to_status_comes_next(vm):
    """Send `status`; the shell's very next output must be its echo and
    reply: nothing left over from before a Ctrl-C ran in between. Returns
    that output. The shell reads its ring in order, so no wait decides it."""
    vm.send(b"status\r")
    try:
        text = vm.com1.read_until(b"\r\nok\r\nrand86> ", 60)
    except Exception:
        raise AssertionError("no reply to status; QEMU exit status %r; output %r"
                             % (vm.proc.poll(), vm.com1.unconsumed()[-400:]))
    assert text.startswith(b"status\r\n"), "ran before status: %r" % text[:400]
    assert b"uptime_ms: " in text, text[:400]
    assert vm.proc.poll() is None, "QEMU exited (%r)" % vm.proc.poll()
    return text


@pytest.mark.timeout(90)
def test_ctrl_c_lost_to_a_full_ring_drops_the_type_ahead_before_it():
    # One write: a long command, a queued `halt 7`, 3,000 bytes that fill
    # the 1 KiB ring behind it, then the Ctrl-C, which the ring cannot hold.
    with Rand86(append="hz=1000 stream=off") as vm:
        vm.send(b"random 16777216\rhalt 7\r" + b"x" * 3000 + b"\x03")
        m = vm.com1.expect(PROMPT_AFTER, 30)
        assert m.group(1).startswith(b"error: interrupted"), m.group(0)[-200:]
        reply_to_status_comes_next(vm)
        assert int(vm.status()["console_rx_dropped"]) > 0   # the Ctrl-C did find the ring full


@pytest.mark.timeout(300)
def test_ctrl_c_after_a_flood_during_stream_runs_none_of_it():
    # 200 KB of garbage (lines of random bytes, no Ctrl-C among them) while
    # `stream urandom` runs, then a Ctrl-C that finds the ring full.
    rnd = random.Random(0xc3)
    alphabet = [b for b in range(256) if b not in (0x03, 0x0a, 0x0d)]
    garbage = bytearray()
    while len(garbage) < 200 * 1024:
        line = bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 60)))
        garbage += line + b"\r"
    with Rand86(append="stream=off") as vm:
        vm.send(b"stream urandom\r")
        vm.com1.read_exact(4096, 30)                     # it is streaming
        vm.send(bytes(garbage) + b"\x03")
        vm.com1.read_until(b"\r\nok\r\nrand86> ", 180)  # the stream's end
        reply_to_status_comes_next(vm)


# ---- 4, 7, 8. boot: IRQ lines, probes, the serial sources ----

@pytest.mark.timeout(60)
def test_ne2k_option_on_com1_irq_is_refused(wire):
    with Rand86(append="ne2k=0x300,4", extra=wire.netdev() + ISA, boot_timeout=20) as vm:
        assert "warning: ignoring boot option 'ne2k=0x300,4'" in vm.boot_log, vm.boot_log
        assert "ne2k0: ISA NE2000 at 0x300 irq 9" in vm.boot_log, vm.boot_log
        st = vm.status()
        assert st["version"]
        assert vm.sources()["serial"]["irq"] == "4"


@pytest.mark.timeout(60)
def test_isa_card_on_another_irq_is_found_by_a_test_interrupt(wire):
    extra = wire.netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=10"]
    with Rand86(extra=extra) as vm:
        assert "ne2k0: no test interrupt on irq 9" in vm.boot_log, vm.boot_log
        assert "ne2k0: ISA NE2000 at 0x300 irq 10" in vm.boot_log, vm.boot_log
        assert vm.sources()["ne2k0"]["irq"] == "10"
        got = wire.deliver(100, lambda: int(vm.sources()["ne2k0"]["frames"]))
        assert got >= 80, "the irq 10 card counted %d of 100 frames" % got


@pytest.mark.timeout(60)
def test_isa_card_irq_is_verified(wire):
    with Rand86(extra=wire.netdev() + ISA) as vm:
        assert "ne2k0: test interrupt seen on irq 9" in vm.boot_log, vm.boot_log


@pytest.mark.timeout(60)
def test_explicit_ne2k_option_does_not_probe_pci(wire):
    with Rand86(append="ne2k=0x320,10", extra=wire.netdev() + PCI) as vm:
        assert "PCI NE2000" not in vm.boot_log, vm.boot_log
        assert "ne2k: no NE2000 at 0x320 irq 10: network source absent" in vm.boot_log
        assert "ne2k0" not in vm.sources()


@pytest.mark.timeout(60)
def test_serial_sources_show_their_irqs_and_a_real_shift():
    with Rand86(append="stream=off") as vm:
        src = vm.sources()
        assert src["serial"]["irq"] == "4", src
        assert src["serial2"]["irq"] == "3", src
        assert "com1: 16550A, 16-byte FIFO" in vm.boot_log, vm.boot_log
        vm.send(b"samples serial 3\r")
        vm.com1.expect(rb"# capturing[^\r\n]*\r\n", 10)
        for _ in range(3):
            time.sleep(0.05)
            vm.send(b"\x7f")                  # DEL on an empty line: no echo, no effect
        m = vm.com1.expect(rb"(.*?)\r\nok\r\nrand86> ", 10)
        rows = [l.split() for l in m.group(1).decode().split("\r\n") if re.match(r"^[0-9a-f]{8} ", l)]
        assert len(rows) == 3, m.group(1)
        # 50 ms apart: the shift for the source's 1 kHz granularity makes the
        # shifted delta far smaller than the raw one (a 0 kHz shift is 0)
        for raw, shifted in rows[1:]:
            assert int(shifted, 16) < int(raw, 16) // 8, rows


# ---- 3. a crafted frame or a flood of every length never wedges the NIC ----

def ne2k(vm):
    return vm.sources()["ne2k0"]


def frames_flow_again(vm, wire):
    """Normal frames are counted again after an attack: 40 of 50, sent at
    the pace the card counts them (Wire.deliver), not the host's."""
    got = wire.deliver(50, lambda: int(ne2k(vm)["frames"]))
    assert got >= 40, "frames do not flow after the attack: %d of 50, %r" % (got, ne2k(vm))
    return got


def crafted_frame():
    f = bytearray(15000)
    f[0:14] = BROADCAST + SRC_MAC + b"\x08\x00"
    for off in range(252, len(f) - 3, 256):
        f[off:off + 4] = b"\x01\x50\xff\xff"
    return bytes(f)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("card", ["isa", "pci"])
def test_crafted_frame_does_not_wedge_the_ring(wire, card):
    with Rand86(append="stream=off", extra=wire.netdev() + (ISA if card == "isa" else PCI)) as vm:
        frames_flow_again(vm, wire)
        wire.send(crafted_frame())
        time.sleep(0.3)
        got = frames_flow_again(vm, wire)
        after = ne2k(vm)
        print("%s: after the crafted frame %d of 50 frames counted; %r" % (card, got, after))
        assert int(after["resets"]) >= 1, after
        time.sleep(0.5)
        o1 = int(ne2k(vm)["oversize"])
        time.sleep(0.5)
        assert int(ne2k(vm)["oversize"]) == o1, "oversize still climbing: the ring is looping"


FLOOD_PASSES = 20          # 32,000 frames, every length 1..1600 twenty times


def flood_every_length(wire, passes):
    """`passes` rounds of one frame of each length 1..1600, in bursts of 25
    with 1 ms gaps; returns how many were sent."""
    frame = BROADCAST + SRC_MAC + b"\x08\x00" + bytes(range(256)) * 7
    sent = 0
    for _ in range(passes):
        for n in range(1, 1601):
            wire.send(frame[:n])
            sent += 1
            if n % 25 == 0:
                time.sleep(0.001)
    return sent


@pytest.mark.timeout(60)
@pytest.mark.parametrize("card", ["isa", "pci"])
def test_flood_of_every_length_does_not_wedge_the_ring(wire, card):
    """Every length, oversize ones included, twenty times over: the card
    keeps counting and normal frames flow again after it. How many of a
    flood the guest takes, and how soon after it frames count again, depend
    on the host's speed: those figures are in `make bench`; the driver's
    count of every length and its recovery within one main-loop pass are
    host tests against a DP8390 model (tests/unit/test_drv_ne2000.c)."""
    with Rand86(append="stream=off", extra=wire.netdev() + (ISA if card == "isa" else PCI)) as vm:
        before = int(vm.status()["uptime_ms"])
        sent = flood_every_length(wire, FLOOD_PASSES)
        during = ne2k(vm)
        got = frames_flow_again(vm, wire)
        after = ne2k(vm)
        print("%s: %d frames of every length 1..1600; %r; then %d of 50 normal frames; %r"
              % (card, sent, during, got, after))
        assert 0 < int(during["frames"]) <= sent, during
        assert int(during["oversize"]) > 0, "no frame over 1518 bytes was seen: %r" % during
        assert during["errors"] == "0" and during["credited"] == "0", during
        st = vm.status()
        assert int(st["uptime_ms"]) > before
