"""The restart test's quick form under Bochs (SP 800-90B 3.1.4's idea;
`make restart-test` is the full one, docs/restart.md).

Bochs with `clock: sync=none` counts guest time in instructions and
starts its CMOS clock at a fixed time0: booted twice with nobody typing,
the machine replays itself, so whatever it credits there an attacker
can recompute. Each machine boots from the ISO on CD (`hz=250
stream=urandom` on its first entry) with a blank disk, once for
GUEST_MS of its guest time with nobody typing: nothing may be credited,
nothing seeded and nothing sent on COM2. GUEST_MS is about twice what
the tree before the clock check needed to credit there (its first
credit came at 1.7 s of guest time on the PCI machine, 8.6 s on the
ISA one, with the same harness). The machine boots a second time to
its prompt, the control: the two boot logs, which carry the clock
check's port-read and move counts and the calibrated cpu_khz, must be
the same text (under `sync=realtime` they differ), or the machine did
not replay itself and the test would prove nothing about determinism.
"""
import os
import shutil
import tempfile
import time

import pytest

from rand86 import Timeout

GUEST_MS = {"pci": 4000, "isa": 17000}


@pytest.fixture(scope="module")
def media():
    from rand86.bochs import iso_with
    assert shutil.which("bochs"), "bochs is not installed (scripts/deps)"
    d = tempfile.mkdtemp(prefix="rand86-bochs-restart-")
    iso = iso_with("hz=250 stream=urandom", os.path.join(d, "r.iso"))
    yield d, iso
    shutil.rmtree(d, ignore_errors=True)


def com2_bytes(path):
    """Bochs creates a file-mode port's file at its first byte."""
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


def boot(kind, iso, d, tag, guest_ms):
    """One boot left alone until `guest_ms` of its guest time (0: its
    prompt), or its first credit. Returns (boot log, last status,
    sources, COM2 bytes sent)."""
    from rand86.bochs import Bochs, blank_disk, restart_machine
    # a disk each: Bochs locks its image (and a killed Bochs leaves the lock)
    disk = blank_disk(os.path.join(d, "blank-%s-%s.img" % (kind, tag)))
    com2 = os.path.join(d, "com2-%s-%s.bin" % (kind, tag))
    lines = restart_machine(kind, iso, disk, "none") + [
        "com2: enabled=1, mode=file, dev=%s" % com2]
    with Bochs(lines, boot_timeout=120) as vm:
        if guest_ms:
            vm.stop_idle_sleep()         # sync=none: the same instructions, sooner
        deadline = time.monotonic() + 240
        while True:
            st = vm.status()
            # fail at the first credit: no need to wait out the rest then
            if int(st["uptime_ms"]) >= guest_ms or st["credited_bits"] != "0":
                break
            if time.monotonic() > deadline:
                raise Timeout("%s: guest time stuck at %s ms" % (kind, st["uptime_ms"]))
            time.sleep(1)
        return vm.boot_log, st, vm.sources(), com2_bytes(com2)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["pci", "isa"])
def test_bochs_sync_none_credits_and_sends_nothing_and_replays(media, kind):
    d, iso = media
    log, st, src, sent = boot(kind, iso, d, "long", GUEST_MS[kind])
    control = boot(kind, iso, d, "control", 0)[0]
    print("bochs %s: uptime %s ms, COM2 %d bytes" % (kind, st["uptime_ms"], sent))
    assert log == control, "the two boots logged different text: the machine did not " \
        "replay itself\n%s\n---\n%s" % (log, control)
    credited = {k: v["credited"] for k, v in src.items() if v.get("credited", "0") != "0"}
    assert (st["credited_bits"], st["seeded"], st["urandom_bytes"], sent) == ("0", "0", "0", 0), \
        "a machine that replays itself credited %s bits (%r), seeded %s (at %s ms) and " \
        "sent %d bytes" % (st["credited_bits"], credited, st["seeded"], st["seeded_ms"], sent)
    assert int(st["uptime_ms"]) >= GUEST_MS[kind], st
    assert "it counts instructions" in log, log
