"""rand86/restart.py (SP 800-90B 3.1.4) against NIST's ea_restart 1.1.7's
stored output on the matrix of tests/vectors/restart/skew16.py."""
import os
import re

import pytest

from rand86 import restart

VEC = os.path.join(os.path.dirname(__file__), "..", "vectors", "restart")


def stored(name):
    with open(os.path.join(VEC, name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def matrix():
    import importlib.util
    spec = importlib.util.spec_from_file_location("skew16", os.path.join(VEC, "skew16.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.matrix()


def test_the_matrix_is_the_one_nist_read(matrix):
    import hashlib
    digest = hashlib.sha256(restart.to_bytes(matrix)).hexdigest()
    assert "SHA-256 hash %s" % digest in stored("skew16-h2.5.ea_restart.txt")


def test_sanity_check_fails_where_ea_restart_fails(matrix):
    out = stored("skew16-h2.5.ea_restart.txt")
    x_max = int(re.search(r"X_max: (\d+)", out).group(1))
    a = restart.assess(matrix, 2.5)
    assert max(a["x_r"], a["x_c"]) == x_max
    assert "Restart Sanity Check Failed" in out and not a["sanity"]


def test_mcv_and_pass_match_ea_restart(matrix):
    out = stored("skew16-h1.5.ea_restart.txt")
    a = restart.assess(matrix, 1.5)
    assert max(a["x_r"], a["x_c"]) == int(re.search(r"X_max: (\d+)", out).group(1))
    assert "Restart Sanity Check Passed" in out and a["sanity"]
    assert a["mode"] == int(re.search(r"Literal MCV Estimate: mode = (\d+)", out).group(1))
    rows = float(re.search(r"Most Common Value Estimate \(Rows\) = ([0-9.]+)", out).group(1))
    cols = float(re.search(r"Most Common Value Estimate \(Cols\) = ([0-9.]+)", out).group(1))
    assert round(a["h_r"], 6) == rows and round(a["h_c"], 6) == cols


def test_binomial_cutoff_by_hand():
    # Binomial(10, 1/2): P(X <= 9) = 1 - 2^-10 = 0.99902; P(X <= 8) = 0.98926.
    assert restart.binom_cutoff(10, 0.5, 0.01) == 9
    assert restart.binom_cutoff(10, 0.5, 0.0005) == 10
    # every restart the same value: X = r exceeds U only once r is large enough
    assert restart.binom_cutoff(1000, 1.0, 5e-6) == 1000
