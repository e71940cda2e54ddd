"""One QEMU running rand86: its process, COM1 and COM2, QMP, and a person's input."""
import os
import subprocess
import tempfile
import time

from rand86.console import Console
from rand86.qemu import accel, qemu_argv
from rand86.qmp import QMP, key_event
from rand86.serial import SerialPort, Timeout


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

    # ---- console: send, cmd, ok, status, sources, settle from Console ----
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
