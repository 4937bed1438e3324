"""One Relation type (#37 item 2): each kind's sign rule, strictness, negation, reversal and LaTeX in one class;
strings accepted at Step declaration; the two kinds with parameters (Approx, Proportional) decided by the engine."""
from __future__ import annotations

import pickle

import mpmath
import numpy as np
import pytest
import sympy as sp

from theorylab._decide.derivation import Step, TrivialStepError
from theorylab._records.relation import (RELATION_KINDS, Approx, Equal, Greater, GreaterEqual, Less, LessEqual,
                                         Proportional, Relation, Unequal, relation_of)

x = sp.Symbol("x", positive=True)
PLAIN = (Equal, Unequal, LessEqual, Less, GreaterEqual, Greater)


@pytest.mark.parametrize("kind", PLAIN)
def test_the_sign_rule_agrees_with_sympy_on_exact_numbers(kind):
    """Each kind's slack holds exactly where SymPy's relational is true, at ties and on both sides of them."""
    r = kind()
    for a, b in [(1, 2), (2, 1), (2, 2), (-1, 0), (0, -1), (0, 0)]:
        truth = bool(r.sympy(sp.Integer(a), sp.Integer(b)).doit() if kind is not Unequal else a != b)
        assert r.holds(r.slack(a, b)) == truth, (r, a, b)
        assert r.negation.holds(r.negation.slack(a, b)) == (not truth), (r, a, b)
        if r.direction:
            assert r.reversed.holds(r.reversed.slack(b, a)) == truth


def test_strictness_and_margin():
    """A tolerance widens a non-strict relation and narrows a strict one (a strict relation holds by more than the
    noise); equality's slack is the tolerance minus the gap."""
    assert LessEqual().holds(LessEqual().slack(1.05, 1.0, 0.1)) and not Less().holds(Less().slack(0.95, 1.0, 0.1))
    assert Equal().slack(1.0, 1.25, 0.5) == 0.25 and not Equal().holds(Equal().slack(1.0, 1.25, 0.1))
    assert [k().strict for k in PLAIN] == [False, True, False, True, False, True]


def test_one_table_symbols_and_latex():
    assert set(RELATION_KINDS) == {"==", "!=", "<=", "<", ">=", ">", "approx", "propto"}
    assert {s: k.tex for s, k in RELATION_KINDS.items()}["<="] == r"\le"
    assert relation_of("<=") == "<=" and isinstance(relation_of("<="), LessEqual)
    assert LessEqual().latex("a", "b") == r"a \le b" and Approx(rtol=0.1, source="s").latex("a", "b") == r"a \approx b"
    with pytest.raises(ValueError, match=r"relation must be one of .*got '=<'"):
        relation_of("=<")
    with pytest.raises(ValueError, match=r"relation must be one of"):
        relation_of("approx")  # a kind with parameters is given as an object, with them


def test_the_slack_works_on_every_number_type():
    """mpmath, NumPy arrays (elementwise) and Arb balls: the deciders call one rule on each."""
    import flint

    assert GreaterEqual().slack(mpmath.mpf(3), mpmath.mpf(1)) == 2
    assert np.array_equal(LessEqual().slack(np.array([1.0, 3.0]), np.array([2.0, 2.0])), [1.0, -1.0])
    assert (Less().slack(flint.arb(1), flint.arb(2))) > 0


def test_approx_needs_a_tolerance_and_its_source():
    with pytest.raises(ValueError, match=r"a tolerance is required"):
        Approx(source="printed digits")
    with pytest.raises(ValueError, match=r"rtol must be a finite number >= 0; got rtol=-1"):
        Approx(rtol=-1, source="s")
    with pytest.raises(ValueError, match=r"source must say"):
        Approx(rtol=1e-3)
    a = Approx(rtol=1e-3, source="the printed 3 digits")
    assert a.holds(a.slack(1.0005, 1.0)) and not a.holds(a.slack(1.002, 1.0))
    assert a == Approx(rtol=1e-3, source="the printed 3 digits") and a != Approx(rtol=1e-2, source="x")
    assert pickle.loads(pickle.dumps(a)) == a and repr(pickle.loads(pickle.dumps(LessEqual()))) == "LessEqual()"


def test_steps_accept_strings_and_store_the_relation_object():
    s = Step("s", lhs=x, rhs=x + 1, relation="<")
    assert isinstance(s.relation, Less) and s.relation == "<" and s.latex() == "x < x + 1"
    with pytest.raises(TrivialStepError, match=r"relation must be one of"):
        Step("bad", lhs=x, rhs=x + 1, relation="!=")


def test_approx_and_proportional_steps_are_decided_by_the_engine():
    """≈ within a stated tolerance and ∝ with its constant: each holds where it should and is refuted where the
    tolerance or the constant is wrong (symbolic and numeric sides)."""
    pi_approx = Step("pi ~ 3.1416", lhs=sp.pi * x / x, rhs=sp.Rational(31416, 10000),
                     relation=Approx(rtol=1e-5, source="4 printed decimals"), symbolic=False)
    assert pi_approx.check().holds
    tight = Step("pi ~ 3.1416 to 1e-7", lhs=sp.pi * (1 + 0 * x), rhs=sp.Rational(31416, 10000),
                 relation=Approx(rtol=1e-7, source="a planted tolerance too tight"), symbolic=False)
    assert tight.check().strength == "refuted"
    prop = Step("sin(2x) ∝ sin(x) cos(x), constant 2", lhs=sp.sin(2 * x), rhs=sp.sin(x) * sp.cos(x),
                relation=Proportional(2))
    assert prop.check().holds
    wrong = Step("sin(2x) ∝ sin(x) cos(x), constant 3", lhs=sp.sin(2 * x), rhs=sp.sin(x) * sp.cos(x),
                 relation=Proportional(3), symbolic=False)
    assert wrong.check().strength == "refuted"
    n = sp.Symbol("n", positive=True)
    numeric = Step("n-dependent constant", lhs=lambda n: 2.0**n * 3.0, rhs=lambda n: 3.0,
                   relation=Proportional(2**n), search=lambda: [{"n": 1.0}, {"n": 5.0}], rtol=1e-12,
                   tol_source="float64 rounding")
    assert numeric.check().holds
    off = Step("n-dependent constant, off by one", lhs=lambda n: 2.0**n * 3.0, rhs=lambda n: 3.0,
               relation=Proportional(2**(n + 1)), search=lambda: [{"n": 1.0}], rtol=1e-12, tol_source="rounding")
    assert off.check().strength == "refuted"


def test_a_relation_kind_is_one_class():
    """Every kind is a Relation subclass defined in the one module; nothing else in the engine spells the sign rule
    (tests/test_structure.py holds the engine's side of it)."""
    assert all(issubclass(k, Relation) and k.__module__ == "theorylab._records.relation"
               for k in RELATION_KINDS.values())
