"""The deciders' own constants, each held by a case that it decides right and that the same constant loosened 10x
decides wrong (#34 item 8): the test runs the case twice, with the constant as it is and loosened, and demands the
right verdict from the first and the wrong one from the second (so a loosened constant in the code fails the first
assertion, and a constant that stopped mattering fails the second).

Not held this way, and why: START_PREC, NOISE_BITS (precisions a rigorous decision starts from; every sign is still
decided by an enclosure, so they change cost, never a verdict: held by test_a_lower_start_precision_changes_no_verdict),
SYMPY_TIMEOUT_S (a time budget for simplification: a longer one proves more, never wrongly), the search's budgets
(tests/test_search.py pins their documented values).
"""
from __future__ import annotations

import pytest
import sympy as sp

from theorylab._decide import enclosure, equality, evaluate, inequality
from theorylab._decide.derivation import Step

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", positive=True)
k = sp.Symbol("k", positive=True)
z = sp.Symbol("z", positive=True)
R = sp.Rational


@pytest.fixture(autouse=True)
def _no_step_cache(monkeypatch):
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "0")


def _twice(monkeypatch, module, name, loosened, decide):
    """decide() with the constant as it is, then loosened (restored after)."""
    first = decide()
    monkeypatch.setattr(module, name, loosened)
    second = decide()
    monkeypatch.undo()
    return first, second


def test_float64_rtol_a_planted_3e_9_error_away_from_the_guard_point(monkeypatch):
    """FLOAT64_RTOL = 1e-9 decides a point in float64 only when both sides agree to 1e-9: a 3e-9 relative error on
    part of the domain goes to 50 digits and is refuted; at 1e-8 float64 calls it equal."""
    lhs = sp.Piecewise((sp.exp(x) * (1 + R(3, 10**9)), x > R(3, 2)), (sp.exp(x), True))
    first, second = _twice(monkeypatch, equality, "FLOAT64_RTOL", 1e-8,
                           lambda: equality.check_equal(lhs, sp.exp(x), symbolic=False))
    assert first.strength == "refuted" and second.holds, (first, second)


def test_numeric_digits_an_error_of_3e_35_relative(monkeypatch):
    """Equality of SymPy sides to NUMERIC_DIGITS - 15 = 35 digits: 3e-35 apart is refuted; with the tolerance 10x
    looser (NUMERIC_DIGITS 49: 1e-34) it holds."""
    lhs = sp.exp(x) * (1 + 3 * sp.Integer(10) ** -35)
    first, second = _twice(monkeypatch, equality, "NUMERIC_DIGITS", 49,
                           lambda: equality.check_equal(lhs, sp.exp(x), symbolic=False))
    assert first.strength == "refuted" and second.holds, (first, second)


def test_numeric_points_a_violation_on_a_fifth_of_the_domain_away_from_the_simple_points(monkeypatch):
    """NUMERIC_POINTS = 24 random points find a slip on (2.6, 2.75) (5% of (0.05, 3), missing every simple point);
    2.4 points (10x fewer: 2) miss it."""
    lhs = sp.Piecewise((x + 1, (x > R(26, 10)) & (x < R(275, 100))), (x, True))
    first, second = _twice(monkeypatch, evaluate, "NUMERIC_POINTS", 2,
                           lambda: equality.check_equal(lhs, x, symbolic=False, points=evaluate.NUMERIC_POINTS))
    assert first.strength == "refuted" and second.holds, (first, second)


def test_max_prec_a_tail_that_needs_1300_bits(monkeypatch):
    """MAX_PREC = 8192 bits settles 1 - erf(z) at z ~ 30 (about 1,300 bits); 819 bits leaves it undecided, so the
    false tail bound is no longer refuted (never refuted wrongly: undecided)."""
    step = Step("1 - erf(z) <= the lower bound", lhs=1 - sp.erf(z), relation="<=",
                rhs=sp.exp(-z**2) / (z * sp.sqrt(sp.pi)) * (1 - 1 / (2 * z**2)), domain={z: (29, 31)}, symbolic=False)
    first, second = _twice(monkeypatch, enclosure, "MAX_PREC", 819, step.check)
    assert first.strength == "refuted" and second.strength != "refuted", (first, second)


def test_certify_quick_boxes_a_slack_certified_in_65_boxes_needs_no_search(monkeypatch):
    """CERTIFY_QUICK_BOXES = 200: tanh(x) atan(y) <= x y certifies in 65 boxes before any search; with 20 it goes
    through the whole float64 search first."""
    step = Step("tanh atan", lhs=sp.tanh(x) * sp.atan(y), rhs=x * y, relation="<=",
                domain={x: (R(1, 2), 1), y: (R(1, 2), 1)}, symbolic=False)
    first, second = _twice(monkeypatch, inequality, "CERTIFY_QUICK_BOXES", 20, step.check)
    assert first.strength == "certified" and "searched first" not in first.detail, first
    assert "searched first" in second.detail, second


@pytest.mark.parametrize("name,loosened", [("CERTIFY_MAX_BOXES", 2000), ("CERTIFY_WORK", 40_000)])
def test_certification_budget_the_researchers_proposition_needs_13k_boxes(monkeypatch, name, loosened):
    """exp(x)/(exp(x) + k) < 1 on the default box certifies in about 13,000 boxes: CERTIFY_MAX_BOXES = 20,000 and
    CERTIFY_WORK = 400,000 (over the slack's operations) allow them; a tenth of either does not (searched)."""
    step = Step("researcher", lhs=sp.exp(x) / (sp.exp(x) + k), rhs=1, relation="<", symbolic=False)
    first, second = _twice(monkeypatch, inequality, name, loosened, step.check)
    assert first.strength == "certified" and second.strength == "searched", (first, second)


def test_a_lower_start_precision_changes_no_verdict(monkeypatch):
    """START_PREC is where the precision starts, not a tolerance: at 6 bits every sign is still decided by an
    enclosure (raised until it excludes 0), so verdicts are the same."""
    steps = [Step("tail", lhs=1 - sp.erf(z), relation=">=", rhs=0, domain={z: (29, 31)}, symbolic=False),
             Step("false", lhs=sp.exp(x), relation="<=", rhs=1 + x, symbolic=False)]
    before = [s.check().strength for s in steps]
    monkeypatch.setattr(enclosure, "START_PREC", 6)
    assert [s.check().strength for s in steps] == before == ["certified", "refuted"]
