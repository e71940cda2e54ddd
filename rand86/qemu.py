"""QEMU's command line for rand86, the KVM probe, and the QEMU and CPU a report names."""
import os
import subprocess

from rand86.console import PROMPT
from rand86.paths import ELF

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
