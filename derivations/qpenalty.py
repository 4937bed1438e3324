"""qpenalty: the Q-penalty of pretrained+finetuned diagonal linear networks (seed 000, App. A).

Entries q, norm, finetune, implicit_bias; the derivation of eqs (8)-(23) as the seed writes them is qpenalty_proofs.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from theorylab.authoring import bisect
from theorylab.authoring import Constraint, Entry, Source
from theorylab.authoring import scalar, matrix, vector

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


ENTRIES = (q, norm, finetune, implicit_bias)


# entries with no evidence check, and why (theorylab mutate --view coverage)
NO_EVIDENCE = {
    "qpenalty.finetune": ("qpenalty.norm at the initialization w1 = sqrt|beta_aux|, w2 = gamma (k_d = |beta_aux_d| + "
                          "gamma^2): the same function of (beta, k) whose evidence is the qpenalty.norm checks; a "
                          "trained fine-tuning experiment (networks started at the pretrained weights) is not built"),
}
