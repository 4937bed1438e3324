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


def test_the_sentences_its_steps_quote_are_listed_with_their_verdicts():
    """#35 item 4: the claims seed 000 makes in sentences after (30) and (35) are cited by quoted fragments; coverage
    lists each, where it is and its verdict, after the labels (text and --json), and the labels' count is unchanged."""
    import json

    code, out, err = run_cli("coverage", "000")
    assert code == 0, out + err
    assert ("  as printed    sentence, line 95 (B.1 MULTI-TASK DIAGONAL LINEAR NETWORKS): \u201cNote that this "
            "implies") in out
    assert "3 cited sentences (1 as printed, 2 erratum)" in out
    code, out, err = run_cli("coverage", "000", "--json")
    sentences = [r for r in json.loads(out) if r["kind"] == "sentence"]
    assert [(r["line"], r["status"]) for r in sentences] == [(93, "erratum"), (95, "as printed"), (117, "erratum")]
    assert sentences[1]["checks"][0]["derivation"] == "l12.reduction" and "000-B-eq35-norm" in sentences[2]["how"]


def test_claims_lists_the_asserting_sentences_no_step_quotes_and_never_counts_them():
    """`coverage 000 --claims`: the sentences that assert and that no step quotes, as 'uncited claim' (opt-in: 25 of
    the seed's 187 sentences). Plant: a quoted sentence listed as uncited, or the candidates failing the exit status
    or entering the labels' count."""
    import json

    code, out, err = run_cli("coverage", "000", "--claims")
    assert code == 0, out + err
    assert f"{len(coverage_000.LABELS)}/{len(coverage_000.LABELS)} accounted" in out
    assert "uncited claims in the prose (listed, not counted)" in out
    assert "uncited claim sentence, line 210 (G ANALYSIS" in out  # "We show that this description holds ..."
    code, out, err = run_cli("coverage", "000", "--claims", "--json")
    candidates = [r for r in json.loads(out) if r["kind"] == "candidate"]
    assert candidates and all(r["status"] == "uncited claim" for r in candidates)
    assert 95 not in {r["line"] for r in candidates if "one output minimizes" in r["printed"]}
