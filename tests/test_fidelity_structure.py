"""The comparison with the printed page as single-role modules (#35 item 6): theorylab._fidelity, each module under
~600 lines, behind the one interface theorylab._pipeline.fidelity, whose names set by a test reach the code using them."""
from __future__ import annotations

import ast
from pathlib import Path

import sympy as sp

from theorylab._fidelity import compare, thresholds
from theorylab._pipeline import fidelity
from theorylab._decide.derivation import AS_PRINTED, Step
from theorylab._sources import sources

PACKAGE = Path(compare.__file__).parent
x = sp.Symbol("x", real=True)


def test_every_module_has_one_role_and_under_about_600_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(PACKAGE.glob("*.py"))}
    assert len(sizes) >= 10 and all(n <= 620 for n in sizes.values()), sizes
    for p in PACKAGE.glob("*.py"):
        doc = ast.get_docstring(ast.parse(p.read_text()))
        assert doc and len(doc.splitlines()) == 2, f"{p.name}: a two-line docstring saying its role"


def test_the_facade_defines_nothing_of_the_comparison():
    """theorylab._pipeline.fidelity re-exports; the only code it holds is the forwarding of names set on it."""
    tree = ast.parse(Path(fidelity.__file__).read_text())
    defined = sorted(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    assert defined == ["_Facade", "__getattr__"], defined
    assert fidelity.RTOL is thresholds.RTOL and fidelity.compare_step is compare.compare_step
    assert fidelity._substantive.__module__ == "theorylab._fidelity.links"     # a part's name, not re-exported


def test_the_comparison_cache_key_covers_every_module():
    """A change to any module of the comparison is a new key for a cached comparison (one digest a module)."""
    assert len(compare._own_code().split()) == len(list(PACKAGE.glob("*.py")))


def _step():
    return Step(label="s", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",), fidelity=AS_PRINTED)


def test_a_threshold_set_on_the_facade_reaches_the_comparison(monkeypatch):
    """DECISIVE and RTOL loosened on theorylab._pipeline.fidelity (as a test of the thresholds would) change the
    verdicts: the print off by 5e-6 relative is decisive at DECISIVE = 1e-6, not at 1e-3; off by 5e-9 it does not
    match at RTOL = 1e-9 and does at 1e-7."""
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "0")          # a cached comparison would not see the patch
    off = sources.parse_display(r"(x+1)^2 = 1.000005 (x^2 + 2x + 1)")
    assert fidelity.compare_step("(1)", off, _step()).decisive
    monkeypatch.setattr(fidelity, "DECISIVE", 1e-3)
    assert not fidelity.compare_step("(1)", off, _step()).decisive
    near = sources.parse_display(r"(x+1)^2 = 1.000000005 (x^2 + 2x + 1)")
    assert fidelity.compare_step("(1)", near, _step()).verdict != "matches"
    monkeypatch.setattr(fidelity, "RTOL", 1e-7)
    assert fidelity.compare_step("(1)", near, _step()).verdict == "matches"
    monkeypatch.undo()
    assert thresholds.RTOL == 1e-9 and thresholds.DECISIVE == 1e-6 and fidelity.RTOL == 1e-9
