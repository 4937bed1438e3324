"""The minnorm paper's own tests: its derivation, its entries against independent references, its bad inputs,
its evidence on the quick profile, and a planted mistake that the evidence must catch."""
import dataclasses

import pytest

import theorylab
from theorylab.authoring import Context, DomainError
from theorylab.testing import contract_tests
from theorylab_minnorm import checks, entries

# the contract every entry of every paper meets: reference, stable form, torch, bad input, CLI, LaTeX, derivation
TestMinnormContract = contract_tests("minnorm")


def test_derivation_holds_and_its_weakest_link_is_the_quadrature():
    derivation = entries.DERIVATIONS[0]
    results = derivation.check()
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert derivation.weakest(results).step.label.startswith("Marchenko-Pastur")


def test_displayed_form_is_the_formula():
    assert entries.ENTRIES[0].check_display().holds
    assert r"\|\beta\|^{2} \left(1 - \frac{1}{\gamma}\right)" in entries.ENTRIES[0].latex()


@pytest.mark.parametrize("gamma", [0.1, 0.5, 0.99, 1 + 1e-12, 1.001, 2.0, 1e5])
def test_risk_against_the_formula_in_mpmath(gamma):
    risk = entries.ENTRIES[0]
    assert risk(gamma=gamma, r=1.5, sigma=0.5) == pytest.approx(risk.reference_value(gamma=gamma, r=1.5, sigma=0.5),
                                                                 rel=1e-12)


@pytest.mark.parametrize("gamma", [0.05, 0.3, 0.5, 0.9])
def test_inverse_moment_against_quadrature(gamma):
    moment = entries.ENTRIES[2]
    assert moment(gamma=gamma) == pytest.approx(moment.reference_value(gamma=gamma), rel=1e-12)


def test_finite_size_risk_tends_to_the_limit():
    finite, risk = entries.ENTRIES[1], entries.ENTRIES[0]
    for gamma in (0.5, 2.0):
        n = 10**6
        assert finite(n=n, d=int(gamma * n), r=1.0, sigma=1.0) == pytest.approx(risk(gamma=gamma, r=1.0, sigma=1.0),
                                                                                rel=1e-5)


def test_bad_input_is_one_line_naming_the_parameter():
    with pytest.raises(DomainError, match=r"^gamma must not be 1 \(the risk diverges"):
        theorylab.get("minnorm.risk")(gamma=1.0, r=1.0, sigma=1.0)
    with pytest.raises(DomainError, match=r"^n and d must satisfy n < d - 1 or n > d \+ 1"):
        theorylab.get("minnorm.risk_finite")(n=10, d=11, r=1.0, sigma=1.0)


def test_evidence_passes_on_the_quick_profile():
    ctx = Context(profile="quick")
    records = [r for c in checks.CHECKS for r in c.evaluate(ctx)]
    assert len(records) == 11 and all(r.passed for r in records), [r for r in records if not r.passed]


def test_a_planted_factor_is_caught(monkeypatch):
    """A 5% error in the finite-size formula fails the Monte Carlo check (it can fail)."""
    wrong = dataclasses.replace(checks.FINITE, formula=1.05 * checks.FINITE.formula,
                                stable_form=1.05 * checks.FINITE.stable_form)
    monkeypatch.setattr(checks, "FINITE", wrong)
    records = checks.CHECKS[0].evaluate(Context(profile="quick"))
    assert not all(r.passed for r in records)
