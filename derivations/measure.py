"""measure: representation measures of seed 000, App. G: participation ratio, ENSD and linear CKA.

Columns are centered inside. All three are invariant to scaling the data, so centering is done as
n X - 1 (1^T X), exact for integer-valued data, with no division.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from theorylab.authoring import Derivation, Erratum, Step
from theorylab.authoring import Constraint, Entry, Source
from theorylab.authoring import matrix

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


# -- independent references ------------------------------------------------------------------------------
def _exact_centered(X):
    """Columns centered in exact rational arithmetic (float inputs are exact rationals)."""
    rows = [[Fraction(float(v)) for v in r] for r in np.asarray(X)]
    n = len(rows)
    means = [sum(col) / n for col in zip(*rows)]
    return [[v - mu for v, mu in zip(r, means)] for r in rows]


def _pr_reference(X):
    """PR from its definition in App. G: (sum_i lambda_i)^2 / sum_i lambda_i^2 with lambda_i the eigenvalues of
    C_X = X^T X / n (centered X), computed by mpmath's symmetric eigensolver at 60 digits on the exactly
    centered data -- not the trace formula the kernel uses."""
    import mpmath as mp

    Xc = _exact_centered(X)
    n, p = len(Xc), len(Xc[0])
    with mp.workdps(60):
        C = mp.matrix(p, p)
        for a in range(p):
            for b in range(p):
                cab = sum(r[a] * r[b] for r in Xc) / n  # exact
                C[a, b] = mp.mpf(cab.numerator) / cab.denominator
        lam = mp.eigsy(C, eigvals_only=True)
        lam = [lam[i] for i in range(p)]
        return float(sum(lam) ** 2 / sum(v * v for v in lam))


def _gram_centered(X):
    """K~ = H X X^T H (n x n) with H = I - 11^T/n, in exact rational arithmetic from the raw (uncentered) data."""
    rows = [[Fraction(float(v)) for v in r] for r in np.asarray(X)]
    n = len(rows)
    K = [[sum(a * b for a, b in zip(ri, rj)) for rj in rows] for ri in rows]
    rmean = [sum(K[i]) / n for i in range(n)]
    tmean = sum(rmean) / n
    return [[K[i][j] - rmean[i] - rmean[j] + tmean for j in range(n)] for i in range(n)]


def _tr_prod(A, B):
    """tr(A B) for symmetric n x n lists of rows."""
    return sum(a * b for ra, rb in zip(A, B) for a, b in zip(ra, rb))


def _ensd_reference(X, Y):
    """ENSD via n x n centered Gram matrices K~ = H X X^T H, L~ = H Y Y^T H in exact rational arithmetic:
    tr(K~ L~) tr(K~) tr(L~) / (tr(K~^2) tr(L~^2)) -- the seed's p x p traces moved to sample space by the trace's
    cyclicity, and the centering applied to the Gram matrices, not to the data."""
    K, L = _gram_centered(X), _gram_centered(Y)
    trK, trL = sum(K[i][i] for i in range(len(K))), sum(L[i][i] for i in range(len(L)))
    return float(_tr_prod(K, L) * trK * trL / (_tr_prod(K, K) * _tr_prod(L, L)))


def _cka_reference(X, Y):
    """Linear CKA as Kornblith et al. (2019) define it: HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L)) with K = X X^T,
    L = Y Y^T and HSIC(K, L) = tr(K H L H)/(n-1)^2, in exact rational arithmetic; the square root at 40 digits."""
    import mpmath as mp

    K, L = _gram_centered(X), _gram_centered(Y)  # H K H; tr(K H L H) = tr(HKH HLH) since H^2 = H
    num, den = _tr_prod(K, L), _tr_prod(K, K) * _tr_prod(L, L)
    with mp.workdps(40):
        return float(mp.mpf(num.numerator) / num.denominator
                     / mp.sqrt(mp.mpf(den.numerator) / den.denominator))


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
    compute=participation_ratio, reference=_pr_reference,
    constraints=(_nonconstant("X"),), strategy_fn=_data_strategy(False))
ensd_entry = Entry(
    id="measure.ensd", title="Effective number of shared dimensions", source=Source(SEED, "App. G"),
    doc=("ENSD(X, Y) = tr(Y^T X X^T Y) tr(X^T X) tr(Y^T Y) / (tr(X^T X X^T X) tr(Y^T Y Y^T Y)), columns centered; "
         "X is n x p and Y n x q (the seed writes n x p for both; any q works)."),
    params=(X_p, Y_p), lhs=r"\mathrm{ENSD}(X, Y)",
    display=r"\frac{\mathrm{tr}(Y^TXX^TY)\,\mathrm{tr}(X^TX)\,\mathrm{tr}(Y^TY)}{\mathrm{tr}(X^TXX^TX)\,\mathrm{tr}(Y^TYY^TY)}",
    compute=ensd, reference=_ensd_reference,
    constraints=(Constraint(_same_n, "X and Y have the same rows"), _nonconstant("X"), _nonconstant("Y")),
    strategy_fn=_data_strategy(True))
cka_entry = Entry(
    id="measure.cka", title="Linear centered kernel alignment", source=Source(SEED, "App. G"),
    doc="CKA(X, Y) = ||X^T Y||_F^2 / (||X^T X||_F ||Y^T Y||_F), columns centered; ENSD = CKA sqrt(PR(X) PR(Y)).",
    params=(X_p, Y_p), lhs=r"\mathrm{CKA}(X, Y)", display=r"\frac{\|X^TY\|_F^2}{\|X^TX\|_F\,\|Y^TY\|_F}",
    compute=cka, reference=_cka_reference,
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
EPS = float(np.finfo(float).eps)


def _data_points():
    """(X, Y) pairs with n <= 8 rows, p, q <= 4 columns: small integer ones first, then random data (seeded),
    including nearly collinear columns and Y sharing X's units (the seed's example)."""
    yield {"X": np.array([[1.0], [-1.0]]), "Y": np.array([[2.0], [0.0]])}
    yield {"X": np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]), "Y": np.array([[1.0], [2.0], [3.0]])}
    rng = np.random.default_rng(1701)
    for n, p, q in ((4, 2, 2), (8, 4, 4), (5, 3, 1), (8, 4, 2), (6, 1, 3), (7, 4, 4)):
        X = rng.integers(-100, 101, size=(n, p)).astype(float)
        yield {"X": X, "Y": rng.integers(-100, 101, size=(n, q)).astype(float)}
        Xr = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-3, 4, size=p)
        yield {"X": Xr, "Y": Xr[:, :q] + 1e-3 * rng.normal(size=(n, q))}


# float64 rounding of the entries (n <= 8, p, q <= 4 at the search points; Higham ch. 3): a Frobenius sum of
# N positive terms errs by <= N eps relative; a Gram entry G_ab by <= n eps sqrt(G_aa G_bb), so ||G||_F^2 by
# <= 2 n p eps relative (||G||_F^2 >= tr(G)^2 / p); the scaling by max|Xc| adds eps/2 per entry.
PR_RTOL = (4 * 8 * 4 + 8) * EPS
PR_SOURCE = ("float64 rounding of the entry: ||Xc||_F^4 to 2np eps, ||Xc^T Xc||_F^2 to 2np eps, 8 eps for the "
             "scaling and the quotient; (4np + 8) eps with n <= 8, p <= 4 at the search points")
# CKA in [0, 1]: ||X^T Y||_F^2 can cancel, so its error is absolute: <= 2 n (pq)^(1/4) sqrt(CKA) eps after
# normalization (Cauchy-Schwarz on each cross product), plus 8 n max(p, q) eps CKA from the two Gram norms
CKA_TOL = (2 * 8 * 2 + 8 * 8 * 4 + 32) * EPS
CKA_SOURCE = ("float64 rounding of the entry, absolute (CKA in [0, 1]): 2n (pq)^(1/4) eps from the cross "
              "products X^T Y, 8n max(p, q) eps from ||X^T X||_F ||Y^T Y||_F, 32 eps for scaling and the quotient; "
              "n <= 8, p, q <= 4 at the search points")
# ENSD and CKA sqrt(PR PR) share the float value of ||X^T Y||_F^2 (the same operations on the same scaled data),
# so they differ by the rounding of the other four factors and of the final operations
ENSD_RTOL = (4 * 2 * 8 * 4 + 16) * EPS
ENSD_SOURCE = ("float64 rounding of the factors the two sides do not share: ||Xc||_F^2, ||Yc||_F^2 (np eps each) "
               "and ||Xc^T Xc||_F^2, ||Yc^T Yc||_F^2 (2np eps each, computed as p x p or n x n Gram), 16 eps for "
               "the final operations; n <= 8, p, q <= 4 at the search points")


def _pr_eig(X, Y):
    """(sum lambda_i)^2 / sum lambda_i^2, eigenvalues of C_X at 60 digits"""
    return _pr_reference(X)


def _ensd_factored(X, Y):
    """CKA(X, Y) sqrt(PR(X) PR(Y)) from the catalogue's entries"""
    return cka_entry(X=X, Y=Y) * np.sqrt(pr(X=X) * pr(X=Y))


# -- the claims of App. G's text: PR ranges over [1, p]; the ENSD examples with uncorrelated units --------------
lam = sp.symbols("lambda_1:4", positive=True)  # eigenvalues of C_X, p = 3
PR_EIG = sum(lam) ** 2 / sum(v**2 for v in lam)


def _units(s, rows=None):
    """n x p responses of p uncorrelated units with standard deviations s (integers): column i is +s_i on row i and
    -s_i on row p + i (zero elsewhere, `rows` in total), so the columns are centered and orthogonal."""
    p = len(s)
    X = np.zeros((rows or 2 * p, p))
    for i, v in enumerate(s):
        X[i, i], X[p + i, i] = v, -v
    return X


def _ensd_subset(s, S):
    """ENSD(X, Y): X = 10 uncorrelated units with standard deviations s, Y = the units S of X (the entry)"""
    X = _units(s)
    return ensd_entry(X=X, Y=X[:, list(S)])


def _ensd_disjoint(s, t):
    """ENSD(X, Y): X = 10 uncorrelated units (std s), Y = 5 units (std t) uncorrelated with all of X (the entry)"""
    n = 2 * len(s) + 2 * len(t)
    X = _units(s, rows=n)
    Y = np.zeros((n, len(t)))
    for j, v in enumerate(t):
        Y[2 * len(s) + j, j], Y[2 * len(s) + len(t) + j, j] = v, -v
    return ensd_entry(X=X, Y=Y)


def _equal_units():
    """equal standard deviations (powers of 2, so the entry's scaling is exact), several subsets of five"""
    for c in (1.0, 2.0, 8.0):
        for S in ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9), (0, 2, 4, 6, 8), (1, 3, 4, 8, 9)):
            yield {"s": (c,) * 10, "S": S}


def _printed_units():
    """the example as printed (variances unstated): equal standard deviations first, then one unit twice as wide"""
    yield {"s": (1.0,) * 10, "S": (0, 1, 2, 3, 4)}
    yield {"s": (2.0,) + (1.0,) * 9, "S": (0, 1, 2, 3, 4)}


E_ENSD_EXAMPLE = Erratum(
    key="000-G-ensd-example", source=SEED, where="App. G, the ENSD illustration",
    says="if X consists of 10 uncorrelated units, if Y is taken from a subset of five of those units, the ENSD(X, Y) "
    "will be 5",
    truth="for uncorrelated units with variances lambda_i, ENSD(X, Y) = (sum_i lambda_i)(sum_{i in S} lambda_i) / "
    "sum_i lambda_i^2: 5 when the ten variances are equal, 13 * 8 / 25 = 4.16 when one unit of Y has twice the "
    "standard deviation of the others",
    severity="missing-hypothesis",
    note="The illustration holds only for units of equal variance, a hypothesis the text neither states nor implies "
    "(its second example, ENSD = 0 for units uncorrelated with X, holds for any variances). Formerly a Finding of "
    "verify/measure.py; an illustration, so nothing downstream uses it.",
    at={"s": (2.0,) + (1.0,) * 9, "S": (0, 1, 2, 3, 4)})


def _any_units():
    """standard deviations of any size (powers of 2), for the disjoint example"""
    yield {"s": (1.0,) * 10, "t": (1.0,) * 5}
    rng = np.random.default_rng(5)
    for _ in range(6):
        yield {"s": tuple(2.0 ** rng.integers(0, 5, size=10)), "t": tuple(2.0 ** rng.integers(0, 5, size=5))}


def _pr_points():
    for v in _data_points():
        yield {"X": v["X"]}


EXACT_RTOL = EPS
EXACT_SOURCE = ("integer data with power-of-2 standard deviations: centering, the scaling by max|Xc| and every product "
                "and sum of the traces are exact in float64; only the final quotient rounds (eps/2, plus eps/2 for the "
                "product of three traces)")

CLAIM_STEPS = (
    Step("PR >= 1: (sum lambda_i)^2 / sum lambda_i^2 >= 1 for eigenvalues lambda_i >= 0 (p = 3)", lhs=PR_EIG, rhs=1,
         relation=">=", why="App. G: 'The PR scales from 1 to p'"),
    Step("PR <= p: (sum lambda_i)^2 / sum lambda_i^2 <= 3 (p = 3; Cauchy-Schwarz)", lhs=PR_EIG, rhs=3, relation="<=",
         domain={v: (0.001, 1) for v in lam}, why="App. G: 'The PR scales from 1 to p'; PR is scale invariant, "
         "so the box (0.001, 1]^3 covers every direction but those with a zero eigenvalue (PR of fewer units)"),
    Step("PR (the entry) >= 1 at data", lhs=lambda X: pr(X=X), rhs=lambda X: 1.0, relation=">=", search=_pr_points,
         rtol=PR_RTOL, tol_source=PR_SOURCE),
    Step("PR (the entry) <= p at data", lhs=lambda X: pr(X=X), rhs=lambda X: float(np.shape(X)[1]), relation="<=",
         search=_pr_points, rtol=PR_RTOL, tol_source=PR_SOURCE),
    Step("App. G example as printed: X = 10 uncorrelated units, Y a subset of five of them: ENSD(X, Y) = 5",
         lhs=_ensd_subset, rhs=lambda s, S: 5.0, search=_printed_units, rtol=EXACT_RTOL, tol_source=EXACT_SOURCE,
         why="the text states no variances: ENSD = (sum lambda)(sum_S lambda)/sum lambda^2 over the units' variances",
         erratum=E_ENSD_EXAMPLE),
    Step("App. G example with equal variances: 10 uncorrelated units of equal variance, Y five of them: ENSD = 5",
         lhs=_ensd_subset, rhs=lambda s, S: 5.0, search=_equal_units, rtol=EXACT_RTOL, tol_source=EXACT_SOURCE,
         why="the example under the hypothesis it needs (equal variances), which the text does not state"),
    Step("App. G example: Y = 5 units uncorrelated with all 10 of X: ENSD(X, Y) = 0 (any variances)",
         lhs=_ensd_disjoint, rhs=lambda s, t: 0.0, search=_any_units),
)


DERIVATIONS = (
    Derivation(key="measure.identities", title="PR, ENSD and CKA (App. G): the identity ENSD = CKA sqrt(PR(X) PR(Y))", source=SEED,
               where="App. G", entries=("measure.participation_ratio", "measure.ensd", "measure.cka"), steps=(
        Step("PR: tr(C)^2/tr(C^2) is invariant to the 1/n in C = X^T X/n", lhs=(_tr(Xs.T * Xs) / 3) ** 2
             / _tr((Xs.T * Xs / 3) ** 2), rhs=PR_X),
        Step("ENSD = CKA sqrt(PR(X) PR(Y)) (3 x 2 symbolic X, Y)", lhs=ENSD_S, rhs=CKA_S * sp.sqrt(PR_X * PR_Y),
             symbolic=False, points=16),
        Step("tr(Y^T X X^T Y) = ||X^T Y||_F^2", lhs=_tr(Ys.T * Xs * Xs.T * Ys), rhs=sum(v**2 for v in (Xs.T * Ys))),
        Step("PR (the entry, centered data) = (sum lambda_i)^2 / sum lambda_i^2 over the eigenvalues of C_X",
             lhs=lambda X, Y: pr(X=X), rhs=_pr_eig, search=_data_points, rtol=PR_RTOL, tol_source=PR_SOURCE),
        Step("CKA (the entry) = HSIC(K, L)/sqrt(HSIC(K, K) HSIC(L, L)) (Kornblith et al.; exact, n x n Gram)",
             lhs=lambda X, Y: cka_entry(X=X, Y=Y), rhs=_cka_reference, search=_data_points, tol=CKA_TOL,
             tol_source=CKA_SOURCE),
        Step("ENSD (the entry) = CKA sqrt(PR(X) PR(Y)) (the entries, at data)",
             lhs=lambda X, Y: ensd_entry(X=X, Y=Y), rhs=_ensd_factored, search=_data_points, rtol=ENSD_RTOL,
             tol_source=ENSD_SOURCE),
        Step("ENSD (the entry) = the seed's trace formula with n x n centered Gram matrices (exact)",
             lhs=lambda X, Y: ensd_entry(X=X, Y=Y), rhs=_ensd_reference, search=_data_points, rtol=ENSD_RTOL + PR_RTOL,
             tol_source=ENSD_SOURCE + "; plus the cross term ||X^T Y||_F^2's relative error, bounded like PR's "
                                      "Gram norm where X^T Y does not cancel (the search points)"),
    ) + CLAIM_STEPS),
)
