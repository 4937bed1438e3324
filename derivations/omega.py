"""omega: effective penalties of adaptive tangent features (seed 003): omega-tilde (12), the joint penalty
(11), Theorem 1 (8)-(9), Propositions 3-4, App. A.1.

omega is a SymPy expression in z, strictly quasi-convex with omega(1) = 0; only z >= 1 matters, where it
must be strictly increasing (validated on a grid and said so in the error).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy as sp

from theorylab import _solvers as solvers
from theorylab.derivation import Derivation, Erratum, Step
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import Z, DomainError, expression, matrix, scalar, vector

SEED = "003_682109963104011b.txt"
GRID = np.unique(np.concatenate([1 + np.logspace(-9, 0, 200), np.logspace(0.31, 6, 400)]))  # z > 1, sorted
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

    def fn(zz):
        # omega is only used on z >= 1; rounding (v/z for z ~ v) must not reach x < 0, where x^(3/2) is NaN
        return fx(np.maximum(np.asarray(zz, dtype=float) - 1.0, 0.0))
    poly = sp.Poly(sp.expand(on), z) if on.is_polynomial(z) else None
    return on, fn, poly


def _omega_param(name: str, doc: str):
    def strategy(dims):
        from hypothesis import strategies as st

        return st.sampled_from(EXAMPLES)

    return expression(name, doc, strategy_fn=strategy)


def _check_omega(*names):
    def check(values):
        for nm in names:
            prepare(values[nm], nm)  # raises DomainError naming the parameter
        return None

    return Constraint(check, f"{', '.join(names)}: omega(1) = 0, strictly increasing on z >= 1")


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
        xi = np.minimum.reduce(bounds)
        idx = np.arange(xi.size)
        for _ in range(200):
            hv = np.polyval(c, xi[idx]) - c[-1] - r[idx]
            dv = np.polyval(d, xi[idx])
            # h' = 0 only at x = 0 when r underflows the bound to 0: x = 0 is then the answer to rounding
            step = np.divide(hv, dv, out=np.zeros_like(hv), where=dv > 0)
            new = np.maximum(xi[idx] - step, 0.0)
            done = np.abs(new - xi[idx]) <= 4e-16 * new
            xi[idx] = new
            idx = idx[~done]
            if idx.size == 0:
                break
        xx[inner] = xi
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
    zz = solvers.newton_bracketed(lambda x: np.polyval(c, x) - 2 * v2, lambda x: np.polyval(d, x), lo, hi, hi)
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
    zmax = solvers.expand_upper(lambda zz: np.asarray(fn(zz), dtype=float) < v2, np.full_like(v, 2.0))
    # a log grid in x = z - 1 from 1e-16 to z_max - 1 (at least 8 points a decade): a slowly growing omega
    # (log(z)^2 at v = 100 has z_max ~ 1e43 and its minimizer at z ~ 50) is resolved as well as one near z = 1
    top = np.log10(np.maximum(zmax - 1, 1e-15))
    t = np.linspace(0, 1, 8 * 80 + 1)
    grid = 1 + 10.0 ** (-16 + (top[..., None] + 16) * t)
    lo, hi = solvers.grid_bracket(grid, _objective(fn, grid, v[..., None]))
    lo, hi = solvers.golden(lambda zz: _objective(fn, zz, v), lo, hi)
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
    z = solvers.newton_polish(lambda zz: np.asarray(d1(np.maximum(zz - 1.0, 0.0)), float) - 2 * v2 / zz**3,
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
        x, val = solvers.golden_mp(F, *solvers.grid_bracket_mp(grid, vals), 220)
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
def oplus(omega1, omega2, v, n: int = 200):
    """(omega1 (+) omega2)(v) = min_{1 <= z <= v} omega1(z) + omega2(v/z) (eq 11), v >= 1, vectorized.

    A log grid in z on [1, v] locates the minimum and golden-section search refines it; the endpoints z = 1
    and z = v are candidates too."""
    _, f1, _ = prepare(omega1, "omega1")
    _, f2, _ = prepare(omega2, "omega2")
    v = np.asarray(v, dtype=float)
    F = lambda zz, vv: np.asarray(f1(zz), float) + np.asarray(f2(vv / zz), float)  # noqa: E731
    # omega_i overflows float64 beyond some z_i (exp(z-1) - z beyond z ~ 711): the objective is finite only on
    # [v/z_2, z_1], so the grid covers that interval; a grid over [1, v] can miss it entirely (v = 4.7e5)
    lo_z = np.clip(v / _finite_limit(f2), 1.0, v)
    hi_z = np.clip(np.minimum(v, _finite_limit(f1)), lo_z, None)
    lv0, lv = np.log(lo_z), np.log(hi_z) - np.log(lo_z)
    t = np.linspace(0, 1, n)
    grid = np.exp(lv0[..., None] + lv[..., None] * t)
    lo, hi = solvers.grid_bracket(grid, F(grid, v[..., None]))
    lo, hi = solvers.golden(lambda x: F(np.exp(x), v), np.log(lo), np.log(hi))
    best = F(np.exp((lo + hi) / 2), v)
    return np.minimum(np.minimum(best, F(lo_z, v)), F(hi_z, v))


@functools.lru_cache(maxsize=256)
def _finite_limit(fn) -> float:
    """The largest z (to 1e-12 relative) where the increasing omega is still finite in float64, or inf (cached per
    omega: `fn` comes from the cached `prepare`)."""
    with np.errstate(all="ignore"):
        if np.isfinite(fn(1e300)):
            return math.inf
        lo, _ = solvers.bisect(lambda t: bool(np.isfinite(fn(math.exp(t)))), 0.0, math.log(1e300))  # in log z
        return math.exp(lo)


def _oplus_reference(omega1, omega2, v):
    """Independent of `oplus`: a 401-point log grid evaluated in mpmath brackets the minimum, which golden-section
    search refines at 40 digits; the endpoints z = 1 and z = v are candidates."""
    f1 = sp.lambdify(Z, prepare(omega1, "omega1")[0], "mpmath")
    f2 = sp.lambdify(Z, prepare(omega2, "omega2")[0], "mpmath")

    def one(vv):
        with mpmath.workdps(40):
            vv = mpmath.mpf(float(vv))
            F = lambda x: f1(x) + f2(vv / x)  # noqa: E731
            grid = [vv ** (mpmath.mpf(k) / 400) for k in range(401)]
            _, best = solvers.golden_mp(F, *solvers.grid_bracket_mp(grid, [F(x) for x in grid]))
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
        return oplus(omega1, omega2, np.maximum(np.asarray(u, float), 1.0), n=64)

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
            out.append(solvers.golden_mp(F, -w, w, 250)[1])
        return float(mpmath.fsum(out))


v_p = scalar("v", "the argument (a singular value / coefficient magnitude); enters as |v|", low=-1e6, high=1e6)
v1_p = scalar("v", "the argument, v >= 1", low=1, high=1e6)
omega_p = _omega_param("omega", "SymPy expression in z: strictly increasing on z >= 1 with omega(1) = 0")
o1_p = _omega_param("omega1", "first-factor penalty (as omega)")
o2_p = _omega_param("omega2", "second-factor penalty (as omega)")

ENTRIES = (
    Entry(id="omega.tilde", title="Scalar effective penalty omega-tilde", source=Source(SEED, "eq (12)"),
          doc=("min over z >= 1 of omega(z) + v^2/z^2: exact through the polynomial stationarity condition when "
               "omega is polynomial on z >= 1 (including |z-1|^p, p integer), else a bounded vectorized search."),
          params=(v_p, omega_p), lhs=r"\tilde\omega(v)", display=r"\min_{z\ge 1}\ \omega(z) + \frac{v^2}{z^2}",
          compute=lambda v, omega: tilde(omega, v)[0], reference=_tilde_reference,
          constraints=(_check_omega("omega"),), examples=({"v": 0.5, "omega": "Abs(z-1)"},
                                                          {"v": 1e3, "omega": "(z-1)**2"}, {"v": 0.0, "omega": "exp(z-1)-z"}),
          rtol=1e-10),
    Entry(id="omega.oplus", title="Joint penalty omega1 (+) omega2", source=Source(SEED, "eq (11)"),
          doc="min over 1 <= z <= v of omega1(z) + omega2(v/z), v >= 1 (Proposition 4: strictly increasing, 0 at 1).",
          params=(v1_p, o1_p, o2_p), lhs=r"(\omega_1\oplus\omega_2)(v)",
          display=r"\min_{1\le z\le v}\ \omega_1(z) + \omega_2(v/z)",
          compute=lambda v, omega1, omega2: oplus(omega1, omega2, v), reference=_oplus_reference,
          constraints=(_check_omega("omega1", "omega2"),)),
    Entry(id="omega.tilde_oplus", title="Effective penalty of the joint penalty", source=Source(SEED, "eqs (12), (15), (28)"),
          doc="min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + v^2/(s1 s2)^2: the per-singular-value problem (15)/(28).",
          params=(v_p, o1_p, o2_p), lhs=r"\widetilde{\omega_1\oplus\omega_2}(v)",
          display=r"\min_{s_1,s_2\ge 1}\ \omega_1(s_1) + \omega_2(s_2) + \frac{v^2}{s_1^2 s_2^2}",
          compute=lambda v, omega1, omega2: tilde_oplus(omega1, omega2, v), reference=_tilde_oplus_reference,
          constraints=(_check_omega("omega1", "omega2"),)),
    Entry(id="omega.spectral_penalty", title="Spectral effective penalty sum_j omega-tilde(sigma_j(B))",
          source=Source(SEED, "eq (12), Theorem 2"), doc="The induced penalty on matrices through the singular values.",
          params=(matrix("B", "P", "Q", "the matrix (a layer's effective coefficients)", low=-1e6, high=1e6), omega_p),
          lhs=r"\widetilde\Omega_\omega(B)", display=r"\sum_j \tilde\omega(\sigma_j(B))",
          compute=lambda B, omega: spectral_penalty(B, omega), reference=_spectral_reference,
          reference_rtol_note="the sum of per-singular-value values, each within 1e-10 of its reference",
          constraints=(_check_omega("omega"),)),
    Entry(id="omega.theorem1", title="Theorem 1: the structureless solution (s, theta - theta0, M)",
          source=Source(SEED, "Theorem 1, eq (8)"),
          doc=("s = argmin_{z >= 1} omega(z) + ||beta||^2/z^2 (smallest element of the argmin), theta_delta = beta/s, "
               "M = I + (s-1) beta beta^T/||beta||^2; beta = 0 gives s = 1, M = I."),
          params=(vector("beta", "P", "the interpolating coefficients beta-hat (eq 5)", low=-1e6, high=1e6), omega_p),
          lhs=r"(s, \hat\theta - \theta_0, \hat M)",
          display=r"\hat M = I_P + (s-1)\frac{\hat\beta\hat\beta^T}{\|\hat\beta\|^2},\ \hat\theta = \theta_0 + s^{-1}\hat\beta",
          compute=lambda beta, omega: theorem1(beta, omega), reference=_theorem1_reference, constraints=(_check_omega("omega"),),
          value_doc='{"s": float, "theta_delta": vector, "M": matrix}'),
    Entry(id="omega.diag_l1", title="Diagonal M with omega(m) = m^2: 2||beta||_1", source=Source(SEED, "App. A.1, eq (22)"),
          doc="min over m_j > 0 of m_j^2 + beta_j^2/m_j^2 = 2|beta_j| at m_j^2 = |beta_j|, summed: 2||beta||_1.",
          params=(vector("beta", "P", "coefficients", low=-1e300, high=1e300),), lhs=r"\widetilde\Omega(\beta)",
          display=r"2\|\beta\|_1", compute=lambda beta: 2 * float(np.sum(np.abs(beta))),
          reference=_diag_reference),
)


# -- derivations ---------------------------------------------------------------------------------------
z = Z
vv = sp.Symbol("v", positive=True)
ss = sp.Symbol("s", positive=True)
bb = sp.Symbol("b", positive=True)  # ||beta||
P3 = 3
b_vec = sp.Matrix(sp.symbols("b_1:4", real=True))
M8 = sp.eye(P3) + (ss - 1) * b_vec * b_vec.T / (b_vec.T * b_vec)[0]
EPS = float(np.finfo(float).eps)
BOUNDED = "(z-1)**2/(1+(z-1)**2)"  # continuous, strictly quasi-convex, omega(1) = 0, but bounded by 1
BETAS = ((0.3,), (1.0, -2.0), (0.5, 0.5, 0.25), (4.0, 0.0, -3.0, 1.0), (1e-3, 2e-3), (40.0, -25.0))
VALUE_RTOL = 1e-12
VALUE_SOURCE = ("float64 value of a sum of nonnegative terms (omega(z) >= 0 on z >= 1, v^2/z^2), each to a few ulp "
                "(omega in x = z - 1 with expm1/log1p), at a float argmin whose error enters quadratically: "
                "1e-12 relative leaves > 1000 ulp")


def _om(text) -> sp.Expr:
    return sp.sympify(text, locals={"z": Z}) if isinstance(text, str) else text


def _get(entry_id: str):
    import theorylab  # imported lazily: the catalogue imports this module

    return theorylab.get(entry_id)


def _dF(omega, v, zz):
    """F'(z) = omega'(z) - 2 v^2/z^3 on z >= 1 (right derivative at 1) and F''(z), at 30 digits."""
    on = prepare(_om(omega))[0]
    d1 = sp.lambdify(Z, sp.diff(on, Z), "mpmath")
    d2 = sp.lambdify(Z, sp.diff(on, Z, 2), "mpmath")
    with mpmath.workdps(30):
        x, v2 = mpmath.mpf(float(zz)), mpmath.mpf(float(v)) ** 2
        second = d2(x) if x > 1 else mpmath.mpf(0)
        return d1(x) - 2 * v2 / x**3, second + 6 * v2 / x**4


def _kkt_residual(omega, v, s):
    """KKT residual of min_{z >= 1} omega(z) + v^2/z^2 at z = s: |F'(s)| for s > 1, max(-F'(1+), 0) at s = 1."""
    g, _ = _dF(omega, v, s)
    return float(abs(g)) if s > 1 else float(max(-g, 0))


def _kkt_bound(omega, v, s):
    """the variation of F' over the 64 ulp around s (within [1, oo)): the KKT residual of any float64 point within
    64 ulp of the true minimizer (Newton on the stationarity condition stops at steps below 4e-16 relative; the search
    route is polished the same way) is at most this"""
    s = float(s)
    d = 64 * EPS * s
    g0, _ = _dF(omega, v, s)
    return float(max(abs(_dF(omega, v, x)[0] - g0) for x in (s + d, max(1.0, s - d)))) + 1e-300


def _t1(omega, beta):
    return _get("omega.theorem1")(beta=np.asarray(beta, float), omega=omega)


def _t1_points():
    return ({"omega": om, "beta": b} for b in BETAS for om in EXAMPLES)


def _t1_objective(omega, beta):
    """Omega_omega(M) + ||theta - theta0||^2 at the entry omega.theorem1's solution (8): sum of omega over the
    eigenvalues of M plus ||theta_delta||^2"""
    out = _t1(omega, beta)
    fn = prepare(_om(omega))[1]
    ev = np.linalg.eigvalsh(out["M"])
    return float(np.sum(fn(ev)) + out["theta_delta"] @ out["theta_delta"])


def _direct_value(omega, beta):
    """omega~(||beta||) by the defining minimization solved directly (mpmath, 40 digits, `_tilde_mp`)"""
    return float(_tilde_mp(_om(omega), float(np.linalg.norm(beta)))[0])


def _t1_kkt(omega, beta):
    """KKT residual of min_{z >= 1} omega(z) + ||beta||^2/z^2 at the entry omega.theorem1's s"""
    return _kkt_residual(omega, np.linalg.norm(beta), _t1(omega, beta)["s"])


def _t1_kkt_bound(omega, beta):
    """the variation of F' over the 64 ulp around the entry's s (the float64 resolution of the argmin)"""
    return _kkt_bound(omega, np.linalg.norm(beta), _t1(omega, beta)["s"])


def _t1_interp(omega, beta):
    """M (theta - theta0)/||beta|| at the entry omega.theorem1's solution"""
    out = _t1(omega, beta)
    return out["M"] @ out["theta_delta"] / np.linalg.norm(beta)


def _t1_beta(omega, beta):
    """beta/||beta||"""
    return np.asarray(beta, float) / np.linalg.norm(beta)


def _existence_gap(b, omega=BOUNDED):
    """min over z >= 1 of z^2 (F(z) - lim_{z->oo} F(z)), F = omega(z) + b^2/z^2 (mpmath, 30 digits: a log grid up to
    z = 1e12, where z^2 (F - lim F) has settled to its limit b^2 - lim z^2 (sup omega - omega), then golden section)
    [a minimizer exists iff this is <= 0]"""
    e = _om(omega)
    L = sp.limit(e, Z, sp.oo)
    G = sp.lambdify(Z, Z**2 * (e - L) + sp.Float(b, 30) ** 2, "mpmath")
    with mpmath.workdps(30):
        grid = [mpmath.mpf(10) ** (mpmath.mpf(k) / 20) for k in range(0, 241)]
        vals = [G(x) for x in grid]
        _, best = solvers.golden_mp(G, *solvers.grid_bracket_mp(grid, vals), 150)
        return float(min(best, min(vals)))


def _s_of(omega, b):
    return _t1(omega, [b])["s"]


def _s_lhs(omega, b1, b2):
    """s(||beta|| = b1) from the entry omega.theorem1"""
    return _s_of(omega, b1)


def _s_rhs(omega, b1, b2):
    """s(||beta|| = b2) from the entry omega.theorem1"""
    return _s_of(omega, b2)


def _s_points():
    return ({"omega": om, "b1": b1, "b2": b2} for om in EXAMPLES
            for b1, b2 in ((0.0, 0.1), (0.1, 0.5), (0.5, 0.8), (1.0, 3.0), (3.0, 30.0)))


def _tilde_e(omega, v):
    return np.asarray(_get("omega.tilde")(v=v, omega=omega), float)


def _concave_mid(omega, u0, u1, u2):
    """omega~(sqrt(u1)) from the entry omega.tilde (u = v^2)"""
    return float(_tilde_e(omega, np.sqrt(u1)))


def _concave_chord(omega, u0, u1, u2):
    """the chord of u -> omega~(sqrt u) between u0 and u2, at u1"""
    w0, w2 = _tilde_e(omega, np.sqrt([u0, u2]))
    return float(w0 + (w2 - w0) * (u1 - u0) / (u2 - u0))


def _concave_points():
    return ({"omega": om, "u0": a, "u1": b, "u2": c} for om in EXAMPLES
            for a, b, c in ((0.0, 0.3, 1.0), (0.0, 1.0, 4.0), (0.5, 2.0, 10.0), (1.0, 5.0, 30.0), (4.0, 40.0, 900.0)))


def _w_at_v1(omega, v1, v2):
    """omega~(v1) from the entry omega.tilde"""
    return float(_tilde_e(omega, v1))


def _w_at_v2(omega, v1, v2):
    """omega~(v2) from the entry omega.tilde"""
    return float(_tilde_e(omega, v2))


def _mono_points():
    return ({"omega": om, "v1": a, "v2": b} for om in EXAMPLES
            for a, b in ((0.0, 0.01), (0.01, 0.3), (0.3, 0.7), (0.7, 2.0), (2.0, 20.0), (20.0, 1e4)))


def _dev(omega, v):
    return abs(float(_tilde_e(omega, v)) / v**2 - 1)


def _dev_small(omega, v):
    """|omega~(v/10)/(v/10)^2 - 1| from the entry omega.tilde"""
    return _dev(omega, v / 10)


def _dev_large(omega, v):
    """|omega~(v)/v^2 - 1| from the entry omega.tilde"""
    return _dev(omega, v)


def _dev_points():
    return ({"omega": om, "v": v} for om in EXAMPLES for v in (1e-1, 1e-2, 1e-3))


O1O2 = tuple((a, b) for a in EXAMPLES[:4] for b in EXAMPLES[:4])
LEMMA5_PAIRS = (("(z-1)**2", "Abs(z-1)"), ("Abs(z-1)**3", "(z-1)**2"), ("exp(z-1)-z", "Abs(z-1)"))


LEMMA5_V = (0.0, 0.5, 2.0, 6.0)


@functools.lru_cache(maxsize=16)
def _tilde_oplus_at(omega1, omega2, vs: tuple) -> dict:
    """The entry omega.tilde_oplus at every v of `vs` in one call (it is vectorized over v, elementwise)."""
    return dict(zip(vs, (float(x) for x in _get("omega.tilde_oplus")(v=np.array(vs), omega1=omega1, omega2=omega2))))


def _lemma5_nested(omega1, omega2, v):
    """min_u (omega1 (+) omega2)(u) + v^2/u^2: the entry omega.tilde_oplus (nested 1-D minimizations)"""
    return _tilde_oplus_at(omega1, omega2, LEMMA5_V if v in LEMMA5_V else (v,))[v]


def _lemma5_joint(omega1, omega2, v):
    """min over s1, s2 >= 1 of omega1(s1) + omega2(s2) + v^2/(s1 s2)^2 (28) solved directly: edges s_i = 1 and the
    interior stationary point by 40-digit Newton in 2-D (`_tilde_oplus_reference`)"""
    return float(_tilde_oplus_reference(_om(omega1), _om(omega2), v))


def _oplus_e(omega1, omega2, v):
    return float(_get("omega.oplus")(v=v, omega1=omega1, omega2=omega2))


def _oplus_v1(omega1, omega2, v1, v2):
    """(omega1 (+) omega2)(v1) from the entry omega.oplus"""
    return _oplus_e(omega1, omega2, v1)


def _oplus_v2(omega1, omega2, v1, v2):
    """(omega1 (+) omega2)(v2) from the entry omega.oplus"""
    return _oplus_e(omega1, omega2, v2)


def _oplus_at_one(omega1, omega2):
    """(omega1 (+) omega2)(1) from the entry omega.oplus"""
    return _oplus_e(omega1, omega2, 1.0)


def _oplus_direct(omega1, omega2, v):
    """min over 1 <= z <= v of omega1(z) + omega2(v/z) (11) solved directly (mpmath grid + golden section, 40 digits)"""
    return float(_oplus_reference(_om(omega1), _om(omega2), v))


def _oplus_value(omega1, omega2, v):
    """(omega1 (+) omega2)(v) from the entry omega.oplus"""
    return _oplus_e(omega1, omega2, v)


def _tilde_value(omega, v):
    """omega~(v) from the entry omega.tilde"""
    return float(_tilde_e(omega, v))


def _tilde_direct(omega, v):
    """min over z >= 1 of omega(z) + v^2/z^2 (12) solved directly (mpmath: 45-decade log grid, golden section, 40
    digits; `_tilde_mp`)"""
    return float(_tilde_mp(_om(omega), v)[0])


def _tilde_kkt(omega, v):
    """KKT residual of (12) at the argmin returned by omega.tilde's solver"""
    return _kkt_residual(omega, v, float(tilde(_om(omega), v)[1]))


def _tilde_kkt_bound(omega, v):
    """the variation of F' over the 64 ulp around the argmin (the float64 resolution of the argmin)"""
    return _kkt_bound(omega, v, float(tilde(_om(omega), v)[1]))


def _tilde_points():
    return ({"omega": om, "v": v} for om in EXAMPLES for v in (0.0, 1e-4, 0.05, 0.5, 0.7071, 1.0, 3.0, 50.0, 1e4))


MATS = (((3.0, 0.0), (0.0, 0.5)), ((1.0, 2.0, 0.0), (-1.0, 0.5, 3.0)), ((1e-3, 2.0), (4.0, -7.0), (0.0, 1.0)))


def _spectral_value(omega, B):
    """sum_j omega~(sigma_j(B)) from the entry omega.spectral_penalty"""
    return float(_get("omega.spectral_penalty")(B=np.array(B, float), omega=omega))


def _spectral_direct(omega, B):
    """singular values in 40-digit arithmetic (mpmath.svd_r), each omega~ by the defining minimization (`_tilde_mp`)"""
    with mpmath.workdps(40):
        sv = mpmath.svd_r(mpmath.matrix([list(r) for r in B]), compute_uv=False)
        return float(mpmath.fsum(_tilde_mp(_om(omega), float(x))[0] for x in sv))


def _diag_value(beta):
    """Omega~(beta) from the entry omega.diag_l1"""
    return float(_get("omega.diag_l1")(beta=np.array(beta, float)))


def _diag_direct(beta):
    """sum_j min over m > 0 of m^2 + beta_j^2/m^2 solved directly (golden section in log m at 40 digits)"""
    return _diag_reference(beta)


zeta = sp.Symbol("zeta", positive=True)  # the minimizer z* for omega = (z-1)^2, which parametrizes v
V_OF = zeta**2 * sp.sqrt(1 - 1 / zeta)  # stationarity 2 (z - 1) z^3 = 2 v^2 solved for v
W_OF = (zeta - 1) * (2 * zeta - 1)
F_SQ = (zeta - 1) ** 2 + vv**2 / zeta**2


def _quad_entry(zeta):
    """omega~(v(zeta)) from the entry omega.tilde, omega = (z-1)^2, v = zeta^2 sqrt(1 - 1/zeta)"""
    v = float(V_OF.subs(globals()["zeta"], sp.Float(zeta, 30)))
    return float(_tilde_e("(z-1)**2", v))


DERIVATIONS = (
    Derivation("omega.theorem1", "Theorem 1: the structureless solution (8) and the adapted kernel (9)", SEED,
               "Theorem 1, eqs (8)-(9), A.3.1", ("omega.theorem1", "omega.tilde"), (
        Step("(8) interpolates: M (theta - theta0) = beta with theta - theta0 = beta/s", M8 * b_vec / ss, b_vec, cites=('(8)', 'Theorem 1')),
        Step("(8): M has the eigenvalue s along beta and 1 on its complement", M8 * b_vec, ss * b_vec, cites=('(8)',)),
        Step("(9): M^2 = I + (s^2 - 1) beta beta^T/||beta||^2", M8 * M8,
             sp.eye(P3) + (ss**2 - 1) * b_vec * b_vec.T / (b_vec.T * b_vec)[0], cites=('(9)', '(32)')),
        Step("(8) attains omega~(||beta||): Omega_omega(M) + ||theta - theta0||^2 at the entry's solution equals the "
             "minimum of (12) solved directly", _t1_objective, _direct_value, search=_t1_points,
             rtol=VALUE_RTOL, tol_source=VALUE_SOURCE + "; eigvalsh of M adds ~||M|| eps to each eigenvalue", cites=('(8)', 'Theorem 1', '(5)')),
        Step("(8): s satisfies the KKT condition of min_{z >= 1} omega(z) + ||beta||^2/z^2 (residual at the entry's s "
             "within the float64 resolution of the argmin)", _t1_kkt, _t1_kkt_bound, relation="<=", search=_t1_points, cites=('(8)', 'Theorem 1')),
        Step("(8) at the entry's output: M (theta - theta0) = beta", _t1_interp, _t1_beta, search=_t1_points,
             tol=1e-14, tol_source="float64 product M theta: P <= 4 terms each within eps s ||theta|| = eps ||beta||", cites=('(8)',)),
        Step("'there is a solution to eq. 4' for every strictly quasi-convex omega with omega(1) = 0: "
             "min_{z>=1} z^2 (F(z) - lim F) <= 0", _existence_gap, sp.Integer(0), relation="<=",
             search=lambda: ({"b": b} for b in (0.5, 1.0, 2.0)),
             why="F = omega(z) + ||beta||^2/z^2 tends to sup omega; a minimizer exists iff some z has F(z) <= lim F",
             erratum=Erratum(
                 "003-thm1-existence", SEED, "Theorem 1", "there is a solution to eq. 4 with Omega = Omega_omega",
                 "needs omega(z) -> oo: for omega = (z-1)^2/(1+(z-1)^2) and ||beta|| = 2, z^2 (F(z) - 1) = 4 - z^2/(1 + "
                 "(z-1)^2) >= 2 > 0, so the infimum 1 is approached as z -> oo but not attained (omega.tilde returns "
                 "the infimum; omega.theorem1 rejects such inputs).", "", at={"b": 2.0}), cites=('Theorem 1',)),
        Step("'s takes its minimum value at ||beta|| = 0 and is increasing otherwise': s(b1) < s(b2) for b1 < b2",
             _s_lhs, _s_rhs, relation="<", search=_s_points, erratum=Erratum(
                 "003-thm1-s", SEED, "text after Theorem 1",
                 "s takes minimum value at ||beta||_2 = 0 and is increasing otherwise",
                 "s is non-decreasing; for omega non-differentiable at 1 it stays 1 on a neighbourhood of 0 (|z - 1|: "
                 "for ||beta|| <= 1/sqrt(2)), so there the kernel does not align at all.", "",
                 at={"omega": "Abs(z-1)", "b1": 0.25, "b2": 0.5})),
        Step("corrected: s is non-decreasing in ||beta|| (entry omega.theorem1)", _s_lhs, _s_rhs, relation="<=",
             search=_s_points),
    )),
    Derivation("omega.propositions", "Propositions 3 and 4, App. A.1, and the large-v behaviour", SEED,
               "Props. 3-4, eqs (11)-(12), (22)-(26)", ("omega.tilde", "omega.oplus", "omega.tilde_oplus",
                                                        "omega.spectral_penalty", "omega.diag_l1"), (
        Step("Prop. 3: u = v^2 -> omega~ is a minimum of functions affine in u (hence concave, non-decreasing)",
             sp.Derivative(sp.Symbol("w") + sp.Symbol("u") / z**2, (sp.Symbol("u"), 2)), 0, cites=('Proposition 3',)),
        Step("Prop. 3: u -> omega~(sqrt u) is concave: the value at u1 lies on or above the chord (entry omega.tilde)",
             _concave_mid, _concave_chord, relation=">=", search=_concave_points, rtol=VALUE_RTOL,
             tol_source=VALUE_SOURCE, cites=('Proposition 3',)),
        Step("Prop. 3: omega~ is increasing in v (entry omega.tilde, unbounded omegas)", _w_at_v1, _w_at_v2,
             relation="<", search=_mono_points, cites=('Proposition 3',)),
        Step("Prop. 3: omega~(v) = v^2 + o(v^2): |omega~(v)/v^2 - 1| shrinks as v decreases tenfold (entry omega.tilde)",
             _dev_small, _dev_large, relation="<=", search=_dev_points, tol=4e-12,
             tol_source="each omega~ value within 1e-12 relative (" + VALUE_SOURCE[:60] + "...): each ratio within 2e-12", cites=('Proposition 3',)),
        Step("(24): the envelope d omega~/dv = dF/dv at the minimizer = 2v/z^2",
             sp.Derivative(sp.Function("omega")(z) + vv**2 / z**2, vv), 2 * vv / z**2, cites=('(24)',)),
        Step("(26): p(p-1)|z-1|^(p-2) z' = 4v gives v z' = C v^(2/(p-1))",
             vv * vv ** (1 - 2 * (sp.Symbol("p", positive=True) - 2) / (sp.Symbol("p", positive=True) - 1)),
             vv ** (2 / (sp.Symbol("p", positive=True) - 1)), domain={sp.Symbol("p", positive=True): (1.5, 5.0)}, cites=('(26)',)),
        Step("omega.tilde's value equals the minimum of (12) solved directly", _tilde_value, _tilde_direct,
             search=_tilde_points, rtol=VALUE_RTOL, tol_source=VALUE_SOURCE, cites=('(12)',)),
        Step("omega.tilde's argmin satisfies the KKT condition of (12) (residual within the float64 resolution of the "
             "argmin)", _tilde_kkt, _tilde_kkt_bound, relation="<=", search=_tilde_points, cites=('(12)',)),
        Step("Lemma 5, (28)-(31): the per-singular-value problem (28) solved in 2-D equals omega~ of omega1 (+) omega2 "
             "(entry omega.tilde_oplus)", _lemma5_nested, _lemma5_joint, rtol=VALUE_RTOL, tol_source=VALUE_SOURCE,
             search=lambda: ({"omega1": a, "omega2": b, "v": v} for a, b in LEMMA5_PAIRS for v in LEMMA5_V), cites=('(15)', '(28)', 'Lemma 5')),
        Step("(11): omega.oplus's value equals min_{1<=z<=v} omega1(z) + omega2(v/z) solved directly", _oplus_value,
             _oplus_direct, rtol=VALUE_RTOL, tol_source=VALUE_SOURCE,
             search=lambda: ({"omega1": a, "omega2": b, "v": v} for a, b in O1O2 for v in (1.0, 1.5, 4.0, 30.0)), cites=('(11)',)),
        Step("Prop. 4: omega1 (+) omega2 is strictly increasing on [1, oo) (entry omega.oplus)", _oplus_v1, _oplus_v2,
             relation="<", search=lambda: ({"omega1": a, "omega2": b, "v1": x, "v2": y} for a, b in O1O2
                                           for x, y in ((1.0, 1.01), (1.01, 1.5), (1.5, 4.0), (4.0, 20.0))), cites=('Proposition 4',)),
        Step("Prop. 4: (omega1 (+) omega2)(1) = 0 (entry omega.oplus)", _oplus_at_one, sp.Integer(0),
             search=lambda: ({"omega1": a, "omega2": b} for a, b in O1O2), cites=('Proposition 4',)),
        Step("Theorem 2 / (12): omega.spectral_penalty equals sum_j omega~(sigma_j(B)) with both solved directly",
             _spectral_value, _spectral_direct, rtol=VALUE_RTOL,
             tol_source=VALUE_SOURCE + "; float64 SVD: each sigma_j within ~eps ||B||_2 (Weyl), omega~ Lipschitz 2 sigma",
             search=lambda: ({"omega": om, "B": B} for B in MATS for om in EXAMPLES), cites=('(12)', 'Theorem 2')),
        Step("A.1, (22): min_m m^2 + beta^2/m^2 = 2|beta| at m^2 = |beta|", sp.Subs(ss**2 + bb**2 / ss**2, ss, sp.sqrt(bb)),
             2 * bb, cites=('(22)',)),
        Step("A.1, (22): omega.diag_l1 equals sum_j min_m m^2 + beta_j^2/m^2 solved directly", _diag_value, _diag_direct,
             rtol=VALUE_RTOL, tol_source="float64 sum of P <= 4 absolute values: P ulp",
             search=lambda: ({"beta": b} for b in ((1.0, -2.0, 0.5), (3e-5, 7.0), (0.0, 1.0), (1e10, -1e-10))), cites=('(22)',)),
        Step("omega = (z-1)^2: z = zeta is stationary for v = zeta^2 sqrt(1 - 1/zeta) (2 (z - 1) z^3 = 2 v^2)",
             sp.Subs(sp.Derivative(F_SQ, zeta), vv, V_OF), 0),
        Step("omega = (z-1)^2: at the minimizer zeta, omega~(v) = (zeta - 1)(2 zeta - 1)", sp.Subs(F_SQ, vv, V_OF), W_OF),
        Step("omega = (z-1)^2: the entry omega.tilde along the curve v = zeta^2 sqrt(1 - 1/zeta)", _quad_entry, W_OF,
             rtol=VALUE_RTOL, tol_source=VALUE_SOURCE,
             search=lambda: ({"zeta": x} for x in (1.0, 1.001, 1.5, 2.0, 10.0, 1e3, 1e5))),
        Step("text after Prop. 3: 'when omega(v) = (v-1)^2, omega~(v) behaves like |v| for large v': "
             "omega~(v)/|v| -> 2", sp.Limit(W_OF / V_OF, zeta, sp.oo), 2,
             why="linear growth (nuclear-norm-like for large singular values), slope 2"),
        Step("omega = (z-1)^2: the next term, (omega~(v) - 2v)/sqrt(v) -> -2", sp.Limit((W_OF - 2 * V_OF) / sp.sqrt(V_OF),
                                                                                      zeta, sp.oo), -2),
        Step("omega = (z-1)^2: omega~(v) - 2v + 2 sqrt(v) -> 3/4", sp.Limit(W_OF - 2 * V_OF + 2 * sp.sqrt(V_OF), zeta,
                                                                          sp.oo), sp.Rational(3, 4)),
    )),
)

# the errata of the seed's text and proofs (eq (7), Props. 3-4, Lemma 5, Theorems 1-2), beside their corrections
from .omega_proofs import DERIVATIONS as PROOF_DERIVATIONS  # noqa: E402

DERIVATIONS = DERIVATIONS + PROOF_DERIVATIONS
