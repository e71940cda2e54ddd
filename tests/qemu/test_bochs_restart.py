"""The restart test's quick form under Bochs (SP 800-90B 3.1.4's idea;
`make restart-test` is the full one, docs/restart.md).

Bochs with `clock: sync=none` counts guest time in instructions and
starts its CMOS clock at a fixed time0: booted twice with nobody typing,
the machine replays itself, so whatever it credits there an attacker
can recompute. Each machine boots twice at once (the ISO on CD with
`hz=250 stream=urandom` on its first entry, a blank disk): for at least
GUEST_MS of guest time nothing may be credited, nothing seeded and
nothing sent on COM2; what COM2 sent before the harness typed anything
must be the same bytes in both boots (the control: if the two boots
differed, the machine would not be replaying itself and the test would
prove nothing about determinism).
"""
import concurrent.futures
import os
import shutil
import tempfile
import time

import pytest

from rand86 import Timeout

GUEST_MS = 30000            # the ISA machine seeded at 18.5 s before the fix
QUIET_S = 8                 # host seconds with no input after the prompt: COM2's control stretch


@pytest.fixture(scope="module")
def media():
    from rand86.bochs import iso_with
    assert shutil.which("bochs"), "bochs is not installed (scripts/deps)"
    d = tempfile.mkdtemp(prefix="rand86-bochs-restart-")
    iso = iso_with("hz=250 stream=urandom", os.path.join(d, "r.iso"))
    yield d, iso
    shutil.rmtree(d, ignore_errors=True)


def read_file(path):
    """Bochs creates a file-mode port's file at its first byte."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def boot_and_idle(kind, iso, d, tag):
    """One boot left alone, then asked how far it got. Returns (COM2 bytes
    before any input, COM2 bytes in all, the last status, wall seconds)."""
    from rand86.bochs import Bochs, blank_disk, restart_machine
    # a disk each: Bochs locks its image (and a killed Bochs leaves the lock)
    disk = blank_disk(os.path.join(d, "blank-%s-%s.img" % (kind, tag)))
    com2 = os.path.join(d, "com2-%s-%s.bin" % (kind, tag))
    lines = restart_machine(kind, iso, disk, "none") + [
        "com2: enabled=1, mode=file, dev=%s" % com2]
    t0 = time.monotonic()
    with Bochs(lines, boot_timeout=120) as vm:
        time.sleep(QUIET_S)                       # nothing typed yet: the replay stretch
        before = read_file(com2)
        deadline = time.monotonic() + 240
        while True:
            st = vm.status()
            # fail at the first credit: no need to wait out the 30 s then
            if int(st["uptime_ms"]) >= GUEST_MS or st["credited_bits"] != "0":
                break
            if time.monotonic() > deadline:
                raise Timeout("%s: guest time stuck at %s ms" % (kind, st["uptime_ms"]))
            time.sleep(2)
        src = vm.sources()
    sent = read_file(com2)
    return before, sent, st, src, time.monotonic() - t0


@pytest.mark.timeout(400)
@pytest.mark.parametrize("kind", ["pci", "isa"])
def test_bochs_sync_none_boots_twice_credit_and_send_nothing(media, kind):
    d, iso = media
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda tag: boot_and_idle(kind, iso, d, tag), ("a", "b")))
    (b0, s0, st0, src0, w0), (b1, s1, st1, src1, w1) = runs
    print("bochs %s: %.0f s and %.0f s wall; uptime %s and %s ms; COM2 %d and %d bytes"
          % (kind, w0, w1, st0["uptime_ms"], st1["uptime_ms"], len(s0), len(s1)))
    n = min(len(b0), len(b1))
    assert b0[:n] == b1[:n], "the two boots sent different bytes before any input: " \
        "the machine did not replay itself"
    for st, src, sent in ((st0, src0, s0), (st1, src1, s1)):
        credited = {k: v["credited"] for k, v in src.items() if v.get("credited", "0") != "0"}
        assert (st["credited_bits"], st["seeded"], st["urandom_bytes"], len(sent)) == \
            ("0", "0", "0", 0), "a machine that replays itself credited %s bits (%r), " \
            "seeded %s (at %s ms) and sent %d bytes" % (st["credited_bits"], credited,
                                                         st["seeded"], st["seeded_ms"], len(sent))
