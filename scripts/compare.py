#!/usr/bin/python3
"""`make compare`: credited bits per event vs the meter and ea_non_iid.

What rand86 credits per event, next to its on-board SP 800-90B meter and
NIST's ea_non_iid, on the same input.

Boots rand86 under QEMU once per scenario (KVM when usable, else TCG, as
the harness's accel() decides; RAND86_ACCEL=tcg forces TCG), default
options (credit=measured), drives input over QMP, a raw disk and a dgram
network. Per scenario with a main source: WARMUP_EVENTS events of it
first (the meter credits nothing in its first 64 samples), then `sources`
before and after MEASURE_EVENTS more (credited per event, Xymoron's and
the 1999 estimate per event, h_milli and health at the end); then
`samples SOURCE N` (N = CAPTURE, DISK_CAPTURE or RTC_CAPTURE) while the
same input pattern runs again, judged by `ea_non_iid -v FILE 8` when the
tool is on PATH (its columns say `-` otherwise, and the capture is
skipped unless --keep asks for it).
The rtc scenarios count per measured sample (events - skipped: a period
the CPU was busy for, or one not a period long, is mixed but never
measured, captured or credited), over RTC_WARMUP and RTC_MEASURE events.
Writes docs/compare.md and docs/compare.png.

Injected QEMU input is timed by this script and the host, not by a
person at a keyboard: the numbers compare the estimators on the same
samples, they do not measure a real keyboard's entropy.

Standard library only, plus gnuplot for the plot.
    /usr/bin/python3 scripts/compare.py [--out-md F] [--out-png F] [--only NAME,...]
Re-measure one scenario against another build, keeping the capture (.bin),
ea_non_iid's full output and the figures (.json) in DIR, and compare.md
and compare.png there instead of docs/:
    RAND86_ELF=build/rand86.elf scripts/compare.py --only irregular --keep DIR
"""
import argparse
import collections
import datetime
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from rand86 import ROOT, ELF, Rand86, Wire, accel, cpu_model, key_event, qemu_version
from rand86 import samples2bin

KEYS = ["a", "s", "d", "f", "j", "k", "l", "semicolon", "e", "r"]
WARMUP_EVENTS = 128       # of the main source, before the measured stretch
MEASURE_EVENTS = 1200     # of the main source between the two `sources` reads
CAPTURE = 4200            # samples for ea_non_iid: from 4,096 it runs MultiMCW literal too
DISK_CAPTURE = 2000       # ata0 reads ~9 times a second: ~4 minutes (no literal MultiMCW)
# The rtc: ~3,500 measured samples a second under TCG (4096 Hz less the
# busy periods). A warm-up of 4096 events (~1 s) fills the meter's
# 1024-symbol window and runs its full assessment; the stretch of 40,000
# (~10 s) holds ~70 full assessments, where 1,200 would be one third of
# a second, less than one POLL. One capture of RNG_CAPTURE_RING (4096)
# samples: however slowly COM1 prints (~600 lines a second at 115200
# baud; QEMU's socket took 4096 in ~1.2 s), the ring holds the first
# 4096, so they are consecutive measured samples, and any the capture
# reports dropped came after them. The tool runs every estimator at 4096.
CAPTURE_RING = 4096       # RNG_CAPTURE_RING, entropy/entropy.h
RTC_WARMUP = 4096
RTC_MEASURE = 40000
RTC_CAPTURE = CAPTURE_RING
MEAN_GAP = 0.050          # s: the steady beat and the mean of the exponential gaps
POLL = 0.5                # s between `sources` reads while waiting for events
CAPTURE_LIMIT = 900       # s: give up driving a capture after this


# ---------------------------------------------------------------- drivers
# driver(vm, rnd, ctx, stop): drive input until stop() is true.

def disk_image(tmp):
    path = os.path.join(tmp, "disk.img")
    with open(path, "wb") as f:
        f.truncate(1024 * 1024)
    return ["-drive", "file=%s,format=raw,if=ide,index=0" % path]


def key_edge(vm, qcode, down):
    vm.qmp.execute("input-send-event", events=[key_event(qcode, down)])


def wait_until(t):
    left = t - time.monotonic()
    if left > 0:
        time.sleep(left)


def tap(vm, i):
    """Press, then release on the next QMP call (~1 ms later)."""
    key_edge(vm, KEYS[i % len(KEYS)], True)
    key_edge(vm, KEYS[i % len(KEYS)], False)


def taps(vm, stop, gap):
    """One tap, the next press gap() s after this one (no drift)."""
    i, t = 0, time.monotonic()
    while not stop():
        tap(vm, i)
        i += 1
        t += gap()
        wait_until(t)


def steady(vm, rnd, ctx, stop):
    """A metronome typist: one tap every MEAN_GAP s."""
    taps(vm, stop, lambda: MEAN_GAP)


def irregular(vm, rnd, ctx, stop):
    taps(vm, stop, lambda: rnd.expovariate(1 / MEAN_GAP))


def burst(vm, rnd, ctx, stop):
    """8 taps back to back (16 interrupts close together), then a pause."""
    while not stop():
        for i in range(8):
            tap(vm, i)
        time.sleep(rnd.expovariate(1 / MEAN_GAP))


def mouse(vm, rnd, ctx, stop):
    t = time.monotonic()
    while not stop():
        vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
        t += rnd.expovariate(1 / MEAN_GAP)
        wait_until(t)


def idle(vm, rnd, ctx, stop):
    """Nobody types: the source (timer, the disk's own reads) runs alone."""
    while not stop():
        time.sleep(0.2)


def network(vm, rnd, ctx, stop):
    ctx["wire"].stop.clear()
    ctx["wire"].flood(seconds=6.0)


def everything(vm, rnd, ctx, stop):
    """Irregular key edges and mouse moves with a disk and a network flood."""
    ctx["wire"].stop.clear()
    sender = threading.Thread(target=ctx["wire"].flood, kwargs={"seconds": 8.0})
    sender.start()
    try:
        down, k, t = True, 0, time.monotonic()
        while not stop():
            if rnd.random() < 0.5:
                key_edge(vm, KEYS[k % len(KEYS)], down)
                k, down = k + (not down), not down
            else:
                vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
            t += rnd.uniform(0.02, 0.14)
            wait_until(t)
        if not down:                       # leave no key held
            key_edge(vm, KEYS[k % len(KEYS)], False)
    finally:
        ctx["wire"].stop.set()
        sender.join()


Scenario = collections.namedtuple("Scenario", "name desc driver source cpu disk net capture "
                                  "seconds warmup measure per_measured")


def scenario(name, desc, driver, source=None, cpu=None, disk=False, net=False,
             capture=CAPTURE, seconds=None, warmup=WARMUP_EVENTS, measure=MEASURE_EVENTS,
             per_measured=False):
    """source: the main source (measured by events, captured for ea_non_iid);
    none: measured over `seconds` of driving, no capture. per_measured:
    divide by the events that were measured (events - skipped), not all."""
    return Scenario(name, desc, driver, source, cpu, disk, net, capture, seconds,
                    warmup, measure, per_measured)


SCENARIOS = [
    scenario("steady", "taps (press, release ~1 ms later), one press every %d ms"
             % (MEAN_GAP * 1000), steady, "keyboard"),
    scenario("irregular", "taps, press-to-press gaps exponential, mean %d ms"
             % (MEAN_GAP * 1000), irregular, "keyboard"),
    scenario("burst", "bursts of 8 taps back to back (16 interrupts), then an exponential "
             "gap, mean %d ms" % (MEAN_GAP * 1000), burst, "keyboard"),
    scenario("mouse", "mouse moves (dx, dy in -20..20), exponential gaps, mean %d ms"
             % (MEAN_GAP * 1000), mouse, "mouse"),
    scenario("486", "-cpu 486 (no TSC: the PIT clock), irregular taps as above", irregular,
             "keyboard", cpu="486"),
    scenario("timer", "nobody typing, hz=100: the PIT interrupt", idle, "timer"),
    scenario("disk", "1 MiB raw IDE disk, idle: the driver's own reads (~9 a second)", idle,
             "ata0", disk=True, capture=DISK_CAPTURE),
    scenario("network", "ne2k_isa, broadcast UDP frames in bursts of 25 with 2 ms gaps for 6 s",
             network, net=True, seconds=6.0),
    scenario("all", "irregular key edges and mouse moves (gaps 20..140 ms), disk and network "
             "flood together, 20 s", everything, disk=True, net=True, seconds=20.0),
    # last, so the scenarios above keep their seeds (2002 + index)
    scenario("rtc", "nobody typing, rtc=4096: the RTC's periodic interrupt timed by the TSC",
             idle, "rtc", capture=RTC_CAPTURE, warmup=RTC_WARMUP, measure=RTC_MEASURE,
             per_measured=True),
    scenario("rtc486", "-cpu 486, nobody typing, rtc=4096: the RTC's periodic interrupt timed "
             "by the PIT latch", idle, "rtc", cpu="486", capture=RTC_CAPTURE,
             warmup=RTC_WARMUP, measure=RTC_MEASURE, per_measured=True),
]


# ---------------------------------------------------------------- measuring

def wait_quiet(vm, names, timeout=10):
    """Until the event counts of `names` stop moving (queued frames drained)."""
    deadline = time.monotonic() + timeout
    last = vm.sources()
    while time.monotonic() < deadline:
        time.sleep(0.4)
        cur = vm.sources()
        if all(cur.get(n, {}).get("events") == last.get(n, {}).get("events") for n in names):
            return cur
        last = cur
    return last


def events_reached(vm, source, want):
    """A stop() for drivers: true once `source` has `want` more events than
    now (polls `sources` every POLL s at most)."""
    start = int(vm.sources()[source]["events"])
    seen = {"t": time.monotonic(), "n": start}

    def stop():
        if time.monotonic() - seen["t"] >= POLL:
            seen["t"], seen["n"] = time.monotonic(), int(vm.sources()[source]["events"])
        return seen["n"] - start >= want
    return stop


def time_up(seconds):
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def drive_window(vm, sc, rnd, ctx):
    """Warm-up, then drive the measured stretch; `sources` before and after."""
    if sc.source:
        sc.driver(vm, rnd, ctx, events_reached(vm, sc.source, sc.warmup))
        time.sleep(0.3)
    src0, t0 = vm.sources(), time.monotonic()
    if sc.source:
        sc.driver(vm, rnd, ctx, events_reached(vm, sc.source, sc.measure))
    else:
        sc.driver(vm, rnd, ctx, time_up(sc.seconds))
    wall = time.monotonic() - t0
    time.sleep(0.3)
    quiet = [n for n in src0 if n != "serial"]
    src1 = wait_quiet(vm, quiet) if sc.net else vm.sources()
    return src0, src1, wall


def capture(vm, sc, rnd, ctx):
    """`samples SOURCE N` while the driver runs again (the reader thread
    drains COM1 meanwhile). Returns (console text, samples, dropped)."""
    vm.send("samples %s %d\r" % (sc.source, sc.capture))
    vm.com1.expect(rb"# capturing [^\r\n]*\r\n", 20)
    limit = time_up(CAPTURE_LIMIT)
    done = lambda: b"rand86> " in vm.com1.unconsumed()
    sc.driver(vm, rnd, ctx, lambda: done() or limit())
    if not done():
        vm.send(b"\x03")                   # too slow: keep what arrived
    m = vm.com1.expect(rb"(.*?)\r\n(ok|error: [^\r\n]*)\r\nrand86> ", 60)
    text = m.group(1).decode(errors="replace")
    samples, _ = samples2bin.parse(text.split("\r\n"))
    dropped = re.findall(r"# (\d+) samples arrived faster", text)
    return text, samples, int(dropped[0]) if dropped else 0


def judge(sc, text, samples, dropped, keep):
    """ea_non_iid on the capture (in `keep` or a temporary directory)."""
    d = keep or tempfile.mkdtemp(prefix="rand86-compare-ea-")
    base = os.path.join(d, sc.name)
    with open(base + ".bin", "wb") as f:
        f.write(samples2bin.symbols(samples))
    out = samples2bin.run_ea_non_iid(base + ".bin", timeout=1200)
    if keep:
        with open(base + ".capture.txt", "w") as f:
            f.write(text)
        if out is not None:
            with open(base + ".ea_non_iid.txt", "w") as f:
                f.write("$ ea_non_iid -v %s.bin 8\n%s" % (sc.name, out))
    else:
        os.unlink(base + ".bin")
        os.rmdir(d)
    return {"h": samples2bin.ea_min(out), "n": len(samples), "dropped": dropped,
            "binding": samples2bin.ea_binding(out), "estimates": samples2bin.ea_estimates(out)}


def source_rows(src0, src1, sc, ea):
    """Per source, the change over the stretch. `per` is what the figures
    are divided by: events, or for sc.per_measured the main source's
    measured samples (`bits`, `tso_bits` and `credited` only ever count
    those: a skipped sample is mixed and nothing more)."""
    rows = []
    for src, f1 in src1.items():
        if src == "serial":                # the script's own console commands
            continue
        f0 = src0.get(src, {})
        d = {k: int(f1.get(k, 0)) - int(f0.get(k, 0))
             for k in ("events", "bits", "tso_bits", "credited", "skipped", "unmeasured")}
        if d["events"] <= 0:
            continue
        main = src == sc.source
        d.update(source=src, trust=f1.get("trust", "?"), h_milli=f1.get("h_milli"),
                 health=f1.get("health"), ea=ea if main else None,
                 per=d["events"] - d["skipped"] if main and sc.per_measured else d["events"])
        rows.append(d)
    return rows


def boot_extra(sc, tmp, ctx):
    extra = disk_image(tmp) if sc.disk else []
    if sc.net:
        ctx["wire"] = Wire()
        extra += ctx["wire"].netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
    return extra


def run_scenario(sc, seed, keep=None):
    """One boot: the measured stretch, then (with ea_non_iid or --keep) a capture."""
    tmp = tempfile.mkdtemp(prefix="rand86-compare-")
    ctx, ea = {}, None
    try:
        with Rand86(extra=boot_extra(sc, tmp, ctx), cpu=sc.cpu) as vm:
            st0 = vm.status()
            src0, src1, wall = drive_window(vm, sc, random.Random(seed), ctx)
            st1 = vm.status()
            if sc.source and (keep or shutil.which("ea_non_iid")):
                got = capture(vm, sc, random.Random(seed + 1000), ctx)
                ea = judge(sc, *got, keep)
    finally:
        if "wire" in ctx:
            ctx["wire"].close()
        shutil.rmtree(tmp, ignore_errors=True)
    info = {
        "wall_s": wall,
        "credited_bits": int(st1["credited_bits"]) - int(st0["credited_bits"]),
        "frames_sent": ctx["wire"].sent if "wire" in ctx else None,
    }
    return source_rows(src0, src1, sc, ea), info


# ---------------------------------------------------------------- output

def per_event(bits, events):
    return "%.2f" % (bits / events) if events else "-"


def md_header(meta):
    return [
        "# Credited bits per event, the on-board meter and SP 800-90B, per scenario", "",
        "Written by `make compare` (scripts/compare.py); do not edit by hand.", "",
        "- date: %s" % meta["date"],
        "- machine: %s (%d CPUs), host %s" % (meta["cpu"], meta["ncpu"], meta["host_os"]),
        "- accelerator: %s" % meta["accel"],
        "- QEMU: %s" % meta["qemu"],
        "- rand86: %s, default boot options (`credit=measured`, `hz=100`)" % meta["rev"],
        "- run time: %.0f s" % meta["elapsed"],
        "- ea_non_iid: %s" % (meta["ea"] or "not on PATH (its columns say `-`)"), "",
        "Each scenario is a fresh boot. With a main source: %d events of it as a"
        % WARMUP_EVENTS,
        "warm-up (the meter credits nothing in its first 64 samples), then the change",
        "in `sources` over %d more; without one (network, all), over the time given."
        % MEASURE_EVENTS,
        "The rtc scenarios: %d and %d events, and the rtc's figures are per measured"
        % (RTC_WARMUP, RTC_MEASURE),
        "sample (events - skipped, the count in brackets): a period that found the",
        "CPU busy, or was not one period long, is mixed but never measured, captured",
        "or credited.",
        "All three estimates run on every sample: `xymoron/ev` is Xymoron's 2002",
        "estimate per event (what credit=xymoron credits), `tso/ev` the 1999 v1.89",
        "one, `credited/ev` what credit=measured (in force) granted: Xymoron's bits",
        "capped by the meter and its health tests. `h` is the meter's estimate at",
        "the end (h_milli / 1000: bits per 8-bit symbol over the source's last 1024).",
        "`90B` is `ea_non_iid -v FILE 8` on a separate `samples` capture of the main",
        "source (n samples, the same input pattern driven again; symbol = low 8 bits",
        "of the shifted delta, the meter's symbol), `set by` the estimator giving",
        "min(H_original, 8 x H_bitstring), and `credited/90B` the ratio. Untrusted",
        "sources are never credited; the `serial` source (the script's own console",
        "commands) is left out.", "",
        "Input is injected over QMP: its timing is this script's and the host's,",
        "not a person's. Compare the estimators with each other, not with a real",
        "keyboard.", ""]


def md_row(name, r):
    tr = r["trust"] == "trusted"
    h = "%.3f" % (int(r["h_milli"]) / 1000) if r["h_milli"] is not None else "-"
    ea, ratio, by = "-", "-", "-"
    if r["ea"] and r["ea"]["h"]:
        ea = "%.3f (%d)" % (r["ea"]["h"], r["ea"]["n"])
        ratio = "%.2f" % (r["credited"] / r["per"] / r["ea"]["h"]) if r["per"] else "-"
        by = r["ea"]["binding"] or "-"
    events = "%d" % r["events"]
    if r["per"] != r["events"]:
        events += " (%d measured)" % r["per"]
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        name, r["source"], r["trust"], events,
        per_event(r["bits"], r["per"]) if tr else "-",
        per_event(r["tso_bits"], r["per"]), per_event(r["credited"], r["per"]),
        h, r["health"] or "-", ea, ratio, by)


def write_md(path, results, meta, png_name):
    L = md_header(meta)
    L.append("| scenario | source | trust | events | xymoron/ev | tso/ev | credited/ev | h | "
             "health | 90B (n) | credited/90B | 90B set by |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|")
    for name, desc, rows, info in results:
        if not rows:
            L.append("| %s | (no events) | | 0 | | | | | | | | |" % name)
        for i, r in enumerate(rows):
            L.append(md_row(name if i == 0 else "", r))
    L += ["", "Scenarios:", ""]
    for name, desc, rows, info in results:
        extra = ""
        if info["frames_sent"] is not None:
            extra = "; %d frames sent" % info["frames_sent"]
        dropped = [r["ea"] for r in rows if r["ea"] and r["ea"]["dropped"]]
        if dropped:
            extra += "; `samples` dropped %d it could not print" % dropped[0]["dropped"]
            if dropped[0]["n"] <= CAPTURE_RING:
                extra += ", all after the capture's last (it is consecutive)"
        L.append("- **%s**: %s (measured stretch %.1f s%s)." % (name, desc, info["wall_s"], extra))
    L += ["", "![bits per event](%s)" % png_name, ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def plot_data(path, results):
    """One line per source and scenario: Xymoron, credited and the meter's h
    per event, and ea_non_iid (0 when not run). Returns the line count."""
    n = 0
    with open(path, "w") as f:
        for name, desc, rows, info in results:
            for r in rows:
                ev = r["per"] or r["events"]
                ea = r["ea"]["h"] if r["ea"] and r["ea"]["h"] else 0.0
                f.write('"%s\\n%s" %.3f %.3f %.3f %.3f\n' % (
                    name, r["source"], r["bits"] / ev, r["credited"] / ev,
                    int(r["h_milli"] or 0) / 1000, ea))
                n += 1
    return n


PLOT = """set terminal %s size %d,560 font ",11"
set output "%s"
set title "%s"
set ylabel "bits per event"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key above
set grid ytics
set yrange [0:*]
set offsets 0, 0, 0.8, 0
set xtics nomirror font ",10"
set bmargin 4
plot "%s" using 2:xtic(1) title "Xymoron 2002 (bits; untrusted = 0, not estimated)" lc rgb "#1f77b4", \\
     "" using 3 title "credited (credit=measured)" lc rgb "#2ca02c", \\
     "" using 4 title "meter h at the end" lc rgb "#ff7f0e", \\
     "" using 5 title "ea_non_iid (0: not run)" noenhanced lc rgb "#9467bd", \\
     "" using ($0-0.3):2:(sprintf("%%.2f",$2)) with labels offset 0,0.7 font ",7" notitle, \\
     "" using ($0-0.1):3:(sprintf("%%.2f",$3)) with labels offset 0,0.7 font ",7" notitle, \\
     "" using ($0+0.1):4:(sprintf("%%.2f",$4)) with labels offset 0,0.7 font ",7" notitle, \\
     "" using ($0+0.3):5:(sprintf("%%.2f",$5)) with labels offset 0,0.7 font ",7" notitle
"""


def write_png(path, results, meta):
    tmp = tempfile.mkdtemp(prefix="rand86-plot-")
    dat = os.path.join(tmp, "compare.dat")
    n = plot_data(dat, results)
    script = os.path.join(tmp, "compare.gp")
    title = "rand86: bits per interrupt, credited vs estimated (%s, %s)" % (
        meta["accel"], meta["date"][:10])
    with open(script, "w") as f:
        f.write(PLOT % (meta["terminal"], max(900, 130 * n + 150), path, title, dat))
    r = subprocess.run(["gnuplot", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    shutil.rmtree(tmp, ignore_errors=True)
    if r.returncode != 0:
        raise RuntimeError("gnuplot failed: %s" % r.stderr)


def png_terminal():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True).stdout
    return "pngcairo" if "pngcairo" in out else "png"


def run_meta():
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(), "ncpu": os.cpu_count() or 1,
        "host_os": "%s %s" % (platform.system(), platform.release()),
        "accel": accel(), "qemu": qemu_version(), "rev": git_rev(),
        "terminal": png_terminal(), "ea": shutil.which("ea_non_iid"),
    }


def git_rev():
    """The commit, or the ELF when RAND86_ELF boots another build."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
    rev = "commit " + (r.stdout.strip() or "unknown")
    if os.environ.get("RAND86_ELF"):
        rev += " (tree); booted %s" % ELF
    return rev


def measure(sc, seed, keep=None):
    """Run one scenario; print its line; with `keep`, save SCENARIO.json there.
    Returns (name, desc, rows, info): one entry of write_md's results."""
    t0 = time.monotonic()
    rows, info = run_scenario(sc, seed, keep)
    print("  %-9s %5.1f s  %s" % (sc.name, time.monotonic() - t0, "  ".join(
        "%s: %d ev%s, credited/ev %s, h %.3f, 90B %s" % (
            r["source"], r["events"],
            " (%d measured)" % r["per"] if r["per"] != r["events"] else "",
            per_event(r["credited"], r["per"]),
            int(r["h_milli"] or 0) / 1000, "%.3f" % r["ea"]["h"] if r["ea"] and r["ea"]["h"] else "-")
        for r in rows)), flush=True)
    if keep:
        with open(os.path.join(keep, sc.name + ".json"), "w") as f:
            json.dump({"scenario": sc.name, "desc": sc.desc, "rows": rows, "info": info}, f, indent=1)
    return sc.name, sc.desc, rows, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-md", help="default docs/compare.md, or DIR/compare.md with --keep")
    ap.add_argument("--out-png", help="default docs/compare.png, or DIR/compare.png with --keep")
    ap.add_argument("--only", default="", help="comma-separated scenario names: " +
                    ",".join(sc.name for sc in SCENARIOS))
    ap.add_argument("--keep", metavar="DIR", help="keep each capture (.bin, .capture.txt), "
                    "ea_non_iid's output and the figures (.json) in DIR")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    unknown = only - {sc.name for sc in SCENARIOS}
    if unknown:
        ap.error("no scenario %s" % ", ".join(sorted(unknown)))
    out_dir = args.keep or os.path.join(ROOT, "docs")
    md = args.out_md or os.path.join(out_dir, "compare.md")
    png = args.out_png or os.path.join(out_dir, "compare.png")
    for d in (out_dir, os.path.dirname(os.path.abspath(md)), os.path.dirname(os.path.abspath(png))):
        os.makedirs(d, exist_ok=True)
    t_start = time.monotonic()
    meta = run_meta()
    print("compare: %s, %s, %s, ea_non_iid %s" % (meta["accel"], meta["qemu"], meta["cpu"],
                                                  meta["ea"] or "not on PATH"), flush=True)
    results = [measure(sc, 2002 + i, args.keep) for i, sc in enumerate(SCENARIOS)
               if not only or sc.name in only]
    meta["elapsed"] = time.monotonic() - t_start
    write_md(md, results, meta, os.path.basename(png))
    write_png(png, results, meta)
    print("compare: wrote %s and %s in %.0f s" % (md, png, meta["elapsed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
