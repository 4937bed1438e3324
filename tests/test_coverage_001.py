"""Seed 001's label list is complete against its text, and every label is accounted for (issue #14)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorylab._decide.coverage import labels_in_text
from helpers import run_cli

from theorylab.derivations import PAPERS, coverage_001

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / PAPERS[1].source
# the seed's layout: a display "$$...$$" then its label either inside it as "\tag{n}" or alone on the next line as
# " (n)", e.g. "$$f_w(x) := ... .$$\n (1)"
EXTRA = (r"^[ \t]*\((\d+)\)[ \t]*$",)
TAGS = r"\\tag\{(\d+)\}"


def _text():
    if not SEED.exists():
        pytest.skip(f"the seed text {SEED} is not present in this checkout")
    return SEED.read_text()


def test_declared_labels_match_the_text():
    found = labels_in_text(_text(), extra_patterns=EXTRA)
    assert list(coverage_001.LABELS) == found


def test_both_layouts_together_number_the_displays_once_and_in_sequence():
    """(1) .. (11): each label is either a \\tag{n} inside a display or a line of its own, never both."""
    text = _text()
    hits = sorted([(m.start(), int(m.group(1))) for m in re.finditer(EXTRA[0], text, re.M)]
                  + [(m.start(), int(m.group(1))) for m in re.finditer(TAGS, text)])
    assert [n for _, n in hits] == list(range(1, 12))


def test_every_label_is_accounted_for():
    code, out, err = run_cli("coverage", "001")
    assert code == 0, out + err
    assert f"{len(coverage_001.LABELS)}/{len(coverage_001.LABELS)} accounted" in out
