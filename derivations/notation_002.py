"""The notation map of features-are-fate (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_002:NOTATION', so declaring the paper imports nothing of it.
"""
import sympy as sp

from theorylab.authoring import NotationMap

from . import notation_002_b

__all__ = ["NOTATION"]

_g, _s = sp.Symbol("gamma", positive=True), sp.Symbol("sigma", nonnegative=True)
NOTATION = NotationMap(rewrites=notation_002_b.REWRITES + (
    # (14): E_D R_sc is the scratch risk of (8), as the text defines it
    (r"\mathbb{E}_{\mathcal{D}}\mathcal{R}_{\mathrm{sc}}", r"R_{sc}"),
    # (31): ||f - g||^2 is the entry's argument dist_sq
    (r"\|f - g\|_{L_2(p)}^2", r"\Delta"),
    # (150): u_ij is the cosine u (the display's own 'u(pi - arccos u_ij)' is u_ij times, not u applied)
    (r"u_{ij}", "u"),
), symbols={
    "R_{sc}": sp.Piecewise((((1 - _g) ** 2 + _g * _s**2) / (1 - _g), _g < 1), (_s**2 / (_g - 1), True)),
    "\\Delta": sp.Symbol("dist_sq", nonnegative=True),
    "u": sp.Symbol("u", real=True),
    "n": sp.Symbol("n", integer=True, positive=True),               # n(2n)^{n/2} is n times, never n applied
    # S_{n-1}: the area of the unit sphere in R^n, as the text after (114) says
    "S": lambda k: 2 * sp.pi ** ((k + 1) / 2) / sp.gamma((k + 1) / 2),
    "\\Gamma": sp.gamma,
    **notation_002_b.SYMBOLS,
})
