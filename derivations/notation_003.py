"""The notation map of adaptive-tangent (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_003:NOTATION', so declaring the paper imports nothing of it.
"""

from theorylab.authoring import NotationMap

__all__ = ["NOTATION"]

NOTATION = NotationMap(rewrites=(
    # (22) per coordinate, in the one-coordinate instance of its steps ('A.1, (22): min_m m^2 + b^2/m^2 = 2b'):
    # beta_j is their b, the sum over j = 1..P its one term, ||beta||_1 = |b|
    (r"\widetilde{\Omega}({\bm{\beta}})=\sum_{j=1}^{P}2|\beta_{j}|=2\|{\bm{\beta}}\|_{1}",
     r"\widetilde{\Omega}(b)=2|b|=2|b|"),
))
