#!/usr/bin/python3
"""`make soak`: ten minutes of everything at once, checking docs/PROTOCOL.md's invariants.

Boots build/rand86.elf under QEMU with an ISA NE2000 on a dgram netdev and
an IDE disk image, then, until the time is up:
  - keys arrive on the PS/2 keyboard at random gaps (QMP);
  - a peer floods the NIC: normal frames, every length 1..1600, junk, the
    15,000-byte frame that once wedged the ring;
  - garbage arrives on COM2 (the stream port), which is read meanwhile;
  - the console runs status, sources, random, urandom (hex and bin),
    stream with Ctrl-C in the same write, CRLF lines, and bursts of
    garbage, in a loop.
Every `status` is checked: it answers, uptime_ms never went back, and
credited_bits == primary_bits + secondary_bits + spent_bits and
random_bytes * 8 <= spent_bits when status has spent_bits; untrusted
sources never earn bits. Prints figures at the end; exits 1 on the first
broken invariant (with what broke), 0 otherwise. Not part of `make test`.
Standard library only.
"""
import argparse
import os
import random
import sys
import tempfile
import threading
import time

from rand86 import BROADCAST, SRC_MAC, Rand86, Timeout, Wire

PROMPT_AFTER = rb"\r\n(ok|error: [^\r\n]*)\r\nrand86> "
KEYS = ["a", "s", "d", "f", "j", "k", "l", "up", "right", "kp_enter"]


class Broken(Exception):
    pass


class Soak:
    def __init__(self, vm, wire, rnd):
        self.vm, self.wire, self.rnd = vm, wire, rnd
        self.stop = threading.Event()
        self.n = dict(status=0, commands=0, keys=0, frames_sent=0, com2_in=0,
                      garbage_bytes=0, ctrl_c=0, random_waits=0)
        self.last_uptime = -1
        self.last_host = None
        self.max_latency = 0.0
        self.errors = []

    # ---- background load ----
    def keys(self):
        while not self.stop.is_set():
            try:
                self.vm.key(self.rnd.choice(KEYS))
                self.n["keys"] += 1
            except Exception as e:            # QMP gone: the main loop will notice
                self.errors.append("keys: %s" % e)
                return
            time.sleep(self.rnd.uniform(0.02, 0.2))

    def frames(self):
        rnd = random.Random(self.rnd.random())
        crafted = bytearray(15000)
        crafted[0:14] = BROADCAST + SRC_MAC + b"\x08\x00"
        for off in range(252, len(crafted) - 3, 256):
            crafted[off:off + 4] = b"\x01\x50\xff\xff"
        base = BROADCAST + SRC_MAC + b"\x08\x00" + bytes(range(256)) * 7
        i = 0
        while not self.stop.is_set():
            kind = i % 200
            if kind == 0:
                self.wire.send(bytes(crafted))
            elif kind < 50:
                self.wire.send(base[:1 + (i * 37) % 1600])
            elif kind < 60:
                self.wire.send(os.urandom(rnd.randrange(1, 3000)))
            else:
                self.wire.send(BROADCAST + SRC_MAC + b"\x08\x00" + i.to_bytes(4, "big") + bytes(46))
            i += 1
            if i % 25 == 0:
                time.sleep(0.003)
        self.n["frames_sent"] = i

    def com2(self):
        while not self.stop.is_set():
            try:
                self.vm.com2.write(os.urandom(self.rnd.randrange(1, 64)))
            except OSError as e:
                self.errors.append("com2: %s" % e)
                return
            self.n["com2_in"] += self.vm.com2.available()
            self.vm.com2.skip_all()
            time.sleep(0.01)

    # ---- checks ----
    def check_status(self):
        t = time.monotonic()
        st = self.vm.status()
        self.max_latency = max(self.max_latency, time.monotonic() - t)
        self.n["status"] += 1
        up = int(st["uptime_ms"])
        if up < self.last_uptime:
            raise Broken("uptime_ms went back: %d -> %d" % (self.last_uptime, up))
        host = time.monotonic()
        if self.last_host is not None:
            # Forward too: the guest clock may not run far ahead of host time
            # (a 5.4-day jump of uptime_ms was seen once, 130 s into a soak).
            ahead = (up - self.last_uptime) - (host - self.last_host) * 1000
            if ahead > 2000 + (host - self.last_host) * 100:
                raise Broken("uptime_ms jumped ahead: %d -> %d in %.1f host s"
                             % (self.last_uptime, up, host - self.last_host))
        self.last_host = host
        self.last_uptime = up
        if "spent_bits" in st:
            cred, spent = int(st["credited_bits"]), int(st["spent_bits"])
            pools = int(st["primary_bits"]) + int(st["secondary_bits"])
            if cred != pools + spent:
                raise Broken("conservation: credited_bits %d != primary+secondary %d + spent_bits %d"
                             % (cred, pools, spent))
            if int(st["random_bytes"]) * 8 > spent:
                raise Broken("random_bytes %s * 8 > spent_bits %d" % (st["random_bytes"], spent))
        if "console_rx_dropped" not in st:
            raise Broken("status has no console_rx_dropped")
        return st

    def check_sources(self):
        src = self.vm.sources()
        for name, f in src.items():
            if f.get("trust") == "untrusted" and (f.get("bits", "0") != "0" or f.get("credited", "0") != "0"):
                raise Broken("untrusted source %s earned bits: %r" % (name, f))
        return src

    # ---- console work ----
    def run_random(self):
        self.vm.send(b"random 8\r\n")            # CRLF on purpose
        try:
            m = self.vm.com1.expect(PROMPT_AFTER, 5)
        except Timeout:
            self.n["random_waits"] += 1
            self.vm.send(b"\x03")
            m = self.vm.com1.expect(PROMPT_AFTER, 10)
            if not m.group(1).startswith(b"error: interrupted"):
                raise Broken("random after Ctrl-C: %r" % m.group(0))

    def run_stream(self):
        self.vm.send(b"stream urandom\r\x03")
        m = self.vm.com1.expect(PROMPT_AFTER, 10)
        if m.group(1) != b"ok":
            raise Broken("stream with Ctrl-C ended %r" % m.group(1))
        self.n["ctrl_c"] += 1

    def run_garbage(self):
        # no lowercase letters: garbage must not spell a command (reboot, halt)
        g = bytes(b for b in os.urandom(self.rnd.randrange(1, 400)) if not 0x61 <= b <= 0x7a)
        self.vm.send(g)
        self.n["garbage_bytes"] += len(g)
        self.vm.settle(quiet=0.3, timeout=30)

    def step(self):
        self.check_status()
        op = self.n["commands"] % 7
        if op == 0:
            self.check_sources()
        elif op == 1:
            self.run_random()
        elif op == 2:
            self.vm.ok("urandom 512")
        elif op == 3:
            self.vm.send(b"urandom 4096 bin\r")
            self.vm.com1.expect(rb"\r\nok\r\nrand86> ", 20)
        elif op == 4:
            self.run_stream()
        elif op == 5:
            self.run_garbage()
        else:
            self.vm.ok("help")
        self.vm.com1.skip_all()
        self.n["commands"] += 1


def soak_disk():
    fd, disk = tempfile.mkstemp(prefix="rand86-soak-", suffix=".img")
    os.close(fd)
    with open(disk, "wb") as f:
        f.truncate(4 * 1024 * 1024)
    return disk


def run_load(vm, s, seconds):
    """Everything at once for `seconds`; 0, or 1 when the appliance broke."""
    t0 = time.monotonic()
    next_report = t0 + 30
    try:
        while time.monotonic() - t0 < seconds:
            s.step()
            if vm.proc.poll() is not None:
                raise Broken("QEMU exited (%s)" % vm.proc.returncode)
            if time.monotonic() > next_report:
                next_report += 30
                print("soak: %3d s, %d commands, uptime_ms %d" % (
                    time.monotonic() - t0, s.n["commands"], s.last_uptime), flush=True)
    except (Broken, Timeout, AssertionError) as e:
        print("soak: BROKEN after %d s: %s" % (time.monotonic() - t0, e), flush=True)
        return 1
    return 0


def report(s, st0, st, src, seconds, seed):
    ne = src.get("ne2k0", {})
    print("soak: %d s, seed %d: OK" % (seconds, seed))
    print("  commands %(commands)d, status checks %(status)d, keys %(keys)d, "
          "frames sent %(frames_sent)d, COM2 stream bytes read while garbage went in %(com2_in)d, "
          "COM1 garbage bytes %(garbage_bytes)d, stream+Ctrl-C %(ctrl_c)d, "
          "random waits cut by Ctrl-C %(random_waits)d" % s.n)
    print("  uptime_ms %s, credited_bits %s -> %s, spent_bits %s, random_bytes %s, "
          "urandom_bytes %s, console_rx_dropped %s, main_loop_passes %s" % (
              st["uptime_ms"], st0["credited_bits"], st["credited_bits"],
              st.get("spent_bits", "(absent)"), st["random_bytes"], st["urandom_bytes"],
              st["console_rx_dropped"], st["main_loop_passes"]))
    print("  ne2k0: %s" % " ".join("%s=%s" % kv for kv in sorted(ne.items())))
    print("  keyboard: events=%s bits=%s; slowest status %.2f s; thread errors %r" % (
        src.get("keyboard", {}).get("events"), src.get("keyboard", {}).get("bits"),
        s.max_latency, s.errors))


def soak(vm, wire, rnd, seconds, seed):
    s = Soak(vm, wire, rnd)
    threads = [threading.Thread(target=f, daemon=True) for f in (s.keys, s.frames, s.com2)]
    for t in threads:
        t.start()
    st0 = s.check_status()
    rc = run_load(vm, s, seconds)
    s.stop.set()
    for t in threads:
        t.join(5)
    if rc:
        return rc
    try:
        st, src = s.check_status(), s.check_sources()
    except (Broken, Timeout, AssertionError) as e:
        print("soak: BROKEN at the end: %s" % e)
        return 1
    report(s, st0, st, src, seconds, seed)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    disk, wire = soak_disk(), Wire()
    extra = wire.netdev() + ["-device", "ne2k_isa,netdev=n0,iobase=0x300,irq=9",
                             "-drive", "file=%s,format=raw,if=ide,index=0" % disk]
    print("soak: %d s, seed %d" % (args.seconds, seed), flush=True)
    with Rand86(extra=extra) as vm:
        rc = soak(vm, wire, random.Random(seed), args.seconds, seed)
    wire.close()
    os.unlink(disk)
    return rc


if __name__ == "__main__":
    sys.exit(main())
