"""Seed 002's label list is complete against its text, and every label is accounted for (issue #14)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorylab._decide.coverage import labels_in_text
from helpers import run_cli

from theorylab.derivations import PAPERS, coverage_002

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / PAPERS[2].source
# the seed's layouts beyond the built-in ones: "$ ... $ (18)" (inline display, label after one dollar sign) and
# "... \quad (n)" not closed by "$$" on the same line
EXTRA = (r"\$\s*\((\d+)\)\s*$", r"\\quad\s*\((\d+)\)")
# appendix statements numbered "B.1": the built-in statement pattern expects digits after an optional letter
APPENDIX_STATEMENT = re.compile(r"^\W{0,4}(Theorem|Lemma|Proposition|Corollary)\s+([A-Z]\.\d+)\b", re.M)


def _labels(text: str) -> list[str]:
    found = labels_in_text(text, extra_patterns=EXTRA)
    for m in APPENDIX_STATEMENT.finditer(text):
        label = f"{m.group(1)} {m.group(2)}"
        if label not in found:  # the labels first seen before it are exactly those of the text before it
            found.insert(len(labels_in_text(text[:m.start()], extra_patterns=EXTRA)), label)
    return found


def test_declared_labels_match_the_text():
    if not SEED.exists():
        pytest.skip(f"the seed text {SEED} is not present in this checkout")
    assert list(coverage_002.LABELS) == _labels(SEED.read_text())


# App. B.2-B.4 (eqs (32)-(87), Lemma B.1, Theorems 3.4 and 3.5) are transcribed in derivations/transfer_appendix_b.py
# by separate work; until its steps cite them, those labels (and only those) may still show as missing
APPENDIX_B = {f"({n})" for n in range(32, 88)} | {"Lemma B.1", "Theorem 3.4", "Theorem 3.5"}


def test_every_label_is_accounted_for():
    code, out, err = run_cli("coverage", "002")
    missing = [line.split()[1] if not line.split()[1] in ("Theorem", "Lemma") else " ".join(line.split()[1:3])
               for line in out.splitlines() if line.strip().startswith(("missing", "FAILS"))]
    assert set(missing) <= APPENDIX_B, f"labels outside App. B.2-B.4 not accounted for: {missing}"
    if missing:
        pytest.xfail(f"App. B.2-B.4 labels not yet cited by transfer_appendix_b steps: {missing}")
    assert code == 0, out + err
    assert f"{len(coverage_002.LABELS)}/{len(coverage_002.LABELS)} accounted" in out
