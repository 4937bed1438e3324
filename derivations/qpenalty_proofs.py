"""qpenalty's derivation of seed 000, eqs (8)-(23), and the checked steps on its kernels and solver (App. A).

Imported only when a command decides or lists steps (Family.derivations): `theorylab eval qpenalty.q` never builds them.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorylab.authoring import AS_PRINTED, Amendment, Derivation, Erratum, Step
from theorylab.authoring import Entry
from theorylab.authoring import interpolating_minimum

from .qpenalty import (SEED, Q_SEED, _finetune_integral, _finetune_reference, _norm_integral, _norm_reference,
                       _q_integral, _q_reference, Q_STABLE, finetune, implicit_bias, norm, q, q_of, unit_penalty_stable,
                       z)

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
