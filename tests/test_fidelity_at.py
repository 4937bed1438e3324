"""adaptive-tangent (seed 003) against its print by machine (#24): the labels whose printed optimum over one real
variable (\\min_{1 <= z <= v}, \\min_{z >= 1}) is evaluated at the steps' points, with the printed omega the point's own
penalty (omega_solver.OmegaPoint); each match, and a slip planted in the print that stops it."""
from __future__ import annotations

import re

import pytest

from theorylab.testing import label_status

PAPER = "adaptive-tangent"


@pytest.mark.parametrize("label, status, slips", [
    # (11): the objective's second argument, the kind of optimum
    ("(11)", "matches the print", ((r"\omega_{2}(\tfrac{v}{z})", r"\omega_{2}(\tfrac{z}{v})"),
                                   (r"\omega_{2}(\tfrac{v}{z})", r"\omega_{1}(\tfrac{v}{z})"),
                                   (r"\min_{1\leq z\leq v}", r"\max_{1\leq z\leq v}"),
                                   (r"\omega_{1}(z)+", r"\omega_{1}(2z)+"))),
    # (12): its first link (its second, Omega~_omega(M) = Omega_omega~(M), is one name for another: not compared)
    # (#35: a citing 'as printed' step, the KKT condition of its argmin, states another relation: not decisive)
    ("(12)", "differs, not decisive", ((r"\frac{v^{2}}{z^{2}}", r"\frac{v^{2}}{z}"),
                                 (r"\min_{z\geq 1}", r"\min_{z\geq 2}"),
                                 (r"\omega(z)+", r"2\omega(z)+"))),
    # (23): two of the three links of its chain (its last, min over [1, v1] = (omega1 (+) omega2)(v1), is (11) at v1:
    # a step with those values states the middle link as well, which the comparison takes first); a slip in either
    # minimum (a bound v1 <-> v2 is none: the middle equality says the two minima are one)
    ("(23)", "partly compared", ((r"\omega_{2}(\tfrac{v_{1}}{z})=", r"\omega_{2}(\tfrac{v_{2}}{z})="),
                                 (r"\omega_{2}(\tfrac{v_{1}}{z})=", r"\omega_{1}(\tfrac{v_{1}}{z})="),
                                   (r"\omega_{2}(\tfrac{v_{1}}{z})=(\omega", r"\omega_{2}(\tfrac{2v_{1}}{z})=(\omega"),
                                   (r"\min_{1\leq z\leq v_{2}}", r"\min_{2\leq z\leq v_{2}}"))),
])
def test_a_printed_minimum_matches_and_a_planted_slip_does_not(label, status, slips):
    got, why = label_status(PAPER, label)
    assert got == status, (label, got, why)
    before = _links_compared(got, why)
    for old, new in slips:
        planted, pwhy = label_status(PAPER, label, old, new)
        # the slipped link is compared no more: fewer links compared (a partly compared label keeps its other links)
        assert planted != "matches the print" and (_links_compared(planted, pwhy) < before or not before), (
            label, old, new, planted, pwhy)


def _links_compared(status: str, why: str) -> float:
    """How many printed links a label's comparison covers: all of them (inf) for a match, k for "partly compared
    (k of n links)", none otherwise."""
    if status == "matches the print":
        return float("inf")
    m = re.search(r"partly compared \((\d+) of \d+ links\)", why)
    return int(m.group(1)) if status == "partly compared" and m else 0
