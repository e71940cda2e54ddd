"""Drive rand86 under Bochs 2.7 (Debian's bochs): no GUI, COM1 on a TCP socket.

Bochs has no headless display: `display_library: term` it is. Debian's
build has the debugger, which stops before the first instruction (`-rc`
feeds it `c`) and keeps our pty (stdin/stdout) for itself; the term GUI
then opens a second pty for the VGA screen and prints its name. A thread
drains each pty: Bochs blocks in a write once ~18 KB of screen updates
sit unread there, and the whole machine, COM1 and clock too, stops.
COM1 as a socket server waits for our connection before the machine
runs. Every wait is bounded; close() always kills Bochs.
"""
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from rand86.console import Console
from rand86.paths import ELF
from rand86.serial import SerialPort, Timeout

BIOS = "/usr/share/bochs/BIOS-bochs-latest"
VGABIOS = "/usr/share/vgabios/vgabios.bin"


def floppy_with_options(src, dst, append):
    """Copy the floppy image src to dst with a SYSLINUX menu that boots
    rand86 at once with the command line `append` (mtools, as
    scripts/mkmedia writes it; boot/syslinux.cfg says what each line does)."""
    shutil.copyfile(src, dst)
    cfg = dst + ".cfg"
    with open(cfg, "w") as f:
        f.write("SERIAL 0 115200\nPROMPT 0\nDEFAULT rand86\nLABEL rand86\n"
                "\tKERNEL mboot.c32\n\tAPPEND rand86.elf %s\n" % append)
    subprocess.run(["mcopy", "-o", "-i", dst, cfg, "::syslinux.cfg"], check=True, timeout=30)
    os.remove(cfg)
    return dst


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class TcpSerial(SerialPort):
    """rand86.SerialPort over TCP (Bochs's socket-server COM1)."""

    def __init__(self, port, connect_timeout=30):
        self.buf = bytearray()
        self.pos = 0
        self.cond = threading.Condition()
        self.closed = False
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), 1)
                self.sock.settimeout(None)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise Timeout("Bochs COM1 socket on port %d never opened" % port)
                time.sleep(0.05)
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()


class Bochs(Console):
    """One Bochs running rand86, booted from `boot` ("cdrom" or "floppy")."""

    cmd_timeout = 60                     # 10 M ips: replies take longer

    def __init__(self, lines, boot_timeout=90):
        self.dir = tempfile.mkdtemp(prefix="rand86-bochs-")
        self.port = free_port()
        rc_path = os.path.join(self.dir, "bochsrc")
        self.log_path = os.path.join(self.dir, "bochs.log")
        cfg = ["romimage: file=%s" % BIOS,
               "vgaromimage: file=%s" % VGABIOS,
               "display_library: term",
               "log: %s" % self.log_path,
               "panic: action=fatal",
               "error: action=report",
               "info: action=ignore",
               "com1: enabled=1, mode=socket-server, dev=localhost:%d" % self.port,
               "mouse: enabled=1, type=ps2"] + list(lines)
        with open(rc_path, "w") as f:
            f.write("\n".join(cfg) + "\n")
        debug_rc = os.path.join(self.dir, "debug.rc")
        with open(debug_rc, "w") as f:
            f.write("c\n")
        self.master, slave = pty.openpty()
        self.screen = bytearray()
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(["bochs", "-q", "-f", rc_path, "-rc", debug_rc],
                                     stdin=slave, stdout=slave, stderr=slave,
                                     cwd=self.dir, start_new_session=True)
        os.close(slave)
        self.stop = False
        self.vga_fd = None
        self.vga = bytearray()
        self.pty_thread = threading.Thread(target=self._drain, args=(self.master, self.screen),
                                           daemon=True)
        self.pty_thread.start()
        self.com1 = None
        try:
            self._open_vga()
            self.com1 = TcpSerial(self.port)
            self.boot_log = self.com1.expect(rb"(rand86 \d[^\r\n]*\r\n.*?)rand86> ",
                                             boot_timeout).group(1).decode()
            self.boot_seconds = time.monotonic() - self.t0
        except BaseException:
            self.close()
            raise

    def _open_vga(self, timeout=30):
        """Open and drain the term GUI's own screen pty (debugger builds).
        It is printed before COM1 waits for us, so the wait is short."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(rb'connected to screen "(/dev/[^"]+)"', bytes(self.screen))
            if m:
                break
            if b"com1: waiting" in self.screen or self.proc.poll() is not None:
                return                   # no debugger: the screen is our pty
            if time.monotonic() > deadline:
                raise Timeout("Bochs printed neither its screen pty nor COM1's wait")
            time.sleep(0.05)
        self.vga_fd = os.open(m.group(1).decode(), os.O_RDONLY | os.O_NOCTTY)
        threading.Thread(target=self._drain, args=(self.vga_fd, self.vga), daemon=True).start()

    def _drain(self, fd, buf):
        while not self.stop:
            try:
                r, _, _ = select.select([fd], [], [], 0.2)
                if r:
                    data = os.read(fd, 65536)
                    if not data:
                        return
                    buf += data[-4096:]
                    del buf[:-16384]
            except OSError:
                return

    def stop_idle_sleep(self):
        """Keep Bochs from sleeping each time the guest halts, for
        `clock: sync=none` machines only. Debian's Bochs is built with its
        idle hack: every HLT calls the term display's sim_is_idle(), a
        select() of up to 1 ms on Bochs's stdin, our pty; rand86 halts
        after nearly every pass, so those sleeps set the pace. A line left
        unread on that pty makes the select return at once. Under sync=none
        guest time is the instruction count and the sleep never entered
        it: the guest runs the same, only faster by the wall clock, and
        Bochs takes a whole core (docs/PC-NOTES.md). The debugger would
        read the line only if it stopped; an empty one repeats its `c`."""
        os.write(self.master, b"\n")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def close(self):
        self.stop = True
        if self.com1:
            self.com1.close()
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self.master, self.vga_fd):
            try:
                if fd is not None:
                    os.close(fd)
            except OSError:
                pass


# ---- restart tests (SP 800-90B 3.1.4): the same machine booted again and again ----

TIME0 = 946684800                    # 2000-01-01 00:00:00 UTC: a fixed CMOS start time


def iso_with(cmdline, path, elf=None):
    """An ISO like `make iso` whose one GRUB entry boots rand86 with
    `cmdline` (Bochs has no -kernel: options reach it through the loader)."""
    top = tempfile.mkdtemp(prefix="rand86-iso-")
    os.makedirs(os.path.join(top, "boot", "grub"))
    with open(os.path.join(top, "boot", "rand86.elf"), "wb") as f, open(elf or ELF, "rb") as g:
        f.write(g.read())
    with open(os.path.join(top, "boot", "grub", "grub.cfg"), "w") as f:
        f.write("set timeout=0\nset default=0\nmenuentry \"rand86\" {\n"
                "\tmultiboot /boot/rand86.elf %s\n\tboot\n}\n" % cmdline)
    p = subprocess.run(["grub-mkrescue", "-o", path, top], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("grub-mkrescue: %s" % p.stdout.decode(errors="replace")[-800:])
    return path


def blank_disk(path, sectors=8064):
    """An all-zero disk image of 8 cylinders, 16 heads, 63 sectors."""
    with open(path, "wb") as f:
        f.truncate(sectors * 512)
    return path


def restart_machine(kind, iso, disk, sync="none"):
    """bochsrc lines of the two machines the restart tests boot, both from
    `iso` on CD with `disk` (blank_disk) as ata0 and the CMOS clock at
    TIME0: "pci" (pentium, 50 M ips, 16 MiB, PCI NE2000) and "isa" (10 M
    ips, 4 MiB, PCI off, ISA NE2000). sync=none makes guest time the
    instruction count: the machine replays itself."""
    mac = "52:54:00:12:34:57"
    disk_line = "ata0-master: type=disk, path=%s, mode=flat, cylinders=8, heads=16, spt=63" % disk
    cd_line = "ata1-master: type=cdrom, path=%s, status=inserted" % iso
    clock = "clock: sync=%s, time0=%d" % (sync, TIME0)
    if kind == "pci":
        return ["megs: 16", "cpu: model=pentium, ips=50000000", clock,
                "pci: enabled=1, chipset=i440fx, slot1=ne2k",
                "ne2k: mac=%s, ethmod=null" % mac, disk_line, cd_line, "boot: cdrom"]
    return ["megs: 4", "cpu: ips=10000000", clock, "pci: enabled=0",
            "ne2k: ioaddr=0x300, irq=9, mac=%s, ethmod=null" % mac,
            disk_line, cd_line, "boot: cdrom"]


# ---- a person at Bochs's keyboard: the rfb display and a small RFB client ----

class RfbBochs(Bochs):
    """Bochs with `display_library: rfb`: its VNC server on loopback, the
    one way found into Bochs's PS/2 keyboard from a test (bytes written
    into the term display's terminal reached no key). Bochs waits for an
    RFB client before it runs; the port (5900 up, the first free) is the
    one this Bochs process listens on, found through /proc, never
    guessed: another Bochs may hold 5900. key() sends RFB KeyEvents (RFC
    6143, 7.5.4): X keysyms, a press and its release."""

    def __init__(self, lines, boot_timeout=90):
        self.rfb = None
        super().__init__(['display_library: rfb, options="timeout=60"'] + list(lines),
                         boot_timeout)

    def _listening_ports(self):
        """TCP ports this Bochs listens on (/proc/net/tcp, state 0A): the
        sockets of the processes of its own process group (the `bochs`
        wrapper script started it in a new session: bochs-bin is a child)."""
        inodes = set()
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/stat" % pid) as f:
                    pgrp = int(f.read().rsplit(")", 1)[1].split()[2])
                if pgrp != self.proc.pid:
                    continue
                fd_dir = "/proc/%s/fd" % pid
                for fd in os.listdir(fd_dir):
                    m = re.match(r"socket:\[(\d+)\]", os.readlink(os.path.join(fd_dir, fd)))
                    if m:
                        inodes.add(m.group(1))
            except (OSError, ValueError, IndexError):
                continue
        ports = set()
        with open("/proc/%d/net/tcp" % self.proc.pid) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    ports.add(int(fields[1].split(":")[1], 16))
        return ports - {self.port}

    def _open_vga(self, timeout=60):
        import struct
        deadline = time.monotonic() + timeout
        while True:
            ports = self._listening_ports() if self.proc.poll() is None else set()
            if ports:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Timeout("Bochs's RFB server never listened: %s" % self.log()[-500:])
            time.sleep(0.1)
        s = socket.create_connection(("127.0.0.1", min(ports)), 10)
        version = s.recv(12)                        # "RFB 003.003\n"
        assert version.startswith(b"RFB "), version
        s.sendall(version)
        s.recv(4)                                   # security type 1: none
        s.sendall(b"\x01")                          # ClientInit: shared
        hdr = b""
        while len(hdr) < 24:                        # ServerInit, then its name
            hdr += s.recv(24 - len(hdr))
        name_len = struct.unpack(">I", hdr[20:24])[0]
        while name_len:
            name_len -= len(s.recv(name_len))
        s.settimeout(None)
        self.rfb = s
        self.rfb_bytes = bytearray()
        threading.Thread(target=self._drain_rfb, daemon=True).start()

    def _drain_rfb(self):
        while not self.stop:
            try:
                data = self.rfb.recv(65536)
            except OSError:
                return
            if not data:
                return

    def key(self, ch, hold=0.06, between=None):
        """Press and release the key of character ch (its X keysym is its
        Latin-1 code), held `hold` seconds as a person holds one, and
        while `between()` runs if given (a pace in the guest's time)."""
        import struct
        self.rfb.sendall(struct.pack(">BBxxI", 4, 1, ord(ch)))
        time.sleep(hold)
        if between:
            between()
        self.rfb.sendall(struct.pack(">BBxxI", 4, 0, ord(ch)))

    def nudge(self, rnd, hold=(0.03, 0.12)):
        self.key(rnd.choice("asdfjkl"), rnd.uniform(*hold))
        return True

    def close(self):
        if self.rfb:
            try:
                self.rfb.close()
            except OSError:
                pass
        super().close()
