"""Mutation testing: planted standard mistakes are caught, equivalent mutants are excluded, and the quick
profile over the built-in papers leaves no survivor (the CI gate of 'every check can fail')."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import theorylab
from theorylab import mutate
from theorylab.entry import Entry, Source
from theorylab.params import scalar
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
    """CI gate: a mutant that survives every layer is a check that cannot fail."""
    out = tmp_path / "mutants.json"
    code, text, err = run_cli("mutate", "--json", str(out))
    record = json.loads(out.read_text())
    survivors = [m for m in record["mutants"] if m["survived"]]
    assert code == 0 and not survivors, "\n".join(f"{m['entry']} {m['target']} {m['op']}: {m['description']}"
                                                  for m in survivors)
    assert record["score"]["counted"] >= 100
