"""The NE2000's cable: a UDP socket on QEMU's dgram netdev, one datagram a frame."""
import socket
import threading
import time

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

    def deliver(self, n, frames, burst=10, timeout=30):
        """Send n frames, a burst at a time, each after the guest counted
        the last (frames(): its count): a UDP datagram QEMU has no room for
        is lost on the host, and a loaded host starves the guest that
        would empty the card's ring. Returns how many the guest counted."""
        base = frames()
        deadline = time.monotonic() + timeout
        sent = 0
        while sent < n and time.monotonic() < deadline:
            k = min(burst, n - sent)
            for i in range(k):
                self.send(BROADCAST + SRC_MAC + b"\x08\x00" + (sent + i).to_bytes(4, "big") + bytes(46))
            sent += k
            wait = time.monotonic() + 2.0
            while frames() - base < sent and time.monotonic() < min(wait, deadline):
                time.sleep(0.02)
        self.sent = sent
        return frames() - base

    def close(self):
        self.sock.close()
