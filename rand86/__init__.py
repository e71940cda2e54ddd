"""Drive a rand86 QEMU instance: COM1/COM2 over Unix sockets, QMP over a socket.

The one place that knows how rand86 is started under QEMU: qemu_argv()
builds every command line (tests, `make run` through scripts/run.py,
scripts/bench.py, compare.py, rngtest_qemu.py, and the KVM probe in
accel()). Tests and scripts import it by name from the repository's
root (pytest.ini; the scripts run as `python3 -m scripts.NAME`).

Standard library only. Every wait has a timeout; close() always ends QEMU.
"""
import json
import os
import random
import re
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# RAND86_ELF: boot another image (e.g. a build from before a fix) with the same tests.
ELF = os.environ.get("RAND86_ELF") or os.path.join(ROOT, "build", "rand86.elf")
ISO = os.path.join(ROOT, "build", "rand86.iso")
FLOPPY = os.path.join(ROOT, "build", "rand86-floppy.img")
HDD = os.path.join(ROOT, "build", "rand86-hdd.img")
PROMPT = b"rand86> "


QEMU = "qemu-system-i386"
DEBUG_EXIT = "isa-debug-exit,iobase=0xf4,iosize=4"   # `halt CODE` ends QEMU


def qemu_argv(accel, com1=None, com2=None, qmp=None, kernel=ELF, append="",
              cdrom=None, media=None, cpu=None, mem=None, extra=(), defaults=False,
              reboot=False):
    """The QEMU command line for one rand86 machine.

    com1 and com2 are QEMU chardev backends without an id ("stdio",
    "pty", "null", "socket,path=...,server=on,wait=on"); None leaves that
    port out. qmp is a Unix socket path. media (QEMU arguments for a disk
    image whose boot loader starts rand86) or cdrom (an ISO) boots from
    that; otherwise QEMU loads `kernel` by multiboot with `append` as the
    command line. defaults=False gives a machine with only what is asked for
    (-nodefaults plus a VGA card); reboot=False makes a reset end QEMU.
    `extra` (disks, NICs, -M options) goes last."""
    argv = [QEMU, "-accel", accel, "-display", "none"]
    if not reboot:
        argv += ["-no-reboot"]
    if not defaults:
        argv += ["-nodefaults", "-vga", "std"]
    argv += ["-device", DEBUG_EXIT]
    for name, backend in (("com1", com1), ("com2", com2)):
        if backend:
            argv += ["-chardev", "%s,id=%s" % (backend, name), "-serial", "chardev:" + name]
    if qmp:
        argv += ["-qmp", "unix:%s,server=on,wait=off" % qmp]
    if cpu:
        argv += ["-cpu", cpu]
    if mem:
        argv += ["-m", str(mem)]
    if media is not None:
        argv += list(media)
    elif cdrom:
        argv += ["-cdrom", cdrom, "-boot", "d"]
    else:
        argv += ["-kernel", kernel]
        if append:
            argv += ["-append", append]
    return argv + list(extra)


def qemu_version():
    """First line of `qemu-system-i386 --version`, for reports."""
    try:
        out = subprocess.run([QEMU, "--version"], stdout=subprocess.PIPE).stdout.decode()
        return out.splitlines()[0].strip()
    except (OSError, IndexError):
        return "unknown"


_ACCEL = None
ACCEL_PROBE_SECONDS = 5


def probe_kvm(elf=ELF):
    """True when KVM really runs rand86: a probe boot reaches the prompt in
    ACCEL_PROBE_SECONDS. Some hosts offer a /dev/kvm (a paravirtual one,
    kvm-pvm) that stops with an emulation failure on the first iret of a
    32-bit kernel without paging (docs/PC-NOTES.md)."""
    if not (os.access("/dev/kvm", os.R_OK | os.W_OK) and os.path.isfile(elf)):
        return False
    argv = qemu_argv("kvm", com1="stdio", kernel=elf)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=ACCEL_PROBE_SECONDS)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
    return PROMPT in out


def accel():
    """kvm or tcg, decided once: RAND86_ACCEL=kvm|tcg if set, else kvm when
    probe_kvm() says it works."""
    global _ACCEL
    if _ACCEL is None:
        _ACCEL = os.environ.get("RAND86_ACCEL") or ("kvm" if probe_kvm() else "tcg")
    return _ACCEL


# A fixed CMOS clock on QEMU's virtual clock: with it Rand86.rtc_seconds()
# is guest time (months are not counted).
RTC_VM = ["-rtc", "base=2000-01-01T00:00:00,clock=vm"]


# The Linux guest of the client tests (scripts/linux-guest builds it).
GUEST = os.path.join(ROOT, "build", "linux")


def linux_guest_argv(job, extra):
    """A Debian kernel (x86_64, TCG) whose /init runs `job`, kernel
    command-line words that scripts/linux-guest's /init reads
    (hwrng_bytes=N or rngd_seconds=S); `extra` are QEMU arguments for what
    it talks to. Its console, ttyS0, is the process's stdout."""
    return [QEMU.replace("i386", "x86_64"), "-accel", "tcg", "-m", "256", "-nodefaults",
            "-display", "none", "-no-reboot",
            "-kernel", os.path.join(GUEST, "vmlinuz"), "-initrd", os.path.join(GUEST, "initrd.gz"),
            # quality 0: the kernel's hwrng thread does not read on its own
            "-append", "console=ttyS0 loglevel=4 rng_core.default_quality=0 " + job,
            "-serial", "stdio"] + list(extra)


def run_guest(argv, timeout):
    """Boot a guest to the end, draining its console all the while; its
    RESULT lines as a dict."""
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    out = p.stdout.decode(errors="replace")
    m = re.search(r"RESULT_BEGIN\r?\n(.*?)RESULT_END", out, re.S)
    if not m:
        raise Timeout("the guest printed no result: %s" % out[-1500:])
    return dict(l.split(": ", 1) for l in m.group(1).splitlines() if ": " in l)


def run_linux_guest(egd_sock, nbytes, timeout=180):
    """The guest's virtio-rng reads rand86 over QEMU's rng-egd on the Unix
    socket egd_sock; it reads nbytes from /dev/hwrng."""
    return run_guest(linux_guest_argv("hwrng_bytes=%d" % nbytes, [
        "-chardev", "socket,id=egd,path=%s" % egd_sock,
        "-object", "rng-egd,id=rng0,chardev=egd", "-device", "virtio-rng-pci,rng=rng0"]), timeout)


def run_linux_guest_rngd(tty_sock, seconds, timeout=180):
    """The guest's ttyS1 is the Unix socket tty_sock (rand86's COM2); rngd
    reads it for `seconds` (docs/CLIENTS.md's recipe). The CPU has RDRAND,
    as most x86 hosts do: rngd 5 prefers it to the tty unless told not to."""
    return run_guest(linux_guest_argv("rngd_seconds=%d" % seconds, [
        "-cpu", "qemu64,+rdrand",
        "-chardev", "socket,id=tty1,path=%s" % tty_sock, "-serial", "chardev:tty1"]), timeout)


def com2_socket(sock):
    """QEMU arguments for rand86's COM2 as a Unix socket server that a
    guest connects to, such as its rng-egd or its ttyS1 (use with
    com2=False: QEMU drops what a second client writes as it attaches, so
    the harness must not hold it)."""
    return ["-chardev", "socket,id=com2,path=%s,server=on,wait=off" % sock, "-serial", "chardev:com2"]


class Timeout(AssertionError):
    pass


def connect_unix(path, timeout):
    """Connect to a QEMU server socket, retrying until QEMU has created it."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise Timeout("could not connect to %s" % path)
            time.sleep(0.02)


class SerialPort:
    """A QEMU serial chardev socket, read by a thread into a buffer."""

    def __init__(self, path, connect_timeout=30):
        self.buf = bytearray()
        self.pos = 0                     # start of unconsumed data
        self.cond = threading.Condition()
        self.closed = False
        self.sock = connect_unix(path, connect_timeout)
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()

    def _reader(self):
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            with self.cond:
                if not data:
                    self.closed = True
                    self.cond.notify_all()
                    return
                self.buf += data
                self.cond.notify_all()

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def expect(self, pattern, timeout=20):
        """Wait for regex `pattern` (bytes) after the consumed point; consume through it."""
        rx = re.compile(pattern if isinstance(pattern, bytes) else pattern.encode(), re.S)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                m = rx.search(self.buf, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    tail = bytes(self.buf[self.pos:])[-600:]
                    raise Timeout("timed out (%ss) waiting for %r; unconsumed tail: %r"
                                  % (timeout, pattern, tail))
                self.cond.wait(min(left, 0.5))

    def read_exact(self, n, timeout=60):
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.buf) - self.pos < n:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise Timeout("timed out waiting for %d bytes (have %d)"
                                  % (n, len(self.buf) - self.pos))
                self.cond.wait(min(left, 0.5))
            data = bytes(self.buf[self.pos:self.pos + n])
            self.pos += n
            return data

    def unconsumed(self):
        with self.cond:
            return bytes(self.buf[self.pos:])

    def available(self):
        with self.cond:
            return len(self.buf) - self.pos

    def skip_all(self):
        with self.cond:
            self.pos = len(self.buf)

    def read_until(self, end, timeout):
        """Bytes up to the next `end` (consumed with it), scanning linearly:
        a regex over a growing buffer on every read would be quadratic on
        long replies such as `samples NAME 100000`."""
        deadline = time.monotonic() + timeout
        with self.cond:
            start = scan = self.pos
            while True:
                i = self.buf.find(end, max(start, scan - len(end)))
                if i >= 0:
                    break
                scan = len(self.buf)
                if time.monotonic() > deadline or self.closed:
                    raise Timeout("no %r after %d bytes in %ss" % (end, scan - start, timeout))
                self.cond.wait(0.5)
            data = bytes(self.buf[start:i])
            self.pos = i + len(end)
            return data

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class QMP:
    def __init__(self, path, timeout=30):
        self.sock = connect_unix(path, timeout)
        self.sock.settimeout(timeout)
        self.rfile = self.sock.makefile("rb")
        self._read()                      # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while True:
            line = self.rfile.readline()
            if not line:
                raise Timeout("QMP connection closed")
            msg = json.loads(line)
            if "event" in msg:
                continue
            return msg

    def execute(self, cmd, **args):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        msg = self._read()
        if "error" in msg:
            raise RuntimeError("QMP %s failed: %s" % (cmd, msg["error"]))
        return msg.get("return")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def cpu_model():
    """The host CPU's model name, for reports."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


BROADCAST = b"\xff" * 6
SRC_MAC = b"\x02\x00\x00\x00\x00\x01"


class Wire:
    """The host end of a QEMU dgram netdev: a bound UDP socket on 127.0.0.1.
    Each datagram sent to QEMU's local port arrives as one Ethernet frame."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        # QEMU's local port: picked free, then released for QEMU to bind
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        self.qemu_port = s.getsockname()[1]
        s.close()
        self.stop = threading.Event()
        self.sent = 0

    def netdev(self):
        return ["-netdev", "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=%d,"
                "remote.type=inet,remote.host=127.0.0.1,remote.port=%d"
                % (self.qemu_port, self.port)]

    def send(self, frame):
        self.sock.sendto(frame, ("127.0.0.1", self.qemu_port))

    def flood(self, n=None, seconds=None, burst=25, gap=0.002):
        """Broadcast frames in bursts with small gaps (a 10 Mbit/s card's ring
        holds ~58 frames) until n are sent, `seconds` pass or stop is set."""
        end = time.monotonic() + seconds if seconds is not None else None
        i = 0
        while (n is None or i < n) and not self.stop.is_set() and \
                (end is None or time.monotonic() < end):
            self.send(BROADCAST + SRC_MAC + b"\x08\x00" + i.to_bytes(4, "big") + bytes(46))
            i += 1
            if i % burst == 0:
                time.sleep(gap)
        self.sent = i
        return i

    def close(self):
        self.sock.close()


# Linux input key codes -> QEMU qcode names, for key injection.
def key_event(qcode, down):
    return {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}


class Console:
    """The COM1 protocol on `self.com1` (a SerialPort): commands and their
    `ok`/`error:` framing, `status` and `sources` parsed. Shared by the
    QEMU and Bochs drivers; `cmd_timeout` is the default wait per reply."""

    cmd_timeout = 30

    def send(self, data):
        self.com1.write(data)

    def cmd(self, line, timeout=None):
        """Run a command; return (lines before the final line, final line)."""
        self.com1.write(line + "\r")
        m = self.com1.expect(rb"(.*?)\r\n(ok|error: [^\r\n]*)\r\nrand86> ",
                             timeout or self.cmd_timeout)
        body = m.group(1).decode(errors="replace").split("\r\n")
        # the first line is the echo of the command
        if body and body[0] == line:
            body = body[1:]
        return body, m.group(2).decode()

    def ok(self, line, timeout=None):
        body, final = self.cmd(line, timeout)
        assert final == "ok", "%r answered %r (body %r)" % (line, final, body)
        return body

    def status(self):
        out = {}
        for l in self.ok("status"):
            if ": " in l and not l.startswith("#"):
                k, v = l.split(": ", 1)
                out[k] = v
        return out

    def samples(self, name, n):
        """`samples NAME n`: the reply's lines, the final `ok` last."""
        self.send("samples %s %d\r" % (name, n))
        text = self.com1.read_until(b"\r\nrand86> ", 60 + n / 5)
        return text.decode(errors="replace").split("\r\n")

    def nudge(self, rnd, hold=(0.03, 0.12)):
        """Give the machine one bit of input that a trusted source times
        (Rand86: a key over QMP, held `hold` seconds); False where the
        driver has no way to."""
        return False

    def seed(self, timeout=120):
        """Until `status` says seeded: 1 (credit=measured: urandom waits
        for it once per boot), nudging a trusted source meanwhile (keys at
        irregular gaps) in case the clock alone cannot (a 486 has no TSC;
        -icount ...,sleep=off times the timer exactly). Returns status."""
        rnd = random.Random(0x5eed)
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if st.get("seeded") == "1" or st.get("credit") != "measured":
                return st
            if time.monotonic() > deadline:
                raise Timeout("not seeded after %ss: %r" % (timeout, st))
            for _ in range(20):
                if not self.nudge(rnd):
                    time.sleep(0.5)
                    break
                time.sleep(rnd.uniform(0.01, 0.05))

    def sources(self):
        out = {}
        for l in self.ok("sources"):
            parts = l.split()
            if not parts or l.startswith("#"):
                continue
            fields = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
            out[parts[0]] = fields
        return out


class Rand86(Console):
    """One QEMU running rand86. Use as a context manager."""

    def __init__(self, append="", cpu=None, mem=None, com2=True, cdrom=None,
                 extra=(), boot_timeout=60, wait_prompt=True, media=None, accel_name=None):
        """media: QEMU arguments that boot from a disk image (a boot loader
        starts rand86), instead of -kernel/-append or cdrom. accel_name: force
        kvm or tcg (-icount needs tcg)."""
        self.dir = tempfile.mkdtemp(prefix="rand86-")
        self.com1_path = os.path.join(self.dir, "com1.sock")
        self.com2_path = os.path.join(self.dir, "com2.sock")
        self.qmp_path = os.path.join(self.dir, "qmp.sock")
        self.accel = accel_name or accel()
        argv = qemu_argv(self.accel,
                         com1="socket,path=%s,server=on,wait=on" % self.com1_path,
                         com2="socket,path=%s,server=on,wait=off" % self.com2_path if com2 else None,
                         qmp=self.qmp_path, append=append, cdrom=cdrom, media=media, cpu=cpu,
                         mem=mem, extra=extra)
        self.argv = argv
        self.log = open(os.path.join(self.dir, "qemu.log"), "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        self.com1 = self.com2 = self.qmp = None
        try:
            self.com1 = SerialPort(self.com1_path)
            self.qmp = QMP(self.qmp_path)
            if com2:
                self.com2 = SerialPort(self.com2_path)
            self.start = time.monotonic()
            if wait_prompt:
                self.boot_log = self.com1.expect(rb"(rand86 .*?)rand86> ", boot_timeout).group(1).decode()
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- console: send, cmd, ok, status, sources from Console ----
    def settle(self, quiet=0.5, timeout=60):
        """After noise: wait until COM1 is quiet, then drop any partial line
        with a Ctrl-C; again until nothing more comes after its prompt (input
        the UART had not taken in yet echoes only when it does)."""
        deadline = time.monotonic() + timeout
        while True:
            self._wait_quiet(quiet, deadline)
            self.com1.skip_all()
            self.send(b"\x03")
            self.com1.expect(rb"\^C\r\nrand86> ", 20)
            time.sleep(quiet)
            if not self.com1.unconsumed():
                return
            if time.monotonic() > deadline:
                raise Timeout("console never went quiet")

    def _wait_quiet(self, quiet, deadline):
        while True:
            n = self.com1.available()
            time.sleep(quiet)
            if self.com1.available() == n:
                return
            if time.monotonic() > deadline:
                raise Timeout("console never went quiet")

    def wait_events(self, name, want, timeout=10):
        """Poll `sources` until source `name` has at least `want` events; return its fields."""
        deadline = time.monotonic() + timeout
        while True:
            src = self.sources()[name]
            if int(src["events"]) >= want or time.monotonic() > deadline:
                return src
            time.sleep(0.05)

    # ---- input ----
    def nudge(self, rnd, hold=(0.03, 0.12)):
        """A key held as a person holds one (30-120 ms): a press and its
        release a microsecond apart would make every other delta the same
        symbol, which the health tests rightly fail on a 486's coarse clock.
        A fast typist (`hold` 10-40 ms) suits a clock that counts
        instructions, where any hold is thousands of distinct counts."""
        qcode = rnd.choice("asdfjkl")
        self.qmp.execute("input-send-event", events=[key_event(qcode, True)])
        time.sleep(rnd.uniform(*hold))
        self.qmp.execute("input-send-event", events=[key_event(qcode, False)])
        return True

    def key(self, qcode, gap=0.0):
        self.qmp.execute("input-send-event", events=[key_event(qcode, True)])
        self.qmp.execute("input-send-event", events=[key_event(qcode, False)])
        if gap:
            time.sleep(gap)

    def mouse_move(self, dx, dy):
        self.qmp.execute("input-send-event", events=[
            {"type": "rel", "data": {"axis": "x", "value": dx}},
            {"type": "rel", "data": {"axis": "y", "value": dy}}])

    def rtc_seconds(self):
        """Seconds on the machine's CMOS clock (QOM `rtc-time` of the pc
        machine), read with the VM stopped. With -rtc clock=vm and a fixed
        base (RTC_VM) this is guest time: whole seconds of QEMU's virtual
        clock since the base, which under -icount counts instructions."""
        self.qmp.execute("stop")
        try:
            tm = self.qmp.execute("qom-get", path="/machine", property="rtc-time")
        finally:
            self.qmp.execute("cont")
        return ((tm["tm_mday"] - 1) * 24 + tm["tm_hour"]) * 3600 + tm["tm_min"] * 60 + tm["tm_sec"]

    def exit_code(self, timeout=20):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Timeout("QEMU did not exit within %ss" % timeout)

    def close(self):
        for c in (self.com1, self.com2, self.qmp):
            if c:
                c.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()

    def qemu_log(self):
        with open(os.path.join(self.dir, "qemu.log"), "rb") as f:
            return f.read().decode(errors="replace")
