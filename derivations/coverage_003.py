"""Coverage of seed 003 ("An Adaptive Tangent Feature Perspective of Neural Networks"): every labelled equation and
numbered statement, in the paper's order. Labels not cited by a checked step of the omega family's derivations
(derivations/omega.py, derivations/omega_proofs.py) are declared here with a reason."""
from __future__ import annotations

from theorylab.authoring import Account


LABELS = (
    "(1)", "(2)", "(3)", "(4)", "(5)", "(6)", "(7)", "Theorem 1", "(8)", "(9)", "(10)", "(11)", "(12)", "(13)",
    "Theorem 2", "(14)", "(15)", "(16)", "(17)", "(18)", "Proposition 3", "(19)", "(20)", "(21)", "(22)",
    "Proposition 4", "(23)", "(24)", "(25)", "(26)", "Lemma 5", "(27)", "(28)", "(29)", "(30)", "(31)", "(32)",
)

ACCOUNTS = (
    Account("(1)", "definition", "the training problem: empirical risk sum_i loss(y_i, f_theta(x_i)) minimized over "
                                 "theta in R^P (the setting; no claim)"),
    Account("(3)", "definition", "the minimum-norm interpolation problem of the linearized model (the fixed tangent "
                                 "feature / NTK problem the paper contrasts with (4)); it states a problem, not a "
                                 "value"),
    Account("(4)", "definition", "the adaptive feature learning problem (M-hat, theta-hat) = argmin Omega(M) + "
                                 "||theta - theta0||^2 s.t. interpolation with features grad f0 M; its reduction to "
                                 "(5) is checked by the steps citing (5) and Theorem 1"),
    Account("(6)", "definition", "the spectral penalty Omega_omega(M) = sum_j omega(sigma_j(M)) (entry "
                                 "omega.spectral_penalty evaluates its effective version (12))"),
    Account("(10)", "definition", "Model A: the structured tangent-feature transformation of layer l, "
                                  "grad_W f-bar = M^(2) grad_W f0 M^(1), i.e. W -> M^(1) W M^(2) (a modelling "
                                  "choice; its consequences (13)-(18) are checked)"),
)
