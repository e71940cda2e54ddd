"""The Linux guest (build/linux) that reads rand86 as a client over rng-egd or a tty."""
import os
import re
import subprocess

from rand86.paths import ROOT
from rand86.qemu import QEMU
from rand86.serial import Timeout

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
