"""The notation map of ptft-diagonal (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_000:NOTATION', so declaring the paper imports nothing of it.
"""
import re

import sympy as sp

from theorylab.authoring import NotationMap

__all__ = ["NOTATION"]

# (8)-(9) in the first coordinate of the steps' instance n = D = 2 (qpenalty.py, the same names): "the task loss L"
# = ||X~ (w(1) o w(2)) - y||^2 with X~ = [X -X] (the sentence before (8)), w(1) = (a_1, ..., a_4), w(2) =
# (c_1, ..., c_4), and r = X~ (w(1) o w(2)) - y, the steps' reading of the undefined r (erratum 000-A-eq8-9)
_X = sp.Matrix(2, 2, sp.symbols("x_11 x_12 x_21 x_22", real=True))
_XT = _X.row_join(-_X)
_A, _C = sp.Matrix(sp.symbols("a_1:5", real=True)), sp.Matrix(sp.symbols("c_1:5", real=True))
_R = _XT * _A.multiply_elementwise(_C) - sp.Matrix(sp.symbols("y_1 y_2", real=True))
_LOSS = (_R.T * _R)[0]


def _q23(z):
    """q of (23) as printed: q(z) = 2 - sqrt(4 + z^2) + z arcsinh(z/2)"""
    return 2 - sp.sqrt(4 + z**2) + z * sp.asinh(z / 2)


def _d_a1(e):
    """the first coordinate of the gradient in w(1): d/da_1"""
    return sp.Derivative(e, _A[0])


def _d_c1(e):
    """the first coordinate of the gradient in w(2): d/dc_1"""
    return sp.Derivative(e, _C[0])


NOTATION = NotationMap(rewrites=(
    # the steps write a = 4 X^T int_0^t r(s) ds (one coordinate) and G(tau) for X~^T r(tau)
    (re.compile(r"4\s*X\^\\top\s*\\int_0\^t\s*r\(s\)\s*ds"), "a"),
    (re.compile(r"\\tilde\{X\}\^\\top\s*\\int_0\^t\s*r\(s\)\s*ds"), r"\int_0^t G(s) ds"),
    # (6)-(7) in the steps' instance n = D = 2 (qpenalty.py): w^(1) = (w+_1, w+_2, w-_1, w-_2) = (a_1, ..., a_4), w^(2)
    # likewise (c_1, ..., c_4); (6) for the first sample x = (x_11, x_12), beta(w) = (beta_1, beta_2); (7) for d = 1
    (r"\vec{\beta}(\vec{w}) \cdot \vec{x}", r"(\beta_1 x_{11} + \beta_2 x_{12})"),
    (r"w_{+,d}^{(2)} \circ w_{+,d}^{(1)} - w_{-,d}^{(2)} \circ w_{-,d}^{(1)}", r"c_1 a_1 - c_3 a_3"),
    # (8)-(9) in their first coordinate: the gradient in w(1) (w(2)) is d/da_1 (d/dc_1), the printed loss
    # ||X~ (w(1) o w(2)) - y||^2 is ell (= L), (X~^T r(t))_1 is G_1
    (r"\nabla_{\vec{w}^{(1)}(t)}", r"\nabla_{a_1}"), (r"\nabla_{\vec{w}^{(2)}(t)}", r"\nabla_{c_1}"),
    (r"\left(\|\tilde{X} \left(\vec{w}^{(1)}(t) \circ \vec{w}^{(2)}(t) \right) - y\|_2^2 \right)", r"\ell"),
    (r"-2\tilde{X}^\top r(t) \circ \vec{w}^{(2)}(t)", "-2 G_1 c_1"),
    (r"-2\tilde{X}^\top r(t) \circ \vec{w}^{(1)}(t)", "-2 G_1 a_1"),
    # (10)-(11) per coordinate (o is the entrywise product), as their steps '(10), one coordinate' read them:
    # g = (X~^T r(t))_i, s and d the coordinate of s(t), d(t)
    (r"\tilde{X}^\top r(t) \circ \vec{s}(t)", "g s"), (r"\tilde{X}^\top r(t) \circ \vec{d}(t)", "g d"),
    (r"\vec{s}(0)", "s_0"), (r"\vec{d}(0)", "d_0"),
    # (15): w^(1) = s + d and w^(2) = s - d per branch (the substitution of (16)); (16)-(17): s_+^{\vec{}}(t) is s_+
    (re.compile(r"w_([+-])\^\{\(1\)\}\(t\)"), r"(s_\1 + d_\1)"),
    (re.compile(r"w_([+-])\^\{\(2\)\}\(t\)"), r"(s_\1 - d_\1)"),
    (re.compile(r"([sd])_([+-])\^\{\\vec\{\}\}\(t\)"), r"\1_\2"),
    # (22) per unit, as its step 'stable per-unit form equals (22)'s summand' reads it: k = ((w0)^(1)_d)^2 +
    # ((w0)^(2)_d)^2 (the step's shorthand), the summand of unit d (beta_d: the step's beta); q stays the printed
    # q, the name (23) defines (`symbols` below), never (23) pasted into (22)
    (r"((w_0)_d^{(1)})^2 + ((w_0)_d^{(2)})^2", "k"),
    (r"\|\beta_d\|_Q := \sum_{d=1}^D \left(k \right) q \left(",
     r"\|\beta_d\|_Q := \left(k \right) q \left("),
    (r"\frac{2\beta_d}{k}", r"\frac{2\beta}{k}"),
    # (23) defines q ("q(z) = 2 - sqrt(4 + z^2) + z arcsinh(z/2)"): its left side is the name being defined and stays
    # a name; the `symbols` entry q below (this function) serves the displays that use q, as (22)
    (re.compile(r"^\s*q\(z\)\s*="), r"q_{\mathrm{def}}(z) ="),
    # (21) prints "\left(((w_0^{(1)})^2 + ((w_0^{(2)})^2) \right)": one parenthesis too many, as laid out
    (r"\left(((w_0^{(1)})^2 + ((w_0^{(2)})^2) \right)", r"\left((w_0^{(1)})^2 + (w_0^{(2)})^2 \right)"),
    # (28)-(35) per unit, in the steps' two-output instance: ||beta_d||_2 and ||m_h||_2 in coordinates, z_d = z_h = z
    # (33) and (35) per unit, in the steps' instance d = 3, O = 2: w_h^(1) = (r_1, r_2, r_3), w_h^(2) = (n_1, n_2)
    # (32) in the instance of its steps '(32) as printed for one unit with scalar weights (H = 1, h = 1, d = O = 1)':
    # the unit h = 1, the norm of R^1 the absolute value (before the d = 3 reading of ||w_h^(1)||_2 below, which
    # (33) and (35) use)
    (re.compile(r"\\vec\{m\}_h = w_h\^\{\(2\)\}(.*?)\\\|w_h\^\{\(1\)\}\\\|_2(.*?), \\vec\{\\theta\}_h = "
                r"w_h\^\{\(1\)\}(.*?)/ \\\|w_h\^\{\(1\)\}\\\|_2"),
     r"\vec{m}_1 = w_1^{(2)}\1|w_1^{(1)}|\2, \vec{\theta}_1 = w_1^{(1)}\3/ |w_1^{(1)}|"),
    (r"\|w_h^{(1)}\|_2", r"\sqrt{r_1^2 + r_2^2 + r_3^2}"),
    (r"\|w_h^{(2)}\|_2", r"\sqrt{n_1^2 + n_2^2}"),
    (r"\|\vec{\beta}_d\|_2", r"\sqrt{\beta_1^2 + \beta_2^2}"),
    (r"\|\vec{m}_h\|_2", r"\sqrt{m_1^2 + m_2^2}"),
    (re.compile(r"z_[dh](?![A-Za-z])"), "z"),
), symbols={"L": _LOSS, "\\ell": _LOSS, "G_{1}": (_XT.T * _R)[0],
            "\\nabla_{a_1}": _d_a1, "\\nabla_{c_1}": _d_c1,
            # q: "q(z) = 2 - sqrt(4 + z^2) + z arcsinh(z/2)", the name the paper defines at (23) (used by (22))
            "q": _q23,
            # (30) and (35) for one input dimension / one unit, as their steps '(30) as printed for one input
            # dimension d (D = 1, O = 2)' and '(35) as printed for one unit (H = 1, ...)' read them: the sums over
            # d = 1..D and h = 1..H have one term (the printed sums and the factor 2 stay as printed)
            "D": sp.Integer(1), "H": sp.Integer(1),
            # (31) in the instance of its step '(31) as printed for one unit with scalar weights (H = 1, d = O = 1)':
            # (.)_+ is the positive part ("ReLU"), the inner product <a, x> of R^1 the product a x
            "(\\cdot)_{+}": lambda a: sp.Max(a, 0), "\\langle\\cdot,\\cdot\\rangle": lambda a, b: a * b,
            # (28)/(30) for one input dimension d in the steps' two-output instance (O = 2): w_{+,d}^(1) is their w1,
            # w_{+,o,d}^(2) their w2_o (o = 1, 2; the summation index o picks one of the two)
            "w_{+,d}^{(1)}": sp.Symbol("w1", real=True),
            "w_{+,o,d}^{(2)}": sp.Piecewise((sp.Symbol("w2_1", real=True), sp.Eq(sp.Symbol("o"), 1)),
                                            (sp.Symbol("w2_2", real=True), sp.Eq(sp.Symbol("o"), 2)), (sp.nan, True)),
            # (25) in the same instance (its step '(25) as printed in one input dimension d (D = 1, O = 2)'): the
            # - branch's weights w_{-,d}^(1), w_{-,o,d}^(2) ("either all its associated + weights or all its associated
            # - weights", the sentence after (26)) are its wm1, wm2_o; o stays the print's output index
            "w_{-,d}^{(1)}": sp.Symbol("wm1", real=True),
            "w_{-,o,d}^{(2)}": sp.Piecewise((sp.Symbol("wm2_1", real=True), sp.Eq(sp.Symbol("o"), 1)),
                                            (sp.Symbol("wm2_2", real=True), sp.Eq(sp.Symbol("o"), 2)), (sp.nan, True))},
    # #35 (PARSE_FORMAT 7): an undeclared letter subscript is part of a name (u_f is "u_{f}"); these bases are read
    # indexed as before, x_i = x[i] (the steps and the shipped parses use them so)
    indexed=("\\beta", "\\theta", "m", "w^{(1)}", "w^{(2)}"))
