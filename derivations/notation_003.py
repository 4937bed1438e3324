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
    # (9) in the C = 1, P = 2 instance of its step ('(9)/(32): ... (C = 1, P = 2)'): rows g, h of grad f0 at x, x';
    # K_0 "We correspondingly define the initial kernel K_0(x,x') = grad f0(x) grad f0(x')^T" (Sec. 2.2) is g.h;
    # beta-hat = (beta_1, beta_2). K_y-hat = (f_theta-hat - f_theta0)(x)(f_theta-hat - f_theta0)(x')^T is left as
    # printed: reading it as (g.beta)(h.beta) takes the linearised model and (8)'s eigen-relation, mathematics that
    # a step must state, never the map
    (r"=K_{0}(\mathbf{x},\mathbf{x}^{\prime})+(s^{2}-1)\|\widehat{{\bm{\beta}}}\|_{2}^{-2}",
     r"=(g_1 h_1+g_2 h_2)+(s^{2}-1)(\beta_1^2+\beta_2^2)^{-1}"),
    # (32) in the same instance: its left side grad f0(x) M-hat^2 grad f0(x')^T is K(x, x') by (7) ("K(x,x') :=
    # ... = grad f0(x) M-hat^2 grad f0(x')^T"), grad f0(x) grad f0(x')^T = g.h, and the row products
    # grad f0(x) beta-hat beta-hat^T grad f0(x')^T = (g.beta)(h.beta) in coordinates (no use of (8))
    (r"\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x})\widehat{\mathbf{M}}^{2}\nabla_{{\bm{\theta}}_{0}}"
     r"f_{{\bm{\theta}}_{0}}(\mathbf{x}^{\prime})^{\mathsf{T}} =\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x})"
     r"\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x}^{\prime})^{\mathsf{T}}+(s^{2}-1)",
     r"K(\mathbf{x},\mathbf{x}^{\prime}) =(g_1 h_1+g_2 h_2)+(s^{2}-1)"),
    (r"\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x})\|\widehat{{\bm{\beta}}}\|_{2}^{-2}\widehat{{\bm{\beta}}}"
     r"\widehat{{\bm{\beta}}}^{\mathsf{T}}\nabla_{{\bm{\theta}}_{0}}f_{{\bm{\theta}}_{0}}(\mathbf{x}^{\prime})^{\mathsf{T}}",
     r"(\beta_1^2+\beta_2^2)^{-1}(g_1\beta_1+g_2\beta_2)(h_1\beta_1+h_2\beta_2)"),
))
