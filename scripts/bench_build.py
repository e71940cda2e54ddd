"""bench's figures that need no machine: the host callgrind table and the image's size.

Failed, raised by every bench measurement that cannot be taken, lives
here, in the module the other measurements import.
"""
import os
import re
import subprocess

from rand86 import ELF


class Failed(Exception):
    """A measurement could not be taken."""


# ---------------------------------------------------------------- (b) host
def host_table(path):
    with open(path) as f:
        text = f.read()
    rows, lines, keep = {}, [], False
    for line in text.splitlines():
        if line.startswith("operation (host"):
            keep = True
        if keep:
            lines.append(line)
            m = re.match(r"^(\S.*?)\s{2,}(-?[\d.]+)$", line)
            if m:
                rows[m.group(1)] = float(m.group(2))
            if line.startswith("(bracket"):
                keep = False
    if "add_timing_entropy" not in rows:
        raise Failed("no callgrind table in %s" % path)
    return rows, "\n".join(lines)


# ---------------------------------------------------------------- (d) size
def image_size():
    out = subprocess.run(["size", ELF], stdout=subprocess.PIPE, check=True).stdout.decode()
    f = out.splitlines()[1].split()
    return {"text": int(f[0]), "data": int(f[1]), "bss": int(f[2])}


MAP = os.path.join(os.path.dirname(ELF), "rand86.map")


def size_by_object():
    """text+data each object put in the image, from the linker's map
    (build/rand86.map; discarded sections are listed before the memory map
    and left out). .bss takes no image space and is not counted."""
    per, section, on, out = {}, None, False, None
    with open(MAP) as f:
        for line in f:
            if line.startswith("Linker script and memory map"):
                on = True
                continue
            if not on:
                continue
            m = re.match(r"^(\.\S+|/DISCARD/)", line)
            if m:                       # an output section: only the image's count
                out = m.group(1)
                continue
            if out not in (".text", ".rodata", ".data"):
                continue
            m = re.match(r"^ (\.\S+|COMMON)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+))?\s*$", line)
            if m:
                section = m.group(1)
                if m.group(2) is None:
                    continue
                size, obj = int(m.group(2), 16), m.group(3)
            else:
                m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+\.(?:o|a)\S*)\s*$", line)
                if not m or section is None:
                    continue
                size, obj = int(m.group(1), 16), m.group(2)
            if section.startswith((".bss", "COMMON")) or size == 0:
                continue
            obj = re.sub(r"^.*/build/k/|^build/k/", "", obj)
            obj = re.sub(r"^.*/(lib\w+\.a)\(.*$", r"\1", obj)
            per[obj] = per.get(obj, 0) + size
            section = None
    if not per:
        raise Failed("no sections in %s" % MAP)
    return sorted(per.items(), key=lambda kv: -kv[1])
