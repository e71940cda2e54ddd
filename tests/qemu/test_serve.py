"""Serving random bytes on COM1 and COM2 (docs/PROTOCOL.md "Console", "Stream port").

`random` and `urandom`: formats and exact counts, waiting, Ctrl-C;
`stream`; conservation through a session; 16 MiB of urandom; COM2 in
`random` mode; rngtest on COM1 and COM2; noise on COM2."""
import re
import subprocess
import time

import pytest

from rand86 import Rand86

HEX_LINE = re.compile(r"^[0-9a-f]+$")
OK_TAIL = b"\r\nok\r\nrand86> "


def conserved(vm):
    st = vm.status()
    rb, cb = int(st["random_bytes"]), int(st["credited_bits"])
    p, s, sp = int(st["primary_bits"]), int(st["secondary_bits"]), int(st["spent_bits"])
    assert cb == p + s + sp, "identity broken: %r" % st
    assert rb * 8 <= sp, "conservation broken: random_bytes=%d spent_bits=%d" % (rb, sp)
    return st


def type_keys(vm, n, gap=0.03):
    keys = ["a", "s", "d", "f", "j", "k", "l", "q", "w", "e", "r", "u", "i", "o", "p"]
    for i in range(n):
        vm.key(keys[i % len(keys)], gap=gap * (1 + (i * 7919 % 13) / 13.0))


def test_urandom_hex_is_32_bytes_a_line_and_exact():
    with Rand86() as vm:
        vm.seed()
        body = vm.ok("urandom 100")
        assert [len(l) for l in body] == [64, 64, 64, 8], body
        assert all(HEX_LINE.match(l) for l in body)
        assert body != vm.ok("urandom 100"), "two reads gave the same bytes"
        assert conserved(vm)["urandom_bytes"] == "200"


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000])
def test_bin_output_is_exactly_n_bytes_then_crlf_ok(n):
    with Rand86() as vm:
        vm.seed()
        vm.send("urandom %d bin\r" % n)
        vm.com1.expect(rb"urandom %d bin\r\n" % n)
        data = vm.com1.read_exact(n)
        assert len(data) == n
        assert vm.com1.read_exact(len(OK_TAIL), 10) == OK_TAIL


@pytest.mark.parametrize("cmd,err", [
    ("random 0", "error: random: N must be 1..16777216"),
    ("random 16777217", "error: random: N must be 1..16777216"),
    ("urandom 0x1000001", "error: urandom: N must be 1..16777216"),
    ("urandom -5", "error: urandom: '-5' is not a number (N is 1..16777216)"),
    ("random 12abc", "error: random: '12abc' is not a number (N is 1..16777216)"),
    ("urandom 4 oct", "error: urandom: format must be hex or bin, not 'oct'"),
    ("random", "error: usage: random N [hex|bin]"),
    ("stream", "error: usage: stream random|urandom"),
    ("stream sometimes", "error: usage: stream random|urandom"),
])
def test_bad_counts_and_formats_give_error_and_no_output(cmd, err):
    with Rand86() as vm:
        body, final = vm.cmd(cmd)
        assert final == err
        assert body == [], "output before the error: %r" % body
        st = vm.status()
        assert st["random_bytes"] == "0" and st["urandom_bytes"] == "0"


def test_random_waits_without_input_then_finishes_after_keys():
    # credit=xymoron: the seed's sources (no timer ticking credit in by itself)
    # The notes' rate is judged against guest time (uptime before and
    # after); the host only decides how long the harness lets it wait.
    with Rand86(append="credit=xymoron") as vm:
        u0 = int(vm.status()["uptime_ms"])
        vm.send("random 64\r")
        vm.com1.expect(rb"random 64\r\n", 10)
        deadline = time.monotonic() + 30
        while vm.com1.unconsumed().count(b"# waiting for entropy:") < 3:
            assert time.monotonic() < deadline, "under 3 notes in 30 s: %r" % vm.com1.unconsumed()
            time.sleep(0.1)
        out = vm.com1.unconsumed()
        assert b"ok\r\n" not in out, "random 64 finished without entropy: %r" % out
        for _ in range(40):
            type_keys(vm, 10)
            if b"ok\r\nrand86> " in vm.com1.unconsumed():
                break
        m = vm.com1.expect(rb"(.*?)\r\nok\r\nrand86> ", 30)
        u1 = int(vm.status()["uptime_ms"])
        notes = m.group(1).count(b"# waiting for entropy:")
        # one note at once, then at most one a guest second
        assert notes <= 1 + (u1 - u0) // 1000, "%d notes in %d guest ms" % (notes, u1 - u0)
        lines = [l for l in m.group(1).decode().split("\r\n") if not l.startswith("#")]
        assert [len(l) for l in lines] == [64, 64], lines
        st = conserved(vm)
        assert int(st["random_bytes"]) >= 64   # COM2 may take more once the console is served


def test_ctrl_c_ends_random_with_count():
    with Rand86() as vm:
        vm.send("random 20\r")
        vm.com1.expect(rb"# waiting for entropy")
        vm.send(b"\x03")
        vm.com1.expect(rb"error: interrupted after 0 of 20 bytes\r\nrand86> ", 10)
        vm.ok("status")


def test_stream_urandom_until_ctrl_c():
    with Rand86() as vm:
        vm.send("stream urandom\r")
        vm.com1.expect(rb"stream urandom\r\n")
        vm.com1.read_exact(20000, 60)
        vm.send(b"\x03")
        vm.com1.expect(rb"\r\nok\r\nrand86> ", 30)
        st = vm.status()
        assert int(st["urandom_bytes"]) >= 20000


def test_stream_random_stops_on_ctrl_c_while_waiting():
    with Rand86() as vm:
        vm.send("stream random\r")
        vm.com1.expect(rb"stream random\r\n")
        time.sleep(1.0)
        vm.send(b"\x03")
        vm.com1.expect(rb"\r\nok\r\nrand86> ", 10)
        conserved(vm)


def test_conservation_after_every_step_of_a_session():
    with Rand86() as vm:
        conserved(vm)
        for step in range(6):
            type_keys(vm, 8)
            conserved(vm)
            vm.ok("urandom 64")
            conserved(vm)
            vm.send("random 4\r")
            time.sleep(0.5)
            vm.send(b"\x03")
            vm.com1.expect(rb"(ok|error: interrupted after \d+ of 4 bytes)\r\nrand86> ", 20)
            conserved(vm)


@pytest.mark.timeout(120)
def test_urandom_streams_every_byte_up_to_the_largest_n():
    """Every byte of a long read arrives, the last chunk a partial one (N is
    256 KiB + 7, the chunks 256 bytes); and the largest N, 16 MiB, is served
    with every byte it sent counted: interrupted after 256 KiB, its error
    names exactly the bytes that came (the path is the same loop of chunks
    whatever N is: a whole 16 MiB would only take longer)."""
    n = (1 << 18) + 7
    with Rand86() as vm:
        vm.send("urandom %d bin\r" % n)
        vm.com1.expect(rb"urandom %d bin\r\n" % n)
        data = vm.com1.read_exact(n, 60)
        assert vm.com1.read_exact(len(OK_TAIL), 20) == OK_TAIL
        # a crude sanity check on the bytes: every value occurs
        assert len(set(data[:100000])) == 256
        big = 16777216
        vm.send("urandom %d bin\r" % big)
        vm.com1.expect(rb"urandom %d bin\r\n" % big)
        vm.com1.read_exact(1 << 18, 60)
        vm.send(b"\x03")
        rest = vm.com1.read_until(b"\r\nerror: interrupted after ", 30)
        m = vm.com1.expect(rb"(\d+) of %d bytes\r\nrand86> " % big, 10)
        came = (1 << 18) + len(rest)
        assert int(m.group(1)) == came, "said %s bytes, %d came" % (m.group(1), came)
        assert came < big


def test_com2_random_sends_nothing_without_entropy_then_resumes_on_keys():
    # credit=xymoron: the seed's sources (no timer ticking credit in by itself)
    with Rand86(append="credit=xymoron") as vm:
        time.sleep(2.0)
        assert vm.com2.available() == 0, "COM2 sent %d bytes without credited entropy" % vm.com2.available()
        for _ in range(30):
            type_keys(vm, 10)
            if vm.com2.available() > 0:
                break
        assert vm.com2.available() > 0, "COM2 stayed silent after key input"
        st = conserved(vm)
        assert int(st["random_bytes"]) >= vm.com2.available()


def rngtest_failures(data):
    p = subprocess.run(["rngtest", "-c", str(BLOCKS)], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    out = p.stdout.decode()
    m = re.search(r"FIPS 140-2 failures: (\d+)", out)
    s = re.search(r"FIPS 140-2 successes: (\d+)", out)
    assert m and s, out
    assert int(s.group(1)) + int(m.group(1)) == BLOCKS, out
    return int(m.group(1)), out


BLOCKS = 400                            # FIPS 140-2 blocks of 2,500 bytes
BLOCKS_BYTES = BLOCKS * 2500 + 4 + 4096 # rngtest's first word, slack
MAX_FAILED_BLOCKS = 2                   # docs/TESTING.md "Statistical checks"


def assert_rngtest_passes(read_blocks):
    """At most 2 of 400 blocks fail rngtest, retaken once on fresh bytes.

    FIPS 140-2's four tests reject about 0.9 blocks in 1000 of an ideal
    source (measured here: 36 failures in 40,000 blocks of the host's
    /dev/urandom). Failures in 400 blocks are then Poisson with mean
    ~0.36, and "at most 2" misses for an ideal source in ~0.6% of runs.
    So a run that misses the bound is retaken on the next 400 blocks
    and the test fails only if both miss: ~4e-5 for an ideal source. A real
    defect (a stuck, zeroed or biased stretch of output) is not rescued:
    it fails the blocks it touches in both runs."""
    fails, out = rngtest_failures(read_blocks())
    if fails <= MAX_FAILED_BLOCKS:
        return
    fails2, out2 = rngtest_failures(read_blocks())
    assert fails2 <= MAX_FAILED_BLOCKS, "first run:\n%s\nretest on fresh bytes:\n%s" % (out, out2)


@pytest.mark.timeout(600)
def test_rngtest_passes_on_com2_urandom():
    with Rand86(append="stream=urandom") as vm:
        assert_rngtest_passes(lambda: vm.com2.read_exact(BLOCKS_BYTES, 280))


@pytest.mark.timeout(600)
def test_rngtest_passes_on_console_stream_urandom():
    with Rand86() as vm:
        vm.send("stream urandom\r")
        vm.com1.expect(rb"stream urandom\r\n")
        assert_rngtest_passes(lambda: vm.com1.read_exact(BLOCKS_BYTES, 280))
        vm.send(b"\x03")
        vm.com1.expect(rb"\r\nok\r\nrand86> ", 60)


def test_noise_on_com2_and_ctrl_c_storm_during_urandom_leave_service_answering():
    import random
    rnd = random.Random(5)
    with Rand86() as vm:
        u1 = int(vm.status()["uptime_ms"])
        vm.send("urandom 200000 hex\r")
        for _ in range(20):
            vm.com2.write(bytes(rnd.getrandbits(8) for _ in range(2000)))
            vm.send(bytes(rnd.choice([3, 0, 0x7f, 0x80, 13, 10, 65]) for _ in range(50)))
        vm.settle()
        st = vm.status()
        assert int(st["uptime_ms"]) > u1
        assert vm.proc.poll() is None


@pytest.mark.timeout(60)
def test_v189_urandom_on_com2_passes_its_reseeds_without_a_stall():
    """credit=xymoron's urandom is v1.89's: a catastrophic reseed every
    1,024 bytes, made one extraction round a pass (docs/ENTROPY.md, "The
    v1.89 paths in steps"). The rounds come only in passes without a
    flush, so a main loop that halted while one was under way waited for
    the next interrupt each time: the stream stood still ~1 s a reseed
    (1,024 bytes a guest second). Judged in guest time: many reseeds'
    worth a guest second: 40 KB, a sixth of what TCG makes (~240 KB),
    where the stall left ~17 KB."""
    with Rand86(append="stream=urandom credit=xymoron") as vm:
        vm.com2.read_exact(4096, 30)              # flowing, past the first reseeds
        a = vm.status()
        vm.com2.read_exact(64 * 1024, 30)
        b = vm.status()
    ms = int(b["uptime_ms"]) - int(a["uptime_ms"])
    sent = int(b["urandom_bytes"]) - int(a["urandom_bytes"])
    assert sent * 1000 >= 40 * 1024 * ms, "%d bytes in %d guest ms" % (sent, ms)
