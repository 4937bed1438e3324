"""#24, session 32: labels of ptft-diagonal (seed 000) and ptft-relu (seed 001) newly machine-compared, each with a
slip planted in the printed display that must stop it matching (theorylab.testing.label_status)."""
import pytest

from theorylab.testing import label_status

MATCH = "matches the print"


def _planted(paper, label, slips, pristine=MATCH):
    st, why = label_status(paper, label)
    assert st == pristine, (label, st, why)
    for old, new in slips:
        st, why = label_status(paper, label, old, new)
        assert st != MATCH, (label, old, new, st, why)


def test_diagonal_eq18_first_line_at_d0_zero():
    """(18), the first line of (18)-(19), is the whole relation where (19)'s d0 term vanishes (d0 = 0): compared with
    the erratum step (the factor 2 of 000-A-eq18-19, beta of (17) computed independently); another coefficient (3; 1
    is the true one, which the step's left side computes and so would rightly match) or another rate in the first
    exponent (-2 for -4: the side stays nonzero) planted in the print stops the match"""
    _planted("ptft-diagonal", "(18)", ((r"2\vec{s}_0^2", r"3\vec{s}_0^2"),
                                       (r"\exp \left(-4X^\top", r"\exp \left(-2X^\top")),
             # (#35) the step '(18)-(19) as written', declared as printed, states another relation: not decisive
             pristine="differs, not decisive")


def test_diagonal_eq25_both_outputs():
    """(25) in D = 1, O = 2, o the printed output index: the coefficient of x_d in output o of the diagonal network on
    [x, -x]; a flipped branch sign or a + weight read in the - branch stops the match"""
    _planted("ptft-diagonal", "(25)", (("- w_{-,o,d}^{(2)}", "+ w_{-,o,d}^{(2)}"),
                                       (r"w_{-,o,d}^{(2)} \circ w_{-,d}^{(1)}", r"w_{-,o,d}^{(2)} \circ w_{+,d}^{(1)}")))



def test_relu_eq1_one_unit():
    """ptft-relu (1) for one unit with scalar weights (H = 1, d = 1): the printed sum against the unit computed
    through the text's (w_hat, m); a dropped (.)_+ or a squared readout weight planted in the print stops the match"""
    _planted("ptft-relu", "(1)", ((r"w_h^{(2)}(\langle \boldsymbol{w}_h^{(1)}, x \rangle)_+",
                                   r"w_h^{(2)} \cdot \langle \boldsymbol{w}_h^{(1)}, x \rangle"),
                                  (r"w_h^{(2)}(\langle", r"(w_h^{(2)})^2(\langle")))


def test_diagonal_eq32_one_unit_scalar_weights():
    """(32) for one unit with scalar weights (H = 1, h = 1, d = O = 1): theta_h and m_h read off the unit's function
    (the unit input +-1 where it is active, its output there) against the printed w/|w| and w2 |w1|; a squared norm
    in m_h or a factor 2 in theta_h planted in the print stops the match"""
    _planted("ptft-diagonal", "(32)", ((r"\|_2, \vec{\theta}", r"\|_2^2, \vec{\theta}"),
                                       (r"w_h^{(1)} / \|", r"w_h^{(1)} \cdot 2 / \|")),
             pristine="differs, not decisive")      # (#35) the step '(33): a ReLU unit ...' states another relation
