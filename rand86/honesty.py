"""Credit against a full SP 800-90B assessment, on one boot's live input.

A captured sample is printed, so it is never credited: the credit per
sample comes from one stretch of a source's samples (`sources` before
and after), and the assessment from a `samples` capture of the stretch
that follows it, the same input still running, same boot, no reboot in
between. interleaved() repeats the pair: where the source's entropy
drifts (the timer and the rtc under TCG follow the host's load), credit
and capture then sample the same stretch of time in turns, not one half
each. The assessment is build/host/h_estimate (tools/h_estimate.c,
`make h-estimate`): every non-IID estimator of SP 800-90B 6.3 from
entropy/, on 1024-symbol blocks of the capture. Used by
tests/qemu/test_honesty.py (the invariant, asserted) and
scripts/compare.py (the figures, printed).

A driver is drive(stop): it makes input until stop() is true. It runs
in a thread of its own (driven()), so that reading `sources` at a
stretch's end, a round trip of the console, never holds the input up:
a typist held up there caught up with keys a QMP round trip apart, and
the credited stretch carried a rhythm the captured one did not (it
watches COM1 without a command).
Standard library only.
"""
import os
import re
import subprocess
import threading
import time

from rand86 import samples2bin
from rand86.paths import ROOT

H_ESTIMATE = os.path.join(ROOT, "build", "host", "h_estimate")
POLL = 0.25               # s between `sources` reads while a stretch runs
ASSESSMENT = re.compile(r"^assessment, [^:]*: (\d+\.\d+) bits/sample \(lowest block (\d+\.\d+)\)",
                        re.M)
BLOCKS = re.compile(r"^full assessment [^:]*: (\d+) block", re.M)


def measured(fields):
    """Samples the meter measured: events less those mixed but never
    measured nor credited (`skipped` ticks, `unmeasured` queue overflows)."""
    return (int(fields["events"]) - int(fields.get("skipped", 0))
            - int(fields.get("unmeasured", 0)))


def until_measured(vm, name, want, rate=None):
    """A stop() for driven(): true once `name` measured `want` more samples
    than now. With `rate` (samples a second, as the last stretch ran) it
    asks nothing until the stretch should be over by that rate, then
    reads `sources` every POLL s: the guest prints nothing while the
    input runs, as in a capture (a console busy every POLL s moves the
    interrupts' timing, and the credited stretch would then carry jitter
    that the captured one, quiet, does not)."""
    t0 = time.monotonic()
    start = measured(vm.sources()[name])
    quiet = 0.9 * want / rate if rate else 0.0
    seen = {"t": t0, "n": start}

    def stop():
        now = time.monotonic()
        if now - t0 >= quiet and now - seen["t"] >= POLL:
            seen["t"], seen["n"] = now, measured(vm.sources()[name])
        return seen["n"] - start >= want
    return stop


def driven(drive, stop):
    """Run drive() in its own thread until stop(), asked here, is true.
    A driver that raises ends the wait and its exception is raised here."""
    halt, failed = threading.Event(), []

    def run():
        try:
            drive(halt.is_set)
        except BaseException as e:     # handed to the caller below
            failed.append(e)
            halt.set()

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        while not halt.is_set() and not stop():
            time.sleep(0.01)
    finally:
        halt.set()
        th.join(30)
    if failed:
        raise failed[0]


def credit_stretch(vm, name, want, drive, rate=None):
    """Drive until `name` measured at least `want` samples (quietly, given
    the `rate` the last stretch ran at); the change in its `sources`
    fields over the stretch, with `samples` (measured), `per_sample`
    (credited bits per measured sample) and `rate` (samples a second)."""
    f0 = vm.sources()[name]
    t0 = time.monotonic()
    driven(drive, until_measured(vm, name, want, rate))
    f1 = vm.sources()[name]
    d = {k: int(f1.get(k, 0)) - int(f0.get(k, 0))
         for k in ("events", "bits", "tso_bits", "credited", "skipped", "unmeasured")}
    d["samples"] = measured(f1) - measured(f0)
    d["per_sample"] = d["credited"] / d["samples"] if d["samples"] else 0.0
    d["rate"] = d["samples"] / max(time.monotonic() - t0, 1e-3)
    d["h_milli"] = int(f1.get("h_milli", 0))
    d["health"] = f1.get("health")
    return d


def capture(vm, name, n, drive, timeout=300):
    """`samples NAME n` while drive() keeps the input going; the console
    text of the capture (the reader thread drains COM1 meanwhile)."""
    vm.send("samples %s %d\r" % (name, n))
    vm.com1.expect(rb"# capturing [^\r\n]*\r\n", 20)
    end = time.monotonic() + timeout
    state = {"t": 0.0, "done": False}

    def stop():
        if time.monotonic() - state["t"] >= POLL:
            state["t"] = time.monotonic()
            state["done"] = vm.com1.unconsumed().endswith(b"rand86> ")
        return state["done"] or time.monotonic() > end
    driven(drive, stop)
    m = vm.com1.expect(rb"(.*?)\r\n(ok|error: [^\r\n]*)\r\nrand86> ", 60)
    if m.group(2) != b"ok":
        raise AssertionError("samples %s %d: %r" % (name, n, m.group(2)))
    return m.group(1).decode(errors="replace")


def assess(text):
    """h_estimate on a capture's text: {mean, lowest, blocks, n, out}.
    A missing tool is an error (`make h-estimate` builds it)."""
    if not os.access(H_ESTIMATE, os.X_OK):
        raise FileNotFoundError("%s missing: run `make h-estimate`" % H_ESTIMATE)
    out = subprocess.run([H_ESTIMATE, "-"], input=text, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True, timeout=120,
                         check=True).stdout
    m = ASSESSMENT.search(out)
    if not m:
        raise AssertionError("h_estimate printed no assessment:\n" + out)
    samples, _ = samples2bin.parse(text.split("\r\n"))
    return {"mean": float(m.group(1)), "lowest": float(m.group(2)),
            "blocks": int(BLOCKS.search(out).group(1)), "n": len(samples), "out": out}


def interleaved(vm, name, rounds, stretch, captured, drive, rate=None):
    """`rounds` times: a credited stretch of `stretch` measured samples,
    then a capture of the next `captured`. Returns (credit, text): the
    credited stretches summed as credit_stretch() gives one, and the
    captures' text one after another, for assess() (with `captured` a
    multiple of 1024 no block straddles two captures). `rate`: samples a
    second in a warm-up (credit_stretch's), for the first quiet stretch."""
    total, texts = None, []
    for _ in range(rounds):
        d = credit_stretch(vm, name, stretch, drive, rate)
        rate = d["rate"]
        if total is None:
            total = d
        else:
            for k in ("events", "bits", "tso_bits", "credited", "skipped", "unmeasured",
                      "samples"):
                total[k] += d[k]
            total["h_milli"], total["health"] = d["h_milli"], d["health"]
        texts.append(capture(vm, name, captured, drive))
    total["per_sample"] = total["credited"] / total["samples"] if total["samples"] else 0.0
    return total, "\r\n".join(texts)
