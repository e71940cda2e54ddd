"""The matrix of tests/vectors/restart/skew16.ea_restart.txt: 1,000 x 1,000
4-bit symbols of a fixed skewed distribution, from Python's Mersenne
Twister with a fixed seed (random.choices has drawn the same values for
a seed since Python 3.6). `python3 tests/vectors/restart/skew16.py FILE`
writes it as ea_restart's row dataset (a byte a symbol)."""
import random
import sys

SEED = 20261205
WEIGHTS = [8, 4, 4, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]


def matrix():
    r = random.Random(SEED)
    d = r.choices(range(16), weights=WEIGHTS, k=1000000)
    return [d[i * 1000:(i + 1) * 1000] for i in range(1000)]


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        f.write(bytes(s for row in matrix() for s in row))
