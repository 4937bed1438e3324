"""sigmoid-paper's tests: the contract suite, the two errata confirmed, and a planted mistake the evidence catches."""
import numpy as np

import theorylab
from theorylab.authoring import Context, ode_check
from theorylab.testing import contract_tests

TestContract = contract_tests("sigmoid-paper", cli=False, max_examples=10)


def test_the_papers_errors_are_confirmed_and_nothing_true_is_flagged():
    from sigmoid_paper.entries import DERIVATIONS
    results = DERIVATIONS[0].check()
    assert all(r.ok for r in results) and sum(r.step.erratum is not None for r in results) == 2


def test_a_planted_factor_in_the_sigmoid_fails_the_ode_check():
    u_f = theorylab.get("sigmoid_paper.u_f")
    wrong = ode_check("sigmoid_paper.u_f", "planted", system=lambda t, u: 2 * u * (1 - u), y0=[0.01],
                      times=np.linspace(0, 5, 11), solution=lambda t: u_f(t=1.001 * t, tau=1.0, s=1.0, u_0=0.01))
    assert not wrong[0].passed


def test_the_evidence_passes():
    from sigmoid_paper.checks import CHECKS
    assert all(r.passed for c in CHECKS[:2] for r in c.evaluate(Context(profile="quick")))
