"""Seed 003's label list is complete against its text, and every label is accounted for (issue #14)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorylab._decide.coverage import labels_in_text
from helpers import run_cli

from theorylab.derivations import PAPERS, coverage_003

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / PAPERS[3].source
# the seed's layout: a display line (rendered symbols, then its LaTeX) ending in " (n)", e.g.
# "...\displaystyle\Omega_{\omega}(\mathbf{M})=\sum_{j=1}^{P}\omega(\sigma_{j}(\mathbf{M})). (6)"
EXTRA = (r"\s\((\d+)\)[ \t]*$",)


def _text():
    if not SEED.exists():
        pytest.skip(f"the seed text {SEED} is not present in this checkout")
    return SEED.read_text()


def test_declared_labels_match_the_text():
    found = labels_in_text(_text(), extra_patterns=EXTRA)
    assert list(coverage_003.LABELS) == found


def test_the_pattern_finds_every_equation_number_once_and_in_sequence():
    """(1) .. (32) each end exactly one display line (no prose line ends in a parenthesized number)."""
    nums = [int(m.group(1)) for m in re.finditer(EXTRA[0], _text(), re.M)]
    assert nums == list(range(1, 33))


def test_every_label_is_accounted_for():
    code, out, err = run_cli("coverage", "003")
    assert code == 0, out + err
    assert f"{len(coverage_003.LABELS)}/{len(coverage_003.LABELS)} accounted" in out
