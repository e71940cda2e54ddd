#!/usr/bin/python3
"""`make run`: boot build/rand86.elf in QEMU with the console on this terminal.

COM1 (console) and the QEMU monitor share this terminal (Ctrl-A X quits,
Ctrl-A C switches to the monitor); COM2 (the stream port) is a host
pseudo-terminal, or with --com2-socket PATH a Unix socket that a second
QEMU's rng-egd connects to (docs/CLIENTS.md); an NE2000 on PCI sits on
QEMU user networking. The
command line comes from the harness's qemu_argv() (rand86/qemu.py),
like every other QEMU this project starts; this script prints it and
then becomes QEMU.
    make run RUN_APPEND="hz=1000 credit=tso"
    make run RUN_APPEND=stream=egd RUN_COM2_SOCKET=/tmp/rand86-egd.sock

With --batch it boots another multiboot kernel (--kernel) headless
instead: COM1 on stdout, no COM2, no NIC, no input, at most
BATCH_SECONDS, and exits with QEMU's status (`make test-sha1-i386`).
"""
import argparse
import os
import shlex
import subprocess
import sys

from rand86 import ELF, accel, qemu_argv

MEM_MIB = 16
BATCH_SECONDS = 120


def batch(kernel):
    """QEMU's exit status (isa-debug-exit: (CODE << 1) | 1), or 124 on timeout."""
    argv = qemu_argv("tcg", com1="stdio", kernel=kernel)
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, timeout=BATCH_SECONDS).returncode
    except subprocess.TimeoutExpired:
        print("run: %s ran over %d s" % (kernel, BATCH_SECONDS), file=sys.stderr)
        return 124


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--append", default="", help="the multiboot command line (boot options)")
    ap.add_argument("--kernel", default=ELF, help="with --batch: the multiboot kernel to boot")
    ap.add_argument("--batch", action="store_true", help="headless, exit with QEMU's status")
    ap.add_argument("--display", default="none",
                    help="QEMU display: gtk opens a window with the VGA dashboard, whose "
                    "keyboard and mouse feed the trusted sources")
    ap.add_argument("--com2-socket", default="", metavar="PATH",
                    help="COM2 on this Unix socket (QEMU the server, not waiting for a "
                    "client) instead of a pty")
    args = ap.parse_args()
    if args.batch:
        sys.exit(batch(args.kernel))
    if not os.path.exists(ELF):
        sys.exit("run: %s missing: run make first" % ELF)
    acc = accel()
    com2 = "socket,path=%s,server=on,wait=off" % args.com2_socket if args.com2_socket else "pty"
    argv = qemu_argv(acc, com1="stdio,mux=on,signal=off", com2=com2, append=args.append,
                     mem=MEM_MIB, defaults=True, reboot=True,
                     extra=["-mon", "chardev=com1,mode=readline", "-nic", "user,model=ne2k_pci",
                            "-display", args.display])      # the last -display wins
    print("rand86: booting under %s; console on this terminal (Ctrl-A X quits QEMU)." % acc)
    if args.com2_socket:
        print("rand86: COM2 (stream port) is the Unix socket %s." % args.com2_socket)
    else:
        print("rand86: COM2 (stream port) is a host pseudo-terminal: QEMU prints its path as "
              "'char device redirected to /dev/pts/N (label com2)'.")
    print("rand86: display %s; to type into the PC without a window: Ctrl-A C (QEMU monitor), "
          "'sendkey a' or 'mouse_move 10 10', Ctrl-A C back." % args.display)
    print(" ".join(shlex.quote(a) for a in argv), flush=True)
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main()
