"""i8042 keyboard and PS/2 mouse as entropy sources (docs/PROTOCOL.md devices table, `sources`).

Input is injected with QMP input-send-event, so its timing comes from this
test and the host's load: the assertions are counts of events and relations
(some, zero), never bit counts that depend on when an edge arrived.
"""
import random
import time

from rand86 import Rand86, key_event

KEYS = ["a", "s", "d", "f", "j", "k", "l", "up", "right", "kp_enter"]   # some E0-prefixed




def send_key_edge(vm, qcode, down):
    vm.qmp.execute("input-send-event", events=[key_event(qcode, down)])


def test_sources_registered_and_boot_log():
    with Rand86() as vm:
        assert "i8042: keyboard on irq 1, mouse on irq 12" in vm.boot_log, vm.boot_log
        assert "absent" not in vm.boot_log.split("i8042:")[1].split("\r\n")[0]
        src = vm.sources()
        kbd, mouse = src["keyboard"], src["mouse"]
        assert (kbd["irq"], kbd["trust"]) == ("1", "trusted"), kbd
        assert (mouse["irq"], mouse["trust"]) == ("12", "trusted"), mouse
        # nothing was typed or moved: no events (the keyboard is registered anyway)
        assert kbd["events"] == "0" and mouse["events"] == "0", src
        assert mouse["packets"] == "0" and mouse["resyncs"] == "0", mouse


def test_keys_raise_keyboard_events_one_for_one_and_credit():
    rnd = random.Random(8042)
    with Rand86() as vm:
        st0 = vm.status()
        e0 = int(vm.sources()["keyboard"]["events"])
        n = 24
        for i in range(n):
            vm.key(KEYS[i % len(KEYS)], gap=rnd.uniform(0.03, 0.25))
        kbd = vm.wait_events("keyboard", e0 + 2 * n)
        time.sleep(0.3)                            # anything extra would show up now
        kbd = vm.sources()
        mouse, kbd = kbd["mouse"], kbd["keyboard"]
        assert int(kbd["events"]) - e0 == 2 * n, "%d keys: %r" % (n, kbd)
        assert kbd["ignored"] == "0", kbd
        assert mouse["events"] == "0", "keys counted as mouse: %r" % mouse
        assert int(kbd["bits"]) > 0 and int(kbd["tso_bits"]) > 0, kbd
        st1 = vm.status()
        assert (int(st1["primary_bits"]) > int(st0["primary_bits"])
                or int(st1["credited_bits"]) > int(st0["credited_bits"])), (st0, st1)
        assert int(st1["credited_bits"]) > int(st0["credited_bits"]), (st0, st1)


def test_mouse_motion_raises_mouse_events_in_whole_packets():
    rnd = random.Random(12)
    with Rand86() as vm:
        st0 = vm.status()
        n = 20
        for _ in range(n):
            vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
            time.sleep(rnd.uniform(0.02, 0.15))
        vm.wait_events("mouse", n)
        time.sleep(0.3)
        srcs = vm.sources()
        mouse, kbd = srcs["mouse"], srcs["keyboard"]
        ev = int(mouse["events"])
        assert ev >= n, mouse                      # small moves: one packet each at least
        assert int(mouse["packets"]) == ev, mouse  # one sample per complete packet
        assert mouse["resyncs"] == "0", mouse      # QEMU never loses a byte
        assert kbd["events"] == "0", "mouse bytes counted as keys: %r" % kbd
        assert int(mouse["tso_bits"]) > 0, mouse
        assert int(vm.status()["credited_bits"]) >= int(st0["credited_bits"])


def run_schedule(vm, gaps, warmup=3):
    """One key edge (press, then release, alternately) per slot of `gaps`;
    return the keyboard's fields after the warm-up edges and at the end."""
    t = time.monotonic() + 0.2
    before = None
    for i, g in enumerate(gaps):
        if i == warmup:
            before = vm.sources()["keyboard"]
        t += g
        left = t - time.monotonic()
        if left > 0:
            time.sleep(left)
        send_key_edge(vm, "a", i % 2 == 0)
    after = vm.wait_events("keyboard", int(before["events"]) + len(gaps) - warmup)
    return before, after


def delta(before, after, key):
    return int(after[key]) - int(before[key])


def test_regular_and_irregular_edges_are_each_one_event():
    """Edges at a strict pace and at irregular gaps, one machine: each edge
    is one keyboard event, none ignored. How many bits each pace earns depends on when QMP delivers the edges, which
    a loaded host decides: that relation (a strict pace earns under a
    quarter of the irregular one) is a host test with a scripted clock
    (tests/unit/test_entropy.c), and the figures are in `make bench`."""
    n = 30
    rnd = random.Random(1)
    with Rand86() as vm:
        for gaps in ([0.05] * (n + 3), [rnd.uniform(0.02, 0.15) for _ in range(n + 3)]):
            b, a = run_schedule(vm, gaps)
            got = {k: delta(b, a, k) for k in ("events", "bits", "tso_bits", "ignored")}
            print(got)
            assert got["events"] == n and got["ignored"] == 0, got


def test_no_controller_boots_and_reports_absence():
    """-M pc,i8042=off removes the controller (ports float). QEMU 7.2 has no way
    to remove only the PS/2 mouse on the pc machine, so the mouse-less but
    controller-present path is not testable here."""
    # -icount: boot_to_prompt_ms is then guest time, counted in
    # instructions, whatever the host's load
    with Rand86(extra=["-M", "pc,i8042=off", "-icount", "shift=5,sleep=off"],
                accel_name="tcg") as vm:
        # every probe wait is bounded: the prompt comes within a second of
        # the appliance's own clock (about 0.15 s, with the controller or without)
        ms = int(vm.status()["boot_to_prompt_ms"])
        assert ms < 1000, "boot took %d guest ms without a controller" % ms
        assert "i8042: no controller at 0x60/0x64: keyboard and mouse absent" in vm.boot_log, \
            vm.boot_log
        assert vm.boot_log.count("no controller at 0x60/0x64") == 1
        assert "mouse: no PS/2 mouse" not in vm.boot_log, vm.boot_log
        src = vm.sources()
        assert "keyboard" not in src and "mouse" not in src, src
        vm.ok("status")
