"""The accounting identity, seen from outside: every /dev/random byte backed.

credited_bits == primary_bits + secondary_bits + spent_bits, and
random_bytes * 8 <= spent_bits, in every `status` (docs/PROTOCOL.md,
"Invariants"). Each test drives the state where a hole was: both pools
full, a disk attached, a urandom reader on COM2.
"""
import os
import random
import re
import tempfile
import time

import pytest

from rand86 import Rand86

KEYS = ["a", "s", "d", "f", "g", "h", "j", "k", "l", "q", "w", "e", "r", "t", "y", "u"]


def identity(st):
    c, p, s, sp = (int(st[k]) for k in
                   ("credited_bits", "primary_bits", "secondary_bits", "spent_bits"))
    assert c == p + s + sp, "identity broken: credited %d != primary %d + secondary %d + spent %d" \
        % (c, p, s, sp)
    assert int(st["random_bytes"]) * 8 <= sp, "random_bytes*8 > spent_bits: %r" % st
    return st


def type_irregular(vm, n, rng, lo=0.015, hi=0.09):
    """n key strokes, press and release each an event, gaps uniform in [lo, hi]."""
    for _ in range(n):
        vm.key(rng.choice(KEYS), gap=rng.uniform(lo, hi))


def random_while_typing(vm, n, rng, limit=100):
    """`random n` with keys typed until it answers; return its hex lines."""
    vm.send("random %d\r" % n)
    vm.com1.expect(rb"random %d\r\n" % n)
    deadline = time.monotonic() + limit
    while True:
        m = re.search(rb"((?:[0-9a-f]{2,64}\r\n)+)ok\r\nrand86> ", vm.com1.unconsumed())
        if m:
            vm.com1.skip_all()
            return m.group(1).split()
        assert time.monotonic() < deadline, \
            "random %d never finished: %r" % (n, vm.com1.unconsumed()[-400:])
        type_irregular(vm, 10, rng)


@pytest.fixture
def disk():
    fd, path = tempfile.mkstemp(prefix="rand86-acct-", suffix=".img")
    os.close(fd)
    with open(path, "wb") as f:
        f.write(os.urandom(512 * 2048))
    before = open(path, "rb").read()
    yield ["-drive", "file=%s,format=raw,if=ide,index=0" % path]
    assert open(path, "rb").read() == before, "the disk was written"
    os.unlink(path)


@pytest.mark.timeout(170)
def test_full_pools_then_random_512_is_backed_by_spent_bits(disk):
    # credit=tso fills both pools in a few hundred keys; stream=off so COM2
    # (attached) does not drain them first.
    rng = random.Random(1)
    with Rand86(append="credit=tso stream=off", extra=disk) as vm:
        deadline = time.monotonic() + 100
        while True:
            st = identity(vm.status())
            if int(st["primary_bits"]) == 4096 and int(st["secondary_bits"]) == 1024:
                break
            assert time.monotonic() < deadline, "pools never filled: %r" % st
            type_irregular(vm, 25, rng, 0.005, 0.03)
        body = vm.ok("random 512", timeout=30)
        assert sum(len(l) for l in body if not l.startswith("#")) == 1024, body
        after = identity(vm.status())
        drop = 4096 + 1024 - int(after["primary_bits"]) - int(after["secondary_bits"])
        credited_meanwhile = int(after["credited_bits"]) - int(st["credited_bits"])
        assert drop + credited_meanwhile >= 512 * 8, \
            "random 512 from full pools lowered them by %d bits (+%d credited meanwhile)" \
            % (drop, credited_meanwhile)
        vm.ok("urandom 3000")
        identity(vm.status())


@pytest.mark.timeout(120)
def test_attached_disk_spends_no_trusted_credit(disk):
    rng = random.Random(2)
    with Rand86(append="credit=tso stream=off", extra=disk) as vm:
        assert "ata0:" in vm.boot_log
        type_irregular(vm, 80, rng)
        vm.wait_guest_ms(1500)            # the disk poller keeps reading meanwhile
        src = vm.sources()
        st = identity(vm.status())
        assert int(src["ata0"]["events"]) > 5, src["ata0"]
        assert int(st["credited_bits"]) > 200, st
        assert st["random_bytes"] == "0" and st["urandom_bytes"] == "0"
        # nothing served: the pools hold every credited bit
        assert int(st["spent_bits"]) == 0, st
        assert int(st["primary_bits"]) + int(st["secondary_bits"]) == int(st["credited_bits"]), st


@pytest.mark.timeout(170)
def test_urandom_reader_on_com2_does_not_starve_console_random(disk):
    rng = random.Random(3)
    with Rand86(append="credit=xymoron stream=urandom", extra=disk) as vm:
        got0 = vm.com2.available()
        lines = random_while_typing(vm, 32, rng, limit=120)
        assert b"".join(lines) and len(b"".join(lines)) == 64, lines
        assert vm.com2.available() - got0 > 10000, "COM2 was not streaming urandom"
        st = identity(vm.status())
        assert int(st["random_bytes"]) == 32
        assert int(st["urandom_bytes"]) > 10000


@pytest.mark.timeout(120)
def test_identity_after_typing_and_serving_everything(disk):
    rng = random.Random(4)
    with Rand86(extra=disk) as vm:              # default credit, COM2 streams random
        for _ in range(4):
            type_irregular(vm, 20, rng)
            identity(vm.status())
            vm.ok("urandom 2000")
            identity(vm.status())
            random_while_typing(vm, 4, rng)
            identity(vm.status())
        st = identity(vm.status())
        assert int(st["credited_bits"]) > 0, st
