"""Checks of the Python model itself, so the C vectors rest on something."""
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import mix_model as m  # noqa: E402


def test_sha1_compress_matches_hashlib():
    for msg in (b"", b"abc", b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", bytes(range(200))):
        assert m.sha1_padded(msg) == hashlib.sha1(msg).digest(), msg


def test_mix_of_zero_into_empty_pool_stays_zero():
    p = m.Pool(32)
    p.mix([0] * 100)
    assert p.words == [0] * 32


def test_mix_moves_add_ptr_down_and_rotates():
    p = m.Pool(128)
    p.mix([1])
    assert p.add_ptr == 127 and p.input_rotate == 7
    assert p.words[127] == (1 >> 3) ^ m.TWIST[1]


def test_rotation_is_14_at_pool_start():
    p = m.Pool(32)
    p.mix([0] * 32)
    assert p.add_ptr == 0 and p.input_rotate == (31 * 7 + 14) % 32


def test_extract_changes_pool_and_gives_requested_length():
    p = m.Pool(32)
    p.mix(m.input_words(40))
    before = list(p.words)
    out = p.extract(23)
    assert len(out) == 23 and p.words != before
