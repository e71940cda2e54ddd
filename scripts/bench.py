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
  (k) NE2000 floods of every length 1..1600 for FLOOD_SECONDS on the ISA
      and the PCI card: the share of frames counted, and the guest ms
      (uptime_ms) from the flood's end until 40 of 50 normal frames count.
Prints the table; writes it with the date, CPU model and accelerator to
--out. Exits non-zero only when a measurement could not be taken.
Standard library only.

This file judges the figures and writes the document; taking them is
the work of the modules beside it, each importing only those above it:
  bench_build    (b), (d): no machine; Failed, which every measurement raises
  bench_speed    (a), (e)-(h) and the PIT clock: rand86 timed under QEMU
  bench_sources  (i)-(k) and the Linux guest: what inputs and clients get
"""
import argparse
import datetime
import os
import shutil
import sys

from rand86 import ELF, accel, cpu_model, qemu_version
from scripts.bench_build import host_table, image_size, size_by_object
from scripts.bench_sources import (FLOOD_SECONDS, GUEST_BYTES, HEADLESS_SECONDS, HEADLESS_SOURCES,
                                   TYPIST_KEYS, flood_figures, guest_rates, headless_figures,
                                   typist_figures)
from scripts.bench_speed import (BENCH_RUNS, BOOTS, HEADLESS_RANDOM_SECONDS, ICOUNT_BYTES,
                                 ICOUNT_SHIFT, ICOUNT_TRIES, MEM_BOOT_TIMEOUT, MEM_TRIES,
                                 NS_PER_INSN, STREAM_SECONDS, URANDOM_486_BYTES, com1_stream_rate,
                                 com2_random_rate, com2_stream_rate, icount_figures,
                                 pit_clock_ratio, qemu_bench, rtc_cost_486, smallest_mem,
                                 urandom_486_figures, wall_to_prompt)

LINE_115200 = 11520            # bytes/s on a 115200-baud 8N1 line (10 bits a byte)


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
        "com1": take("COM1 stream urandom", com1_stream_rate),
        "com2": take("COM2 stream=urandom", com2_stream_rate),
        "ic": take("icount figures", icount_figures),
        "rtc486": take("rtc at 16 MIPS", rtc_cost_486),
        "u486": take("urandom on a 486 at 4 and 16 MIPS", urandom_486_figures),
        "com2random": take("COM2 stream=random headless", com2_random_rate),
        "hl": take("headless sources", headless_figures),
        "pit": take("PIT clock at hz=1000", pit_clock_ratio),
        "guest": take("Linux guest over EGD", guest_rates),
        "typists": take("typists over QMP", typist_figures),
        "flood": take("NE2000 flood", flood_figures),
    }


# ---------------------------------------------------------------- judge
NA = "not measured"


def verdict(ok):
    return "met" if ok else "**not met**"


class Rows(list):
    """(group, measurement, value, target, verdict) rows of the table."""

    def add(self, group, what, value, target="", ok=None, note=None):
        self.append((group, what, value, target, note if note else ("" if ok is None else verdict(ok))))


def judge_qemu_bench(rows, b, acc):
    if not b:
        return rows.add("QEMU bench", "bench", NA)
    u, khz, on_kvm = b["unit"], b["cpu_khz"], acc == "kvm"
    cyc = u == "cycles"

    def us(v):
        return "%.2f µs" % (v * 1000.0 / khz)

    rows.add("QEMU bench", "add_timing_entropy (one trusted sample, 2002 path)",
             "%d %s (%s)" % (b["add_timing_entropy"], u, us(b["add_timing_entropy"])),
             "< 150 cycles on KVM", cyc and on_kvm and b["add_timing_entropy"] < 150,
             None if on_kvm and cyc else "not judged: %s, not KVM" % acc)
    rows.add("QEMU bench", "add_timing_entropy_1999 (v1.89 path: estimate, mix 2 words, credit)",
             "%d %s" % (b["add_timing_entropy_1999"], u))
    for k in ("xymoron_estimate", "tso_estimate"):
        if k in b:
            rows.add("QEMU bench", k + " (estimator alone)", "%d %s" % (b[k], u))
    rows.add("QEMU bench", "batch_flush (full 256-sample batch)",
             "%d %s (%s)" % (b["batch_flush"], u, us(b["batch_flush"])),
             "< 50 µs on KVM", b["batch_flush"] * 1000.0 / khz < 50,
             None if on_kvm else "not judged: %s, not KVM" % acc)
    rows.add("QEMU bench", "extract_per_byte (urandom, credit=measured: ChaCha20, 256-byte reads)",
             "%d %s" % (b["extract_per_byte"], u))
    if "extract_per_byte_v189" in b:
        rows.add("QEMU bench", "extract_per_byte_v189 (urandom, credit=xymoron/tso: v1.89's SHA-1)",
                 "%d %s" % (b["extract_per_byte_v189"], u))
    rows.add("QEMU bench", "boot_to_prompt_ms (kernel's own clock, from the start of TSC calibration)",
             "%d ms" % b["boot_to_prompt_ms"])
    path_ratio = b["add_timing_entropy"] / max(1, b["add_timing_entropy_1999"])
    rows.add("2002/1999", "QEMU: sample path, add_timing_entropy / add_timing_entropy_1999",
             "%.2f" % path_ratio, "≤ 1.5", path_ratio <= 1.5)
    if "xymoron_estimate" in b and "tso_estimate" in b:
        rows.add("2002/1999", "QEMU: estimator alone, xymoron / tso",
                 "%.2f" % (b["xymoron_estimate"] / max(1, b["tso_estimate"])))


def judge_host(rows, host):
    if not host:
        return rows.add("host callgrind", "table", NA)
    h, _ = host
    for k, v in h.items():
        if not k.startswith("ratio"):
            rows.add("host callgrind", k, "%.1f instructions" % v)
    if h.get("tso_estimate"):
        rows.add("2002/1999", "host: estimator alone, xymoron_estimate / tso_estimate",
                 "%.2f" % (h["xymoron_estimate"] / h["tso_estimate"]))
        rows.add("2002/1999", "host: whole 2002 sample path / 1999 estimator alone "
                 "(no 1999 path in the host bench)", "%.2f" % (h["add_timing_entropy"] / h["tso_estimate"]))


def judge_image_and_boot(rows, f, acc, failures):
    size, mem, wall = f["size"], f["mem"], f["wall"]
    if size:
        td = size["text"] + size["data"]
        rows.add("image", "text / data / bss (bytes)", "%d / %d / %d" % (size["text"], size["data"], size["bss"]))
        rows.add("image", "text + data", "%d bytes (%.1f KiB)" % (td, td / 1024.0), "≤ 72 KiB",
                 td <= 72 * 1024)
    else:
        rows.add("image", "size", NA)
    if mem and mem[0] is None:
        failures.append("smallest -m: no size up to %d MiB booted" % MEM_TRIES[-1])
        rows.add("boot", "smallest -m that reaches the prompt", "none up to %d MiB" % MEM_TRIES[-1],
                 "boots in 4 MiB", False)
    elif mem:
        rows.add("boot", "smallest -m that reaches the prompt", "%d MiB" % mem[0], "boots in 4 MiB", mem[0] <= 4)
    for mm, note in (mem[1] if mem else []):
        rows.add("boot", "  -m %d" % mm, note)
    if wall:
        med, times = wall
        rows.add("boot", "QEMU start to prompt, wall (median of %d: %s)" % (
            len(times), ", ".join("%.3f" % t for t in times)),
            "%.3f s (%s)" % (med, acc), "< 1 s under TCG", med < 1.0,
            None if acc == "tcg" else "not judged: %s, not TCG" % acc)
    if f["pit"] is not None:
        rows.add("boot", "PIT clock (-cpu 486, hz=1000): guest ms per host ms over 4 s",
                 "%.4f" % f["pit"])


def judge_guest(rows, g):
    if not g:
        return rows.add("EGD client", "Linux guest's virtio-rng", NA)
    for what, v in (("nobody typing", g[0]), ("keys typed over QMP", g[1])):
        rows.add("EGD client", "Linux guest reading /dev/hwrng via virtio-rng and rng-egd, %s" % what,
                 "%.0f bytes/s (%d bytes)" % (v, GUEST_BYTES))


def judge_urandom(rows, f):
    b = f["b"]
    for what, v in (("urandom on COM1 (`stream urandom`), as the host receives it", f["com1"]),
                    ("urandom on COM2 (stream=urandom), as the host receives it", f["com2"]),
                    ("urandom inside the appliance (bench urandom_bytes_per_s)",
                     b["urandom_bytes_per_s"] if b else None)):
        if v is None:
            rows.add("urandom", what, NA)
        else:
            r = v / LINE_115200
            rows.add("urandom", what, "%.0f bytes/s = %.1f× a 115200 line" % (v, r), "≥ 50× a 115200 line", r >= 50)


def judge_486(rows, ic):
    if not ic:
        return rows.add("486 speed", "icount figures", NA)
    g = "486 speed (icount %d)" % ICOUNT_SHIFT
    rows.add(g, "add_timing_entropy (one trusted sample, interrupt path)", "%.0f instructions" % ic["add_timing_entropy"])
    rows.add(g, "batch_flush (full 256-sample batch)", "%.0f instructions" % ic["batch_flush"])
    rows.add(g, "extract_per_byte (urandom path, bench)", "%.0f instructions" % ic["extract_per_byte"])
    rows.add(g, "rtc_period (the rtc handler's CMOS read and sample, bench)",
             "%.0f instructions, %.1f%% of 16 MIPS at 1024 Hz (the PIT clock's default), %.1f%% at 4096" % (
                 ic["rtc_period"], ic["rtc_period"] * 1024 * 100.0 / (1e9 / NS_PER_INSN),
                 ic["rtc_period"] * 4096 * 100.0 / (1e9 / NS_PER_INSN)))
    rows.add(g, "urandom inside the appliance (bench urandom_bytes_per_s)",
             "%d bytes/s = %.2f× a 115200 line" % (ic["bench_bps"], ic["bench_bps"] / LINE_115200))
    r = ic["bin_bps"] / LINE_115200
    rows.add(g, "`urandom %d bin` on COM1, UART included (default CPU)" % ICOUNT_BYTES,
             "%.0f bytes/s = %.2f× a 115200 line, %.0f instructions a byte" % (ic["bin_bps"], r, ic["bin_insn"]),
             "≥ 1.5× (≤ ~925 instructions a byte)", r >= 1.5)
    rows.add(g, "`urandom %d` (hex) on COM1, bytes of randomness" % ICOUNT_BYTES,
             "%.0f bytes/s = %.2f× a 115200 line, %.0f instructions a byte" % (
                 ic["hex_bps"], ic["hex_bps"] / LINE_115200, ic["hex_insn"]))


def judge_u486(rows, u):
    g = "urandom on a 486"
    if not u:
        return rows.add(g, "`urandom %d bin`" % URANDOM_486_BYTES, NA)
    for shift, mips, target in ((8, 4, 1.5), (6, 16, 4.0)):
        r = u[shift] / LINE_115200
        rows.add(g, "-cpu 486 -icount shift=%d (~%d MIPS): `urandom %d bin` on COM1, UART included"
                 % (shift, mips, URANDOM_486_BYTES),
                 "%.0f bytes/s = %.2f× a 115200 line" % (u[shift], r), "≥ %.1f×" % target, r >= target)


def judge_host_urandom(rows, host):
    if not host:
        return
    h, _ = host
    for n in (256, 4096):
        k, old = "urandom_per_byte_%d" % n, "urandom_v189_per_byte_%d" % n
        if k in h and old in h:
            rows.add("host callgrind", "urandom per byte, %d-byte reads: ChaCha20 (v1.89's)" % n,
                     "%.1f (%.1f) instructions" % (h[k], h[old]), "≤ 40", h[k] <= 40)


def judge_objects(rows, objs):
    if not objs:
        return rows.add("image by object", "text + data", NA)
    for obj, n in objs:
        rows.add("image by object", obj, "%d bytes" % n)
    rows.add("image by object", "sum (the map's input sections; alignment fill not counted)",
             "%d bytes" % sum(n for _, n in objs))


def judge_rtc(rows, c486, com2):
    g = "rtc"
    if c486:
        r, off = c486["default"] / LINE_115200, c486["off"] / LINE_115200
        rows.add(g, "-cpu 486 at 16 MIPS: `urandom %d bin` on COM1, rtc at its default (rtc=off: %.2f×)"
                 % (ICOUNT_BYTES, off), "%.2f× a 115200 line (%.2f of rtc=off)" % (r, r / off),
                 "≥ 1.5× a 115200 line", r >= 1.5)
    else:
        rows.add(g, "-cpu 486 at 16 MIPS with the rtc", NA)
    if com2 is None:
        return rows.add(g, "COM2 stream=random, nobody typing", NA)
    rows.add(g, "COM2 stream=random at the defaults, nobody typing, %.0f s" % HEADLESS_RANDOM_SECONDS,
             "%.0f bytes/s" % com2, "≥ 1024 bytes/s", com2 >= 1024)


def judge_headless(rows, hl):
    if not hl:
        return rows.add("no typist", "headless sources", NA)
    for name, f in hl.items():
        g = "no typist"
        rows.add(g, "%s: credited bits/s, idle %.0f s (%.1f samples/s)" % (name, HEADLESS_SECONDS, f["events_ps"]),
                 "%.1f bits/s" % f["bps"])
        ea = ("; ea_non_iid %.3f on %d samples (credited / 90B = %.2f)"
              % (f["ea"], f["n"], f["per_sample"] / f["ea"]) if f["ea"] else
              "; ea_non_iid not on PATH" if not shutil.which("ea_non_iid") else "; ea_non_iid gave no figure")
        rows.add(g, "%s: credited bits per sample vs h_milli (live) vs SP 800-90B" % name,
                 "%.3f vs %.3f (health %s)%s" % (f["per_sample"], f["h_milli"] / 1000.0, f["health"], ea))


def judge_typists(rows, ty):
    if not ty:
        return rows.add("typists", "metronome and irregular", NA)
    for name, k in ty.items():
        rows.add("typists", "%s, %d keys over QMP: Xymoron bits / Ts'o's / credited (measured), h_milli"
                 % (name, TYPIST_KEYS), "%s / %s / %s, %s" % (k["bits"], k["tso_bits"], k["credited"],
                                                               k["h_milli"]))


def judge_flood(rows, fl):
    if not fl:
        return rows.add("NE2000", "flood of every length", NA)
    for card, f in fl.items():
        rows.add("NE2000", "%s: %.0f s of every length 1..1600: counted of sent; then 40 of 50 normal "
                 "frames counted after" % (card, FLOOD_SECONDS),
                 "%d of %d (%.0f%%), %d resets; %d guest ms" % (
                     f["counted"], f["sent"], 100.0 * f["counted"] / max(1, f["sent"]), int(f["resets"]),
                     f["ms"]), "< 1000 ms", f["ms"] < 1000)


def judge(f, acc, failures):
    rows = Rows()
    judge_qemu_bench(rows, f["b"], acc)
    judge_host(rows, f["host"])
    judge_host_urandom(rows, f["host"])
    judge_image_and_boot(rows, f, acc, failures)
    judge_urandom(rows, f)
    judge_guest(rows, f["guest"])
    judge_486(rows, f["ic"])
    judge_rtc(rows, f["rtc486"], f["com2random"])
    judge_headless(rows, f["hl"])
    judge_u486(rows, f["u486"])
    judge_objects(rows, f["objs"])
    judge_typists(rows, f.get("typists"))
    judge_flood(rows, f.get("flood"))
    return rows


# ---------------------------------------------------------------- render
TARGETS = """Targets: one trusted sample ≤ 1.5× the 1999 sample and < 150
cycles on KVM; full-batch flush < 50 µs on KVM; urandom ≥ 50× a 115200 line;
urandom at 16 MIPS ≥ 1.5× a line; on -cpu 486 `urandom 40000 bin` ≥ 1.5× a
line at 4 MIPS and ≥ 4× at 16 MIPS; urandom ≤ 40 host instructions a byte;
boots in 4 MiB; text+data ≤ 72 KiB; QEMU
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
- PIT clock: uptime_ms against host time at hz=1000 on -cpu 486, where ticks
  that QEMU delivers late or merges are restored from channel 2; host time,
  so reported here, not tested.
- urandom rates: bytes the host read from QEMU's socket chardev over %.0f s once
  the stream was flowing. QEMU's 16550 does not pace bytes at the baud rate,
  so these are what the emulated UART and the appliance's main loop sustain.
""" % (BENCH_RUNS, MEM_BOOT_TIMEOUT, BOOTS, STREAM_SECONDS)


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
  the PIT latch), with the rtc at its default (1024 Hz there) and rtc=off, the
  least of %d runs each; there the rtc's samples find the CPU busy and are
  mixed unmeasured, so the cost is the handler's, as on a 486 serving flat
  out. COM2: /dev/random bytes the host read over %.0f s at the defaults,
  nobody typing.
""" % ((ICOUNT_SHIFT, NS_PER_INSN, NS_PER_INSN, ICOUNT_BYTES, ICOUNT_BYTES, ICOUNT_TRIES,
         HEADLESS_SECONDS)
        + tuple(n for _, n in HEADLESS_SOURCES)
        + (ICOUNT_BYTES, ICOUNT_TRIES, HEADLESS_RANDOM_SECONDS))


def render(rows, f, acc, failures):
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
    doc += ["", TARGETS, ""] + table + ["", method_notes()]
    if f["host"]:
        doc += ["`make bench-host` output:", "", "```", f["host"][1], "```", ""]
    if failures:
        doc += ["Measurements that could not be taken:", ""] + ["- " + x for x in failures] + [""]
    return "\n".join(doc), "\n".join(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-table", required=True, help="output of `make bench-host`")
    ap.add_argument("--out", required=True, help="markdown file to write")
    args = ap.parse_args()
    if not os.path.exists(ELF):
        sys.exit("bench: %s missing: run make first" % ELF)
    acc, failures = accel(), []
    figures = measure(args.host_table, failures)
    rows = judge(figures, acc, failures)
    doc, table = render(rows, figures, acc, failures)
    print(table)
    with open(args.out, "w") as f:
        f.write(doc)
    print("bench: wrote %s" % args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
