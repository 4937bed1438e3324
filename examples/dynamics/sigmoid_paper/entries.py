"""Sigmoidal learning in a two-layer scalar linear network (sigmoid.tex): the closed forms (7)-(8) as entries and the
derivation of (3)-(10) from the flow (2), with the paper's two errors, (8) and (10), refuted at counterexamples."""
import numpy as np
import sympy as sp

from theorylab.authoring import AS_PRINTED, Constraint, Derivation, Entry, Erratum, Source, Step, scalar

SOURCE = "sigmoid.tex"
S = scalar("s", "the scalar target", low=0.1, high=10)
TAU = scalar("tau", "the time constant of the flow", low=0.1, high=10, tex=r"\tau")
U0 = scalar("u_0", "the initial product u(0) = a_0 b_0", low=0, low_open=True, high=10)
T = scalar("t", "time", low=0, high=100)
s, tau, u0, t = S.symbol, TAU.symbol, U0.symbol, T.symbol
a, b, u, w, L = sp.symbols("a b u w L", positive=True)

E = sp.exp(2 * s * t / tau)


def _v(t, tau, s, u_0):
    """1/u solves the linear ODE v' = (2/tau)(1 - s v): v = 1/s + (1/u_0 - 1/s) e^{-2st/tau} (mpmath, 40 digits)."""
    import mpmath
    with mpmath.workdps(40):
        return 1 / mpmath.mpf(s) + (1 / mpmath.mpf(u_0) - 1 / mpmath.mpf(s)) * mpmath.exp(-2 * mpmath.mpf(s) * t / tau)


def _u_ref(t, tau, s, u_0):
    """Route: 1/v from the linear ODE of v = 1/u (not the sigmoid's algebra)."""
    return float(1 / _v(t, tau, s, u_0))


def _t_ref(s, tau, u_0):
    """Route: the root of v(t) = 2/s (v decreases) by bisection at 40 digits, not the logarithm."""
    f = lambda x: _v(x, tau, s, u_0) - 2 / s  # noqa: E731
    lo, hi = -1.0, 1.0
    while f(lo) < 0 or f(hi) > 0:
        lo, hi = 2 * lo, 2 * hi
    for _ in range(200):
        lo, hi = ((lo + hi) / 2, hi) if f((lo + hi) / 2) > 0 else (lo, (lo + hi) / 2)
    return float((lo + hi) / 2)
U_F = Entry(id="sigmoid_paper.u_f", title="the sigmoid u_f(t)", source=Source(SOURCE, "(7)"), params=(T, TAU, S, U0),
            doc="the product u = ab along the balanced gradient flow from u(0) = u_0", lhs="u_f(t)",
            formula=s * E / (E - 1 + s / u0),
            stable_form=s * u0 / (u0 + (s - u0) * sp.exp(-2 * s * t / tau)), reference=_u_ref)  # nothing overflows


def _below_target(values):
    return None if np.all(np.less(values["u_0"], values["s"])) else f"u_0 must be < s (u never reaches s/2 otherwise); got {values}"


T_STAR = Entry(id="sigmoid_paper.t_star", title="the learning time (time to reach s/2), corrected",
               source=Source(SOURCE, "(8)"), params=(S, TAU, U0), lhs="t^*", doc="(8) with its factor 1/2 restored",
               formula=tau / (2 * s) * sp.log(s / u0 - 1), stable_form=tau / (2 * s) * (sp.log(s - u0) - sp.log(u0)), reference=_t_ref,
               constraints=(Constraint(_below_target, "u_0 < s"),))
ENTRIES = (U_F, T_STAR)
UF = U_F.as_function("u_f", of="t")
flow_a, flow_b = b * (s - a * b) / tau, a * (s - a * b) / tau               # (2)
logistic = 2 * u * (s - u) / tau                                           # (5)
POINT = {"s": 1, "tau": 1, "u_0": sp.Rational(1, 10), "u": sp.Rational(1, 4)}


def err(key, where, says, truth, severity, **at):
    return Erratum(key=key, source=SOURCE, where=where, says=says, truth=truth, severity=severity, at=at or POINT)


DERIVATIONS = (Derivation(
    key="sigmoid_paper.flow", title="From the flow (2) to the sigmoid and its learning time", source=SOURCE,
    where="(2)-(10)", entries=("sigmoid_paper.u_f", "sigmoid_paper.t_star"), steps=(
        Step("(3): a^2 - b^2 is conserved", lhs=sp.Add(2 * a * flow_a, -2 * b * flow_b, evaluate=False), rhs=0,
             cites=("(3)",), fidelity=AS_PRINTED, why="d/dt (a^2 - b^2) = 2a a' - 2b b' along (2)"),
        Step("(4): the product's flow", lhs=flow_a * b + a * flow_b, rhs=(a**2 + b**2) * (s - a * b) / tau,
             cites=("(4)",), fidelity=AS_PRINTED, why="u = ab, u' = a'b + ab'"),
        Step("(5): balanced, a^2 + b^2 = 2u", lhs=sp.Subs((a**2 + b**2) * (s - a * b) / tau, b, a),
             rhs=sp.Subs(logistic, u, a**2), premises=("(4): the product's flow",), cites=("(5)",),
             fidelity=AS_PRINTED, why="a = b for all t by (3) from a_0 = b_0"),
        Step("(6): u = 0 is unstable", lhs=sp.Subs(sp.Derivative(logistic, u), u, 0), rhs=0, relation=">",
             cites=("(6)",), fidelity=AS_PRINTED),
        Step("(7) solves (5)", lhs=sp.Derivative(U_F.formula, t), rhs=logistic.subs(u, U_F.formula)),
        Step("(7) starts at u_0", lhs=sp.Subs(U_F.formula, t, 0), rhs=u0),
        Step("(7) as printed", lhs=UF(t), rhs=U_F.formula, cites=("(7)",), fidelity=AS_PRINTED),
        Step("(8) as printed: u_f(t*) = s/2", lhs=U_F.formula.subs(t, tau / s * sp.log(s / u0 - 1)), rhs=s / 2,
             cites=("(8)",), fidelity=AS_PRINTED,
             erratum=err("sig-8", "(8)", "t* = (tau/s) ln(s/u_0 - 1)", "t* = (tau/(2s)) ln(s/u_0 - 1)",
                         "wrong-constant")),
        Step("t* corrected: u_f(t*) = s/2", lhs=U_F.formula.subs(t, T_STAR.formula), rhs=s / 2),
        Step("t* diverges as u_0 -> 0", lhs=sp.Limit(T_STAR.formula, u0, 0, "+"), rhs=sp.oo),
        Step("(9): u_f -> s", lhs=sp.Limit(U_F.formula, t, sp.oo), rhs=s, cites=("(9)",), fidelity=AS_PRINTED),
        Step("depth L: u' = L w^{L-1} w' with u = w^L", lhs=L * w**(L - 1) * w**(L - 1) * (s - w**L) / tau,
             rhs=(L * u**(2 - 2 / L) * (s - u) / tau).subs(u, w**L)),
        Step("(10) as printed, at L = 2, is (5)", lhs=(L * u**(2 - 1 / L) * (s - u) / tau).subs(L, 2), rhs=logistic,
             cites=("(10)",), fidelity=AS_PRINTED,
             erratum=err("sig-10", "(10)", "du/dt = L u^{2 - 1/L} (s - u)/tau", "du/dt = L u^{2 - 2/L} (s - u)/tau",
                         "wrong-value")),
    )),)
