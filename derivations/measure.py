"""measure: representation measures of seed 000, App. G: participation ratio, ENSD and linear CKA.

Columns are centered inside. All three are invariant to scaling the data, so centering is done as
n X - 1 (1^T X), exact for integer-valued data, with no division.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from theorylab.derivation import Derivation, Step
from theorylab.entry import Constraint, Entry, Source
from theorylab.params import matrix

SEED = "000_a994d0e1146a9c4a.txt"


def centered(X: np.ndarray) -> np.ndarray:
    """n X - 1 colsum(X): the centered columns times n (the measures are scale invariant)."""
    return X.shape[0] * X - np.sum(X, axis=0, keepdims=True)


def _fro2(A: np.ndarray) -> float:
    return float(np.sum(A * A))


def _scaled(X):
    Xc = centered(X)
    s = np.max(np.abs(Xc))
    return Xc / s if s > 0 else Xc


def participation_ratio(X):
    """PR = tr(C)^2 / tr(C^2) = ||X||_F^4 / ||X^T X||_F^2 (centered X)."""
    Xc = _scaled(X)
    G = Xc.T @ Xc if Xc.shape[1] <= Xc.shape[0] else Xc @ Xc.T
    return _fro2(Xc) ** 2 / _fro2(G)


def ensd(X, Y):
    """tr(Y^T X X^T Y) tr(X^T X) tr(Y^T Y) / (tr(X^T X X^T X) tr(Y^T Y Y^T Y))."""
    Xc, Yc = _scaled(X), _scaled(Y)
    return _fro2(Xc.T @ Yc) * _fro2(Xc) * _fro2(Yc) / (_fro2(Xc.T @ Xc) * _fro2(Yc.T @ Yc))


def cka(X, Y):
    """Linear CKA: ||X^T Y||_F^2 / (||X^T X||_F ||Y^T Y||_F) (centered X, Y)."""
    Xc, Yc = _scaled(X), _scaled(Y)
    return _fro2(Xc.T @ Yc) / np.sqrt(_fro2(Xc.T @ Xc) * _fro2(Yc.T @ Yc))


# -- exact references in rational arithmetic (float inputs are exact rationals) ---------------------------
def _exact_centered(X):
    rows = [[Fraction(float(v)) for v in r] for r in np.asarray(X)]
    n = len(rows)
    means = [sum(col) / n for col in zip(*rows)]
    return [[v - mu for v, mu in zip(r, means)] for r in rows]


def _tr_prod(A, B):  # ||A^T B||_F^2 for lists of rows
    cols_a, cols_b = list(zip(*A)), list(zip(*B))
    return sum(sum(x * y for x, y in zip(ca, cb)) ** 2 for ca in cols_a for cb in cols_b)


def _exact(kind, X, Y=None):
    Xc = _exact_centered(X)
    fx = sum(v * v for r in Xc for v in r)
    gx = _tr_prod(Xc, Xc)
    if kind == "pr":
        return float(fx * fx / gx)
    Yc = _exact_centered(Y)
    fy = sum(v * v for r in Yc for v in r)
    gy = _tr_prod(Yc, Yc)
    xy = _tr_prod(Xc, Yc)
    if kind == "ensd":
        return float(xy * fx * fy / (gx * gy))
    return float(sp.sqrt(sp.Rational(xy) ** 2 / (sp.Rational(gx) * sp.Rational(gy))).evalf(30))


def _nonconstant(name):
    def check(values):
        X = np.asarray(values[name])
        if X.shape[0] < 2:
            return f"{name} must have at least 2 rows (samples); got {X.shape[0]}"
        if not np.any(centered(X)):
            return f"{name} must have at least one non-constant column (the measure is 0/0 otherwise); got constant columns"
        return None

    return Constraint(check, f"{name} has >= 2 rows and a non-constant column")


def _same_n(values):
    if np.shape(values["X"])[0] != np.shape(values["Y"])[0]:
        return f"Y must have the same number of rows n as X ({np.shape(values['X'])[0]}); got {np.shape(values['Y'])[0]}"
    return None


def _data_strategy(two: bool):
    def make():
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        @st.composite
        def draw(d):
            n = d(st.integers(2, 6))
            el = st.integers(-100, 100).map(float)  # integer data: the float64 computation is exact
            out = {"X": d(hnp.arrays(np.float64, (n, d(st.integers(1, 4))), elements=el))}
            if two:
                out["Y"] = d(hnp.arrays(np.float64, (n, d(st.integers(1, 4))), elements=el))
            return out

        def ok(v):
            return all(np.any(centered(v[k])) for k in v)

        return draw().filter(ok)

    return make


X_p = matrix("X", "n", "p", "responses: n samples (rows) of p units")
Y_p = matrix("Y", "n2", "q", "responses of another network on the same n samples")
pr = Entry(
    id="measure.participation_ratio", title="Participation ratio of a representation", source=Source(SEED, "App. G"),
    doc=("PR(X) = tr(C)^2/tr(C^2), C = X^T X/n with centered columns; between 1 and rank(X) <= p. Exact for integer "
         "data; otherwise accurate to the conditioning of the centering."),
    params=(X_p,), lhs=r"\mathrm{PR}(X)", display=r"\frac{\mathrm{tr}(X^TX)^2}{\mathrm{tr}(X^TXX^TX)}",
    compute=participation_ratio, reference=lambda X: _exact("pr", X),
    constraints=(_nonconstant("X"),), strategy_fn=_data_strategy(False))
ensd_entry = Entry(
    id="measure.ensd", title="Effective number of shared dimensions", source=Source(SEED, "App. G"),
    doc=("ENSD(X, Y) = tr(Y^T X X^T Y) tr(X^T X) tr(Y^T Y) / (tr(X^T X X^T X) tr(Y^T Y Y^T Y)), columns centered; "
         "X is n x p and Y n x q (the seed writes n x p for both; any q works)."),
    params=(X_p, Y_p), lhs=r"\mathrm{ENSD}(X, Y)",
    display=r"\frac{\mathrm{tr}(Y^TXX^TY)\,\mathrm{tr}(X^TX)\,\mathrm{tr}(Y^TY)}{\mathrm{tr}(X^TXX^TX)\,\mathrm{tr}(Y^TYY^TY)}",
    compute=ensd, reference=lambda X, Y: _exact("ensd", X, Y),
    constraints=(Constraint(_same_n, "X and Y have the same rows"), _nonconstant("X"), _nonconstant("Y")),
    strategy_fn=_data_strategy(True))
cka_entry = Entry(
    id="measure.cka", title="Linear centered kernel alignment", source=Source(SEED, "App. G"),
    doc="CKA(X, Y) = ||X^T Y||_F^2 / (||X^T X||_F ||Y^T Y||_F), columns centered; ENSD = CKA sqrt(PR(X) PR(Y)).",
    params=(X_p, Y_p), lhs=r"\mathrm{CKA}(X, Y)", display=r"\frac{\|X^TY\|_F^2}{\|X^TX\|_F\,\|Y^TY\|_F}",
    compute=cka, reference=lambda X, Y: _exact("cka", X, Y),
    constraints=(Constraint(_same_n, "X and Y have the same rows"), _nonconstant("X"), _nonconstant("Y")),
    strategy_fn=_data_strategy(True))
ENTRIES = (pr, ensd_entry, cka_entry)

# -- derivation: ENSD = CKA sqrt(PR(X) PR(Y)), with symbolic 3 x 2 matrices -------------------------------
Xs = sp.Matrix(3, 2, lambda i, j: sp.Symbol(f"x_{i}{j}", real=True))
Ys = sp.Matrix(3, 2, lambda i, j: sp.Symbol(f"y_{i}{j}", real=True))


def _tr(M):
    return M.trace()


PR_X = _tr(Xs.T * Xs) ** 2 / _tr(Xs.T * Xs * Xs.T * Xs)
PR_Y = _tr(Ys.T * Ys) ** 2 / _tr(Ys.T * Ys * Ys.T * Ys)
ENSD_S = _tr(Ys.T * Xs * Xs.T * Ys) * _tr(Xs.T * Xs) * _tr(Ys.T * Ys) / (_tr(Xs.T * Xs * Xs.T * Xs) * _tr(Ys.T * Ys * Ys.T * Ys))
CKA_S = _tr(Ys.T * Xs * Xs.T * Ys) / sp.sqrt(_tr(Xs.T * Xs * Xs.T * Xs) * _tr(Ys.T * Ys * Ys.T * Ys))
DERIVATIONS = (
    Derivation("measure.identities", "PR, ENSD and CKA (App. G): the identity ENSD = CKA sqrt(PR(X) PR(Y))", SEED,
               "App. G", ("measure.participation_ratio", "measure.ensd", "measure.cka"), (
        Step("PR: tr(C)^2/tr(C^2) is invariant to the 1/n in C = X^T X/n", (_tr(Xs.T * Xs) / 3) ** 2
             / _tr((Xs.T * Xs / 3) ** 2), PR_X),
        Step("ENSD = CKA sqrt(PR(X) PR(Y)) (3 x 2 symbolic X, Y)", ENSD_S, CKA_S * sp.sqrt(PR_X * PR_Y),
             symbolic=False),
        Step("tr(Y^T X X^T Y) = ||X^T Y||_F^2", _tr(Ys.T * Xs * Xs.T * Ys), sum(v**2 for v in (Xs.T * Ys))),
    )),
)
