"""Theory curves of features-are-fate that figures draw and checks compare with (no check, no torch imported).

`ridge_finite` is the exact finite-n ridge transfer risk (125), whose n -> oo limit is transfer.ridge_transfer_risk.
"""
from __future__ import annotations

import math

from scipy import integrate, stats

__all__ = ["ridge_finite"]


def ridge_finite(n: int, theta: float, sigma: float, lam: float) -> float:
    """Exact finite-n ridge transfer risk (125): 1 + cos^2 I1(n+2) + (sin^2 + sigma^2) I1(n) - 2 cos^2 I2(n),
    with the chi-square(n) expectations done by quadrature."""
    # the chi-square(n) density written out (scipy.stats' pdf costs ~0.2 ms a call: a figure's curve is ~1e5 calls)
    k = n / 2
    log_norm = k * math.log(2.0) + math.lgamma(k)

    def pdf(r):
        return math.exp((k - 1) * math.log(r) - r / 2 - log_norm)

    lo, hi = stats.chi2(n).ppf(1e-15), stats.chi2(n).ppf(1 - 1e-15)

    def E(f):
        return integrate.quad(lambda r: f(r) * pdf(r), lo, hi, limit=200, epsabs=0, epsrel=1e-12)[0]

    c2, s2 = math.cos(theta) ** 2, math.sin(theta) ** 2
    I1n2 = E(lambda r: r * r / (r + n * lam) ** 2)
    I1n = E(lambda r: r / (r + n * lam) ** 2)
    I2n = E(lambda r: r / (r + n * lam))
    return 1 + c2 * I1n2 + (s2 + sigma**2) * I1n - 2 * c2 * I2n
