"""features-are-fate App. C ((145), (147), (148), (150), (155), (156)): the machine comparison with the print, and planted
slips that must stop it matching (issue #24; derivations/transfer.py: transfer.relu_rkhs, transfer.coverage_c;
derivations/notation_002.py: helper h5's block)."""
from __future__ import annotations

import pytest

from theorylab.testing import label_status

PAPER = "features-are-fate"

# label -> the status it reaches as printed
EXPECTED = {
    "(145)": "rewritten whole",       # (#35) a printed side replaced whole by the map
    # (147) as printed (eigenvalue lambda_l) is stated by a step that fails as erratum 002-eq147 (the eigenvalue of
    # T_k is lambda_l^2); the comparison is at the erratum's counterexample
    "(147)": "rewritten whole",       # (#35) a printed side replaced whole by the map
    "(148)": "rewritten whole",       # (#35) a printed side replaced whole by the map
    "(150)": "matches the print",
    "(155)": "rewritten whole",       # (#35) a printed side replaced whole by the map
    # (156)'s last link (the matrix formula) is compared with the least-squares residual; its first link between the
    # names ||P_perp f*||^2 and ||f*||^2 - ||P_par f*||^2 (the step's own values) is not
    "(156)": "rewritten whole",       # (#35) a printed side replaced whole by the map
}

# (label, printed text, slip): each slip must stop the label matching
SLIPS = [
    ("(145)", r"\alpha_i k(\boldsymbol{z}_i, \boldsymbol{z}_j) \alpha_j",
     r"\alpha_i k(\boldsymbol{z}_i, \boldsymbol{z}_j) \alpha_i"),
    ("(145)", r"k(\boldsymbol{z}_i, \boldsymbol{z}_j)", r"k(\boldsymbol{z}_i, \boldsymbol{z}_i)"),
    ("(145)", r"\alpha_j", r"\alpha_j^2"),
    ("(147)", r"\lambda_l \psi_l", r"\lambda_l^3 \psi_l"),
    ("(147)", r"= \lambda_l \psi_l", r"= \lambda_l"),                       # psi_l(x) = 3/2 at the counterexample
    ("(147)", r"\lambda_l \psi_l", r"\lambda_l \psi_l^2"),
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
    # compared by value: the planted display still parses (a slip that broke the parse would prove nothing)
    assert status not in ("matches the print", "partly compared", "not parsed"), (label, new, why)


def test_the_156_match_is_not_the_steps_own_arithmetic():
    """(156)'s compared link is its printed matrix formula (evaluated from the points' K, K~, K*, which the entry (150)
    gives, and the inputs c*, m*), never the name link ||P_perp f*||^2 = ||f*||^2 - ||P_par f*||^2 alone."""
    status, why = label_status(PAPER, "(156)")
    assert status == "rewritten whole" and "q_{Pperp}" in why, why           # (#35): no longer counted


def test_147_as_printed_fails_as_its_erratum_and_the_eigenvalue_lambda_squared_holds():
    """(147) as printed, T_k psi_l = lambda_l psi_l, is refuted at erratum 002-eq147's counterexample ((T_k psi_l)(x)
    by Gauss-Hermite quadrature of (146)); the amended T_k psi_l = lambda_l^2 psi_l holds at the search points."""
    from theorylab._decide.derivation import AS_PRINTED, Amendment
    from theorylab._pipeline import catalogue

    d = next(d for d in catalogue.derivations() if d.key == "transfer.coverage_c")
    steps = [s for s in d.steps if "(147)" in s.cites]
    printed = [s for s in steps if s.fidelity == AS_PRINTED]
    amended = [s for s in steps if isinstance(s.fidelity, Amendment)]
    assert len(printed) == 1 and len(amended) == 1
    assert printed[0].erratum is not None and printed[0].erratum.key == "002-eq147"
    assert printed[0].erratum.severity == "typo"
    out = printed[0].check()
    assert not out.holds and out.strength == "refuted", out
    assert "lhs = 6" in out.detail and "rhs = 3" in out.detail, out.detail
    assert amended[0].fidelity.key == "002-eq147-eigenvalue" and amended[0].fidelity.root == "002-eq147"
    out = amended[0].check()
    assert out.holds, out
