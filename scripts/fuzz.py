#!/usr/bin/python3
"""`make fuzz`: every fuzz target for a share of the time, then coverage.

Runs the libFuzzer targets of tests/fuzz/ (the entropy core's among them),
FUZZ_JOBS at a time, so that all of them end within --minutes; each
starts from its kept corpus (tests/fuzz/TARGET/) and grows its own in
build/fuzz/corpus/TARGET/. Then it replays that corpus through the
target's coverage build and reports, per target: executions, executions
per second, the corpus entries it added, what it found (the inputs are
left as build/fuzz/crash-*), and the lines of each file it targets reached
(llvm-cov; the annotated source is left in build/fuzz/TARGET.cov.txt to
see what was not). With --out it writes that table as markdown
(docs/fuzz.md from `make fuzz`). Standard library only.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

from scripts import provenance

LLVM_PROFDATA = "llvm-profdata-14"
LLVM_COV = "llvm-cov-14"
# Inputs longer than this add little to a path and cost time per run.
MAX_LEN = {"ne2000_rx": 8192}
COVER_RESERVE_S = 90            # of the budget, for the coverage replays
# Shares of the time, 1 unless named: the entropy core's target runs each
# input through whole SP 800-90B assessments and is two orders of
# magnitude slower than the parsers', which pass 1 M executions in one
# share. With seven targets on two jobs its second share is the slot
# that would stand idle; it starts first so that the shares pack.
SHARES = {"entropy": 2}


def corpus_size(name, args):
    d = os.path.join(args.dir, "corpus", name)
    return len(os.listdir(d)) if os.path.isdir(d) else 0


def git_head():
    """HEAD by scripts/provenance.py's git; "unknown" outside a checkout,
    so that a campaign's table is still written."""
    try:
        return provenance.git("rev-parse", "HEAD")
    except provenance.NoGit:
        return "unknown"


def write_md(path, rows, each, args, wall):
    """rows: (name, execs, rate, new, reached, found)."""
    lines = ["# Fuzz campaigns", "",
             "Written by `make fuzz` (scripts/fuzz.py); a run's figures, not a test.", "",
             "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime(
                 "%Y-%m-%d %H:%M UTC"),
             "- commit %s" % git_head(),
             "- %d targets, %d s a share (%s; the others 1), %d at a time on %d CPUs;"
             " run time %.0f s"
             % (len(rows), each, ", ".join("%s %d shares" % kv for kv in sorted(SHARES.items())),
                args.jobs, os.cpu_count() or 0, wall), "",
             "`new corpus` counts the inputs the run added to build/fuzz/corpus/TARGET/"
             " (which starts from tests/fuzz/TARGET/ and what earlier runs kept there);"
             " `lines reached` is llvm-cov's line count of each file the target is aimed at,"
             " replaying that corpus.", "",
             "| target | executions | exec/s | new corpus | lines reached | findings |",
             "|---|---:|---:|---:|---|---|"]
    for name, execs, rate, new, reached, found in rows:
        lines.append("| %s | %d | %d | %d | %s | %s |" % (name, execs, rate, new, reached,
                                                         found or "none"))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_target(name, binary, seeds, args, seconds):
    corpus = os.path.join(args.dir, "corpus", name)
    os.makedirs(corpus, exist_ok=True)
    log = open(os.path.join(args.dir, name + ".log"), "w")
    argv = [binary, "-max_total_time=%d" % seconds, "-print_final_stats=1", "-timeout=20",
            "-max_len=%d" % MAX_LEN.get(name, 4096),
            "-artifact_prefix=%s/crash-%s-" % (args.dir, name), corpus]
    if os.path.isdir(seeds):
        argv.append(seeds)
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT), log


def stats(name, args):
    with open(os.path.join(args.dir, name + ".log"), errors="replace") as f:
        text = f.read()
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    rate = re.search(r"stat::average_exec_per_sec:\s*(\d+)", text)
    broken = re.search(r"(invariant broken: .*|ERROR: .*|runtime error: .*)", text)
    return (int(execs.group(1)) if execs else 0, int(rate.group(1)) if rate else 0,
            broken.group(1) if broken else None)


def coverage(name, files, args):
    """Lines reached in each of files: [(file, covered, total)]."""
    binary = os.path.join(args.dir, "cover_" + name)
    raw = os.path.join(args.dir, name + ".profraw")
    prof = os.path.join(args.dir, name + ".profdata")
    env = dict(os.environ, LLVM_PROFILE_FILE=raw, ASAN_OPTIONS="detect_leaks=0")
    dirs = [os.path.join(args.dir, "corpus", name), os.path.join("tests", "fuzz", name)]
    subprocess.run([binary] + [d for d in dirs if os.path.isdir(d)], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    subprocess.run([LLVM_PROFDATA, "merge", "-sparse", raw, "-o", prof], check=True)
    out = subprocess.run([LLVM_COV, "export", "-summary-only", binary, "-instr-profile=" + prof],
                         capture_output=True, text=True, check=True).stdout
    summary = {os.path.relpath(f["filename"]): f["summary"]["lines"]
               for f in json.loads(out)["data"][0]["files"]}
    with open(os.path.join(args.dir, name + ".cov.txt"), "w") as f:
        subprocess.run([LLVM_COV, "show", binary, "-instr-profile=" + prof] + files,
                       stdout=f, check=False)
    return [(p, summary.get(p, {}).get("covered", 0), summary.get(p, {}).get("count", 0))
            for p in files]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seconds-each", type=int, help="instead of a share of --minutes")
    ap.add_argument("--dir", default="build/fuzz")
    ap.add_argument("--target", action="append", default=[], help="NAME:FILE,FILE...")
    ap.add_argument("--only", help="NAME,NAME...: these targets alone")
    ap.add_argument("--out", help="write the table as markdown here")
    args = ap.parse_args()

    targets = [(t.split(":")[0], os.path.join(args.dir, "fuzz_" + t.split(":")[0]),
                t.split(":")[1].split(",")) for t in args.target]
    if args.only:
        targets = [t for t in targets if t[0] in args.only.split(",")]
    targets.sort(key=lambda t: -SHARES.get(t[0], 1))         # the long ones first: they pack
    shares = sum(SHARES.get(t[0], 1) for t in targets)
    rounds = max(1, -(-shares // args.jobs))                # shares a job runs, one after another
    each = args.seconds_each or max(10, int((args.minutes * 60 - COVER_RESERVE_S) / rounds))
    print("fuzz: %d targets, %d s a share, %d at a time" % (len(targets), each, args.jobs), flush=True)
    t0 = time.monotonic()
    before = {name: corpus_size(name, args) for name, _, _ in targets}
    pending, running = list(targets), []
    while pending or running:
        while pending and len(running) < args.jobs:
            name, binary, _ = pending.pop(0)
            running.append((name,) + run_target(name, binary, os.path.join("tests", "fuzz", name),
                                                args, each * SHARES.get(name, 1)))
        time.sleep(1)
        for r in list(running):
            if r[1].poll() is not None:
                r[2].close()
                running.remove(r)
    failed, rows = 0, []
    print("%-14s %12s %8s %6s  %s" % ("target", "executions", "exec/s", "new",
                                      "lines reached / findings"))
    for name, _, files in targets:
        execs, rate, broken = stats(name, args)
        new = corpus_size(name, args) - before[name]
        cov = coverage(name, files, args) if files else []
        reached = ", ".join("%s %d/%d" % (f, c, n) for f, c, n in cov) or "-"
        print("%-14s %12d %8d %6d  %s" % (name, execs, rate, new, reached))
        rows.append((name, execs, rate, new, reached, broken))
        if broken:
            failed += 1
            print("%14s  FOUND: %s (input: %s/crash-%s-*)" % ("", broken, args.dir, name))
    if args.out:
        write_md(args.out, rows, each, args, time.monotonic() - t0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
