"""Seed 002, App. B.2-B.4 (eqs (32)-(87)): the conservation law, the rank-one bounds behind Lemma B.1 and Theorem 3.4,
and the convergence of Theorem 3.5, transcribed as steps (relations decided by the engine)."""
from __future__ import annotations

DERIVATIONS: tuple = ()
