"""The notation map of ptft-diagonal (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_000:NOTATION', so declaring the paper imports nothing of it.
"""
import re

from theorylab.authoring import NotationMap

__all__ = ["NOTATION"]

NOTATION = NotationMap(rewrites=(
    # the steps write a = 4 X^T int_0^t r(s) ds (one coordinate) and G(tau) for X~^T r(tau)
    (re.compile(r"4\s*X\^\\top\s*\\int_0\^t\s*r\(s\)\s*ds"), "a"),
    (re.compile(r"\\tilde\{X\}\^\\top\s*\\int_0\^t\s*r\(s\)\s*ds"), r"\int_0^t G(s) ds"),
    (r"\vec{s}(0)", "s_0"), (r"\vec{d}(0)", "d_0"),
    # (15): w^(1) = s + d and w^(2) = s - d per branch (the substitution of (16)); (16)-(17): s_+^{\vec{}}(t) is s_+
    (re.compile(r"w_([+-])\^\{\(1\)\}\(t\)"), r"(s_\1 + d_\1)"),
    (re.compile(r"w_([+-])\^\{\(2\)\}\(t\)"), r"(s_\1 - d_\1)"),
    (re.compile(r"([sd])_([+-])\^\{\\vec\{\}\}\(t\)"), r"\1_\2"),
    # (22) per unit, as its step 'stable per-unit form equals (22)'s summand' reads it: k = ((w0)^(1)_d)^2 +
    # ((w0)^(2)_d)^2 (the step's shorthand), the summand of unit d (beta_d: the step's beta), q of (23) at 2 beta/k
    (r"((w_0)_d^{(1)})^2 + ((w_0)_d^{(2)})^2", "k"),
    (r"\|\beta_d\|_Q := \sum_{d=1}^D \left(k \right) q \left(\frac{2\beta_d}{k} \right)",
     r"\|\beta_d\|_Q := k \cdot \left(2 - \sqrt{4 + (2\beta/k)^2} + (2\beta/k) \cdot \operatorname{arcsinh}(\beta/k)\right)"),
    # (21) prints "\left(((w_0^{(1)})^2 + ((w_0^{(2)})^2) \right)": one parenthesis too many, as laid out
    (r"\left(((w_0^{(1)})^2 + ((w_0^{(2)})^2) \right)", r"\left((w_0^{(1)})^2 + (w_0^{(2)})^2 \right)"),
    # (28)-(35) per unit, in the steps' two-output instance: ||beta_d||_2 and ||m_h||_2 in coordinates, z_d = z_h = z
    (r"\|\vec{\beta}_d\|_2", r"\sqrt{\beta_1^2 + \beta_2^2}"),
    (r"\|\vec{m}_h\|_2", r"\sqrt{m_1^2 + m_2^2}"),
    (re.compile(r"z_[dh](?![A-Za-z])"), "z"),
))
