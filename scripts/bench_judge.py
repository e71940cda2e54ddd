"""bench's table: every figure as (group, measurement, value, target, verdict) rows."""
import statistics
import shutil

from scripts.bench_sources import FLOOD_SECONDS, GUEST_BYTES, HEADLESS_SECONDS, RNGD_SECONDS, TYPIST_KEYS
from scripts.bench_speed import (HEADLESS_RANDOM_SECONDS, ICOUNT_BYTES, ICOUNT_SHIFT, MEM_TRIES,
                                 NS_PER_INSN, SEED_BOUND_MS, URANDOM_486_BYTES)

LINE_115200 = 11520            # bytes/s on a 115200-baud 8N1 line (10 bits a byte)


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
        rows.add("image", "text + data", "%d bytes (%.1f KiB)" % (td, td / 1024.0), "≤ 96 KiB",
                 td <= 96 * 1024)
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
    if f["seed"]:
        med, times = f["seed"]
        rows.add("boot", "TCG boot seeded by the timer alone (rtc=off): seeded_ms (median of %d: %s)" % (
            len(times), ", ".join(str(t) for t in times)),
            "%d ms (%s)" % (med, acc), "≤ %d ms under TCG" % SEED_BOUND_MS, med <= SEED_BOUND_MS,
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
    rows.add("tty client", "rngd on the Linux guest's ttyS1, COM2 stream=urandom: FIPS blocks in "
             "%d s" % RNGD_SECONDS, "%d" % g[2], "≥ 10 (the suite asks only that blocks pass)",
             g[2] >= 10)


# A stream is judged by the share it takes of what the same run's
# baseline guest (scripts/ceiling/uart.c) gets through the same port,
# median against median over boots taken in turn (bench_speed.stream_rates):
# a guest that only writes
# COM1 reached 13-25x a line here under TCG, so a target in lines would
# judge QEMU's 16550 model and the host's reader, not rand86.
CEILING_SHARE = 0.7


def judge_urandom(rows, f):
    b, st, ceiling = f["b"], f.get("streams") or {}, None
    boots = st.get("ceiling")
    if not boots:
        rows.add("urandom", "the serial ceiling: a guest that only writes COM1", NA)
    else:
        ceiling = statistics.median(boots)
        rows.add("urandom", "the serial ceiling: a guest that only writes COM1, as the host "
                 "receives it (median of %d boots, taken in turn with the streams)" % len(boots),
                 "%.0f bytes/s = %.1f× a 115200 line (boots: %s)"
                 % (ceiling, ceiling / LINE_115200, ", ".join("%.0f" % v for v in boots)))
    for what, v in (("urandom on COM1 (`stream urandom`), as the host receives it", st.get("com1")),
                    ("urandom on COM2 (stream=urandom), as the host receives it", st.get("com2"))):
        if not v or ceiling is None:
            rows.add("urandom", what, NA)
        else:
            m = statistics.median(v)
            r = m / ceiling
            rows.add("urandom", what + " (median of %d boots)" % len(v),
                     "%.0f bytes/s = %.1f× a 115200 line = %.2f× the ceiling (boots: %s)"
                     % (m, m / LINE_115200, r, ", ".join("%.0f" % x for x in v)),
                     "≥ %.1f× the ceiling" % CEILING_SHARE, r >= CEILING_SHARE)
    v = b["urandom_bytes_per_s"] if b else None
    what = "urandom inside the appliance (bench urandom_bytes_per_s)"
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
             "%.0f instructions, %.1f%% of 16 MIPS at 512 Hz (the PIT clock's default), %.1f%% at 4096" % (
                 ic["rtc_period"], ic["rtc_period"] * 512 * 100.0 / (1e9 / NS_PER_INSN),
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


def judge_old_pc(rows, pcs):
    g = "an old PC, the meter running"
    if not pcs:
        return rows.add(g, "-cpu 486 -m 4 at 4 and 16 MIPS, rtc_jitter=on", NA)
    for shift, mips, target in ((8, 4, 1.5), (6, 16, 4.0)):
        f, at = pcs[shift], "~%d MIPS (-icount shift=%d): " % (mips, shift)
        rows.add(g, at + "the longest pass of the main loop (status loop_max_us)",
                 "%.1f ms" % (f["loop_max_us"] / 1000.0), "≤ 20 ms", f["loop_max_us"] <= 20000)
        rows.add(g, at + "guest ms from one `status` reply to the next, worst (median) of %d, "
                 "harness turnaround included" % f["replies"],
                 "%.0f ms (%.0f ms); a reply is %.0f ms of a 115200 line" % (
                     f["gap_worst_ms"], f["gap_median_ms"], f["line_ms"]),
                 "≤ line time + 50 ms + turnaround", f["gap_worst_ms"] <= f["line_ms"] + 50 + 250)
        r = f["urandom_bps"] / LINE_115200
        rows.add(g, at + "`urandom %d bin` on COM1, UART included, keys coming" % URANDOM_486_BYTES,
                 "%.0f bytes/s = %.2f× a 115200 line" % (f["urandom_bps"], r), "≥ %.1f×" % target,
                 r >= target)
        rows.add(g, at + "the meter's share of the CPU, last 10 s of typing (status meter_permille)",
                 "%.1f%%" % (f["meter_permille"] / 10.0), "≤ 10%", f["meter_permille"] <= 100)


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
    judge_old_pc(rows, f["oldpc"])
    judge_objects(rows, f["objs"])
    judge_typists(rows, f.get("typists"))
    judge_flood(rows, f.get("flood"))
    return rows
