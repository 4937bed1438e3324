"""Seed 000's label list is complete against its text, and every label is accounted for (issue #14)."""
from __future__ import annotations

from pathlib import Path

import pytest

from theorylab._decide.coverage import labels_in_text
from helpers import run_cli

from theorylab.derivations import PAPERS, coverage_000

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / PAPERS[0].source
# the seed's layouts: "$$ ... \quad (22)$$", "$$(12)$$" (built in), and "... (n)$$" without \quad
EXTRA = (r"\s\((\d+)\)\$\$",)


def test_declared_labels_match_the_text():
    if not SEED.exists():
        pytest.skip(f"the seed text {SEED} is not present in this checkout")
    found = labels_in_text(SEED.read_text(), extra_patterns=EXTRA)
    assert list(coverage_000.LABELS) == found


def test_every_label_is_accounted_for():
    code, out, err = run_cli("coverage", "000")
    assert code == 0, out + err
    assert f"{len(coverage_000.LABELS)}/{len(coverage_000.LABELS)} accounted" in out


def test_the_ledger_counts_one_root_per_mistake():
    """Issue #22: every erratum has a severity; a repeated mistake names its first occurrence as root; every amended
    step's printed counterpart is in the same derivation (the records refuse it otherwise)."""
    from theorylab.derivations import l12, measure, qpenalty_proofs

    derivations = [d for m in (qpenalty_proofs, l12, measure) for d in m.DERIVATIONS]
    errata = {e.key: e for d in derivations for e in d.errata}
    roots = {k: e.severity for k, e in errata.items() if e.root is None}
    assert roots == {"000-A-eq8-9": "typo", "000-A-eq18-19": "typo", "000-B-branches": "proof-gap",
                     "000-B-eq30-norm": "wrong-constant", "000-G-ensd-example": "missing-hypothesis"}
    assert errata["000-A-eq9"].root == "000-A-eq8-9" and errata["000-B-eq35-norm"].root == "000-B-eq30-norm"
    amendments = {a.key: a for d in derivations for a in d.amendments}
    assert {k: a.root for k, a in amendments.items()} == {
        "000-A-eq8-flow": "000-A-eq8-9", "000-A-eq9-flow": "000-A-eq9", "000-B-eq30-twice": "000-B-eq30-norm"}
    assert all(a.root in errata for a in amendments.values())
