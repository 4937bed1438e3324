"""Seed 000's label list is complete against its text, and every label is accounted for (issue #14)."""
from __future__ import annotations

from pathlib import Path

import pytest

from theorylab.coverage import labels_in_text
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
