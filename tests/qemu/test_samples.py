"""`samples NAME N` capture, `credit=tso`, and rand86/samples2bin.py.

Keys are injected with QMP input-send-event, so their timing comes from
this test: assertions are counts and relations, never exact bit values.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import pytest

from rand86 import samples2bin
from rand86 import ROOT, Rand86

KEYS = ["a", "s", "d", "f", "j", "k", "l", "up", "right", "kp_enter"]
SAMPLE_LINE = re.compile(r"^[0-9a-f]{8} [0-9a-f]{8}$")
FINAL = rb"(.*?)\r\n(ok|error: [^\r\n]*)\r\nrand86> "


def type_keys(vm, n, seed, lo=0.03, hi=0.15, delay=0.0):
    rnd = random.Random(seed)
    if delay:
        time.sleep(delay)
    for i in range(n):
        vm.key(KEYS[i % len(KEYS)], gap=rnd.uniform(lo, hi))




def start_capture(vm, line):
    """Send a samples command and wait for its `# capturing` note."""
    vm.send(line + "\r")
    vm.com1.expect(rb"# capturing [^\r\n]*\r\n", 10)


def finish(vm, timeout=20):
    m = vm.com1.expect(FINAL, timeout)
    body = [l for l in m.group(1).decode(errors="replace").split("\r\n") if l]
    return body, m.group(2).decode()


@pytest.mark.timeout(60)
def test_capture_twenty_key_events_without_credit():
    with Rand86() as vm:
        kbd0 = vm.sources()["keyboard"]
        start_capture(vm, "samples keyboard 20")
        type_keys(vm, 10, seed=20)                  # 10 keys = 20 press/release events
        body, final = finish(vm)
        assert final == "ok", (body, final)
        samples = [l for l in body if not l.startswith("#")]
        assert len(samples) == 20, body
        assert all(SAMPLE_LINE.match(l) for l in samples), samples
        time.sleep(0.2)
        kbd1 = vm.sources()["keyboard"]
        assert int(kbd1["events"]) - int(kbd0["events"]) == 20, (kbd0, kbd1)
        assert kbd1["bits"] == kbd0["bits"], (kbd0, kbd1)      # no credit while capturing
        assert "capture" not in kbd1 or kbd1["capture"] != "on", kbd1
        # after the capture the same keys earn bits again
        type_keys(vm, 12, seed=21)
        kbd2 = vm.wait_events("keyboard", int(kbd1["events"]) + 24)
        assert int(kbd2["events"]) - int(kbd1["events"]) == 24, (kbd1, kbd2)
        assert int(kbd2["bits"]) > int(kbd1["bits"]), (kbd1, kbd2)


@pytest.mark.timeout(60)
def test_bad_arguments_and_ctrl_c():
    with Rand86() as vm:
        for line in ["samples", "samples keyboard", "samples nosuch 5",
                     "samples keyboard 0", "samples keyboard 100001",
                     "samples keyboard x", "samples keyboard 5 6"]:
            body, final = vm.cmd(line)
            assert final.startswith("error: "), (line, body, final)
            assert not any(SAMPLE_LINE.match(l) for l in body), (line, body)
            assert not any(l.startswith("# capturing") for l in body), (line, body)
        # Ctrl-C during a capture: 2 of 50 samples arrive, then the stop
        start_capture(vm, "samples keyboard 50")
        vm.key("a")
        two = re.compile(rb"(?m)^[0-9a-f]{8} [0-9a-f]{8}\r\n[0-9a-f]{8} [0-9a-f]{8}\r\n")
        deadline = time.monotonic() + 20     # the guest's chance, not a verdict
        while not two.search(vm.com1.unconsumed()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)        # a chance for a third sample, were one made
        vm.send(b"\x03")
        body, final = finish(vm)
        samples = [l for l in body if SAMPLE_LINE.match(l)]
        m = re.match(r"^error: interrupted after (\d+) of 50 samples$", final)
        assert m, (body, final)
        assert int(m.group(1)) == len(samples) == 2, (body, final)
        # the console and the source still work afterwards
        e0 = int(vm.sources()["keyboard"]["events"])
        vm.key("s")
        assert int(vm.wait_events("keyboard", e0 + 2)["events"]) == e0 + 2
        vm.ok("status")


def credited_after_script(append):
    with Rand86(append=append) as vm:
        st0 = vm.status()
        type_keys(vm, 16, seed=1999, lo=0.04, hi=0.12)
        vm.wait_events("keyboard", 32)
        time.sleep(0.3)                             # a few ticks: the batch is flushed
        st1 = vm.status()
        return st0, st1, vm.sources()["keyboard"]


@pytest.mark.timeout(90)
def test_credit_tso_credits_at_least_xymoron():
    x0, x1, xk = credited_after_script("credit=xymoron")
    t0, t1, tk = credited_after_script("credit=tso")
    assert x1["credit"] == "xymoron", x1
    assert t1["credit"] == "tso", t1
    assert int(xk["events"]) == int(tk["events"]) == 32, (xk, tk)
    xc = int(x1["credited_bits"]) - int(x0["credited_bits"])
    tc = int(t1["credited_bits"]) - int(t0["credited_bits"])
    print("credited: xymoron %d (keyboard bits %s tso_bits %s), tso %d (bits %s tso_bits %s)"
          % (xc, xk["bits"], xk["tso_bits"], tc, tk["bits"], tk["tso_bits"]))
    assert tc > 0 and xc > 0, (x1, t1)
    assert tc >= xc, (xc, tc, xk, tk)


# ---- rand86/samples2bin.py (no QEMU) ----

CAPTURE = ("rand86> samples keyboard 4\r\n"
           "# capturing 4 samples of keyboard: raw_delta shifted_delta (hex); no credit meanwhile\r\n"
           "5a13cb0a 000002d0\r\n"
           "00076b09 00000000\r\n"
           "076b1e5d 0000003b\r\n"
           "0047dfe2 000001ff\r\n"
           "ok\r\n"
           "rand86> ")


def run_tool(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rand86.samples2bin"]
                          + list(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=20, cwd=ROOT)


def test_samples2bin_default_raw_and_bits():
    d = tempfile.mkdtemp(prefix="rand86-s2b-")
    cap = os.path.join(d, "cap.txt")
    with open(cap, "w", newline="") as f:
        f.write(CAPTURE)
    out = os.path.join(d, "s.bin")
    r = run_tool(cap, out)
    assert r.returncode == 0, r.stderr
    assert b"wrote 4 symbols" in r.stdout, r.stdout
    assert open(out, "rb").read() == bytes([0xd0, 0x00, 0x3b, 0xff])
    r = run_tool("--raw", cap, out)
    assert r.returncode == 0 and b"wrote 4 symbols" in r.stdout
    assert open(out, "rb").read() == bytes([0x0a, 0x09, 0x5d, 0xe2])
    r = run_tool("--bits", "3", cap, out)
    assert r.returncode == 0, r.stderr
    assert open(out, "rb").read() == bytes([0, 0, 3, 7])
    r = run_tool("--raw", "--bits", "1", "-", "-", stdin=CAPTURE.encode())
    assert r.returncode == 0 and r.stdout == bytes([0, 1, 1, 0]), r
    for bad in ("0", "9", "x"):
        assert run_tool("--bits", bad, cap, out).returncode != 0
    empty = os.path.join(d, "empty.txt")
    with open(empty, "w") as f:
        f.write("rand86> samples keyboard 5\r\nerror: samples: N must be 1..100000\r\n")
    assert run_tool(empty, out).returncode == 1


def test_samples2bin_parse_skips_noise():
    samples, other = samples2bin.parse(CAPTURE.split("\n") + ["garbage here", "", "# note"])
    assert samples == [(0x5a13cb0a, 0x2d0), (0x76b09, 0), (0x76b1e5d, 0x3b), (0x47dfe2, 0x1ff)]
    assert other == ["garbage here"]
    assert samples2bin.symbols(samples) == bytes([0xd0, 0, 0x3b, 0xff])


# an excerpt of `ea_non_iid -v FILE 8` output (SP800-90B_EntropyAssessment 68ed165)
EA_OUT = """Running Most Common Value Estimate...
Bitstring MCV Estimate: mode = 12023, p-hat = 0.626, p_u = 0.635
\tMost Common Value Estimate (bit string) = 0.654735 / 1 bit(s)
Literal MCV Estimate: mode = 50, p-hat = 0.0208, p_u = 0.0283
\tMost Common Value Estimate = 5.140785 / 8 bit(s)
\tCompression Test Estimate (bit string) = 0.397508 / 1 bit(s)
\tT-Tuple Test Estimate (bit string) = 0.629473 / 1 bit(s)
\tT-Tuple Test Estimate = 5.140785 / 8 bit(s)
\tLag Prediction Test Estimate = 5.416799 / 8 bit(s)
\tMulti Markov Model with Counting (MultiMMC) Prediction Test Estimate (bit string) = 0.656354 / 1 bit(s)

H_original: 5.140785
H_bitstring: 0.397508
min(H_original, 8 X H_bitstring): 3.180065
"""


def test_samples2bin_ea_non_iid_output():
    est = samples2bin.ea_estimates(EA_OUT)
    assert list(est) == ["MCV", "Compression", "T-Tuple", "Lag", "MultiMMC"]
    assert est["MCV"] == {"bitstring": 0.654735, "literal": 5.140785}
    assert est["Lag"] == {"literal": 5.416799}
    assert samples2bin.ea_min(EA_OUT) == 3.180065
    assert samples2bin.ea_binding(EA_OUT) == "Compression (bitstring)"
    assert samples2bin.ea_min("") is None and samples2bin.ea_binding(None) is None


@pytest.mark.timeout(90)
def test_record_keeps_the_first_samples_from_boot_and_says_when_full():
    """record=N (docs/PROTOCOL.md): announced once full, printed by
    `samples NAME boot` without typing before then; absent without it."""
    with Rand86(append="record=50 hz=1000 stream=off", com2=False, accel_name="tcg",
                extra=["-icount", "shift=5,sleep=off"]) as vm:
        vm.com1.expect(rb"record: timer full, 50 samples\r\n", 60)
        body = vm.ok("samples timer boot")
        assert body[0] == "# 50 of 50 from boot", body[:2]
        lines = [l for l in body[1:] if SAMPLE_LINE.match(l)]
        assert len(lines) == 50 == len(body) - 1, body
        # a clock delta of one tick at hz=1000 is nonzero
        assert all(int(l.split()[0], 16) > 0 for l in lines), lines
    with Rand86(append="stream=off", com2=False) as vm:
        assert vm.ok("samples timer boot") == ["# 0 of 0 from boot"]
