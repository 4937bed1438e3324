"""relu: the PT+FT penalty of a shallow ReLU network's hidden unit, via a quartic (seed 001, Sec. 1) -- the family
module named by the paper record: ENTRIES (relu_entries), DERIVATIONS (relu_proofs, the record's `derivations`
module, built only when a command decides steps), numerics in relu_solver.

Entries quartic, stationary_points, penalty, penalty_aux, log_slope; the derivation of eqs (2)-(11) and the
claims of Sec. 1.2, with the seed's errata (the definition of rho, the divergence at u -> 0, the uniqueness of
the positive root, the log-derivative) checked as steps that must fail.
"""
from __future__ import annotations

import numpy as np

from .relu_entries import (ENTRIES, FIG_GAMMAS, SEED, _kwargs_strategy, _quartic_reference, log_slope, penalty, penalty_aux,
                           quartic, stationary_points)
from .relu_solver import (_direct_minimize, _mp_minimize, _stationary_reference, log_slope_reference, minimize_p,
                          penalty_reference, positive_root_count, stationary_points_exact)

__all__ = ["ENTRIES", "SEED", "FIG_GAMMAS", "figure1_data", "quartic", "stationary_points", "penalty", "penalty_aux",
           "log_slope", "minimize_p", "penalty_reference", "log_slope_reference", "stationary_points_exact",
           "positive_root_count",
           "_direct_minimize", "_mp_minimize", "_stationary_reference", "_quartic_reference", "_kwargs_strategy"]


# entries with no evidence check, and why (theorylab mutate --view coverage)
NO_EVIDENCE = {
    "relu.quartic": ("the coefficients of a polynomial identity ((u^3/2) p'(u)), not an observable: no experiment "
                     "measures them; their consequences (stationary points, the penalty) are what the checks test"),
}


def figure1_data(ms=None, rhos=(1.0, 0.99, 0.9), m_aux=(0.01, 1.0, 100.0), gamma: float = 0.0) -> dict:
    """r~ and d log r~/d log m for Fig. 1a/1b of the paper (the theory curves the report draws; no check or torch is imported for them), Sec. 1.2: arrays of shape (len(rhos), len(m_aux), len(ms)).

    gamma = 0 by default: the seed only says the readout starts at "a small value gamma" and describes Fig. 1b with
    slopes between 1 and 2; any gamma > 0 puts a zero of r~ at m = gamma sqrt(m_aux) for rho = 1 (slope -> +-inf
    there) and, for gamma m > 0 and tiny m, a second local minimum of p. The log-slope is NaN where it is undefined
    (r~ = 0, or two local minima tie). Pass gamma=0.01 for the small-initialization variant.
    """
    ms = np.logspace(-2, 2, 401) if ms is None else np.asarray(ms, dtype=float)
    R, A, Mv = np.meshgrid(np.asarray(rhos, float), np.asarray(m_aux, float), ms, indexing="ij")
    res = minimize_p(Mv, np.sqrt(A), R, gamma, m0sq=A)
    slope = np.where((res["value"] > 0) & (res["gap"] > 1e-13), res["slope"], np.nan)
    return {"m": ms, "rho": tuple(rhos), "m_aux": tuple(m_aux), "gamma": gamma, "penalty": res["value"],
            "log_slope": slope}
