"""The notation of features-are-fate's Appendix B ((32)-(87): deep linear networks, their weights and singular
vectors), merged into its map by notation_002 (#24): the source's LaTeX in the symbols of the steps that cite
those labels, never its mathematics.

The steps of App. B (derivations/transfer_appendix_b.py) have numeric sides: they evaluate the weights W_l(t) of a
small network at search points (d, L, alpha, seed, t, l, lam, ...). A printed quantity of one or more matrices (a
norm of W_l, a singular value s_l, the loss) is named here by one symbol, and the points of the steps that cite its
label carry its value there (`transfer_appendix_b.printed`, computed from the same state as the steps' sides): the
printed expression built of those symbols is evaluated as printed and compared with the step's side. A name with no
value at a step's points stays a name of what the step computes (the comparison then reads the other side only).
"""
from __future__ import annotations

import re

import sympy as sp

__all__ = ["REWRITES", "SYMBOLS"]

_l, _L = sp.Symbol("l"), sp.Symbol("L")
_AT = {_l: "l", _l + 1: "l1", _L: "L"}          # the layers the displays name: W_l, W_{l+1}, W_L (and W_1)


def _layer(m) -> str | None:
    """'W_l', 'Wbar_l1', 'W_L', ... for the printed W_l, \\bar{W}_{l+1}, W_L (None for anything else)."""
    if isinstance(m, sp.Symbol) and m.name in ("W_{1}", "\\bar{W}_{1}"):   # a digit index stays in the name
        return ("W_" if m.name == "W_{1}" else "Wbar_") + "1"
    if isinstance(m, sp.Indexed) and len(m.indices) == 1 and m.base.label.name in ("W", "\\bar{W}"):
        at = _AT.get(m.indices[0])
        if at is not None:
            return ("W_" if m.base.label.name == "W" else "Wbar_") + at
    return None


def _dbar_l(m) -> bool:
    """Whether m is the printed Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T (the parse's product is commutative)."""
    wb, wbt = sp.IndexedBase("\\bar{W}"), sp.IndexedBase("\\bar{W}^{T}")
    return sp.expand(m - (wb[_l] * wbt[_l] - wb[_l + 1] * wbt[_l + 1])) == 0


def fro(m):
    """||W_l||_F, ||Wbar_{l+1}||_F, ..., ||Wbar_1||_F (the Frobenius norms of (49)-(51), (57), (61), (87)): one symbol
    each."""
    at = _layer(m)
    if at:
        return sp.Symbol("fro_" + at, nonnegative=True)
    if isinstance(m, sp.Indexed) and len(m.indices) == 1 and m.base.label.name in ("W", "\\bar{W}"):
        # (50): ||W_k||_F, ||Wbar_{k+1}||_F of a summation index k: the k-th entry of the per-layer tuple (k = 1..L)
        return sp.IndexedBase("froW" if m.base.label.name == "W" else "froWbar")[m.indices[0]]
    return sp.Function("\\|\\cdot\\|_{F}")(m)


def op(m):
    """||W_l||_op, ||Wbar_L||_op, ... (the operator norms of (52)-(57)) and ||Dbar_l||_op, Dbar_l = Wbar_l^T Wbar_l -
    Wbar_{l+1} Wbar_{l+1}^T (of (59), (62), (65), (67)): one symbol each."""
    at = _layer(m)
    if at:
        return sp.Symbol("op_" + at, nonnegative=True)
    if _dbar_l(m):
        return sp.Symbol("op_Dbar_l", nonnegative=True)
    if m == sp.Symbol("X"):                       # (68): ||X||_op, the data matrix of (3)
        return sp.Symbol("op_X", nonnegative=True)
    return sp.Function("\\|\\cdot\\|_{\\text{op}}")(m)


def op_rm(m):
    """As `op`, for the source's \\|.\\|_{\\rm op} spelling."""
    out = op(m)
    return out if isinstance(out, sp.Symbol) else sp.Function("\\|\\cdot\\|_{\\mathrm{op}}")(m)


def two(m):
    """||r||_2, ||r_par||_2, ||r_perp||_2 of (75), ||X^T P_par r||_2 of (83)-(85), ||yhat||_2 and ||W_1 W_2 .. W_L||_2 of
    (68): one symbol each (B.4 defines r = X W_1..W_L - y_t, r_par and r_perp its components in im(X) and ker(X^T),
    P_par the projector onto im(X); B.3 after (68): yhat = lim X W_1..W_L, the fitted targets)."""
    r, par, perp = sp.Symbol("r"), sp.Symbol("\\parallel"), sp.Symbol("\\perp")
    x_t, p = sp.Symbol("X^{T}"), sp.IndexedBase("P")
    names = {r: "norm_r", sp.IndexedBase("r")[par]: "norm_r_par", sp.IndexedBase("r")[perp]: "norm_r_perp",
             x_t * p[par] * r: "norm_XtPr", sp.Symbol("\\hat{y}"): "norm_yhat",
             sp.Symbol("W_{1}\\cdots W_{L}"): "norm_beta"}
    hit = next((v for k, v in names.items() if sp.expand(m - k) == 0), None)
    return sp.Symbol(hit, nonnegative=True) if hit else sp.Function("\\|\\cdot\\|_{2}")(m)


def inner(a, b):
    """<v_l, u_{l+1}> (the printed v_l^T u_{l+1} of (61)-(63), (66), rewritten below): one symbol."""
    if (a, b) == (sp.IndexedBase("v")[_l], sp.IndexedBase("u")[_l + 1]):
        return sp.Symbol("vu_l", real=True)
    return sp.Function("\\langle\\cdot,\\cdot\\rangle")(a, b)


def sing(*idx):
    """s_l, s_{l+1}: the top singular values of W_l, W_{l+1} (B.3: 'u_l, v_l the top left and right singular vectors
    of W_l', s_l the matching singular value)."""
    at = _AT.get(idx[0]) if len(idx) == 1 else None
    return sp.Symbol("s_" + at, nonnegative=True) if at else sp.IndexedBase("s")[idx]


def _smin_phi(m) -> str:
    """sigma_min^2(W_{L-1}^T .. W_1^T) [L] -> q_{sminPhi}^2 [L_t]"""
    return "q_{sminPhi}^2" + (r" \mathcal{L}_{t}" if m.group(1) else "")


REWRITES: tuple = (
    # (39) at L = 4 (the instance its step's first points have: d = 3, L = 4): W_{L-1}^T .. W_1^T is W_3^T W_2^T W_1^T,
    # W_1 .. W_{L-1} is W_1 W_2 W_3, W_{L-1}^T .. W_2^T is W_3^T W_2^T and W_2 .. W_{L-1} is W_2 W_3; W_1, W_2, W_3 and
    # D_1 of (32) the matrices themselves (\check names bound below to 3 x 3 MatrixSymbols)
    (r"\boldsymbol{W}_{L-1}^T \dots \boldsymbol{W}_1^T \boldsymbol{W}_1 \dots \boldsymbol{W}_{L-1} = "
     r"\boldsymbol{W}_{L-1}^T \dots \boldsymbol{W}_2^T (\boldsymbol{W}_2 \boldsymbol{W}_2^T + \boldsymbol{D}_1) "
     r"\boldsymbol{W}_2 \dots \boldsymbol{W}_{L-1}",
     r"\check{W}_{3}^{T} \check{W}_{2}^{T} \check{W}_{1}^{T} \check{W}_{1} \check{W}_{2} \check{W}_{3} = "
     r"\check{W}_{3}^{T} \check{W}_{2}^{T} (\check{W}_{2} \check{W}_{2}^{T} + \check{D}_{1}) \check{W}_{2} \check{W}_{3}"),
    # (52), (53), (60), (64): displays of matrix products and quadratic forms (the order of the factors and the
    # transposes are the mathematics; (53), (60) misprint them). There W_l, W_{l+1}, D_l and the singular vectors u_{l+1}, v_l are the
    # matrices (and vectors) themselves, named with \check (bound below to MatrixSymbols of the d = 3 instance whose
    # entries the citing steps' points carry); elsewhere W_l stands inside a norm, which names one symbol per layer
    # (fro, op), so the bold names keep that meaning there. (60)'s u_{l+1^{T}} is the conversion's u_{l+1}^{T} (the
    # superscript slipped into the subscript; the step reads it as u u^T). (52)'s ||W_l||_op keeps its bold name: a norm
    # names one symbol per layer (op), as everywhere. First, before the quadratic forms below
    *((t, t.replace(r"\boldsymbol{", r"\check{").replace(r"u}_{l+1^{T}}", r"u}_{l+1}^{T}")
          .replace(r"\|\check{W}_{l}\|", r"\|\boldsymbol{W}_{l}\|")) for t in (
        r"= \boldsymbol{u}_{l+1}^T (\boldsymbol{D}_l + \boldsymbol{W}_{l+1}^T \boldsymbol{W}_{l+1}) \boldsymbol{u}_{l+1}",
        r"\boldsymbol{v}_{l}^{T} \boldsymbol{W}_{l+1} \boldsymbol{W}_{l+1}^{T} \boldsymbol{v}_{l} = \boldsymbol{v}_{l}^{T} "
        r"(s_{l+1}^{2} \boldsymbol{u}_{l+1} \boldsymbol{u}_{l+1^{T}} \boldsymbol{W}_{l+1} \boldsymbol{W}_{l+1}^{T} - "
        r"s_{l+1}^{2} \boldsymbol{u}_{l+1} \boldsymbol{u}_{l+1^{T}}) \boldsymbol{v}_{l}",
        r"\|\boldsymbol{W}_{l}\|_{\text{op}}^{2} = \boldsymbol{v}_{l}^{T}\boldsymbol{W}_{l}^{T}\boldsymbol{W}_{l}"
        r"\boldsymbol{v}_{l} \ge \boldsymbol{u}_{l+1}^{T}\boldsymbol{W}_{l}^{T}\boldsymbol{W}_{l}\boldsymbol{u}_{l+1}",
        r"s_l^2 \ge \boldsymbol{u}_{l+1}^T \boldsymbol{W}_l^T \boldsymbol{W}_l \boldsymbol{u}_{l+1}")),
    # (71) at L = 4 (its step's points: d = 3, L = 4, a converged population flow): W_1 .. W_{L-1} W_L is W_1 W_2 W_3 W_4;
    # beta_s the teacher (d x 1), W_4 the last layer (d x 1)
    (r"\boldsymbol{W}_1 \dots \boldsymbol{W}_{L-1} \boldsymbol{W}_L = \boldsymbol{\beta}_{\mathrm{s}}",
     r"\check{W}_{1} \check{W}_{2} \check{W}_{3} \check{W}_{4} = \check{\beta}_{s}"),
    # (70) at L = 4 (the pretrained limit instance of (74)): W_1 W_2 .. W_{L-1} is W_1 W_2 W_3, u_1 the top left
    # singular vector of W_1, v_{L-1} = v_3 as in (74), c 'for some c in R' (the text after (70)) one symbol. (72)
    # prints v_{L_1} (no L_1 is defined; v_{L-1} is surely meant, but whether the paper or its conversion misprints
    # it cannot be told here): it is not read as v_{L-1}, so (72) is not compared
    (r"\boldsymbol{W}_1 \boldsymbol{W}_2 \dots \boldsymbol{W}_{L-1} = c \boldsymbol{u}_1 \boldsymbol{v}_{L-1}^T",
     r"\check{W}_{1} \check{W}_{2} \check{W}_{3} = \check{c} \check{u}_{1} \check{v}_{3}^{T}"),
    # (50): the sum over k = l..L-1 of (49)'s left side, ||W_k||_F^2 - ||W_{k+1}||_F^2 (the text: 'Taking the trace of
    # both sides in (32)' gives (49) for each layer; its right side sums the parenthesized difference): the print's
    # summand written without its parentheses would leave k free in the second term
    (r"\sum_{k=l}^{L-1} \|\boldsymbol{W}_k\|_F^2 - \|\boldsymbol{W}_{k+1}\|_F^2 =",
     r"\sum_{k=l}^{L-1} (\|\boldsymbol{W}_k\|_F^2 - \|\boldsymbol{W}_{k+1}\|_F^2) ="),
    # (74) and (120) (the same display) at L = 4: W_1 W_2 .. W_{L-1} is W_1 W_2 W_3, v_{L-1} is v_3, the top right
    # singular vector of W_3 (B.3: 'u_l, v_l the top left and right singular vectors of W_l'), d x 1
    (r"\boldsymbol{W}_1 \boldsymbol{W}_2 \dots \boldsymbol{W}_{L-1} = \boldsymbol{\beta}_{\mathrm{s}} "
     r"\boldsymbol{v}_{L-1}^T",
     r"\check{W}_{1} \check{W}_{2} \check{W}_{3} = \check{\beta}_{s} \check{v}_{3}^{T}"),
    # (119) at L = 4: Phi the features X W_1 .. W_{L-1} of linear transfer (Sec. 3: 'features Phi = X W_1 .. W_{L-1}'),
    # X the n x d target data (n = 5 at the points), v_{L-1} as in (74)
    (r"\boldsymbol{\Phi} = (\boldsymbol{X}\boldsymbol{\beta}_{\mathrm{s}})\boldsymbol{v}_{L-1}^T",
     r"\check{\Phi} = (\check{X} \check{\beta}_{s}) \check{v}_{3}^{T}"),
    # (33)-(35), (76)-(78), (80)-(81): the gradient flow's time derivatives and per-layer gradient terms. dL/dt and
    # dL_par/dt (the loss (2)/(3) and L_par := ||r_par||^2 of B.4 along the flow) one symbol each; the per-layer terms
    # <grad_l L, dW_l/dt>, ||grad_l L||_F, <grad_l L_par, dW_l/dt>, <grad_l L_par, grad_l L>, ||grad_l L_par||_F,
    # <grad_l L_par, grad_l L_perp> one indexed name each (l = 1..L; the points carry the tuple of the L layers'
    # values under the IndexedBase's name), so the printed sums over l = 1..L and the last layer's term l = L are
    # evaluated as printed
    (r"\dot{\mathcal{L}}_{\parallel}", "q_{Lpardot}"),
    (r"\dot{\mathcal{L}}", "q_{Ldot}"),
    (r"\langle \nabla_l \mathcal{L}, \dot{\boldsymbol{W}}_l \rangle", r"\mathfrak{a}_{l}"),
    (r"\|\nabla_l \mathcal{L}\|_F", r"\mathfrak{g}_{l}"),
    (r"\|\nabla_L \mathcal{L}\|_F", "q_{gFL}"),                  # the last layer's: one symbol, as op_W_L
    (r"\langle \nabla_{l} \mathcal{L}_{\parallel}, \dot{\boldsymbol{W}}_{l} \rangle", r"\mathfrak{b}_{l}"),
    (r"\langle \nabla_{l} \mathcal{L}_{\parallel}, \nabla_{l} \mathcal{L} \rangle", r"\mathfrak{c}_{l}"),
    (r"\|\nabla_{l}\mathcal{L}_{\parallel}\|_{F}", r"\mathfrak{p}_{l}"),
    (r"\|\nabla_l \mathcal{L}_{\parallel}\|_F", r"\mathfrak{p}_{l}"),
    (r"\|\nabla_L \mathcal{L}_{\parallel}\|_F", "q_{gpFL}"),
    (r"\langle \nabla_{l}\mathcal{L}_{\parallel}, \nabla_{l}\mathcal{L}_{\perp} \rangle", r"\mathfrak{q}_{l}"),
    # (43): A \succcurlyeq c is the Loewner order A - c I >= 0, which the steps check as lambda_min(A) >= c; the
    # scalar order of that instance, the matrix side A staying a name of what the step computes. (43) continues the
    # chain (41)-(42), whose last side (W_L W_L^T + D_L)^{L-1} the conversion separated from it (a stray line
    # '755 $= (-2)^{L-1}$' stands between): that side put back as (43)'s left side
    (r"\succcurlyeq (\alpha^2 \lambda)^{L-1}", r"(W_L W_L^T + D_L)^{L-1} \ge (\alpha^2 \lambda)^{L-1}"),
    # (45): L(t), L(0) the loss (2) at the point's time t and at 0 (the text: 'the loss converges to zero')
    (r"\mathcal{L}(t) = \mathcal{L}(0)e^{", r"\mathcal{L}_{t} = \mathcal{L}_{0}e^{"),
    # (44), (75): the bare L is the loss at the point's time t, as in (45)
    (r"(\alpha^2 \lambda)^{L-1} \mathcal{L}", r"(\alpha^2 \lambda)^{L-1} \mathcal{L}_{t}"),
    (r"\mathcal{L} = \frac{1}{2n} \|", r"\mathcal{L}_{t} = \frac{1}{2n} \|"),
    # (52)-(54), (58): the quadratic forms x^T M x of the unit vectors u_{l+1}, v_l, each one symbol (the parse's
    # products commute, so W_{l+1} W_{l+1}^T and W_{l+1}^T W_{l+1} would be one product: the order is kept by naming
    # each printed form; (53)'s u^T (D_l + W_{l+1}^T W_{l+1}) u, an erratum, is left as printed)
    (r"\boldsymbol{v}_{l}^{T}\boldsymbol{W}_{l}^{T}\boldsymbol{W}_{l}\boldsymbol{v}_{l}", "q_{vWWv}"),
    (r"\boldsymbol{v}_l^T \boldsymbol{W}_l^T \boldsymbol{W}_l \boldsymbol{v}_l", "q_{vWWv}"),
    (r"\boldsymbol{u}_{l+1}^{T}\boldsymbol{W}_{l}^{T}\boldsymbol{W}_{l}\boldsymbol{u}_{l+1}", "q_{uWWu}"),
    (r"\boldsymbol{u}_{l+1}^T \boldsymbol{W}_l^T \boldsymbol{W}_l \boldsymbol{u}_{l+1}", "q_{uWWu}"),
    (r"\boldsymbol{v}_l^T \boldsymbol{W}_{l+1} \boldsymbol{W}_{l+1}^T \boldsymbol{v}_l", "q_{vWWtv}"),
    (r"\boldsymbol{v}_{l}^{T} \boldsymbol{W}_{l+1} \boldsymbol{W}_{l+1}^{T} \boldsymbol{v}_{l}", "q_{vWWtv}"),
    (r"\boldsymbol{v}_l^T \boldsymbol{D}_l \boldsymbol{v}_l", "q_{vDv}"),
    (r"\boldsymbol{u}_{l+1}^T (\bar{\boldsymbol{W}}_l^T \bar{\boldsymbol{W}}_l - \bar{\boldsymbol{W}}_{l+1} "
     r"\bar{\boldsymbol{W}}_{l+1}^T) \boldsymbol{u}_{l+1}", "q_{uDbaru}"),
    # (36)-(37), (82)-(83): Phi^T = W_{L-1}^T .. W_1^T (the steps' Phi); ||Phi^T r||_2, ||Phi^T X^T P_par r||_2 and
    # sigma_min(Phi^T) one symbol each; (37)'s bare L is the loss at the point's time t, as in (44)
    (re.compile(r"\\\|\s*\\boldsymbol\{W\}_\{L-1\}\^T \\dots \\boldsymbol\{W\}_1\^T \\boldsymbol\{r\}\s*\\\|_2"),
     "q_{PhiTr}"),
    (re.compile(r"\\\|\s*\\boldsymbol\{W\}_\{L-1\}\^T \\dots \\boldsymbol\{W\}_1\^T \\boldsymbol\{X\}\^T "
                r"\\boldsymbol\{P\}_\{\\parallel\} \\boldsymbol\{r\}\s*\\\|_2"), "q_{PhiTXtPr}"),
    (re.compile(r"\\sigma_\{\\min\}\^2\(\\boldsymbol\{W\}_\{L-1\}\^T\s*\\dots\s*\\boldsymbol\{W\}_1\^T\)"
                r"(\\mathcal\{L\})?"), _smin_phi),
    # (68)-(69): prod_{l=1}^L s_l^2, the product of the layers' top singular values squared, one symbol (sing() names
    # s_l per layer; the product runs over all L layers)
    (r"\prod_{l=1}^L s_l^2", "q_{prods2}"),
    (r"\prod_{l=1}^{L} s_l^2", "q_{prods2}"),
    # (87): W_1^perp(t), W_1^perp(0) (the text: 'W_1 into two components W_1^par and W_1^perp where the columns of
    # W_1^perp are in ker(X^T)'), their Frobenius norms one symbol each
    (r"\|\boldsymbol{W}_{1}^{\perp}(t)\|_{F}", "q_{Wperpt}"),
    (r"\|\boldsymbol{W}_{1}^{\perp}(0)\|_{F}", "q_{Wperpz}"),
    # (48): u_{l+1}(t)^T v_l(t), the singular vectors at the point's time t, is the inner product <v_l, u_{l+1}> (as in
    # (61)-(63), (66); the inner product is symmetric)
    (r"(\boldsymbol{u}_{l+1}(t)^T \boldsymbol{v}_l(t))", r"\langle \boldsymbol{v}_{l}, \boldsymbol{u}_{l+1} \rangle"),
    # (61)-(63), (66): v_l^T u_{l+1} is the inner product <v_l, u_{l+1}> of the two unit vectors
    (re.compile(r"\(\\boldsymbol\{v\}_\{?l\}?\^\{?T\}?\s*\\boldsymbol\{u\}_\{l\+1\}\)"),
     r"\langle \boldsymbol{v}_{l}, \boldsymbol{u}_{l+1} \rangle"),
)

D3 = 3   # the width of the matrix instance of (52), (53), (60), (64)


def _mat(name: str, cols: int = D3) -> sp.MatrixSymbol:
    """A d x d matrix (or d-vector) of the d = 3 instance, named like the point key that carries its entries."""
    return sp.MatrixSymbol(name, D3, cols)


SYMBOLS: dict = {
    # the matrices of (52), (53), (60), (64) (\check names, rewritten above): W_l, W_{l+1} and D_l of (32) at the point's
    # time; u_{l+1}, v_l the top singular vectors of W_{l+1}, W_l (B.3), d x 1
    "\\check{W}_{l}": _mat("W_l"), "\\check{W}_{l+1}": _mat("W_l1"), "\\check{D}_{l}": _mat("D_l"),
    "\\check{u}_{l+1}": _mat("u_l1", 1), "\\check{v}_{l}": _mat("v_l", 1),
    # (39) at L = 4: the layers W_1, W_2, W_3 at the point's time and D_1 of (32) there (3 x 3 at d = 3)
    "\\check{W}_{1}": _mat("W_1"), "\\check{W}_{2}": _mat("W_2"), "\\check{W}_{3}": _mat("W_3"),
    "\\check{D}_{1}": _mat("D_1"),
    # (71), (74), (119), (120) at L = 4: the last layer W_4 (d x 1), the teacher beta_s (d x 1), v_3 (d x 1), the target
    # data X (5 x d) and Phi = X W_1 W_2 W_3 (5 x d; the points carry no value of it: a name of what the step computes)
    "\\check{W}_{4}": _mat("W_4", 1), "\\check{\\beta}_{s}": _mat("beta_s", 1), "\\check{v}_{3}": _mat("v_3", 1),
    "\\check{X}": sp.MatrixSymbol("X", 5, D3), "\\check{\\Phi}": sp.MatrixSymbol("Phi", 5, D3),
    # (70), (72): u_1 (d x 1) and the constant c of (70) (the points carry c = u_1^T W_1 W_2 W_3 v_3, the only c for
    # which (70) can hold)
    "\\check{u}_{1}": _mat("u_1", 1), "\\check{c}": sp.Symbol("c_lim", real=True),
    # (33)-(35), (76)-(81) (rewritten above): dL/dt, dL_par/dt and the per-layer gradient terms (tuples l = 1..L)
    "q_{Ldot}": sp.Symbol("Ldot", real=True), "q_{Lpardot}": sp.Symbol("Lpardot", real=True),
    "\\mathfrak{a}": sp.IndexedBase("gWdot"),       # <grad_l L, dW_l/dt>
    "\\mathfrak{g}": sp.IndexedBase("gradF"),       # ||grad_l L||_F
    "q_{gFL}": sp.Symbol("gradF_L", nonnegative=True),          # ||grad_L L||_F (the last layer)
    "q_{gpFL}": sp.Symbol("gparF_L", nonnegative=True),         # ||grad_L L_par||_F
    "\\mathfrak{b}": sp.IndexedBase("gparWdot"),    # <grad_l L_par, dW_l/dt>
    "\\mathfrak{c}": sp.IndexedBase("gparg"),       # <grad_l L_par, grad_l L>
    "\\mathfrak{p}": sp.IndexedBase("gparF"),       # ||grad_l L_par||_F
    "\\mathfrak{q}": sp.IndexedBase("gpargperp"),   # <grad_l L_par, grad_l L_perp>
    "\\|\\cdot\\|_{F}": fro,
    "\\|\\cdot\\|_{\\text{op}}": op,
    "\\|\\cdot\\|_{\\mathrm{op}}": op_rm,
    "\\|\\cdot\\|_{2}": two,
    "\\langle\\cdot,\\cdot\\rangle": inner,
    "s": sing,
    "\\mathcal{L}_{t}": sp.Symbol("loss_t", real=True),             # (2) or (3) at the point's time t
    "\\mathcal{L}_{0}": sp.Symbol("loss_0", real=True),             # the same at t = 0
    "\\mathcal{L}_{\\parallel}": sp.Symbol("L_par", nonnegative=True),  # B.4: L_par := ||r_par||_2^2
    "\\lambda_{\\min}": sp.Symbol("lambda_min", positive=True),     # B.4: the smallest nonzero eigenvalue of X X^T
    "C_{l}": sp.Symbol("C_l", real=True),                            # (67)
    "q_{Wperpt}": sp.Symbol("Wperp_t", nonnegative=True),          # ||W_1^perp(t)||_F
    "q_{Wperpz}": sp.Symbol("Wperp_0", nonnegative=True),          # ||W_1^perp(0)||_F
    "q_{PhiTr}": sp.Symbol("norm_PhiTr", nonnegative=True),        # ||W_{L-1}^T .. W_1^T r||_2
    "q_{PhiTXtPr}": sp.Symbol("norm_PhiTXtPr", nonnegative=True),  # ||W_{L-1}^T .. W_1^T X^T P_par r||_2
    "q_{sminPhi}": sp.Symbol("smin_Phi", nonnegative=True),        # sigma_min(W_{L-1}^T .. W_1^T)
    "q_{prods2}": sp.Symbol("prod_s2", nonnegative=True),           # prod_{l=1}^L s_l^2
    "q_{vWWv}": sp.Symbol("vWWv_l", nonnegative=True),              # v_l^T W_l^T W_l v_l
    "q_{uWWu}": sp.Symbol("uWWu_l", nonnegative=True),              # u_{l+1}^T W_l^T W_l u_{l+1}
    "q_{vWWtv}": sp.Symbol("vWWtv_l", nonnegative=True),            # v_l^T W_{l+1} W_{l+1}^T v_l
    "q_{vDv}": sp.Symbol("vDv_l", real=True),                        # v_l^T D_l v_l
    "q_{uDbaru}": sp.Symbol("uDbaru_l", real=True),                  # u_{l+1}^T Dbar_l u_{l+1}
}
