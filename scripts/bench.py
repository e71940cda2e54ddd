#!/usr/bin/python3
"""`make bench`: measure rand86 and write docs/BENCHMARKS.md.

Boots build/rand86.elf under QEMU (KVM when the harness's accel() says it works,
else TCG) and records, in one markdown table, next to the project's
targets:
  (a) the in-kernel `bench` figures (median of 3 runs in one boot),
  (b) the host callgrind instruction counts (`make bench-host` output),
  (c) the 2002/1999 cost ratios from both,
  (d) text/data/bss of build/rand86.elf (`size`),
  (e) the smallest -m (MiB) that boots to the prompt, trying 1, 2, 3, ...,
  (f) wall time from starting QEMU to the prompt (median of 3 boots),
  (g) urandom bytes/s received on COM1 (`stream urandom`) and on COM2
      (stream=urandom) over ~3 s, and bench's internal rate, each as a
      ratio to a 115200-baud line (11520 bytes/s),
  (h) at 486 speed: the same paths under TCG with -icount shift=6,sleep=off
      (guest time = instruction count, 64 ns an instruction, ~16 MIPS; the
      figures repeat exactly), in instructions and as a ratio to the line.
  (i) with nobody typing (a 1 MiB IDE disk attached, default policy): the
      bits per second and per sample credited from each headless source
      (timer, ata0) over ~HEADLESS_SECONDS idle, its live estimate h_milli,
      and, only when NIST's ea_non_iid is on PATH, the tool's SP 800-90B
      estimate of a `samples` capture of it (8-bit symbols, rand86/samples2bin.py).
  (j) typists over QMP, one boot each: a metronome (press, release, 50 ms,
      again) and irregular typing, 160 keys: the keyboard's Xymoron bits,
      Ts'o's 1999 figure, the meter's credit and h_milli. Timed by this
      host, so they vary with its load; the relations are host tests.
  (l) an old PC: -cpu 486 -m 4 at 4 and 16 MIPS (-icount shift=8 and 6,
      sleep=on) with rtc_jitter=on, the meter measuring every rtc period
      as on a real 386/486, a key over QMP 8 times a guest second: the
      worst pass (loop_max_us), `status`'s reply time past its line time,
      `urandom 40000 bin` on COM1 as a ratio to the line, meter_permille.
  (k) NE2000 floods of every length 1..1600 for FLOOD_SECONDS on the ISA
      and the PCI card: the share of frames counted, and the guest ms
      (uptime_ms) from the flood's end until 40 of 50 normal frames count.
Prints the table; writes it with the date, CPU model and accelerator to
--out. Exits non-zero only when a measurement could not be taken.
Standard library only.

This file takes the figures one by one and writes the document; the
work is in the modules beside it, each importing only those above it:
  bench_build    (b), (d): no machine; Failed, which every measurement raises
  bench_speed    (a), (e)-(h), (l) and the PIT clock: rand86 timed under QEMU
  bench_sources  (i)-(k) and the Linux guest: what inputs and clients get
  bench_judge    (c) and the table's rows, each figure against its target
  bench_doc      docs/BENCHMARKS.md: the host, targets, table, method notes
"""
import argparse
import os
import sys

from rand86 import ELF, accel
from scripts import provenance
from scripts.bench_build import host_table, image_size, size_by_object
from scripts.bench_doc import render
from scripts.bench_judge import judge
from scripts.bench_sources import flood_figures, guest_rates, headless_figures, typist_figures
from scripts.bench_speed import (com2_random_rate, icount_figures, pit_clock_ratio, qemu_bench,
                                 rtc_cost_486, old_pc_figures, smallest_mem, stream_rates,
                                 tcg_seeded_ms, wall_to_prompt)


# ---------------------------------------------------------------- measure
def measure(host_table_path, failures):
    """Every figure, each taken on its own; a failure is noted and the rest go on."""
    def take(name, fn, *a):
        try:
            return fn(*a)
        except Exception as e:          # noqa: BLE001 - report, go on, exit non-zero
            failures.append("%s: %s" % (name, e))
            print("bench: %s could not be measured: %s" % (name, e), file=sys.stderr)
            return None

    return {
        "b": take("QEMU bench", qemu_bench),
        "host": take("host table", host_table, host_table_path),
        "size": take("size", image_size),
        "objs": take("size by object", size_by_object),
        "mem": take("smallest -m", smallest_mem),
        "wall": take("QEMU start to prompt", wall_to_prompt),
        "seed": take("TCG seeding from the timer", tcg_seeded_ms),
        "streams": take("COM1 and COM2 streams and their ceiling", stream_rates),
        "ic": take("icount figures", icount_figures),
        "rtc486": take("rtc at 16 MIPS", rtc_cost_486),
        "oldpc": take("an old PC at 4 and 16 MIPS, the meter running", old_pc_figures),
        "com2random": take("COM2 stream=random headless", com2_random_rate),
        "hl": take("headless sources", headless_figures),
        "pit": take("PIT clock at hz=1000", pit_clock_ratio),
        "guest": take("Linux guest over EGD", guest_rates),
        "typists": take("typists over QMP", typist_figures),
        "flood": take("NE2000 flood", flood_figures),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-table", required=True, help="output of `make bench-host`")
    ap.add_argument("--out", required=True, help="markdown file to write")
    args = ap.parse_args()
    if not os.path.exists(ELF):
        sys.exit("bench: %s missing: run make first" % ELF)
    acc, failures = accel(), []
    stamp = provenance.stamp("docs/BENCHMARKS.md")
    figures = measure(args.host_table, failures)
    rows = judge(figures, acc, failures)
    doc, table = render(rows, figures, acc, failures, stamp)
    print(table)
    with open(args.out, "w") as f:
        f.write(doc)
    print("bench: wrote %s" % args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
