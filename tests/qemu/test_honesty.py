"""Honesty (docs/PROTOCOL.md, Invariants): no source is credited more per
sample than a full SP 800-90B assessment of the same input finds.

One boot per source, host-timed (no -icount: an instruction-counted
machine times the timer and the rtc exactly and credits them nothing).
A warm-up, then the credit per measured sample over one stretch
(`sources` before and after), then a `samples` capture of the stretch
that follows it, the same input still running: a captured sample is
printed, so it is never credited, and the two stretches cannot be the
same samples. Each source does this in turns (the timer and the rtc
four of 1,024 credited then 1,024 captured, typing and the mouse eight
of 64 and 128, QMP's pace drifting faster with the host's load): what
these sources carry under TCG is the host's timing,
which drifts with its load, and one long stretch of each would judge
one minute by the next (a metronome typist, credited 1.4 bits a sample
over one stretch of 1,024, was assessed 0.6 over the next on a busy
host; in turns, credit and capture share the drift). The captures are
assessed on the host by build/host/h_estimate (every non-IID estimator
of 6.3, from entropy/; `make test-host` builds it), and the credit per
sample must be at most 1.1x its mean over their 1024-symbol blocks.
The estimators themselves are checked against stored ea_non_iid
figures by the unit tests (docs/TESTING.md).

Input is injected over QMP, timed by this test; the figures are the
host's, the bound is a relation between two of them.
"""
import random
import time

import pytest

from rand86 import Rand86, key_event
from rand86 import honesty

MARGIN = 1.1              # credit per sample <= MARGIN x assessed H (PROTOCOL.md)
WARMUP = 128              # samples before the credited stretch: the meter credits from 64


def idle(vm, rnd):
    """Nobody types: the timer or the rtc runs alone."""
    def drive(stop):
        while not stop():
            time.sleep(0.05)
    return drive


def typing(vm, rnd):
    """A metronome typist: a press every 30 ms, released 2 ms later. The
    rhythm is what the meter is for: Xymoron's rule pays its deltas
    well (they are large and the deltas between them vary), the
    estimators see the repeats; at an irregular pace this fast the rule
    pays less than the estimators find, and the test could not fail."""
    def drive(stop):
        i, t = 0, time.monotonic()
        while not stop():
            qcode = "asdfjkl"[i % 7]
            i += 1
            vm.qmp.execute("input-send-event", events=[key_event(qcode, True)])
            time.sleep(0.002)
            vm.qmp.execute("input-send-event", events=[key_event(qcode, False)])
            t += 0.030
            time.sleep(max(0.0, t - time.monotonic()))
    return drive


def mouse(vm, rnd):
    """Moves of -20..20 on each axis, 4 ms then 24 ms apart, over and over:
    a rhythm, for the reason typing() gives (at a steady 20 ms Xymoron's
    rule paid 0.1 bits a move, and the test could not fail; this one it
    pays 1.7, the meter 0.4, the next stretch is assessed 0.6)."""
    def drive(stop):
        i, t = 0, time.monotonic()
        while not stop():
            vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
            i += 1
            t += 0.004 if i & 1 else 0.024
            time.sleep(max(0.0, t - time.monotonic()))
    return drive


# source, boot options, driver, rounds of (credited, captured) samples.
# The timer at hz=1000, not the default 100: 8,300 ticks in ~9 s, not ~85.
CASES = {
    "timer": ("timer", "hz=1000", idle, 4, 1024, 1024),
    "rtc": ("rtc", "", idle, 4, 1024, 1024),
    "typing": ("keyboard", "", typing, 8, 64, 128),
    "mouse": ("mouse", "", mouse, 8, 64, 128),
}


@pytest.mark.timeout(240)
@pytest.mark.parametrize("case", sorted(CASES))
def test_credit_per_sample_within_the_assessment_of_the_next_stretch(case):
    source, append, driver, rounds, stretch, captured = CASES[case]
    with Rand86(append=append) as vm:
        drive = driver(vm, random.Random(0x90b))
        rate = honesty.credit_stretch(vm, source, WARMUP, drive)["rate"]
        credit, text = honesty.interleaved(vm, source, rounds, stretch, captured, drive, rate)
    got = honesty.assess(text)
    figures = "%s: credited %.3f bits/sample over %d samples; next %d assessed %.3f " \
              "(lowest block %.3f)" % (case, credit["per_sample"], credit["samples"],
                                       got["n"], got["mean"], got["lowest"])
    print(figures)
    assert credit["samples"] >= rounds * stretch and got["n"] == rounds * captured, \
        (figures, credit)
    assert credit["credited"] > 0, (figures, credit)      # a credit to judge, not a vacuous pass
    assert credit["per_sample"] <= MARGIN * got["mean"], (figures, credit, got["out"])
