"""Entropy without a typist: what `random` does when nobody types.

Under the default credit=measured the timer (PIT tick timed by the TSC)
and the rtc (the CMOS clock's periodic interrupt) feed /dev/random by
themselves; on a 486 the rtc alone does (no TSC: the timer is untrusted,
the rtc is timed by the PIT's latch). Under credit=xymoron (the seed's
sources), and on a 486 with rtc=off, nothing does, and `random` waits,
says so, and stops on Ctrl-C. No input is injected here. Hard time-outs
only, but for the 486's 10 s of guest time, a figure docs/ENTROPY.md
promises.
"""
import re
import time

import pytest

from rand86 import Rand86

NOTE = re.compile(rb"# waiting for entropy: (\d+) of (\d+) bytes; (\d+) of (\d+) bits credited; "
                  rb"([^\r\n]*)\r\n")


def notes(out):
    return [m.group(5).decode() for m in NOTE.finditer(out)]


@pytest.mark.timeout(120)
def test_random_32_completes_with_no_input_under_the_default_policy():
    with Rand86() as vm:
        assert vm.status()["credit"] == "measured"
        vm.send("random 32\r")
        m = vm.com1.expect(rb"random 32\r\n(.*?)\r\nok\r\nrand86> ", 90)
        body = m.group(1)
        lines = [l for l in body.decode().split("\r\n") if not l.startswith("#")]
        assert [len(l) for l in lines] == [64], "want one line of 64 hex digits: %r" % body
        assert re.fullmatch(r"[0-9a-f]{64}", lines[0]), lines
        # a note, if the read had to wait at all, names the sources that fed it
        for hint in notes(body):
            assert hint.startswith("fed by timer") and "rtc" in hint, "note: %r" % hint
        src = vm.sources()
        assert int(src["keyboard"]["events"]) == 0 and int(src["mouse"]["events"]) == 0, src
        assert int(src["timer"]["credited"]) + int(src["rtc"]["credited"]) > 0, src
        assert int(vm.status()["random_bytes"]) >= 32


def wait_then_interrupt(vm, n=32, seconds=3.0):
    """`random n` with no input: notes, no bytes for `seconds`; then Ctrl-C."""
    vm.send("random %d\r" % n)
    vm.com1.expect(rb"random %d\r\n" % n, 10)
    time.sleep(seconds)
    out = vm.com1.unconsumed()
    assert not re.search(rb"^[0-9a-f]{2,64}\r\n", out, re.M), "bytes with no entropy: %r" % out
    assert b"ok\r\n" not in out, "random finished with no entropy: %r" % out
    hints = notes(out)
    assert hints, "no waiting note in %ss: %r" % (seconds, out)
    assert all(int(m.group(1)) == 0 for m in NOTE.finditer(out)), out
    vm.send(b"\x03")
    vm.com1.expect(rb"error: interrupted after 0 of %d bytes\r\nrand86> " % n, 10)
    return hints


@pytest.mark.timeout(90)
def test_xymoron_with_no_input_waits_and_asks_for_typing():
    """The seed's sources: no timer source, disks untrusted; only a person helps."""
    with Rand86(append="credit=xymoron") as vm:
        hints = wait_then_interrupt(vm)
        assert all(h == "type on the keyboard or move the mouse" for h in hints), hints
        st = vm.status()
        assert st["random_bytes"] == "0", st
        assert int(st["credited_bits"]) == 0, st


@pytest.mark.timeout(120)
def test_486_in_4_mib_serves_random_and_seeds_from_the_rtc_alone():
    """-cpu 486 -m 4, nobody typing: the timer is untrusted there (the PIT
    timed by itself); the rtc, timed by the PIT's latch, is a second
    crystal. `random 32` answers and urandom seeds within 10 s of guest
    time (the status clock), fed by the rtc."""
    with Rand86(cpu="486", mem=4) as vm:
        vm.send("random 32\r")
        m = vm.com1.expect(rb"random 32\r\n(.*?)\r\nok\r\nrand86> ", 60)
        assert all(h.startswith("fed by rtc") for h in notes(m.group(1))), m.group(1)
        st, src = vm.status(), vm.sources()
        assert st["seeded"] == "1" and 0 < int(st["seeded_ms"]) <= 10000, st
        assert int(st["random_bytes"]) >= 32, st
        assert src["timer"]["trust"] == "untrusted" and src["timer"]["credited"] == "0"
        assert src["rtc"]["timed_by"] == "pit" and int(src["rtc"]["credited"]) > 0, src["rtc"]


@pytest.mark.timeout(120)
def test_486_without_the_rtc_waits_and_does_not_name_the_untrusted_timer():
    """-cpu 486 rtc=off: the timer is untrusted (timed by the PIT itself), so
    it is not offered as feeding the read (test_measured checks credited=0)."""
    with Rand86(cpu="486", append="rtc=off") as vm:
        hints = wait_then_interrupt(vm)
        assert all("timer" not in h for h in hints), hints
        assert all(h == "type on the keyboard or move the mouse" for h in hints), hints
        assert vm.status()["random_bytes"] == "0"
