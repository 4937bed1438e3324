"""omega's numerics (seed 003): omega as input (validated, float64 on z >= 1), the effective penalty (12) by
Newton on its stationarity condition or a bracketed search, the joint penalty (11), and their mpmath references.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import (bisect, expand_upper, golden, golden_mp, grid_bracket, grid_bracket_mp, iterate_active,
                                 newton_bracketed, newton_polish)
from theorylab.authoring import Z, DomainError

GRID = np.unique(np.concatenate([1 + np.logspace(-9, 0, 200), np.logspace(0.31, 6, 400)]))  # z > 1, sorted
class OmegaPoint(dict):
    """A search point whose penalties (omega, omega1, omega2) are functions of z written as SymPy text, as the steps'
    routines take them: `function_of` says so to the machine comparison (theorylab's fidelity), where a printed
    omega(z), omega_1(z) is then the point's function (the step's own omega, by name), never a formula of the map."""

    @property
    def function_of(self) -> dict:
        return {k: "z" for k in ("omega", "omega1", "omega2") if k in self}


EXAMPLES = ("(z-1)**2", "Abs(z-1)", "Abs(z-1)**3", "exp(z-1)-z", "(z-1)**2 + Abs(z-1)", "Abs(z-1)**(3/2)")



# -- omega as input -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def prepare(expr: sp.Expr, name: str = "omega"):
    """Validate omega and return (expr on z >= 1, vectorized float function, polynomial or None).

    On z >= 1, Abs(z - 1) is z - 1 and Abs(1 - z) is z - 1, so |z-1|^p with integer p is a polynomial there.
    """
    z = Z
    on = expr.subs({sp.Abs(z - 1): z - 1, sp.Abs(1 - z): z - 1})
    at1 = sp.simplify(on.subs(z, 1))
    if at1.is_number and at1 != 0 and (not at1.is_real or abs(complex(at1)) > 1e-12):
        raise DomainError(f"{name} must satisfy {name}(1) = 0 (minimized at z = 1); got {name}(1) = {sp.N(at1, 6)} "
                          f"for {name}={expr}")
    # the checks run in 30-digit arithmetic: float rounding near z = 1 (exp(z-1) - z) is not a violation
    fmp = sp.lambdify(z, on, modules="mpmath")
    with mpmath.workdps(30):
        try:
            vals = [fmp(mpmath.mpf(float(x))) for x in GRID]
            f1 = fmp(mpmath.mpf(1))
        except (ValueError, ZeroDivisionError, TypeError, OverflowError):
            raise DomainError(f"{name} must be defined on z >= 1; got {name}={expr}") from None
        bad = [i for i, x in enumerate(vals) if isinstance(x, mpmath.mpc) and abs(x.imag) > 1e-20 * (1 + abs(x.real))]
        if bad or isinstance(f1, mpmath.mpc) and abs(f1.imag) > 0:
            where = GRID[bad[0]] if bad else 1.0
            raise DomainError(f"{name} must be real on z >= 1; it is not at z = {where:.4g} for {name}={expr}")
        vals = [mpmath.re(x) for x in vals]
        if abs(mpmath.re(f1)) > mpmath.mpf(10) ** -12:
            raise DomainError(f"{name} must satisfy {name}(1) = 0; got {name}(1) = {float(mpmath.re(f1)):.3g} "
                              f"for {name}={expr}")
        prev = mpmath.re(f1)
        for x, val in zip(GRID, vals):
            if not val > prev:
                raise DomainError(f"{name} must be strictly quasi-convex with its minimum at z = 1, i.e. strictly "
                                  f"increasing on z >= 1 (checked on a grid of {GRID.size} points up to 1e6); it is "
                                  f"not near z = {x:.4g} for {name}={expr}")
            prev = val
    from sympy.codegen.rewriting import optimize, optims_c99

    # evaluated in x = z - 1 (exact for z near 1), rewritten with expm1/log1p: exp(z-1) - z = expm1(x) - x
    x = sp.Symbol("x", nonnegative=True)
    fx = sp.lambdify(x, optimize(sp.expand(on.subs(z, x + 1)) if on.is_polynomial(z) else on.subs(z, x + 1),
                                 optims_c99), modules=["scipy", "numpy"])
    if not on.is_polynomial(z):
        fx = _with_small_offset_series(fx, on.subs(z, x + 1), x)

    def fn(zz):
        # omega is only used on z >= 1; rounding (v/z for z ~ v) must not reach x < 0, where x^(3/2) is NaN
        return fx(np.maximum(np.asarray(zz, dtype=float) - 1.0, 0.0))

    def offset(xx):
        # omega(1 + x) from the offset x = z - 1 itself (no rounded z near 1: used where x is known to full
        # relative accuracy, e.g. x = expm1(log z))
        return fx(np.maximum(np.asarray(xx, dtype=float), 0.0))
    fn.offset = offset
    poly = sp.Poly(sp.expand(on), z) if on.is_polynomial(z) else None
    return on, fn, poly



@functools.lru_cache(maxsize=256)
def _term_series(term: sp.Expr, x: sp.Symbol, order: int) -> sp.Expr:
    """One term's series at x = 0 to O(x^order), its numeric factor taken out: the series of a sum is the sum of
    its terms' series, and omegas made of the same functions with other weights (a Hypothesis search draws many)
    reuse them (SymPy's series costs ~0.15 s)."""
    coeff, rest = term.as_coeff_Mul()
    return coeff * sp.series(rest, x, 0, order).removeO()


def _with_small_offset_series(fx, ex: sp.Expr, x: sp.Symbol, order: int = 12):
    """fx with its Taylor (Puiseux) series at x = 0 used for x below a threshold: the closed form cancels there
    (exp(z-1) - z = expm1(x) - x ~ x^2/2 has absolute error ~eps x, i.e. relative 2 eps/x). The series (to
    O(x^order)) is used below the largest threshold in 1e-2, 1e-3, 1e-4 where it agrees with the closed form to
    1e-18 relative in 40-digit arithmetic; fx unchanged where no series exists or none agrees."""
    try:
        ser = sp.Add(*(_term_series(t, x, order) for t in sp.Add.make_args(sp.expand(ex))))
    except Exception:  # noqa: BLE001 -- sympy raises many kinds for expressions it cannot expand
        return fx
    if ser.has(sp.Order) or ser.free_symbols - {x} or ser == ex:
        return fx
    f_mp, s_mp = sp.lambdify(x, ex, "mpmath"), sp.lambdify(x, ser, "mpmath")
    thr = None
    with mpmath.workdps(40):
        for cand in ("1e-2", "1e-3", "1e-4"):
            try:
                fv, sv = f_mp(mpmath.mpf(cand)), s_mp(mpmath.mpf(cand))
            except (ValueError, ZeroDivisionError, TypeError):
                return fx
            if fv != 0 and abs(fv - sv) <= mpmath.mpf(10) ** -18 * abs(fv):
                thr = float(cand)
                break
    if thr is None:
        return fx
    # Horner's form: fewer operations, each a NumPy call on small arrays in the nested searches of omega.tilde_oplus
    fs = sp.lambdify(x, sp.horner(ser) if ser.is_polynomial(x) else ser, modules=["numpy"])

    def combined(xx):
        xx = np.asarray(xx, dtype=float)
        below = xx < thr
        with np.errstate(all="ignore"):
            if not below.any():  # one branch only, when every point is on one side (most calls)
                return np.asarray(fx(xx), float)
            if below.all():
                return np.asarray(fs(xx), float) + 0 * xx
            return np.where(below, np.asarray(fs(np.minimum(xx, thr)), float), np.asarray(fx(xx), float))
    return combined


# -- the scalar effective penalty (12) --------------------------------------------------------------------
def _objective(fn, z, v):
    with np.errstate(all="ignore"):
        return np.asarray(fn(z), dtype=float) + v * v / (z * z)


@functools.lru_cache(maxsize=256)
def _convex_on_ray(poly_expr: sp.Expr) -> bool:
    """omega'' >= 0 on z >= 1 (checked on the grid in 30-digit arithmetic): then F = omega + v^2/z^2 is convex
    with one stationary point, the root of the increasing h(z) = omega'(z) z^3 - 2 v^2."""
    f2 = sp.lambdify(Z, sp.diff(poly_expr, Z, 2), "mpmath")
    with mpmath.workdps(30):
        return all(f2(mpmath.mpf(float(x))) >= 0 for x in np.concatenate([[1.0], GRID]))


def _tilde_newton(poly: sp.Poly, fn, v: np.ndarray):
    """Convex polynomial omega: Newton on the stationarity condition, written in x = z - 1 >= 0,
    h(x) = omega'(1 + x) (1 + x)^3 = 2 v^2, vectorized.

    h(0) = omega'(1+); where 2 v^2 <= h(0) the minimum is at z = 1. When h has nonnegative coefficients in x
    (|z-1|^p, (z-1)^2 and their sums), h is increasing and convex on x >= 0 and every monomial bounds the
    root from above: x* <= ((2v^2 - h_0)/h_k)^(1/k). Newton started from the smallest of these bounds
    decreases monotonically to x* and converges quadratically (a handful of steps, no bracketing); working
    in x keeps the root's relative accuracy when z* is within rounding of 1 (small v, where in z the root
    is nearly double). Other convex polynomials take the bracketed route."""
    x = sp.Symbol("x")
    h = sp.Poly(sp.expand((sp.diff(poly.as_expr(), Z) * Z**3).subs(Z, x + 1)), x)
    c = np.array([float(a) for a in h.all_coeffs()])  # highest power first
    if np.any(c < 0) or c.size < 2:
        return _tilde_bracketed(poly, fn, v)
    d = np.polyder(c)
    v2 = v * v
    rhs = 2 * v2 - c[-1]
    inner = rhs > 0
    powers = np.arange(c.size - 1, 0, -1)
    xx = np.zeros_like(v)
    if inner.any():
        r = rhs[inner]
        with np.errstate(divide="ignore"):
            bounds = [(r / ck) ** (1.0 / k) for ck, k in zip(c[:-1], powers) if ck > 0]
        def update(xi, r):
            hv = np.polyval(c, xi) - c[-1] - r
            dv = np.polyval(d, xi)
            # h' = 0 only at x = 0 when r underflows the bound to 0: x = 0 is then the answer to rounding
            step = np.divide(hv, dv, out=np.zeros_like(hv), where=dv > 0)
            new = np.maximum(xi - step, 0.0)
            return new, np.abs(new - xi) <= 4e-16 * new

        xx[inner] = iterate_active(update, np.minimum.reduce(bounds), (r,), 200, freeze=True)
    zz = 1.0 + xx
    # z = 1 is always a candidate (and the answer where the stationarity condition has no root x > 0)
    at_one = _objective(fn, np.ones_like(v), v)
    found = _objective(fn, zz, v)
    return np.where(at_one <= found, at_one, found), np.where(at_one <= found, 1.0, zz)


def _tilde_bracketed(poly: sp.Poly, fn, v: np.ndarray):
    """Convex polynomial omega: bracketed Newton on h(z) = omega'(z) z^3 - 2 v^2 over [1, z_hi], vectorized.

    h(1) = omega'(1) - 2v^2; where h(1) >= 0 the minimum is at z = 1. Otherwise the bracket [1, z_hi] with
    h(z_hi) > 0 is found by doubling, and Newton steps that leave the bracket are replaced by bisection."""
    z = Z
    c = np.array([float(a) for a in sp.Poly(sp.diff(poly.as_expr(), z) * z**3, z).all_coeffs()])
    d = np.polyder(c)
    v2 = v * v
    h1 = np.polyval(c, 1.0) - 2 * v2
    # start near the root: the leading term alone puts it near (2 v^2/c_0)^(1/deg); doubling makes it a bracket
    lo, hi = np.ones_like(v), np.maximum(2.0, 2 * (2 * v2 / c[0]) ** (1.0 / (len(c) - 1)))
    for _ in range(1100):
        up = (np.polyval(c, hi) - 2 * v2 <= 0) & (h1 < 0)
        if not up.any():
            break
        lo, hi = np.where(up, hi, lo), np.where(up, hi * 2, hi)
    zz = newton_bracketed(lambda x: np.polyval(c, x) - 2 * v2, lambda x: np.polyval(d, x), lo, hi, hi)
    zz = np.where(h1 >= 0, 1.0, zz)
    # the boundary z = 1 is always a candidate: for tiny v the root lies within rounding of 1, where h has a
    # near-double root and Newton converges only linearly
    at_one = _objective(fn, np.ones_like(v), v)
    found = _objective(fn, zz, v)
    return np.where(at_one <= found, at_one, found), np.where(at_one <= found, 1.0, zz)


def _tilde_poly(poly: sp.Poly, fn, v: np.ndarray):
    """Exact route: omega polynomial on z >= 1. Stationarity omega'(z) z^3 - 2 v^2 = 0 is a polynomial in z;
    its real roots >= 1 and the boundary z = 1 are the candidates (batched companion-matrix eigenvalues,
    one Newton polish)."""
    z = Z
    dp = sp.Poly(sp.diff(poly.as_expr(), z) * z**3, z)
    coeffs = np.array([float(c) for c in dp.all_coeffs()])
    deg = len(coeffs) - 1
    v2 = v * v
    best_z = np.ones_like(v)
    best = _objective(fn, best_z, v)
    if deg >= 1:
        with np.errstate(all="ignore"):
            C = np.broadcast_to(coeffs, v.shape + (deg + 1,)).copy()
            C[..., -1] -= 2 * v2  # the constant term
            lead = C[..., 0:1]
            comp = np.zeros(v.shape + (deg, deg))
            comp[..., 0, :] = -C[..., 1:] / lead
            comp[..., np.arange(1, deg), np.arange(0, deg - 1)] = 1.0
            roots = np.linalg.eigvals(comp) if deg > 1 else -C[..., 1:] / lead
            real = roots.real
            ok = (np.abs(roots.imag) <= 1e-6 * (1 + np.abs(real))) & (real >= 1 - 1e-9)
            r = np.where(ok, np.maximum(real, 1.0), 1.0)
            # one Newton step on the stationarity polynomial polishes the eigenvalue roots to full precision
            d1 = np.polyder(coeffs)
            for _ in range(2):
                pv = np.polyval(coeffs, r) - 2 * v2[..., None]
                dv = np.polyval(d1, r)
                step = np.where(np.abs(dv) > 0, pv / dv, 0.0)
                r = np.where(ok, np.maximum(r - step, 1.0), r)
            vals = np.where(ok, _objective(fn, r, v[..., None]), np.inf)
            k = np.argmin(vals, axis=-1)
            cand = np.take_along_axis(vals, k[..., None], -1)[..., 0]
            zc = np.take_along_axis(r, k[..., None], -1)[..., 0]
            better = cand < best
            best = np.where(better, cand, best)
            best_z = np.where(better, zc, best_z)
    return best, best_z


def _tilde_search(fn, v: np.ndarray, on=None):
    """Numeric route for any strictly increasing omega on z >= 1: the minimizer lies in [1, z_max] with
    omega(z_max) >= v^2 (F(1) = v^2 bounds the minimum); a log grid locates it and golden-section search
    refines it (the value is then exact to rounding: its error is quadratic in the argmin's)."""
    v2 = v * v
    zmax = expand_upper(lambda zz: np.asarray(fn(zz), dtype=float) < v2, np.full_like(v, 2.0))
    # a log grid in x = z - 1 from 1e-16 to z_max - 1 (at least 8 points a decade): a slowly growing omega
    # (log(z)^2 at v = 100 has z_max ~ 1e43 and its minimizer at z ~ 50) is resolved as well as one near z = 1
    top = np.log10(np.maximum(zmax - 1, 1e-15))
    t = np.linspace(0, 1, 8 * 80 + 1)
    grid = 1 + 10.0 ** (-16 + (top[..., None] + 16) * t)
    lo, hi = grid_bracket(grid, _objective(fn, grid, v[..., None]))
    lo, hi = golden(lambda zz: _objective(fn, zz, v), lo, hi)
    zs = np.clip((lo + hi) / 2, 1.0, None)
    vals = np.minimum(_objective(fn, zs, v), _objective(fn, np.ones_like(v), v))
    zs = np.where(_objective(fn, np.ones_like(v), v) <= _objective(fn, zs, v), 1.0, zs)
    return vals, zs


def tilde(omega: sp.Expr, v, name: str = "omega"):
    """omega-tilde(v) = min_{z >= 1} omega(z) + v^2/z^2 (eq 12) and its smallest minimizer, vectorized."""
    on, fn, poly = prepare(omega, name)
    v = np.abs(np.asarray(v, dtype=float))
    if poly is not None:
        if _convex_on_ray(poly.as_expr()):
            return _tilde_newton(poly, fn, v)
        return _tilde_poly(poly, fn, v)
    vals, zs = _tilde_search(fn, v)
    return _polish(on, fn, v, vals, zs)


@functools.lru_cache(maxsize=256)
def _derivatives(on: sp.Expr):
    """omega' and omega'' on z >= 1 as float functions of x = z - 1 (rewritten with expm1/log1p), or None."""
    from sympy.codegen.rewriting import optimize, optims_c99

    x = sp.Symbol("x", positive=True)
    out = []
    for k in (1, 2):
        d = sp.diff(on, Z, k).subs(Z, x + 1)
        if d.has(sp.Abs, sp.sign, sp.Heaviside, sp.Max, sp.Min, sp.Piecewise, sp.DiracDelta):
            return None
        out.append(sp.lambdify(x, optimize(d, optims_c99), modules=["scipy", "numpy"]))
    return tuple(out)


def _polish(on, fn, v, vals, zs):
    """Newton steps on the stationarity condition omega'(z) - 2 v^2/z^3 = 0 from the search's minimizer (whose
    golden-section bracket resolves the argmin only to ~sqrt(machine epsilon), since F is flat there to rounding);
    a step is kept only where it stays in z > 1 and does not increase the residual |F'|. The value is the smaller
    of the two (unchanged to rounding: it is quadratic in the argmin's error)."""
    d = _derivatives(on)
    if d is None:
        return vals, zs
    d1, d2 = d
    v2 = v * v
    z = np.asarray(zs, float)
    z = newton_polish(lambda zz: np.asarray(d1(np.maximum(zz - 1.0, 0.0)), float) - 2 * v2 / zz**3,
                      lambda zz: np.asarray(d2(np.maximum(zz - 1.0, 0.0)), float) + 6 * v2 / zz**4,
                      z, lambda zz: zz > 1, active=z > 1)
    return np.minimum(vals, _objective(fn, z, v)), z


def _tilde_mp(omega, v, dps: int = 40):
    """omega~(v) and its smallest minimizer by the defining minimization solved directly in mpmath (independent of
    `tilde`): the minimizer lies in [1, z_hi] with omega(z_hi) >= v^2 (F(1) = v^2 bounds the minimum); a log grid in
    z - 1 (8 points a decade from 1e-45 up to z_hi - 1, and z = 1) brackets it, golden-section search refines it
    at `dps` digits; the boundary z = 1 is a candidate. Returns (value, argmin) as mpmath numbers."""
    on = prepare(omega)[0]
    f = sp.lambdify(Z, on, "mpmath")
    with mpmath.workdps(dps):
        v2 = mpmath.mpf(abs(float(v))) ** 2
        one = mpmath.mpf(1)
        if v2 == 0:
            return mpmath.mpf(0), one
        F = lambda x: f(x) + v2 / x**2  # noqa: E731
        hi = mpmath.mpf(2)
        while f(hi) < v2 and hi < mpmath.mpf(2) ** 1100:  # a bounded omega: the infimum is approached as z -> oo
            hi *= 2
        # 8 points a decade from 1e-45 up to z_hi - 1 (a slowly growing omega such as log(z)^2 has z_hi ~ 1e130
        # at v = 300 and its minimizer near z = 130: the grid must span every decade below z_hi)
        dec = int(mpmath.ceil(mpmath.log10(hi - 1))) + 45
        xs = [(hi - 1) * mpmath.mpf(10) ** (-mpmath.mpf(k) / 8) for k in range(8 * dec)][::-1]
        grid = [one] + [one + x for x in xs]
        vals = [F(x) for x in grid]
        x, val = golden_mp(F, *grid_bracket_mp(grid, vals), 220)
        if F(one) <= val:
            return F(one), one
        return val, x


def _tilde_reference(omega, v):
    """Independent of `tilde`: polynomial omega (on z >= 1) through all roots of the stationarity polynomial
    omega'(z) z^3 - 2 v^2 (mpmath.polyroots, 40 digits) and the boundary z = 1; any other omega by the defining
    minimization solved in mpmath (`_tilde_mp`: a 45-decade log grid brackets the minimizer, golden section at 40
    digits)."""
    on, fn, poly = prepare(omega)

    def one(vv):
        if poly is None:
            return float(_tilde_mp(omega, vv)[0])
        f = sp.lambdify(Z, on, "mpmath")
        with mpmath.workdps(40):
            vv = mpmath.mpf(float(vv))
            F = lambda x: f(x) + vv**2 / x**2  # noqa: E731
            dp = sp.Poly(sp.diff(poly.as_expr(), Z) * Z**3, Z)
            cs = [mpmath.mpf(float(c)) if c.is_Float else mpmath.mpf(sp.Rational(c).p) / sp.Rational(c).q
                  for c in dp.all_coeffs()]
            cs[-1] -= 2 * vv**2
            roots = mpmath.polyroots(cs, maxsteps=200, extraprec=200) if len(cs) > 1 else []
            cands = [mpmath.mpf(1)] + [mpmath.re(r) for r in roots
                                       if abs(mpmath.im(r)) < mpmath.mpf(10) ** -20 and mpmath.re(r) >= 1]
            return float(min(F(c) for c in cands))

    vs = np.asarray(v, float)
    out = np.array([one(a) for a in vs.ravel()]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


def _theorem1_reference(beta, omega):
    """Independent of `theorem1`: s is the smallest minimizer of omega(z) + ||beta||^2/z^2 over z >= 1 found by the
    defining minimization in mpmath (`_tilde_mp`, 40 digits; ||beta|| by mpmath.norm), then (8) in 40-digit
    arithmetic: theta_delta = beta/s, M = I + (s - 1) beta beta^T/||beta||^2."""
    beta = np.asarray(beta, float)
    P = beta.shape[0]
    with mpmath.workdps(40):
        bm = [mpmath.mpf(float(b)) for b in beta]
        nb = mpmath.sqrt(mpmath.fsum(b * b for b in bm))
        if nb == 0:
            return {"s": 1.0, "theta_delta": np.zeros(P), "M": np.eye(P)}
        _, s = _tilde_mp(omega, float(nb))
        M = np.array([[float((1 if i == j else 0) + (s - 1) * bm[i] * bm[j] / nb**2) for j in range(P)]
                      for i in range(P)])
        return {"s": float(s), "theta_delta": np.array([float(b / s) for b in bm]), "M": M}


# -- the joint penalty (11) and its effective penalty -------------------------------------------------------
def oplus(omega1, omega2, v, n: int = 200, polish: bool = True):
    """(omega1 (+) omega2)(v) = min_{1 <= z <= v} omega1(z) + omega2(v/z) (eq 11), v >= 1, vectorized.

    Solved in u = log z on [0, log v], with both offsets formed without a rounded z near 1: t = z - 1 = expm1(u)
    and s = v/z - 1 = expm1(log v - u) for v <= e (v/z - 1 beyond, where it has full accuracy). A log grid in z
    (uniform in u) brackets the minimum and golden-section search narrows it; golden section on values resolves the
    argmin only to ~sqrt(eps), so where omega1', omega2' exist the minimizer is then solved from the stationarity
    condition (1 + t) omega1'(1 + t) = (1 + s) omega2'(1 + s) by bracketed Newton inside the grid bracket
    (`polish`). The value is the least of the objective at the golden-section point, at the stationary point, and
    at the endpoints z = 1 and z = v."""
    on1, f1, _ = prepare(omega1, "omega1")
    on2, f2, _ = prepare(omega2, "omega2")
    g1, g2 = f1.offset, f2.offset
    v = np.asarray(v, dtype=float)
    L = np.log(v)
    small = L <= 1.0  # log v has absolute error <= eps there, so expm1(log v - u) keeps (1 + t)(1 + s) = v

    def offsets(u, L, v, small):
        with np.errstate(all="ignore"):
            t = np.expm1(u)
            s = np.where(small, np.expm1(L - u), v / np.exp(u) - 1.0)
        return np.maximum(t, 0.0), np.maximum(s, 0.0)

    def F(u, L, v, small):
        t, s = offsets(u, L, v, small)
        with np.errstate(all="ignore"):
            return np.asarray(g1(t), float) + np.asarray(g2(s), float)

    # omega_i overflows float64 beyond some z_i (exp(z-1) - z beyond z ~ 711): the objective is finite only on
    # [v/z_2, z_1], so the grid covers that interval; a grid over [1, v] can miss it entirely (v = 4.7e5)
    lo_u = np.clip(L - math.log(_finite_limit(f2)), 0.0, L)
    hi_u = np.clip(np.minimum(L, math.log(_finite_limit(f1))), lo_u, None)
    grid = lo_u[..., None] + (hi_u - lo_u)[..., None] * np.linspace(0, 1, n)
    ex = (L[..., None], v[..., None], small[..., None])
    lo, hi = grid_bracket(grid, F(grid, *ex))
    a, b = golden(lambda x: F(x, L, v, small), lo, hi)
    um = (a + b) / 2
    best = F(um, L, v, small)
    if polish:
        best = np.fmin(best, _oplus_stationary(on1, on2, F, offsets, um, lo, hi, L, v, small))
    return np.fmin(np.fmin(best, F(lo_u, L, v, small)), F(hi_u, L, v, small))


def _oplus_stationary(on1, on2, F, offsets, u0, lo, hi, L, v, small):
    """The objective at the root of its u-derivative h(u) = (1 + t) omega1'(1 + t) - (1 + s) omega2'(1 + s)
    (t = expm1(u), s = v e^-u - 1) inside the grid bracket [lo, hi], by bracketed Newton from u0, where that
    bracket has h(lo) < 0 <= h(hi); inf elsewhere (and where omega1' or omega2' is not available in closed form)."""
    out = np.full(np.shape(u0), np.inf)
    d1, d2 = _derivatives(on1), _derivatives(on2)
    if d1 is None or d2 is None:
        return out
    (a1, a2), (b1, b2) = d1, d2
    u0, lo, hi, L, v, small = np.broadcast_arrays(u0, lo, hi, L, v, small)

    def h(u, *ex):
        t, s = offsets(u, *ex)
        return np.asarray(a1(t), float) * (1 + t) - np.asarray(b1(s), float) * (1 + s)

    def dh(u, *ex):
        t, s = offsets(u, *ex)
        p, q = 1 + t, 1 + s
        return (np.asarray(a2(t), float) * p * p + np.asarray(a1(t), float) * p
                + np.asarray(b2(s), float) * q * q + np.asarray(b1(s), float) * q)

    with np.errstate(all="ignore"):
        ok = (h(lo, L, v, small) < 0) & (h(hi, L, v, small) >= 0) & (lo < hi)
    if not ok.any():
        return out
    ex = (L[ok], v[ok], small[ok])
    u = newton_bracketed(lambda x: h(x, *ex), lambda x: dh(x, *ex), lo[ok], hi[ok],
                         np.clip(u0[ok], lo[ok], hi[ok]), maxit=60)
    out[ok] = F(u, *ex)
    return out


@functools.lru_cache(maxsize=256)
def _finite_limit(fn) -> float:
    """The largest z (to 1e-12 relative) where the increasing omega is still finite in float64, or inf (cached per
    omega: `fn` comes from the cached `prepare`)."""
    with np.errstate(all="ignore"):
        if np.isfinite(fn(1e300)):
            return math.inf
        lo, _ = bisect(lambda t: bool(np.isfinite(fn(math.exp(t)))), 0.0, math.log(1e300))  # in log z
        return math.exp(lo)


def _oplus_reference(omega1, omega2, v):
    """Independent of `oplus`: a 401-point log grid evaluated in mpmath brackets the minimum, which golden-section
    search refines at 40 digits; the endpoints z = 1 and z = v are candidates. Near v = 1 the working precision
    grows by 4 digits per decade of 1/(v - 1): omega evaluated at z = 1 + x in closed form can cancel to its
    value ~x^2 (exp(z-1) - z), and the minimizer's offset can be as small as ~(v - 1)^2 (|z-1|^3 against it)."""
    f1 = sp.lambdify(Z, prepare(omega1, "omega1")[0], "mpmath")
    f2 = sp.lambdify(Z, prepare(omega2, "omega2")[0], "mpmath")

    def one(vv):
        dv = float(vv) - 1.0
        extra = 0 if not 0 < dv < 1 else 4 * math.ceil(-math.log10(dv))
        with mpmath.workdps(40 + extra):
            vv = mpmath.mpf(float(vv))
            F = lambda x: f1(x) + f2(vv / x)  # noqa: E731
            grid = [vv ** (mpmath.mpf(k) / 400) for k in range(401)]
            _, best = golden_mp(F, *grid_bracket_mp(grid, [F(x) for x in grid]))
            return float(min(best, F(mpmath.mpf(1)), F(vv)))

    vs = np.asarray(v, float)
    out = np.array([one(a) for a in vs.ravel()]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


def _spectral_reference(B, omega):
    """Singular values in 40-digit arithmetic (mpmath), each omega~ by the 40-digit reference of omega.tilde."""
    with mpmath.workdps(40):
        svals = mpmath.svd_r(mpmath.matrix(np.asarray(B, float).tolist()), compute_uv=False)
        sv = np.array([float(x) for x in svals])
    return float(mpmath.fsum(np.atleast_1d(_tilde_reference(omega, sv))))


@functools.lru_cache(maxsize=64)
def _joint_objective(omega1, omega2):
    """G(s1, s2; v) = omega1(s1) + omega2(s2) + v^2/(s1 s2)^2 and its gradient, as mpmath functions."""
    a, b, w = sp.symbols("a b w", positive=True)
    G = prepare(omega1, "omega1")[0].subs(Z, a) + prepare(omega2, "omega2")[0].subs(Z, b) + w**2 / (a * b) ** 2
    return (sp.lambdify((a, b, w), [sp.diff(G, a), sp.diff(G, b)], "mpmath"), sp.lambdify((a, b, w), G, "mpmath"))


def _tilde_oplus_reference(omega1, omega2, v):
    """Independent of `tilde_oplus`: min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + v^2/(s1 s2)^2 as the least of
    the edge problems (s1 = 1: omega2~(v); s2 = 1: omega1~(v); both 40-digit references of omega.tilde) and the
    interior stationary point, found by 40-digit Newton (mpmath.findroot) on the gradient from the best point of a
    float 80 x 80 log grid."""
    _, f1n, _ = prepare(omega1, "omega1")
    _, f2n, _ = prepare(omega2, "omega2")
    grad, Gm = _joint_objective(omega1, omega2)

    def one(vv):
        edges = [float(np.atleast_1d(_tilde_reference(omega2, vv))[0]), float(np.atleast_1d(_tilde_reference(omega1, vv))[0])]
        if vv == 0:
            return 0.0
        tops = []
        for fn in (f1n, f2n):  # the minimizer has omega_i(s_i) <= v^2 (the objective at s = (1, 1))
            top = 2.0
            while fn(top) < vv * vv and top < 1e300:
                top *= 2
            tops.append(top)
        g1 = np.exp(np.linspace(0, np.log(tops[0]), 80))[:, None]
        g2 = np.exp(np.linspace(0, np.log(tops[1]), 80))[None, :]
        with np.errstate(all="ignore"):
            vals = f1n(g1) + f2n(g2) + vv * vv / (g1 * g2) ** 2
        i, j = np.unravel_index(np.argmin(vals), vals.shape)
        cands = list(edges)
        with mpmath.workdps(40):
            try:
                s1, s2 = mpmath.findroot(lambda x, y: grad(x, y, mpmath.mpf(vv)),
                                         (mpmath.mpf(float(g1[i, 0])), mpmath.mpf(float(g2[0, j]))))
                if s1 >= 1 and s2 >= 1:
                    cands.append(float(Gm(s1, s2, mpmath.mpf(vv))))
            except (ValueError, ZeroDivisionError):
                pass  # no interior stationary point near the grid's best: the minimum is on an edge
        return min(cands)

    vs = np.abs(np.asarray(v, float))
    out = np.array([one(float(x)) for x in vs.ravel()]).reshape(vs.shape)
    return float(out) if out.ndim == 0 else out


def tilde_oplus(omega1, omega2, v):
    """Effective penalty of omega1 (+) omega2: min_{s1, s2 >= 1} omega1(s1) + omega2(s2) + v^2/(s1 s2)^2
    (eqs 12, 15, 28 with sigma = v/(s1 s2)) = min_{u >= 1} (omega1 (+) omega2)(u) + v^2/u^2."""
    v = np.abs(np.asarray(v, dtype=float))
    prepare(omega1, "omega1"), prepare(omega2, "omega2")

    def joint(u):
        return oplus(omega1, omega2, np.maximum(np.asarray(u, float), 1.0), n=64, polish=False)

    # the nested search holds (values x 257 x 64) floats at once: chunks keep that near 70 MB
    flat = v.ravel()
    out = np.concatenate([_tilde_search(joint, flat[i:i + 512])[0] for i in range(0, flat.size, 512)]
                         or [np.zeros(0)])
    return out.reshape(v.shape)


def spectral_penalty(B, omega):
    return float(np.sum(tilde(omega, np.linalg.svd(B, compute_uv=False))[0]))


def theorem1(beta, omega):
    """Theorem 1 (8): s = argmin_{z >= 1} omega(z) + ||beta||^2/z^2 (smallest), theta - theta0 = beta/s,
    M = I + (s - 1) beta beta^T/||beta||^2 (beta = 0: s = 1, M = I)."""
    P = beta.shape[0]
    scale = float(np.max(np.abs(beta))) if P else 0.0
    if scale == 0:
        return {"s": 1.0, "theta_delta": np.zeros(P), "M": np.eye(P)}
    # ||beta|| and beta/||beta|| from beta/max|beta_j|: the squares of beta_j ~ 1e-160 underflow (||beta|| would be 0)
    unit = beta / scale
    nu = float(np.linalg.norm(unit))
    b, unit = scale * nu, unit / nu
    _, s = tilde(omega, b)
    s = float(s)
    _, fn, _ = prepare(omega)
    F = lambda zz: float(fn(zz)) + b * b / (zz * zz)  # noqa: E731
    if F(10 * s) <= F(s):  # not increasing beyond s: a bounded omega, whose infimum is approached as z -> oo
        raise DomainError(f"omega must grow without bound for a minimizer to exist at ||beta|| = {b:.6g} (omega(z) + "
                          f"||beta||^2/z^2 decreases to its infimum as z -> oo); got omega={omega}")
    return {"s": s, "theta_delta": beta / s, "M": np.eye(P) + (s - 1) * np.outer(unit, unit)}


def _diag_reference(beta):
    """sum_j min over m > 0 of m^2 + beta_j^2/m^2 solved directly: golden section in t = log m (the objective is
    convex in t) on [-(|log|beta_j|| + 2), |log|beta_j|| + 2] at 40 digits; beta_j = 0 contributes inf m^2 = 0"""
    out = []
    with mpmath.workdps(40):
        for b in beta:
            b = mpmath.mpf(float(b))
            if b == 0:
                continue
            w = abs(mpmath.log(abs(b))) + 2
            F = lambda t: mpmath.exp(2 * t) + b**2 * mpmath.exp(-2 * t)  # noqa: E731
            out.append(golden_mp(F, -w, w, 250)[1])
        return float(mpmath.fsum(out))
