"""stream=egd: the EGD protocol on COM2 (docs/PROTOCOL.md "Stream port"),
as QEMU's rng-egd backend and EGD clients speak it.

Each request answered exactly and in order, a write mixed without credit,
a blocked request holding its successors until entropy comes, the port
answering again after garbage and a client gone mid-request, and `make
run` putting COM2 on the socket rng-egd attaches to (docs/CLIENTS.md)."""
import random
import time

import pytest

from rand86 import Rand86, Timeout

ID = b"\x06rand86"


def identity(vm):
    st = vm.status()
    c, p, s, sp = (int(st[k]) for k in ("credited_bits", "primary_bits", "secondary_bits", "spent_bits"))
    assert c == p + s + sp, "identity broken: %r" % st
    assert int(st["random_bytes"]) * 8 <= sp, st
    return st


def quiet(port, seconds=0.5):
    """Nothing more arrives on port for `seconds`."""
    n = port.available()
    time.sleep(seconds)
    return port.available() == n


def wait_primary(vm, bits, timeout=60):
    deadline = time.monotonic() + timeout
    while int(vm.status()["primary_bits"]) < bits:
        assert time.monotonic() < deadline, "no entropy credited: %r" % vm.status()
        time.sleep(0.2)


def type_until(vm, port, nbytes, timeout=120):
    """Keys over QMP until port has nbytes waiting."""
    rnd = random.Random(7)
    deadline = time.monotonic() + timeout
    while port.available() < nbytes:
        assert time.monotonic() < deadline, "only %d of %d bytes came" % (port.available(), nbytes)
        vm.key(rnd.choice("asdfjkl"), gap=rnd.uniform(0.02, 0.08))


@pytest.mark.timeout(120)
def test_each_request_gets_exactly_its_answer():
    with Rand86(append="stream=egd hz=1000") as vm:
        wait_primary(vm, 8 * 64)
        com2 = vm.com2
        st0 = identity(vm)
        com2.write(b"\x04")
        assert com2.read_exact(len(ID), 10) == ID
        com2.write(b"\x00")
        bits = int.from_bytes(com2.read_exact(4, 10), "big")
        assert 8 <= bits <= 4096, bits
        com2.write(b"\x02\x20")                       # blocking: exactly 32
        assert len(com2.read_exact(32, 20)) == 32
        com2.write(b"\x01\x10")                       # at once: k <= 16, then k bytes
        k = com2.read_exact(1, 10)[0]
        assert k <= 16
        com2.read_exact(k, 10)
        assert quiet(com2), "bytes nobody asked for: %r" % com2.unconsumed()
        st = identity(vm)
        assert int(st["egd_requests"]) - int(st0["egd_requests"]) == 4, (st0, st)
        assert int(st["egd_bytes"]) - int(st0["egd_bytes"]) == 32 + k
        assert int(st["random_bytes"]) - int(st0["random_bytes"]) == 32 + k


@pytest.mark.timeout(120)
def test_requests_split_across_writes_are_answered():
    """Bytes of one request may come a while apart (a serial line delivers
    them one by one); each request's own silence is what times it out."""
    with Rand86(append="stream=egd hz=1000") as vm:
        wait_primary(vm, 8 * 64)
        for n in (16, 8):
            vm.com2.write(b"\x02")
            time.sleep(0.3)
            vm.com2.write(bytes([n]))
            assert len(vm.com2.read_exact(n, 10)) == n
            time.sleep(1.5)                       # longer than the stale limit
        assert quiet(vm.com2)
        assert vm.status()["egd_requests"] == "2"


@pytest.mark.timeout(120)
def test_a_write_is_mixed_and_never_credited():
    with Rand86(append="stream=egd credit=xymoron") as vm:   # nothing credits without keys
        vm.com2.write(b"\x03\x00\x40\x05hello" + b"\x04")
        assert vm.com2.read_exact(len(ID), 10) == ID        # consumed whole, then the next
        assert quiet(vm.com2)
        st = identity(vm)
        assert st["credited_bits"] == "0" and st["egd_requests"] == "2", st


@pytest.mark.timeout(180)
def test_a_blocked_request_holds_the_next_until_entropy_comes():
    with Rand86(append="stream=egd credit=tso") as vm:      # only keys credit
        vm.com2.write(b"\x02\xff\x04")
        assert quiet(vm.com2, 1.0), "sent without entropy: %r" % vm.com2.unconsumed()
        type_until(vm, vm.com2, 255 + len(ID))
        data = vm.com2.read_exact(255 + len(ID), 10)
        assert data[255:] == ID, "answers out of order: %r" % data[250:]
        assert quiet(vm.com2)
        st = identity(vm)
        assert st["egd_bytes"] == "255" and st["random_bytes"] == "255", st


RX_RING_HOLDS = 1023           # drivers/serial.c: a 1 KiB ring keeps one slot free


@pytest.mark.timeout(120)
def test_requests_behind_a_blocked_one_past_the_ring_are_counted_dropped():
    # A blocking 0x02 with no entropy (credit=tso: only keys credit) holds
    # the requests behind it in COM2's receive ring; what comes once the
    # ring is full is lost, and egd_rx_dropped says how much.
    with Rand86(append="stream=egd credit=tso") as vm:
        st0 = vm.status()
        assert st0["egd_rx_dropped"] == "0", st0
        events = int(vm.sources()["serial2"]["events"])
        sent = 3000
        vm.com2.write(b"\x02\xff" + b"\x00" * (sent - 2))
        vm.wait_events("serial2", events + sent, timeout=30)    # every byte in, by guest count
        st = vm.status()
        dropped = int(st["egd_rx_dropped"])
        # the blocking request leaves the ring when it is parsed, before or
        # after the ring filled: 2 bytes more or less were kept
        assert dropped in (sent - 2 - RX_RING_HOLDS, sent - RX_RING_HOLDS), (dropped, st)
        assert st["console_rx_dropped"] == "0", st              # COM1's is another count
        assert quiet(vm.com2), "answered without entropy: %r" % vm.com2.unconsumed()


@pytest.mark.timeout(180)
def test_garbage_and_a_client_gone_mid_request_leave_the_port_answering():
    with Rand86(append="stream=egd hz=1000") as vm:
        rnd = random.Random(3)
        vm.com2.write(bytes(rnd.randrange(256) for _ in range(1500)))
        # the garbage held blocking requests: done when COM2 is quiet and the
        # primary pool refills (nothing draining it)
        deadline = time.monotonic() + 90
        while not (quiet(vm.com2, 1.0) and vm.status()["primary_bits"] == "4096"):
            assert time.monotonic() < deadline, "COM2 never went quiet"
        vm.com2.skip_all()
        # half a request, then the client goes: the appliance sees silence
        vm.com2.write(b"\x03\x00\x40\x50" + b"x" * 10)   # a write of 80 with 10 sent
        time.sleep(1.5)                             # past the parser's stale limit
        vm.com2.write(b"\x04")
        try:
            assert vm.com2.read_exact(len(ID), 10) == ID
        except Timeout:
            pytest.fail("no answer after garbage and a gone client: %r" % vm.com2.unconsumed())
        assert quiet(vm.com2)
        identity(vm)


@pytest.mark.timeout(60)
def test_make_run_offers_com2_as_the_socket_rng_egd_attaches_to(tmp_path):
    # docs/CLIENTS.md's recipe: `make run RUN_APPEND=stream=egd
    # RUN_COM2_SOCKET=PATH`, then a second QEMU's rng-egd connects to PATH.
    # Here a client connects as rng-egd would and gets the EGD id back.
    import os
    import socket
    import subprocess
    from rand86 import ROOT
    path = str(tmp_path / "egd.sock")
    env = dict(os.environ, RAND86_ACCEL=os.environ.get("RAND86_ACCEL", "tcg"))
    proc = subprocess.Popen(["python3", "-m", "scripts.run", "--append", "stream=egd",
                             "--com2-socket", path], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(path):
            assert proc.poll() is None, "make run's QEMU exited"
            assert time.monotonic() < deadline, "no socket at %s" % path
            time.sleep(0.1)
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.settimeout(1.0)
        got, deadline = b"", time.monotonic() + 30
        while len(got) < len(ID) and time.monotonic() < deadline:
            s.sendall(b"\x04")                    # again until the guest's UART is up
            try:
                got += s.recv(64)
            except socket.timeout:
                pass
        s.close()
        assert got[:len(ID)] == ID, got
    finally:
        proc.terminate()
        proc.wait(10)
