"""Numeric identity tests decide in float64 where they can and at 50 digits where they must (and at one guard point
always); verdicts of SymPy-sided steps are cached on disk by content, so a second check or `show` recomputes nothing."""
from __future__ import annotations

import time

import sympy as sp

from theorylab._decide.derivation import NUMERIC_DIGITS, Step, check_equal

g = sp.Symbol("gamma", positive=True)
x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", positive=True)
A, B = (1 - sp.sqrt(g)) ** 2, (1 + sp.sqrt(g)) ** 2
# the inverse moment of the Marchenko-Pastur law: SymPy cannot do the integral, mpmath at 50 digits takes seconds
MP = sp.Integral(sp.sqrt((B - x) * (x - A)) / (2 * sp.pi * g * x**2), (x, A, B))
DOMAIN = {g: (0.05, 0.95)}


def test_integral_identity_is_decided_in_float64_but_one_guard_point():
    out = check_equal(MP, 1 / (1 - g), domain=DOMAIN, symbolic=False, points=6)
    assert out.holds and out.strength == "searched"
    assert f"6 decided in float64 (agreement to 1e-09 relative), 1 at {NUMERIC_DIGITS} digits" in out.method


def test_a_small_error_is_refuted_at_high_precision():
    out = check_equal(MP, (1 + sp.Rational(1, 10**6)) / (1 - g), domain=DOMAIN, symbolic=False, points=6)
    assert not out.holds and out.strength == "refuted" and f"({NUMERIC_DIGITS} digits)" in out.method


def test_a_difference_below_float64_resolution_is_caught_by_the_guard_point():
    out = check_equal(1 + sp.exp(-80 * y), 1, symbolic=False)   # 1e-35 at y = 1: float64 sees 1 = 1
    assert not out.holds and out.strength == "refuted" and "y=1" in out.counterexample


def test_float64_underflow_is_not_agreement():
    """exp(-1000 y) and 2 exp(-1000 y) are both 0.0 in float64: no point is decided there (high precision decides)."""
    out = check_equal(sp.exp(-1000 * y), 2 * sp.exp(-1000 * y), symbolic=False)
    assert "float64" not in out.method and out.method.endswith(f"{NUMERIC_DIGITS} digits)")


def test_float64_cannot_decide_a_limit_so_50_digits_do():
    n = sp.Symbol("n", positive=True)
    out = check_equal(sp.Limit(g * n / (n - g * n - 1), n, sp.oo), g / (1 - g), domain=DOMAIN, symbolic=False,
                      points=3)
    assert out.holds and out.method.endswith(f"{NUMERIC_DIGITS} digits)")


def test_high_precision_only_where_needed(monkeypatch):
    """Counted, not timed: with float64 one point pair goes to 50 digits (the guard); without it, every point does
    (the work the issue measured: 75 s for three integrals)."""
    import theorylab._decide.equality as equality

    calls = []
    real_at = equality._at
    monkeypatch.setattr(equality, "_at", lambda expr, point: calls.append(point) or real_at(expr, point))
    lhs, rhs = sp.log(sp.exp(y) * (1 + y)), y + sp.log(1 + y)
    out = check_equal(lhs, rhs, symbolic=False)
    assert out.holds and len(calls) == 2             # one point, two sides
    calls.clear()
    monkeypatch.setattr(equality, "_float_evaluator", lambda expr, syms: None)
    out = check_equal(lhs, rhs, symbolic=False)
    assert out.holds and len(calls) == 2 * out.points and out.points > 20


def test_verdicts_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "1")
    cheap = sp.Integral(sp.exp(-g * x), (x, 0, 1))
    step = Step("a Laplace integral", lhs=cheap, rhs=(1 - sp.exp(-g)) / g, domain=DOMAIN, symbolic=False)
    first = step.check()
    assert first.holds and "[cached]" not in first.method
    t0 = time.perf_counter()
    again = Step("a Laplace integral", lhs=cheap, rhs=(1 - sp.exp(-g)) / g, domain=DOMAIN, symbolic=False).check()
    assert again.holds and again.method == first.method + " [cached]" and time.perf_counter() - t0 < 1.0
    # another content is another key: the cache cannot answer for a changed step
    other = Step("a Laplace integral", lhs=cheap, rhs=2 * (1 - sp.exp(-g)) / g, domain=DOMAIN, symbolic=False)
    assert other.content_key() != step.content_key() and not other.check().holds


def test_steps_with_a_search_are_cached_by_their_points(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("THEORYLAB_STEP_CACHE", "1")

    def make(points):
        return Step("x^2 + 1 >= 2x", lhs=x**2 + 1, rhs=2 * x, relation=">=", symbolic=False,
                    search=lambda: [{"x": p} for p in points])

    a, b = make([1, 2]), make([1, 3])
    assert a.content_key() is not None and a.content_key() != b.content_key()
    assert "[cached]" not in a.check().method and a.check().method.endswith("[cached]")
    numeric = Step("numeric sides", lhs=lambda x: x, rhs=lambda x: x + 1, relation="<", search=lambda: [{"x": 1}])
    assert numeric.content_key() is None    # code decides it: never cached
