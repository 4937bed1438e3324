"""qpenalty: the Q-penalty of pretrained+finetuned diagonal linear networks (seed 000, App. A).

Entries q, norm, finetune, implicit_bias and the derivation of eqs (8)-(23) as the seed writes them.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Erratum, Step
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import DomainError, scalar, matrix, vector

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


def q_of(arg: sp.Expr, form: sp.Expr = Q_SEED) -> sp.Expr:
    return form.subs(z, arg)


beta_p = vector("beta", "D", "the network's linear predictor beta (one entry per input dimension)", tex="beta_d")
w1_p = vector("w1", "D", "first-layer weights at initialization, (w_0)^(1)_d", tex="w_{1d}")
w2_p = vector("w2", "D", "second-layer weights at initialization, (w_0)^(2)_d", tex="w_{2d}")
b, w1, w2 = beta_p.symbol, w1_p.symbol, w2_p.symbol
k = w1**2 + w2**2


RATIO_MAX = 1e300  # |beta_d| / k_d beyond this overflows asinh's argument in float64


def _ratio_ok(beta, kk, names: str):
    """The kernel's float64 range: k_d > 0 and |beta_d| / k_d <= 1e300."""
    if np.any(kk <= 0):
        d = int(np.argmin(kk))
        return (f"{names} must give k_d > 0 for every d (the penalty is undefined for a unit initialized at "
                f"zero); got k_{d} = {kk[d]:g}")
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
    reduce="sum",
    constraints=(Constraint(_k_positive, "k_d = w1_d^2 + w2_d^2 > 0 and |beta_d|/k_d <= 1e300 for every d"),),
    conditions=(r"k_d = w_{1d}^2 + w_{2d}^2 > 0",),
    dims={"D": (1, 5)},
)

beta_aux_p = vector("beta_aux", "D", "the pretrained (auxiliary-task) predictor", tex="beta_d^aux")
gamma_p = scalar("gamma", "readout initialization (any real; enters as gamma^2)", tex="gamma")
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
    reduce="sum",
    constraints=(Constraint(_k_ft_positive, "k_d = |beta_aux_d| + gamma^2 > 0 and |beta_d|/k_d <= 1e300"),),
    conditions=(r"k_d = |\beta^{aux}_d| + \gamma^2 > 0",),
    dims={"D": (1, 5)},
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
        with np.errstate(over="ignore"):
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
    return beta


def _implicit_bias(X, y, w1, w2):
    kk = w1**2 + w2**2
    return solve_implicit_bias(X, y, kk)


def _y_reachable(values):
    X, y = np.asarray(values["X"]), np.asarray(values["y"])
    if X.shape[0] != y.shape[0]:
        return f"y must have length n = {X.shape[0]} (the rows of X); got y of length {y.shape[0]}"
    sol = np.linalg.lstsq(X, y, rcond=None)[0]
    if np.linalg.norm(X @ sol - y) > 1e-9 * max(1.0, np.linalg.norm(y)):
        return "y must lie in the column space of X (X beta = y has no solution); got an inconsistent X, y"
    return _k_positive(values)


def _implicit_bias_reference(X, y, w1, w2):
    """The same dual Newton iteration in mpmath at 50 digits (reference for the float64 solver)."""
    import mpmath as mp

    with mp.workdps(50):
        Xm = mp.matrix(X.tolist())
        ym = mp.matrix(y.tolist())
        kk = [mp.mpf(a) ** 2 + mp.mpf(c) ** 2 for a, c in zip(w1, w2)]
        n, D = Xm.rows, Xm.cols
        lam = mp.matrix(n, 1)
        for _ in range(400):
            c = [sum(Xm[i, d] * lam[i] for i in range(n)) / 2 for d in range(D)]
            beta = [kk[d] * mp.sinh(c[d]) for d in range(D)]
            grad = mp.matrix([sum(Xm[i, d] * beta[d] for d in range(D)) - ym[i] for i in range(n)])
            if mp.norm(grad) <= mp.mpf(10) ** -45 * mp.norm(ym):  # relative: y may be 1e-130
                break
            H = mp.matrix(n, n)
            for i in range(n):
                for j in range(n):
                    H[i, j] = sum(Xm[i, d] * Xm[j, d] * kk[d] * mp.cosh(c[d]) / 2 for d in range(D))
            step = mp.lu_solve(H, -grad)
            t = mp.mpf(1)
            f0 = sum(2 * kk[d] * mp.cosh(c[d]) for d in range(D)) - sum(lam[i] * ym[i] for i in range(n))
            g0 = mp.norm(grad)
            while t > mp.mpf(10) ** -30:
                trial = lam + t * step
                ct = [sum(Xm[i, d] * trial[i] for i in range(n)) / 2 for d in range(D)]
                f1 = sum(2 * kk[d] * mp.cosh(ct[d]) for d in range(D)) - sum(trial[i] * ym[i] for i in range(n))
                g1 = mp.norm(mp.matrix([sum(Xm[i, d] * kk[d] * mp.sinh(ct[d]) for d in range(D)) - ym[i]
                                        for i in range(n)]))
                if f1 < f0 or g1 < g0:
                    break
                t /= 2
            lam = trial
        return np.array([float(v) for v in beta])


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
    constraints=(Constraint(_y_reachable, "y in the column space of X; w1_d^2 + w2_d^2 > 0"),),
    value_doc="a vector of length D",
    strategy_fn=_ib_strategy,
    rtol=1e-9,
    reference_rtol_note="1e-9 relative (Frobenius): the solution's conditioning is cond(X X^T) <= 1e4 "
                        "in the strategy, so float64 gives about 1e4 * 1e-16 = 1e-12",
)

# -- the derivation of seed 000, eqs (8)-(23) -------------------------------------------------------
t, tau = sp.symbols("t tau", real=True)
x11, x12, x21, x22, y1, y2 = sp.symbols("x_11 x_12 x_21 x_22 y_1 y_2", real=True)
Xs = sp.Matrix([[x11, x12], [x21, x22]])
Xt = Xs.row_join(-Xs)  # X~ = [X, -X]
ys = sp.Matrix([y1, y2])
W1 = sp.Matrix(sp.symbols("a_1:5", real=True))  # w^(1) = (w_+^(1), w_-^(1))
W2 = sp.Matrix(sp.symbols("c_1:5", real=True))
residual = Xt * W1.multiply_elementwise(W2) - ys  # r = X~(w1 o w2) - y (the usual convention)
loss = (residual.T * residual)[0]
grad_w1 = sp.Matrix([sp.diff(loss, v) for v in W1])
grad_w2 = sp.Matrix([sp.diff(loss, v) for v in W2])

E_GRAD = Erratum(
    "000-A-eq8-9", SEED, "eqs (8)-(9)",
    "w'(1)(t) = grad_{w(1)} L = -2 X~^T r(t) o w(2)(t)",
    "gradient flow is w' = -grad L; with the residual r = X~(w(1) o w(2)) - y, grad L = +2 X~^T r o w(2), so "
    "w'(1) = -grad L = -2 X~^T r o w(2). The right-hand side is the correct flow; the middle term's sign is not.",
    "No downstream effect: (10)-(21) use the right-hand side.")

g = sp.Matrix(sp.symbols("g_1:5", real=True))  # g = X~^T r at time t
s_of = lambda a, c: (a + c) / 2  # noqa: E731
d_of = lambda a, c: (a - c) / 2  # noqa: E731
G = sp.Function("G")  # G(t) = (X~^T r(t)) for one coordinate
s0, d0 = sp.symbols("s_0 d_0", real=True)
S = s0 * sp.exp(-2 * sp.Integral(G(tau), (tau, 0, t)))
Dd = d0 * sp.exp(2 * sp.Integral(G(tau), (tau, 0, t)))
sp_, dp_, sm_, dm_ = sp.symbols("s_+ d_+ s_- d_-", real=True)
A = sp.Symbol("a", real=True)  # a = 4 X^T int_0^t r, one coordinate

# with w+(0) = w-(0): X~^T r = (X^T r, -X^T r), so s+ = s0 e^{-a/2}, s- = s0 e^{a/2}, d+ = d0 e^{a/2}, d- = d0 e^{-a/2}
beta_17 = (sp_**2 - sm_**2) - (dp_**2 - dm_**2)
beta_17_sub = beta_17.subs({sp_: s0 * sp.exp(-A / 2), sm_: s0 * sp.exp(A / 2),
                            dp_: d0 * sp.exp(A / 2), dm_: d0 * sp.exp(-A / 2)})
beta_18_seed = 2 * s0**2 * (sp.exp(-A) - sp.exp(A)) - 2 * d0**2 * (sp.exp(A) - sp.exp(-A))
beta_20 = 2 * (s0**2 + d0**2) * sp.sinh(-A)
u1, u2 = sp.symbols("w_0^(1) w_0^(2)", real=True)
E_FACTOR = Erratum(
    "000-A-eq18-19", SEED, "eqs (18)-(19)",
    "beta(t) = 2 s0^2 o (exp(-4X^T int r) - exp(4X^T int r)) - 2 d0^2 o (exp(4X^T int r) - exp(-4X^T int r))",
    "beta(t) = s0^2 o (exp(-a) - exp(a)) - d0^2 o (exp(a) - exp(-a)) with a = 4 X^T int_0^t r: the factor 2 "
    "is spurious. (18)-(19) as written equal 4(s0^2 + d0^2) sinh(-a), twice (20); (20) itself is right.",
    "The closed form (21)-(23) is unaffected.")

kpos, bb = sp.Symbol("beta", positive=True), sp.Symbol("beta", real=True)
kk_ = sp.Symbol("k", positive=True)
qpen = kk_ * q_of(2 * bb / kk_)

DERIVATIONS = (
    Derivation(
        "qpenalty.gradient_flow", "Gradient flow of the +/- diagonal network and its closed form beta(t)",
        SEED, "App. A, eqs (8)-(21)", ("qpenalty.norm", "qpenalty.implicit_bias"),
        (
            Step("(8) as written: grad_{w(1)} L = -2 X~^T r o w(2)", grad_w1, -2 * (Xt.T * residual).multiply_elementwise(W2),
                 "L = ||X~(w1 o w2) - y||^2, r = X~(w1 o w2) - y, n = D = 2", erratum=E_GRAD),
            Step("(8) corrected: w'(1) = -grad L = -2 X~^T r o w(2)", -grad_w1, -2 * (Xt.T * residual).multiply_elementwise(W2)),
            Step("(9) corrected: w'(2) = -grad L = -2 X~^T r o w(1)", -grad_w2, -2 * (Xt.T * residual).multiply_elementwise(W1)),
            Step("(10): s' = -2 X~^T r o s", s_of(-2 * g.multiply_elementwise(W2), -2 * g.multiply_elementwise(W1)),
                 -2 * g.multiply_elementwise(s_of(W1, W2)), "s = (w1 + w2)/2, g = X~^T r"),
            Step("(11): d' = 2 X~^T r o d", d_of(-2 * g.multiply_elementwise(W2), -2 * g.multiply_elementwise(W1)),
                 2 * g.multiply_elementwise(d_of(W1, W2)), "d = (w1 - w2)/2"),
            Step("(13): s(t) = s(0) exp(-2 X~^T int r) solves (10)", sp.diff(S, t), -2 * G(t) * S,
                 "G(t) = (X~^T r(t))_i, any integrable function"),
            Step("(13): initial value", S.subs(t, 0).doit(), s0),
            Step("(14): d(t) = d(0) exp(2 X~^T int r) solves (11)", sp.diff(Dd, t), 2 * G(t) * Dd),
            Step("(16): w(1) w(2) = s^2 - d^2", (sp_ + dp_) * (sp_ - dp_), sp_**2 - dp_**2, "w1 = s + d, w2 = s - d"),
            Step("(17): regrouping (16)", (sp_**2 - dp_**2) - (sm_**2 - dm_**2), beta_17),
            Step("(18)-(19) as written, from (17) with w+(0) = w-(0)", beta_17_sub, beta_18_seed,
                 "s+ = s0 e^{-a/2}, s- = s0 e^{a/2}, d+ = d0 e^{a/2}, d- = d0 e^{-a/2}, a = 4 X^T int r",
                 erratum=E_FACTOR),
            Step("(20) from (17) directly: beta = 2(s0^2 + d0^2) sinh(-a)", beta_17_sub, beta_20),
            Step("(21): 2(s0^2 + d0^2) = (w0^(1))^2 + (w0^(2))^2",
                 2 * (s_of(u1, u2) ** 2 + d_of(u1, u2) ** 2), u1**2 + u2**2),
        )),
    Derivation(
        "qpenalty.penalty", "The Q-penalty (22)-(23): stationarity matches beta(t), convexity, regimes",
        SEED, "App. A, eqs (22)-(23)", ("qpenalty.q", "qpenalty.norm", "qpenalty.finetune", "qpenalty.implicit_bias"),
        (
            Step("stable form equals (23)", Q_STABLE, Q_SEED, "2 - sqrt(4+z^2) = -z tanh(asinh(z/2)/2)"),
            Step("stable per-unit form equals (22)'s summand", unit_penalty_stable(bb, kk_), qpen,
                 "2 beta (asinh(u) - tanh(asinh(u)/2)) = k q(2 beta/k), u = beta/k"),
            Step("q'(z) = asinh(z/2)", sp.diff(Q_SEED, z), sp.asinh(z / 2)),
            Step("q''(z) = 1/sqrt(4 + z^2) > 0 (strictly convex)", sp.diff(Q_SEED, z, 2), 1 / sp.sqrt(4 + z**2)),
            Step("q(0) = 0", Q_SEED.subs(z, 0), 0),
            Step("q is even", Q_SEED.subs(z, -z), Q_SEED),
            Step("(22): d/dbeta [k q(2 beta/k)] = 2 asinh(beta/k)", sp.diff(qpen, bb), 2 * sp.asinh(bb / kk_),
                 "the KKT condition grad ||beta||_Q in row(X) is met by beta = k sinh(X^T nu / 2), the form (21)"),
            Step("(21) meets the KKT condition: 2 asinh(k sinh(c)/k) = 2c", 2 * sp.asinh(kk_ * sp.sinh(A) / kk_), 2 * A),
            Step("q(z) ~ z^2/4 as z -> 0", sp.Limit(Q_SEED / z**2, z, 0), sp.Rational(1, 4)),
            Step("q(z) ~ z log z as z -> oo", sp.Limit(Q_SEED / (z * sp.log(z)), z, sp.oo), 1),
            Step("l2 regime: k q(2 beta/k) ~ beta^2/k as k -> oo", sp.Limit(kk_ * qpen, kk_, sp.oo), bb**2),
            Step("l1 regime: k q(2 beta/k) ~ 2|beta| log(1/k) as k -> 0",
                 sp.Limit(qpen.subs(bb, kpos) / (2 * kpos * sp.log(1 / kk_)), kk_, 0, "+"), 1),
        )),
)

ENTRIES = (q, norm, finetune, implicit_bias)
