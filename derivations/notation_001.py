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
    # (6)'s ||u w_hat_h - w_0h^(1)||_2^2 in the same d = 2 coordinates
    (r"\left\| u\hat{\boldsymbol{w}}_h - \boldsymbol{w}_{0h}^{(1)} \right\|_2^2",
     r"((u \cos\theta - y_1)^2 + (u \sin\theta - y_2)^2)"),
    # the conditioning bar of r~(w_hat, m | w_0, gamma) and R(w | w_0, gamma): the arguments are names
    (re.compile(r"\\tilde\{([rR])\}\(.*?\|.*?\\gamma\)"), r"\tilde{\1}"),
    (re.compile(r"(?<![A-Za-z\\])R\(w\s*\|.*?\\gamma\)"), "R"),
    # (1): no entry. Its step '(1) for one unit' writes w_h^(1) = u w_hat (the parameterization of (3)), so
    # <w_h^(1), x> = u z is mathematics, not notation: a map that put it in compared the step with itself
    # (2) for one unit (H = 1, the h-th term, "the objective of (5) is the h-th term of (2)") in the steps' d = 2:
    # w_h^(2) is their w_2, w_h^(1) = (w_11, w_12), w_0h^(1) = (y_1, y_2) as above
    (r"\sum_{h=1}^{H} (w_h^{(2)} - \gamma)^2 + \|w_h^{(1)} - w_{0h}^{(1)}\|_2^2",
     r"(w_2 - \gamma)^2 + (w_{11} - y_1)^2 + (w_{12} - y_2)^2"),
), symbols={"m_{h}": sp.Symbol("m", real=True), "m_{0h}^{(1)}": sp.Symbol("m_0", nonnegative=True),
            "\\rho_{h}": sp.Symbol("rho", real=True),
            # (11)'s u^*: "select the (unique, ...) positive real root, u^*" of the quartic (10); the steps of (11)
            # carry that root as `ustar` at each search point (relu_proofs._single_root_points)
            "u^{*}": sp.Symbol("ustar", positive=True),
            # (1) in the instance of its step '(1) as printed for one unit with scalar weights (H = 1, d = 1)': (.)_+ is
            # the positive part ("the ReLU nonlinearity", the sentence before (1)), the inner product <a, x> of R^1 the
            # product a x; the printed sum over h = 1..H stays (the step's points carry one unit's weights). These two
            # names are the paper's, so every display printing them is read in that instance: today only (1) (the
            # shipped parses of (7)-(11) have neither name); a vector display printing them needs a rewrite instead
            "(\\cdot)_{+}": lambda a: sp.Max(a, 0),
            "\\langle\\cdot,\\cdot\\rangle": lambda a, b: a * b},
    # #35 (PARSE_FORMAT 7): an undeclared letter subscript is part of a name (u_f is "u_{f}"); these bases are read
    # indexed as before, x_i = x[i] (the steps and the shipped parses use them so)
    indexed=("\\hat{w}", "w^{(1)}", "w^{(2)}"))


