"""Shared numerics for optimization-defined entries and their high-precision references: bracketing, Newton on a
stationarity condition, golden-section search (float64 vectorized, mpmath at any precision), Sturm root counts.

Every family's solver is built from these pieces, so a fix or a speed-up reaches all of them. The float64 routines
are vectorized over any array shape; the mpmath ones work in the caller's precision (`mpmath.workdps`). An argmin
is found from its stationarity condition where one is available (`newton_bracketed`); golden section, which sees
only function values, resolves an argmin to ~sqrt(eps) and is used to locate a basin or where the value (quadratic
in the argmin's error) is all that is needed.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Sequence

import mpmath
import numpy as np

GOLDEN = (math.sqrt(5) - 1) / 2  # 1/phi: each golden-section step keeps this fraction of the bracket


# -- constrained minima ---------------------------------------------------------------------------------------
def interpolating_minimum(objective: Callable[[np.ndarray], float], gradient: Callable[[np.ndarray], np.ndarray],
                          X: np.ndarray, y: np.ndarray, *, ftol: float = 1e-16, maxiter: int = 2000
                          ) -> tuple[np.ndarray, np.ndarray]:
    """A direct minimizer of `objective` over the interpolants X v = y (SLSQP from the least-squares solution, the
    constraint with its Jacobian X), and that point projected onto X v = y in float64 (v - X^T (X X^T)^{-1}
    (X v - y)). Used for the minimum of seed 000's eq (22), ||beta||_Q over X beta = y (qpenalty), by its
    derivation's margin and by its evidence check: the one implementation of that direct minimum."""
    from scipy.optimize import minimize  # lazy: scipy.optimize costs ~1 s of start-up; `eval` never needs it

    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    start = np.linalg.lstsq(X, y, rcond=None)[0]
    res = minimize(objective, start, jac=gradient, method="SLSQP",
                   constraints=[{"type": "eq", "fun": lambda v: X @ v - y, "jac": lambda v: X}],
                   options={"ftol": ftol, "maxiter": maxiter})
    x = res.x
    return x, x - X.T @ np.linalg.solve(X @ X.T, X @ x - y)


# -- brackets ---------------------------------------------------------------------------------------------
def grid_bracket(grid: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The neighbours (along the last axis) of each row's smallest grid value: a bracket of a unimodal minimum
    located on the grid (clipped at the grid's ends)."""
    n = grid.shape[-1]
    k = np.argmin(vals, axis=-1)[..., None]
    lo = np.take_along_axis(grid, np.maximum(k - 1, 0), -1)[..., 0]
    hi = np.take_along_axis(grid, np.minimum(k + 1, n - 1), -1)[..., 0]
    return lo, hi


def grid_bracket_mp(grid: Sequence, vals: Sequence) -> tuple:
    """grid_bracket for one list of (mpmath) points: (lo, hi) around the smallest value."""
    k = min(range(len(grid)), key=vals.__getitem__)
    return grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]


def expand_upper(below: Callable[[np.ndarray], np.ndarray], start: np.ndarray, factor: float = 2.0,
                 max_iter: int = 200) -> np.ndarray:
    """Grow each upper end by `factor` while `below(x)` (elementwise) says the sought point lies above it
    (a doubling search for a bracket's upper end; at most `max_iter` growths)."""
    x = np.array(start, dtype=float, copy=True)
    for _ in range(max_iter):
        low = np.asarray(below(x), dtype=bool)
        if not np.any(low):
            break
        x = np.where(low, x * factor, x)
    return x


def bisect(pred: Callable[[Any], bool], lo, hi, iters: int | None = 80, xtol=None, rtol=None) -> tuple:
    """Scalar bisection of [lo, hi] where pred is True at lo and False at hi (floats or mpmath numbers): returns
    the final (lo, hi) after `iters` halvings (None: no limit), or earlier once hi - lo < xtol or
    hi - lo <= rtol |hi|."""
    k = 0
    while iters is None or k < iters:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if pred(mid) else (lo, mid)
        k += 1
        if (xtol is not None and hi - lo < xtol) or (rtol is not None and hi - lo <= rtol * abs(hi)):
            break
    return lo, hi


def bisect_to_adjacent(positive: Callable[[float], bool], lo: float, hi: float) -> tuple[float, float]:
    """Bisect a positive bracket [lo, hi] of a sign change down to adjacent float64 numbers, geometrically
    (midpoint sqrt(lo hi), so a bracket spanning hundreds of decades takes ~11 steps a decade-doubling);
    `positive(x)` is True on lo's side."""
    while True:
        mid = math.sqrt(lo) * math.sqrt(hi)
        if not lo < mid < hi:
            mid = lo + (hi - lo) / 2
        if not lo < mid < hi:
            return lo, hi
        if positive(mid):
            lo = mid
        else:
            hi = mid


# -- golden section and k-section ---------------------------------------------------------------------------
SECTION_POINTS = 16  # interior points a step when the bracket holds few elements (see golden)


def golden(F: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray,
           iters: int | None = None, shrink: float = 1e-12, points: int | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Section search for the minimum of a unimodal F on [lo, hi], vectorized: returns the final bracket.

    Each step evaluates F at `points` interior points of every bracket, stacked: F receives an array of shape
    (points,) + lo.shape and returns values of that shape, one call per step. With 2 points they sit at the golden
    ratio and a step keeps GOLDEN = 0.618 of the bracket (golden section; the points are recomputed from the
    bracket each step, no reuse, so the bracket is exact to rounding); with k > 2 they are equally spaced and a
    step keeps the two cells around the smallest value, 2/(k + 1) of the bracket (k-section). Golden section
    needs the fewest evaluations of F, k-section the fewest calls: by default 2 points where the brackets hold
    more than 64 elements (large arrays: F's arithmetic dominates) and SECTION_POINTS = 16 otherwise (F's
    per-call overhead dominates: ~40 microseconds a call for omega's lambdified functions, so the nested searches
    of omega.tilde_oplus take 13 calls a level instead of 58). On a unimodal F both keep the minimizer in the
    bracket.

    It takes `iters` steps, by default the fewest that shrink every bracket to `shrink` = 1e-12 of its starting
    width (58 golden steps, 13 16-section steps; the same count for every element: no data-dependent stop). The
    callers want the minimum *value*: with the starting bracket two cells of a grid, the value at the final
    midpoint is off by at most F's variation across those cells times 1e-12 where the minimum is a kink, and
    times ~1e-24 where it is smooth (quadratic in the argmin's error); more steps only move the argmin inside the
    region where F is flat to rounding (~sqrt(eps) wide)."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    shape = np.broadcast_shapes(lo.shape, hi.shape)
    k = points if points is not None else (2 if math.prod(shape) > 64 else SECTION_POINTS)
    if k < 2:
        raise ValueError(f"points must be at least 2; got points={k}")
    keep = GOLDEN if k == 2 else 2 / (k + 1)
    if iters is None:
        iters = math.ceil(math.log(shrink) / math.log(keep))
    lo, hi = np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
    if k == 2:
        ab = np.empty((2,) + shape)  # interior points, written in place
        a, b = ab[0, ...], ab[1, ...]  # views (also for 0-d brackets)
        for _ in range(iters):
            step = GOLDEN * (hi - lo)
            np.subtract(hi, step, out=a)
            np.add(lo, step, out=b)
            fa, fb = F(ab)
            left = fa <= fb
            hi = np.where(left, b, hi)
            lo = np.where(left, lo, a)
        return lo, hi
    frac = (np.arange(k + 2) / (k + 1)).reshape((k + 2,) + (1,) * len(shape))
    for _ in range(iters):
        grid = lo + (hi - lo) * frac  # lo, k interior points, hi
        vals = np.asarray(F(grid[1:-1]), dtype=float)
        vals = np.where(np.isnan(vals), np.inf, vals)  # as golden's comparison: a NaN is never the smallest
        j = np.argmin(vals, axis=0)[None] + 1  # the best interior point's index in grid
        lo = np.take_along_axis(grid, j - 1, 0)[0]
        hi = np.take_along_axis(grid, j + 1, 0)[0]
    return lo, hi


def golden_mp(F: Callable, lo, hi, iters: int | None = 170, xtol=None, rtol=None) -> tuple:
    """Golden-section minimization of a unimodal mpmath function on [lo, hi] in the current precision, one new
    evaluation per step: stops after `iters` steps or once the bracket is below `xtol` or `rtol` |hi| (whichever
    is given and comes first). Returns (x, F(x)) at the final bracket's midpoint."""
    g = (mpmath.sqrt(5) - 1) / 2
    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = F(a), F(b)
    k = 0
    while ((iters is None or k < iters) and (xtol is None or hi - lo > xtol)
           and (rtol is None or hi - lo > rtol * abs(hi))):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = F(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = F(b)
        k += 1
    x = (lo + hi) / 2
    return x, F(x)


# -- Newton on a stationarity condition --------------------------------------------------------------------
def newton_bracketed(h: Callable[[np.ndarray], np.ndarray], dh: Callable[[np.ndarray], np.ndarray],
                     lo: np.ndarray, hi: np.ndarray, x0: np.ndarray, rtol: float = 4e-16,
                     maxit: int = 100) -> np.ndarray:
    """The root of an increasing h in the bracket [lo, hi] (h(lo) < 0 <= h(hi)), vectorized: Newton steps that
    leave the (shrinking) bracket are replaced by bisection; stops when every step is below rtol |x|.
    At convergence a Newton point sits on the bracket's end and is kept."""
    x = np.array(x0, dtype=float, copy=True)
    lo, hi = np.array(lo, dtype=float, copy=True), np.array(hi, dtype=float, copy=True)
    with np.errstate(all="ignore"):
        for _ in range(maxit):
            hv = h(x)
            lo, hi = np.where(hv < 0, x, lo), np.where(hv >= 0, x, hi)
            nx = x - hv / dh(x)
            nx = np.where((nx >= lo) & (nx <= hi), nx, (lo + hi) / 2)
            done = np.all(np.abs(nx - x) <= rtol * x)
            x = nx
            if done:
                break
    return x


def iterate_active(update: Callable, x: np.ndarray, params: tuple = (), maxit: int = 200,
                   freeze: bool = False) -> np.ndarray:
    """Run a vectorized fixed-point/Newton update to convergence point by point: `update(x, *params)` returns
    (new x, done mask); converged points leave the active set (which is compacted, with `params`, once more than
    an eighth of it is done: small late iterations stay cheap; a converged point left active keeps iterating,
    harmless for a monotone update that stays put). freeze=True compacts at every step instead, so each point
    keeps exactly the iterate at which it converged. Returns every point's final iterate."""
    out = np.array(x, dtype=float, copy=True)
    ids = np.arange(out.size)
    x = out.copy()
    for _ in range(maxit):
        if not ids.size:
            break
        x, done = update(x, *params)
        ndone = int(np.count_nonzero(done))
        if ndone == done.size:
            out[ids] = x
            ids = ids[:0]
        elif ndone * 8 > done.size or (freeze and ndone):  # compact when it pays (or when asked to freeze)
            out[ids[done]] = x[done]
            keep = ~done
            ids, x = ids[keep], x[keep]
            params = tuple(q[keep] for q in params)
    if ids.size:
        out[ids] = x
    return out


def newton_polish(g: Callable[[np.ndarray], np.ndarray], dg: Callable[[np.ndarray], np.ndarray], x: np.ndarray,
                  valid: Callable[[np.ndarray], np.ndarray], active=True, steps: int = 3) -> np.ndarray:
    """A few guarded Newton steps on a stationarity condition g(x) = 0 from a located minimizer: a step is kept
    only where `active`, dg > 0 (a minimum's side), `valid(new)` holds and |g| does not grow, so a polish never
    moves a point away from the root it was given."""
    x = np.array(x, dtype=float, copy=True)
    with np.errstate(all="ignore"):
        for _ in range(steps):
            gv, hv = np.asarray(g(x), float), np.asarray(dg(x), float)
            nx = x - gv / hv
            ok = active & np.isfinite(nx) & (hv > 0) & np.asarray(valid(nx), bool)
            ng = np.asarray(g(np.where(ok, nx, x)), float)
            x = np.where(ok & (np.abs(ng) <= np.abs(gv)), nx, x)
    return x


# -- exact polynomial root counts (Sturm) ------------------------------------------------------------------
def poly_divmod(num: list[Fraction], den: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """Exact polynomial division of rational coefficient lists (highest power first): (quotient, remainder)."""
    num = list(num)
    q = [Fraction(0)] * max(1, len(num) - len(den) + 1)
    while len(num) >= len(den) and any(num):
        coef = num[0] / den[0]
        shift = len(num) - len(den)
        q[len(q) - 1 - shift] = coef
        num = [x - coef * y for x, y in zip(num, den + [Fraction(0)] * shift)][1:]
    while num and num[0] == 0:
        num = num[1:]
    return q, num


def poly_gcd(p: list[Fraction], q: list[Fraction]) -> list[Fraction]:
    """The monic greatest common divisor of two rational polynomials (Euclid)."""
    while q and any(q):
        p, q = q, poly_divmod(p, q)[1]
    return [x / p[0] for x in p]


def square_free(poly: list[Fraction]) -> list[Fraction]:
    """poly / gcd(poly, poly'): the same distinct roots, each simple."""
    deriv = [c * (len(poly) - 1 - i) for i, c in enumerate(poly[:-1])]
    g = poly_gcd(poly, deriv)
    return poly_divmod(poly, g)[0] if len(g) > 1 else list(poly)


def sign_changes(values) -> int:
    """Sign changes in a sequence, zeros skipped (Descartes, Sturm)."""
    signs = [v > 0 for v in values if v != 0]
    return sum(1 for s, t in zip(signs, signs[1:]) if s != t)


def sturm_positive_roots(poly: list[Fraction]) -> int:
    """The number of distinct roots in (0, oo) of a rational polynomial with poly(0) != 0, exactly, by Sturm's
    theorem (sign changes of the Sturm sequence at 0 minus those at +oo)."""
    deriv = [c * (len(poly) - 1 - i) for i, c in enumerate(poly[:-1])]
    seq = [poly, deriv]
    while len(seq[-1]) > 1:
        rem = poly_divmod(seq[-2], seq[-1])[1]
        if not rem:
            break
        seq.append([-x for x in rem])
    return sign_changes([s[-1] for s in seq]) - sign_changes([s[0] for s in seq])


def exact_sign(poly: list[Fraction], x: float) -> int:
    """The sign of a rational polynomial at a float, exactly (Horner in Fractions)."""
    xf = Fraction(x)
    v = Fraction(0)
    for c in poly:
        v = v * xf + c
    return (v > 0) - (v < 0)
