"""Benchmark: the machine comparison with the printed page (#24, #35) on a fresh machine, per built-in paper.

In one process with an empty cache (a temporary XDG_CACHE_HOME), per paper: the seconds to read and parse its
labelled displays (from its shipped parses, derivations/sources/<source>.parses.json, unless --no-shipped), the
seconds to compare every citing step with the print, cold then warm, how many displays parse and how many are
machine-compared (matches or differs, under #35's rules), and the most common reasons the others are not. Then the
second share: of the planted slips of tests/test_planted_slips.py (SLIPS: a coefficient, exponent, sign, index or
layer, transpose, dropped term, sum bound, or a side replaced by an unrelated true identity, in a display the tool
machine-compares), how many are reported as a difference ("differs from the print") and how many still match.
Run: python benchmarks/bench_fidelity.py [PAPER ...] [--no-shipped] [--reasons N] [--no-slips]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("papers", nargs="*", help="paper names (default: every registered paper with a source file)")
    ap.add_argument("--no-shipped", action="store_true", help="ignore the shipped parses (parse every display)")
    ap.add_argument("--reasons", type=int, default=3, help="how many reasons to list per paper")
    ap.add_argument("--no-slips", action="store_true", help="skip scoring the planted slips")
    ap.add_argument("--sweep", action="store_true",
                    help="also plant mechanical slips (one edit of each kind at its first two places) in every "
                         "machine-compared display and count their statuses (minutes)")
    args = ap.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="theorylab-bench-")
    from theorylab._pipeline import catalogue, fidelity

    if args.no_shipped:
        fidelity.PARSES.ship = lambda path: None
    total = [0, 0]
    compared: list = []
    for paper in catalogue.papers():
        if paper.source_file is None or (args.papers and paper.name not in args.papers):
            continue
        derivs = [d for f in catalogue.families([f.name for f in paper.families]) for d in f.derivations]
        t = time.perf_counter()
        items = fidelity.printout_of(paper)
        parse_s = time.perf_counter() - t
        t = time.perf_counter()
        comps = fidelity.compare_paper(paper, derivs, printout=items)
        cold_s = time.perf_counter() - t
        t = time.perf_counter()
        fidelity.compare_paper(paper, derivs, printout=items)
        warm_s = time.perf_counter() - t
        rep = fidelity.share_report(paper, derivs, comps)
        compared += [(paper.name, c.label, c.printed) for c in comps.values()
                     if c.status in ("matches the print", "partly compared")]
        total[0] += rep["displays_compared"]
        total[1] += rep["displays"]
        print(f"{paper.name}: parse {parse_s:.1f} s, compare {cold_s:.1f} s cold / {warm_s:.1f} s warm; "
              f"{rep['displays']} displays, {rep['parsed']} parse, {rep['displays_compared']} machine-compared "
              f"({rep['compared_share_of_displays']:.0%}: {rep['matches']} match, {rep.get('partly', 0)} partly, "
              f"{rep['differs']} differ; {rep.get('not_decisive', 0)} differ not decisively, not counted)")
        for reason, n in rep["reasons"][:args.reasons]:
            print(f"    {n:3d}  {reason}")
    if total[1]:
        print(f"all: {total[0]} of {total[1]} labelled displays machine-compared ({total[0] / total[1]:.1%})")
    if not args.no_slips:
        slips()
    if args.sweep:
        sweep(compared)


# one edit of each kind (pattern, replacement), tried at its first two places in a display
_EDITS = [
    ("coefficient", r"(?<![_^{\\a-zA-Z0-9(])([2-9])(?![0-9}])", lambda m: str(int(m.group(1)) + 1)),
    ("exponent", r"\^\{?2\}?", lambda m: "^3"),
    ("sign", r"(?<=[^=(\s{,])\s*-\s*(?=[^>])", lambda m: " + "),
    ("sign", r"\s\+\s", lambda m: " - "),
    ("index", r"_\{l\+1\}", lambda m: "_{l}"),
    ("index", r"_\{?l\}?(?![+\w])", lambda m: "_{l+1}"),
    ("index", r"_\{?([ij])\}?", lambda m: "_%s" % ("j" if m.group(1) == "i" else "i")),
    ("transpose", r"\^\{?(?:T|\\top)\}?", lambda m: ""),
    ("bound", r"\\sum_\{([a-z])=1\}", lambda m: "\\sum_{%s=2}" % m.group(1)),
    ("bound", r"\\sum_\{([a-z])=([a-z])\}", lambda m: "\\sum_{%s=%s+1}" % (m.group(1), m.group(2))),
    ("bound", r"\^\{L-1\}", lambda m: "^{L}"),
    ("dropped", r"\s\+\s(?:\\frac\{[^{}]*\}\{[^{}]*\}|[A-Za-z0-9\\^_{}]+)(?=\s*[-+=)]|\s*$)", lambda m: ""),
]


def sweep(compared) -> None:
    """Mechanical slips in every machine-compared display (`_EDITS`), scored by their label's status."""
    import re
    from collections import Counter

    from theorylab.testing import label_status

    t = time.perf_counter()
    got: Counter = Counter()
    for paper, label, text in compared:
        for kind, pattern, edit in _EDITS:
            for m in list(re.finditer(pattern, text))[:2]:
                a = max(0, m.start() - 6)
                old = text[a:m.end() + 4]
                new = old[:m.start() - a] + edit(m) + old[m.end() - a:]
                if text.count(old) != 1 or old == new:
                    continue
                got[label_status(paper, label, old, new)[0]] += 1
    n = sum(got.values())
    print(f"mechanical sweep: {n} slips ({time.perf_counter() - t:.0f} s): " + ", ".join(
        f"{k}: {v}" for k, v in got.most_common()))


def slips() -> None:
    """Score every planted slip of tests/test_planted_slips.py by the status of its label."""
    import importlib.util
    from collections import Counter
    from pathlib import Path

    from theorylab.testing import label_status

    path = Path(__file__).resolve().parent.parent / "tests" / "test_planted_slips.py"
    spec = importlib.util.spec_from_file_location("planted_slips", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    t = time.perf_counter()
    got = Counter()
    kinds: dict[str, Counter] = {}
    for paper, label, kind, old, new in module.SLIPS:
        status = label_status(paper, label, old, new)[0]
        got[status] += 1
        kinds.setdefault(kind, Counter())[status] += 1
    n = sum(got.values())
    print(f"planted slips: {n} ({time.perf_counter() - t:.0f} s); reported as a difference: "
          f"{got['differs from the print']} ({got['differs from the print'] / n:.1%}); still matching: "
          f"{got['matches the print'] + got['partly compared']}; "
          + ", ".join(f"{k}: {v}" for k, v in got.most_common()))
    for kind, c in sorted(kinds.items()):
        print(f"    {kind:12s} {sum(c.values()):3d}  differs {c['differs from the print']}")


if __name__ == "__main__":
    main()
