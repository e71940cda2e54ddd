"""docs/BENCHMARKS.md as bench writes it: the host, the targets, the table, the method."""
import datetime
import os

from rand86 import cpu_model, qemu_version
from scripts.bench_sources import HEADLESS_SECONDS, HEADLESS_SOURCES
from scripts.bench_speed import (BENCH_RUNS, BOOTS, HEADLESS_RANDOM_SECONDS, ICOUNT_BYTES,
                                 ICOUNT_SHIFT, ICOUNT_TRIES, MEM_BOOT_TIMEOUT, NS_PER_INSN,
                                 STREAM_ROUNDS, STREAM_SECONDS)


# ---------------------------------------------------------------- render
TARGETS = """Targets: one trusted sample ≤ 1.5× the 1999 sample and < 150
cycles on KVM; full-batch flush < 50 µs on KVM; urandom ≥ 50× a 115200 line
inside the appliance, and on COM1 and COM2 ≥ 0.7× what the same run's
baseline guest (scripts/ceiling/uart.c, which only writes COM1) gets through;
urandom at 16 MIPS ≥ 1.5× a line; an old PC (-cpu 486 -m 4, the meter
running): every pass ≤ 20 ms, the meter ≤ 10% of the CPU, `urandom 40000
bin` ≥ 1.5× a line at 4 MIPS and ≥ 4× at 16; urandom ≤ 40 host instructions a byte;
boots in 4 MiB; text+data ≤ 96 KiB; QEMU
start to prompt < 1 s under TCG. A KVM-only target is shown but not judged
under TCG (and the TCG target not under KVM): TCG's TSC follows host time
while the guest runs translated code, so its cycle counts are several times
what real hardware or KVM spends."""


def method_notes():
    """How each figure of the table is taken, for docs/BENCHMARKS.md."""
    return notes_emulated() + notes_slow_machines()


def notes_emulated():
    """How the figures on the default machine are taken."""
    return """How the figures are taken:

- QEMU bench: the console command `bench` (app/cmd_bench.c), run %d times in
  one boot, median of each key. It works on a scratch `struct rng` with its own
  source, never the live pools. With the TSC each operation is timed alone
  (rdtsc) and the median of 255 (31 flushes, 5 reads of 1000 urandom bytes) is
  printed, less the median empty bracket; with the PIT clock groups of calls are
  timed and the mean, rounded up, is printed in 1.193 MHz ticks.
  `add_timing_entropy_1999` models v1.89's add_timer_randomness() with this
  tree's pieces: clock read, delta-of-deltas estimate, two words mixed straight
  into a 4096-bit pool, credit, all under one irq_save. Samples in a tight
  loop see no main-loop pass, so Xymoron's rule credits them nothing: this is
  a measure of cost, not of credit.
- host callgrind: exact instruction counts of entropy/ built -O2 for the host
  (`make bench-host`, tools/bench/bench_entropy.c); meter_per_sample is the
  flush's measurement of one sample plus a 512th of the full assessment.
- smallest -m: `qemu-system-i386 -m N -kernel build/rand86.elf`, N = 1, 2, ...
  MiB until the prompt appears on COM1 within %.0f s; each try is listed.
- QEMU start to prompt: from starting the QEMU process until `rand86> ` is read
  on COM1 (stdio), default memory, median of %d boots.
- TCG seeding: `seeded_ms` of %d boots with the timer alone (rtc=off,
  stream=off), the median judged: how soon depends on how much host the
  guest gets, so the suite asks only that such a boot seeds.
- rngd: the FIPS blocks rngd reads from a Linux guest's ttyS1 (rand86's COM2,
  stream=urandom) in 10 s, as tests/qemu/test_linux_guest.py runs it.
- PIT clock: uptime_ms against host time at hz=1000 on -cpu 486, where ticks
  that QEMU delivers late or merges are restored from channel 2; host time,
  so reported here, not tested.
- urandom rates: bytes the host read from QEMU's socket chardev over %.0f s once
  the stream was flowing. QEMU's 16550 does not pace bytes at the baud rate,
  so these are what the emulated UART and the appliance's main loop sustain.
  The baseline guest, COM1 and COM2 are booted in turn, %d rounds of the
  three, so that all three meet the same share of the host: the two cores
  move QEMU's threads and the reader between placements that change what a
  port carries by up to 2x for tens of seconds. rand86 transmits from its
  THRE interrupt, 16 bytes an interrupt, between main-loop passes; the
  baseline does nothing but poll the line status register.
""" % (BENCH_RUNS, MEM_BOOT_TIMEOUT, BOOTS, BOOTS, STREAM_SECONDS, STREAM_ROUNDS)


def notes_slow_machines():
    """How the 486-speed, headless and rtc figures are taken."""
    return """- 486 speed: TCG with `-icount shift=%d,sleep=off`: every guest instruction
  advances guest time by %d ns (~16 MIPS, a fast 486), so guest time is an
  instruction count and the figures repeat exactly from run to run. bench's
  cycles are then virtual ns (cpu_khz ~1,000,000), printed here / %d. urandom
  waits for seeding there (no source credits without input under sleep=off),
  so keys are typed over QMP first. The COM1 rates are `urandom %d bin` and
  `urandom %d` timed by status uptime_ms before and after (the appliance's
  own clock, i.e. guest time), the least of %d runs: when the host reader
  falls behind, QEMU holds THRE clear, the guest idles and guest time jumps
  ahead, so stalls only add.
- no typist: one boot with a 1 MiB raw IDE disk and nothing typed; `sources`
  2 s after the prompt (the timer's warm-up) and %.0f s later; credited is what
  credit=measured granted the source over that stretch. With ea_non_iid on
  PATH, then `samples timer %d`, `samples ata0 %d` and `samples rtc %d` in
  the same boot, judged by `ea_non_iid -i FILE 8` (fewer samples than the
  tool's million: docs/ENTROPY.md quotes longer captures).
- rtc: `urandom %d bin` as under 486 speed, on `-cpu 486` (the rtc timed by
  the PIT latch), with the rtc at its default (512 Hz there) and rtc=off, the
  least of %d runs each; there the rtc's samples find the CPU busy and are
  mixed unmeasured, so the cost is the handler's, as on a 486 serving flat
  out. COM2: /dev/random bytes the host read over %.0f s at the defaults,
  nobody typing.
- an old PC: `-cpu 486 -m 4 -icount shift=8` (~4 MIPS) and `shift=6` (~16),
  `sleep=on`, `-rtc clock=vm`, booted with rtc_jitter=on (docs/PROTOCOL.md),
  so that the meter measures every rtc period as on a real 386/486 while
  guest time stays CPU time; a key over QMP every 125 guest ms; `status`
  back to back for 30 s of guest time, then `urandom 40000 bin` on COM1
  with the keys still coming. loop_max_us and meter_permille are the
  guest's own; the reply gaps are uptime_ms differences, the harness's
  turnaround in them.
""" % ((ICOUNT_SHIFT, NS_PER_INSN, NS_PER_INSN, ICOUNT_BYTES, ICOUNT_BYTES, ICOUNT_TRIES,
         HEADLESS_SECONDS)
        + tuple(n for _, n in HEADLESS_SOURCES)
        + (ICOUNT_BYTES, ICOUNT_TRIES, HEADLESS_RANDOM_SECONDS))


def render(rows, f, acc, failures, stamp):
    table = ["| group | measurement | value | target | verdict |", "|---|---|---|---|---|"]
    for g, w, v, t, vd in rows:
        table.append("| %s | %s | %s | %s | %s |" % (g, w.replace("|", "\\|"), v, t, vd))
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = ["# rand86 benchmarks", "",
           "Written by `make bench` (scripts/bench.py); measurements, not tests: no",
           "test fails on these figures.", "",
           "- date: %s" % now.strftime("%Y-%m-%d %H:%M UTC"),
           "- host CPU: %s (%d CPUs)" % (cpu_model(), os.cpu_count() or 0),
           "- accelerator: %s (%s)" % (acc, qemu_version())]
    if f["b"]:
        doc.append("- guest clock: %s, cpu_khz %d" % ("TSC" if f["b"]["unit"] == "cycles" else "PIT",
                                                     f["b"]["cpu_khz"]))
    doc += stamp + ["  (scripts/provenance.py: what these figures depend on; the suite fails "
                    "when one changes)"]
    doc += ["", TARGETS, ""] + table + ["", method_notes()]
    if f["host"]:
        doc += ["`make bench-host` output:", "", "```", f["host"][1], "```", ""]
    if failures:
        doc += ["Measurements that could not be taken:", ""] + ["- " + x for x in failures] + [""]
    return "\n".join(doc), "\n".join(table)
