"""`bench`: in-kernel measurements on scratch state (docs/PROTOCOL.md "Console", `bench`).

No timing thresholds here: docs/BENCHMARKS.md (make bench) records the
figures. These tests check the reply's shape and that running it leaves
the live pools, counters and sources alone.
"""
import pytest

from rand86 import Rand86

SPEC_KEYS = ["add_timing_entropy", "batch_flush", "extract_per_byte", "boot_to_prompt_ms"]
MORE_KEYS = ["add_timing_entropy_1999", "xymoron_estimate", "tso_estimate", "urandom_bytes_per_s",
             "full_assessment"]
UNCHANGED = ["credited_bits", "primary_bits", "random_bytes", "urandom_bytes"]


def bench(vm):
    body = vm.ok("bench")
    out = {}
    for line in body:
        if line.startswith("#"):
            continue
        assert ": " in line, "not a key: value line: %r (%r)" % (line, body)
        k, v = line.split(": ", 1)
        assert k not in out, "key %s twice: %r" % (k, body)
        out[k] = v
    for k in SPEC_KEYS + MORE_KEYS:
        assert k in out, "bench lacks %s: %r" % (k, body)
        assert out[k].isdigit() and int(out[k]) > 0, "%s: %r is not a positive integer" % (k, out[k])
    return out


def live_state(vm):
    """status counters and the sources lines. The console's own source
    (`serial`, COM1's IRQ, untrusted) counts the keystrokes of the commands
    we type, so its events/tso_bits are left out; every other field and
    line must stay byte for byte."""
    st = vm.status()
    srcs = []
    for l in vm.ok("sources"):
        if l.startswith("#") or not l.strip():
            continue
        f = l.split()
        if f[0] == "serial":
            f = [w for w in f if not w.startswith(("events=", "tso_bits="))]
        srcs.append(" ".join(f))
    return {k: st[k] for k in UNCHANGED}, srcs


@pytest.mark.timeout(60)
def test_bench_prints_spec_keys_and_leaves_live_state_alone():
    # credit=xymoron: the seed's sources (no timer ticking credit in by itself)
    with Rand86(append="credit=xymoron") as vm:
        before = live_state(vm)
        out = bench(vm)
        assert out["unit"] in ("cycles", "pit_ticks"), out
        st = vm.status()
        assert out["unit"] == ("cycles" if st["clock"] == "tsc" else "pit_ticks"), (out, st)
        assert out["boot_to_prompt_ms"] == st["boot_to_prompt_ms"]
        bench(vm)                                   # a second run works on fresh scratch state
        after = live_state(vm)
        assert after == before, "bench changed live state:\n%r\n%r" % (before, after)
        assert "bench" not in [l.split()[0] for l in after[1] if l.split()], after[1]


@pytest.mark.timeout(60)
def test_bench_on_a_486_counts_pit_ticks():
    # credit=xymoron: the seed's sources (no timer ticking credit in by itself)
    with Rand86(cpu="486", append="credit=xymoron") as vm:
        assert vm.status()["clock"] == "pit"
        before = live_state(vm)
        out = bench(vm)
        assert out["unit"] == "pit_ticks", out
        assert live_state(vm) == before


def test_bench_takes_no_arguments_and_is_in_help():
    with Rand86() as vm:
        body, final = vm.cmd("bench now")
        assert final == "error: usage: bench" and body == []
        assert any(l.startswith("bench ") for l in vm.ok("help"))
