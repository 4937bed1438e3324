"""The shared numerics of theorylab._numerics.solvers (re-exported to authors by name: authoring.golden_mp, ...):
brackets, golden section, Newton, Sturm counts, against known answers."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from theorylab._numerics import solvers


def test_golden_brackets_the_minimum_vectorized():
    centers = np.array([0.3, -2.0, 5.5])
    lo, hi = solvers.golden(lambda x: (x - centers) ** 2, np.full(3, -10.0), np.full(3, 10.0), iters=80, points=2)
    assert np.all(hi - lo <= 20 * solvers.GOLDEN ** 80 + 1e-15)
    assert np.allclose((lo + hi) / 2, centers, atol=1e-12)
    # by default the bracket shrinks to 1e-12 of its starting width, and still holds the minimizer
    lo, hi = solvers.golden(lambda x: (x - 1.25) ** 2, np.array(0.0), np.array(3.0))
    assert lo.shape == () and hi - lo <= 3e-12 and lo <= 1.25 <= hi


@pytest.mark.parametrize("size", [1, 5, 200])
def test_section_search_keeps_the_minimizer_of_a_kink_and_calls_f_few_times(size):
    """Small brackets take 16 interior points a call (13 calls to 1e-12), large ones golden section (58 calls):
    either way the bracket shrinks to 1e-12 of its width around the minimizer, here the kink of |x - c|."""
    centers = np.linspace(-3.0, 4.0, size)
    calls = []

    def F(x):
        calls.append(x.shape)
        return np.abs(x - centers)

    lo, hi = solvers.golden(F, np.full(size, -5.0), np.full(size, 5.0))
    assert np.all((lo <= centers) & (centers <= hi)) and np.all(hi - lo <= 10e-12)
    assert len(calls) == (13 if size <= 64 else 58) and calls[0] == ((16 if size <= 64 else 2), size)
    with pytest.raises(ValueError, match="points must be at least 2"):
        solvers.golden(F, np.zeros(1), np.ones(1), points=1)


def test_golden_mp_reaches_high_precision():
    with mpmath.workdps(40):
        x, fx = solvers.golden_mp(lambda t: (t - mpmath.pi) ** 2 + 1, 0, 10, iters=None, xtol=mpmath.mpf(10) ** -30)
        # function values resolve the argmin only to ~sqrt(10^-40) (F is flat there); the value to full precision
        assert abs(x - mpmath.pi) < mpmath.mpf(10) ** -19
        assert abs(fx - 1) < mpmath.mpf(10) ** -38
        # the iteration budget alone also stops it
        x2, _ = solvers.golden_mp(lambda t: (t - 2) ** 2, 0, 10, iters=10)
        assert abs(x2 - 2) < 10 * solvers.GOLDEN ** 10


def test_grid_brackets_and_doubling():
    grid = np.array([[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]])
    vals = np.array([[3.0, 1.0, 2.0, 4.0], [0.0, 1.0, 2.0, 3.0]])
    lo, hi = solvers.grid_bracket(grid, vals)
    assert lo.tolist() == [0.0, 0.0] and hi.tolist() == [2.0, 1.0]
    assert solvers.grid_bracket_mp([1, 2, 3, 4], [5, 4, 3, 9]) == (2, 4)
    top = solvers.expand_upper(lambda x: x**2 < np.array([10.0, 1e6]), np.array([1.0, 1.0]))
    assert top.tolist() == [4.0, 1024.0]


def test_bisection_and_adjacent_floats():
    lo, hi = solvers.bisect(lambda t: t * t < 2, 0.0, 2.0, iters=60)
    assert lo <= math.sqrt(2) <= hi and hi - lo < 1e-15
    lo, hi = solvers.bisect_to_adjacent(lambda t: t < 1e-200, 1e-300, 1e10)
    assert lo < 1e-200 <= hi and np.nextafter(lo, np.inf) == hi


def test_newton_bracketed_and_polish():
    c = np.array([2.0, 3.0, 10.0])
    x = solvers.newton_bracketed(lambda x: x**3 - c, lambda x: 3 * x**2, np.zeros(3), np.full(3, 4.0), np.full(3, 4.0))
    assert np.allclose(x, np.cbrt(c), rtol=4e-16)
    # the polish moves toward the root of g and never where `valid` fails or the point is inactive
    g, dg = (lambda x: x - 3.0), (lambda x: np.ones_like(x))
    out = solvers.newton_polish(g, dg, np.array([2.9, 2.9, 2.9]), lambda x: x < 10,
                                active=np.array([True, False, True]))
    assert out.tolist() == [3.0, 2.9, 3.0]
    out = solvers.newton_polish(g, dg, np.array([2.9]), lambda x: x < 2.95)
    assert out.tolist() == [2.9]


@pytest.mark.parametrize("roots, count", [((1, 2, 3), 3), ((-1, 2), 1), ((2, 2, 5), 2), ((-3, -1), 0)])
def test_sturm_counts_distinct_positive_roots(roots, count):
    poly = [Fraction(1)]
    for r in roots:  # multiply by (x - r)
        poly = [a - Fraction(r) * b for a, b in zip(poly + [Fraction(0)], [Fraction(0)] + poly)]
    assert solvers.sturm_positive_roots(solvers.square_free(poly)) == count
    assert solvers.sign_changes([1, 0, -2, 3]) == 2
    assert solvers.exact_sign(poly, 1e9) == 1


def test_iterate_active_converges_each_point_and_freezes_on_request():
    target = np.array([2.0, 9.0, 1e6, 0.25])

    def heron(x, t):  # Newton on x^2 = t
        new = 0.5 * (x + t / x)
        return new, np.abs(new - x) <= 1e-15 * new

    for freeze in (False, True):
        out = solvers.iterate_active(heron, np.maximum(target, 1.0), (target,), 100, freeze=freeze)
        assert np.allclose(out, np.sqrt(target), rtol=4e-16)
    # a budget of one step leaves the first iterate
    once = solvers.iterate_active(heron, np.full(4, 4.0), (target,), 1)
    assert once.tolist() == (0.5 * (4.0 + target / 4.0)).tolist()
