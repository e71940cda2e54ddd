"""SP 800-90B section 3.1.4's restart test on a restart matrix.

A matrix has one row per restart (boot) and one column per sample index:
row i is the first samples a source gave in boot i (record=N, `samples
NAME boot`), as the meter's 8-bit symbols. The standard uses 1,000
restarts of 1,000 samples; any r x c is accepted here, so that fewer
restarts can be reported honestly as fewer.

- sanity check (3.1.4.3): the count of the most common value in each
  row and each column, X_max, against U, the binomial critical value for
  the claimed entropy H_I: the smallest U with P(Binomial(n, 2^-H_I) <= U)
  >= 1 - alpha, alpha = 0.01 / (r + c) (0.01/2000 in the standard: an
  overall false-reject rate of 1% over the r + c tests). n is a row's or
  a column's length; with r != c each side gets its own U.
- min-entropy of the row and the column datasets (3.1.4.1's H_r and H_c)
  by the most common value estimate (6.3.1): p_u = min(1, p + 2.576
  sqrt(p(1-p)/(L-1))), H = -log2(p_u). The MCV estimate counts symbols
  without their order, so on one matrix H_r = H_c; it is reported for
  both as the standard's table has both.

NIST's ea_restart (1.1.7) sets its cutoff by simulating the "inverted
near-uniform" distribution with alpha = 1 - 0.99^(1/2000) rather than by
the binomial; tests/vectors/restart/ holds its output on one of rand86's
matrices, against which this module's X_r, X_c, MCV and verdict are
checked (tests/unit/test_restart.py).
"""
import math

ZALPHA = 2.5758293035489008          # the 99% two-sided normal quantile, 6.3.1


def mcv_h(counts_max, n):
    """6.3.1's MCV min-entropy, bits per symbol, of n symbols whose most
    common value occurs counts_max times."""
    p = counts_max / float(n)
    pu = min(1.0, p + ZALPHA * math.sqrt(p * (1.0 - p) / (n - 1.0)))
    return -math.log2(pu)


def most_common_count(seq):
    counts = {}
    best = 0
    for s in seq:
        k = counts.get(s, 0) + 1
        counts[s] = k
        if k > best:
            best = k
    return best


def binom_cutoff(n, p, alpha):
    """The smallest u with P(X <= u) >= 1 - alpha for X ~ Binomial(n, p)
    (a spreadsheet's CRITBINOM(n, p, 1 - alpha)); exact sums in log space."""
    if p >= 1.0:
        return n
    if p <= 0.0:
        return 0
    lp, lq = math.log(p), math.log1p(-p)
    cdf = 0.0
    for k in range(n + 1):
        lpmf = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq
        cdf += math.exp(lpmf)
        if cdf >= 1.0 - alpha:
            return k
    return n


def assess(rows, h_i):
    """rows: r lists of c symbols (0..255). h_i: the claimed entropy per
    sample, bits. Returns a dict of the figures of 3.1.4."""
    r, c = len(rows), len(rows[0])
    assert r > 1 and c > 1 and all(len(x) == c for x in rows), "ragged or tiny matrix"
    cols = [[rows[i][j] for i in range(r)] for j in range(c)]
    x_r = max(most_common_count(x) for x in rows)
    x_c = max(most_common_count(x) for x in cols)
    alpha = 0.01 / (r + c)
    p = 2.0 ** -h_i
    u_row, u_col = binom_cutoff(c, p, alpha), binom_cutoff(r, p, alpha)
    flat = [s for x in rows for s in x]
    mode = most_common_count(flat)
    h = mcv_h(mode, len(flat))
    return {"restarts": r, "samples": c, "x_r": x_r, "x_c": x_c, "h_i": h_i,
            "alpha": alpha, "u_row": u_row, "u_col": u_col,
            "sanity": x_r <= u_row and x_c <= u_col,
            "mode": mode, "h_r": h, "h_c": h}


def to_bytes(rows):
    """The row dataset as ea_restart reads it: row after row, a byte a symbol."""
    return bytes(s for x in rows for s in x)
