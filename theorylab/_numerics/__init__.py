"""Numerics: kernels (SymPy printers), the shared solvers, Monte Carlo, training, sweeps (private; imports records)."""
