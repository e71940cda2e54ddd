"""The host end of a QEMU serial port: a Unix socket read by a thread, every wait bounded."""
import re
import socket
import threading
import time


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
