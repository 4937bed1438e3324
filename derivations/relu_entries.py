"""relu's entries (seed 001, Sec. 1): parameters with their Hypothesis strategies, the symbols of eqs (8)-(10),
and the records quartic, stationary_points, penalty, penalty_aux, log_slope.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from theorylab.authoring import Constraint, Entry, Source
from theorylab.authoring import DomainError, scalar
from .relu_solver import (_mp_minimize, _stationary_reference, log_slope_reference, minimize_p, penalty_reference,
                          stationary_points_exact)


SEED = "001_47508cf19f540f71.txt"
FIG_GAMMAS = (0.0, 0.01)   # the readout initialization of Fig. 1 is not stated: gamma = 0 and a small gamma

# ------------------------------------------------------------------------------------------------------
# parameters, strategies, entries
# ------------------------------------------------------------------------------------------------------


def _signed_magnitude(zero: bool = True):
    from hypothesis import strategies as st

    mag = st.floats(-8, 8).map(lambda e: 10.0**e)
    simple = st.sampled_from((1.0, 2.0, 3.0, 4.0, 0.5, 0.1))
    pos = st.one_of(mag, simple)
    signed = st.tuples(st.sampled_from((-1.0, 1.0)), pos).map(lambda t: t[0] * t[1])
    return st.one_of(st.just(0.0), signed) if zero else signed


def _rho_strategy():
    from hypothesis import strategies as st

    return st.one_of(st.sampled_from((1.0, -1.0, 0.0, 0.99, 0.9)), st.floats(-1.0, 1.0))


def _kwargs_strategy(m_name: str = "m", m0_name: str = "m0", nonzero_m: bool = False):
    """Valid inputs over the whole domain: signs of m and gamma, magnitudes 1e-8..1e8, rho in [-1, 1], simple
    values that hit the special points (ties, the triple root, the zero set)."""
    from hypothesis import strategies as st

    @st.composite
    def draw(d):
        m = d(_signed_magnitude(zero=not nonzero_m))
        m0 = abs(d(_signed_magnitude()))
        return {m_name: m, m0_name: m0 * m0 if m0_name == "m_aux" else m0, "rho": d(_rho_strategy()),
                "gamma": d(_signed_magnitude())}

    return draw()


m_p = scalar("m", "signed magnitude m_h = ||w_h^(1)|| w_h^(2) of the unit", tex="m")
m0_p = scalar("m0", "norm of the pretrained first-layer weights, ||w_0h^(1)||", low=0.0, tex="m_0")
rho_p = scalar("rho", "cosine between w_h^(1) and w_0h^(1)", low=-1.0, high=1.0, tex="rho")
gamma_p = scalar("gamma", "readout initialization (any real)", tex="gamma")
m_aux_p = scalar("m_aux", "pretraining coefficient of the feature; m0 = sqrt(m_aux)", low=0.0, tex="m^{aux}")
m_nonzero_p = scalar("m", "signed magnitude m_h (nonzero: log|m|)", exclude=(0.0,),
                     exclude_why="log|m| is undefined there", tex="m")
PARAMS = (m_p, m0_p, rho_p, gamma_p)

u = sp.Symbol("u", positive=True)
m, m0, rho, gamma = (p.symbol for p in PARAMS)
P_SEED = (m / u - gamma) ** 2 + u**2 + m0**2 - 2 * u * m0 * rho           # eq (8) (with the corrected rho)
P_STABLE = (m / u - gamma) ** 2 + (u - m0 * rho) ** 2 + m0**2 * (1 - rho) * (1 + rho)
DP_SEED = -2 * (m / u - gamma) * m / u**2 + 2 * u - 2 * m0 * rho          # eq (9)
QUARTIC_SEED = -m**2 + gamma * m * u - m0 * rho * u**3 + u**4              # eq (10)


def _quartic(m, m0, rho, gamma):
    m, m0, rho, gamma = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, m0, rho, gamma)))
    with np.errstate(over="ignore"):
        out = np.stack([np.ones_like(m), -(m0 * rho), np.zeros_like(m), gamma * m, -(m * m)], axis=-1)
    return out + 0.0  # no negative zeros


def _quartic_reference(m, m0, rho, gamma):
    """The coefficients of (u^3/2) p'(u) from p by exact rational polynomial arithmetic (fractions.Fraction): with
    P(u) = u^2 p(u) = (m - gamma u)^2 + u^2 (u^2 - 2 m0 rho u + m0^2), p = P/u^2 gives (u^3/2) p'(u) =
    (u P'(u) - 2 P(u))/2; the float inputs are exact rationals and each coefficient is rounded to float once."""
    def one(mm, a, r, g):
        mm, a, r, g = (Fraction(float(x)) for x in (mm, a, r, g))
        P = [mm * mm, -2 * mm * g, g * g + a * a, -2 * a * r, Fraction(1)]        # low degree first
        uP = [k * c for k, c in enumerate(P)]                                       # u P'(u)
        out = [(x - 2 * y) / 2 for x, y in zip(uP, P)][::-1]                        # highest degree first

        def flt(q):
            try:
                return float(q)
            except OverflowError:
                return math.inf if q > 0 else -math.inf  # (copysign would convert q to float again)
        return [flt(q) for q in out]

    b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (m, m0, rho, gamma)))
    vals = [one(*t) for t in zip(*(x.ravel() for x in b))]
    return np.array(vals).reshape(b[0].shape + (5,)) + 0.0


def _scalars_only(values):
    for name in ("m", "m0", "rho", "gamma"):
        if np.ndim(values[name]) != 0:
            return (f"{name} must be a real number (relu.stationary_points takes scalars: the number of roots "
                    f"varies from point to point); got {name} of shape {np.shape(values[name])}")
    return None


def _stationary_points(m, m0, rho, gamma):
    return stationary_points_exact(m, m0, rho, gamma)


def _penalty(m, m0, rho, gamma):
    return minimize_p(m, m0, rho, gamma, outputs=("value",))["value"]


def _penalty_aux(m, m_aux, rho, gamma):
    return minimize_p(m, np.sqrt(m_aux), rho, gamma, m0sq=m_aux, outputs=("value",))["value"]


def _penalty_aux_reference(m, m_aux, rho, gamma):
    """relu.penalty_aux by the defining minimization (6) solved directly in mpmath (`_direct_minimize`), with
    m0^2 = m_aux exact and m0 = sqrt(m_aux) at the working precision (not the float64 solver)."""
    return penalty_reference(m, math.sqrt(m_aux), rho, gamma, m0sq=m_aux)


def _where(values: dict, index) -> str:
    return ", ".join(f"{k}={float(np.asarray(v)[index] if np.ndim(v) else v)!r}" for k, v in values.items())


def _on_zero_set(m, m0, rho, gamma) -> bool:
    """r~ = 0 exactly: p = (m/u - gamma)^2 + (u - m0 rho)^2 + m0^2 (1 - rho^2) vanishes at some u > 0 iff
    rho = +-1 and u = m0 rho = m/gamma > 0, i.e. rho = 1 and m = gamma m0 (m0 > 0; m != 0 here), decided on the
    exact rational inputs (a float r~ of 0 may be an underflow: m = 2.2e-308, m0 = 1e300 has r~ ~ 5e-1216)."""
    return float(rho) == 1.0 and float(m) != 0 and Fraction(float(m)) == Fraction(float(gamma)) * Fraction(float(m0))


def _log_slope(m, m0, rho, gamma):
    res = minimize_p(m, m0, rho, gamma)
    vals = {"m": m, "m0": m0, "rho": rho, "gamma": gamma}
    b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in vals.values()))
    vals = dict(zip(vals, b))
    flat = [x.ravel() for x in b]
    slope = np.array(res["slope"], dtype=float).ravel()
    for j in np.flatnonzero(np.asarray(res["value"]).ravel() == 0):
        if _on_zero_set(*(x[j] for x in flat)):
            i = np.unravel_index(j, b[0].shape)
            raise DomainError(f"m, m0, rho, gamma must not give penalty 0 (rho = 1 and m = gamma*m0, the "
                              f"initialization itself: log 0 is undefined); got {_where(vals, i)}")
        if not np.isfinite(slope[j]):  # r~ > 0 below float64's range in scaled units too: exact inputs, mpmath
            slope[j] = float(_mp_minimize(flat[0][j], None, flat[1][j], flat[2][j], flat[3][j])["slope"])
    return slope.reshape(b[0].shape)


def _log_slope_strategy():
    """Inputs where the slope is defined (r~ > 0), away from the ties of two local minima (gap > 1e-6; the slope is
    defined there too, see the entry's doc, and the pinned examples hold a tie)."""
    def ok(kw):
        r = minimize_p(kw["m"], kw["m0"], kw["rho"], kw["gamma"], outputs=("value", "gap"))
        return bool(r["value"] > 0 and r["gap"] > 1e-6)

    return _kwargs_strategy(nonzero_m=True).filter(ok)


_DOMAIN_NOTE = ("m, m0, gamma of any size (each block is scaled by a power of two); points with |m| below "
                "1e-125 max(m0, |gamma|)^2, where the quartic leaves float64's joint range, go to mpmath (exact "
                "inputs, at a precision set by the spread of the roots: seconds a point, ~7 s at |gamma|/|m| ~ "
                "1e180, ~30 s at 1e300)")

quartic = Entry(
    id="relu.quartic", title="Coefficients of the stationarity quartic (10)", source=Source(SEED, "eq (10)"),
    doc=("[1, -m0 rho, 0, gamma m, -m^2], highest degree first: (u^3/2) p'(u) = u^4 - m0 rho u^3 + gamma m u - m^2. "
         "Array inputs give an array with a last axis of length 5."),
    params=PARAMS, lhs=r"\tfrac{u^3}{2}\,p'(u)", display=sp.latex(sp.expand(QUARTIC_SEED)),
    compute=_quartic, reference=_quartic_reference, value_doc="a vector of 5 coefficients",
    strategy_fn=lambda: _kwargs_strategy(),
)

stationary_points = Entry(
    id="relu.stationary_points", title="Positive stationary points of p: the positive roots of (10)",
    source=Source(SEED, "eq (10)"),
    doc=("The distinct positive real roots of u^4 - m0 rho u^3 + gamma m u - m^2, ascending (a double root once). "
         "One root unless m0 rho > 0 and gamma m > 0 (Descartes), then one or three. Counted exactly (Sturm's "
         "theorem on the rational inputs), values by mpmath on the square-free part; scalar inputs only."),
    params=PARAMS, lhs=r"\{u > 0 : p'(u) = 0\}", display=r"\{u>0 : " + sp.latex(sp.expand(QUARTIC_SEED)) + r" = 0\}",
    compute=_stationary_points, reference=_stationary_reference,
    constraints=(Constraint(_scalars_only, "scalar parameters"),),
    value_doc="a vector of 0 to 3 floats", strategy_fn=lambda: _kwargs_strategy(),
    examples=({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0}, {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0},
              {"m": 0.0, "m0": 2.0, "rho": 0.5, "gamma": 1.0}, {"m": 0.0, "m0": 2.0, "rho": -0.5, "gamma": 1.0}),
)

penalty = Entry(
    id="relu.penalty", title="PT+FT penalty of one ReLU unit: min over u > 0 of p(u)",
    source=Source(SEED, "eqs (6), (8), (11)"),
    doc=("r~ = inf_{u>0} (m/u - gamma)^2 + u^2 + m0^2 - 2 u m0 rho: the smallest squared distance from the "
         "pretrained unit (w0, gamma) to a unit with direction cosine rho and magnitude m. The global minimum over "
         "all positive roots of (10) (up to three; the seed's 'unique' root is not, see the errata); for m = 0 the "
         "infimum gamma^2 + m0^2 (1 - max(rho, 0)^2) (not attained for rho <= 0). r~ is discontinuous at m = 0 "
         "when |gamma| > m0 max(rho, 0): a tiny m of gamma's sign costs only m0^2. " + _DOMAIN_NOTE + "."),
    params=PARAMS, lhs=r"\tilde r(m)",
    display=r"\inf_{u>0}\, \left(\frac{m}{u}-\gamma\right)^2 + u^2 + m_0^2 - 2u m_0\rho",
    compute=_penalty, reference=penalty_reference,
    strategy_fn=lambda: _kwargs_strategy(),
    examples=({"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0}, {"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 3.0},
              {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0}, {"m": 0.01, "m0": 0.1, "rho": 1.0, "gamma": 0.1},
              {"m": 1e-130, "m0": 1.0, "rho": 1.0, "gamma": 0.0}, {"m": 1e-200, "m0": 0.0, "rho": 0.3, "gamma": 1.0},
              {"m": 2.0 + 2**-51, "m0": 1.0, "rho": 1.0, "gamma": 2.0},
              {"m": 0.0, "m0": 1.0, "rho": -0.5, "gamma": 2.0},
              {"m": 1e150, "m0": 1e-150, "rho": -1.0, "gamma": 1e70}),
)

penalty_aux = Entry(
    id="relu.penalty_aux", title="Penalty after pretraining: m0 = sqrt(m_aux)", source=Source(SEED, "Sec. 1.2"),
    doc=("relu.penalty with m0 = sqrt(m_aux), the first-layer norm of a unit whose pretraining coefficient is m_aux "
         "(min-norm pretraining balances the layers). The rounding of sqrt(m_aux) is carried (m0 + r/(2 m0)), "
         "so points near the zero set rho = 1, m = gamma sqrt(m_aux) keep their digits."),
    params=(m_p, m_aux_p, rho_p, gamma_p), lhs=r"\tilde r(m)",
    display=r"\inf_{u>0}\, \left(\frac{m}{u}-\gamma\right)^2 + u^2 + m^{aux} - 2u \sqrt{m^{aux}}\rho",
    compute=_penalty_aux, reference=_penalty_aux_reference,
    strategy_fn=lambda: _kwargs_strategy(m0_name="m_aux"),
    examples=({"m": 1.0, "m_aux": 2.0, "rho": 1.0, "gamma": 2**-0.5},
              {"m": 1.0, "m_aux": 100.0, "rho": 0.9, "gamma": 0.0}),
)

log_slope = Entry(
    id="relu.log_slope", title="Log-slope d log r~ / d log|m| (about 1: l1-like, about 2: l2-like)",
    source=Source(SEED, "Sec. 1.2, Fig. 1b"),
    doc=("By the envelope theorem dr~/dm = dp/dm at the minimizer u*, so d log r~/d log|m| = 2 (m/u* - gamma)(m/u*)/r~ "
         "(= 2 u*(u* - m0 rho)/r~ at a stationary point), exact, not a finite difference. Undefined (DomainError) "
         "only where r~ = 0 (rho = 1, m = gamma m0, decided on the exact inputs: an r~ below float64's range, e.g. "
         "at m = 2.2e-308, m0 = 1e300, rho = 1, gamma = 0, has a slope, there 2). Where two local minima tie the "
         "slope is defined too: p(u) - p(|m|/u) = 2 (sign(m) gamma - m0 rho)(u - |m|/u), and two local minima lie on "
         "either side of sqrt|m| (in s = sinh log(u/sqrt|m|) p is convex, concave, convex), so they tie only where "
         "gamma = sign(m) m0 rho; there p(|m|/u) = p(u) for every m of that sign, both minima give one smooth r~(m) "
         "and the same slope (the minimizer jumps across that set in gamma or rho, never in m). Near the triple root "
         "of (10) (m0 rho = 2 sqrt(m), gamma m = 2|m|^(3/2), where p''(u*) = 0) u* is ill-conditioned, but the "
         "compensated polish keeps the slope within ~1e-13 (measured down to p''(u*) ~ 1e-7)."),
    params=(m_nonzero_p, m0_p, rho_p, gamma_p), lhs=r"\frac{d\log\tilde r}{d\log|m|}",
    display=r"\frac{2\,(m/u^* - \gamma)\, m/u^*}{\tilde r(m)}",
    compute=_log_slope, reference=log_slope_reference, strategy_fn=_log_slope_strategy,
    examples=({"m": 1.0, "m0": 1.0, "rho": 0.99, "gamma": 0.0}, {"m": 1.0, "m0": 3.0, "rho": 1.0, "gamma": 4.0},
              {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0}, {"m": 1.0, "m0": 2.0, "rho": 1.0, "gamma": 2.0000001},
              {"m": -1.0, "m0": 1.0, "rho": 0.5, "gamma": -2.0}, {"m": 1e-130, "m0": 1.0, "rho": 1.0, "gamma": 0.0},
              # the joint neighbourhoods (#26): 2 (|gamma|/m)^(-4/3) = 2e-240 beside gamma^2 = 1e360 (the reference's
              # precision grows with gamma^2 + m0^2); r~ ~ (m/m0)^2 = 5e-1216 underflows, the slope is 2; a tie
              # (gamma = sign(m) m0 rho: p(|m|/u) = p(u)), slope -2e-12
              {"m": 1.0, "m0": 1.0, "rho": 0.99, "gamma": -1e180},
              {"m": -2.2250738585072014e-308, "m0": 1e300, "rho": 1.0, "gamma": 0.0},
              {"m": -1.0, "m0": 1e6, "rho": 1.0, "gamma": -1e6}),
)

ENTRIES = (quartic, stationary_points, penalty, penalty_aux, log_slope)
