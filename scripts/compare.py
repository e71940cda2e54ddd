#!/usr/bin/python3
"""`make compare`: Xymoron's 2002 estimator against the 1999 (v1.89) one.

Boots rand86 under QEMU once per scenario (KVM when usable, else TCG, as
scripts/accel decides), drives input over QMP, a raw disk and a dgram
network, and reads `sources` before and after. Writes docs/compare.md
(a table of events, bits, tso_bits and bits per event per source and
scenario) and docs/compare.png (gnuplot, grouped bars of bits/event).

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
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
from rand86 import Rand86, Wire, accel, cpu_model, key_event  # noqa: E402

KEYS = ["a", "s", "d", "f", "j", "k", "l", "semicolon", "e", "r"]
KEY_EVENTS = 60           # single press or release events per typing scenario
STEADY_BEAT = 0.100       # s between events in the steady scenario


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


def type_single_events(vm, gaps):
    """One press or one release per beat: each event is its own interrupt."""
    down = True
    k = 0
    for _ in paced(gaps):
        key_edge(vm, KEYS[k % len(KEYS)], down)
        if not down:
            k += 1
        down = not down


def steady(vm, rnd, ctx):
    type_single_events(vm, [STEADY_BEAT] * KEY_EVENTS)


def irregular(vm, rnd, ctx):
    type_single_events(vm, [rnd.uniform(0.02, 0.22) for _ in range(KEY_EVENTS)])


def burst(vm, rnd, ctx):
    """Press and release in one QMP call: two scancodes, back-to-back interrupts."""
    for i, _ in enumerate(paced([STEADY_BEAT * 2] * (KEY_EVENTS // 2))):
        q = KEYS[i % len(KEYS)]
        vm.qmp.execute("input-send-event", events=[key_event(q, True), key_event(q, False)])


def mouse(vm, rnd, ctx):
    for _ in paced([rnd.uniform(0.03, 0.15) for _ in range(KEY_EVENTS)]):
        vm.mouse_move(rnd.randint(-20, 20) or 1, rnd.randint(-20, 20) or 1)


def disk(vm, rnd, ctx):
    time.sleep(6.0)


def network(vm, rnd, ctx):
    ctx["wire"].flood(seconds=6.0)


def everything(vm, rnd, ctx):
    """Irregular single key events and mouse moves, a disk, and a network flood at once."""
    sender = threading.Thread(target=ctx["wire"].flood, kwargs={"seconds": 8.0})
    sender.start()
    try:
        down, k = True, 0
        for _ in paced([rnd.uniform(0.02, 0.14) for _ in range(2 * KEY_EVENTS)]):
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


# name, what it does, driver, needs disk, needs network
SCENARIOS = [
    ("steady", "%d single key events (press or release), one every %d ms"
     % (KEY_EVENTS, STEADY_BEAT * 1000), steady, False, False),
    ("irregular", "%d single key events, gaps uniform 20..220 ms" % KEY_EVENTS,
     irregular, False, False),
    ("burst", "%d keys, press+release in one QMP call (back-to-back IRQs), one key every %d ms"
     % (KEY_EVENTS // 2, STEADY_BEAT * 2000), burst, False, False),
    ("mouse", "%d mouse moves, gaps uniform 30..150 ms" % KEY_EVENTS, mouse, False, False),
    ("disk", "1 MiB raw IDE disk attached, idle 6 s (the driver's own reads)", disk, True, False),
    ("network", "ne2k_isa, broadcast UDP frames in bursts of 25 with 2 ms gaps for 6 s",
     network, False, True),
    ("all", "irregular keys and mouse moves (%d events, gaps 20..140 ms), disk and "
     "network flood together" % (2 * KEY_EVENTS), everything, True, True),
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


def run_scenario(name, driver, need_disk, need_net, seed):
    tmp = tempfile.mkdtemp(prefix="rand86-compare-")
    ctx = {}
    extra = []
    if need_disk:
        extra += disk_image(tmp)
    if need_net:
        ctx["wire"] = Wire()
        extra += ctx["wire"].netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"]
    try:
        with Rand86(extra=extra) as vm:
            st0 = vm.status()
            src0 = vm.sources()
            t0 = time.monotonic()
            driver(vm, random.Random(seed), ctx)
            wall = time.monotonic() - t0
            time.sleep(0.3)
            quiet = [n for n in src0 if n != "serial"]
            src1 = wait_quiet(vm, quiet) if need_net else vm.sources()
            st1 = vm.status()
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
        d = {k: int(f1.get(k, 0)) - int(f0.get(k, 0)) for k in ("events", "bits", "tso_bits")}
        if d["events"] <= 0:
            continue
        d["source"] = src
        d["trust"] = f1.get("trust", "?")
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

def qemu_version():
    out = subprocess.run(["qemu-system-i386", "--version"], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    return out.splitlines()[0].strip() if out else "unknown"


def git_rev():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
    return r.stdout.strip() or "unknown"


def per_event(bits, events):
    return "%.2f" % (bits / events) if events else "-"


def write_md(path, results, meta, png_name):
    L = []
    L.append("# Xymoron (2002) vs Ts'o (1999) estimates, per scenario")
    L.append("")
    L.append("Written by `make compare` (scripts/compare.py); do not edit by hand.")
    L.append("")
    L.append("- date: %s" % meta["date"])
    L.append("- machine: %s (%d CPUs), host %s" % (meta["cpu"], meta["ncpu"], meta["host_os"]))
    L.append("- accelerator: %s" % meta["accel"])
    L.append("- QEMU: %s" % meta["qemu"])
    L.append("- rand86: commit %s, default boot options (`credit=xymoron`, `hz=100`)" % meta["rev"])
    L.append("- run time: %.0f s" % meta["elapsed"])
    L.append("")
    L.append("Each scenario is a fresh boot; the numbers are the change in `sources`")
    L.append("over the scenario. `bits` is Xymoron's estimate (the one credited by")
    L.append("default), `tso_bits` the 1999 v1.89 delta-of-deltas estimate of the")
    L.append("same samples. Untrusted sources (disk, network) are never estimated")
    L.append("by Xymoron's rules (`bits` is 0 by design) and never credited;")
    L.append("`tso_bits` shows what the 1999 driver would have credited them.")
    L.append("`credited` is the change of `credited_bits` in `status`; `passes` the")
    L.append("main-loop passes (rand86's context switches) during the scenario.")
    L.append("The serial source (the script's own console commands) is left out.")
    L.append("")
    L.append("Input is injected over QMP: its timing is this script's and the host's,")
    L.append("not a person's. Compare the estimators with each other, not with a")
    L.append("real keyboard.")
    L.append("")
    L.append("| scenario | source | trust | events | bits | tso_bits | bits/event | tso_bits/event | credited | passes |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, desc, rows, info in results:
        if not rows:
            L.append("| %s | (no events) | | 0 | 0 | 0 | - | - | %d | %s |"
                     % (name, info["credited_bits"], info["loop_passes"]))
        for i, r in enumerate(rows):
            xb = r["bits"] if r["trust"] == "trusted" else "(0)"
            xpe = per_event(r["bits"], r["events"]) if r["trust"] == "trusted" else "-"
            L.append("| %s | %s | %s | %d | %s | %d | %s | %s | %s | %s |" % (
                name if i == 0 else "", r["source"], r["trust"], r["events"], xb,
                r["tso_bits"], xpe, per_event(r["tso_bits"], r["events"]),
                info["credited_bits"] if i == 0 else "",
                (info["loop_passes"] if info["loop_passes"] is not None else "?") if i == 0 else ""))
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
                f.write('"%s\\n%s" %.3f %.3f\n' % (name, r["source"], r["bits"] / ev,
                                                  r["tso_bits"] / ev))
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
     "" using 0:2:(sprintf("%%.2f",$2)) with labels offset -1.6,0.7 font ",8" notitle, \\
     "" using 0:3:(sprintf("%%.2f",$3)) with labels offset 1.6,0.7 font ",8" notitle
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
    for i, (name, desc, driver, need_disk, need_net) in enumerate(SCENARIOS):
        if only and name not in only:
            continue
        t0 = time.monotonic()
        rows, info = run_scenario(name, driver, need_disk, need_net, seed=2002 + i)
        results.append((name, desc, rows, info))
        print("  %-9s %5.1f s  %s  credited=%d" % (
            name, time.monotonic() - t0,
            " ".join("%s:%d/%d/%d" % (r["source"], r["events"], r["bits"], r["tso_bits"])
                     for r in rows), info["credited_bits"]), flush=True)
    meta["elapsed"] = time.monotonic() - t_start
    os.makedirs(os.path.dirname(args.out_md), exist_ok=True)
    write_md(args.out_md, results, meta, os.path.basename(args.out_png))
    write_png(args.out_png, results, meta)
    print("compare: wrote %s and %s in %.0f s" % (args.out_md, args.out_png, meta["elapsed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
