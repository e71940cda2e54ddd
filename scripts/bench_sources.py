"""bench's figures of what rand86's inputs and clients get: (i)-(k) and the EGD client.

Headless sources, the Linux guest over rng-egd, typists over QMP and
NE2000 floods; each function boots its own machines and returns figures.
"""
import os
import random
import shutil
import tempfile
import time

from rand86 import (BROADCAST, GUEST, SRC_MAC, Rand86, Timeout, Wire, com2_socket, key_event,
                    run_linux_guest, run_linux_guest_rngd)
from scripts.bench_build import Failed


# ---------------------------------------------------------------- (i) headless
HEADLESS_SECONDS = 30.0
# (source, samples captured for ea_non_iid); the rtc's capture fits the
# 4096-sample ring, so its samples are consecutive
HEADLESS_SOURCES = (("timer", 10000), ("ata0", 400), ("rtc", 4000))


def capture(vm, name, n):
    """`samples NAME n` through the harness; its lines, or Failed."""
    try:
        lines = vm.samples(name, n)
    except Timeout as e:
        raise Failed("samples %s %d: %s" % (name, n, e))
    if not lines or lines[-1] != "ok":
        raise Failed("samples %s %d ended %r" % (name, n, lines[-1:]))
    return lines


def headless_figures():
    """Idle appliance with a disk: credited rate per source, then captures."""
    from rand86 import samples2bin
    res = {}
    with tempfile.TemporaryDirectory(prefix="rand86-bench-") as tmp:
        img = os.path.join(tmp, "disk.img")
        with open(img, "wb") as f:
            f.truncate(1024 * 1024)
        with Rand86(extra=["-drive", "file=%s,format=raw,if=ide,index=0" % img]) as vm:
            time.sleep(2.0)                           # past the timer's 64-sample warm-up
            s0, t0 = vm.sources(), time.monotonic()
            time.sleep(HEADLESS_SECONDS)
            s1, t1 = vm.sources(), time.monotonic()
            for name, n in HEADLESS_SOURCES:
                if name not in s1:
                    raise Failed("no source %s" % name)
                a, z = s0[name], s1[name]
                ev = int(z["events"]) - int(a["events"])
                cr = int(z["credited"]) - int(a["credited"])
                res[name] = {"bps": cr / (t1 - t0), "per_sample": cr / max(1, ev),
                             "events_ps": ev / (t1 - t0), "h_milli": int(z["h_milli"]),
                             "health": z["health"], "ea": None, "n": 0}
            if not shutil.which("ea_non_iid"):
                return res
            for name, n in HEADLESS_SOURCES:
                samples, _ = samples2bin.parse(capture(vm, name, n))
                res[name]["n"] = len(samples)
                res[name]["ea"] = samples2bin.ea_non_iid(samples2bin.symbols(samples))
    return res


# ---------------------------------------------------------------- EGD client
GUEST_BYTES = 1024


def guest_rate(typing):
    """Bytes a second a Linux guest reads from /dev/hwrng through virtio-rng,
    rand86 answering its rng-egd over COM2 (stream=egd, default hz), timed
    by the guest's /proc/uptime around the read; with typing, keys go to
    rand86 over QMP meanwhile."""
    import threading
    sock = os.path.join(tempfile.mkdtemp(prefix="rand86-bench-egd-"), "egd.sock")
    with Rand86(append="stream=egd", com2=False, extra=com2_socket(sock)) as vm:
        res = {}
        t = threading.Thread(target=lambda: res.update(run_linux_guest(sock, GUEST_BYTES, 300)))
        t.start()
        while t.is_alive():
            if typing:
                vm.key("asdfjkl"[int(time.monotonic() * 37) % 7], gap=0.03)
            else:
                time.sleep(0.2)
    if int(res.get("hwrng_bytes", 0)) != GUEST_BYTES:
        raise Failed("the guest read %r" % res)
    t0, t1 = (float(x) for x in res["hwrng_uptime"].split())
    return GUEST_BYTES / max(t1 - t0, 0.01)


RNGD_SECONDS = 10
FIPS_BLOCK = 2500              # rng-tools 5's FIPS_RNG_BUFFER_SIZE


def rngd_blocks():
    """FIPS blocks rngd reads from the guest's ttyS1 (rand86's COM2,
    stream=urandom) in RNGD_SECONDS of the guest's time, as
    tests/qemu/test_linux_guest.py runs it (docs/CLIENTS.md)."""
    sock = os.path.join(tempfile.mkdtemp(prefix="rand86-bench-tty-"), "com2.sock")
    with Rand86(append="stream=urandom", com2=False, extra=com2_socket(sock)) as vm:
        vm.seed()
        res = run_linux_guest_rngd(sock, RNGD_SECONDS)
    if res.get("rngd_end") != "killed by SIGTERM":
        raise Failed("rngd did not run its %d s: %r" % (RNGD_SECONDS, res))
    return int(res["tty_bytes"]) // FIPS_BLOCK


def guest_rates():
    if not os.path.exists(os.path.join(GUEST, "initrd.gz")):
        raise Failed("no Linux guest: scripts/linux-guest build")
    return guest_rate(False), guest_rate(True), rngd_blocks()


# ---------------------------------------------------------------- (j) typists
TYPIST_KEYS = 160


def type_keys(vm, keys):
    """keys: (hold, gap) pairs, timed on this host; the keyboard's fields
    once every edge is counted."""
    t = time.monotonic() + 0.2
    for hold, gap in keys:
        for down, wait in ((True, hold), (False, gap)):
            time.sleep(max(0.0, t - time.monotonic()))
            vm.qmp.execute("input-send-event", events=[key_event("a", down)])
            t += wait
    deadline = time.monotonic() + 30
    while int(vm.sources()["keyboard"]["events"]) < 2 * len(keys):
        if time.monotonic() > deadline:
            raise Failed("the keyboard did not count %d edges" % (2 * len(keys)))
        time.sleep(0.2)
    time.sleep(0.3)                        # the last flushes
    return vm.sources()["keyboard"]


def typist_figures():
    rnd = random.Random(12)
    out = {}
    for name, keys in (("metronome", [(0.0, 0.05)] * TYPIST_KEYS),
                       ("irregular", [(rnd.uniform(0.03, 0.2), min(0.4, 0.02 + rnd.expovariate(1 / 0.08)))
                                      for _ in range(TYPIST_KEYS)])):
        with Rand86() as vm:
            out[name] = type_keys(vm, keys)
    return out


# ---------------------------------------------------------------- (k) NE2000 flood
FLOOD_SECONDS = 10.0
NE2K_CARDS = {"isa": ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9"],
              "pci": ["-device", "ne2k_pci,netdev=n0"]}


def recovery_guest_ms(vm, wire, bound=10.0):
    u0 = int(vm.status()["uptime_ms"])
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        base = int(vm.sources()["ne2k0"]["frames"])
        wire.flood(50)
        time.sleep(0.05)
        if int(vm.sources()["ne2k0"]["frames"]) - base >= 40:
            return int(vm.status()["uptime_ms"]) - u0
    raise Failed("frames do not flow %.0f s after the flood" % bound)


def flood_figure(card):
    wire = Wire()
    frame = BROADCAST + SRC_MAC + b"\x08\x00" + bytes(range(256)) * 7
    try:
        with Rand86(append="stream=off", extra=wire.netdev() + NE2K_CARDS[card]) as vm:
            base, sent = int(vm.sources()["ne2k0"]["frames"]), 0
            end = time.monotonic() + FLOOD_SECONDS
            while time.monotonic() < end:
                for n in range(1, 1601):
                    wire.send(frame[:n])
                    sent += 1
                    if n % 25 == 0:
                        time.sleep(0.001)
            counted = int(vm.sources()["ne2k0"]["frames"]) - base
            return {"sent": sent, "counted": counted, "ms": recovery_guest_ms(vm, wire),
                    "resets": vm.sources()["ne2k0"]["resets"]}
    finally:
        wire.close()


def flood_figures():
    return {card: flood_figure(card) for card in NE2K_CARDS}
