"""What each generated document's figures are made by, and the stamp
that records it: the commit the run was on and, at that commit, the git
hash of each path the figures depend on (`git rev-parse HEAD:PATH`: a
tree for a directory, a blob for a file). tests/model/test_provenance.py
fails, naming the file and the command that writes it again, when
HEAD's hash of one of those paths differs from the one a document holds.

The paths, and why:

- SOURCES, for every document: what makes a sample and what it is
  credited. entropy/ (the pool, the meter, the credit rule, urandom),
  the clocks that time an event (arch/x86 clock, pit, rtc, cmos;
  lib/tscclock.h, lib/pitclock.h), the drivers whose interrupts are
  sources (i8042, ata, ne2000, serial), their registration
  (kern/devices.c, kern/sources.c) and the trust table (lib/credit.h).
- docs/compare.md: SOURCES, and the scenarios' harness
  (scripts/compare.py, rand86/honesty.py: how a typist is driven).
- docs/restart.md: SOURCES, which make the raw samples and the claim
  H_I; record= and `samples NAME boot` (kern/options.c, app/serve.c),
  which hand them out; and scripts/restart_test.py with rand86/restart.py,
  which compute the sanity check.
- docs/BENCHMARKS.md: SOURCES, the main loop and the console whose
  passes, replies and streams it times (kern/loop.c, kern/console.c,
  app/), and its scripts (scripts/bench*.py, scripts/ceiling/). Its
  image-size rows change with every line of the kernel; they are not
  held to the tree (regenerate before a release).
"""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCES = (
    "entropy",
    "arch/x86/clock.c", "arch/x86/clock.h", "arch/x86/pit.c", "arch/x86/pit.h",
    "arch/x86/rtc.c", "arch/x86/rtc.h", "arch/x86/cmos.c", "arch/x86/cmos.h",
    "lib/tscclock.h", "lib/pitclock.h", "lib/credit.h",
    "drivers/i8042.c", "drivers/ata.c", "drivers/ne2000.c", "drivers/serial.c",
    "kern/devices.c", "kern/sources.c",
)

DOCS = {
    "docs/compare.md": ("make compare", SOURCES + ("scripts/compare.py", "rand86/honesty.py")),
    "docs/restart.md": ("make restart-test",
                        SOURCES + ("kern/options.c", "app/serve.c", "scripts/restart_test.py",
                                   "rand86/restart.py")),
    "docs/BENCHMARKS.md": ("make bench",
                           SOURCES + ("kern/loop.c", "kern/console.c", "app",
                                      "scripts/bench.py", "scripts/bench_build.py",
                                      "scripts/bench_doc.py", "scripts/bench_judge.py",
                                      "scripts/bench_sources.py", "scripts/bench_speed.py",
                                      "scripts/ceiling")),
}

COMMIT = re.compile(r"^- commit ([0-9a-f]{40})$", re.M)
PATHS = re.compile(r"^- paths: (.*)$", re.M)
ENTRY = re.compile(r"`([^`]+)` ([0-9a-f]{40}|uncommitted)")


class NoGit(Exception):
    pass


def git(*args, strip=True):
    # safe.directory: a checkout owned by another user (CI's clone, read as root) is still ours
    r = subprocess.run(["git", "-c", "safe.directory=*", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise NoGit("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout.strip() if strip else r.stdout


def hashes(paths, rev="HEAD"):
    """{path: `git rev-parse REV:path`}."""
    out = git("rev-parse", *["%s:%s" % (rev, p) for p in paths]).split()
    return dict(zip(paths, out))


def dirty(paths):
    """The paths among `paths` with uncommitted changes (staged or not)."""
    out = git("status", "--porcelain", "--untracked-files=no", "--", *paths, strip=False)
    return [line[3:] for line in out.splitlines()]


def stamp(doc):
    """The two markdown list items a run of `doc` writes into it. A path
    with uncommitted changes is stamped `uncommitted`: the figures were
    not made by any commit, and the suite fails until the document is
    written again from a committed tree. So is every path when
    RAND86_ELF boots another build than the tree's."""
    _, paths = DOCS[doc]
    h, changed = hashes(paths), dirty(paths)
    other = bool(os.environ.get("RAND86_ELF"))
    ent = []
    for p in paths:
        touched = other or any(c == p or c.startswith(p + "/") for c in changed)
        ent.append("`%s` %s" % (p, "uncommitted" if touched else h[p]))
    return ["- commit %s" % git("rev-parse", "HEAD"), "- paths: " + ", ".join(ent)]


def drift(doc, text):
    """Why `text` (doc's contents) does not hold for HEAD, or None."""
    make, paths = DOCS[doc]
    again = "regenerate it with `%s`" % make
    if not COMMIT.search(text):
        return "%s records no `- commit <hash>` line: %s" % (doc, again)
    m = PATHS.search(text)
    if not m:
        return "%s records no `- paths:` line: %s" % (doc, again)
    had = dict(ENTRY.findall(m.group(1)))
    if sorted(had) != sorted(paths):
        return ("%s was stamped for paths %s, scripts/provenance.py now names %s: %s"
                % (doc, sorted(had), sorted(paths), again))
    now = hashes(paths)
    bad = [p for p in paths if had[p] != now[p]]
    if bad:
        return ("%s was made on commit %s; since then %s changed (or held uncommitted "
                "changes when it ran): %s" % (doc, COMMIT.search(text).group(1),
                                             ", ".join(bad), again))
    return None
