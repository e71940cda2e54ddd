#!/usr/bin/python3
"""`make compare`: credited bits per sample vs the meter, the full assessment and ea_non_iid.

What rand86 credits per sample, next to its on-board SP 800-90B meter,
the project's full SP 800-90B assessment (build/host/h_estimate) and
NIST's ea_non_iid, on the same input.

Boots rand86 under QEMU once per scenario (KVM when usable, else TCG, as
the harness's accel() decides; RAND86_ACCEL=tcg forces TCG), default
options (credit=measured), drives input over QMP, a raw disk and a
dgram network; JOBS scenarios run at once (their input is mostly
waiting). Per scenario with a main source: a warm-up of it (the meter
credits nothing in its first 64 samples), then `sources` before and
after a credited stretch (credited, Xymoron's and the 1999 estimate per
measured sample, h_milli and health at the end); then `samples SOURCE N`
of the stretch that follows, the same input still running, same boot:
a captured sample is printed and so never credited. The capture is
judged by h_estimate (every 6.3 estimator, from entropy/) and by
`ea_non_iid -v FILE 8` when the tool is on PATH (its columns say `-`
otherwise). A measured sample is an event less the `skipped` and
`unmeasured` ones (mixed, never measured, captured or credited).
The `irregular` scenario also saves QEMU's screendump of the VGA
dashboard as docs/dashboard.png.
Writes docs/compare.md, docs/compare.png and docs/dashboard.png.

Injected QEMU input is timed by this script and the host, not by a
person at a keyboard: the numbers compare the estimators on the same
samples, they do not measure a real keyboard's entropy.

Standard library only, plus gnuplot for the plot.
    /usr/bin/python3 -m scripts.compare [--out-md F] [--out-png F] [--only NAME,...] [--jobs N]
Re-measure one scenario against another build, keeping the capture (.bin),
h_estimate's and ea_non_iid's output and the figures (.json) in DIR, and
compare.md and compare.png there instead of docs/:
    RAND86_ELF=build/rand86.elf python3 -m scripts.compare --only irregular --keep DIR
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
from rand86 import honesty, samples2bin
from scripts import provenance

KEYS = ["a", "s", "d", "f", "j", "k", "l", "semicolon", "e", "r"]
WARMUP = 128              # measured samples of the main source before the credited stretch
# ROUNDS turns of a credited stretch and a capture (honesty.interleaved):
# under TCG what every source carries is the host's timing, which drifts
# with its load; in turns, credit and capture share the drift.
ROUNDS = 4
STRETCH = 256             # measured samples credited a turn: 1024 in all, one meter window
CAPTURE = 512             # captured a turn: 2048 in all, two of h_estimate's blocks
DISK_TURN = 128           # ata0 reads ~9 times a second: ~2 minutes in all
PERIODIC_TURN = 1024      # the timer and the rtc: 4096 credited, 4096 captured
# The rtc: ~3,500 measured samples a second under TCG (4096 Hz less the
# busy periods). A warm-up of 4096 (~1 s) fills the meter's 1024-symbol
# window and runs its full assessment. A capture of at most
# RNG_CAPTURE_RING (4096) samples is consecutive however slowly COM1
# prints (~600 lines a second at 115200 baud): the ring holds the first
# 4096, and any the capture reports dropped came after them.
CAPTURE_RING = 4096       # RNG_CAPTURE_RING, entropy/entropy.h
RTC_WARMUP = 4096
MEAN_GAP = 0.050          # s: the steady beat and the mean of the exponential gaps
JOBS = 3                  # scenarios at once: each QEMU mostly waits for the next input


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
                                  "seconds warmup stretch rounds dashboard")


def scenario(name, desc, driver, source=None, cpu=None, disk=False, net=False,
             capture=CAPTURE, seconds=None, warmup=WARMUP, stretch=STRETCH, rounds=ROUNDS,
             dashboard=False):
    """source: the main source (`rounds` times: `stretch` measured samples
    credited, then `capture` captured); none: measured over `seconds` of
    driving, no capture. dashboard: save the VGA screen at the end."""
    return Scenario(name, desc, driver, source, cpu, disk, net, capture, seconds,
                    warmup, stretch, rounds, dashboard)


SCENARIOS = [
    scenario("steady", "taps (press, release ~1 ms later), one press every %d ms"
             % (MEAN_GAP * 1000), steady, "keyboard"),
    scenario("irregular", "taps, press-to-press gaps exponential, mean %d ms"
             % (MEAN_GAP * 1000), irregular, "keyboard", dashboard=True),
    scenario("burst", "bursts of 8 taps back to back (16 interrupts), then an exponential "
             "gap, mean %d ms" % (MEAN_GAP * 1000), burst, "keyboard"),
    scenario("mouse", "mouse moves (dx, dy in -20..20), exponential gaps, mean %d ms"
             % (MEAN_GAP * 1000), mouse, "mouse"),
    scenario("486", "-cpu 486 (no TSC: the PIT clock), irregular taps as above", irregular,
             "keyboard", cpu="486"),
    scenario("timer", "nobody typing, hz=100: the PIT interrupt", idle, "timer",
             stretch=PERIODIC_TURN, capture=PERIODIC_TURN),
    scenario("disk", "1 MiB raw IDE disk, idle: the driver's own reads (~9 a second)", idle,
             "ata0", disk=True, capture=DISK_TURN, stretch=DISK_TURN),
    scenario("network", "ne2k_isa, broadcast UDP frames in bursts of 25 with 2 ms gaps for 6 s",
             network, net=True, seconds=6.0),
    scenario("all", "irregular key edges and mouse moves (gaps 20..140 ms), disk and network "
             "flood together, 20 s", everything, disk=True, net=True, seconds=20.0),
    # last, so the scenarios above keep their seeds (2002 + index)
    scenario("rtc", "nobody typing, rtc=4096: the RTC's periodic interrupt timed by the TSC",
             idle, "rtc", stretch=PERIODIC_TURN, capture=PERIODIC_TURN, warmup=RTC_WARMUP),
    scenario("rtc486", "-cpu 486, nobody typing, rtc=4096: the RTC's periodic interrupt timed "
             "by the PIT latch", idle, "rtc", cpu="486", stretch=PERIODIC_TURN,
             capture=PERIODIC_TURN, warmup=RTC_WARMUP),
]
# Longest first, so that JOBS at once finish together (seconds, roughly:
# samples over the source's rate).
EXPECTED_S = {"mouse": 160, "disk": 130, "timer": 90}


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


def time_up(seconds):
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def drive_window(vm, sc, rnd, ctx):
    """Warm-up, then the credited stretches and the captures after each
    (honesty.interleaved); `sources` before and after. Returns (src0,
    src1, seconds, credit, text): credit and text None without a main
    source."""
    drive = lambda stop: sc.driver(vm, rnd, ctx, stop)
    credit = text = None
    if sc.source:
        drive(honesty.until_measured(vm, sc.source, sc.warmup))
    src0, t0 = vm.sources(), time.monotonic()
    if sc.source:
        credit, text = honesty.interleaved(vm, sc.source, sc.rounds, sc.stretch, sc.capture, drive)
    else:
        drive(time_up(sc.seconds))
    wall = time.monotonic() - t0
    quiet = [n for n in src0 if n != "serial"]
    src1 = wait_quiet(vm, quiet) if sc.net else vm.sources()
    return src0, src1, wall, credit, text


PPM = re.compile(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s")


def ppm_to_png(ppm, png):
    """QEMU's screendump (binary PPM, 8-bit RGB) as a PNG: zlib and struct."""
    import struct
    import zlib
    with open(ppm, "rb") as f:
        data = f.read()
    m = PPM.match(data)
    w, h = int(m.group(1)), int(m.group(2))
    pix = data[m.end():m.end() + w * h * 3]
    raw = b"".join(b"\0" + pix[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    with open(png, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def screendump(vm, png):
    """The VGA screen now (QMP screendump, PPM) as `png`."""
    ppm = os.path.join(vm.dir, "screen.ppm")
    vm.qmp.execute("screendump", filename=ppm)
    ppm_to_png(ppm, png)


def judge(sc, text, keep):
    """h_estimate and (when on PATH, or with `keep`) ea_non_iid on a
    capture, in `keep` or a temporary directory."""
    samples, _ = samples2bin.parse(text.split("\r\n"))
    dropped = re.findall(r"# (\d+) samples arrived faster", text)
    own = honesty.assess(text)
    d = keep or tempfile.mkdtemp(prefix="rand86-compare-ea-")
    base = os.path.join(d, sc.name)
    with open(base + ".bin", "wb") as f:
        f.write(samples2bin.symbols(samples))
    out = samples2bin.run_ea_non_iid(base + ".bin", timeout=1200)
    if keep:
        for ext, body in ((".capture.txt", text), (".h_estimate.txt", own["out"]),
                          (".ea_non_iid.txt",
                           out and "$ ea_non_iid -v %s.bin 8\n%s" % (sc.name, out))):
            if body is not None:
                with open(base + ext, "w") as f:
                    f.write(body)
    else:
        os.unlink(base + ".bin")
        os.rmdir(d)
    return {"h": samples2bin.ea_min(out), "n": len(samples),
            "dropped": int(dropped[0]) if dropped else 0, "own": own["mean"],
            "own_low": own["lowest"], "own_blocks": own["blocks"],
            "binding": samples2bin.ea_binding(out), "estimates": samples2bin.ea_estimates(out)}


def source_rows(src0, src1, sc, credit, judged):
    """Per source, the change over the scenario; the main source's over
    its credited stretches only (`credit`, from honesty.interleaved).
    `per` is what the figures are divided by: for the main source its
    measured samples (`bits`, `tso_bits` and `credited` only ever count
    those), else events."""
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
        if main:
            d.update({k: credit[k] for k in d})
        d.update(source=src, trust=f1.get("trust", "?"), h_milli=f1.get("h_milli"),
                 health=f1.get("health"), ea=judged if main else None,
                 per=credit["samples"] if main else d["events"])
        rows.append(d)
    return rows


def boot_extra(sc, tmp, ctx):
    extra = disk_image(tmp) if sc.disk else []
    if sc.net:
        ctx["wire"] = Wire()
        extra += ctx["wire"].netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
    return extra


def run_scenario(sc, seed, keep=None, dashboard=None):
    """One boot: the credited stretch, then a capture of the next one."""
    tmp = tempfile.mkdtemp(prefix="rand86-compare-")
    ctx = {}
    try:
        with Rand86(extra=boot_extra(sc, tmp, ctx), cpu=sc.cpu) as vm:
            vm.cmd_timeout = 120          # the rtc at 4096 Hz on a loaded host answers slowly
            st0 = vm.status()
            src0, src1, wall, credit, text = drive_window(vm, sc, random.Random(seed), ctx)
            if sc.dashboard and dashboard:
                screendump(vm, dashboard)
            st1 = vm.status()
    finally:
        if "wire" in ctx:
            ctx["wire"].close()
        shutil.rmtree(tmp, ignore_errors=True)
    info = {
        "wall_s": wall,
        "credited_bits": int(st1["credited_bits"]) - int(st0["credited_bits"]),
        "frames_sent": ctx["wire"].sent if "wire" in ctx else None,
    }
    return source_rows(src0, src1, sc, credit, judge(sc, text, keep) if text else None), info


# ---------------------------------------------------------------- output

def per_event(bits, events):
    return "%.2f" % (bits / events) if events else "-"


def md_header(meta):
    return [
        "# Credited bits per sample, the on-board meter and SP 800-90B, per scenario", "",
        "Written by `make compare` (scripts/compare.py); do not edit by hand.", "",
        "- date: %s" % meta["date"],
        "- machine: %s (%d CPUs), host %s, %d scenarios at once"
        % (meta["cpu"], meta["ncpu"], meta["host_os"], meta["jobs"]),
        "- accelerator: %s (host-timed: no -icount)" % meta["accel"],
        "- QEMU: %s" % meta["qemu"],
        "- rand86: %s, default boot options (`credit=measured`, `hz=100`)"
        % ("booted " + ELF if os.environ.get("RAND86_ELF") else "the tree's build"),
        "- run time: %.0f s" % meta["elapsed"],
        "- ea_non_iid: %s" % (meta["ea_version"] or "not on PATH (its columns say `-`)"),
    ] + meta["stamp"] + [
        "  (scripts/provenance.py: what these figures depend on; the suite fails when one changes)",
        "",
        "Each scenario is one boot. With a main source: a warm-up of %d of its" % WARMUP,
        "measured samples (%d for the rtc; the meter credits nothing in its first 64),"
        % RTC_WARMUP,
        "then %d turns of a credited stretch (the change in `sources` over %d measured"
        % (ROUNDS, STRETCH),
        "samples; %d for the disk, %d for the timer and the rtc) and a capture of the"
        % (DISK_TURN, PERIODIC_TURN),
        "next %d (%d; %d): what every source carries under TCG is the host's timing,"
        % (CAPTURE, DISK_TURN, PERIODIC_TURN),
        "which drifts with its load, and in turns credit and capture share the drift.",
        "Without a main source (network, all): the change over the time given.",
        "A measured sample is an event less the `skipped` and `unmeasured` ones (mixed",
        "into the pool, never measured, captured or credited); the main source's",
        "figures are per measured sample, the others' per event.",
        "All three estimates run on every sample: `xymoron/s` is Xymoron's 2002",
        "estimate (what credit=xymoron credits), `tso/s` the 1999 v1.89 one,",
        "`credited/s` what credit=measured (in force) granted: Xymoron's bits capped",
        "by the meter and its health tests. `h` is the meter's estimate at the end",
        "of the stretch (h_milli / 1000: bits per 8-bit symbol over its last 1024).", ""
    ] + md_method()


def md_method():
    """How credit and assessment are set side by side."""
    return [
        "**Credit and assessment come from consecutive stretches of one boot.** A",
        "captured sample is printed, so rand86 never credits it: the assessment",
        "cannot judge the credited samples themselves. Right after the credited",
        "stretch, in the same boot (no reboot between), with the same input still",
        "running, `samples SOURCE n` captures the stretch that follows (n in",
        "brackets, all turns together; symbol = low 8 bits of the shifted delta,",
        "the meter's symbol).",
        "`assessed` is the project's full SP 800-90B assessment of that capture:",
        "every non-IID estimator of 6.3 (MCV, collision, Markov, compression,",
        "t-tuple, LRS, MultiMCW, Lag, MultiMMC, LZ78Y), on the symbols and on their",
        "bits, min(H_original, 8 x H_bitstring), built for the host from entropy/",
        "(`make h-estimate`, tools/h_estimate.c) and run on consecutive blocks of",
        "1024 symbols: the mean over the blocks, then the lowest block.",
        "`90B` is NIST's `ea_non_iid -v FILE 8` on the whole capture and `set by`",
        "the estimator giving its minimum. `cr/assessed` and `cr/90B` divide",
        "credited/s by them: rand86's promise (docs/PROTOCOL.md, Invariants) is",
        "at most 1.1. Untrusted sources are never credited; the `serial` source",
        "(the script's own console commands) is left out.", "",
        "Input is injected over QMP: its timing is this script's and the host's,",
        "not a person's, on a host shared with other work. Compare the estimators",
        "with each other, not with a real keyboard.", ""]


def ratio(credited, h):
    return "%.2f" % (credited / h) if h else "-"


def md_row(name, r):
    tr = r["trust"] == "trusted"
    h = "%.3f" % (int(r["h_milli"]) / 1000) if r["h_milli"] is not None else "-"
    cr = r["credited"] / r["per"] if r["per"] else 0.0
    own, own_r, ea, ea_r, by = "-", "-", "-", "-", "-"
    j = r["ea"]
    if j:
        own = "%.3f / %.3f (%d)" % (j["own"], j["own_low"], j["n"])
        own_r = ratio(cr, j["own"])
        if j["h"]:
            ea, ea_r, by = "%.3f" % j["h"], ratio(cr, j["h"]), j["binding"] or "-"
    samples = "%d" % r["per"]
    if r["per"] != r["events"]:
        samples += " of %d" % r["events"]
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        name, r["source"], r["trust"], samples,
        per_event(r["bits"], r["per"]) if tr else "-",
        per_event(r["tso_bits"], r["per"]), per_event(r["credited"], r["per"]),
        h, r["health"] or "-", own, own_r, ea, ea_r, by)


def write_md(path, results, meta, png_name):
    L = md_header(meta)
    L.append("| scenario | source | trust | samples | xymoron/s | tso/s | credited/s | h | "
             "health | assessed (n) | cr/assessed | 90B | cr/90B | 90B set by |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|")
    for name, desc, rows, info in results:
        if not rows:
            L.append("| %s | (no events) | | 0 | | | | | | | | | | |" % name)
        for i, r in enumerate(rows):
            L.append(md_row(name if i == 0 else "", r))
    L += ["", "Scenarios (the time is the credited and captured stretches'):", ""]
    for name, desc, rows, info in results:
        extra = ""
        if info["frames_sent"] is not None:
            extra = "; %d frames sent" % info["frames_sent"]
        dropped = [r["ea"] for r in rows if r["ea"] and r["ea"]["dropped"]]
        if dropped:
            extra += "; `samples` dropped %d it could not print" % dropped[0]["dropped"]
            if dropped[0]["n"] <= CAPTURE_RING:
                extra += ", all after the capture's last (it is consecutive)"
        L.append("- **%s**: %s (%.1f s%s)." % (name, desc, info["wall_s"], extra))
    L += ["", "![bits per sample](%s)" % png_name, ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def plot_data(path, results):
    """One line per scenario with a main source: its Xymoron, credited and
    the meter's h per sample, the full assessment and ea_non_iid of the
    captures (0 when not run). Returns the line count."""
    n = 0
    with open(path, "w") as f:
        for name, desc, rows, info in results:
            for r in rows:
                if not r["ea"]:
                    continue                   # not the main source: nothing assessed
                ev = r["per"] or r["events"]
                ea = r["ea"]["h"] if r["ea"] and r["ea"]["h"] else 0.0
                own = r["ea"]["own"] if r["ea"] else 0.0
                f.write('"%s\\n%s" %.3f %.3f %.3f %.3f %.3f\n' % (
                    name, r["source"], r["bits"] / ev, r["credited"] / ev,
                    int(r["h_milli"] or 0) / 1000, own, ea))
                n += 1
    return n


PLOT = """set terminal %s size %d,560 font ",11"
set output "%s"
set title "%s"
set ylabel "bits per sample"
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
     "" using 5 title "full assessment of the captures (h_estimate)" noenhanced lc rgb "#8c564b", \\
     "" using 6 title "ea_non_iid of the captures (0: not run)" noenhanced lc rgb "#9467bd", \\
     "" using ($0-0.32):2:(sprintf("%%.2f",$2)) with labels offset 0,0.7 font ",6" notitle, \\
     "" using ($0-0.16):3:(sprintf("%%.2f",$3)) with labels offset 0,0.7 font ",6" notitle, \\
     "" using ($0):4:(sprintf("%%.2f",$4)) with labels offset 0,0.7 font ",6" notitle, \\
     "" using ($0+0.16):5:(sprintf("%%.2f",$5)) with labels offset 0,0.7 font ",6" notitle, \\
     "" using ($0+0.32):6:(sprintf("%%.2f",$6)) with labels offset 0,0.7 font ",6" notitle
"""


def write_png(path, results, meta):
    tmp = tempfile.mkdtemp(prefix="rand86-plot-")
    dat = os.path.join(tmp, "compare.dat")
    n = plot_data(dat, results)
    script = os.path.join(tmp, "compare.gp")
    title = "rand86: bits per sample, credited vs estimated (%s, %s)" % (
        meta["accel"], meta["date"][:10])
    with open(script, "w") as f:
        f.write(PLOT % (meta["terminal"], max(1100, 150 * n + 150), path, title, dat))
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
        "accel": accel(), "qemu": qemu_version(),
        "stamp": provenance.stamp("docs/compare.md"),
        "terminal": png_terminal(), "ea_version": ea_version(),
    }


def ea_version():
    """ea_non_iid's version line (not its path: this machine's), or None
    when it is not on PATH."""
    ea = shutil.which("ea_non_iid")
    if not ea:
        return None
    out = subprocess.run([ea, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    first = [l.strip() for l in out.splitlines() if l.strip()]
    return "`ea_non_iid --version`: %s" % (first[0] if first else "unknown")


def measure(sc, seed, keep=None, dashboard=None):
    """Run one scenario; print its line; with `keep`, save SCENARIO.json there.
    Returns (name, desc, rows, info): one entry of write_md's results."""
    t0 = time.monotonic()
    rows, info = run_scenario(sc, seed, keep, dashboard)
    print("  %-9s %5.1f s  %s" % (sc.name, time.monotonic() - t0, "  ".join(
        "%s: %d samples, credited/s %s, h %.3f, assessed %s, 90B %s" % (
            r["source"], r["per"], per_event(r["credited"], r["per"]),
            int(r["h_milli"] or 0) / 1000,
            "%.3f" % r["ea"]["own"] if r["ea"] else "-",
            "%.3f" % r["ea"]["h"] if r["ea"] and r["ea"]["h"] else "-")
        for r in rows)), flush=True)
    if keep:
        with open(os.path.join(keep, sc.name + ".json"), "w") as f:
            json.dump({"scenario": sc.name, "desc": sc.desc, "rows": rows, "info": info}, f, indent=1)
    return sc.name, sc.desc, rows, info


def run_all(chosen, jobs, keep, dashboard):
    """chosen: [(index, scenario)]. JOBS at a time, longest first; results
    in SCENARIOS order. Seeds are 2002 + the index in SCENARIOS."""
    order = sorted(chosen, key=lambda c: -EXPECTED_S.get(c[1].name, 60))
    results, errors, lock = {}, [], threading.Lock()

    def worker():
        while True:
            with lock:
                if not order or errors:
                    return
                i, sc = order.pop(0)
            try:
                results[i] = measure(sc, 2002 + i, keep, dashboard)
            except Exception as e:             # reported after the others finish
                with lock:
                    errors.append("%s: %r" % (sc.name, e))
    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("; ".join(errors))
    return [results[i] for i in sorted(results)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-md", help="default docs/compare.md, or DIR/compare.md with --keep")
    ap.add_argument("--out-png", help="default docs/compare.png, or DIR/compare.png with --keep")
    ap.add_argument("--only", default="", help="comma-separated scenario names: " +
                    ",".join(sc.name for sc in SCENARIOS))
    ap.add_argument("--jobs", type=int, default=JOBS, help="scenarios at once (default %d)" % JOBS)
    ap.add_argument("--keep", metavar="DIR", help="keep each capture (.bin, .capture.txt), "
                    "h_estimate's and ea_non_iid's output and the figures (.json) in DIR")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    unknown = only - {sc.name for sc in SCENARIOS}
    if unknown:
        ap.error("no scenario %s" % ", ".join(sorted(unknown)))
    out_dir = args.keep or os.path.join(ROOT, "docs")
    md = args.out_md or os.path.join(out_dir, "compare.md")
    png = args.out_png or os.path.join(out_dir, "compare.png")
    dash = os.path.join(out_dir, "dashboard.png")
    for d in (out_dir, os.path.dirname(os.path.abspath(md)), os.path.dirname(os.path.abspath(png))):
        os.makedirs(d, exist_ok=True)
    t_start = time.monotonic()
    meta = run_meta()
    meta["jobs"] = args.jobs
    print("compare: %s, %s, %s, ea_non_iid %s, %d at once" % (
        meta["accel"], meta["qemu"], meta["cpu"], meta["ea_version"] or "not on PATH",
        args.jobs), flush=True)
    chosen = [(i, sc) for i, sc in enumerate(SCENARIOS) if not only or sc.name in only]
    results = run_all(chosen, args.jobs, args.keep, dash)
    meta["elapsed"] = time.monotonic() - t_start
    write_md(md, results, meta, os.path.basename(png))
    write_png(png, results, meta)
    print("compare: wrote %s and %s in %.0f s" % (md, png, meta["elapsed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
