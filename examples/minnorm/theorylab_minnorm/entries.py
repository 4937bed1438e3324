"""Entries and derivations of the minimum-norm least-squares paper (HMRT 2022, Theorem 1, isotropic features).

Model: x ~ N(0, I_d), y = x^T beta + eps with ||beta|| = r and noise variance sigma^2; n samples; the estimator is
the minimum-norm least-squares solution beta_hat = X^+ y; the risk is E (x^T beta_hat - x^T beta)^2 = ||beta_hat - beta||^2.
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
)

# -- the derivation: inverse-Wishart moments (exact in n, d) -> the proportional limit ---------------------
k = sp.Symbol("k", positive=True, integer=True)       # degrees of freedom minus 2
t = sp.Symbol("t", positive=True)
inv_chi2 = sp.Symbol("m_k", positive=True)            # E 1/chi^2_(k+2), a name for the Subs steps
trace_p = sp.Symbol("T", positive=True)              # tr P, the rank of the projection onto the row space
CHI2_DENSITY = t ** (k / 2) * sp.exp(-t / 2) / (2 ** (k / 2 + 1) * sp.gamma(k / 2 + 1))  # chi^2 with k + 2 dof

DERIVATIONS = (Derivation(
    key="minnorm.risk", title="From inverse-Wishart moments to the double-descent curve", seed=SOURCE_FILE,
    where="Theorem 1 and Sec. 2", entries=("minnorm.risk", "minnorm.risk_finite", "minnorm.inverse_moment"),
    steps=(
        Step("E 1/chi^2_(k+2) = 1/k", sp.Integral(CHI2_DENSITY / t, (t, 0, sp.oo)), 1 / k,
             why="the inverse moment of a chi-square variable with k + 2 degrees of freedom"),
        Step("n > d + 1: E tr (X^T X)^-1 = d E 1/chi^2_(n-d+1) = d/(n - d - 1)",
             sp.Subs(d * inv_chi2, inv_chi2, sp.Subs(1 / k, k, n - d - 1)), d / (n - d - 1),
             why="Bartlett: each diagonal entry of an inverse Wishart_d(n, I) matrix is 1/chi^2_(n-d+1)",
             premises=("E 1/chi^2_(k+2) = 1/k",)),
        Step("d > n + 1: E||(I - P) beta||^2 = r^2 (1 - n/d)",
             sp.Subs(r**2 - r**2 * trace_p / d, trace_p, n), r**2 * (1 - n / d),
             why="P projects on the row space of X, uniformly rotated, so E P = (tr P / d) I with tr P = n"),
        Step("the stable form of the finite-size risk equals the paper's", FINITE_STABLE, FINITE),
        Step("Marchenko-Pastur: int x^-1 dMP_gamma = 1/(1 - gamma)",
             sp.Integral(MP_DENSITY / x, (x, MP_A, MP_B)), INVERSE_MOMENT, domain={gamma: (0.05, 0.95)},
             symbolic=False, points=6, why="(1/d) tr (X^T X/n)^-1 -> the inverse moment of the limiting law"),
        Step("gamma < 1: lim sigma^2 d/(n - d - 1) at d = gamma n is sigma^2 gamma int x^-1 dMP_gamma",
             sp.Limit((sigma**2 * d / (n - d - 1)).subs(d, gamma * n), n, sp.oo),
             sigma**2 * gamma * INVERSE_MOMENT, premises=("Marchenko-Pastur: int x^-1 dMP_gamma = 1/(1 - gamma)",)),
        Step("gamma > 1: lim r^2 (1 - n/d) + sigma^2 n/(d - n - 1) at d = gamma n",
             sp.Limit((r**2 * (1 - n / d) + sigma**2 * n / (d - n - 1)).subs(d, gamma * n), n, sp.oo), OVER),
        Step("the stable form of the limiting risk equals the paper's (gamma > 1)",
             r**2 * (gamma - 1) / gamma + sigma**2 / (gamma - 1), OVER),
    )),)
