"""Coverage of seed 000 (appendix of a paper on multi-task learning and pretraining+finetuning): every labelled
equation of its text, and how it is accounted for.

App. A, eqs (6)-(23): derivations qpenalty.gradient_flow and qpenalty.penalty (derivations/qpenalty.py).
App. B, eqs (24)-(35): derivation l12.reduction (derivations/l12.py).
App. G (participation ratio, ENSD) has no labelled equations; its text's claims are steps of measure.identities.
The seed has no numbered theorems, lemmas, propositions or corollaries.
"""
from theorylab.authoring import Account


LABELS = tuple(f"({n})" for n in range(6, 36))

ACCOUNTS = (
    Account("(12)", "not-checkable",
            "the label stands on an empty display ('$$(12)$$' between (11) and (13)): the text gives no equation "
            "under it, so there is nothing to transcribe or check"),
    Account("(24)", "definition",
            "defines the multi-output diagonal network f_w(x) = beta(w) x with beta in R^{O x D}; its "
            "parameterization (25) is used by the l12.reduction steps"),
)
