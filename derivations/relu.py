"""relu: the PT+FT penalty of a shallow ReLU network's hidden unit, via a quartic (seed 001, Sec. 1) -- the family
module named by the paper record: ENTRIES (relu_entries), DERIVATIONS (relu_proofs), numerics in relu_solver.

Entries quartic, stationary_points, penalty, penalty_aux, log_slope; the derivation of eqs (2)-(11) and the
claims of Sec. 1.2, with the seed's errata (the definition of rho, the divergence at u -> 0, the uniqueness of
the positive root, the log-derivative) checked as steps that must fail.
"""
from __future__ import annotations

from .relu_entries import (ENTRIES, SEED, _kwargs_strategy, _quartic_reference, log_slope, penalty, penalty_aux,
                           quartic, stationary_points)
from .relu_proofs import DERIVATIONS, FIG_GAMMAS
from .relu_solver import (_direct_minimize, _mp_minimize, _stationary_reference, log_slope_reference, minimize_p,
                          penalty_reference, positive_root_count, stationary_points_exact)

__all__ = ["ENTRIES", "DERIVATIONS", "SEED", "FIG_GAMMAS", "quartic", "stationary_points", "penalty", "penalty_aux",
           "log_slope", "minimize_p", "penalty_reference", "log_slope_reference", "stationary_points_exact",
           "positive_root_count",
           "_direct_minimize", "_mp_minimize", "_stationary_reference", "_quartic_reference", "_kwargs_strategy"]
