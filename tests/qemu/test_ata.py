"""ATA PIO driver: probe, and interrupt-completed reads as the ata0..3 sources.

Reads are counted and no disk is ever written; slaves and a CD-ROM on the
channels, `ata=off`, no disks at all, and a model string with odd bytes."""
import os
import tempfile
import time

import pytest

from rand86 import Rand86


def make_image():
    fd, path = tempfile.mkstemp(prefix="rand86-ata-", suffix=".img")
    os.close(fd)
    with open(path, "wb") as f:
        f.truncate(1024 * 1024)          # 1 MiB = 2048 sectors
    return path


@pytest.fixture
def disk_image():
    path = make_image()
    before = open(path, "rb").read()
    yield path
    # never written: the image is byte-for-byte unchanged
    assert open(path, "rb").read() == before
    os.unlink(path)


def drive(path, index):
    return ["-drive", "file=%s,format=raw,if=ide,index=%d" % (path, index)]


@pytest.mark.timeout(60)
def test_disk_reads_grow_and_credit_nothing(disk_image):
    # credit=xymoron: 2002's rules and sources, where disks are untrusted by
    # default (under measured they are trusted: test_measured.py)
    with Rand86(append="credit=xymoron", extra=drive(disk_image, 0)) as vm:
        assert "ata0: primary master, 2048 sectors" in vm.boot_log
        assert "ata: no disks" not in vm.boot_log
        src0 = vm.sources()
        assert src0["ata0"]["trust"] == "untrusted"
        assert src0["ata0"]["irq"] == "14"
        st0 = vm.status()
        assert st0["credited_bits"] == "0"
        vm.wait_guest_ms(2500)
        src1 = vm.sources()
        st1 = vm.status()
        dt = (int(st1["uptime_ms"]) - int(st0["uptime_ms"])) / 1000.0   # guest seconds
        e0, e1 = int(src0["ata0"]["events"]), int(src1["ata0"]["events"])
        reads = int(src1["ata0"]["reads"]) - int(src0["ata0"]["reads"])
        assert e1 > e0 + 5, (src0, src1)
        assert reads > 5
        # at most one read per 100 ms (plus slack for the sampling window)
        assert reads <= dt * 10 + 3, (reads, dt)
        assert src1["ata0"]["errors"] == "0"
        assert src1["ata0"]["timeouts"] == "0"
        assert int(src1["ata0"]["bits"]) == 0
        # untrusted disk + uncredited boot seeding/serial: no credit at all
        assert st1["credited_bits"] == "0", st1
        assert st1["primary_bits"] == "0"
        assert int(st1["uptime_ms"]) > int(st0["uptime_ms"])
        # the disk's read addresses are not bytes served to anyone
        assert st1["urandom_bytes"] == "0", st1


@pytest.mark.timeout(60)
def test_trusted_slaves_and_cdrom(disk_image):
    """ata=trusted; disks on both slaves, ATAPI CD as secondary master (skipped)."""
    iso = os.path.join(os.path.dirname(__file__), "..", "..", "build", "rand86.iso")
    second = make_image()
    extra = drive(disk_image, 1) + drive(second, 3)
    if os.path.exists(iso):
        extra += ["-drive", "file=%s,media=cdrom,if=ide,index=2" % os.path.abspath(iso)]
    with Rand86(append="ata=trusted", extra=extra) as vm:
        log = vm.boot_log
        assert "ata1: primary slave, 2048 sectors" in log
        assert "ata3: secondary slave, 2048 sectors" in log
        assert "ata0:" not in log
        if os.path.exists(iso):
            assert "ata2: ATAPI" in log
        deadline = time.monotonic() + 20
        while True:
            src = vm.sources()
            if int(src["ata1"]["events"]) > 3 and int(src["ata3"]["events"]) > 3:
                break
            assert time.monotonic() < deadline, src
            time.sleep(0.5)
        assert src["ata1"]["trust"] == "trusted" and src["ata3"]["irq"] == "15"
        assert "ata2" not in src and "ata0" not in src
    os.unlink(second)


@pytest.mark.timeout(60)
def test_ata_off(disk_image):
    with Rand86(append="ata=off", extra=drive(disk_image, 0)) as vm:
        assert vm.boot_log.count("ata: off") == 1
        assert "ata0" not in vm.boot_log
        assert "ata0" not in vm.sources()


@pytest.mark.timeout(60)
def test_no_disks():
    with Rand86() as vm:
        assert vm.boot_log.count("ata: no disks") == 1
        assert not any(k.startswith("ata") for k in vm.sources())
        vm.ok("status")


def test_disk_model_bytes_outside_printable_ascii_are_escaped(disk_image):
    # QEMU passes the model string to IDENTIFY byte for byte; "\u00e9" is c3 a9
    model = "\x1b[31mEVIL\x07\x01\u00e9"
    extra = ["-drive", "file=%s,format=raw,if=none,id=d0" % disk_image,
             "-device", "ide-hd,drive=d0,bus=ide.0,unit=0,model=" + model]
    with Rand86(extra=extra, wait_prompt=False) as vm:
        log = vm.com1.expect(rb"(rand86 .*?)rand86> ", 60).group(1)
    line = [l for l in log.split(b"\r\n") if l.startswith(b"ata0: model ")]
    assert line == [rb"ata0: model '\x1b[31mEVIL\x07\x01\xc3\xa9'"], line
