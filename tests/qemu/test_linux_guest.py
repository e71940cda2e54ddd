"""A real Linux kernel as rand86's client: Debian's cloud kernel and
busybox (scripts/linux-guest builds them into build/linux/) read
/dev/hwrng through QEMU's virtio-rng, fed by rand86's COM2 under
stream=egd (docs/CLIENTS.md)."""
import os
import tempfile
import time

import pytest

from rand86 import GUEST, Rand86, com2_socket, run_linux_guest

BUF = 64            # virtio-rng's buffer: each one is one EGD request of QEMU's
EARLY = 32          # the hwrng core's add_early_randomness() read at registration


@pytest.mark.timeout(300)
@pytest.mark.parametrize("nbytes", [256, 1000])
def test_virtio_rng_guest_reads_what_rand86_serves_over_egd(nbytes):
    for f in ("vmlinuz", "initrd.gz"):
        assert os.path.exists(os.path.join(GUEST, f)), "make test builds %s (scripts/linux-guest)" % f
    sock = os.path.join(tempfile.mkdtemp(prefix="rand86-egd-"), "egd.sock")
    with Rand86(append="stream=egd hz=1000", com2=False, extra=com2_socket(sock)) as vm:
        deadline = time.monotonic() + 60
        while int(vm.status()["primary_bits"]) < 4096:     # enough to answer at once
            assert time.monotonic() < deadline, vm.status()
            time.sleep(0.3)
        st0 = vm.status()
        res = run_linux_guest(sock, nbytes)
        st1 = vm.status()
    assert res["rng_current"] == "virtio_rng.0", res
    assert int(res["hwrng_bytes"]) == nbytes, res
    served = int(st1["random_bytes"]) - int(st0["random_bytes"])
    assert served == int(st1["egd_bytes"]) - int(st0["egd_bytes"]), (st0, st1)
    # what the guest took (its reads and the kernel's early 32 bytes), in
    # whole buffers, plus one buffer the driver asks for ahead
    took = -(-(nbytes + EARLY) // BUF) * BUF
    assert nbytes <= served <= took + BUF, "served %d for %d read" % (served, nbytes)
