"""NE2000 driver: frames on an ISA or PCI card are an untrusted source (ne2k0).

QEMU's dgram netdev turns each UDP datagram sent to its local port into one
received Ethernet frame. Loopback addresses only.
"""
import os
import random
import threading
import time

import pytest

from rand86 import BROADCAST, SRC_MAC, Rand86, Wire

ISA = ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
PCI = ["-device", "ne2k_pci,netdev=n0"]


@pytest.fixture
def wire():
    w = Wire()
    yield w
    w.close()


def ne2k(vm):
    return vm.sources()["ne2k0"]


def wait_quiet(vm, timeout=20):
    """Until the frame count stops moving; returns the last ne2k0 fields."""
    deadline = time.monotonic() + timeout
    last = ne2k(vm)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        cur = ne2k(vm)
        if cur["events"] == last["events"]:
            return cur
        last = cur
    return last


def flood_and_check(vm, wire, n=10000):
    before = ne2k(vm)
    st0 = vm.status()
    assert before["trust"] == "untrusted"
    assert before["credited"] == "0", before
    sender = threading.Thread(target=wire.flood, args=(n,))
    sender.start()
    uptimes = [int(st0["uptime_ms"])]
    while sender.is_alive():                 # the console answers during the flood
        st = vm.status()
        uptimes.append(int(st["uptime_ms"]))
        assert st["credited_bits"] == st0["credited_bits"]
    sender.join()
    after = wait_quiet(vm)
    st1 = vm.status()
    uptimes.append(int(st1["uptime_ms"]))
    assert uptimes == sorted(uptimes), uptimes
    got = int(after["frames"]) - int(before["frames"])
    events = int(after["events"]) - int(before["events"])
    print("frames counted %d of %d sent" % (got, n))
    # How many of the datagrams QEMU delivers is the host's to decide (a
    # loaded CI host delivered 79%): the ring's handling, overflows
    # included, is exact in tests/unit/test_drv_ne2000.c; here a flood
    # must be counted, a frame an event, and nothing credited.
    assert got >= n // 10, (got, n, after)
    assert got <= n
    assert events == got
    assert int(after["bits"]) == 0
    assert st1["credited_bits"] == st0["credited_bits"] == "0", st1
    assert after["errors"] == "0" and after["runts"] == "0"
    return got


@pytest.mark.timeout(90)
def test_isa_flood_counted_not_credited(wire):
    # credit=xymoron: the seed's sources (no timer ticking credit in by itself)
    with Rand86(append="credit=xymoron", extra=wire.netdev() + ISA) as vm:
        assert "ne2k0: ISA NE2000 at 0x300 irq 9" in vm.boot_log
        src = ne2k(vm)
        assert src["irq"] == "9"
        flood_and_check(vm, wire)


@pytest.mark.timeout(90)
def test_pci_flood_counted_not_credited(wire):
    with Rand86(append="credit=xymoron", extra=wire.netdev() + PCI) as vm:
        assert "ne2k0: PCI NE2000" in vm.boot_log
        assert "no NE2000" not in vm.boot_log
        flood_and_check(vm, wire)


@pytest.mark.timeout(90)
def test_malformed_frames_survived(wire):
    rnd = random.Random(1234)
    with Rand86(append="credit=xymoron", extra=wire.netdev() + ISA) as vm:
        st0 = vm.status()
        uptimes = [int(st0["uptime_ms"])]
        for rounds in range(3):
            for i in range(100):
                kind = i % 5
                if kind == 0:                    # runt (QEMU pads it to 60 bytes)
                    frame = BROADCAST + SRC_MAC[: rnd.randrange(0, 6)]
                elif kind == 1:                  # junk, any length, any destination
                    frame = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(1, 200)))
                elif kind == 2:                  # oversize for Ethernet
                    frame = BROADCAST + SRC_MAC + b"\x08\x00" + os.urandom(rnd.randrange(1600, 3000))
                elif kind == 3:                  # junk to our broadcast address
                    frame = BROADCAST + os.urandom(rnd.randrange(0, 1600))
                else:                            # a lone byte (an empty datagram is
                    frame = os.urandom(1)        # QEMU's dgram end-of-stream: not sent)
                wire.send(frame)
                if i % 20 == 19:
                    time.sleep(0.005)
            # bigger than the whole receive ring
            wire.send(BROADCAST + SRC_MAC + os.urandom(20000))
            wire.send(BROADCAST + SRC_MAC + os.urandom(60000))
            st = vm.status()
            uptimes.append(int(st["uptime_ms"]))
        after = wait_quiet(vm)
        st1 = vm.status()
        uptimes.append(int(st1["uptime_ms"]))
        assert uptimes == sorted(uptimes), uptimes
        assert int(after["oversize"]) > 0, after
        assert int(after["resets"]) > 0, after      # ring-sized frames: ring reset
        assert st1["credited_bits"] == "0"
        # the card still receives good frames afterwards
        got = wire.deliver(200, lambda: int(ne2k(vm)["frames"]))
        assert got >= 160, (after, got)
        vm.ok("status")
        assert vm.proc.poll() is None


@pytest.mark.timeout(60)
def test_no_nic_reports_absence():
    with Rand86() as vm:
        msg = "ne2k: no NE2000 at 0x300 irq 9 or on PCI: network source absent"
        assert vm.boot_log.count(msg) == 1
        assert "ne2k0" not in vm.sources()
        vm.ok("status")


@pytest.mark.timeout(60)
def test_net_off_skips(wire):
    with Rand86(append="net=off", extra=wire.netdev() + ISA) as vm:
        assert "ne2k0" not in vm.boot_log
        assert "no NE2000" not in vm.boot_log
        assert "ne2k0" not in vm.sources()


@pytest.mark.timeout(60)
def test_ne2k_option_other_address(wire):
    """ne2k=IO,IRQ moves the ISA probe; the card at 0x300 is then not used."""
    extra = wire.netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x320,irq=10"]
    with Rand86(append="ne2k=0x320,10", extra=extra) as vm:
        assert "ne2k0: ISA NE2000 at 0x320 irq 10" in vm.boot_log
        got = wire.deliver(100, lambda: int(ne2k(vm)["frames"]))
        assert got >= 80, "the card at 0x320 counted %d of 100 frames" % got


@pytest.mark.timeout(120)
def test_keys_during_a_flood_still_earn_bits(wire):
    """Untrusted frames XOR over the batch but never crowd out trusted credit (patch 4/4)."""
    rnd = random.Random(42)
    with Rand86(append="stream=off credit=xymoron", extra=wire.netdev() + ISA) as vm:
        kb0 = int(vm.sources()["keyboard"]["bits"])
        sender = threading.Thread(target=wire.flood, args=(10000,))
        sender.start()
        keys = 0
        while sender.is_alive() and keys < 40:
            vm.key(rnd.choice(["a", "s", "d", "f", "j", "k"]), gap=rnd.uniform(0.02, 0.12))
            keys += 1
        sender.join()
        src = vm.sources()
        st = vm.status()
        assert int(src["ne2k0"]["frames"]) > 1000, src["ne2k0"]
        assert int(src["ne2k0"]["bits"]) == 0
        assert int(src["keyboard"]["events"]) >= 2 * keys
        assert int(src["keyboard"]["bits"]) > kb0, "keys during the flood earned nothing: %r" % src
        # the only credit comes from the keyboard (and nothing from the network)
        assert 0 < int(st["credited_bits"]) <= int(src["keyboard"]["bits"]) + int(src.get("mouse", {}).get("bits", 0))
