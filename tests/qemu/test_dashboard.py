"""VGA text dashboard (app/dashboard.c): read the screen back with QMP pmemsave
and compare it with `status` and `sources` after injected input.

The dashboard redraws every 250 ms; after the last input the test waits 1 s,
dumps the screen, then asks the console. Typing `status`/`sources` on COM1 is
itself input to the untrusted `serial` source, so that source's events may be
ahead of the screen by exactly the bytes typed since the dump.
"""
import os
import re
import time

import pytest

from rand86 import Rand86

VGA_TEXT = 0xB8000
TAKEOVER_S = 1.5          # DASH_TAKEOVER_MS
SETTLE_S = 1.0            # > DASH_REFRESH_MS plus the row-by-row draw


def screen(vm):
    """The 80x25 text screen as 25 strings of 80 characters (CP437 as latin-1)."""
    path = os.path.join(vm.dir, "screen.bin")
    vm.qmp.execute("pmemsave", val=VGA_TEXT, size=80 * 25 * 2, filename=path)
    with open(path, "rb") as f:
        data = f.read()
    chars = data[0::2].decode("latin-1")
    return [chars[i * 80:(i + 1) * 80] for i in range(25)]


def show(lines):
    return "\n".join(l.rstrip() for l in lines)


def wait_dashboard(vm, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        lines = screen(vm)
        # the dashboard draws a row a pass, top to bottom: whole once the
        # help line, its last row, is on screen
        if any(l.startswith("Source") for l in lines) and any(l.startswith("Bars:") for l in lines):
            return lines
        if time.monotonic() > deadline:
            raise AssertionError("no dashboard on screen:\n" + show(lines))
        time.sleep(0.2)


def table(lines):
    """Rows of the source table: name -> list of fields after the name."""
    head = next(i for i, l in enumerate(lines) if l.startswith("Source"))
    rows = {}
    for l in lines[head + 2:]:
        if not l.strip() or l.startswith("Total"):
            break
        f = l.split()
        rows[f[0].rstrip("*")] = f[1:]
    total = next(l for l in lines if l.startswith("Total")).split()
    return rows, total


def row_fields(fields):
    """[irq] trust events xy tso xy/ev tso/ev -> dict."""
    if fields[0].isdigit() and fields[1] in ("trusted", "untrusted"):
        irq, fields = fields[0], fields[1:]
    else:
        irq = None
    return {"irq": irq, "trust": fields[0], "events": int(fields[1]), "bits": int(fields[2]),
            "tso_bits": int(fields[3]), "bits_per_event": fields[4], "tso_per_event": fields[5],
            "h": fields[6], "health": fields[7], "credited": int(fields[8])}


def per_event(bits, events):
    if not events:
        return "-"
    q = bits * 100 // events
    return "%d.%02d" % (q // 100, q % 100)


def pool_bits(lines, label):
    l = next(l for l in lines if l.lstrip().startswith(label))
    m = re.search(r"\]\s+(\d+) of (\d+) bits", l)
    assert m, l
    return int(m.group(1)), int(m.group(2))


def served(lines):
    l = next(l for l in lines if l.lstrip().startswith("Served:"))
    m = re.search(r"random (\d+) bytes, urandom (\d+) bytes", l)
    assert m, l
    return int(m.group(1)), int(m.group(2))


def check_against_console(vm, lines):
    """Dump already taken; compare with status and sources read right after it."""
    st = vm.status()                       # typed 7 bytes before sources: "status\r"
    src = vm.sources()                     # + "sources\r"
    typed = len("status\r") + len("sources\r")
    rows, total = table(lines)
    text = show(lines)
    for name, want in src.items():
        assert name in rows, "source %s missing from the screen:\n%s" % (name, text)
        got = row_fields(rows[name])
        assert got["trust"] == want["trust"], (name, got, want)
        assert got["irq"] == want["irq"], (name, got, want)
        ev, bits, tso = int(want["events"]), int(want["bits"]), int(want["tso_bits"])
        if name == "serial":
            # COM1 bytes typed for the two commands arrived after the dump
            assert got["events"] == ev - typed, (name, got, want)
            assert got["bits"] == bits == 0, (name, got, want)
            assert got["tso_bits"] <= tso, (name, got, want)
            continue
        assert (got["events"], got["bits"], got["tso_bits"]) == (ev, bits, tso), (name, got, want, text)
        assert got["credited"] == int(want["credited"]), (name, got, want)
        if want["trust"] == "trusted":
            h = int(want["h_milli"])
            assert got["h"] == "%d.%03d" % (h // 1000, h % 1000), (name, got, want)
            assert got["health"] == want["health"], (name, got, want)
        else:
            assert (got["h"], got["health"]) == ("-", "-"), (name, got)
        assert got["bits_per_event"] == per_event(bits, ev), (name, got)
        assert got["tso_per_event"] == per_event(tso, ev), (name, got)
    assert len(rows) == len(src), (sorted(rows), sorted(src))
    # pools and served bytes: untrusted COM1 bytes change none of these
    assert pool_bits(lines, "Primary pool") == (int(st["primary_bits"]), 4096), text
    assert pool_bits(lines, "Secondary pool") == (int(st["secondary_bits"]), 1024), text
    rnd, urnd = served(lines)
    assert urnd == int(st["urandom_bytes"]), (urnd, st)
    assert rnd == int(st["random_bytes"]), (rnd, st)
    # totals over all sources (serial lags by the typed bytes)
    ev_total = sum(int(s["events"]) for s in src.values()) - typed
    assert int(total[1]) == ev_total, (total, ev_total)
    assert int(total[2]) == sum(int(s["bits"]) for s in src.values()), total
    return st, src


@pytest.mark.timeout(60)
def test_dashboard_matches_status_and_sources_after_input():
    with Rand86(append="stream=urandom") as vm:
        lines = wait_dashboard(vm)
        text = show(lines)
        # headers, units and the legend a person needs without a manual
        assert lines[0].lstrip().startswith("rand86 "), text
        assert re.search(r"Clock: (tsc|pit) +cpu_khz \d+ kHz +timer 100 Hz +uptime \d+ s = \d+d \d\d:\d\d:\d\d", text), text
        assert re.search(r"^Source +IRQ +Trust +Events +Xymoron +1999 +Xy +1999 +h +Health +Credit",
                         text, re.M), text
        assert re.search(r"\(count\) +bits +bits +b/ev +b/ev +bits +bits", text), text
        assert "Xy: 2002 rules" in text and "h: live 90B estimate" in text, text
        assert "never credited" in text, text
        assert "Credit: measured" in text, text
        assert "COM2: streams urandom" in text, text
        assert lines[-1].strip() and lines[-2].strip(), text
        assert "Trusted sources: the 1999 rules give" in text, text

        # input: keys (trusted keyboard), COM1 bytes (untrusted serial), urandom on COM1
        for q in ["a", "s", "d", "f", "j", "k"]:
            vm.key(q, gap=0.05)
        vm.send(b"xyzzy\x03")
        vm.com1.expect(rb"\^C\r\nrand86> ", 10)
        vm.ok("urandom 100", timeout=60)          # waits for seeding (the timer)
        # COM2 keeps serving urandom here, so byte counts move on their own:
        # exact comparisons are in the stream=off test below.
        time.sleep(SETTLE_S)
        lines = screen(vm)
        rows, _ = table(lines)
        assert "keyboard" in rows, show(lines)
        kbd = row_fields(rows["keyboard"])
        assert kbd["events"] >= 12, show(lines)
        assert kbd["bits"] > 0 and kbd["tso_bits"] > 0, show(lines)
        assert kbd["health"] in ("warmup", "ok", "fail"), show(lines)
        assert "timer" in rows, show(lines)
        # urandom was served, so seeded: the title says when, as status does
        m = re.search(r"seeded at (\d+) ms\s*$", lines[0])
        assert m and m.group(1) == vm.status()["seeded_ms"], lines[0]
        com2 = next(l for l in lines if l.startswith("COM2:"))
        assert re.search(r"streams urandom, \d+ bytes sent", com2), com2


@pytest.mark.timeout(60)
def test_dashboard_exact_with_quiet_com2():
    """stream=off and credit=xymoron (no timer source ticking): nothing moves
    on its own, so every number is exact."""
    with Rand86(append="stream=off credit=xymoron") as vm:
        wait_dashboard(vm)
        for q in ["q", "w", "e", "r", "t", "y", "u", "i"]:
            vm.key(q, gap=0.04)
        vm.send(b"hello\x03")
        vm.com1.expect(rb"\^C\r\nrand86> ", 10)
        vm.ok("urandom 123")
        time.sleep(SETTLE_S)
        lines = screen(vm)
        st, src = check_against_console(vm, lines)
        assert int(src["keyboard"]["events"]) == 16, src["keyboard"]
        assert int(st["urandom_bytes"]) >= 123, st
        assert "COM2: stream port off" in show(lines), show(lines)
        # the screen keeps up: more keys, another look
        for q in ["z", "x", "c"]:
            vm.key(q, gap=0.04)
        vm.ok("urandom 7")
        time.sleep(SETTLE_S)
        lines = screen(vm)
        st2, src2 = check_against_console(vm, lines)
        assert int(src2["keyboard"]["events"]) == 22, src2["keyboard"]
        assert int(st2["urandom_bytes"]) == int(st["urandom_bytes"]) + 7, (st, st2)
