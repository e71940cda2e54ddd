"""Drive a rand86 QEMU instance: COM1/COM2 over Unix sockets, QMP over a socket.

The one place that knows how rand86 is started under QEMU: qemu_argv()
in rand86.qemu builds every command line (tests, `make run` through
scripts/run.py, bench_speed.py, compare.py, rngtest_qemu.py, and the
KVM probe in accel()). Tests and scripts import the package by name
from the repository's root (pytest.ini; the scripts run as
`python3 -m scripts.NAME`).

Standard library only. Every wait has a timeout; close() always ends QEMU.

The package only re-exports; each module drives one thing, and imports
only the ones listed above it:
  paths     the checkout and the images the build makes
  serial    a QEMU serial port's socket (SerialPort, Timeout)
  console   rand86's COM1 protocol, shared with Bochs (Console)
  qemu      the QEMU command line, the KVM probe, names for reports
  qmp       QEMU's monitor (QMP, key_event)
  wire      the NE2000's cable (Wire)
  guest     the Linux guest that reads rand86 as a client
  machine   one QEMU running rand86 (Rand86)
  bochs     rand86 under Bochs (import rand86.bochs)
Not re-exported, imported by name: samples2bin (a capture to 90B input),
honesty (credit against a 90B assessment), restart (90B's restart test).
"""
from rand86.paths import ELF, FLOPPY, HDD, ISO, ROOT
from rand86.serial import SerialPort, Timeout, connect_unix
from rand86.console import PROMPT, Console
from rand86.qemu import (ACCEL_PROBE_SECONDS, DEBUG_EXIT, QEMU, RTC_VM, accel, cpu_model,
                         probe_kvm, qemu_argv, qemu_version)
from rand86.qmp import QMP, key_event
from rand86.wire import BROADCAST, SRC_MAC, Wire
from rand86.guest import (GUEST, com2_socket, linux_guest_argv, run_guest, run_linux_guest,
                          run_linux_guest_rngd)
from rand86.machine import Rand86

__all__ = [
    "ELF", "FLOPPY", "HDD", "ISO", "ROOT",
    "SerialPort", "Timeout", "connect_unix",
    "PROMPT", "Console",
    "ACCEL_PROBE_SECONDS", "DEBUG_EXIT", "QEMU", "RTC_VM", "accel", "cpu_model",
    "probe_kvm", "qemu_argv", "qemu_version",
    "QMP", "key_event",
    "BROADCAST", "SRC_MAC", "Wire",
    "GUEST", "com2_socket", "linux_guest_argv", "run_guest", "run_linux_guest",
    "run_linux_guest_rngd",
    "Rand86",
]
