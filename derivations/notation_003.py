"""The notation map of adaptive-tangent (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_003:NOTATION', so declaring the paper imports nothing of it.
"""

import re

import sympy as sp

from theorylab.authoring import NotationMap

__all__ = ["NOTATION"]



def _beta_j(j):
    """beta_j, the j-th coordinate of beta = (beta_1, beta_2) in the P = 2 instance of (22)'s step: the step's symbol
    beta_j for a number j, a choice between the two for a summation index (so the sum has the step's symbols)"""
    b1, b2 = sp.symbols("beta_1 beta_2", real=True)
    if isinstance(j, sp.Integer):
        return {1: b1, 2: b2}.get(int(j), sp.nan)
    return sp.Piecewise((b1, sp.Eq(j, 1)), (b2, sp.Eq(j, 2)), (sp.nan, True))


def _l1(v):
    """||beta||_1 = |beta_1| + |beta_2| in the P = 2 instance of (22)'s step (the l1 norm of beta = (beta_1, beta_2))"""
    if v == sp.Symbol("\\beta"):
        return sp.Abs(_beta_j(sp.Integer(1))) + sp.Abs(_beta_j(sp.Integer(2)))
    return sp.Function("\\|\\cdot\\|_{1}")(v)


NOTATION = NotationMap(rewrites=(
    # (22) in the P = 2 instance of its step '(22) as printed (P = 2)': the sum over j = 1..P of (22) (its summand
    # opens with "2|") runs to 2; beta_j and ||beta||_1 are in `symbols` below
    (re.compile(r"(?<=\\sum_\{j=1\}\^\{)P(?=\}2\|)"), "2"),
    # (9) in the C = 1, P = 2 instance of its step ('(9) as printed (C = 1, P = 2)'): rows g, h of grad f0 at x, x';
    # K_0, "the initial kernel K_0(x,x') = grad f0(x) grad f0(x')^T" (Sec. 2.2), a name the paper defines, stays a
    # name: the step's symbol K_0 (its arguments are its own); beta-hat = (beta_1, beta_2) below. The model's outputs
    # at the two inputs are names: f_theta-hat(x), f_theta-hat(x') are the step's f_1, f_2, f_theta0(x), f_theta0(x')
    # its f_01, f_02, and (.)^T of the scalar (C = 1) at x' is the scalar. That f_theta-hat - f_theta0 =
    # grad f0 M-hat (theta-hat - theta0) (the linearised model) is the step's substitution, never the map's
    (re.compile(r"^\s*K\(\\mathbf\{x\},\\mathbf\{x\}\^\{\\prime\}\)=K_\{0\}\(\\mathbf\{x\},\\mathbf\{x\}\^\{\\prime\}\)"),
     r"K(\mathbf{x},\mathbf{x}^{\prime})=K_{0}"),
    # (32) in the same instance: its left side grad f0(x) M-hat^2 grad f0(x')^T is K(x, x') by (7) ("K(x,x') :=
    # ... = grad f0(x) M-hat^2 grad f0(x')^T"), grad f0(x) grad f0(x')^T = g.h, and the row products
    # grad f0(x) beta-hat beta-hat^T grad f0(x')^T = (g.beta)(h.beta) in coordinates (no use of (8))
    # (the left side only where it opens the display: (7) prints the same product as its own right side)
    (re.compile(r"^\s*\\nabla_\{\{\\bm\{\\theta\}\}_\{0\}\}f_\{\{\\bm\{\\theta\}\}_\{0\}\}\(\\mathbf\{x\}\)"
                r"\\widehat\{\\mathbf\{M\}\}\^\{2\}\\nabla_\{\{\\bm\{\\theta\}\}_\{0\}\}f_\{\{\\bm\{\\theta\}\}_\{0\}\}"
                r"\(\\mathbf\{x\}\^\{\\prime\}\)\^\{\\mathsf\{T\}\}"),
     r"K(\mathbf{x},\mathbf{x}^{\prime})"),
    (r"\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x})\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}"
     r"(\mathbf{x}^{\prime})^{\mathsf{T}}", r"(g_1 h_1+g_2 h_2)"),
    (r"\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x})\|\widehat{{\bm{\beta}}}\|_{2}^{-2}\widehat{{\bm{\beta}}}"
     r"\widehat{{\bm{\beta}}}^{\mathsf{T}}\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x}^{\prime})^{\mathsf{T}}",
     r"(\beta_1^2+\beta_2^2)^{-1}(g_1\beta_1+g_2\beta_2)(h_1\beta_1+h_2\beta_2)"),
    # (19) in the instance of its step '(19) as printed in the instance where only the final layer adapts' (C = 1,
    # P_L = 2): K_0(x, x') there is a name (the step's K_0: the arguments are its own), [s_L^(1)]_1, the first entry
    # of s_L^(1), is the step's s, beta-hat_L = (beta_1, beta_2), z(x) = (z_1, z_2), z(x') = (u_1, u_2), so
    # z(x)^T beta-hat_L and z(x')^T beta-hat_L in coordinates
    (re.compile(r"(?<=\\approx )K_\{0\}\(\\mathbf\{x\},\\mathbf\{x\}\^\{\\prime\}\)"), r"K_{0}"),
    (r"[\mathbf{s}_{L}^{(1)}]_{1}", "s"),
    (r"\|\widehat{{\bm{\beta}}}_{L}\|_{2}", r"\sqrt{\beta_1^2+\beta_2^2}"),
    (r"(\mathbf{z}(\mathbf{x})^{\mathsf{T}}\widehat{{\bm{\beta}}}_{L})", r"(z_1\beta_1+z_2\beta_2)"),
    (r"(\mathbf{z}(\mathbf{x}^{\prime})^{\mathsf{T}}\widehat{{\bm{\beta}}}_{L})", r"(u_1\beta_1+u_2\beta_2)"),
    # (9)'s outputs as names (see (9) above), after (32)'s rewrites; f_theta0(x) only where it is subtracted (the
    # output, never the f_theta0(x) of grad f0(x) in (7))
    (r"(f_{\widehat{{\bm{\theta}}}}(\mathbf{x}^{\prime})-f_{{\bm{\theta}}_{0}}(\mathbf{x}^{\prime}))^{\mathsf{T}}",
     r"(f_{2}-f_{02})"),
    (r"f_{\widehat{{\bm{\theta}}}}(\mathbf{x})", r"f_{1}"), (re.compile(r"(?<=-)f_\{\{\\bm\{\\theta\}\}_\{0\}\}\(\\mathbf\{x\}\)"), r"f_{01}"),
    # beta-hat = (beta_1, beta_2) in the P = 2 instance of (9)'s step: ||beta-hat||_2 in coordinates
    (r"\|\widehat{{\bm{\beta}}}\|_{2}", r"\sqrt{\beta_1^2+\beta_2^2}"),
), symbols={
    # (22) (and (21)): beta_j, the coordinates of beta = (beta_1, ..., beta_P); ||beta||_1 in coordinates
    "\\beta": _beta_j, "\\|\\cdot\\|_{1}": _l1,
    # (8) in the P = 2 instance of its step '(8) as printed (P = 2)': beta-hat = (beta_1, beta_2) (the column vector
    # of (5)'s coordinates, the same symbols as beta_j above; its ||.||_2 is in coordinates by the rewrite for (9)),
    # I_P the P x P identity ("I_P" of Theorem 1) at P = 2, theta_0 the initial parameters (a P-vector, the step's
    # (theta_01, theta_02)); M-hat, theta-hat, the solution (8) names, stay names (theta-hat a P-vector)
    "\\hat{\\beta}": sp.ImmutableMatrix(sp.symbols("beta_1 beta_2", real=True)), "I_{P}": sp.ImmutableMatrix(sp.eye(2)),
    "\\theta_{0}": sp.ImmutableMatrix(sp.symbols("theta_01 theta_02", real=True)), "\\hat{\\theta}": sp.MatrixSymbol("\\hat{\\theta}", 2, 1)},
    # #35 (PARSE_FORMAT 7): an undeclared letter subscript is part of a name (u_f is "u_{f}"); these bases are read
    # indexed as before, x_i = x[i] (the steps and the shipped parses use them so)
    indexed=("C", "I", "M^{(1)}", "M^{(2)}", "P", "Q", "S^{(1)}", "S^{(2)}", "U", "U^{T}", "V", "V^{T}", "W",
             "\\Sigma", "\\hat{M}^{(1)}", "\\hat{M}^{(2)}", "\\hat{W}", "s^{(1)}", "s^{(2)}", "x", "y"))
