"""A person still seeds rand86 on a machine that replays itself: keys
typed into Bochs's PS/2 keyboard through its rfb display (the harness is
the RFB client, rand86/bochs.py RfbBochs) seed the ISA sync=none machine,
and two boots typed differently send different first bytes on COM2.
"""
import os
import random
import shutil
import tempfile
import time

import pytest

from rand86 import Timeout

FIRST = 64


@pytest.fixture(scope="module")
def iso():
    from rand86.bochs import iso_with
    assert shutil.which("bochs"), "bochs is not installed (scripts/deps)"
    d = tempfile.mkdtemp(prefix="rand86-bochs-keys-")
    yield d, iso_with("hz=250 stream=urandom", os.path.join(d, "r.iso"))
    shutil.rmtree(d, ignore_errors=True)


def typed_boot(d, iso, seed, timeout=240):
    from rand86.bochs import RfbBochs, blank_disk, restart_machine
    com2 = os.path.join(d, "com2-%d.bin" % seed)
    disk = blank_disk(os.path.join(d, "blank-%d.img" % seed))
    lines = restart_machine("isa", iso, disk, "none") + ["com2: enabled=1, mode=file, dev=%s" % com2]
    rnd = random.Random(seed)
    with RfbBochs(lines, boot_timeout=120) as vm:
        deadline = time.monotonic() + timeout
        while True:
            st = vm.status()
            if st["seeded"] == "1":
                break
            if time.monotonic() > deadline:
                raise Timeout("typing never seeded: %r" % st)
            # a fast typist: Bochs's clock counts instructions, so a hold
            # of 10-50 ms is still hundreds of thousands of distinct counts.
            # Each edge waits for a console reply (`help`, ~90 ms of guest
            # serial time): spaced in guest time, not only the host's, as a
            # loaded host runs Bochs slower and its display takes events
            # in at its own pace.
            for _ in range(20):
                vm.key(rnd.choice("asdfjkl"), rnd.uniform(0.01, 0.05), between=lambda: vm.ok("help"))
                vm.ok("help")
        kbd = vm.sources()["keyboard"]
        deadline = time.monotonic() + 60
        while (os.path.getsize(com2) if os.path.exists(com2) else 0) < FIRST:
            assert time.monotonic() < deadline, "COM2 sent under %d bytes once seeded" % FIRST
            time.sleep(0.5)
        with open(com2, "rb") as f:
            return st, kbd, f.read(FIRST)


@pytest.mark.timeout(600)
def test_keys_typed_into_bochs_seed_it_and_two_boots_differ(iso):
    d, path = iso
    runs = [typed_boot(d, path, seed) for seed in (1, 2)]
    for st, kbd, first in runs:
        print("seeded_ms %s, keyboard events %s credited %s" % (st["seeded_ms"], kbd["events"], kbd["credited"]))
        assert int(kbd["events"]) > 0 and int(kbd["credited"]) > 0, kbd
    assert runs[0][2] != runs[1][2], "two boots typed differently sent the same bytes"
