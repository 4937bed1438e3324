"""The notation map of ptft-relu (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_001:NOTATION', so declaring the paper imports nothing of it.
"""
import re
import sympy as sp

from theorylab.authoring import NotationMap

__all__ = ["NOTATION"]

NOTATION = NotationMap(rewrites=(
    # the steps' unit: w_hat = (cos theta, sin theta), w_0h^(1) = (y_1, y_2) in d = 2 (relu_proofs.py)
    (r"\|\boldsymbol{w}_{0h}^{(1)}\|_2", r"\sqrt{y_1^2 + y_2^2}"),
    (r"\langle \hat{\boldsymbol{w}}_h, \boldsymbol{w}_{0h}^{(1)} \rangle", r"\cdot (y_1 \cos\theta + y_2 \sin\theta)"),
    # the conditioning bar of r~(w_hat, m | w_0, gamma) and R(w | w_0, gamma): the arguments are names
    (re.compile(r"\\tilde\{([rR])\}\(.*?\|.*?\\gamma\)"), r"\tilde{\1}"),
    (re.compile(r"(?<![A-Za-z\\])R\(w\s*\|.*?\\gamma\)"), "R"),
), symbols={"m_{h}": sp.Symbol("m", real=True), "m_{0h}^{(1)}": sp.Symbol("m_0", nonnegative=True),
            "\\rho_{h}": sp.Symbol("rho", real=True)})


