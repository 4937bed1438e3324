"""The notation map of features-are-fate (#24): its source's LaTeX in the symbols of its steps.

Symbols unify by name already (a parsed \\gamma is the step's gamma, \\lambda its lam); a map names what differs:
the steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints
of layout (an unbalanced parenthesis), never its mathematics. The Paper names it as
'theorylab.derivations.notation_002:NOTATION', so declaring the paper imports nothing of it.
"""
import re

import sympy as sp

from theorylab.authoring import NotationMap

from . import notation_002_b

__all__ = ["NOTATION"]

# (9), (12), (118) in the scalar instance their step checks (d = 1: the readout W_L, the feature matrix Phi and the
# labels y_t are numbers): the step's own symbols
_PHI, _YT = sp.Symbol("Phi", real=True), sp.Symbol("y_t", real=True)
_WL = sp.IndexedBase("W")[sp.Symbol("L")]     # the printed variable W_L of (9), (12)'s objectives (a name)
_NORM2 = sp.Function("\\|\\cdot\\|_{2}")

_g, _s = sp.Symbol("gamma", positive=True), sp.Symbol("sigma", nonnegative=True)
_n = sp.Symbol("n", integer=True, positive=True)


def _kl_instance(m) -> str:
    """(28)-(29): int p(x) e^{-(y - f(x))^2/(2 sigma^2)} [...] dx dy at constant f, g -> the y-integral over the real
    line of e^{-(y - f)^2/(2 sigma^2)} [...] with f(x) -> f, g(x) -> g_x (the printed factors and brackets kept)."""
    inst = lambda t: t.replace("g(x)", "g_{x}").replace("f(x)", "f")  # noqa: E731
    return r"\int_{-\infty}^{\infty} " + inst(m.group(1)) + inst(m.group(2)) + " dy"


def _overlap(arg):
    """<sigma(w_i^T x) sigma(w_j^T x)>_{L2} of (149)-(153), the L2(p) overlap of two ReLU features as (149) names it:
    a function of the two features' weights w_i, w_j (w*_j) only, as the text's K_ij, K*_ij, K~_ij index it (a name:
    its value is the steps'). The argument is a product of two applied features, each with one indexed weight (the
    map is applied before the inner function names are); any other argument stays as printed."""
    feats = sp.Mul.make_args(arg)
    weights = [f.args[0].atoms(sp.Indexed) for f in feats
               if isinstance(f, sp.core.function.AppliedUndef) and len(f.args) == 1]
    if len(feats) == 2 and len(weights) == 2 and all(len(w) == 1 for w in weights):
        return sp.Function("\\langle\\cdot\\rangle_{L_2}")(*(next(iter(w)) for w in weights))
    return sp.Function("\\langle\\cdot\\rangle_{L_2}")(arg)


def _argmin_eval(cls, objective):
    """argmin over W_L in R^d of (9), (12) (the operator the subscript names: its objectives are printed in W_L) in
    the scalar instance d = 1: there ||x||_2 of a number is |x|, so ||x||_2^2 = x^2. The minimiser of a quadratic
    in W_L is its vertex where the leading coefficient is > 0 (else no number: nan); any other objective stays an unevaluated argmin (as
    does one whose norms are not read yet: the parse resolves inner names after outer ones, and re-evaluates)."""
    obj = objective.replace(lambda e: isinstance(e, sp.Pow) and e.exp == 2 and getattr(e.base, "func", None) == _NORM2,
                            lambda e: e.base.args[0] ** 2)
    if not obj.has(_WL) or obj.atoms(sp.core.function.AppliedUndef):
        return None
    poly = sp.Poly(sp.expand(obj), _WL)
    if poly.degree() != 2:
        return None
    a, b = poly.all_coeffs()[:2]
    # the vertex is the unique minimiser where the leading coefficient is > 0 (Phi != 0 in (9)); elsewhere the
    # argmin is empty or all of R: no number (nan)
    return sp.Piecewise((sp.simplify(-b / (2 * a)), a > 0), (sp.nan, True))


_argmin_wl = type("\\argmin_{\\hat{W}_{L}\\in \\mathbb{R}^{d}}", (sp.Function,),
                  {"nargs": 1, "eval": classmethod(_argmin_eval)})


# -- session 32, helper h1 (App. B.1, B.5-B.8): entries of this block only (begin) -----------------------------------
def _sum_ij_written_out(m) -> str:
    """(27)'s middle side in the instance its step checks (M = 2, the range i, j = 1..2 the rewrite above made
    explicit): the double sum written out term by term, each term the printed summand with i, j put in (so a slip in
    the summand stays in every term), over the real line (p a density on R, here the step's N(0, 1): p_{H})."""
    summand = m.group(1)
    terms = []
    for i in (1, 2):
        for j in (1, 2):
            t = re.sub(r"_i\b", "_{%d}" % i, re.sub(r"_j\b", "_{%d}" % j, summand))
            terms.append(t.replace(r"\int p(x)", r"\int_{-\infty}^{\infty} p_{H}(x)"))
    return "(" + " + ".join(terms) + ")"


_H1_REWRITES = (
    # (23) in the instance the step of (23) = (24) checks, the one (24)-(25) and (28)-(29) are read in above: constant
    # f, g (their values f and g_x at one x), where int int [...] p(x) dx dy is the y-integral of [...] over the real
    # line (p a density: int p = 1); only the atoms f(x), g(x) are renamed, the printed factors stay
    (r"\int \left[\frac{\cos(y)}{2} e^{\frac{-(y-f(x))^2}{2\sigma^2}} - \frac{\cos(y)}{2} "
     r"e^{\frac{-(y-g(x))^2}{2\sigma^2}} \right] p(x) \mathrm{d}x \mathrm{d}y",
     r"\int_{-\infty}^{\infty} \left[\frac{\cos(y)}{2} e^{\frac{-(y-f)^2}{2\sigma^2}} - \frac{\cos(y)}{2} "
     r"e^{\frac{-(y-g_{x})^2}{2\sigma^2}} \right] dy"),
    # (27)'s middle side at the instance of its step (after the rewrite above that makes M = 2 explicit): the sum
    # written out (_sum_ij_written_out)
    (re.compile(r"\\sum_\{i=1\}\^\{2\} \\sum_\{j=1\}\^\{2\} (\\alpha_i \\alpha_j \\int p\(x\) .*? dx)"),
     _sum_ij_written_out),
)
_H1_SYMBOLS: dict = {
    # (27)'s instance, the step's: the orthonormal Hermite basis phi_1(x) = x, phi_2(x) = (x^2 - 1)/sqrt 2 of
    # L2(N(0, 1)) and p = the N(0, 1) density (the text: 'expand f in the orthonormal basis {phi_i}')
    "\\phi_{1}": lambda x: x,
    "\\phi_{2}": lambda x: (x**2 - 1) / sp.sqrt(2),
    "p_{H}": lambda x: sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi),
}
# -- session 32, helper h1 (end) --------------------------------------------------------------------------------------


# == helper h5 (s32): App. C ========================================================================================
# (155)-(156) in the instance their steps check, m = m* = 2 (transfer.relu_rkhs, transfer.coverage_c): the printed
# Gram matrices K (151), K* (152), K~ (153) and the teacher's readout c_* are the steps' own 2 x 2 matrices and
# 2-vector of symbols (the names and assumptions of derivations/transfer.py's Kc_, Ksc_, Ktc_, cs_; K and K* symmetric,
# as Gram matrices are), K^{-1} the inverse of that K (the step's K.inv()), m_* the steps' m_s. The printed squared L2
# norms ||P_par f_*(x)||^2, ||P_perp f_*(x)||^2, ||f_*||^2 are one name each (a name only: where a step's points carry
# their values, those are the step's least-squares projection's, computed without the print's matrices)
_KC = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"K_{min(i, j)}{max(i, j)}", real=True))
_KTC = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"Kt_{i}{j}", real=True))
_KSC = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"Ks_{min(i, j)}{max(i, j)}", real=True))
_CSC = sp.Matrix(sp.symbols("c_1 c_2", real=True))


def _rkhs_145(m) -> str:
    """(145)'s sum body with k(z_a, z_b) -> kappa_{a,b} and alpha_a -> \\check{alpha}_a (names only)."""
    body = re.sub(r"k\(\\boldsymbol\{z\}_(\w), \\boldsymbol\{z\}_(\w)\)", r"\\kappa_{\1,\2}", m.group(2))
    return m.group(1) + body.replace("\\alpha_", "\\check{\\alpha}_")


_REWRITES_C = (
    (r"\|P_{\parallel}f_{*}(\boldsymbol{x})\|_{L_{2}}^{2}", "q_{Ppar}"),
    (r"\|P_{\perp}f_{*}(\boldsymbol{x})\|_{L_{2}}^{2}", "q_{Pperp}"),
    (r"\|f_{*}\|_{L_{2}}^{2}", "q_{fs2}"),
    # (155)-(156)'s bold c_*, K~ (not (153)'s entry K~_ij), K^{-1} and K_*: the matrices themselves (\check names,
    # bound below), so that their products keep the printed order
    (r"\boldsymbol{c}_{*}", r"\check{c}_{*}"),
    (re.compile(r"\\tilde\{\\boldsymbol\{K\}\}(?!_)"), r"\check{\tilde{K}}"),
    (r"\boldsymbol{K}^{-1}", r"\check{K}_{inv}"),
    (r"\boldsymbol{K}_{*}", r"\check{K}_{*}"),
    # (145), (148): ||f||_k^2, the squared RKHS norm of f, one name (a name only: the steps compute it by (145))
    (r"||f||_{k}^{2}", "q_{fk2}"), (r"||f||_k^2", "q_{fk2}"),
    # (148) in the instance its step checks: a kernel of finite rank (k = sum_{l <= r} lambda_l^2 psi_l psi_l, r the
    # point's q_{rank}), where the terms past l = r are those of the eigenmodes with zero eigenvalue, on which f has no
    # support (the text after (148): 'functions with support on eigenmodes with zero eigenvalue are not in the RKHS')
    (r"\sum_{l=1}^{\infty} c_{l}", r"\sum_{l=1}^{q_{rank}} c_{l}"),
    # (149)-(150): int p(x) relu(w_i^T x) relu(w_j^T x), the expected overlap of two ReLU features under p = N(0, I_d)
    # (the text before (149)), one name (a name only: the step of (150) computes it by quadrature)
    (r"\int p(\boldsymbol{x}) \sigma(\boldsymbol{w}_i^T \boldsymbol{x}) \sigma(\boldsymbol{w}_j^T \boldsymbol{x})",
     "q_{Erelu}"),
    # (145): in the sum's body, k(z_a, z_b), the kernel at the points z_a, z_b, is the (a, b) entry of their Gram
    # matrix (one indexed name, \kappa_{a,b}) and alpha_a the coefficient of f = sum_a alpha_a k(., z_a) (\check, so
    # that no other display's alpha_i is touched): both bound below to the values the step's points carry
    (re.compile(r"(\\sum_\{ij\}\^M )(.*)$", re.S), _rkhs_145),
    # (147): T_k psi_l, the operator T_k of (146) applied to psi_l (at the step's point x), one name (a name only: the
    # step computes it by quadrature of (146))
    (r"T_k \psi_l", "q_{Tkpsi}"),
)
_SYMBOLS_C = {
    "\\check{c}_{*}": _CSC, "\\check{\\tilde{K}}": _KTC, "\\check{K}_{inv}": _KC.inv(), "\\check{K}_{*}": _KSC,
    "m_{*}": sp.Symbol("m_s", positive=True),
    "q_{Ppar}": sp.Symbol("Ppar2", nonnegative=True), "q_{Pperp}": sp.Symbol("Pperp2", nonnegative=True),
    "q_{fs2}": sp.Symbol("fs2", nonnegative=True),
    # (145), (148): the squared RKHS norm; (148)'s c_l = <f, psi_l>, lambda_l (T_k's eigenvalue lambda_l^2, as the
    # text's Mercer decomposition {lambda_l^2, psi_l} before (147) and (154) name it) and the rank of the instance's
    # kernel: the vectors and the number its step's points carry (entries numbered from 1)
    "q_{fk2}": sp.Symbol("fk2", nonnegative=True),
    "c_{l}": sp.IndexedBase("c_psi")[sp.Symbol("l")], "\\lambda_{l}": sp.IndexedBase("lam_psi")[sp.Symbol("l")],
    "q_{rank}": sp.Symbol("rank_k", positive=True, integer=True),
    "q_{Erelu}": sp.Symbol("E_relu_ij", nonnegative=True),       # (149)-(150): E_p relu(w_i.x) relu(w_j.x), a name
    # (145): sum_{ij}^M is the sum over i, j = 1..M (M the number of points z_i, as (144) says), alpha_i the
    # coefficients of f = sum_i alpha_i k(., z_i) and kappa_ij = k(z_i, z_j): the vector, the Gram matrix and the
    # number M its step's points carry (entries numbered from 1)
    "\\sum_{ij}^{M}": lambda body: sp.Sum(sp.Sum(body, (sp.Symbol("j"), 1, sp.Symbol("M"))),
                                          (sp.Symbol("i"), 1, sp.Symbol("M"))),
    "\\check{\\alpha}": sp.IndexedBase("alpha_k"), "\\kappa": sp.IndexedBase("k_zz"),
    # (147): (T_k psi_l)(x), a name; psi_l the eigenfunction psi_l(x) at the step's point x (the vector psi_x of
    # psi_1(x), psi_2(x), ... its points carry, entries numbered from 1; lambda_l and l as in (148) above)
    "q_{Tkpsi}": sp.Symbol("Tk_psi_l", real=True), "\\psi": sp.IndexedBase("psi_x"),
}
# == end of helper h5's block =======================================================================================


NOTATION = NotationMap(rewrites=notation_002_b.REWRITES + (
    # (14): E_D R_sc is the scratch risk of (8), as the text defines it
    (r"\mathbb{E}_{\mathcal{D}}\mathcal{R}_{\mathrm{sc}}", r"R_{sc}"),
    # (31): ||f - g||^2 is the entry's argument dist_sq
    (r"\|f - g\|_{L_2(p)}^2", r"\Delta"),
    # (150): u_ij is the cosine u (the display's own 'u(pi - arccos u_ij)' is u_ij times, not u applied)
    (r"u_{ij}", "u"),
    # (24)-(25) in the instance their step checks: constant f, g (the values f(x), g(x) at one x: f and g_x), where
    # int [...] p(x) dx is [...] (p a density: int p = 1). The printed inequality is false (erratum 002-eq25) and
    # fails in this instance already (f = g)
    (r"\int \left[\cos(f(x)) - \cos(g(x)) \right] p(x) dx", r"\left[\cos(f) - \cos(g_{x}) \right]"),
    (r"\int \left[f(x)^2 + g(x)^2 \right] p(x) dx", r"\left[f^2 + g_{x}^2 \right]"),
    # (28)-(29) in the same instance, the one the steps of (29) and (30) check: constant f, g (their values f and g_x
    # at one x), where the double integral int int p(x) [...] dx dy is the y-integral of [...] over the real line (p a
    # density: int p = 1); inside the integral only the atoms f(x), g(x) are renamed, the printed factors stay
    (re.compile(r"\\int p\(x\) ?(e\^\{-\\frac\{\(y-f\(x\)\)\^2\}\{2\\sigma\^2\}\})(.*?)"
                r"(?:\\mathrm\{d\}x\\mathrm\{d\}y|dxdy)", re.S), _kl_instance),
    # (30) in the same instance: the L2(p) norms and inner product of the constant f, g are |f|, |g_x| and f g_x (p a
    # density), atom by atom
    (r"\|f\|_{L_2}^2", r"f^{2}"), (r"\|g\|_{L_2}^2", r"g_{x}^{2}"), (r"\langle f, g\rangle", r"f g_{x}"),
    # (27) in the instance its step checks: M = 2 (the Hermite basis phi_1, phi_2 of L2(N(0, 1))), the sums' range
    # i, j = 1..M made explicit
    (r"\sum_{i,j} \alpha_i \alpha_j", r"\sum_{i=1}^{2} \sum_{j=1}^{2} \alpha_i \alpha_j"),
    (r"= \sum_i \alpha_i^2", r"= \alpha_{1}^2 + \alpha_{2}^2"),
    # (107), (124) (and the lead of (108), (125)): ||beta_hat - beta_t||^2 with c = beta_hat - beta_t in d = 2, the
    # instance the step of (88)/(107)/(124) checks (c = (c_1, c_2))
    (r"\|\hat{\boldsymbol{\beta}} - \boldsymbol{\beta}_{t}\|_{2}^{2}", r"(c_{1}^{2} + c_{2}^{2})"),
    # (108): E_{X,eps} b^2 and E_{X,eps} b, the second and first moments of b (the 'cos theta E b' is cos(theta)
    # times E b, not the cosine of a product)
    (r"\mathbb{E}_{\boldsymbol{X},\boldsymbol{\epsilon}} b^2", r"m_{b2}"),
    (r"2\cos\theta \mathbb{E}_{\boldsymbol{X},\boldsymbol{\epsilon}} b", r"2\cos(\theta) m_{b1}"),
    # (112)-(113): E_z 1/||z||_2^2 for z ~ N(0, I_n), the text's z = X beta_s (before (109)), as one name (a name
    # only: its value is the steps')
    (r"\mathbb{E}_{\boldsymbol{z}}\frac{1}{\|\boldsymbol{z}\|_2^2}", r"\mathcal{M}"),
    (r"\mathbb{E}_{\boldsymbol{z}} \frac{1}{\|\boldsymbol{z}\|_{2}^{2}}", r"\mathcal{M}"),
    # (111)-(112): E_{z,w,eps} b^2 is E_{X,eps} b^2 after the text's change of variables z = X beta_s, w = X nu
    # (before (109)): the second moment m_b2 of b, as (108) names it
    (r"\mathbb{E}_{\boldsymbol{z},\boldsymbol{w},\boldsymbol{\epsilon}}b^2", r"m_{b2}"),
    # (125), (136): I_1(n+2, lambda), the integral I_1(m, lambda) that (126) defines, at m = n + 2, as one name (a name
    # only: its value is the steps')
    (r"I_1(n+2,\lambda)", r"q_{I1np2}"),
    # (104)-(106): beta_{\rm s}, beta_{\rm t} are the text's beta_s, beta_t (upright subscripts, one name each)
    (r"\beta_{\rm s}", r"\beta_{s}"), (r"\beta_{\rm t}", r"\beta_{t}"),
    # (128)-(130): the integrals over (0, oo): the text after (131) says they come from (126)'s int_0^oo dr by the
    # changes of variables u = r^2/2 and t = u/n, which keep (0, oo)
    (r"\int \frac{u^{n/2} e^{-u}}{(2u+n\lambda)^2} du", r"\int_{0}^{\infty} \frac{u^{n/2} e^{-u}}{(2u+n\lambda)^2} du"),
    (r"\int \frac{t^{n/2}e^{-nt}}{(2nt+n\lambda)^2} dt",
     r"\int_{0}^{\infty} \frac{t^{n/2}e^{-nt}}{(2nt+n\lambda)^2} dt"),
    # (130): f and g as the text after (131) defines them, f(t) = (1/2) log t - t and g(t) = (2nt + n lambda)^-2
    # (log: the natural logarithm, as the saddle point t_0 = 1/2 it derives needs)
    (r"\int g(t)e^{nf(t)}dt", r"\int_{0}^{\infty} (2nt+n\lambda)^{-2} e^{n(\frac{1}{2} \ln t - t)} dt"),
) + _H1_REWRITES + _REWRITES_C, symbols={
    "R_{sc}": sp.Piecewise((((1 - _g) ** 2 + _g * _s**2) / (1 - _g), _g < 1), (_s**2 / (_g - 1), True)),
    "\\Delta": sp.Symbol("dist_sq", nonnegative=True),
    "u": sp.Symbol("u", real=True),
    "n": _n,               # n(2n)^{n/2} is n times, never n applied
    # S_{n-1}: the area of the unit sphere in R^n, as the text after (114) says
    "S": lambda k: 2 * sp.pi ** ((k + 1) / 2) / sp.gamma((k + 1) / 2),
    "\\Gamma": sp.gamma,
    "\\alpha_{1}": sp.Symbol("a_1", real=True), "\\alpha_{2}": sp.Symbol("a_2", real=True),  # (27), M = 2
    "g_{x}": sp.Symbol("g_x", real=True),                           # (24)-(25): g's value at one x
    "c_{1}": sp.Symbol("c1", real=True), "c_{2}": sp.Symbol("c2", real=True),  # (107): beta_hat - beta_t, d = 2
    "m_{b1}": sp.Symbol("m_b1", real=True), "m_{b2}": sp.Symbol("m_b2", nonnegative=True),  # (108): E b, E b^2
    "\\langle\\cdot\\rangle_{L_2}": _overlap,                           # (149)-(153): the overlap of two features
    "\\mathcal{M}": sp.Symbol("inv_z2_mean", positive=True),      # E_z 1/||z||^2 of (112)-(113), a name
    "q_{I1np2}": sp.Symbol("I1_np2", positive=True),                 # (126)'s I_1 at m = n + 2, a name
    # \mathcal{M} (E_z 1/||z||^2, (112)-(113)) and I_1, I_2 ((125)-(127)) have no value here: their value under the
    # chi^2_n law of ||z||^2 is a probability law, mathematics a step states, never notation
    # (9), (12), (118) at d = 1 (the step of (12) = (118)): Phi, y_t numbers, Phi^T = Phi (a number's transpose),
    # I_d = I_1 = 1; argmin over W_L the operator (9) and (12) print
    "\\Phi": _PHI, "\\Phi^{T}": _PHI, "y_{t}": _YT, "y_{\\mathrm{t}}": _YT, "I_{d}": sp.Integer(1),
    "\\argmin_{\\hat{W}_{L}\\in \\mathbb{R}^{d}}": _argmin_wl,
    # beta_s, beta_t (source and target weights, Assumption 3.1) as the steps name them
    "\\beta_{s}": sp.Symbol("beta_s", real=True), "\\beta_{t}": sp.Symbol("beta_t", real=True),
    **notation_002_b.SYMBOLS,
    **_H1_SYMBOLS,           # the App. B.1, B.5-B.8 block above
    **_SYMBOLS_C,            # the App. C block above
},
    # #35 (PARSE_FORMAT 7): an undeclared letter subscript is part of a name (u_f is "u_{f}"); these bases are read
    # indexed as before, x_i = x[i] (the steps and the shipped parses use them so)
    indexed=("D", "P", "W", "W^{T}", "\\Theta", "\\bar{W}", "\\beta^{T}", "\\hat{W}", "\\mathbb{E}", "\\mathcal{L}",
             "\\nu", "\\sigma", "c", "c^{*}", "c_psi", "froW", "froWbar", "lam_psi", "p", "r", "u", "v", "v^{T}", "w^{*}",
             "w^{T}", "z"))
