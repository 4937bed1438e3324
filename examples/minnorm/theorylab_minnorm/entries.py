"""Entries and derivations of the minimum-norm least-squares paper (HMRT 2022, Theorem 1, isotropic features).

Model: x ~ N(0, I_d), y = x^T beta + eps with ||beta|| = r and noise variance sigma^2; n samples; the estimator is
the minimum-norm least-squares solution beta_hat = X^+ y; the risk is E (x^T beta_hat - x^T beta)^2 = ||beta_hat - beta||^2.
Ridge regression (penalty lambda > 0) is its regularized counterpart: its risk is written with the Stieltjes
transform m of the Marchenko-Pastur law, an entry used as a function, m(-lambda) and m'(-lambda), and tends to the
minimum-norm risk as lambda -> 0.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import Constraint, Derivation, Entry, Source, Step, integer, scalar


# -- parameters: kinds, domains (a bad value is a one-line DomainError naming the parameter) -----------------
GAMMA = scalar("gamma", "aspect ratio d/n", low=0, low_open=True, high=1e6, exclude=(1,),
               exclude_why="the risk diverges at the interpolation threshold")
GAMMA_UNDER = scalar("gamma", "aspect ratio d/n < 1", low=0, high=1, low_open=True, high_open=True)
R = scalar("r", "signal norm ||beta||", low=0, high=1e3)
SIGMA = scalar("sigma", "noise standard deviation", low=0, high=1e3)
N = integer("n", "number of samples", low=1, high=10**9)
D = integer("d", "number of features", low=1, high=10**9)
gamma, r, sigma, n, d = GAMMA.symbol, R.symbol, SIGMA.symbol, N.symbol, D.symbol
x = sp.Symbol("x", positive=True)

# -- closed forms, as the paper writes them -----------------------------------------------------------------
UNDER = sigma**2 * gamma / (1 - gamma)                         # gamma < 1: variance only
OVER = r**2 * (1 - 1 / gamma) + sigma**2 / (gamma - 1)           # gamma > 1: bias + variance
RISK = sp.Piecewise((UNDER, gamma < 1), (OVER, True))
# 1 - 1/gamma loses digits as gamma -> 1+ (1/gamma is rounded first); (gamma - 1)/gamma is exact to an ulp there
RISK_STABLE = sp.Piecewise((UNDER, gamma < 1), (r**2 * (gamma - 1) / gamma + sigma**2 / (gamma - 1), True))

FINITE = sp.Piecewise((sigma**2 * d / (n - d - 1), n > d + 1),
                      (r**2 * (1 - n / d) + sigma**2 * n / (d - n - 1), True))
FINITE_STABLE = sp.Piecewise((sigma**2 * d / (n - d - 1), n > d + 1),
                             (r**2 * (d - n) / d + sigma**2 * n / (d - n - 1), True))

# the Marchenko-Pastur law of X^T X / n (d/n -> gamma < 1): density on [a, b]
MP_A, MP_B = (1 - sp.sqrt(gamma)) ** 2, (1 + sp.sqrt(gamma)) ** 2
MP_DENSITY = sp.sqrt((MP_B - x) * (x - MP_A)) / (2 * sp.pi * gamma * x)
INVERSE_MOMENT = 1 / (1 - gamma)


def _mp_inverse_moment(gamma):
    """int x^-1 dMP_gamma(x) by mpmath quadrature of the Marchenko-Pastur density (50 digits), an independent
    route: x = a + u^2 removes the square root at the lower edge a = (1 - sqrt gamma)^2, and breakpoints at
    sqrt(a) 10^j resolve the peak of 1/x^2 there as gamma -> 1."""
    with mpmath.workdps(50):
        g = mpmath.mpf(gamma)
        a = (1 - mpmath.sqrt(g)) ** 2     # the lower edge; the upper is (1 + sqrt g)^2 = a + top^2
        top = 2 * mpmath.root(g, 4)        # sqrt(b - a), without the cancellation; u = top v, v in [0, 1]
        edge = mpmath.sqrt(a) / top
        points = [mpmath.mpf(0)] + [edge * mpmath.mpf(10) ** j for j in range(-2, 40) if edge * 10 ** j < 1] + [1]
        f = lambda v: mpmath.sqrt(1 - v * v) * v * v / (a + top**2 * v * v) ** 2  # noqa: E731
        return top**4 / (mpmath.pi * g) * mpmath.quad(f, points)


def _inverse_moment_reference(gamma):
    """int x^-1 dMP_gamma(x) by mpmath quadrature of the Marchenko-Pastur density (see _mp_inverse_moment)."""
    return float(_mp_inverse_moment(gamma))


def _risk_reference(gamma, r, sigma):
    """The limit by the Marchenko-Pastur route, by quadrature: sigma^2 gamma int x^-1 dMP_gamma for gamma < 1
    (tr (X^T X)^-1); r^2 (1 - 1/gamma) + (sigma^2/gamma) int x^-1 dMP_(1/gamma) for gamma > 1 (tr (X X^T)^-1)."""
    with mpmath.workdps(50):
        g = mpmath.mpf(gamma)
        if g < 1:
            return float(mpmath.mpf(sigma) ** 2 * g * _mp_inverse_moment(g))
        return float(mpmath.mpf(r) ** 2 * (g - 1) / g + mpmath.mpf(sigma) ** 2 / g * _mp_inverse_moment(1 / g))


def _inverse_chi2(k):
    """E 1/chi^2_k by quadrature of 1/t against the chi-square density (log-density, breakpoints around its mode)."""
    with mpmath.workdps(30):
        k = mpmath.mpf(k)
        f = lambda t: mpmath.exp((k / 2 - 2) * mpmath.log(t) - t / 2 - (k / 2) * mpmath.log(2)  # noqa: E731
                                 - mpmath.loggamma(k / 2))
        w = mpmath.sqrt(2 * k)
        marks = sorted({max(k - 2 + c * w, 0) for c in (-40, -10, -3, 0, 3, 10, 40)} - {0})
        return mpmath.quad(f, [0, *marks, mpmath.inf])


def _finite_reference(n, d, r, sigma):
    """Exact finite-size risk by quadrature of inverse chi-square moments (Bartlett: each diagonal entry of an inverse
    Wishart matrix is 1/chi^2): sigma^2 d E 1/chi^2_(n-d+1), or r^2 (1 - n/d) + sigma^2 n E 1/chi^2_(d-n+1)."""
    n, d = int(n), int(d)
    with mpmath.workdps(30):
        if n > d:
            return float(mpmath.mpf(sigma) ** 2 * d * _inverse_chi2(n - d + 1))
        return float(mpmath.mpf(r) ** 2 * mpmath.mpf(d - n) / d + mpmath.mpf(sigma) ** 2 * n * _inverse_chi2(d - n + 1))


def _finite_ok(values):
    nn, dd = values["n"], values["d"]
    if np.any((nn >= dd - 1) & (nn <= dd + 1)):
        return (f"n and d must satisfy n < d - 1 or n > d + 1 (the expected risk is infinite otherwise); "
                f"got n={nn}, d={dd}")
    return None


# -- ridge regression: the Stieltjes transform m of the Marchenko-Pastur law, then the risk written with it ---------
LAM = scalar("lam", "ridge penalty lambda", low=0, low_open=True, high=1e12, tex=r"\lambda")
GAMMA_RIDGE = scalar("gamma", "aspect ratio d/n (lambda > 0: gamma = 1 is allowed)", low=0, low_open=True, high=1e6)
ZNEG = scalar("z", "a point of the negative real axis", low=-1e12, high=0, high_open=True)
lam, z = LAM.symbol, ZNEG.symbol   # positive, negative: the assumptions come from the declared domains

# m(z) = int dMP_gamma(x)/(x - z), the law of X^T X/n with its atom 1 - 1/gamma at 0 for gamma > 1: the root of
# gamma z m^2 + (z - 1 + gamma) m + 1 = 0 that is positive on z < 0
STIELTJES = (1 - gamma - z - sp.sqrt((1 - gamma - z) ** 2 - 4 * gamma * z)) / (2 * gamma * z)
# float64: with a = (1 - gamma) - z (1 - gamma first: exact near gamma = 1, then the tiny -z added; SymPy's own order
# -gamma - z + 1 loses -z there) and s = sqrt(a^2 - 4 gamma z), m = 2/(a + s) for a >= 0 and (s - a)/(-2 gamma z)
# otherwise: no cancellation on either side. evaluate=False keeps the order in the kernels.
A_Z = sp.Add(sp.Add(1, -gamma, evaluate=False), -z, evaluate=False)
S_Z = sp.sqrt(sp.Add(A_Z**2, -4 * gamma * z, evaluate=False))
STIELTJES_STABLE = sp.Piecewise((2 / sp.Add(A_Z, S_Z, evaluate=False), A_Z >= 0),
                                (sp.Add(S_Z, sp.Mul(-1, A_Z, evaluate=False), evaluate=False) / (-2 * gamma * z), True))


def _mp_quad(f, a, top, shift):
    """int_0^1 f(v) dv on the Marchenko-Pastur substitution x = a + top^2 v^2, with breakpoints at
    sqrt(a + shift)/top 10^j (the peak of 1/(x + shift) near the lower edge), relative to f(1/2): mpmath's quadrature
    stops at an absolute error of 10^-dps, so an integrand of size 1e-60 would keep few correct digits."""
    edge = mpmath.sqrt(a + shift) / top
    points = [mpmath.mpf(0)] + [edge * mpmath.mpf(10) ** j for j in range(-2, 40) if edge * 10 ** j < 1] + [1]
    scale = f(mpmath.mpf(1) / 2)
    return scale * mpmath.quad(lambda v: f(v) / scale, points) if scale else mpmath.mpf(0)


def _mp_stieltjes(z, gamma):
    """int dMP_gamma(x)/(x - z) at z < 0 by mpmath quadrature of the Marchenko-Pastur density (50 digits), plus the
    atom (1 - 1/gamma)/(-z) at 0 for gamma > 1: x = a + top^2 v^2 removes the square root at the lower edge, and
    breakpoints at sqrt(a - z)/top 10^j resolve the peak of 1/(x - z) there (see _mp_quad)."""
    with mpmath.workdps(50):
        g, zz = mpmath.mpf(gamma), mpmath.mpf(z)
        a = (1 - mpmath.sqrt(g)) ** 2
        top = 2 * mpmath.root(g, 4)
        f = lambda v: mpmath.sqrt(1 - v * v) * v * v / ((a + top**2 * v * v) * (a + top**2 * v * v - zz))  # noqa: E731
        atom = (1 - 1 / g) / -zz if g > 1 else 0
        return top**4 / (mpmath.pi * g) * _mp_quad(f, a, top, -zz) + atom


def _stieltjes_reference(z, gamma):
    """int dMP_gamma(x)/(x - z) by quadrature of the Marchenko-Pastur density, with its atom (see _mp_stieltjes)."""
    return float(_mp_stieltjes(z, gamma))


def _ridge_reference(lam, gamma, r, sigma):
    """The ridge risk by quadrature: r^2 (1 - 1/gamma)^+ (the atom at 0) + int (r^2 lam^2 + sigma^2 gamma x)/(x + lam)^2
    over the continuous part of the Marchenko-Pastur law (the substitution of _mp_stieltjes; the bias and variance
    integrals apart, each relative to its own size)."""
    with mpmath.workdps(50):
        g, la, rr, ss = mpmath.mpf(gamma), mpmath.mpf(lam), mpmath.mpf(r), mpmath.mpf(sigma)
        a = (1 - mpmath.sqrt(g)) ** 2
        top = 2 * mpmath.root(g, 4)
        x = lambda v: a + top**2 * v * v  # noqa: E731
        w = lambda v: mpmath.sqrt(1 - v * v) * v * v / x(v)  # noqa: E731 - the density, times x, in v
        bias = _mp_quad(lambda v: w(v) * (la / (x(v) + la)) ** 2, a, top, la)
        variance = _mp_quad(lambda v: w(v) * x(v) / (x(v) + la) ** 2, a, top, la)
        atom = rr**2 * (1 - 1 / g) if g > 1 else 0
        return float(top**4 / (mpmath.pi * g) * (rr**2 * bias + ss**2 * g * variance) + atom)


SOURCE_FILE = "hmrt2022"
ENTRIES = (
    Entry(id="minnorm.risk", title="Limiting risk of minimum-norm least squares (isotropic features)",
          source=Source(SOURCE_FILE, "Theorem 1, eqs (9)-(10)"),
          doc=("lim E||beta_hat - beta||^2 as n, d -> oo with d/n -> gamma: sigma^2 gamma/(1 - gamma) below the "
               "interpolation threshold, r^2 (1 - 1/gamma) + sigma^2/(gamma - 1) above it (double descent)."),
          params=(GAMMA, R, SIGMA), lhs=r"R(\gamma)", formula=RISK, stable_form=RISK_STABLE,
          reference=np.vectorize(_risk_reference, otypes=[float]),
          # the paper's own order of terms, kept by evaluate=False; checked equal to the formula (display_step)
          display=sp.Piecewise((sp.Mul(sigma**2, gamma, evaluate=False) / sp.Add(1, -gamma, evaluate=False), gamma < 1),
                               (sp.Add(r**2 * sp.Add(1, -1 / gamma, evaluate=False),
                                       sigma**2 / sp.Add(gamma, -1, evaluate=False), evaluate=False), True)),
          conditions=(r"\gamma \neq 1",)),
    Entry(id="minnorm.risk_finite", title="Exact risk at finite n, d (Gaussian features)",
          source=Source(SOURCE_FILE, "Sec. 2 (exact finite-sample form; inverse-Wishart moments)"),
          doc=("E||beta_hat - beta||^2 = sigma^2 d/(n - d - 1) for n > d + 1 and r^2 (1 - n/d) + sigma^2 n/(d - n - 1) "
               "for d > n + 1: the finite-size form whose d/n -> gamma limit is minnorm.risk."),
          params=(N, D, R, SIGMA), lhs=r"\E\,\|\hat\beta - \beta\|^2", formula=FINITE, stable_form=FINITE_STABLE,
          reference=np.vectorize(_finite_reference, otypes=[float]),
          constraints=(Constraint(_finite_ok, "n < d - 1 or n > d + 1"),),
          conditions=(r"n < d - 1 \text{ or } n > d + 1",)),
    Entry(id="minnorm.inverse_moment", title="Inverse moment of the Marchenko-Pastur law",
          source=Source(SOURCE_FILE, "Sec. 2, proof of Theorem 1 (Stieltjes transform at 0)"),
          doc="int x^-1 dMP_gamma(x) = 1/(1 - gamma) for gamma < 1: the limit of (1/d) tr (X^T X / n)^-1.",
          params=(GAMMA_UNDER,), lhs=r"\int x^{-1}\, d\mathrm{MP}_\gamma(x)", formula=INVERSE_MOMENT,
          reference=np.vectorize(_inverse_moment_reference, otypes=[float])),
    Entry(id="minnorm.stieltjes", title="Stieltjes transform of the Marchenko-Pastur law",
          source=Source(SOURCE_FILE, "Sec. 2 and ridge regularization (the Marchenko-Pastur Stieltjes transform)"),
          doc=("m(z) = int dMP_gamma(x)/(x - z) on z < 0, the law of X^T X/n with its atom 1 - 1/gamma at 0 for "
               "gamma > 1: the positive root of gamma z m^2 + (z - 1 + gamma) m + 1 = 0. m(0-) = 1/(1 - gamma) for "
               "gamma < 1 is minnorm.inverse_moment."),
          params=(ZNEG, GAMMA_RIDGE), lhs="m(z)", formula=STIELTJES, stable_form=STIELTJES_STABLE,
          reference=np.vectorize(_stieltjes_reference, otypes=[float])),
)

# m as a function of the formulas below: m(-lambda) and m'(-lambda) print as the paper writes them, the kernels
# call m's own kernel, and m' has a stable form written with m (m' = m (1 + gamma m)/s, every term positive)
M = ENTRIES[3].as_function("m", of="z", derivatives={1: lambda m: m(z) * (1 + gamma * m(z)) / S_Z})
M1 = M.derivative()
# the paper's form of the ridge risk: bias r^2 lambda^2 m'(-lambda), variance sigma^2 gamma (m(-lambda) - lambda m'(-lambda))
RIDGE = r**2 * lam**2 * M1(-lam) + sigma**2 * gamma * (M(-lam) - lam * M1(-lam))
# float64, every term positive and nothing overflowing (m(-lambda) ~ (1 - 1/gamma)/lambda reaches 1e308 as
# lambda -> 0 for gamma > 1, so the kernel works with lambda m <= 1): the bias r^2 lambda^2 m' = r^2 (lambda m)
# (lambda + gamma lambda m)/s by the formula for m' above; the variance's m - lambda m' cancels for large lambda and
# equals m (s - b)/(2 s) with b = (gamma - 1) + lambda, where s - b = 4 lambda/(s + b) for b > 0
# (s = sqrt(a^2 + 4 gamma lambda), a = (1 - gamma) + lambda, as above at z = -lambda)
S_L = S_Z.xreplace({z: -lam})
B_L = sp.Add(sp.Add(gamma, -1, evaluate=False), lam, evaluate=False)
LAM_M = lam * M(-lam)
RIDGE_STABLE = (r**2 * LAM_M * sp.Add(lam, gamma * LAM_M, evaluate=False) / S_L
                + sigma**2 * gamma * sp.Piecewise(
                    (2 * LAM_M / (sp.Add(S_L, B_L, evaluate=False) * S_L), B_L > 0),
                    (M(-lam) * sp.Add(S_L, sp.Mul(-1, B_L, evaluate=False), evaluate=False) / (2 * S_L), True)))

ENTRIES += (
    Entry(id="minnorm.ridge_risk", title="Limiting risk of ridge regression (isotropic features)",
          source=Source(SOURCE_FILE, "ridge regularization, isotropic features (Stieltjes-transform form)"),
          doc=("lim E||beta_hat_lambda - beta||^2 for ridge with penalty lambda > 0: r^2 lambda^2 m'(-lambda) + "
               "sigma^2 gamma (m(-lambda) - lambda m'(-lambda)), written with the Stieltjes transform m "
               "(minnorm.stieltjes); lambda -> 0 gives minnorm.risk."),
          params=(LAM, GAMMA_RIDGE, R, SIGMA), lhs=r"R_\lambda(\gamma)", formula=RIDGE, stable_form=RIDGE_STABLE,
          reference=np.vectorize(_ridge_reference, otypes=[float]),
          # the paper's order of terms (evaluate=False), checked equal to the formula like any display
          display=sp.Add(sp.Mul(r**2, lam**2, M1(-lam), evaluate=False),
                         sp.Mul(sigma**2, gamma, sp.Add(M(-lam), sp.Mul(-1, lam, M1(-lam), evaluate=False),
                                                        evaluate=False), evaluate=False), evaluate=False)),
)

# -- the derivation: inverse-Wishart moments (exact in n, d) -> the proportional limit ---------------------
k = sp.Symbol("k", positive=True, integer=True)       # degrees of freedom minus 2
t = sp.Symbol("t", positive=True)
inv_chi2 = sp.Symbol("m_k", positive=True)            # E 1/chi^2_(k+2), a name for the Subs steps
trace_p = sp.Symbol("T", positive=True)              # tr P, the rank of the projection onto the row space
CHI2_DENSITY = t ** (k / 2) * sp.exp(-t / 2) / (2 ** (k / 2 + 1) * sp.gamma(k / 2 + 1))  # chi^2 with k + 2 dof

DERIVATIONS = (Derivation(
    key="minnorm.risk", title="From inverse-Wishart moments to the double-descent curve", source=SOURCE_FILE,
    where="Theorem 1 and Sec. 2", entries=("minnorm.risk", "minnorm.risk_finite", "minnorm.inverse_moment"),
    steps=(
        Step("E 1/chi^2_(k+2) = 1/k", lhs=sp.Integral(CHI2_DENSITY / t, (t, 0, sp.oo)), rhs=1 / k,
             why="the inverse moment of a chi-square variable with k + 2 degrees of freedom"),
        Step("n > d + 1: E tr (X^T X)^-1 = d E 1/chi^2_(n-d+1) = d/(n - d - 1)",
             lhs=sp.Subs(d * inv_chi2, inv_chi2, sp.Subs(1 / k, k, n - d - 1)), rhs=d / (n - d - 1),
             why="Bartlett: each diagonal entry of an inverse Wishart_d(n, I) matrix is 1/chi^2_(n-d+1)",
             premises=("E 1/chi^2_(k+2) = 1/k",)),
        Step("d > n + 1: E||(I - P) beta||^2 = r^2 (1 - n/d)",
             lhs=sp.Subs(r**2 - r**2 * trace_p / d, trace_p, n), rhs=r**2 * (1 - n / d),
             why="P projects on the row space of X, uniformly rotated, so E P = (tr P / d) I with tr P = n"),
        Step("the stable form of the finite-size risk equals the paper's", lhs=FINITE_STABLE, rhs=FINITE),
        Step("Marchenko-Pastur: int x^-1 dMP_gamma = 1/(1 - gamma)",
             lhs=sp.Integral(MP_DENSITY / x, (x, MP_A, MP_B)), rhs=INVERSE_MOMENT, domain={gamma: (0.05, 0.95)},
             symbolic=False, points=6, why="(1/d) tr (X^T X/n)^-1 -> the inverse moment of the limiting law"),
        Step("gamma < 1: lim sigma^2 d/(n - d - 1) at d = gamma n is sigma^2 gamma int x^-1 dMP_gamma",
             lhs=sp.Limit((sigma**2 * d / (n - d - 1)).subs(d, gamma * n), n, sp.oo),
             rhs=sigma**2 * gamma * INVERSE_MOMENT, premises=("Marchenko-Pastur: int x^-1 dMP_gamma = 1/(1 - gamma)",)),
        Step("gamma > 1: lim r^2 (1 - n/d) + sigma^2 n/(d - n - 1) at d = gamma n",
             lhs=sp.Limit((r**2 * (1 - n / d) + sigma**2 * n / (d - n - 1)).subs(d, gamma * n), n, sp.oo), rhs=OVER),
        Step("the stable form of the limiting risk equals the paper's (gamma > 1)",
             lhs=r**2 * (gamma - 1) / gamma + sigma**2 / (gamma - 1), rhs=OVER),
    )),
    # ridge: m as a function in every step (m(z).doit() is its formula: SymPy proves through it)
    Derivation(
        key="minnorm.ridge", title="Ridge regression through the Stieltjes transform, and its ridgeless limit",
        source=SOURCE_FILE, where="ridge regularization", entries=("minnorm.stieltjes", "minnorm.ridge_risk"),
        steps=(
            Step("m solves gamma z m^2 + (z - 1 + gamma) m + 1 = 0", lhs=gamma * z * M(z) ** 2 + (z - 1 + gamma) * M(z) + 1,
                 rhs=0, why="the Marchenko-Pastur equation for the Stieltjes transform of X^T X/n"),
            Step("the stable form of m equals the paper's", lhs=STIELTJES_STABLE, rhs=STIELTJES),
            Step("m'(z) = m(z) (1 + gamma m(z))/s: the kernels' derivative", lhs=M1(z), rhs=M(z) * (1 + gamma * M(z)) / S_Z,
                 why="differentiate the equation above; every term of the right side is positive on z < 0"),
            Step("the stable form of the ridge risk equals the paper's", lhs=RIDGE_STABLE, rhs=RIDGE, symbolic=False,
                 why="lambda^2 m' = (lambda m)(lambda + gamma lambda m)/s; m - lambda m' = m (s - b)/(2 s), "
                     "s - b = 4 lambda/(s + b) for b > 0"),
            Step("lambda -> 0 at gamma = 1/2: the minimum-norm risk sigma^2 gamma/(1 - gamma)",
                 lhs=sp.Limit(RIDGE.subs(gamma, sp.Rational(1, 2)), lam, 0, "+"), rhs=UNDER.subs(gamma, sp.Rational(1, 2))),
            Step("lambda -> 0 at gamma = 2: the minimum-norm risk r^2 (1 - 1/gamma) + sigma^2/(gamma - 1)",
                 lhs=sp.Limit(RIDGE.subs(gamma, 2), lam, 0, "+"), rhs=OVER.subs(gamma, 2)),
        )),
)
