#!/usr/bin/python3
"""Print the per-operation instruction counts of bench_entropy's callgrind dumps.

Each dump's trigger names "operation/reps"; its total (Ir) covers one
bracket. The median "empty" bracket is subtracted, the rest divided by reps.
"""
import glob
import os
import re
import statistics
import sys


def read_dumps(directory):
    runs = {}
    for path in glob.glob(os.path.join(directory, "out.*")):
        name = total = None
        with open(path) as f:
            for line in f:
                m = re.match(r"desc: Trigger: Client Request: (\S+)", line)
                if m:
                    name = m.group(1)
                m = re.match(r"(?:totals|summary): (\d+)", line)
                if m:
                    total = int(m.group(1))
        if name and total is not None:
            op, reps = name.rsplit("/", 1)
            runs.setdefault(op, []).append((total, int(reps)))
    return runs


def main():
    runs = read_dumps(sys.argv[1])
    if "empty" not in runs:
        sys.exit("callgrind_table: no dumps found in %s" % sys.argv[1])
    empty = statistics.median(t for t, _ in runs.pop("empty"))
    cost = {}
    for op, rs in runs.items():
        cost[op] = statistics.median((t - empty) / reps for t, reps in rs)
    print("%-28s %14s" % ("operation (host, -O2)", "instructions"))
    for op in ("add_timing_entropy", "add_timing_entropy_1999", "flush_measure_32_samples",
               "xymoron_estimate", "tso_estimate", "batch_flush",
               "urandom_per_byte_256", "urandom_per_byte_4096",
               "urandom_v189_per_byte_256", "urandom_v189_per_byte_4096",
               "secondary_round_10_bytes"):
        if op in cost:
            print("%-28s %14.1f" % (op, cost[op]))
    for op in sorted(o for o in cost if o.startswith("est_")):
        print("%-34s %8.0f" % (op, cost[op]))
    if "flush_measure_32_samples" in cost and "meter_full_assessment" in cost:
        # the meter per trusted sample: health tests, MCV and Lag in every
        # flush, and the full assessment once every 512 samples
        every = 512
        per = cost["flush_measure_32_samples"] + cost["meter_full_assessment"] / every
        print("%-28s %14.1f" % ("meter_per_sample", per))
        print("%-28s %14.0f" % ("meter_full_assessment", cost["meter_full_assessment"]))
        if cost.get("add_timing_entropy_1999"):
            print("%-28s %14.2f" % ("ratio meter/1999 sample path", per / cost["add_timing_entropy_1999"]))
    if cost.get("add_timing_entropy_1999"):
        print("%-28s %14.2f" % ("ratio sample path 2002/1999", cost["add_timing_entropy"] / cost["add_timing_entropy_1999"]))
    if cost.get("tso_estimate"):
        print("%-28s %14.2f" % ("ratio 2002/1999 estimator", cost["xymoron_estimate"] / cost["tso_estimate"]))
    print("(bracket overhead %d instructions subtracted; medians of repeated runs)" % empty)


if __name__ == "__main__":
    main()
