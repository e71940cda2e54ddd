"""`make restart-test`: SP 800-90B 3.1.4's restart test on every emulator
configuration the suite boots; writes docs/restart.md.

Each restart is a fresh boot with record=N (docs/PROTOCOL.md): the
first N samples each trusted source gave from boot, taken with no input
at all; the harness types nothing until `record: NAME full` has come
for the sources that need no person (timer, rtc), then reads every
source with `samples NAME boot`. A disk reads ~10 times a second, so by
then it has fewer than N: its matrix has as many columns as every
restart of that configuration reached before the harness typed.

Then one more boot per configuration without record=, left alone for
CREDIT_GUEST_S of guest time, says what rand86 credited there: `sources`'
credited and h_milli. h_milli (the meter's min-entropy per sample) is
the claimed H_I the sanity check tests. A source that fails the sanity
check and was credited fails `make restart-test` (exit status 1).

    python3 -m scripts.restart_test [--size quick|full] [--restarts N]
        [--bochs-restarts N] [--bochs-minutes M] [--samples N] [--only NAME]
        [--out docs/restart.md] [--jobs 3]

--size picks the counts (SIZES); --restarts, --bochs-restarts and
--samples override them. The QEMU configurations run one after another,
--jobs boots at a time; then the Bochs machines all at once, the boots
shared among them, so that each gets --bochs-minutes of its own (a
Bochs boot is ten times a QEMU one): each boots restarts until its
budget is spent, up to --bochs-restarts.
"""
import argparse
import concurrent.futures
import datetime
import os
import re
import shutil
import sys
import tempfile
import threading
import time

from rand86 import ELF, RTC_VM, Rand86, Timeout, cpu_model, qemu_version
from rand86 import restart
from scripts import provenance

NO_PERSON = ("timer", "rtc")          # the sources record=N is awaited for
DISKS = ("ata0",)
CREDIT_GUEST_S = 30
ICOUNT = ["-icount", "shift=5,sleep=off"] + RTC_VM
# hz=1000 and the rtc at its default 4096 Hz: 1,000 samples in seconds.
APPEND = "hz=1000 stream=off"


class Config:
    def __init__(self, name, desc, emu, cpu=None, extra=(), kind=None, sync=None):
        self.name, self.desc, self.emu = name, desc, emu
        self.cpu, self.extra, self.kind, self.sync = cpu, list(extra), kind, sync


CONFIGS = [
    Config("qemu-tcg", "QEMU TCG (host-timed), pentium-class default CPU", "qemu"),
    Config("qemu-icount", "QEMU -icount shift=5,sleep=off, fixed RTC (clock=vm)", "qemu",
           extra=ICOUNT),
    Config("qemu-486-tcg", "QEMU TCG, -cpu 486 (no TSC)", "qemu", cpu="486"),
    Config("qemu-486-icount", "QEMU -icount shift=5,sleep=off, fixed RTC, -cpu 486", "qemu",
           cpu="486", extra=ICOUNT),
    Config("bochs-pci-none", "Bochs sync=none, pentium 50 M ips, 16 MiB, PCI", "bochs",
           kind="pci", sync="none"),
    Config("bochs-isa-none", "Bochs sync=none, 10 M ips, 4 MiB, ISA", "bochs",
           kind="isa", sync="none"),
    Config("bochs-pci-realtime", "Bochs sync=realtime, pentium 50 M ips, 16 MiB, PCI", "bochs",
           kind="pci", sync="realtime"),
]

# quick: what `make restart-test` runs by default, minutes on 2 cores;
# full: the standard's 1,000 restarts of 1,000 samples (3.1.4) on QEMU,
# and on Bochs as many as 30 minutes a machine allow.
SIZES = {
    "quick": {"restarts": 10, "bochs_restarts": 6, "samples": 200, "bochs_minutes": None},
    "full": {"restarts": 1000, "bochs_restarts": 1000, "samples": 1000, "bochs_minutes": 30},
}

FULL = rb"record: (\w+) full, (\d+) samples\r\n"


class Boot:
    """One boot of a configuration: QEMU (multiboot, a blank disk) or
    Bochs (an ISO built for the options, a blank disk)."""

    def __init__(self, cfg, append, work):
        self.cfg = cfg
        if cfg.emu == "qemu":
            self.vm = Rand86(append=append, cpu=cfg.cpu, com2=False, accel_name="tcg",
                             extra=cfg.extra + ["-drive", "file=%s,format=raw,if=ide,index=0,"
                                                "snapshot=on" % BLANK])
        else:
            from rand86.bochs import Bochs, blank_disk, restart_machine
            # a disk each: Bochs locks its image (and a killed Bochs leaves the lock)
            fd, disk = tempfile.mkstemp(suffix=".img", dir=work)
            os.close(fd)
            self.vm = Bochs(restart_machine(cfg.kind, iso_for(append, work), blank_disk(disk),
                                            cfg.sync), boot_timeout=300)

    def close(self):
        self.vm.close()


BLANK = None
_ISOS = {}
_ISOS_LOCK = threading.Lock()       # boots of several machines start at once


def iso_for(append, work):
    from rand86.bochs import iso_with
    with _ISOS_LOCK:
        if append not in _ISOS:
            _ISOS[append] = iso_with(append, os.path.join(work, "r%d.iso" % len(_ISOS)))
        return _ISOS[append]


def sources_present(vm):
    return [n for n, f in vm.sources().items() if f.get("trust") == "trusted"]


def one_restart(cfg, n, work, timeout):
    """one_restart_once, retried once: under load a boot can miss its own
    start-up time-outs (a QEMU socket not there in 30 s)."""
    try:
        return one_restart_once(cfg, n, work, timeout)
    except (Timeout, OSError) as e:
        print("%s: a boot failed (%s); booting again" % (cfg.name, str(e)[:200]), flush=True)
        return one_restart_once(cfg, n, work, timeout)


def one_restart_once(cfg, n, work, timeout):
    """The recorded symbols of every trusted source of one boot:
    {name: [symbol, ...]} (symbol: the shifted delta's low 8 bits, the
    meter's symbol)."""
    b = Boot(cfg, APPEND + " record=%d" % n, work)
    try:
        vm = b.vm
        want = set()
        for s in NO_PERSON:          # e.g. "timer: PIT tick timed by the TSC: trusted, ..."
            m = re.search(r"^%s: [^\r\n]*" % s, vm.boot_log, re.M)
            if m and ": trusted" in m.group(0):
                want.add(s)
        seen = set(m.group(1).decode() for m in re.finditer(FULL, vm.boot_log.encode()))
        # A record that never fills (every tick off its period, as under
        # Bochs sync=realtime on a loaded host) is read as far as it got.
        deadline = time.monotonic() + timeout
        while not want <= seen and time.monotonic() < deadline:
            try:
                m = vm.com1.expect(FULL, max(1, deadline - time.monotonic()))
            except Timeout:
                break
            seen.add(m.group(1).decode())
        out = {}
        for name in sources_present(vm):
            vm.send("samples %s boot\r" % name)     # read linearly: replies are long
            body = vm.com1.read_until(b"\r\nrand86> ", 300).decode(errors="replace")
            assert body.rstrip().endswith("ok"), body[-300:]
            vals = [int(l.split()[1], 16) & 0xff for l in body.split("\r\n")
                    if re.match(r"^[0-9a-f]{8} [0-9a-f]{8}$", l)]
            out[name] = vals
        return out
    finally:
        b.close()


def credit_boot(cfg, work, guest_s=CREDIT_GUEST_S, host_s=600):
    """What rand86 credits in this configuration, no record=, nobody
    typing: `sources` and `status` once guest_s of guest time has passed."""
    b = Boot(cfg, APPEND, work)
    try:
        vm = b.vm
        deadline = time.monotonic() + host_s
        time.sleep(min(guest_s / 2.0, 10))
        while True:
            st = vm.status()
            if int(st["uptime_ms"]) >= guest_s * 1000:
                return st, vm.sources()
            if time.monotonic() > deadline:
                raise Timeout("%s: guest time stuck at %s ms" % (cfg.name, st["uptime_ms"]))
            time.sleep(2)
    finally:
        b.close()


def run_config(cfg, restarts, n, jobs, work, log, minutes=None):
    """restarts boots of cfg (or, with `minutes`, as many of them as are
    started within that budget), jobs at a time, and the credit boot."""
    t0 = time.monotonic()
    rows = {}
    timeout = 300 if cfg.emu == "bochs" else 180
    stop = None if minutes is None else t0 + 60.0 * minutes
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        credit = pool.submit(credit_boot, cfg, work)
        running, results, started = set(), [], 0
        while started < restarts and (stop is None or time.monotonic() < stop):
            while len(running) >= jobs:
                done, running = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED)
                results += [f.result() for f in done]
            running.add(pool.submit(one_restart, cfg, n, work, timeout))
            started += 1
        results += [f.result() for f in running]
        st, src = credit.result()
    restarts = len(results)
    for res in results:
        for name, vals in res.items():
            rows.setdefault(name, []).append(vals)
    log("%s: %d restarts in %.0f s wall" % (cfg.name, restarts, time.monotonic() - t0))
    out = []
    for name in sorted(rows):
        width = min(len(r) for r in rows[name])
        if width < 2 or len(rows[name]) < 2:
            out.append((cfg, name, None, src.get(name, {}), st))
            continue
        m = [r[:width] for r in rows[name]]
        h_i = int(src.get(name, {}).get("h_milli", "0")) / 1000.0
        out.append((cfg, name, (m, restart.assess(m, h_i)), src.get(name, {}), st))
    return out


def min_restarts_to_fail(h_i, c=1000):
    """The fewest restarts r with which a column of one value (r of r)
    exceeds its cutoff at H_I: below it no verdict of 'fail' is possible."""
    for r in range(2, 1001):
        if restart.binom_cutoff(r, 2.0 ** -h_i, 0.01 / (r + c)) < r:
            return r
    return None


def md_intro(args, started, wall, stamp):
    """The file's opening: what was run, how, and the table's head."""
    bochs = ("as many as %g minutes a machine allowed, up to %d" % (args.bochs_minutes,
                                                                      args.bochs_restarts)
             if args.bochs_minutes else "%d" % args.bochs_restarts)
    bochs += ", the machines at the same time, %d boot%s each" % (
        args.bochs_each, "" if args.bochs_each == 1 else "s")
    return ["# Restart test (SP 800-90B 3.1.4) on the emulators the suite boots", "",
            "Written by `make restart-test RESTART=%s` (scripts/restart_test.py)." % args.size, "",
            "- date: %s" % started,
            "- image %s, %s, %s" % (os.path.relpath(ELF), qemu_version(), cpu_model()),
            "- size: %s: %d restarts of %d samples per QEMU configuration; Bochs: %s"
            % (args.size, args.restarts, args.samples, bochs),
            "- run time: %.0f s on a 2-core host, %d boots at a time (host-timed"
            " configurations ran under that load)" % (wall, args.jobs)] + stamp + [
            "  (scripts/provenance.py: what these figures depend on; the suite fails when one"
            " changes)", "",
            "Each restart is a boot with `record=N`: a source's first N samples from boot,"
            " taken with no console input; a disk gets fewer than N before the timer and"
            " rtc are done and the harness reads, and its matrix is as wide as every"
            " restart reached. Symbols are the meter's: the shifted delta's low 8 bits."
            " H_I is the meter's claim (h_milli / 1000) in a boot of the same"
            " configuration without `record=`, left alone for %d s of guest time, and"
            " credited is that boot's credit for the source. The sanity check (3.1.4.3)"
            " compares the most common value's count in each row (X_r) and each column"
            " (X_c) with the binomial cutoffs U at alpha = 0.01/(r+c); H_r and H_c are"
            " the MCV estimates (6.3.1) of the row and column datasets (equal: MCV does"
            " not see order). A source that fails the check and was credited fails"
            " `make restart-test`." % CREDIT_GUEST_S, "",
            "The standard's size is 1,000 restarts of 1,000 samples (3.1.4);"
            " `RESTART=quick` (the default) is smaller, so that it runs in minutes. Fewer"
            " restarts are enough for the verdict when the column of one value they show"
            " already exceeds its cutoff: `min r` is the fewest restarts with which a column"
            " of one value exceeds U at the claimed H_I; a pass with fewer restarts than the"
            " standard's says less than the standard's would. A column of one value in every"
            " one of fewer than `min r` restarts is `undecided`, and counts as a failure"
            " where the source was credited.", "",
            "| configuration | source | restarts | samples | X_r | X_c (column MCV) | U row/col |"
            " H_r | H_c | H_I claimed | min r | sanity | credited | verdict |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def write_md(path, results, args, started, wall, stamp):
    lines = md_intro(args, started, wall, stamp)
    failed = False
    for cfg, name, res, src, st in results:
        credited = int(src.get("credited", "0") or 0)
        if res is None:
            lines.append("| %s | %s | - | - | - | - | - | - | - | - | - | no samples | %d | %s |"
                         % (cfg.name, name, credited, "ok" if credited == 0 else "unknown"))
            continue
        m, a = res
        mr = min_restarts_to_fail(a["h_i"], a["samples"]) if a["h_i"] > 0 else None
        # Too few restarts to fail a column that is one value in every
        # restart: undecided, which counts as failing where it was credited.
        undecided = a["sanity"] and mr is not None and a["restarts"] < mr and a["x_c"] == a["restarts"]
        bad = (not a["sanity"] or undecided) and credited > 0
        failed |= bad
        lines.append("| %s | %s | %d | %d | %d | %d | %d/%d | %.3f | %.3f | %.3f | %s | %s | %d | %s |"
                     % (cfg.name, name, a["restarts"], a["samples"], a["x_r"], a["x_c"],
                        a["u_row"], a["u_col"], a["h_r"], a["h_c"], a["h_i"],
                        mr if mr else "-",
                        "undecided" if undecided else "pass" if a["sanity"] else "FAIL", credited,
                        "FAILURE: credited" if bad else "ok"))
    lines += ["", "Configurations:", ""]
    for cfg in CONFIGS:
        lines.append("- `%s`: %s; a blank disk as ata0; options `%s record=N`%s." % (
            cfg.name, cfg.desc, APPEND, " (an ISO built for them, fixed time0)" if cfg.emu == "bochs" else ""))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return failed


def main():
    global BLANK
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", choices=sorted(SIZES), default="quick")
    ap.add_argument("--restarts", type=int)
    ap.add_argument("--bochs-restarts", type=int)
    ap.add_argument("--bochs-minutes", type=float)
    ap.add_argument("--samples", type=int)
    # 3: a boot waits on its sockets and serial lines; three keep two cores busy
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--only", action="append")
    ap.add_argument("--out", default=os.path.join("docs", "restart.md"))
    ap.add_argument("--dump", help="a directory for each matrix as ea_restart's row dataset")
    args = ap.parse_args()
    for k, v in SIZES[args.size].items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    stamp = provenance.stamp("docs/restart.md")
    work = tempfile.mkdtemp(prefix="rand86-restart-")
    from rand86.bochs import blank_disk
    BLANK = blank_disk(os.path.join(work, "blank.img"))
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.monotonic()
    chosen = [c for c in CONFIGS if not args.only or c.name in args.only]
    if any(c.emu == "bochs" for c in chosen) and shutil.which("bochs") is None:
        sys.exit("bochs is not installed (scripts/deps)")
    def log(line):
        print(line, flush=True)
    done = {}
    for cfg in chosen:
        if cfg.emu == "qemu":
            done[cfg.name] = run_config(cfg, args.restarts, args.samples, args.jobs, work, log)
    machines = [c for c in chosen if c.emu == "bochs"]
    args.bochs_each = max(1, args.jobs // max(1, len(machines)))   # boots a machine at a time
    if machines:
        with concurrent.futures.ThreadPoolExecutor(len(machines)) as pool:
            runs = {c.name: pool.submit(run_config, c, args.bochs_restarts, args.samples,
                                        args.bochs_each, work, log,
                                        args.bochs_minutes) for c in machines}
            done.update((name, f.result()) for name, f in runs.items())
    results = []
    for cfg in chosen:
        res = done[cfg.name]
        for row in res:
            if args.dump and row[2]:
                os.makedirs(args.dump, exist_ok=True)
                with open(os.path.join(args.dump, "%s-%s.bin" % (cfg.name, row[1])), "wb") as f:
                    f.write(restart.to_bytes(row[2][0]))
        results += res
    failed = write_md(args.out, results, args, started, time.monotonic() - t0, stamp)
    shutil.rmtree(work, ignore_errors=True)
    print(open(args.out).read())
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
