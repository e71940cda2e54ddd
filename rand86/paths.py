"""Where the harness finds the checkout and the images the build makes of rand86."""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# RAND86_ELF: boot another image (e.g. a build from before a fix) with the same tests.
ELF = os.environ.get("RAND86_ELF") or os.path.join(ROOT, "build", "rand86.elf")
ISO = os.path.join(ROOT, "build", "rand86.iso")
FLOPPY = os.path.join(ROOT, "build", "rand86-floppy.img")
HDD = os.path.join(ROOT, "build", "rand86-hdd.img")
