"""features-are-fate App. C ((145), (148), (150), (155), (156)): the machine comparison with the print, and planted
slips that must stop it matching (issue #24; derivations/transfer.py: transfer.relu_rkhs, transfer.coverage_c;
derivations/notation_002.py: helper h5's block)."""
from __future__ import annotations

import pytest

from theorylab.testing import label_status

PAPER = "features-are-fate"

# label -> the status it reaches as printed
EXPECTED = {
    "(145)": "matches the print",
    "(148)": "matches the print",
    "(150)": "matches the print",
    "(155)": "matches the print",
    # (156)'s last link (the matrix formula) is compared with the least-squares residual; its first link between the
    # names ||P_perp f*||^2 and ||f*||^2 - ||P_par f*||^2 (the step's own values) is not
    "(156)": "partly compared",
}

# (label, printed text, slip): each slip must stop the label matching
SLIPS = [
    ("(145)", r"\alpha_i k(\boldsymbol{z}_i, \boldsymbol{z}_j) \alpha_j",
     r"\alpha_i k(\boldsymbol{z}_i, \boldsymbol{z}_j) \alpha_i"),
    ("(145)", r"k(\boldsymbol{z}_i, \boldsymbol{z}_j)", r"k(\boldsymbol{z}_i, \boldsymbol{z}_i)"),
    ("(145)", r"\alpha_j", r"\alpha_j^2"),
    ("(148)", r"c_{l}^{2} / \lambda_{l}^{2}", r"c_{l}^{2} / \lambda_{l}"),      # (147)'s eigenvalue lambda_l
    ("(148)", r"c_{l}^{2} / \lambda_{l}^{2}", r"c_{l} / \lambda_{l}^{2}"),
    ("(150)", r"\sqrt{1 - u_{ij}^2}", r"\sqrt{1 + u_{ij}^2}"),
    ("(150)", r"\frac{1}{2\pi}", r"\frac{1}{\pi}"),
    ("(150)", r"(\pi - \arccos u_{ij})", r"(\pi + \arccos u_{ij})"),
    ("(155)", r"\frac{1}{m_{*}}\boldsymbol{c}", r"\frac{1}{m}\boldsymbol{c}"),
    ("(155)", r"\tilde{\boldsymbol{K}}^{T}\boldsymbol{K}^{-1}\tilde{\boldsymbol{K}}\boldsymbol{c}",
     r"\tilde{\boldsymbol{K}}\boldsymbol{K}^{-1}\tilde{\boldsymbol{K}}^{T}\boldsymbol{c}"),
    ("(156)", r"\boldsymbol{K}_{*}\boldsymbol{c}_{*} - \frac{1}{m_{*}}", r"\boldsymbol{K}_{*}\boldsymbol{c}_{*} - \frac{2}{m_{*}}"),
    ("(156)", r"\boldsymbol{c}_{*}^{T}\boldsymbol{K}_{*}", r"\boldsymbol{c}_{*}^{T}\tilde{\boldsymbol{K}}"),
]


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_app_c_label_is_compared_with_the_print(label):
    status, why = label_status(PAPER, label)
    assert status == EXPECTED[label], why


@pytest.mark.parametrize("label, old, new", SLIPS)
def test_a_planted_slip_stops_the_match(label, old, new):
    status, why = label_status(PAPER, label, old, new)
    assert status not in ("matches the print", "partly compared"), (label, new, why)


def test_the_156_match_is_not_the_steps_own_arithmetic():
    """(156)'s compared link is its printed matrix formula (evaluated from the points' K, K~, K*, which the entry (150)
    gives, and the inputs c*, m*), never the name link ||P_perp f*||^2 = ||f*||^2 - ||P_par f*||^2 alone."""
    status, why = label_status(PAPER, "(156)")
    assert "1 of 2 links" in why and "Ks_{00}" in why, why
