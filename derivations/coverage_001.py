"""Coverage of seed 001 (the follow-up note: the PT+FT penalty of shallow ReLU networks via a quartic): every
labelled equation, in the paper's order. The note has no numbered statements; every label (1)-(11) is stated as
printed by a step of the relu family's derivations (derivations/relu_proofs.py): it holds, or it is an erratum ((6):
the divergence at u -> 0+ for m = 0; (8): the definition of rho; (10): the 'unique' positive root). Where theorylab
also checks an amended statement ((6), (8), (10), (11)) the step declares its Amendment beside the printed one. So no
label needs an account here. Sec. 1.2 has no labels; its claims are the steps of relu.claims and the records of
verify/relu.py."""
from __future__ import annotations


LABELS = ("(1)", "(2)", "(3)", "(4)", "(5)", "(6)", "(7)", "(8)", "(9)", "(10)", "(11)")

ACCOUNTS = ()
