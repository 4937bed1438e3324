"""Frozen records that decide nothing: a paper, its parameters, evidence, figures, the run record (private)."""
