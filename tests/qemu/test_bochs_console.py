"""The console under Bochs keeps up with its line: noise, a Ctrl-C, status.

Bochs's 16550 takes in one byte per character time of its own clock, its
instruction count (`ips` a second): 86 us a byte at 115200 8N1
(docs/PC-NOTES.md), so 20 KB of noise arrive over 1.76 s of that clock
however fast the host writes them. One write
carries `status`, the noise, a Ctrl-C and `status` again; with no host
pause in between, the two uptime_ms differ by the line time plus however
far the console fell behind the line. That lag must stay under 1 s of
uptime_ms, no byte may be lost (console_rx_dropped), and no spurious
interrupt may come (irq_spurious).

uptime_ms is the TSC over cpu_khz, and Bochs's TSC is its instruction
count, so the line time in uptime_ms is bytes * 86 us * ips / cpu_khz.
On the ISA machine (sync=none) cpu_khz is ips / 1000 exactly; on the PCI
one (sync=realtime) the PIT the TSC is calibrated against follows the
host, and cpu_khz came out near 1080 for 50 M ips (docs/PC-NOTES.md).

  pci: test_bochs.py's PCI machine and the stock ISO (credit=measured,
       the rtc at 4096 Hz), where the prompt was reported lost, is not
       judged here: its `clock: sync=realtime` follows the host, so
       whether it keeps up depends on how fast the host runs it (it
       kept the line time on a quiet host, and dropped 310 bytes on a
       loaded one)
  isa: the ISA machine at 10 M ips, credit=xymoron stream=urandom (the
       stream runs from boot), COM2 into a file. Before the stream let
       typed input go first, 15,129 of 20,489 bytes were dropped here.
"""
import os
import random
import re
import shutil
import tempfile

import pytest

from rand86 import FLOPPY, HDD, ISO

NOISE_BYTES = 20 * 1024
BYTE_US = 86                       # Bochs 2.7's character time at 115200 8N1
LAG_MS = 1000
STATUS = rb"rand86> status\r\n(version: .*?)\r\nok\r\nrand86> "
COMMANDS = (b"help", b"status", b"sources", b"random", b"urandom", b"stream",
            b"samples", b"bench", b"reboot", b"halt")


def isa_streaming(scratch):
    from rand86.bochs import floppy_with_options
    img = floppy_with_options(FLOPPY, os.path.join(scratch, "floppy.img"),
                              "hz=250 credit=xymoron stream=urandom")
    return 10000000, ["megs: 4", "cpu: ips=10000000", "clock: sync=none", "pci: enabled=0",
                      "ne2k: ioaddr=0x300, irq=9, mac=52:54:00:12:34:57, ethmod=null",
                      "floppya: 1_44=%s, status=inserted" % img, "boot: floppy",
                      "com2: enabled=1, mode=file, dev=%s" % os.path.join(scratch, "com2.out")]


def noise():
    """20 KB of fixed pseudo-random bytes none of whose lines starts a command."""
    junk = random.Random(20480).randbytes(NOISE_BYTES)
    for line in re.split(rb"[\r\n\x03]", junk):
        assert not any(c in line for c in COMMANDS), line
    return junk


def parse(text):
    return dict(l.split(": ", 1) for l in text.decode().split("\r\n") if ": " in l)


# Past the boot's own work: noise that arrived 250 ms after boot found
# the main loop still busy with it (5 batch flushes by then at hz=250)
# and lost hundreds of bytes on both machines, on the fixed tree too.
SETTLED_MS = 3000


def settle(vm):
    """Start the probe at a point of the appliance's own clock, not the
    host's: how much guest time passed between the prompt and the write
    depends on how fast the host ran Bochs."""
    while int(vm.status()["uptime_ms"]) < SETTLED_MS:
        pass


def noise_probe(vm, ips):
    """status, the noise, Ctrl-C, status in one write; both replies parsed."""
    settle(vm)
    vm.com1.skip_all()
    junk = noise()
    vm.send(b"\x03status\r" + junk + b"\x03status\r")
    before = parse(vm.com1.expect(STATUS, 240).group(1))
    after = parse(vm.com1.expect(STATUS, 240).group(1))
    line_bytes = len(junk) + len(b"\x03status\r")     # between the two statuses
    line_ms = line_bytes * BYTE_US * (ips // 1000000) / int(after["cpu_khz"])
    took = int(after["uptime_ms"]) - int(before["uptime_ms"])
    print("uptime_ms %s -> %s: %d ms for a line time of %.0f ms; cpu_khz %s"
          % (before["uptime_ms"], after["uptime_ms"], took, line_ms, after["cpu_khz"]))
    assert after["console_rx_dropped"] == before["console_rx_dropped"], (before, after)
    # Bochs's 8259, like the chip, answers a request withdrawn before the
    # acknowledge with IRQ 7. The serial driver's transmit kick once armed
    # THRE with THR empty and wrote THR in the same masked section, raising
    # the line and dropping it: 128 spurious IRQ 7s in this session. None
    # may come now.
    assert after["irq_spurious"] == "0", after
    assert took <= line_ms + LAG_MS, (took, line_ms, before, after)
    return before, after


def boot(machine):
    from rand86.bochs import Bochs
    assert shutil.which("bochs"), "bochs missing: scripts/deps installs it"
    for img in (ISO, FLOPPY, HDD):
        assert os.path.exists(img), "%s missing: make iso floppy hdd" % img
    scratch = tempfile.mkdtemp(prefix="rand86-bochs-con-")
    ips, lines = machine(scratch)
    return scratch, ips, Bochs(lines, boot_timeout=150)


@pytest.mark.timeout(600)
def test_bochs_console_keeps_up_while_com2_streams():
    scratch, ips, vm = boot(isa_streaming)
    with vm:
        before, after = noise_probe(vm, ips)
        assert before["stream"] == "urandom", before
        # typing delays the stream; it does not stop it
        assert int(after["urandom_bytes"]) > int(before["urandom_bytes"]), (before, after)
    assert os.path.getsize(os.path.join(scratch, "com2.out")) > 0
    shutil.rmtree(scratch)
