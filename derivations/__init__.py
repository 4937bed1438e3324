"""The built-in papers: each a Paper record naming its families' modules (entries here, checks in verify/).

Installed as `theorylab.derivations` and registered through the `theorylab.papers` entry points of theorylab's
pyproject.toml, exactly as an outside paper is; declaring them imports none of their modules.
"""
import re

import sympy as sp

from theorylab.paper import Family, Paper
from theorylab.sources import NotationMap

__all__ = ["PTFT_DIAGONAL", "PTFT_RELU", "FEATURES_ARE_FATE", "ADAPTIVE_TANGENT", "PAPERS"]

_D, _V = "theorylab.derivations", "theorylab.verify"


def _family(name: str) -> Family:
    return Family(name=name, entries=f"{_D}.{name}", checks=f"{_V}.{name}")


# -- notation maps: the sources' LaTeX in the symbols of the papers' steps (#24) ------------------------------------
# Symbols unify by name already (a parsed \gamma is the step's gamma, \lambda its lam); a map names what differs: the
# steps' shorthands for printed sub-expressions, indexed symbols taken per unit, and the source's own misprints of
# layout (an unbalanced parenthesis), never its mathematics.

NOTATION_000 = NotationMap(rewrites=(
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

NOTATION_001 = NotationMap(rewrites=(
    # the steps' unit: w_hat = (cos theta, sin theta), w_0h^(1) = (y_1, y_2) in d = 2 (relu_proofs.py)
    (r"\|\boldsymbol{w}_{0h}^{(1)}\|_2", r"\sqrt{y_1^2 + y_2^2}"),
    (r"\langle \hat{\boldsymbol{w}}_h, \boldsymbol{w}_{0h}^{(1)} \rangle", r"\cdot (y_1 \cos\theta + y_2 \sin\theta)"),
    # the conditioning bar of r~(w_hat, m | w_0, gamma) and R(w | w_0, gamma): the arguments are names
    (re.compile(r"\\tilde\{([rR])\}\(.*?\|.*?\\gamma\)"), r"\tilde{\1}"),
    (re.compile(r"(?<![A-Za-z\\])R\(w\s*\|.*?\\gamma\)"), "R"),
), symbols={"m_{h}": sp.Symbol("m", real=True), "m_{0h}^{(1)}": sp.Symbol("m_0", nonnegative=True),
            "\\rho_{h}": sp.Symbol("rho", real=True)})


_g, _s = sp.Symbol("gamma", positive=True), sp.Symbol("sigma", nonnegative=True)
NOTATION_002 = NotationMap(rewrites=(
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
})

NOTATION_003 = NotationMap(rewrites=(
    # (22) per coordinate, in the one-coordinate instance of its steps ('A.1, (22): min_m m^2 + b^2/m^2 = 2b'):
    # beta_j is their b, the sum over j = 1..P its one term, ||beta||_1 = |b|
    (r"\widetilde{\Omega}({\bm{\beta}})=\sum_{j=1}^{P}2|\beta_{j}|=2\|{\bm{\beta}}\|_{1}",
     r"\widetilde{\Omega}(b)=2|b|=2|b|"),
))

PTFT_DIAGONAL = Paper(
    name="ptft-diagonal",
    title="Implicit regularization of multi-task learning and pretraining + finetuning in diagonal linear networks "
          "(appendix: Q-penalty, l1,2 reduction, participation ratio and ENSD)",
    source="000_a994d0e1146a9c4a.txt",
    source_file="sources/000_a994d0e1146a9c4a.txt",
    families=(_family("qpenalty"), _family("l12"), _family("measure")),
    coverage=f"{_D}.coverage_000",
    figures=(f"{_V}.figures_000",),
    notation=NOTATION_000,
)

PTFT_RELU = Paper(
    name="ptft-relu",
    title="The implicit regularization penalty of PT+FT in shallow ReLU networks, via a quartic",
    source="001_47508cf19f540f71.txt",
    source_file="sources/001_47508cf19f540f71.txt",
    families=(_family("relu"),),
    coverage=f"{_D}.coverage_001",
    figures=(f"{_V}.figures_001",),
    notation=NOTATION_001,
)

FEATURES_ARE_FATE = Paper(
    name="features-are-fate",
    title="Features are Fate: a theory of transfer learning in high-dimensional regression",
    source="002_a6e10e5d8d1167fd.txt",
    source_file="sources/002_a6e10e5d8d1167fd.txt",
    families=(_family("transfer"),),
    coverage=f"{_D}.coverage_002",
    figures=(f"{_V}.figures_002",),
    notation=NOTATION_002,
)

ADAPTIVE_TANGENT = Paper(
    name="adaptive-tangent",
    title="An Adaptive Tangent Feature Perspective of Neural Networks (LeJeune and Alemohammad)",
    source="003_682109963104011b.txt",
    source_file="sources/003_682109963104011b.txt",
    families=(_family("omega"),),
    coverage=f"{_D}.coverage_003",
    figures=(f"{_V}.figures_003",),
    notation=NOTATION_003,
)

PAPERS = (PTFT_DIAGONAL, PTFT_RELU, FEATURES_ARE_FATE, ADAPTIVE_TANGENT)
