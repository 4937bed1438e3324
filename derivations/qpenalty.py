"""qpenalty: the Q-penalty of pretrained+finetuned diagonal linear networks (seed 000, App. A).

Entries q, norm, finetune, implicit_bias and the derivation of eqs (8)-(23) as the seed writes them.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from theorylab.authoring import bisect
from theorylab.authoring import AS_PRINTED, Amendment, Derivation, Erratum, Step
from theorylab.authoring import Constraint, Entry, Source
from theorylab.authoring import DomainError, scalar, matrix, vector
from theorylab.authoring import interpolating_minimum

SEED = "000_a994d0e1146a9c4a.txt"
z = sp.Symbol("z", real=True)

# -- the closed form, eq (23), as the seed writes it, and a float64-stable equal form -----------------
Q_SEED = 2 - sp.sqrt(4 + z**2) + z * sp.asinh(z / 2)


def unit_penalty_stable(beta: sp.Expr, k: sp.Expr) -> sp.Expr:
    """k q(2 beta/k) in a float64-stable form: 2 beta (asinh(u) - tanh(asinh(u)/2)), u = beta/k.

    From 2 - sqrt(4 + z^2) = -4 sinh(a/2)^2 = -z tanh(a/2) with a = asinh(z/2): no cancellation of O(1)
    terms at small z (the textbook form loses all digits below z ~ 1e-4), no overflow of z^2 beyond
    1e154, and no subnormal intermediate when the value itself is a normal float (k q(2 beta/k) ~ beta^2/k
    is formed as beta * (beta/k), never as k * tiny).
    """
    a = sp.asinh(beta / k)
    return 2 * beta * (a - sp.tanh(a / 2))


Q_STABLE = unit_penalty_stable(z / 2, sp.Integer(1))


def _z_strategy(dims):
    """Signed log-uniform magnitudes from 1e-150 (q ~ z^2/4 stays a normal float) to 1e300, and 0."""
    from hypothesis import strategies as st

    mag = st.floats(-150, 300).map(lambda e: 10.0**e)
    return st.one_of(st.just(0.0), st.tuples(st.sampled_from((-1.0, 1.0)), mag).map(lambda t: t[0] * t[1]),
                     st.floats(-10, 10, allow_subnormal=False))


def _int_asinh(x):
    """int_0^x asinh(t) dt for x >= 0 (mpmath tanh-sinh quadrature at the working precision).

    x <= 1: x^2 int_0^1 asinh(x s)/x ds (scaled, so the quadrature's absolute error test is relative);
    x > 1: int_0^1 asinh + x int_0^{log x} asinh(x e^-w) e^-w dw (t = x e^-w), on pieces [0, 1, 3, 7, ...]
    where the integrand is smooth, so 1e300 costs about ten pieces.
    """
    import mpmath as mp

    x = mp.mpf(x)
    if x == 0:
        return mp.mpf(0)
    if x <= 1:
        return x * x * mp.quad(lambda s: mp.asinh(x * s) / x, [0, 1])
    L = mp.log(x)
    pts = [mp.mpf(0)]
    while pts[-1] < L:
        pts.append(min(2 * pts[-1] + 1, L))
    return mp.quad(mp.asinh, [0, 1]) + x * mp.quad(lambda w: mp.asinh(x * mp.exp(-w)) * mp.exp(-w), pts)


def _q_integral(z):
    """q(z) = int_0^|z| asinh(t/2) dt = 2 int_0^{|z|/2} asinh(u) du, by quadrature (mpmath, 30 digits; an mpf)."""
    import mpmath as mp

    with mp.workdps(30):
        return +(2 * _int_asinh(abs(mp.mpf(float(z))) / 2))


def _q_reference(z):
    """q(z) = int_0^|z| asinh(t/2) dt = 2 int_0^{|z|/2} asinh(u) du, by quadrature (mpmath, 30 digits).

    The defining property of q in App. A: q(0) = 0 and q'(z) = asinh(z/2), the inverse of the sinh link of
    (21) (stationarity of (22) must reproduce beta(t) = k sinh(.)); q is even. Independent of (23).
    """
    if np.ndim(z):
        return np.array([_q_reference(v) for v in np.ravel(z)]).reshape(np.shape(z))
    return float(_q_integral(z))


def _unit_integral(beta, kk):
    """sum_d int_0^{|beta_d|} 2 asinh(s/k_d) ds = sum_d 2 k_d int_0^{|beta_d|/k_d} asinh(u) du (quadrature; an mpf).

    (22)'s summand is the potential whose derivative is 2 asinh(beta/k) (App. A: stationarity reproduces
    (21)) and which vanishes at beta = 0; k_d is formed exactly in mpmath from the float inputs.
    """
    import mpmath as mp

    with mp.workdps(30):
        total = mp.mpf(0)
        for bd, kd in zip(np.ravel(beta), kk):
            total += 2 * kd * _int_asinh(abs(mp.mpf(float(bd))) / kd)
        return total


def _norm_integral(beta, w1, w2):
    """||beta||_Q by quadrature of its derivative 2 asinh(beta_d/k_d), k_d = w1_d^2 + w2_d^2 (an mpf)"""
    import mpmath as mp

    with mp.workdps(30):
        kk = [mp.mpf(float(a)) ** 2 + mp.mpf(float(c)) ** 2 for a, c in zip(np.ravel(w1), np.ravel(w2))]
        return _unit_integral(beta, kk)


def _finetune_integral(beta, beta_aux, gamma):
    """||beta||_Q with k_d = |beta_aux_d| + gamma^2, by quadrature of 2 asinh(beta_d/k_d) (an mpf)"""
    import mpmath as mp

    with mp.workdps(30):
        g2 = mp.mpf(float(np.ravel(gamma)[0])) ** 2
        kk = [abs(mp.mpf(float(a))) + g2 for a in np.ravel(beta_aux)]
        return _unit_integral(beta, kk)


def _norm_reference(beta, w1, w2):
    """||beta||_Q = sum_d int_0^|beta_d| 2 asinh(s/k_d) ds, k_d = w1_d^2 + w2_d^2, by quadrature (mpmath, 30
    digits): (22)'s summand is the potential whose derivative is the inverse 2 asinh(beta/k) of the link (21)."""
    return float(_norm_integral(beta, w1, w2))


def _finetune_reference(beta, beta_aux, gamma):
    """||beta||_Q with k_d = |beta_aux_d| + gamma^2, by quadrature of 2 asinh(beta_d/k_d) (mpmath, 30 digits)."""
    return float(_finetune_integral(beta, beta_aux, gamma))


def q_of(arg: sp.Expr, form: sp.Expr = Q_SEED) -> sp.Expr:
    return form.subs(z, arg)


beta_p = vector("beta", "D", "the network's linear predictor beta (one entry per input dimension)", tex="beta_d")
w1_p = vector("w1", "D", "first-layer weights at initialization, (w_0)^(1)_d", tex="w_{1d}")
w2_p = vector("w2", "D", "second-layer weights at initialization, (w_0)^(2)_d", tex="w_{2d}")
b, w1, w2 = beta_p.symbol, w1_p.symbol, w2_p.symbol
k = w1**2 + w2**2


RATIO_MAX = 1e300  # |beta_d| / k_d beyond this overflows asinh's argument in float64


def _ratio_ok(beta, kk, names: str):
    """The kernel's float64 range: k_d > 0 a normal float64 and |beta_d| / k_d <= 1e300."""
    if np.any(kk <= 0):
        d = int(np.argmin(kk))
        return (f"{names} must give k_d > 0 for every d (the penalty is undefined for a unit initialized at "
                f"zero); got k_{d} = {kk[d]:g}")
    tiny = np.finfo(float).tiny
    if np.any(kk < tiny):
        d = int(np.argmin(kk))
        return (f"{names} must give k_d >= {tiny:.4g} for every d (a normal float64: a subnormal k_d carries fewer "
                f"than 53 bits, so the penalty cannot be computed to 1e-10); got k_{d} = {kk[d]:g}")
    with np.errstate(over="ignore", divide="ignore"):
        ratio = np.abs(beta) / kk
    if np.any(ratio > RATIO_MAX):
        d = int(np.argmax(ratio))
        return (f"beta and {names} must satisfy |beta_d| / k_d <= 1e300 (the float64 range of the kernel); "
                f"got |beta_{d}| / k_{d} = {ratio[d]:g}")
    return None


def _k_positive(values):
    kk = np.asarray(values["w1"]) ** 2 + np.asarray(values["w2"]) ** 2
    return _ratio_ok(np.asarray(values.get("beta", 0.0)), kk, "w1 and w2 (k_d = w1_d^2 + w2_d^2)")


q = Entry(
    id="qpenalty.q",
    title="The Q-penalty's scalar function q",
    source=Source(SEED, "eq (23)"),
    doc=("q(z) = 2 - sqrt(4 + z^2) + z asinh(z/2): even, convex, q(z) ~ z^2/4 near 0 (l2-like) and "
         "~ |z| log|z| for large |z| (l1-like). Kernels use the equal form z (asinh(z/2) - tanh(asinh(z/2)/2)), "
         "accurate to a few ulps from z = 1e-150 to |z| = 1e305 (q overflows float64 near 2.5e305)."),
    params=(scalar("z", "argument; |z| <= 1e305 keeps q(z) < 1e308 representable", low=-1e305, high=1e305,
                   strategy_fn=_z_strategy),),
    lhs="q(z)",
    formula=Q_SEED,
    stable_form=Q_STABLE,
    reference=_q_reference,
    examples=({"z": 1e-8}, {"z": 1e-3}, {"z": 1e3}, {"z": 1e8}, {"z": 1e150}, {"z": -1e-8}, {"z": 0.0}),
)

NORM_FORMULA = k * q_of(2 * b / k)
norm = Entry(
    id="qpenalty.norm",
    title="Q-norm of the PT+FT diagonal linear network",
    source=Source(SEED, "eq (22)"),
    doc=("||beta||_Q = sum_d k_d q(2 beta_d / k_d) with k_d = w1_d^2 + w2_d^2: the penalty that gradient "
         "flow from the initialization (w1, w2) minimizes among interpolating solutions."),
    params=(beta_p, w1_p, w2_p),
    lhs=r"\|\beta\|_Q",
    display=r"\sum_{d=1}^{D} k_d\, q\!\left(\frac{2\beta_d}{k_d}\right)",
    formula=NORM_FORMULA,
    stable_form=unit_penalty_stable(b, k),
    reference=_norm_reference,
    reduce="sum",
    constraints=(Constraint(_k_positive, "k_d = w1_d^2 + w2_d^2 >= 2.2e-308 (normal) and |beta_d|/k_d <= 1e300 for every d"),),
    conditions=(r"k_d = w_{1d}^2 + w_{2d}^2 > 0",),
    dims={"D": (1, 5)},
)

beta_aux_p = vector("beta_aux", "D", "the pretrained (auxiliary-task) predictor", tex="beta_d^aux")
gamma_p = scalar("gamma", "readout initialization (any real with |gamma| <= 1e154, so that k_d = |beta_aux_d| + "
                 "gamma^2 is a finite float64; enters as gamma^2)", low=-1e154, high=1e154, tex="gamma")
baux, gamma = beta_aux_p.symbol, gamma_p.symbol
k_ft = sp.Abs(baux) + gamma**2


def _k_ft_positive(values):
    kk = np.abs(np.asarray(values["beta_aux"])) + np.asarray(values["gamma"]) ** 2
    return _ratio_ok(np.asarray(values["beta"]), kk, "beta_aux and gamma (k_d = |beta_aux_d| + gamma^2)")


finetune = Entry(
    id="qpenalty.finetune",
    title="Q-norm after pretraining: first layer sqrt|beta_aux|, readout gamma",
    source=Source(SEED, "text after eq (23)"),
    doc=("||beta||_Q with (w0)^(1)_d = sqrt(|beta_aux_d|) and (w0)^(2)_d = gamma, so k_d = |beta_aux_d| + gamma^2. "
         "gamma is a scalar broadcast over d."),
    params=(beta_p, beta_aux_p, gamma_p),
    lhs=r"\|\beta\|_{Q}",
    display=r"\sum_{d=1}^{D} k_d\, q\!\left(\frac{2\beta_d}{k_d}\right)",
    formula=NORM_FORMULA.subs({w1: sp.sqrt(sp.Abs(baux)), w2: gamma}),
    stable_form=unit_penalty_stable(b, k_ft),
    reference=_finetune_reference,
    reduce="sum",
    constraints=(Constraint(_k_ft_positive, "k_d = |beta_aux_d| + gamma^2 > 0 and |beta_d|/k_d <= 1e300"),),
    conditions=(r"k_d = |\beta^{aux}_d| + \gamma^2 > 0",),
    dims={"D": (1, 5)},
    # gamma at the bound (gamma^2 = 1e308): an unbounded gamma returned 0.0 here once gamma^2 overflowed
    examples=({"beta": [-0.0, -1e299, -2.00001, 1.0233], "beta_aux": [-2.5e-28, 1.5, 199324.3, -1.68e63],
               "gamma": 1e154},),
)


# -- implicit bias: the minimizer of ||beta||_Q subject to X beta = y ---------------------------------
def solve_implicit_bias(X, y, kk, *, xp=np, tol_digits: int = 15):
    """argmin_beta sum_d k_d q(2 beta_d/k_d) s.t. X beta = y, by Newton's method on the dual.

    Stationarity gives 2 asinh(beta/k) = X^T lam, i.e. beta = k sinh(X^T lam / 2) (the gradient-flow
    form (21)); lam maximizes the concave dual, i.e. minimizes phi(lam) = sum_d 2 k_d cosh((X^T lam)_d/2)
    - lam^T y, whose gradient X beta(lam) - y vanishes at feasibility. Newton with backtracking
    converges globally (phi is convex) and quadratically near the solution.
    """
    n = X.shape[0]
    lam = np.zeros(n)
    eps = np.finfo(float).eps
    # max-norms: np.linalg.norm squares its argument and underflows to 0 for |y| ~ 1e-200
    def size(v):
        return float(np.max(np.abs(v))) if np.size(v) else 0.0

    xnorm, ynorm = float(np.max(np.sum(np.abs(X), axis=1))), size(y)

    def state(l):
        c = X.T @ l / 2
        with np.errstate(over="ignore", invalid="ignore"):  # a trial step may overflow: rejected below
            beta = kk * np.sinh(c)
            value = float(np.sum(2 * kk * np.cosh(c)) - l @ y)
            return c, beta, value, X @ beta - y

    c, beta, value, grad = state(lam)
    for _ in range(500):
        # converged when X beta - y is at the rounding level of computing X beta
        if size(grad) <= 8 * eps * (xnorm * size(beta) + ynorm):
            break
        hess = (X * (kk * np.cosh(c) / 2)) @ X.T
        step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        # a trust region in c = X^T lam / 2: at a small initialization (k ~ 1e-14) the first Newton step moves c by
        # ~1/k, every backtracked trial overflowed or stalled, and the loop returned beta = 0 (infeasible); capping
        # the change of c at 4 per iteration lets c reach its O(log 1/k) size in a few dozen steps
        dc = float(np.max(np.abs(X.T @ step))) / 2
        if dc > 4.0:
            step = step * (4.0 / dc)
        slope, gnorm = float(grad @ step), size(grad)
        t = 1.0
        while t > 1e-12:
            c1, beta1, value1, grad1 = state(lam + t * step)
            # Armijo on phi; near the solution phi's change drops below its rounding, and then a
            # decrease of ||grad phi|| (Newton's quadratic convergence) decides instead
            if np.isfinite(value1) and (value1 <= value + 1e-4 * t * slope
                                        or size(grad1) <= (1 - 1e-4 * t) * gnorm):
                break
            t /= 2
        else:
            break  # no step improves either measure: beta is as accurate as float64 allows
        lam = lam + t * step
        c, beta, value, grad = c1, beta1, value1, grad1
    # primal refinement: where the dual Newton stalls above the criterion (its float64 gradient is noisy at the
    # last digits: beta_1 = 1 - 38 ulps at X = [[2, .5, 0..], [0, 0, 1, 0..], [1.5, 0..]]), correct beta by the
    # weighted least-squares step W X^T mu, W = k cosh(c), on the exactly summed residual: it moves
    # 2 asinh(beta/k) by 2 X^T mu, inside the row space, so stationarity is kept to first order
    for _ in range(3):
        r = np.array([math.fsum(list(X[i] * beta) + [-y[i]]) for i in range(n)])
        if size(r) <= 8 * eps * (xnorm * size(beta) + ynorm):
            break
        W = kk * np.cosh(c)
        mu = np.linalg.lstsq((X * W) @ X.T, -r, rcond=None)[0]
        trial = beta + W * (X.T @ mu)
        r1 = np.array([math.fsum(list(X[i] * trial) + [-y[i]]) for i in range(n)])
        if not (np.all(np.isfinite(trial)) and size(r1) < size(r)):
            break
        beta = trial
    return beta


def _rescaled(X, y):
    """X and y divided by the power of 2 nearest max|X|: the same constraint set X beta = y (an exact rescaling of
    both sides, unless y/s leaves the normal range, in which case they are returned as they are), with X X^T
    representable (X ~ 1e180 overflowed it; X ~ 1e-300 underflowed it to a singular matrix)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    big = float(np.max(np.abs(X))) if X.size else 0.0
    if big > 0.0 and math.isfinite(big):
        s = 2.0 ** round(math.log2(big))
        ys = y / s
        if np.all(np.isfinite(ys)) and np.all((ys == 0) | (np.abs(ys) >= np.finfo(float).tiny)):
            return X / s, ys
    return X, y


def _implicit_bias(X, y, w1, w2):
    """The dual Newton solver on the rescaled problem (same minimizer)."""
    kk = w1**2 + w2**2
    return solve_implicit_bias(*_rescaled(X, y), kk)


def _y_reachable(values):
    X, y = np.asarray(values["X"]), np.asarray(values["y"])
    if X.shape[0] != y.shape[0]:
        return f"y must have length n = {X.shape[0]} (the rows of X); got y of length {y.shape[0]}"
    with np.errstate(over="ignore"):
        kk = np.asarray(values["w1"], dtype=float) ** 2 + np.asarray(values["w2"], dtype=float) ** 2
    if not np.all(np.isfinite(kk)):
        d = int(np.argmax(~np.isfinite(kk)))
        return (f"w1 and w2 must give a finite k_d = w1_d^2 + w2_d^2 (|w1_d|, |w2_d| below about 1.3e154: the dual "
                f"solver works with k_d in float64); got k_{d} = inf")
    X, y = _rescaled(X, y)  # the same consistency question, asked where the SVD cannot overflow
    sol = np.linalg.lstsq(X, y, rcond=None)[0]
    if np.linalg.norm(X @ sol - y) > 1e-9 * max(1.0, np.linalg.norm(y)):
        return "y must lie in the column space of X (X beta = y has no solution); got an inconsistent X, y"
    return _k_positive(values)


def _implicit_bias_reference(X, y, w1, w2):
    """The defining problem min ||beta||_Q s.t. X beta = y solved in the primal, at 50 digits (mpmath).

    A different algorithm from the float64 solver (which is Newton on the dual): beta = beta0 + N v over
    the feasible set (beta0 the minimum-norm solution, N an orthonormal null-space basis, both from an
    mpmath SVD of X), and Newton's method on v with the gradient N^T 2 asinh(beta/k) and the Hessian
    N^T diag(2/sqrt(k^2 + beta^2)) N of (22); the step length is found by bisection on the directional
    derivative (the objective is convex, so its derivative along the step is increasing), so no closed
    form of q is used.
    """
    import mpmath as mp

    with mp.workdps(50):
        X = np.atleast_2d(np.asarray(X, dtype=float))
        n, D = X.shape
        Xm = mp.matrix(X.tolist())
        ym = [mp.mpf(float(v)) for v in np.ravel(y)]
        kk = [mp.mpf(float(a)) ** 2 + mp.mpf(float(c)) ** 2 for a, c in zip(np.ravel(w1), np.ravel(w2))]
        U, S, V = mp.svd_r(Xm, full_matrices=True)  # X = U diag(S) V, rows of V the right singular vectors
        svals = [S[i] for i in range(min(n, D))]
        rank = sum(1 for sv in svals if sv > mp.mpf(10) ** -40 * max(svals))
        uty = [sum(U[i, j] * ym[i] for i in range(n)) / svals[j] for j in range(rank)]
        beta0 = [sum(V[j, d] * uty[j] for j in range(rank)) for d in range(D)]
        null = [[V[j, d] for d in range(D)] for j in range(rank, D)]  # orthonormal rows spanning ker X
        m = len(null)

        def at(v):
            return [beta0[d] + sum(null[j][d] * v[j] for j in range(m)) for d in range(D)]

        def grad(beta):  # N^T grad Q, grad Q = 2 asinh(beta/k)
            g = [2 * mp.asinh(beta[d] / kk[d]) for d in range(D)]
            return [sum(null[j][d] * g[d] for d in range(D)) for j in range(m)]

        v = [mp.mpf(0)] * m
        for _ in range(200):
            if m == 0:
                break
            beta = at(v)
            g = grad(beta)
            # relative to the gradient's own size (an absolute floor stopped at the start for |y| ~ 1e-282)
            scale = max(abs(2 * mp.asinh(beta[d] / kk[d])) for d in range(D))
            if scale == 0 or max(abs(x) for x in g) <= mp.mpf(10) ** -45 * scale:
                break
            h = [2 / mp.sqrt(kk[d] ** 2 + beta[d] ** 2) for d in range(D)]
            H = mp.matrix(m, m)
            for i in range(m):
                for j in range(m):
                    H[i, j] = sum(null[i][d] * null[j][d] * h[d] for d in range(D))
            step = mp.lu_solve(H, mp.matrix([-x for x in g]))
            step = [step[j] for j in range(m)]

            def slope(t):
                gt = grad(at([v[j] + t * step[j] for j in range(m)]))
                return sum(a * b for a, b in zip(gt, step))

            t = mp.mpf(1)
            if slope(t) > 0:  # the minimum along the step lies before t = 1: bisect the derivative's root
                lo, hi = bisect(lambda t: not slope(t) > 0, mp.mpf(0), mp.mpf(1), 200, mp.mpf(10) ** -48)
                t = (lo + hi) / 2
            v = [v[j] + t * step[j] for j in range(m)]
        return np.array([float(b) for b in at(v)])


def _ib_strategy():
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    @st.composite
    def draw(d):
        n = d(st.integers(1, 3))
        D = d(st.integers(n, 5))
        el = st.floats(-3, 3, allow_nan=False, allow_subnormal=False)
        X = d(hnp.arrays(np.float64, (n, D), elements=el))
        w = st.floats(0.05, 3, allow_subnormal=False)
        w1 = d(hnp.arrays(np.float64, (D,), elements=w))
        w2 = d(hnp.arrays(np.float64, (D,), elements=st.floats(-3, 3, allow_subnormal=False)))
        beta0 = d(hnp.arrays(np.float64, (D,), elements=el))
        return {"X": X, "y": X @ beta0, "w1": w1, "w2": w2}

    # well-conditioned rows keep the float64 solution within cond * eps of the exact one
    return draw().filter(lambda v: np.linalg.cond(v["X"] @ v["X"].T) < 1e4)


implicit_bias = Entry(
    id="qpenalty.implicit_bias",
    title="Implicit bias of PT+FT diagonal networks: the interpolant of minimum Q-norm",
    source=Source(SEED, "App. A conclusion, eqs (21)-(22)"),
    doc=("beta* = argmin ||beta||_Q subject to X beta = y, the limit of gradient flow from (w1, w2) when it "
         "interpolates. Solved by Newton's method on the dual (beta = k sinh(X^T lam / 2), eq 21); the KKT "
         "condition grad ||beta||_Q = 2 asinh(beta/k) in the row space of X is checked as evidence."),
    params=(matrix("X", "n", "D", "inputs, one row per sample"), vector("y", "n", "targets"), w1_p, w2_p),
    lhs=r"\beta^*",
    display=r"\operatorname*{arg\,min}_{X\beta = y} \sum_{d=1}^{D} k_d\, q\!\left(\tfrac{2\beta_d}{k_d}\right)",
    compute=_implicit_bias,
    reference=_implicit_bias_reference,
    constraints=(Constraint(_y_reachable, "y in the column space of X; 0 < w1_d^2 + w2_d^2 < inf"),),
    value_doc="a vector of length D",
    strategy_fn=_ib_strategy,
    rtol=1e-9,
    error_scale="largest",
    reference_rtol_note="1e-9 relative to the largest |beta_d| (each component held to 1e-9 ||beta||_inf): the "
                        "solution's conditioning is cond(X X^T) <= 1e4 in the strategy, so float64 gives about "
                        "1e4 * 1e-16 ||beta|| = 1e-12 ||beta|| in every component; a component that is exactly 0 "
                        "comes back as ~1e-17 (X = [[0, 1], [1, 1]], y = [1, 1]: 9.6e-18), which no per-element "
                        "relative bound can hold",
    # X near the ends of float64 (the accuracy map's scaling region): X X^T overflowed (a LinAlgError) or
    # underflowed (a 100% error) before X and y were rescaled by a power of 2
    examples=({"X": [[6.47e179, -2.6e-113], [2.40e179, 1e180]], "y": [-0.3085, -7.948], "w1": [1.4416, 2.0673],
               "w2": [0.5, -2.7846]},
              {"X": [[6.4738305934544285e-301, -0.0], [2.4027410306164783e-301, 1e-300]], "y": [-0.3085, -7.948],
               "w1": [1.4416, 2.0673], "w2": [0.5, -2.7846]}),
)

# -- the derivation of seed 000, eqs (8)-(23) -------------------------------------------------------
t, tau = sp.symbols("t tau", real=True)
x11, x12, x21, x22, y1, y2 = sp.symbols("x_11 x_12 x_21 x_22 y_1 y_2", real=True)
Xs = sp.Matrix([[x11, x12], [x21, x22]])
Xt = Xs.row_join(-Xs)  # X~ = [X, -X]
ys = sp.Matrix([y1, y2])
W1 = sp.Matrix(sp.symbols("a_1:5", real=True))  # w^(1) = (w_+^(1), w_-^(1))
W2 = sp.Matrix(sp.symbols("c_1:5", real=True))
beta_c = sp.Matrix(sp.symbols("beta_1 beta_2", real=True))  # beta(w) of (6), D = 2
beta_7 = sp.Matrix([W2[0] * W1[0] - W2[2] * W1[2], W2[1] * W1[1] - W2[3] * W1[3]])  # (7), d = 1, 2
residual = Xt * W1.multiply_elementwise(W2) - ys  # r = X~(w1 o w2) - y (the usual convention)
loss = (residual.T * residual)[0]
grad_w1 = sp.Matrix([sp.diff(loss, v) for v in W1])
grad_w2 = sp.Matrix([sp.diff(loss, v) for v in W2])

E_GRAD = Erratum(
    key="000-A-eq8-9", source=SEED, where="eq (8) (the same slip is repeated in (9): 000-A-eq9)",
    says="w'(1)(t) = grad_{w(1)} L = -2 X~^T r(t) o w(2)(t)",
    truth="gradient flow is w' = -grad L; with the residual r = X~(w(1) o w(2)) - y, grad L = +2 X~^T r o w(2), so "
    "w'(1) = -grad L = -2 X~^T r o w(2). The right-hand side is the correct flow; the middle term's sign is not.",
    severity="typo",
    note="A sign slip: the text never defines r, and with either sign convention for r one link of the printed chain "
    "w' = grad L = ... = -2 X~^T r o w(2) is off by a sign; (10)-(21) use the right-hand side, the descent flow "
    "w' = -grad L, so the intended statement is unambiguous and nothing downstream uses the misprint.")

E_GRAD9 = Erratum(
    key="000-A-eq9", source=SEED, where="eq (9)",
    says="w'(2)(t) = grad_{w(2)} L = -2 X~^T r(t) o w(1)(t)",
    truth="as in (8): grad_{w(2)} L = +2 X~^T r o w(1) with r = X~(w(1) o w(2)) - y, so w'(2) = -grad L = "
    "-2 X~^T r o w(1); the middle term's sign is wrong, the right-hand side is the correct flow.",
    severity="typo", root="000-A-eq8-9",
    note="The same slip as (8) (000-A-eq8-9) carried into the second layer's equation: one root; no downstream effect.")

A_GRAD8 = Amendment(
    key="000-A-eq8-flow", kind="typo fixed", severity="typo", root="000-A-eq8-9",
    what="(8)'s middle link w'(1) = grad L read as the gradient flow w'(1) = -grad L (r = X~(w1 o w2) - y)",
    why="the printed chain has a sign slip (000-A-eq8-9); its right-hand side, which (10)-(21) use, is the descent "
        "flow, and this is what the step checks")
A_GRAD9 = Amendment(
    key="000-A-eq9-flow", kind="typo fixed", severity="typo", root="000-A-eq9",
    what="(9)'s middle link w'(2) = grad L read as the gradient flow w'(2) = -grad L (r = X~(w1 o w2) - y)",
    why="the same sign slip as (8) (000-A-eq9); the right-hand side, used by (10)-(21), is the descent flow")

g = sp.Matrix(sp.symbols("g_1:5", real=True))  # g = X~^T r at time t
s_of = lambda a, c: (a + c) / 2  # noqa: E731
d_of = lambda a, c: (a - c) / 2  # noqa: E731
g_c, s_c, d_c = sp.symbols("g s d", real=True)  # one coordinate of g, s, d (the instance of (10)-(11) the print's map names)
G = sp.Function("G")  # G(t) = (X~^T r(t)) for one coordinate
s0, d0 = sp.symbols("s_0 d_0", real=True)
S = s0 * sp.exp(-2 * sp.Integral(G(tau), (tau, 0, t)))
Dd = d0 * sp.exp(2 * sp.Integral(G(tau), (tau, 0, t)))
sp_, dp_, sm_, dm_ = sp.symbols("s_+ d_+ s_- d_-", real=True)
A = sp.Symbol("a", real=True)  # a = 4 X^T int_0^t r, one coordinate

# with w+(0) = w-(0): X~^T r = (X^T r, -X^T r), so s+ = s0 e^{-a/2}, s- = s0 e^{a/2}, d+ = d0 e^{a/2}, d- = d0 e^{-a/2}
beta_17 = (sp_**2 - sm_**2) - (dp_**2 - dm_**2)


def _grouped(a, b, c, e):
    """(a - b) - (c - e), unevaluated: the grouping the paper writes, compared after SymPy flattens it."""
    return sp.Add(sp.Add(a, -b, evaluate=False), sp.Mul(-1, sp.Add(c, -e, evaluate=False), evaluate=False),
                  evaluate=False)
beta_17_sub = beta_17.subs({sp_: s0 * sp.exp(-A / 2), sm_: s0 * sp.exp(A / 2),
                            dp_: d0 * sp.exp(A / 2), dm_: d0 * sp.exp(-A / 2)})
beta_18_seed = 2 * s0**2 * (sp.exp(-A) - sp.exp(A)) - 2 * d0**2 * (sp.exp(A) - sp.exp(-A))
beta_20 = 2 * (s0**2 + d0**2) * sp.sinh(-A)
u1, u2 = sp.symbols("w_0^(1) w_0^(2)", real=True)
E_FACTOR = Erratum(
    key="000-A-eq18-19", source=SEED, where="eqs (18)-(19)",
    says="beta(t) = 2 s0^2 o (exp(-4X^T int r) - exp(4X^T int r)) - 2 d0^2 o (exp(4X^T int r) - exp(-4X^T int r))",
    truth="beta(t) = s0^2 o (exp(-a) - exp(a)) - d0^2 o (exp(a) - exp(-a)) with a = 4 X^T int_0^t r: the factor 2 "
    "is spurious. (18)-(19) as written equal 4(s0^2 + d0^2) sinh(-a), twice (20); (20) itself is right.",
    severity="typo",
    note="A slip in an intermediate display: the next line (20) has the right coefficient 2(s0^2 + d0^2), as (13)-(17) "
    "give it, and nothing downstream uses (18)-(19); the closed form (21)-(23) is unaffected.")

kpos, bb = sp.Symbol("beta", positive=True), sp.Symbol("beta", real=True)
kk_ = sp.Symbol("k", positive=True)
qpen = kk_ * q_of(2 * bb / kk_)


# -- the solver's output against its defining problem (KKT conditions, value vs a direct minimization) --------
EPS = float(np.finfo(float).eps)


def _ib_points():
    """Instances (X, y, w1, w2) for the solver steps: simplest first, then random ones (seeded) at several
    initialization scales (small scales put the sinh link deep in its l1-like range), X X^T well conditioned."""
    yield {"X": np.array([[1.0, 1.0]]), "y": np.array([1.0]), "w1": np.array([1.0, 1.0]), "w2": np.array([0.0, 0.0])}
    yield {"X": np.array([[1.0, 2.0, -1.0]]), "y": np.array([2.0]), "w1": np.array([1.0, 0.5, 2.0]),
           "w2": np.array([0.0, 1.0, -1.0])}
    rng = np.random.default_rng(20240)
    for n, D, scale in ((2, 4, 1.0), (2, 5, 0.1), (3, 5, 2.0), (3, 6, 0.03), (1, 4, 0.5), (4, 7, 1.0), (3, 6, 1e-8)):
        while True:
            X = rng.normal(size=(n, D))
            if np.linalg.cond(X @ X.T) < 1e3:
                break
        yield {"X": X, "y": X @ rng.normal(size=D), "w1": scale * rng.uniform(0.5, 1.5, D),
               "w2": scale * rng.uniform(-1.0, 1.0, D)}


def _mp_residual(X, beta, y):
    """X beta - y evaluated exactly on the float inputs (mpmath, 50 digits)."""
    import mpmath as mp

    with mp.workdps(50):
        return [sum(mp.mpf(float(X[i, d])) * mp.mpf(float(beta[d])) for d in range(X.shape[1])) - mp.mpf(float(y[i]))
                for i in range(X.shape[0])]


def _feasibility_residual(X, y, w1, w2):
    """max_i |(X beta* - y)_i| at the solver's output, in exact arithmetic"""
    beta = implicit_bias(X=X, y=y, w1=w1, w2=w2)
    return max(abs(r) for r in _mp_residual(np.asarray(X), beta, np.asarray(y)))


def _feasibility_bound(X, y, w1, w2):
    """(9 + D) eps (max_i sum_d |X_id| max|beta*| + max|y|): the solver's stopping rule plus rounding of X beta"""
    beta = implicit_bias(X=X, y=y, w1=w1, w2=w2)
    # the solver stops when fl(X beta - y) <= 8 eps (||X||_inf ||beta||_inf + ||y||_inf); forming X beta - y in
    # float64 errs by at most gamma_{D+1} (|X||beta| + |y|) <= (D + 1) eps/2 (...) (Higham, Thm 3.5)
    scale = float(np.max(np.sum(np.abs(X), axis=1))) * float(np.max(np.abs(beta))) + float(np.max(np.abs(y)))
    return (9 + X.shape[1]) * EPS * scale


def _kkt(X, y, w1, w2):
    """grad ||beta||_Q = 2 asinh(beta/k) at the output, its least-squares multiplier lam and its residual off
    the row space of X, all at 50 digits on the float output."""
    import mpmath as mp

    beta = implicit_bias(X=X, y=y, w1=w1, w2=w2)
    with mp.workdps(50):
        Xm = mp.matrix(np.asarray(X).tolist())
        kk = [mp.mpf(float(a)) ** 2 + mp.mpf(float(c)) ** 2 for a, c in zip(w1, w2)]
        g = mp.matrix([2 * mp.asinh(mp.mpf(float(b)) / kd) for b, kd in zip(beta, kk)])
        lam = mp.lu_solve(Xm * Xm.T, Xm * g)  # X X^T lam = X g: the multiplier of the projection onto row(X)
        res = g - Xm.T * lam
        return g, lam, res, Xm


def _stationarity_residual(X, y, w1, w2):
    """||(I - P_row(X)) 2 asinh(beta*/k)||_2: the KKT condition grad ||beta||_Q in row(X), at the output"""
    import mpmath as mp

    _, _, res, _ = _kkt(X, y, w1, w2)
    with mp.workdps(50):
        return mp.sqrt(sum(r ** 2 for r in res))


def _stationarity_bound(X, y, w1, w2):
    """1.1 ||b||_2, b_d = 10.2 u + n u sum_i |X_id lam_i| + 2 u |c_d| (rounding of beta = k sinh(X^T lam/2))"""
    import mpmath as mp

    # the solver returns beta_d = fl(k_d fl(sinh(c_d))), c = fl(X^T lam)/2, so 2 asinh(beta_d/k_d) differs
    # from (X^T lam)_d by the rounding of c (n u sum_i |X_id lam_i| + 2 u |c_d|) plus 2 x 5.1 u from k_d
    # (2 u), sinh (2 u), the product (u), each entering asinh(sinh(c)(1 + delta)) with a factor <= 1; the
    # projection off row(X) does not increase a vector's norm. u = eps/2; 1.1 covers gamma_n vs n u and lam
    # (least-squares) vs the solver's own multiplier.
    g, lam, _, Xm = _kkt(X, y, w1, w2)
    u = mp.mpf(EPS) / 2
    n, D = Xm.rows, Xm.cols
    with mp.workdps(50):
        b = [mp.mpf("10.2") * u + n * u * sum(abs(Xm[i, d] * lam[i]) for i in range(n)) + u * abs(g[d])
             for d in range(D)]
        return mp.mpf("1.1") * mp.sqrt(sum(v ** 2 for v in b))


def _to_feasible(X, beta, y):
    """The exact (50-digit) step from beta to the affine set X b = y: -X^T (X X^T)^-1 (X beta - y)."""
    import mpmath as mp

    with mp.workdps(50):
        Xm = mp.matrix(np.asarray(X).tolist())
        return -(Xm.T * mp.lu_solve(Xm * Xm.T, mp.matrix(_mp_residual(X, beta, y))))


def _first_order_shift(X, y, w1, w2, beta):
    """|grad Q(beta) . delta| with delta the step onto X b = y: how much (22) at beta can sit below the
    minimum over the interpolants because beta interpolates only to rounding."""
    import mpmath as mp

    delta = _to_feasible(X, beta, y)
    with mp.workdps(50):
        kk = [mp.mpf(float(a)) ** 2 + mp.mpf(float(c)) ** 2 for a, c in zip(w1, w2)]
        return float(abs(sum(2 * mp.asinh(mp.mpf(float(b)) / kd) * delta[d]
                             for d, (b, kd) in enumerate(zip(beta, kk)))))


def _direct_minimum(X, y, w1, w2):
    """||beta_d||_Q + margin: (22) at a direct minimizer (SLSQP, projected onto X b = y) plus both points'
    first-order shift from rounding-level infeasibility and 2 (4 + D) eps of float64 evaluation"""
    import mpmath as mp

    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    kk = np.asarray(w1) ** 2 + np.asarray(w2) ** 2
    # SLSQP from the least-squares start (the shared direct minimum); its float64 projection is not used: the
    # point is moved onto X b = y at 50 digits instead
    x, _ = interpolating_minimum(lambda v: norm(beta=v, w1=w1, w2=w2), lambda v: 2 * np.arcsinh(v / kk), X, y,
                                 ftol=1e-16, maxiter=2000)
    corr = _to_feasible(X, x, y)
    with mp.workdps(50):
        direct = np.array([float(mp.mpf(float(x[d])) + corr[d]) for d in range(X.shape[1])])
    value = norm(beta=direct, w1=w1, w2=w2)
    beta = implicit_bias(X=X, y=y, w1=w1, w2=w2)
    # each term k q(2 beta/k) of the stable form to <= 4 ulps, a sum of D positive terms (D ulps), at both points
    evaluation = 2 * (4 + X.shape[1]) * EPS * max(value, norm(beta=beta, w1=w1, w2=w2))
    return value + evaluation + _first_order_shift(X, y, w1, w2, beta) + _first_order_shift(X, y, w1, w2, direct)


def _solver_value(X, y, w1, w2):
    """||beta*||_Q at the solver's output (22)"""
    return norm(beta=implicit_bias(X=X, y=y, w1=w1, w2=w2), w1=w1, w2=w2)


def _formula_value(entry: Entry, **values) -> float:
    """The entry's closed form as the seed writes it (entry.formula, read at check time), at 60 digits,
    summed over d for the vector entries."""
    import mpmath as mp

    expr = entry.formula
    vec = [p for p in entry.params if p.kind == "vector"]
    D = len(np.ravel(values[vec[0].name])) if vec else 1
    total = sp.Integer(0)
    for d in range(D):
        sub = {}
        for p in entry.params:
            v = np.ravel(values[p.name])[d] if p.kind == "vector" else np.ravel(values[p.name])[0]
            sub[p.symbol] = sp.Float(float(v), 60)
        total += sp.N(expr.subs(sub), 60)
    with mp.workdps(60):
        return mp.mpf(str(sp.N(total, 60)))


def _z_points():
    """z on both sides of the l2/l1 crossover, where (23) loses few digits at 60-digit evaluation."""
    for v in (1.0, 2.0, 0.5, -1.0, 1e-6, 1e-3, 0.1, 3.0, 10.0, 1e3, 1e6, -7.5):
        yield {"z": v}


def _qnorm_points():
    rng = np.random.default_rng(2203)
    yield {"beta": np.array([1.0]), "w1": np.array([1.0]), "w2": np.array([0.0])}
    for D, scale in ((2, 1.0), (3, 0.1), (4, 3.0), (5, 0.01)):
        yield {"beta": rng.normal(size=D), "w1": scale * rng.uniform(0.5, 1.5, D), "w2": scale * rng.normal(size=D)}


def _finetune_points():
    rng = np.random.default_rng(2204)
    yield {"beta": np.array([1.0]), "beta_aux": np.array([1.0]), "gamma": 0.0}
    for D, gam in ((2, 1.0), (3, 0.1), (4, 2.0), (5, 0.0)):
        yield {"beta": rng.normal(size=D), "beta_aux": rng.normal(size=D) + 0.1, "gamma": gam}


# the kernels' float64 accuracy as q's doc states it (a few ulps per term); a sum of D <= 5 positive terms adds
# D ulps (each term k q(2 beta/k) >= 0)
KERNEL_RTOL = 16 * EPS
KERNEL_SOURCE = ("the float64 kernel's rounding: the stable form to <= 4 ulps per term (q's stated accuracy), plus "
                 "D <= 5 ulps for the sum of nonnegative terms and 4 ulps forming k and 2 beta/k")
QUAD = "; the quadrature at 30 digits"

VALUE_STEPS = (
    Step("(23) as written (the entry's formula) = int_0^|z| asinh(t/2) dt, the potential of the link (21)",
         lhs=lambda z: _formula_value(q, z=z), rhs=_q_integral, search=_z_points, rtol=1e-25,
         tol_source="both sides at >= 30 significant digits: (23) at 60 digits (cancellation below z ~ 1e-6 costs "
                    "<= 24 of them), the tanh-sinh quadrature at 30", cites=('(23)',), fidelity=AS_PRINTED,
         why="(23) as printed (the entry's formula, unchanged) against its defining property q(0) = 0, q' = asinh(z/2)"),
    Step("q (the kernel) = int_0^|z| asinh(t/2) dt", lhs=lambda z: q(z=z), rhs=_q_reference, search=_z_points,
         rtol=KERNEL_RTOL, tol_source=KERNEL_SOURCE + QUAD, why="theorylab's kernel (the stable form), not the print"),
    Step("(22) as written (the entry's formula) = sum_d int_0^|beta_d| 2 asinh(s/k_d) ds",
         lhs=lambda beta, w1, w2: _formula_value(norm, beta=beta, w1=w1, w2=w2), rhs=_norm_integral,
         search=_qnorm_points, rtol=1e-25, tol_source="both sides at >= 30 significant digits", cites=('(22)',),
         fidelity=AS_PRINTED, why="(22) as printed (the entry's formula, unchanged), k_d = w1_d^2 + w2_d^2; the paper "
                                  "writes ||beta_d||_Q for the penalty of the whole vector beta (d is the summation index)"),
    Step("||beta||_Q (the kernel) = sum_d int_0^|beta_d| 2 asinh(s/k_d) ds",
         lhs=lambda beta, w1, w2: norm(beta=beta, w1=w1, w2=w2), rhs=_norm_reference, search=_qnorm_points,
         rtol=KERNEL_RTOL, tol_source=KERNEL_SOURCE + QUAD, why="theorylab's kernel (the stable form), not the print"),
    Step("finetune as written: (22) with k_d = |beta_aux_d| + gamma^2 = sum_d int 2 asinh(s/k_d) ds",
         lhs=lambda beta, beta_aux, gamma: _formula_value(finetune, beta=beta, beta_aux=beta_aux, gamma=gamma),
         rhs=_finetune_integral, search=_finetune_points, rtol=1e-25, tol_source="both sides at >= 30 significant digits",
         cites=('(22)',), fidelity=AS_PRINTED,
         why="(22) as printed with the text after (23): (w0)^(1)_d = sqrt(|beta_aux_d|), (w0)^(2)_d = gamma"),
    Step("finetune (the kernel) = sum_d int_0^|beta_d| 2 asinh(s/k_d) ds, k_d = |beta_aux_d| + gamma^2",
         lhs=lambda beta, beta_aux, gamma: finetune(beta=beta, beta_aux=beta_aux, gamma=gamma), rhs=_finetune_reference,
         search=_finetune_points, rtol=KERNEL_RTOL, tol_source=KERNEL_SOURCE + QUAD,
         why="theorylab's kernel (the stable form), not the print"),
)


SOLVER_STEPS = (
    Step("the output interpolates: X beta* = y (to the rounding of the solver's stopping rule)",
         lhs=_feasibility_residual, rhs=_feasibility_bound, relation="<=", search=_ib_points,
         why="exact residual at the float output vs the a-priori rounding bound of the dual Newton solver (theorylab's solver, not the print)"),
    Step("KKT: grad ||beta*||_Q = 2 asinh(beta*/k) lies in the row space of X (to rounding)",
         lhs=_stationarity_residual, rhs=_stationarity_bound, relation="<=", search=_ib_points,
         why="(21)-(22): stationarity of the Lagrangian; the residual off row(X) at 50 digits vs the rounding "
             "bound of forming beta = k sinh(X^T lam / 2) in float64", premises=("(22): d/dbeta [k q(2 beta/k)] = 2 asinh(beta/k)",)),
    Step("the output is the minimum: ||beta*||_Q <= ||beta_direct||_Q (SLSQP on (22), projected onto X beta = y)",
         lhs=_solver_value, rhs=_direct_minimum, relation="<=", search=_ib_points,
         why="the definition of beta* as the argmin of (22) over the interpolants, against a generic minimizer (theorylab's solver, not the print)"),
)

DERIVATIONS = (
    Derivation(
        key="qpenalty.gradient_flow", title="Gradient flow of the +/- diagonal network and its closed form beta(t)",
        source=SEED, where="App. A, eqs (8)-(21)", entries=("qpenalty.norm", "qpenalty.implicit_bias"),
        steps=(
            Step("(6)-(7): the network X~ (w(1) o w(2)) of (8) is X beta(w), beta_d = w+(2) w+(1) - w-(2) w-(1)",
                 lhs=Xt * W1.multiply_elementwise(W2), rhs=Xs * beta_7, why="n = D = 2 (the identity is linear in X and "
                 "coordinatewise in d, so the instance is the general case); w = (w+_1, w+_2, w-_1, w-_2)",
                 cites=("(6)", "(7)"), fidelity=AS_PRINTED),
            Step("(6), the first sample's output: (X~ (w(1) o w(2)))_1 = beta(w) . x with x = (x_11, x_12), beta by (7)",
                 lhs=(Xt * W1.multiply_elementwise(W2))[0],
                 rhs=sp.Subs(beta_c[0] * x11 + beta_c[1] * x12, tuple(beta_c), tuple(beta_7)),
                 why="the first entry of the step above (n = D = 2): the sample x is the first row of X, "
                     "beta(w) = (beta_1, beta_2) (notation_000)", cites=("(6)",), fidelity=AS_PRINTED),
            Step("(7), coordinate d = 1: beta_1 is the coefficient of x_11 in the first output, w+(2) w+(1) - w-(2) w-(1)",
                 lhs=sp.Derivative((Xt * W1.multiply_elementwise(W2))[0], x11), rhs=W2[0] * W1[0] - W2[2] * W1[2],
                 why="(6) makes beta_d the coefficient of x_d; w(1) = (w+_1, w+_2, w-_1, w-_2) = (a_1, ..., a_4), w(2) = "
                     "(c_1, ..., c_4), so w+_1 = a_1, w-_1 = a_3 (notation_000)", cites=("(7)",), fidelity=AS_PRINTED),
            Step("(8) as written: grad_{w(1)} L = -2 X~^T r o w(2)", lhs=grad_w1, rhs=-2 * (Xt.T * residual).multiply_elementwise(W2),
                 why="L = ||X~(w1 o w2) - y||^2, r = X~(w1 o w2) - y, n = D = 2", erratum=E_GRAD, cites=("(8)",)),
            Step("(9) as written: grad_{w(2)} L = -2 X~^T r o w(1)", lhs=grad_w2,
                 rhs=-2 * (Xt.T * residual).multiply_elementwise(W1), why="the same sign slip as (8)", erratum=E_GRAD9,
                 cites=("(9)",)),
            Step("(8) corrected: w'(1) = -grad L = -2 X~^T r o w(2)", lhs=-grad_w1, rhs=-2 * (Xt.T * residual).multiply_elementwise(W2),
                 why="n = D = 2; the chain rule is the same entrywise for any n, D", cites=("(8)",),
                 fidelity=A_GRAD8),
            Step("(9) corrected: w'(2) = -grad L = -2 X~^T r o w(1)", lhs=-grad_w2, rhs=-2 * (Xt.T * residual).multiply_elementwise(W1),
                 why="n = D = 2", cites=("(9)",), fidelity=A_GRAD9),
            Step("(8) as written, first coordinate: dL/da_1 = -2 (X~^T r)_1 c_1", lhs=sp.Derivative(loss, W1[0]),
                 rhs=-2 * (Xt.T * residual)[0] * W2[0], why="the first entry of '(8) as written' (n = D = 2; notation_000 "
                 "names this instance)", erratum=E_GRAD, cites=("(8)",)),
            Step("(8) corrected, first coordinate: w'(1)_1 = -dL/da_1 = -2 (X~^T r)_1 c_1", lhs=-sp.Derivative(loss, W1[0]),
                 rhs=-2 * (Xt.T * residual)[0] * W2[0], why="the first entry of '(8) corrected'", cites=("(8)",),
                 fidelity=A_GRAD8),
            Step("(9) as written, first coordinate: dL/dc_1 = -2 (X~^T r)_1 a_1", lhs=sp.Derivative(loss, W2[0]),
                 rhs=-2 * (Xt.T * residual)[0] * W1[0], why="the first entry of '(9) as written'", erratum=E_GRAD9,
                 cites=("(9)",)),
            Step("(9) corrected, first coordinate: w'(2)_1 = -dL/dc_1 = -2 (X~^T r)_1 a_1", lhs=-sp.Derivative(loss, W2[0]),
                 rhs=-2 * (Xt.T * residual)[0] * W1[0], why="the first entry of '(9) corrected'", cites=("(9)",),
                 fidelity=A_GRAD9),
            Step("(10): s' = -2 X~^T r o s", lhs=s_of(-2 * g.multiply_elementwise(W2), -2 * g.multiply_elementwise(W1)),
                 rhs=-2 * g.multiply_elementwise(s_of(W1, W2)), why="s = (w1 + w2)/2, g = X~^T r (any vector: the identity is "
                 "coordinatewise); w' the right-hand sides of (8)-(9) as printed", cites=("(10)",), fidelity=AS_PRINTED),
            Step("(11): d' = 2 X~^T r o d", lhs=d_of(-2 * g.multiply_elementwise(W2), -2 * g.multiply_elementwise(W1)),
                 rhs=2 * g.multiply_elementwise(d_of(W1, W2)), why="d = (w1 - w2)/2", cites=("(11)",), fidelity=AS_PRINTED),
            Step("(10), one coordinate: s' = (w1' + w2')/2 = -2 (X~^T r) s", lhs=s_of(-2 * g_c * (s_c - d_c), -2 * g_c * (s_c + d_c)),
                 rhs=-2 * g_c * s_c, why="the coordinatewise instance of the step above (the print's o is the entrywise "
                 "product): g = (X~^T r(t))_i, w' the right-hand sides of (8)-(9) as printed, w(1) = s + d, w(2) = s - d "
                 "(the substitution of (15))", cites=("(10)",), fidelity=AS_PRINTED,
                 binds={r"\dot{\vec{s}}(t)": "lhs"}),
            Step("(11), one coordinate: d' = (w1' - w2')/2 = 2 (X~^T r) d", lhs=d_of(-2 * g_c * (s_c - d_c), -2 * g_c * (s_c + d_c)),
                 rhs=2 * g_c * d_c, why="as for (10), one coordinate", cites=("(11)",), fidelity=AS_PRINTED,
                 binds={r"\dot{\vec{d}}(t)": "lhs"}),
            Step("(13): s(t) = s(0) exp(-2 X~^T int r) solves (10)", lhs=sp.Derivative(S, t), rhs=-2 * G(t) * S,
                 why="one coordinate: G(t) = (X~^T r(t))_i, any integrable function", cites=("(13)",), fidelity=AS_PRINTED),
            Step("(13): initial value s(0) = s_0", lhs=sp.Subs(S, t, 0), rhs=s0, cites=("(13)",), fidelity=AS_PRINTED),
            Step("(14): d(t) = d(0) exp(2 X~^T int r) solves (11)", lhs=sp.Derivative(Dd, t), rhs=2 * G(t) * Dd,
                 why="one coordinate, as for (13)", cites=("(14)",), fidelity=AS_PRINTED),
            Step("(14): initial value d(0) = d_0", lhs=sp.Subs(Dd, t, 0), rhs=d0, cites=("(14)",), fidelity=AS_PRINTED),
            Step("w(1) w(2) = s^2 - d^2 per branch (the identity behind (16))", lhs=(sp_ + dp_) * (sp_ - dp_),
                 rhs=sp_**2 - dp_**2, why="w1 = s + d, w2 = s - d"),
            Step("(15) -> (16): w+(1) w+(2) - w-(1) w-(2) with w = s + d, w(2) = s - d per branch",
                 lhs=(sp_ + dp_) * (sp_ - dp_) - (sm_ + dm_) * (sm_ - dm_), rhs=_grouped(sp_**2, dp_**2, sm_**2, dm_**2),
                 why="w(1) = s + d, w(2) = s - d invert the definitions of s and d; one coordinate",
                 cites=("(15)", "(16)"), fidelity=AS_PRINTED),
            Step("(17): regrouping (16)", lhs=_grouped(sp_**2, dp_**2, sm_**2, dm_**2), rhs=_grouped(sp_**2, sm_**2, dp_**2, dm_**2),
                 cites=("(17)",), fidelity=AS_PRINTED),
            Step("(18)-(19) as written, from (17) with w+(0) = w-(0)", lhs=beta_17_sub, rhs=beta_18_seed,
                 why="s+ = s0 e^{-a/2}, s- = s0 e^{a/2}, d+ = d0 e^{a/2}, d- = d0 e^{-a/2}, a = 4 X^T int r",
                 erratum=E_FACTOR, cites=("(18)", "(19)")),
            Step("(20) from (17) directly: beta = 2(s0^2 + d0^2) sinh(-a)", lhs=beta_17_sub, rhs=beta_20,
                 why="(20) as printed, beta(t) = 2(s0^2 + d0^2) sinh(-4 X^T int r), a = 4 X^T int_0^t r; checked against "
                 "beta of (17) under (13)-(14) and w+(0) = w-(0), not against (18)-(19) (000-A-eq18-19)",
                 cites=("(20)",), fidelity=AS_PRINTED, binds={r"\vec{\beta}_{\vec{w}}(t)": "lhs"}),
            Step("(21): beta = ((w0^(1))^2 + (w0^(2))^2) sinh(-a), from (17) with s0, d0 in terms of w0",
                 lhs=beta_17_sub.subs({s0: s_of(u1, u2), d0: d_of(u1, u2)}), rhs=(u1**2 + u2**2) * sp.sinh(-A),
                 why="(21) as printed with s0 = (w0^(1) + w0^(2))/2, d0 = (w0^(1) - w0^(2))/2, a = 4 X^T int_0^t r",
                 cites=("(21)",), fidelity=AS_PRINTED),
            Step("(20) -> (21): 2(s0^2 + d0^2) sinh(-a) = ((w0^(1))^2 + (w0^(2))^2) sinh(-a), s0 and d0 in terms of w0",
                 lhs=sp.Subs(beta_20, (s0, d0), (s_of(u1, u2), d_of(u1, u2))), rhs=(u1**2 + u2**2) * sp.sinh(-A),
                 why="(21)'s own link as printed (it continues (20)): the coefficient 2(s0^2 + d0^2) of (20) with the "
                     "definitions before (18), s0 = (w0^(1) + w0^(2))/2, d0 = (w0^(1) - w0^(2))/2, is (w0^(1))^2 + "
                     "(w0^(2))^2; one coordinate, a = 4 X^T int_0^t r",
                 cites=("(21)",), fidelity=AS_PRINTED),
            Step("(18) as written for d0 = 0 (w0^(1) = w0^(2)): beta = 2 s0^2 (exp(-a) - exp(a)), from (17)",
                 lhs=beta_17_sub.subs(d0, 0), rhs=2 * s0**2 * (sp.exp(-A) - sp.exp(A)),
                 why="the instance d0 = 0 of (18)-(19) as printed: (19)'s term -2 d0^2 (exp(a) - exp(-a)) vanishes, so "
                     "the relation is (18)'s line alone; checked against beta of (17) under (13)-(14) and w+(0) = w-(0) "
                     "(s+ = s0 e^{-a/2}, s- = s0 e^{a/2}), one coordinate, a = 4 X^T int_0^t r: the factor 2 of "
                     "000-A-eq18-19",
                 erratum=E_FACTOR, cites=("(18)",)),
        )),
    Derivation(
        key="qpenalty.penalty", title="The Q-penalty (22)-(23): stationarity matches beta(t), convexity, regimes",
        source=SEED, where="App. A, eqs (22)-(23)", entries=("qpenalty.q", "qpenalty.norm", "qpenalty.finetune", "qpenalty.implicit_bias"),
        steps=(
            Step("stable form equals (23)", lhs=Q_STABLE, rhs=Q_SEED, why="2 - sqrt(4+z^2) = -z tanh(asinh(z/2)/2); (23) as "
                 "printed, unchanged, against the form the kernels evaluate", cites=('(23)',), fidelity=AS_PRINTED),
            Step("stable per-unit form equals (22)'s summand", lhs=unit_penalty_stable(bb, kk_), rhs=qpen,
                 why="2 beta (asinh(u) - tanh(asinh(u)/2)) = k q(2 beta/k), u = beta/k; (22)'s summand as printed with "
                 "k = ((w0)^(1)_d)^2 + ((w0)^(2)_d)^2", cites=('(22)',), fidelity=AS_PRINTED),
            Step("q'(z) = asinh(z/2)", lhs=sp.Derivative(Q_SEED, z), rhs=sp.asinh(z / 2),
                 why="(23) as printed: q is the potential of the inverse asinh(z/2) of the sinh link of (21), which is "
                 "what Woodworth et al.'s argument, invoked after (21), needs of it", cites=('(23)',),
                 fidelity=AS_PRINTED),
            Step("q''(z) = 1/sqrt(4 + z^2)", lhs=sp.Derivative(Q_SEED, (z, 2)), rhs=1 / sp.sqrt(4 + z**2),
                 why="(23) as printed, unchanged", cites=('(23)',), fidelity=AS_PRINTED),
            Step("q''(z) > 0 (strictly convex)", lhs=1 / sp.sqrt(4 + z**2), rhs=0, relation=">",
                 why="so (22) is strictly convex and its minimizer over the interpolants is unique"),
            Step("q(0) = 0", lhs=sp.Subs(Q_SEED, z, 0), rhs=0, why="(23) as printed, unchanged", cites=('(23)',),
                 fidelity=AS_PRINTED),
            Step("q is even: q(-z) = q(z)", lhs=sp.Subs(Q_SEED, z, -z), rhs=Q_SEED, why="(23) as printed, unchanged",
                 cites=('(23)',), fidelity=AS_PRINTED),
            Step("(22): d/dbeta [k q(2 beta/k)] = 2 asinh(beta/k)", lhs=sp.Derivative(qpen, bb), rhs=2 * sp.asinh(bb / kk_),
                 why="(22)'s summand as printed, k = ((w0)^(1)_d)^2 + ((w0)^(2)_d)^2; the KKT condition grad ||beta||_Q in "
                 "row(X) is met by beta = k sinh(X^T nu / 2), the form (21)", cites=('(22)',), fidelity=AS_PRINTED),
            Step("(21) meets the KKT condition: 2 asinh(k sinh(c)/k) = 2c", lhs=2 * sp.asinh(kk_ * sp.sinh(A) / kk_), rhs=2 * A,
                 why="(21) as printed, beta = k sinh(c) with k = (w0^(1))^2 + (w0^(2))^2 and c = -4 X^T int_0^t r, in the "
                 "stationarity of (22): the gradient 2c = -8 X^T int r lies in row(X), so a limit of (21) that "
                 "interpolates is the minimizer of (22) (the text after (21))", cites=('(21)', '(22)'),
                 fidelity=AS_PRINTED),
            Step("q(z) ~ z^2/4 as z -> 0", lhs=sp.Limit(Q_SEED / z**2, z, 0), rhs=sp.Rational(1, 4),
                 why="(23) as printed, unchanged", cites=('(23)',), fidelity=AS_PRINTED),
            Step("q(z) ~ z log z as z -> oo", lhs=sp.Limit(Q_SEED / (z * sp.log(z)), z, sp.oo), rhs=1,
                 why="(23) as printed, unchanged", cites=('(23)',), fidelity=AS_PRINTED),
            Step("l2 regime: k q(2 beta/k) ~ beta^2/k as k -> oo", lhs=sp.Limit(kk_ * qpen, kk_, sp.oo), rhs=bb**2,
                 why="(22)'s summand as printed", cites=('(22)',), fidelity=AS_PRINTED),
            Step("l1 regime: k q(2 beta/k) ~ 2|beta| log(1/k) as k -> 0",
                 lhs=sp.Limit(qpen.subs(bb, kpos) / (2 * kpos * sp.log(1 / kk_)), kk_, 0, "+"), rhs=1,
                 why="(22)'s summand as printed", cites=('(22)',), fidelity=AS_PRINTED),
        ) + VALUE_STEPS + SOLVER_STEPS),
)

ENTRIES = (q, norm, finetune, implicit_bias)


# entries with no evidence check, and why (theorylab mutate --view coverage)
NO_EVIDENCE = {
    "qpenalty.finetune": ("qpenalty.norm at the initialization w1 = sqrt|beta_aux|, w2 = gamma (k_d = |beta_aux_d| + "
                          "gamma^2): the same function of (beta, k) whose evidence is the qpenalty.norm checks; a "
                          "trained fine-tuning experiment (networks started at the pretrained weights) is not built"),
}
