"""rand86's COM1 protocol: commands, their `ok`/`error:` framing, `status` and `sources`."""
import random
import time

from rand86.serial import Timeout

PROMPT = b"rand86> "


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

    def wait_guest_ms(self, ms, timeout=60):
        """Let `ms` of the guest's own time pass (its `uptime_ms`), however
        slowly a loaded host runs it; return the last status. A span a test
        counts things over is guest time, not the harness's sleep."""
        u0 = int(self.status()["uptime_ms"])
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if int(st["uptime_ms"]) - u0 >= ms:
                return st
            if time.monotonic() > deadline:
                raise Timeout("guest time went %s ms in %s s, wanted %d" % (
                    int(st["uptime_ms"]) - u0, timeout, ms))
            time.sleep(0.05)

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
