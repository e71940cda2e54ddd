"""The generated documents hold for HEAD: each records the commit it ran
on and the hashes of the paths its figures depend on
(scripts/provenance.py), and fails here, naming the command that writes
it again, when one of those paths has changed since."""
import os

import pytest

from scripts import provenance


def read(doc):
    with open(os.path.join(provenance.ROOT, doc), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def head():
    """HEAD; a tree that is not a git checkout (an unpacked archive) has
    no history to compare with, and only then is this skipped."""
    if not os.path.exists(os.path.join(provenance.ROOT, ".git")):
        pytest.skip("not a git checkout: the documents' paths cannot be compared")
    return provenance.git("rev-parse", "HEAD")


@pytest.mark.parametrize("doc", sorted(provenance.DOCS))
def test_document_matches_head(head, doc):
    why = provenance.drift(doc, read(doc))
    assert why is None, why


def stamped(doc, rev):
    """doc's stamp as a run on commit `rev` would have written it."""
    _, paths = provenance.DOCS[doc]
    h = provenance.hashes(paths, rev)
    return "- commit %s\n- paths: %s\n" % (
        provenance.git("rev-parse", rev), ", ".join("`%s` %s" % (p, h[p]) for p in paths))


def test_a_document_from_before_a_change_is_caught(head):
    """The check itself: a stamp from the last commit that changed
    entropy/measure.c's parent is drift now; the same stamp taken at HEAD
    is not; an `uncommitted` path is drift."""
    doc = "docs/compare.md"
    last = provenance.git("log", "-1", "--format=%H", "--", "entropy")
    if not last:
        pytest.skip("a shallow clone without entropy/'s history")
    try:
        before = provenance.git("rev-parse", last + "^")
    except provenance.NoGit:
        pytest.skip("entropy/'s last change is the clone's first commit")
    why = provenance.drift(doc, stamped(doc, before))
    assert why is not None and "entropy" in why and "make compare" in why
    assert provenance.drift(doc, stamped(doc, "HEAD")) is None
    assert provenance.drift(doc, stamped(doc, "HEAD").replace(
        provenance.hashes(["entropy"])["entropy"], "uncommitted")) is not None
    assert "no `- commit" in provenance.drift(doc, "# a document with no stamp\n")
