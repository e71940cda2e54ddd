"""bench's timings of rand86 under QEMU: (a) bench, (e)-(h) boots, streams, 486 speed, (l) an old PC.

Each function boots its own machine (or several) and returns figures;
the PIT clock's ratio to host time is here too.
"""
import os
import select
import statistics
import subprocess
import tempfile
import time

from rand86 import ELF, Rand86, SerialPort, accel, qemu_argv
from scripts.bench_build import Failed

CEILING = os.path.join(os.path.dirname(ELF), "uart-ceiling.elf")

BENCH_RUNS = 3
BOOTS = 3
STREAM_SECONDS = 3.0
MEM_TRIES = range(1, 17)       # MiB
MEM_BOOT_TIMEOUT = 8.0         # s; a TCG boot takes well under 1 s


# ---------------------------------------------------------------- (a) bench
def qemu_bench():
    runs = []
    with Rand86() as vm:
        for _ in range(BENCH_RUNS):
            out = {}
            for line in vm.ok("bench", 60):
                if ": " in line and not line.startswith("#"):
                    k, v = line.split(": ", 1)
                    out[k] = v
            runs.append(out)
    unit = runs[0].get("unit")
    res = {"unit": unit}
    for k in runs[0]:
        if k == "unit":
            continue
        vals = [int(r[k]) for r in runs if r.get(k, "").isdigit()]
        if len(vals) != len(runs):
            raise Failed("bench key %s is not a number in every run: %r" % (k, runs))
        res[k] = int(statistics.median(vals))
    for k in ("add_timing_entropy", "add_timing_entropy_1999", "batch_flush",
              "extract_per_byte", "urandom_bytes_per_s", "boot_to_prompt_ms", "cpu_khz"):
        if k not in res:
            raise Failed("bench printed no %s: %r" % (k, runs[0]))
    return res


# ---------------------------------------------------------------- seeding under TCG
SEED_BOUND_MS = 5000           # the timer alone seeds a TCG boot in seconds


def tcg_seeded_ms():
    """seeded_ms of BOOTS TCG boots seeded by the timer alone (rtc=off):
    how fast depends on how much host the guest gets, so it is a bench
    figure; the suite checks only that such a boot seeds."""
    times = []
    for _ in range(BOOTS):
        with Rand86(append="stream=off rtc=off") as vm:
            deadline = time.monotonic() + 60
            while vm.status()["seeded"] != "1":
                if time.monotonic() > deadline:
                    raise Failed("a TCG boot did not seed from the timer in 60 s")
                time.sleep(0.2)
            times.append(int(vm.status()["seeded_ms"]))
    return statistics.median(times), times


# ---------------------------------------------------------------- (e), (f) raw boots
def boot_to_prompt(mem=None, timeout=MEM_BOOT_TIMEOUT):
    """Start QEMU with COM1 on stdout; return (seconds to the prompt or None, note)."""
    argv = qemu_argv(accel(), com1="stdio", com2="null", mem=mem)
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    buf = b""
    try:
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                return None, "no prompt within %.0f s (%d bytes of console output)" % (timeout, len(buf))
            r, _, _ = select.select([p.stdout], [], [], left)
            if not r:
                continue
            data = os.read(p.stdout.fileno(), 65536)
            if not data:
                p.wait(5)
                msg = buf.decode(errors="replace").strip().splitlines()
                return None, "QEMU exited (status %s): %s" % (p.returncode, msg[-1] if msg else "no output")
            buf += data
            if b"rand86> " in buf:
                return time.monotonic() - t0, "booted"
    finally:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def smallest_mem():
    tries = []
    for m in MEM_TRIES:
        secs, note = boot_to_prompt(m)
        tries.append((m, note))
        if secs is not None:
            return m, tries
    return None, tries


def wall_to_prompt():
    times = []
    for _ in range(BOOTS):
        secs, note = boot_to_prompt(timeout=60)
        if secs is None:
            raise Failed("boot to prompt: %s" % note)
        times.append(secs)
    return statistics.median(times), times


# ---------------------------------------------------------------- (g) streams
def rate(port, seconds):
    port.read_exact(1, 30)               # flowing
    n0, t0 = port.available(), time.monotonic()
    time.sleep(seconds)
    n1, t1 = port.available(), time.monotonic()
    return (n1 - n0) / (t1 - t0)


# Rounds, not runs: the host's two cores move QEMU's threads and the
# reader between placements that change what a port carries by up to 2x
# (the baseline guest alone: 160-317 KB/s in one run), and a placement
# lasts tens of seconds. Boots of the baseline and of both streams taken
# in turn meet the same phases, so their medians compare like with like.
STREAM_ROUNDS = 5


def stream_rates():
    """bytes a second received in STREAM_ROUNDS rounds of three boots each:
    the baseline (scripts/ceiling/uart.c, read as rand86's ports are read:
    SerialPort on a chardev socket), urandom on COM1 and on COM2."""
    out = {"ceiling": [], "com1": [], "com2": []}
    for _ in range(STREAM_ROUNDS):
        out["ceiling"].append(uart_ceiling_rate())
        out["com1"].append(com1_stream_rate())
        out["com2"].append(com2_stream_rate())
    return out


def uart_ceiling_rate():
    """One boot of the baseline guest: bytes a second received on COM1."""
    if not os.path.exists(CEILING):
        raise Failed("%s missing: make bench builds it" % CEILING)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "com1")
        argv = qemu_argv(accel(), com1="socket,path=%s,server=on,wait=on" % path, kernel=CEILING)
        q = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port = SerialPort(path)
            try:
                return rate(port, STREAM_SECONDS)
            finally:
                port.close()
        finally:
            q.kill()
            q.wait()


def com1_stream_rate():
    with Rand86() as vm:
        vm.send("stream urandom\r")
        vm.com1.expect(rb"stream urandom\r\n")
        bps = rate(vm.com1, STREAM_SECONDS)
        vm.send(b"\x03")
        vm.com1.expect(rb"\r\nok\r\nrand86> ", 60)
    return bps


def com2_stream_rate():
    with Rand86(append="stream=urandom") as vm:
        return rate(vm.com2, STREAM_SECONDS)


HEADLESS_RANDOM_SECONDS = 30.0


def com2_random_rate():
    """/dev/random bytes a second on COM2 at the defaults (stream=random),
    nobody typing: what the timer and the rtc earn."""
    with Rand86() as vm:
        return rate(vm.com2, HEADLESS_RANDOM_SECONDS)


# ---------------------------------------------------------------- (h) icount
ICOUNT_SHIFT = 6
NS_PER_INSN = 1 << ICOUNT_SHIFT
ICOUNT_BYTES = 100000
ICOUNT_TRIES = 5


def guest_ms_for(vm, line, nbytes, timeout=300):
    """Guest milliseconds (status uptime_ms) that `line` takes to print nbytes or more."""
    t0 = int(vm.status()["uptime_ms"])
    vm.send(line + "\r")
    vm.com1.read_exact(nbytes, timeout)
    vm.com1.expect(rb"\r\nok\r\nrand86> ", timeout)
    return int(vm.status()["uptime_ms"]) - t0


def icount_figures():
    """bench and COM1 urandom under -icount: the TSC then counts virtual ns."""
    res = {}
    with Rand86(accel_name="tcg", extra=["-icount", "shift=%d,sleep=off" % ICOUNT_SHIFT]) as vm:
        out = {}
        for line in vm.ok("bench", 300):
            if ": " in line and not line.startswith("#"):
                k, v = line.split(": ", 1)
                out[k] = v
        if out.get("unit") != "cycles":
            raise Failed("bench under icount printed unit %r" % out.get("unit"))
        ns = 1e6 / int(out["cpu_khz"])              # TSC ticks are virtual ns (cpu_khz ~1e6)
        for k in ("add_timing_entropy", "batch_flush", "extract_per_byte", "rtc_period"):
            res[k] = int(out[k]) * ns / NS_PER_INSN
        res["bench_bps"] = int(out["urandom_bytes_per_s"])
        n = ICOUNT_BYTES
        # Under -icount ...,sleep=off no source credits without input (the
        # timer's deltas are exact), so urandom waits for seeding: type first.
        vm.seed()
        # The least of a few: when the host reader falls behind, QEMU's
        # chardev holds THRE clear, the guest idles and guest time jumps.
        ms = min(guest_ms_for(vm, "urandom %d bin" % n, n) for _ in range(ICOUNT_TRIES))
        res["bin_bps"] = n * 1000.0 / ms
        res["bin_insn"] = ms * 1e6 / NS_PER_INSN / n
        # hex: 64 digits and CRLF a 32-byte line
        ms = min(guest_ms_for(vm, "urandom %d" % n, n * 2 + (n // 32) * 2) for _ in range(ICOUNT_TRIES))
        res["hex_bps"] = n * 1000.0 / ms
        res["hex_insn"] = ms * 1e6 / NS_PER_INSN / n
    return res


def urandom_bin_486(append):
    """-cpu 486 (no TSC: the rtc timed by the PIT latch) at 16 MIPS:
    `urandom N bin` on COM1 in bytes a second of guest time."""
    with Rand86(accel_name="tcg", cpu="486", append=append,
                extra=["-icount", "shift=%d,sleep=off" % ICOUNT_SHIFT]) as vm:
        vm.seed()
        ms = min(guest_ms_for(vm, "urandom %d bin" % ICOUNT_BYTES, ICOUNT_BYTES)
                 for _ in range(ICOUNT_TRIES))
    return ICOUNT_BYTES * 1000.0 / ms


URANDOM_486_BYTES = 40000


def rtc_cost_486():
    """urandom at 16 MIPS on a 486 with the rtc at its default rate, and off."""
    return {"default": urandom_bin_486(""), "off": urandom_bin_486("rtc=off")}


# ---------------------------------------------------------------- PIT clock
def pit_clock_ratio():
    """-cpu 486 (the PIT clock) at hz=1000: guest uptime_ms over host ms for
    4 s. Host time, so a figure here and not a test: a loaded host can
    leave QEMU's PIT timer unserved past channel 2's 55 ms period, which
    no PIT count can see across."""
    with Rand86(cpu="486", append="hz=1000 stream=off") as vm:
        t0, u0 = time.monotonic(), int(vm.status()["uptime_ms"])
        time.sleep(4.0)
        t1, u1 = time.monotonic(), int(vm.status()["uptime_ms"])
    return (u1 - u0) / ((t1 - t0) * 1000)


# ---------------------------------------------------------------- (l) an old PC, the meter running
OLD_PC_GUEST_MS = 30000        # status asked back to back for this long, guest time
OLD_PC_KEY_MS = 125            # a person typing 8 keys a second, guest time
OLD_PC_KEY_BYTES = 2048        # during `urandom N bin`: a key each this many bytes received
BYTE_MS = 10 * 1000.0 / 115200  # one byte on a 115200-baud 8N1 line


def old_pc(shift):
    """-cpu 486 -m 4 -icount shift=SHIFT,sleep=on -rtc clock=vm with
    rtc_jitter=on: guest time is instruction count and the meter measures
    every rtc period, as on a real 386/486 (tests/qemu/test_responsive.py).
    A key over QMP every OLD_PC_KEY_MS of guest time while `status` is asked
    back to back for OLD_PC_GUEST_MS; then `urandom 40000 bin` on COM1 with
    the keys still coming. Returns the guest's own loop_max_us and
    meter_permille after both, the guest ms from one `status` reply to the
    next (the harness's turnaround is in it; QEMU's UART does not pace a
    reply at the line's rate, so it can come sooner than its line time,
    given beside it), and urandom in bytes a guest second."""
    extra = ("-icount", "shift=%d,sleep=on" % shift, "-rtc", "clock=vm")
    with Rand86(cpu="486", mem=4, accel_name="tcg", boot_timeout=300,
                append="rtc_jitter=on", extra=extra) as vm:
        if "every period measured" not in vm.boot_log:
            raise Failed("rtc_jitter=on did not measure the rtc: %r" % vm.boot_log[-300:])
        gaps, prev, last_key = [], None, 0
        while True:
            st = vm.status()
            up = int(st["uptime_ms"])
            if prev is not None:
                gaps.append(up - prev)
            prev = up
            reply = sum(len(k) + len(v) + 4 for k, v in st.items())
            if up - last_key >= OLD_PC_KEY_MS:
                vm.key("a")
                last_key = up
            if up >= OLD_PC_GUEST_MS:
                break
        during = st
        vm.seed()
        t0 = int(vm.status()["uptime_ms"])
        vm.send("urandom %d bin\r" % URANDOM_486_BYTES)
        got = 0
        while got < URANDOM_486_BYTES:
            step = min(OLD_PC_KEY_BYTES, URANDOM_486_BYTES - got)
            vm.com1.read_exact(step, 120)
            got += step
            vm.key("a")
        vm.com1.expect(rb"\r\nok\r\nrand86> ", 120)
        ms = int(vm.status()["uptime_ms"]) - t0
        after = vm.status()
    gaps.sort()
    return {"loop_max_us": int(after["loop_max_us"]), "meter_permille": int(during["meter_permille"]),
            "gap_worst_ms": gaps[-1], "gap_median_ms": gaps[len(gaps) // 2], "replies": len(gaps),
            "line_ms": reply * BYTE_MS, "urandom_bps": URANDOM_486_BYTES * 1000.0 / ms}


def old_pc_figures():
    return {8: old_pc(8), 6: old_pc(6)}
