"""Seeded before serving (docs/PROTOCOL.md "Invariants"): under
credit=measured no urandom byte leaves before `seeded: 1`.

The restart test follows SP 800-90B 3.1.4's idea: boot the same
deterministic machine (QEMU -icount with sleep=off, a fixed RTC, no input)
twice. The seed rules (credit=xymoron) show why it matters: both boots
send the same urandom bytes on COM2 from pools nothing credited, the hole
behind the identical keys of headless devices (Heninger et al., USENIX
Security 2012). credit=measured must send and credit nothing there, and
two boots given different keys must both seed and send different bytes.
"""
import random
import re
import time

import pytest

from rand86 import Rand86, key_event

# Guest time is the instruction count; with sleep=off an idle guest's
# clock leaps to its next timer, so nothing that host timing could change
# reaches the guest unless the harness sends it.
DETERMINISTIC = ["-icount", "shift=5,sleep=off", "-rtc", "base=2020-01-01T00:00:00,clock=vm"]
# Guest time each deterministic boot runs without input: 30 s is tens of
# thousands of timer and rtc samples, dozens of the meter's full assessments
# (one per 512 samples of a source).
GUEST_MS = 30000
FIRST = 64                # bytes of COM2 compared between boots


def deterministic(append):
    return Rand86(append=append, extra=DETERMINISTIC, accel_name="tcg")


def run_idle(vm, guest_ms=GUEST_MS, host_s=60):
    """Let the guest run guest_ms of its own time with no input; COM2 is
    drained all along by its reader thread. Returns the last status."""
    deadline = time.monotonic() + host_s
    while True:
        st = vm.status()
        if int(st["uptime_ms"]) >= guest_ms:
            return st
        assert time.monotonic() < deadline, "guest time stuck at %s ms" % st["uptime_ms"]
        time.sleep(0.2)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("stream", ["urandom", "random"])
def test_deterministic_boots_without_input_serve_and_credit_nothing(stream):
    for boot in (1, 2):
        with deterministic("stream=" + stream) as vm:
            st = run_idle(vm)
            sent = vm.com2.available()
            assert sent == 0, "boot %d: COM2 sent %d bytes with nothing credited" % (boot, sent)
            assert st["seeded"] == "0" and st["seeded_ms"] == "0", st
            for key in ("credited_bits", "urandom_bytes", "random_bytes", "spent_bits"):
                assert st[key] == "0", (key, st)
            src = vm.sources()
            for name in ("timer", "rtc"):     # the two sources that need no person
                assert src[name]["credited"] == "0", src[name]
                assert int(src[name]["events"]) > 0, src[name]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("cpu,extra,counts", [
    (None, [], "time"),
    ("486", [], "time"),
    (None, ["-icount", "shift=5,sleep=off"], "instructions"),
    ("pentium", ["-icount", "shift=0,sleep=off"], "instructions"),
    ("486", ["-icount", "shift=7,sleep=off"], "instructions"),
])
def test_clock_check_tells_instruction_counted_machines(cpu, extra, counts):
    """The boot-time check (arch/x86/clock.c): a host-timed TCG machine's
    clock counts time, every -icount machine's counts instructions, on
    CPU models and rates the check was not tuned on; there the timer and
    the rtc are mixed but credited nothing, and the hint asks for a person."""
    with Rand86(cpu=cpu, append="hz=1000", extra=extra, accel_name="tcg") as vm:
        st = vm.status()
        assert st["clock_counts"] == counts, (st, vm.boot_log)
        if counts == "time":
            return
        vm.send("urandom 1\r")
        note = vm.com1.expect(NOTE.pattern, 20)
        assert note.group(2).startswith(b"this machine's clock counts instructions: "), note.group(0)
        vm.send(b"\x03")
        vm.com1.expect(rb"error: interrupted after 0 of 1 bytes\r\nrand86> ", 20)
        for name, src in vm.sources().items():
            assert src["credited"] == "0", (name, src)


@pytest.mark.timeout(120)
def test_seed_rules_keep_the_boot_time_hole():
    """The control: under credit=xymoron (the 2002 rule, urandom never
    waits) the same deterministic machine sends the same bytes twice. If
    this stopped holding, the test above would prove nothing."""
    first = []
    for boot in (1, 2):
        with deterministic("credit=xymoron stream=urandom") as vm:
            first.append(vm.com2.read_exact(FIRST, 60))
            st = vm.status()
            assert st["credited_bits"] == "0" and int(st["urandom_bytes"]) >= FIRST, st
    assert first[0] == first[1], "the deterministic machine was not deterministic: %r" % first


def seed_watching_com2(vm, rnd_seed, timeout=150):
    """Type until seeded; every status that says seeded: 0 must have been
    asked for after COM2 had sent nothing (bytes seen before a status
    request left the appliance before its snapshot)."""
    rnd = random.Random(rnd_seed)
    deadline = time.monotonic() + timeout
    while True:
        before = vm.com2.available()
        st = vm.status()
        if st["seeded"] == "1":
            return st
        assert before == 0, "COM2 sent %d bytes before seeded: 1 (%r)" % (before, st)
        assert time.monotonic() < deadline, "typing never seeded: %r" % st
        for _ in range(10):
            key_press(vm, rnd)


def key_press(vm, rnd):
    """A key held 5-30 ms, then 5-40 ms to the next: under sleep=off the
    guest's clock leaps ahead whenever it idles, so host gaps this short
    still arrive as irregular guest deltas (and seed in fewer host seconds
    than a person's pace)."""
    qcode = rnd.choice("asdfjkl")
    vm.qmp.execute("input-send-event", events=[key_event(qcode, True)])
    time.sleep(rnd.uniform(0.005, 0.03))
    vm.qmp.execute("input-send-event", events=[key_event(qcode, False)])
    time.sleep(rnd.uniform(0.005, 0.04))


@pytest.mark.timeout(400)
def test_deterministic_boots_given_different_keys_seed_and_differ():
    first = []
    for boot in (1, 2):
        with deterministic("stream=urandom") as vm:
            st = seed_watching_com2(vm, rnd_seed=boot)
            assert int(st["seeded_ms"]) > 0, st
            assert int(st["seeded_ms"]) <= int(st["uptime_ms"]), st
            assert int(vm.sources()["keyboard"]["credited"]) > 0, vm.sources()["keyboard"]
            first.append(vm.com2.read_exact(FIRST, 60))
    assert first[0] != first[1], "two boots with different input sent the same bytes"


@pytest.mark.timeout(60)
def test_tcg_boot_seeds_from_the_timer_alone():
    """The timer alone (rtc=off; with it the rtc seeds first, test_rtc.py).
    How many seconds it takes depends on how much host the guest gets: that
    figure is make bench's; here the deadline is only the guest's chance."""
    with Rand86(append="stream=urandom rtc=off") as vm:
        deadline = time.monotonic() + 60
        while True:
            st = vm.status()
            if st["seeded"] == "1":
                break
            assert time.monotonic() < deadline, "no seeding without input: %r" % st
            time.sleep(0.2)
        # seeded_ms is the guest's own moment: after boot, before this reply
        assert 0 < int(st["seeded_ms"]) <= int(st["uptime_ms"]), st
        assert int(vm.sources()["timer"]["credited"]) >= 256, vm.sources()["timer"]
        vm.com2.read_exact(FIRST, 30)              # COM2 streams now
        again = vm.status()
        assert again["seeded"] == "1" and again["seeded_ms"] == st["seeded_ms"], (st, again)


NOTE = re.compile(rb"# waiting for seeding: (\d+) of 256 bits credited; ([^\r\n]*)\r\n")


@pytest.mark.timeout(180)
def test_urandom_waits_with_notes_and_ctrl_c_on_a_486():
    """No TSC: the timer credits nothing, and with rtc=off urandom waits
    for typing."""
    with Rand86(cpu="486", append="stream=urandom rtc=off") as vm:
        u0 = int(vm.status()["uptime_ms"])
        vm.send("urandom 32\r")
        vm.com1.expect(rb"urandom 32\r\n", 10)
        time.sleep(3.5)
        vm.send(b"\x03")
        m = vm.com1.expect(rb"(.*)error: interrupted after 0 of 32 bytes\r\nrand86> ", 10)
        st = vm.status()
        out, guest_s = m.group(1), (int(st["uptime_ms"]) - u0) / 1000.0
        notes = NOTE.findall(out)
        # at most one a second of the appliance's own time, the first at once
        assert 1 <= len(notes) <= guest_s + 1, (guest_s, out)
        assert all(n[1] == b"type on the keyboard or move the mouse" for n in notes), notes
        assert not re.search(rb"^[0-9a-f]{64}\r\n", out, re.M), out
        assert st["seeded"] == "0" and st["urandom_bytes"] == "0", st
        assert vm.com2.available() == 0
        st = seed_watching_com2(vm, rnd_seed=3)
        body = vm.ok("urandom 32")
        assert len(body) == 1 and re.match(r"^[0-9a-f]{64}$", body[0]), body
