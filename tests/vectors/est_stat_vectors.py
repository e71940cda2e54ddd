#!/usr/bin/python3
"""Test vectors for entropy/est_stat.c (SP 800-90B 6.3.2-6.3.6) and the
meter's full assessment (those, and 6.3.9-6.3.10 on the symbols).

  est_stat_vectors.py gen      writes tests/vectors/est_stat/*.bin (fixed seeds;
                               capture slices copied from /tmp/r86-90b when present)
  est_stat_vectors.py expect   runs NIST's ea_non_iid once on each .bin and writes
                               tests/vectors/est_stat/expected.txt (needs the tool)
  est_stat_vectors.py header OUT
                               writes the C header the host test includes, from the
                               committed .bin files and expected.txt (no tool needed)

Each .bin is 1024 one-byte symbols: the tool's literal figures are on those
(n = 1024), its bitstring figures on their 8192 bits (MSB first).
"""
import os
import random
import re
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'est_stat')
N = 1024
TOOL_COMMIT = '68ed165'
ESTIMATORS = [  # (key, regex on `ea_non_iid -v` output, bits)
    ('collision_bit', r'Collision Test Estimate \(bit string\) = ([\d.]+)', 1),
    ('markov_bit', r'Markov Test Estimate \(bit string\) = ([\d.]+)', 1),
    ('compression_bit', r'Compression Test Estimate \(bit string\) = ([\d.]+)', 1),
    ('ttuple_bit', r'T-Tuple Test Estimate \(bit string\) = ([\d.]+)', 1),
    ('lrs_bit', r'LRS Test Estimate \(bit string\) = ([\d.]+)', 1),
    ('ttuple_lit', r'T-Tuple Test Estimate = ([\d.]+)', 8),
    ('lrs_lit', r'LRS Test Estimate = ([\d.]+)', 8),
    ('multimmc_lit', r'\(MultiMMC\) Prediction Test Estimate = ([\d.]+)', 8),
    ('lz78y_lit', r'LZ78Y Prediction Test Estimate = ([\d.]+)', 8),
]
CAPTURES = ['burst', 'steady', 'irregular']   # 1024 symbols from offset 1024


def uniform(r):
    return [r.randrange(256) for _ in range(N)]


def biased(r):
    # a timing delta's low byte on a steady source: a few values, geometric
    return [0x40 + min(5, int(r.expovariate(1.3))) for _ in range(N)]


def markov(r):
    # sticky bits: each bit repeats the previous with probability 0.8
    b, out = 0, []
    for _ in range(N):
        v = 0
        for _ in range(8):
            if r.random() > 0.8:
                b ^= 1
            v = v << 1 | b
        out.append(v)
    return out


def periodic(r):
    # a rhythm of period 5 with 5% of symbols replaced by noise
    per = [r.randrange(256) for _ in range(5)]
    return [per[i % 5] if r.random() > 0.05 else r.randrange(256) for i in range(N)]


def repeated(r):
    # a 300-symbol stretch replayed, 1% of symbols mutated each time
    blk = [r.randrange(256) for _ in range(300)]
    out = []
    while len(out) < N:
        out += [x if r.random() > 0.01 else r.randrange(256) for x in blk]
    return out[:N]


def lownoise(r):
    # constant high bits, 3 noisy low bits: the bitstring tuple tests bite
    return [0xa0 + r.randrange(8) for _ in range(N)]


def ones(r):
    # independent bits, 1 with probability 0.85: Markov's all-ones path bites
    return [sum((r.random() < 0.85) << j for j in range(8)) for _ in range(N)]


SYNTHETIC = [('uniform', uniform, 1), ('biased', biased, 2), ('markov', markov, 3),
             ('periodic', periodic, 4), ('repeated', repeated, 5), ('lownoise', lownoise, 6),
             ('ones', ones, 7)]


def names():
    return [n for n, _, _ in SYNTHETIC] + [c for c in CAPTURES
                                           if os.path.exists(os.path.join(HERE, c + '.bin'))]


def gen():
    os.makedirs(HERE, exist_ok=True)
    for name, f, seed in SYNTHETIC:
        with open(os.path.join(HERE, name + '.bin'), 'wb') as fh:
            fh.write(bytes(f(random.Random(seed))))
    for c in CAPTURES:
        src = os.path.join('/tmp/r86-90b', c + '.bin')
        if os.path.exists(src):
            with open(src, 'rb') as fh:
                data = fh.read()[N:2 * N]
            with open(os.path.join(HERE, c + '.bin'), 'wb') as fh:
                fh.write(data)


def expect():
    lines = ['# ea_non_iid (usnistgov/SP800-90B_EntropyAssessment %s), run once per vector as:'
             % TOOL_COMMIT, '#   ea_non_iid -v tests/vectors/est_stat/NAME.bin 8',
             '# NAME ESTIMATOR FIGURE (bits per symbol; -1: the tool skipped it)']
    for name in names():
        path = os.path.join(HERE, name + '.bin')
        out = subprocess.run(['ea_non_iid', '-v', path, '8'], capture_output=True,
                             text=True, check=True).stdout
        for key, pat, _ in ESTIMATORS:
            m = re.search(pat, out)
            lines.append('%s %s %s' % (name, key, m.group(1) if m else '-1'))
    with open(os.path.join(HERE, 'expected.txt'), 'w') as fh:
        fh.write('\n'.join(lines) + '\n')


def header(out):
    exp = {}
    with open(os.path.join(HERE, 'expected.txt')) as fh:
        for line in fh:
            if line.startswith('#') or not line.strip():
                continue
            name, key, val = line.split()
            exp[(name, key)] = round(float(val) * 1e6)
    keys = [k for k, _, _ in ESTIMATORS]
    o = ['/* Generated by tests/vectors/est_stat_vectors.py: do not edit. */',
         '/* Figures: ea_non_iid %s, micro-bits per symbol, -1000000 = skipped. */' % TOOL_COMMIT,
         'enum { %s, EST_N_KEYS };' % ', '.join('EST_' + k.upper() for k in keys),
         'struct est_vector { const char *name; uint8_t sym[%d]; int32_t tool_micro[EST_N_KEYS]; };' % N,
         'static const struct est_vector est_vectors[] = {']
    for name in names():
        with open(os.path.join(HERE, name + '.bin'), 'rb') as fh:
            data = fh.read()
        assert len(data) == N, name
        o.append('\t{ "%s", {' % name)
        for i in range(0, N, 16):
            o.append('\t\t' + ', '.join('0x%02x' % b for b in data[i:i + 16]) + ',')
        o.append('\t}, { %s } },' % ', '.join(str(exp[(name, k)]) for k in keys))
    o.append('};')
    with open(out, 'w') as fh:
        fh.write('\n'.join(o) + '\n')


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'gen':
        gen()
    elif cmd == 'expect':
        expect()
    elif cmd == 'header' and len(sys.argv) == 3:
        header(sys.argv[2])
    else:
        sys.exit(__doc__)
