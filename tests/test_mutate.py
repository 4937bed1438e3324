"""Mutation testing: planted standard mistakes are caught, equivalent mutants are excluded, and the quick
profile over the built-in papers leaves no survivor (the CI gate of 'every check can fail'); every layer has its own
score; the per-check view finds a check that cannot fail (a self-comparison, a tolerance that swallows the error, a
check that never calls its entry), on a stated sample of the built-in papers' cheap checks and on the scaffold's."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import theorylab
from theorylab._tools import mutate
from theorylab._decide.entry import Entry, Source
from theorylab._records.params import scalar
from helpers import run_cli


def _toy(reference=None, formula=None):
    x = scalar("x", low=0.5, high=4.0)
    f = formula if formula is not None else x.symbol**2 / (1 + x.symbol)
    return Entry(id="toy.f", title="toy", source=Source("toy", "eq (1)"), doc="", params=(x,), formula=f,
                 reference=reference)


def test_mutants_of_the_standard_set_are_generated():
    ops = {m.op for m in mutate.mutants(_toy())}
    assert {"sign flip", "factor 2", "exponent + 1", "exponent - 1"} <= ops


def test_a_formula_mutant_is_caught_by_an_independent_reference_and_not_by_a_copy():
    def indep(x):
        """x^2 / (1 + x) by exact rational arithmetic."""
        from fractions import Fraction
        q = Fraction(x)
        return float(q * q / (1 + q))

    caught = mutate.run([_toy(reference=indep)], layers=("contract",))
    assert caught and all(r.caught_by == ("contract",) for r in caught if not r.equivalent)
    # a "reference" that is the kernel's own expression catches nothing: every mutant survives
    toy = _toy()
    copy = mutate.run([toy], layers=("contract",))
    assert [r for r in copy if r.survived] and not any(r.caught_by for r in copy)


def test_equivalent_mutants_are_excluded_from_the_score():
    x = scalar("x", low=-2.0, high=2.0)
    even = Entry(id="toy.even", title="t", source=Source("toy", "eq (2)"), doc="", params=(x,),
                 formula=sp.cos(x.symbol), reference=lambda x: float(np.cos(x)))
    res = mutate.run([even], layers=("contract",))
    # cos(x) -> cos(x)**2 etc. are caught; no survivors, and the score counts only non-equivalent mutants
    caught, counted, _ = mutate.score(res)
    assert caught == counted


def test_the_entry_is_restored_after_each_mutant():
    q = theorylab.get("qpenalty.q")
    before = q(z=1.0), q.formula, q.stable_form
    mutate.run([q], layers=("contract",))
    assert (q(z=1.0), q.formula, q.stable_form) == before


def test_quick_mutation_profile_catches_every_mutant_of_the_built_in_papers(tmp_path):
    """CI gate: a mutant that survives every layer is a check that cannot fail (first catch: the layers' own scores
    are the next test's); the coverage view lists the entries in no derivation step or evidence check."""
    out = tmp_path / "mutants.json"
    code, text, err = run_cli("mutate", "--view", "entries,coverage", "--first-catch", "--json", str(out))
    record = json.loads(out.read_text())
    survivors = [m for m in record["mutants"] if m["survived"]]
    assert code == 0 and not survivors, "\n".join(f"{m['entry']} {m['target']} {m['op']}: {m['description']}"
                                                  for m in survivors)
    assert record["score"]["counted"] >= 100
    gaps = {c["entry"]: c["gaps"] for c in record["coverage"] if c["gaps"]}
    # every entry appears in a step and an evidence check, or its paper's NO_STEP / NO_EVIDENCE says why
    assert not gaps, gaps
    assert "coverage:" in text


def test_every_layer_is_scored_on_its_own(tmp_path):
    """Every layer runs on every mutant: the derivation steps in which the entry's value appears (with the mutant's
    formula substituted) and the checks that name it each catch mutants of their own."""
    out = tmp_path / "mutants.json"
    code, text, err = run_cli("mutate", "measure", "--view", "entries", "--json", str(out))
    record = json.loads(out.read_text())
    scores = record["layer_scores"]
    assert code == 0 and set(scores) == {"contract", "derivation", "evidence"}
    assert all(scores[k]["ran"] == record["score"]["counted"] > 0 for k in scores), scores  # measure: all three
    assert scores["derivation"]["caught"] > 0 and scores["evidence"]["caught"] > 0, scores
    assert "each layer's own score" in text


def test_steps_using_an_entry_are_found_by_its_expression_or_its_calls():
    from theorylab._pipeline import catalogue

    chi2 = catalogue.get("transfer.inverse_chi2_mean")   # 1/(n - 2), stated in (116)-(117) with the same n
    assert any("(116)-(117)" in s.label for _, s in mutate.steps_using(chi2))
    kl = catalogue.get("transfer.kl_divergence")         # numeric sides calling the entry by its ID
    assert mutate.steps_using(kl)
    toy = _toy()
    assert mutate.steps_using(toy) == []


# The per-check view's quick sample in CI: the built-in papers' checks that run in about a second each (no trained
# networks, no check above a few seconds); `theorylab mutate --view checks` judges every check of 30 s or less, and
# --profile full every check.
CHEAP_CHECKS = ("measures", "rich limit", "implicit bias vs SLSQP", "implicit bias vs gradient flow",
                "batched solver vs per-point np.roots", "rho = 1 against seed 000's Q-penalty", "Fig. 1 data",
                "Monte Carlo: linear transfer", "Monte Carlo: ReLU kernel and RKHS", "Monte Carlo: fine-tuning",
                "effective penalties vs brute force", "per-dimension problem by direct minimization",
                "diagonal M: 2||beta||_1 vs direct minimization", "Monte Carlo: KL divergence")


def test_per_check_sensitivity_of_the_built_in_papers_cheap_checks():
    from theorylab._pipeline import catalogue

    checks = [c for c in catalogue.checks() if c.name in CHEAP_CHECKS]
    assert len(checks) == len(CHEAP_CHECKS)
    res = mutate.sensitivity(checks, profile="quick",
                             baselines=mutate._Baselines("quick", check_seconds=float("inf")))
    assert all(r.judged for r in res), [(r.check, r.baseline) for r in res if not r.judged]
    bad = [(r.check, r.blind_to, [(p.op, p.detail[:60]) for p in r.tried]) for r in res if r.insensitive]
    assert not bad, bad


def test_a_check_that_cannot_fail_is_named_insensitive():
    """A self-comparison, a tolerance that swallows any error and a check that never calls its entry: each passes
    every perturbation of the entry it names, so the per-check view calls it insensitive."""
    from theorylab._records.evidence import Check, compare, compare_mc

    toy = _toy(reference=lambda x: float(x * x / (1 + x)))
    pts = np.array([0.5, 1.0, 2.0, 3.0])

    def honest(ctx):
        return [compare("toy.f", "vs reference", "numeric", [toy.reference(x=x) for x in pts], toy(x=pts), rtol=1e-12,
                        source="s")]

    def itself(ctx):
        return [compare("toy.f", "vs itself", "numeric", toy(x=pts), toy(x=pts), rtol=1e-12, source="s")]

    def swallowing(ctx):
        v = float(toy(x=2.0))
        return [compare_mc("toy.f", "huge SE", 4 / 3, v, 10.0, 100)]

    def never(ctx):
        return [compare("toy.f", "never calls", "numeric", 4 / 3, 2.0**2 / 3, rtol=1e-12, source="s")]

    import theorylab._pipeline.catalogue as catalogue
    real_get = catalogue.get
    checks = [Check(name=n, entries=("toy.f",), kind="numeric", run=f)
              for n, f in (("honest", honest), ("itself", itself), ("swallowing", swallowing), ("never", never))]
    try:
        catalogue.get = lambda i: toy if i == "toy.f" else real_get(i)
        res = {r.check: r for r in mutate.sensitivity(checks, profile="full",
                                                      baselines=mutate._Baselines("full"))}
    finally:
        catalogue.get = real_get
    assert not res["honest"].insensitive and res["honest"].delta_caught("toy.f")
    assert res["itself"].insensitive and res["swallowing"].insensitive and res["never"].insensitive
    assert res["swallowing"].weak  # 4 x 10 on 4/3: coarser than any resolution it could need


def test_the_scaffolds_check_is_sensitive(tmp_path, monkeypatch):
    """`theorylab new`'s paper, registered from its folder: its Monte Carlo check fails under perturbations of the
    entry it names (per-check view, quick), and every entry appears in a step and a check."""
    folder = tmp_path / "tp"
    code, _, err = run_cli("new", "sens-paper", str(folder))
    assert code == 0, err
    monkeypatch.syspath_prepend(str(folder))
    out = tmp_path / "m.json"
    code, text, err = run_cli("mutate", "sens-paper", "--paper", "sens_paper", "--view", "checks,coverage",
                              "--json", str(out))
    record = json.loads(out.read_text())
    assert code == 0, text + err
    assert record["checks"] and all(c["judged"] and not c["insensitive"] for c in record["checks"]), record["checks"]
    assert not [c for c in record["coverage"] if c["gaps"]], record["coverage"]
