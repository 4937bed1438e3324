"""The evidence: one module per family, each exporting CHECKS (numeric, Monte Carlo, trained networks)."""
