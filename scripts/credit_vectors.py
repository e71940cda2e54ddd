#!/usr/bin/python3
"""`make credit-vectors`: long captures of each kind of source, for the credit rule's derivation.

Boots rand86 under QEMU (TCG, host-timed) once per kind of trusted
source, drives the input the kind needs over QMP, lets the meter see
WARMUP samples, then captures the next `samples` of that source in one
command: consecutive samples, each the line `samples` prints (raw clock
delta and shifted delta, in hex; the meter's symbol is the shifted
delta's low 8 bits), written to tests/vectors/credit/NAME.txt.
tools/credit_derive.c reads them (docs/ENTROPY.md, "What a window is
paid"), and so does tests/unit/test_entropy_credit.c. The kinds are
compare's scenarios (scripts/compare.py) and the honesty test's rhythms
(tests/qemu/test_honesty.py), plus a slow typist.

    /usr/bin/python3 -m scripts.credit_vectors [--only NAME,...] [--jobs N] [--out DIR]

Injected input is timed by this script and the host, not by a person:
these captures say how an estimate over the first n samples of a source
relates to the assessment of what follows, for these inputs.
Standard library only.
"""
import argparse
import concurrent.futures
import datetime
import os
import random
import subprocess
import sys
import time

from rand86 import ROOT, Rand86, qemu_version
from rand86 import honesty, samples2bin
from scripts import compare

WARMUP = 64                # what a fresh boot has seen when the meter first credits


def metronome(vm, rnd, ctx, stop):
    """The honesty test's typist: a press every 30 ms, released 2 ms later."""
    i, t = 0, time.monotonic()
    while not stop():
        compare.key_edge(vm, compare.KEYS[i % 7], True)
        time.sleep(0.002)
        compare.key_edge(vm, compare.KEYS[i % 7], False)
        i += 1
        t += 0.030
        compare.wait_until(t)


def slow(vm, rnd, ctx, stop):
    """A person between words: press-to-press gaps uniform in 30..300 ms."""
    compare.taps(vm, stop, lambda: rnd.uniform(0.030, 0.300))


def mouse_rhythm(vm, rnd, ctx, stop):
    """The honesty test's mouse: moves 4 ms then 24 ms apart."""
    i, t = 0, time.monotonic()
    while not stop():
        vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
        i += 1
        t += 0.004 if i & 1 else 0.024
        compare.wait_until(t)


# name: (source, driver, -cpu, boot options, samples captured)
KINDS = {
    "steady": ("keyboard", compare.steady, None, "", 4096),
    "irregular": ("keyboard", compare.irregular, None, "", 4096),
    "burst": ("keyboard", compare.burst, None, "", 4096),
    "metronome": ("keyboard", metronome, None, "", 4096),
    "slow": ("keyboard", slow, None, "", 3072),
    "kbd486": ("keyboard", compare.irregular, "486", "", 4096),
    "mouse": ("mouse", compare.mouse, None, "", 3072),
    "mouse_rhythm": ("mouse", mouse_rhythm, None, "", 4096),
    "timer": ("timer", compare.idle, None, "", 4096),
    "timer1000": ("timer", compare.idle, None, "hz=1000", 4096),
    "rtc": ("rtc", compare.idle, None, "", 4096),
    "rtc486": ("rtc", compare.idle, "486", "rtc=4096", 4096),
}


def run_kind(name, out):
    source, driver, cpu, append, n = KINDS[name]
    rnd = random.Random("credit-" + name)
    t0 = time.monotonic()
    with Rand86(append=append, cpu=cpu, accel_name="tcg") as vm:
        drive = lambda stop: driver(vm, rnd, {}, stop)
        drive(honesty.until_measured(vm, source, WARMUP))
        text = honesty.capture(vm, source, n, drive, timeout=900)
    samples, _ = samples2bin.parse(text.split("\r\n"))
    if "arrived faster" in text:
        raise AssertionError("%s: the capture dropped samples" % name)
    if len(samples) != n:
        raise AssertionError("%s: %d samples, wanted %d" % (name, len(samples), n))
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write("".join("%08x %08x\n" % rs for rs in samples))
    return name, n, time.monotonic() - t0


def manifest(out, done):
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    lines = ["# Captures for the credit rule's derivation",
             "",
             "Written by `make credit-vectors` (scripts/credit_vectors.py); do not edit by hand.",
             "One file per kind of source: consecutive samples after %d measured ones of a"
             % WARMUP,
             "fresh boot, a line each as `samples` prints it (raw and shifted delta, hex).",
             "QEMU TCG, host-timed, input over QMP.",
             "",
             "- date: %s" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
             "- rand86: commit %s" % commit,
             "- QEMU: %s" % qemu_version(),
             "",
             "| file | source | input | samples |",
             "|---|---|---|---:|"]
    for name in sorted(done):
        source, driver, cpu, append, n = KINDS[name]
        what = (driver.__doc__ or "").strip().split("\n")[0]
        where = " ".join(x for x in ("-cpu " + cpu if cpu else "", append) if x)
        lines.append("| %s.txt | %s%s | %s | %d |" % (name, source, " (%s)" % where if where else "",
                                                       what or driver.__name__, n))
    with open(os.path.join(out, "SOURCES.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated kinds (default: all)")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "vectors", "credit"))
    a = ap.parse_args()
    names = a.only.split(",") if a.only else sorted(KINDS, key=lambda k: -KINDS[k][4])
    unknown = [n for n in names if n not in KINDS]
    if unknown:
        sys.exit("unknown kind(s): %s (have %s)" % (", ".join(unknown), ", ".join(sorted(KINDS))))
    os.makedirs(a.out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for name, n, s in ex.map(lambda k: run_kind(k, a.out), names):
            print("%-13s %5d samples  %4.0f s" % (name, n, s), flush=True)
    have = [f[:-4] for f in os.listdir(a.out) if f.endswith(".txt") and f[:-4] in KINDS]
    manifest(a.out, have)


if __name__ == "__main__":
    main()
