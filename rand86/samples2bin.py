#!/usr/bin/python3
"""Turn a rand86 `samples NAME N` capture into NIST SP 800-90B input.

The capture is the console text: lines of two 8-digit hex words
(raw clock delta, delta after the source's shift). Lines starting with
`#`, the command echo, `ok`, `error: ...` and the prompt are skipped.
The output holds one symbol per byte, as ea_non_iid reads it: by default
the low 8 bits of the shifted delta of each sample; --raw takes the raw
delta instead; --bits N keeps only the low N bits (1..8).

    python3 -m rand86.samples2bin capture.txt samples.bin
    ea_non_iid -v samples.bin 8

Standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SAMPLE = re.compile(r"^([0-9a-fA-F]{8}) ([0-9a-fA-F]{8})$")
SKIP = re.compile(r"^(#|ok$|error: |rand86>|samples( |$))")


def parse(lines):
    """Return ([(raw, shifted), ...], [lines that were neither samples nor skippable])."""
    samples, other = [], []
    for line in lines:
        line = line.strip("\r\n").strip()
        if not line or SKIP.match(line):
            continue
        m = SAMPLE.match(line)
        if m:
            samples.append((int(m.group(1), 16), int(m.group(2), 16)))
        else:
            other.append(line)
    return samples, other


def symbols(samples, raw=False, bits=8):
    mask = (1 << bits) - 1
    return bytes((r if raw else s) & mask for r, s in samples)


def run_ea_non_iid(path, timeout=1800):
    """The full output of NIST's `ea_non_iid -v PATH 8`, or None when the
    tool is not on PATH."""
    ea = shutil.which("ea_non_iid")
    if not ea:
        return None
    return subprocess.run([ea, "-v", path, "8"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout).stdout


def ea_min(out):
    """min(H_original, 8 X H_bitstring) from ea_non_iid's output, or None."""
    h = re.findall(r"min\(H_original, 8 X H_bitstring\): *([0-9.]+)", out or "") or \
        re.findall(r"H_original: *([0-9.]+)", out or "")
    return float(h[-1]) if h else None


ESTIMATE = re.compile(r"^\s+(.+?) Estimate( \(bit string\))? = ([0-9.]+) / \d+ bit", re.M)
SHORT = (("Multi Most Common in Window (MultiMCW) Prediction Test", "MultiMCW"),
         ("Multi Markov Model with Counting (MultiMMC) Prediction Test", "MultiMMC"),
         (" Prediction Test", ""), (" Test", ""), ("Most Common Value", "MCV"))


def ea_estimates(out):
    """Each estimator's figures from ea_non_iid's output: {name: {"literal":
    bits per 8-bit symbol, "bitstring": bits per bit}}, in the tool's order;
    an estimator the tool did not run for a kind has no key for it."""
    est = {}
    for m in ESTIMATE.finditer(out or ""):
        name = m.group(1)
        for long, short in SHORT:
            name = name.replace(long, short)
        est.setdefault(name, {})["bitstring" if m.group(2) else "literal"] = float(m.group(3))
    return est


def ea_binding(out):
    """Which estimator sets min(H_original, 8 X H_bitstring): "NAME (literal)"
    or "NAME (bitstring)", or None."""
    est = ea_estimates(out)
    lit = [(v["literal"], k) for k, v in est.items() if "literal" in v]
    bit = [(8 * v["bitstring"], k) for k, v in est.items() if "bitstring" in v]
    if not lit and not bit:
        return None
    best = min([(h, k, "literal") for h, k in lit] + [(h, k, "bitstring") for h, k in bit])
    return "%s (%s)" % (best[1], best[2])


def ea_non_iid(data, timeout=1800):
    """NIST's ea_non_iid min-entropy per 8-bit symbol of `data` (bytes from
    symbols()), or None when the tool is not on PATH or printed no figure."""
    if not shutil.which("ea_non_iid"):
        return None
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        return ea_min(run_ea_non_iid(path, timeout))
    finally:
        os.unlink(path)


def bits_arg(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number (1..8)" % text)
    if not 1 <= n <= 8:
        raise argparse.ArgumentTypeError("--bits must be 1..8, not %d" % n)
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="rand86 sample capture -> one-symbol-per-byte file for SP 800-90B ea_non_iid")
    ap.add_argument("capture", help="console text of `samples NAME N` ('-' for stdin)")
    ap.add_argument("output", help="binary output file ('-' for stdout)")
    ap.add_argument("--raw", action="store_true",
                    help="use the raw clock delta instead of the shifted delta")
    ap.add_argument("--bits", type=bits_arg, default=8, metavar="N",
                    help="keep the low N bits of each delta (1..8, default 8)")
    args = ap.parse_args(argv)

    if args.capture == "-":
        text = sys.stdin.read()
    else:
        with open(args.capture, "r", errors="replace") as f:
            text = f.read()
    samples, other = parse(text.splitlines())
    for line in other[:5]:
        print("samples2bin: skipped unrecognised line: %r" % line, file=sys.stderr)
    if len(other) > 5:
        print("samples2bin: skipped %d more unrecognised lines" % (len(other) - 5), file=sys.stderr)
    if not samples:
        print("samples2bin: no sample lines in %s" % args.capture, file=sys.stderr)
        return 1
    data = symbols(samples, args.raw, args.bits)
    if args.output == "-":
        sys.stdout.buffer.write(data)
        out = sys.stderr
    else:
        with open(args.output, "wb") as f:
            f.write(data)
        out = sys.stdout
    print("wrote %d symbols of %d bits (%s delta) to %s; run: ea_non_iid -v %s %d"
          % (len(data), args.bits, "raw" if args.raw else "shifted", args.output,
             args.output, args.bits), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
