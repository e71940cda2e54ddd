#!/usr/bin/python3
"""`make compare`: the three credit rules on the same samples: Xymoron's 2002
estimate, the 1999 (v1.89) one, and credit=measured (Xymoron capped by the
live SP 800-90B-style estimate and health tests).

Boots rand86 under QEMU once per scenario (KVM when usable, else TCG, as
the harness's accel() decides), default options (credit=measured), drives input
over QMP, a raw disk and a dgram network, and reads `sources` before and
after. All three estimates run on every sample whatever credits, so one
boot gives what each rule would credit: `bits` (credit=xymoron),
`tso_bits` (credit=tso) and `credited` (credit=measured, in force).
Writes docs/compare.md (events, the three, h_milli and health per source
and scenario, and, when ea_non_iid is on PATH, NIST's SP 800-90B estimate
of a capture of the scenario's main source) and docs/compare.png.

Injected QEMU input is timed by this script and the host, not by a
person at a keyboard: the numbers compare the two estimators on the same
samples, they do not measure a real keyboard's entropy.

Standard library only, plus gnuplot for the plot. No arguments needed:
    /usr/bin/python3 scripts/compare.py [--out-md F] [--out-png F] [--only NAME,...]
"""
import argparse
import datetime
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from rand86 import ROOT, Rand86, Wire, accel, cpu_model, key_event, qemu_version

KEYS = ["a", "s", "d", "f", "j", "k", "l", "semicolon", "e", "r"]
KEYS_PER_SCENARIO = 160   # keys (press + release: 320 events; 64 are the meter's warm-up)
STEADY_BEAT = 0.100       # s from one press to the next in the steady scenario
KEY_EVENTS = 2 * KEYS_PER_SCENARIO


# ---------------------------------------------------------------- drivers

def disk_image(tmp):
    path = os.path.join(tmp, "disk.img")
    with open(path, "wb") as f:
        f.truncate(1024 * 1024)
    return ["-drive", "file=%s,format=raw,if=ide,index=0" % path]


def key_edge(vm, qcode, down):
    vm.qmp.execute("input-send-event", events=[key_event(qcode, down)])


def paced(gaps):
    """Yield at t0 + cumulative gaps (no drift from the time the work takes)."""
    t = time.monotonic()
    for g in gaps:
        t += g
        now = time.monotonic()
        if t > now:
            time.sleep(t - now)
        yield


def type_keys(vm, keys):
    """keys: (hold, gap) pairs: press, release `hold` s later (0: the next
    QMP call, ~1 ms), the next press `gap` s after the release."""
    waits = []
    for hold, gap in keys:
        waits += [hold, gap]
    edges = iter(range(len(waits)))
    for _ in paced([0.1] + waits[:-1]):
        i = next(edges)
        key_edge(vm, KEYS[(i // 2) % len(KEYS)], i % 2 == 0)


def steady(vm, rnd, ctx):
    """A metronome typist: press, release at once, the next press a beat later."""
    type_keys(vm, [(0.0, STEADY_BEAT)] * KEYS_PER_SCENARIO)


def irregular_keys(rnd, n):
    return [(rnd.uniform(0.03, 0.2), min(0.5, 0.02 + rnd.expovariate(1 / 0.08))) for _ in range(n)]


def irregular(vm, rnd, ctx):
    type_keys(vm, irregular_keys(rnd, KEYS_PER_SCENARIO))


def burst(vm, rnd, ctx):
    """Press and release in one QMP call: two scancodes, back-to-back interrupts;
    exponential gaps between keys."""
    for i, _ in enumerate(paced([0.05 + rnd.expovariate(1 / 0.1) for _ in range(KEYS_PER_SCENARIO)])):
        q = KEYS[i % len(KEYS)]
        vm.qmp.execute("input-send-event", events=[key_event(q, True), key_event(q, False)])


def mouse(vm, rnd, ctx):
    for _ in paced([rnd.uniform(0.03, 0.15) for _ in range(KEY_EVENTS)]):
        vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)


def disk(vm, rnd, ctx):
    time.sleep(20.0)


def network(vm, rnd, ctx):
    ctx["wire"].flood(seconds=6.0)


def everything(vm, rnd, ctx):
    """Irregular single key events and mouse moves, a disk, and a network flood at once."""
    sender = threading.Thread(target=ctx["wire"].flood, kwargs={"seconds": 8.0})
    sender.start()
    try:
        down, k = True, 0
        for _ in paced([rnd.uniform(0.02, 0.14) for _ in range(KEY_EVENTS)]):
            if rnd.random() < 0.5:
                key_edge(vm, KEYS[k % len(KEYS)], down)
                if not down:
                    k += 1
                down = not down
            else:
                vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)
        if not down:                       # leave no key held
            key_edge(vm, KEYS[k % len(KEYS)], False)
    finally:
        ctx["wire"].stop.set()
        sender.join()


# name, what it does, driver, needs disk, needs network, -cpu, main source (for a capture)
SCENARIOS = [
    ("steady", "%d keys, press then release at once (~1 ms, two QMP calls), one press every %d ms"
     % (KEYS_PER_SCENARIO, STEADY_BEAT * 1000), steady, False, False, None, "keyboard"),
    ("irregular", "%d keys, holds uniform 30..200 ms, gaps 20 ms + exponential (mean 80 ms)"
     % KEYS_PER_SCENARIO, irregular, False, False, None, "keyboard"),
    ("burst", "%d keys, press+release in one QMP call (back-to-back IRQs), gaps 50 ms + "
     "exponential (mean 100 ms)" % KEYS_PER_SCENARIO, burst, False, False, None, "keyboard"),
    ("mouse", "%d mouse moves, gaps uniform 30..150 ms" % KEY_EVENTS, mouse, False, False, None,
     "mouse"),
    ("486", "-cpu 486 (no TSC: the PIT clock), irregular typing as above", irregular, False,
     False, "486", "keyboard"),
    ("disk", "1 MiB raw IDE disk attached, idle 20 s (the driver's own reads)", disk, True, False,
     None, "ata0"),
    ("network", "ne2k_isa, broadcast UDP frames in bursts of 25 with 2 ms gaps for 6 s",
     network, False, True, None, None),
    ("all", "irregular keys and mouse moves (%d events, gaps 20..140 ms), disk and "
     "network flood together" % KEY_EVENTS, everything, True, True, None, None),
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


def ea_non_iid_estimate(vm, driver, seed, ctx, source):
    """Capture the scenario's main source again (a second run of its input,
    `samples` meanwhile) and return ea_non_iid's min-entropy, or None."""
    ea = shutil.which("ea_non_iid")
    if not ea or not source:
        return None
    import samples2bin
    vm.settle()
    vm.send("samples %s %d\r" % (source, KEY_EVENTS))
    vm.com1.expect(rb"# capturing [^\r\n]*\r\n", 10)
    driver(vm, random.Random(seed + 1000), ctx)
    time.sleep(0.5)
    vm.send(b"\x03")
    m = vm.com1.expect(rb"(.*?)\r\n(ok|error: [^\r\n]*)\r\nrand86> ", 60)
    samples, _ = samples2bin.parse(m.group(1).decode(errors="replace").split("\r\n"))
    if len(samples) < 16:
        return None
    h = samples2bin.ea_non_iid(samples2bin.symbols(samples), timeout=600)
    return (h, len(samples)) if h is not None else None


def run_scenario(name, driver, need_disk, need_net, seed, cpu=None, main_source=None):
    tmp = tempfile.mkdtemp(prefix="rand86-compare-")
    ctx = {}
    extra = []
    if need_disk:
        extra += disk_image(tmp)
    if need_net:
        ctx["wire"] = Wire()
        extra += ctx["wire"].netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
    try:
        with Rand86(extra=extra, cpu=cpu) as vm:
            st0 = vm.status()
            src0 = vm.sources()
            t0 = time.monotonic()
            driver(vm, random.Random(seed), ctx)
            wall = time.monotonic() - t0
            time.sleep(0.3)
            quiet = [n for n in src0 if n != "serial"]
            src1 = wait_quiet(vm, quiet) if need_net else vm.sources()
            st1 = vm.status()
            ea = ea_non_iid_estimate(vm, driver, seed, ctx, main_source) if not need_net else None
    finally:
        if "wire" in ctx:
            ctx["wire"].close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    rows = []
    for src, f1 in src1.items():
        if src == "serial":                # the script's own console commands
            continue
        f0 = src0.get(src, {})
        d = {k: int(f1.get(k, 0)) - int(f0.get(k, 0))
             for k in ("events", "bits", "tso_bits", "credited")}
        if d["events"] <= 0:
            continue
        d["source"] = src
        d["trust"] = f1.get("trust", "?")
        d["h_milli"] = f1.get("h_milli")
        d["health"] = f1.get("health")
        d["ea"] = ea if src == main_source else None
        rows.append(d)
    info = {
        "wall_s": wall,
        "credited_bits": int(st1["credited_bits"]) - int(st0["credited_bits"]),
        "loop_passes": (int(st1["main_loop_passes"]) - int(st0["main_loop_passes"])
                        if "main_loop_passes" in st1 else None),
        "frames_sent": ctx["wire"].sent if "wire" in ctx else None,
    }
    return rows, info


# ---------------------------------------------------------------- output

def git_rev():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
    return r.stdout.strip() or "unknown"


def per_event(bits, events):
    return "%.2f" % (bits / events) if events else "-"


def write_md(path, results, meta, png_name):
    L = []
    L.append("# Three credit rules on the same samples, per scenario")
    L.append("")
    L.append("Written by `make compare` (scripts/compare.py); do not edit by hand.")
    L.append("")
    L.append("- date: %s" % meta["date"])
    L.append("- machine: %s (%d CPUs), host %s" % (meta["cpu"], meta["ncpu"], meta["host_os"]))
    L.append("- accelerator: %s" % meta["accel"])
    L.append("- QEMU: %s" % meta["qemu"])
    L.append("- rand86: commit %s, default boot options (`credit=measured`, `hz=100`)" % meta["rev"])
    L.append("- run time: %.0f s" % meta["elapsed"])
    L.append("- ea_non_iid: %s" % (meta["ea"] or "not on PATH (column left empty)"))
    L.append("")
    L.append("Each scenario is a fresh boot; the numbers are the change in `sources`")
    L.append("over the scenario. All three estimates run on every sample, so one boot")
    L.append("shows what each rule credits: `xymoron` is Xymoron's 2002 estimate")
    L.append("(`bits`, what credit=xymoron credits), `tso` the 1999 v1.89")
    L.append("delta-of-deltas estimate (`tso_bits`, what credit=tso credits, and what")
    L.append("the 1999 driver gave untrusted sources), `measured` what credit=measured")
    L.append("(in force) actually granted: Xymoron's bits capped by the live estimate")
    L.append("`h` (bits per sample over the source's last 1024 symbols, at the end)")
    L.append("and by the health tests; nothing in the first 64 samples (warm-up).")
    L.append("`90B` is NIST ea_non_iid's min-entropy per symbol of a separate capture")
    L.append("(`samples`) of the same input, when the tool is on PATH. Untrusted")
    L.append("sources are never credited. The `timer` source ticks in every boot.")
    L.append("The serial source (the script's own console commands) is left out.")
    L.append("")
    L.append("Input is injected over QMP: its timing is this script's and the host's,")
    L.append("not a person's. Compare the rules with each other, not with a real")
    L.append("keyboard.")
    L.append("")
    L.append("| scenario | source | trust | events | xymoron | tso | measured | xymoron/ev | tso/ev | measured/ev | h | health | 90B |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for name, desc, rows, info in results:
        if not rows:
            L.append("| %s | (no events) | | 0 | | | | | | | | | |" % name)
        for i, r in enumerate(rows):
            tr = r["trust"] == "trusted"
            h = "%.3f" % (int(r["h_milli"]) / 1000) if r["h_milli"] is not None else "-"
            ea = "%.3f (%d)" % r["ea"] if r["ea"] else ""
            L.append("| %s | %s | %s | %d | %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
                name if i == 0 else "", r["source"], r["trust"], r["events"],
                r["bits"] if tr else "(0)", r["tso_bits"], r["credited"],
                per_event(r["bits"], r["events"]) if tr else "-",
                per_event(r["tso_bits"], r["events"]), per_event(r["credited"], r["events"]),
                h, r["health"] or "-", ea))
    L.append("")
    L.append("Scenarios:")
    L.append("")
    for name, desc, rows, info in results:
        extra = ""
        if info["frames_sent"] is not None:
            extra = "; %d frames sent" % info["frames_sent"]
        L.append("- **%s**: %s (driven for %.1f s%s)." % (name, desc, info["wall_s"], extra))
    L.append("")
    L.append("![bits per event, both estimators](%s)" % png_name)
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def write_png(path, results, meta):
    tmp = tempfile.mkdtemp(prefix="rand86-plot-")
    dat = os.path.join(tmp, "compare.dat")
    n = 0
    with open(dat, "w") as f:
        for name, desc, rows, info in results:
            for r in rows:
                ev = r["events"]
                f.write('"%s\\n%s" %.3f %.3f %.3f\n' % (name, r["source"], r["bits"] / ev,
                                                       r["tso_bits"] / ev, r["credited"] / ev))
                n += 1
    script = os.path.join(tmp, "compare.gp")
    title = "rand86: estimated bits per interrupt (%s, %s)" % (meta["accel"], meta["date"][:10])
    with open(script, "w") as f:
        f.write("""set terminal %s size %d,560 font ",11"
set output "%s"
set title "%s"
set ylabel "bits per event"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]
set xtics nomirror font ",10"
set bmargin 4
plot "%s" using 2:xtic(1) title "Xymoron 2002 (bits; untrusted = 0, not estimated)" lc rgb "#1f77b4", \\
     "" using 3 title "Ts'o 1999 (tso\\\\_bits)" lc rgb "#ff7f0e", \\
     "" using 4 title "measured (credited)" lc rgb "#2ca02c", \\
     "" using 0:2:(sprintf("%%.2f",$2)) with labels offset -2.2,0.7 font ",8" notitle, \\
     "" using 0:3:(sprintf("%%.2f",$3)) with labels offset 0,0.7 font ",8" notitle, \\
     "" using 0:4:(sprintf("%%.2f",$4)) with labels offset 2.2,0.7 font ",8" notitle
""" % (meta["terminal"], max(900, 110 * n + 150), path, title, dat))
    r = subprocess.run(["gnuplot", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    for p in (dat, script):
        os.unlink(p)
    os.rmdir(tmp)
    if r.returncode != 0:
        raise RuntimeError("gnuplot failed: %s" % r.stderr)


def png_terminal():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True).stdout
    return "pngcairo" if "pngcairo" in out else "png"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-md", default=os.path.join(ROOT, "docs", "compare.md"))
    ap.add_argument("--out-png", default=os.path.join(ROOT, "docs", "compare.png"))
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    t_start = time.monotonic()
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(), "ncpu": os.cpu_count() or 1,
        "host_os": "%s %s" % (platform.system(), platform.release()),
        "accel": accel(), "qemu": qemu_version(), "rev": git_rev(),
        "terminal": png_terminal(),
    }
    print("compare: %s, %s, %s" % (meta["accel"], meta["qemu"], meta["cpu"]), flush=True)
    results = []
    meta["ea"] = shutil.which("ea_non_iid")
    for i, (name, desc, driver, need_disk, need_net, cpu, main_src) in enumerate(SCENARIOS):
        if only and name not in only:
            continue
        t0 = time.monotonic()
        rows, info = run_scenario(name, driver, need_disk, need_net, 2002 + i, cpu, main_src)
        results.append((name, desc, rows, info))
        print("  %-9s %5.1f s  %s  credited=%d" % (
            name, time.monotonic() - t0,
            " ".join("%s:%d/%d/%d/%d" % (r["source"], r["events"], r["bits"], r["tso_bits"],
                                         r["credited"])
                     for r in rows), info["credited_bits"]), flush=True)
    meta["elapsed"] = time.monotonic() - t_start
    os.makedirs(os.path.dirname(args.out_md), exist_ok=True)
    write_md(args.out_md, results, meta, os.path.basename(args.out_png))
    write_png(args.out_png, results, meta)
    print("compare: wrote %s and %s in %.0f s" % (args.out_md, args.out_png, meta["elapsed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
