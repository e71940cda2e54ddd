"""Boot-option warnings: every ignored word reported, long words shown truncated,
bytes from outside shown printable (docs/PROTOCOL.md "Boot options")."""
import re

import pytest

from rand86 import Rand86

WARNING = re.compile(rb"warning: ignoring boot option '(.*?)'\r\n")
WORD_MAX = 200                        # docs/PROTOCOL.md: longer words are shown truncated


def boot(words):
    """Boot with `words` then hz=50; the raw boot log (bytes) and status's hz."""
    with Rand86(append=" ".join(words + ["hz=50"]), wait_prompt=False) as vm:
        log = vm.com1.expect(rb"(rand86 .*?)rand86> ", 120).group(1)
        return log, vm.status()["hz"]


def many_words(n, length=None):
    """n distinct unknown-key words `kI=v`, padded to `length` characters if given."""
    words = ["k%d=v" % i for i in range(n)]
    return [w + "v" * (length - len(w)) if length else w for w in words]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("n,length", [(100, None), (700, None), (10, 199)])
def test_every_ignored_word_is_warned_however_many(n, length):
    sent = many_words(n, length)
    log, hz = boot(sent)
    got = [m.group(1).decode() for m in WARNING.finditer(log)]
    missing = [w for w in sent if w not in got]
    assert not missing, "sent %d bad words, %d warnings came back; first missing %r" % (
        n, len(got), missing[:3])
    assert len(got) == n, "sent %d bad words, got %d warnings" % (n, len(got))
    assert hz == "50", "the good word after the bad ones was lost"


@pytest.mark.parametrize("word", [pytest.param("x" * 210 + "=1", id="equals-after-200"),
                                  pytest.param("hz=" + "1" * 250, id="equals-within-200")])
def test_overlong_word_is_warned_and_shown_truncated(word):
    log, hz = boot([word])
    got = [m.group(1).decode() for m in WARNING.finditer(log)]
    assert got == [word[:WORD_MAX] + "..."], "warnings for a %d-character word: %r" % (
        len(word), got)
    assert hz == "50"


def test_control_and_high_bytes_in_words_are_escaped():
    # the words reach the kernel byte for byte: QEMU copies -append as given,
    # and "\u00e9" is UTF-8 c3 a9
    words = ["e=\x1b[2J\x1b[31mRED", "x=\x07\x08\x08\x08\x7f", "z=\x03\x03", "u=\u00e9",
             "n=a\r\nb"]
    shown = [r"e=\x1b[2J\x1b[31mRED", r"x=\x07\x08\x08\x08\x7f", r"z=\x03\x03",
             r"u=\xc3\xa9", r"n=a\x0d\x0ab"]
    log, hz = boot(words)
    raw = [b for b in log.replace(b"\r\n", b"") if b < 0x20 or b >= 0x7F]
    assert not raw, "raw bytes outside 0x20..0x7e in the boot log: %r" % bytes(raw)
    got = [m.group(1).decode() for m in WARNING.finditer(log)]
    assert got == shown, got
    assert hz == "50"
