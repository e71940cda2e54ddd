#!/usr/bin/env python3
"""Symbol sequences for the predictor estimators' tests (entropy/est_pred.c).

  gen_pred_vectors.py            write the synthetic pred_*.bin (fixed seeds)
  gen_pred_vectors.py --expect   also run NIST's ea_non_iid (commit 68ed165)
                                 on every pred_*.bin and write pred_expected.h

`make test` never runs this: the .bin files and pred_expected.h are committed,
the tool's figures are the expectation. The cap_*.bin files are 1024-byte
slices of real captures (keyboard, rand86 `samples`), copied by hand.
"""
import glob
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
N = 1024
TOOL = "/usr/local/bin/ea_non_iid"
TOOL_COMMIT = "68ed165"
TESTS = ["MultiMCW", "Lag", "MultiMMC", "LZ78Y"]


def uniform(r):
    return [r.randrange(256) for _ in range(N)]


def biased(r):
    # geometric-like: MCV and every predictor see a common symbol
    return [min(255, int(r.expovariate(0.45))) for _ in range(N)]


def periodic(r):
    # period 13 with 3% noise: Lag and the dictionaries bite
    pat = [r.randrange(256) for _ in range(13)]
    return [pat[i % 13] if r.random() > 0.03 else r.randrange(256) for i in range(N)]


def markov(r):
    # next symbol a function of the last with probability 0.8: MultiMMC
    s = [r.randrange(64)]
    for _ in range(N - 1):
        s.append((s[-1] * 5 + 3) & 63 if r.random() < 0.8 else r.randrange(64))
    return s


def repeats(r):
    # 48-byte blocks, half of them copies of an earlier block: LZ78Y
    blocks, s = [], []
    while len(s) < N:
        if blocks and r.random() < 0.5:
            b = r.choice(blocks)
        else:
            b = [r.randrange(256) for _ in range(48)]
            blocks.append(b)
        s += b
    return s[:N]


def small4(r):
    return [r.choice([0x10, 0x20, 0x40, 0x80]) for _ in range(N)]


def drift(r):
    # bit bias swinging 0.2 <-> 0.8 every 96 bytes: the windows of MultiMCW
    s = []
    for i in range(N):
        p = 0.8 if (i // 96) % 2 else 0.2
        s.append(sum((r.random() < p) << b for b in range(8)))
    return s


def runs(r):
    # random, with a stretch of 40 equal bytes: the local bound (longest run)
    s = uniform(r)
    s[500:540] = [0x5a] * 40
    return s


GENS = {"uniform": uniform, "biased": biased, "periodic": periodic, "markov": markov,
        "repeats": repeats, "small4": small4, "drift": drift, "runs": runs}


def write_vectors():
    for i, (name, gen) in enumerate(sorted(GENS.items())):
        r = random.Random(0x5eed0000 + i)
        with open(os.path.join(HERE, "pred_%s.bin" % name), "wb") as f:
            f.write(bytes(gen(r)))


def tool_figures(path):
    out = subprocess.run([TOOL, "-v", "-v", path, "8"], check=True,
                         capture_output=True, text=True).stdout
    fig = {}
    for label in ("Literal", "Bitstring"):
        for t in TESTS:
            m = re.search(r"%s %s Prediction Estimate: min entropy = (\S+)" % (label, t), out)
            fig[(label, t)] = float(m.group(1)) if m else None
    return fig


def write_expected():
    files = sorted(glob.glob(os.path.join(HERE, "pred_*.bin")) + glob.glob(os.path.join(HERE, "cap_*.bin")))
    lines = ["/* ea_non_iid (usnistgov/SP800-90B_EntropyAssessment %s) figures for" % TOOL_COMMIT,
             " * tests/vectors/{pred,cap}_*.bin, written by gen_pred_vectors.py --expect:",
             " *   ea_non_iid -v -v tests/vectors/FILE.bin 8",
             " * Bits per symbol (literal, 8-bit symbols) and per bit (bitstring, MSB",
             " * first); -1: the tool skipped the estimate (MultiMCW needs > 4095). */",
             "struct pred_expect { const char *file; double lit[4], bit[4]; };",
             "/* order: MultiMCW, Lag, MultiMMC, LZ78Y */",
             "static const struct pred_expect pred_expect[] = {"]
    for path in files:
        fig = tool_figures(path)
        def row(label):
            return ", ".join("%.17g" % (fig[(label, t)] if fig[(label, t)] is not None else -1.0)
                             for t in TESTS)
        lines.append('\t{ "%s", { %s },\n\t  { %s } },' % (os.path.basename(path), row("Literal"), row("Bitstring")))
    lines.append("};")
    with open(os.path.join(HERE, "pred_expected.h"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_vectors()
    if "--expect" in sys.argv[1:]:
        write_expected()
