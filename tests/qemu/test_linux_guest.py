"""A real Linux kernel as rand86's client: Debian's cloud kernel and
busybox (scripts/linux-guest builds them into build/linux/) read
/dev/hwrng through QEMU's virtio-rng, fed by rand86's COM2 under
stream=egd (docs/CLIENTS.md)."""
import os
import re
import subprocess
import tempfile
import time

import pytest

from rand86 import ROOT, Rand86

GUEST = os.path.join(ROOT, "build", "linux")
BUF = 64            # virtio-rng's buffer: each one is one EGD request of QEMU's
EARLY = 32          # the hwrng core's add_early_randomness() read at registration


def guest_argv(sock, nbytes):
    return ["qemu-system-x86_64", "-accel", "tcg", "-m", "256", "-nodefaults",
            "-display", "none", "-no-reboot",
            "-kernel", os.path.join(GUEST, "vmlinuz"), "-initrd", os.path.join(GUEST, "initrd.gz"),
            # quality 0: the kernel's hwrng thread does not read on its own
            "-append", "console=ttyS0 loglevel=4 rng_core.default_quality=0 hwrng_bytes=%d" % nbytes,
            "-serial", "stdio", "-chardev", "socket,id=egd,path=%s" % sock,
            "-object", "rng-egd,id=rng0,chardev=egd", "-device", "virtio-rng-pci,rng=rng0"]


def run_guest(sock, nbytes):
    """Boot the guest; its RESULT lines as a dict."""
    p = subprocess.run(guest_argv(sock, nbytes), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=180)
    out = p.stdout.decode(errors="replace")
    m = re.search(r"RESULT_BEGIN\r?\n(.*?)RESULT_END", out, re.S)
    assert m, "the guest printed no result: %s" % out[-1500:]
    return dict(l.split(": ", 1) for l in m.group(1).splitlines() if ": " in l)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("nbytes", [256, 1000])
def test_virtio_rng_guest_reads_what_rand86_serves_over_egd(nbytes):
    for f in ("vmlinuz", "initrd.gz"):
        assert os.path.exists(os.path.join(GUEST, f)), "make test builds %s (scripts/linux-guest)" % f
    sock = os.path.join(tempfile.mkdtemp(prefix="rand86-egd-"), "egd.sock")
    # COM2 on a socket the guest's rng-egd connects to: the harness must not
    # hold it (QEMU drops what a second client writes on attaching)
    com2 = ["-chardev", "socket,id=egd,path=%s,server=on,wait=off" % sock, "-serial", "chardev:egd"]
    with Rand86(append="stream=egd hz=1000", com2=False, extra=com2) as vm:
        deadline = time.monotonic() + 60
        while int(vm.status()["primary_bits"]) < 4096:     # enough to answer at once
            assert time.monotonic() < deadline, vm.status()
            time.sleep(0.3)
        st0 = vm.status()
        res = run_guest(sock, nbytes)
        st1 = vm.status()
    assert res["rng_current"] == "virtio_rng.0", res
    assert int(res["hwrng_bytes"]) == nbytes, res
    served = int(st1["random_bytes"]) - int(st0["random_bytes"])
    assert served == int(st1["egd_bytes"]) - int(st0["egd_bytes"]), (st0, st1)
    # what the guest took (its reads and the kernel's early 32 bytes), in
    # whole buffers, plus one buffer the driver asks for ahead
    took = -(-(nbytes + EARLY) // BUF) * BUF
    assert nbytes <= served <= took + BUF, "served %d for %d read" % (served, nbytes)
