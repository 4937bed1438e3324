"""The ranked ledger and fidelity declarations: a step citing a label says what it checks, an amendment keeps the
printed statement beside it, severities rank, consequences fold under their root, withdrawn items stay listed."""
from __future__ import annotations

import pytest
import sympy as sp

from theorylab._decide.derivation import (AS_PRINTED, SEVERITIES, Amendment, Derivation, Erratum, FidelityError, Step,
                                  TrivialStepError)
from theorylab._decide.ledger import LedgerError, collect, from_json, summary

x = sp.Symbol("x", positive=True)
HALF = {"x": sp.Rational(1, 2)}


def err(key, severity="wrong-value", root=None, **kw):
    return Erratum(key=key, source="toy.txt", where="(3)", says="x^2 >= x", truth="only for x >= 1",
                   severity=severity, root=root, **kw)


def test_a_step_citing_a_label_without_fidelity_is_refused_in_one_line():
    with pytest.raises(FidelityError, match=r"step 'eq 1': cites \(1\) without a fidelity declaration") as exc:
        Step("eq 1", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",))
    assert "\n" not in str(exc.value)
    with pytest.raises(FidelityError, match="cites no label"):
        Step("eq 1", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, fidelity=AS_PRINTED)
    with pytest.raises(FidelityError, match="must be 'as printed' or an Amendment"):
        Step("eq 1", lhs=(x + 1) ** 2, rhs=x**2 + 2 * x + 1, cites=("(1)",), fidelity="roughly")


def test_an_erratum_step_is_the_printed_statement():
    s = Step("(3)", lhs=x**2, rhs=x, relation=">=", cites=("(3)",), erratum=err("t-3", at=HALF))
    assert s.fidelity == AS_PRINTED
    with pytest.raises(FidelityError, match="an erratum step states what the paper prints"):
        Step("(3)", lhs=x**2, rhs=x, relation=">=", cites=("(3)",), erratum=err("t-3", at=HALF),
             fidelity=Amendment(key="a", kind="hypothesis added", what="x >= 1", why="w", severity="typo"))


def test_an_amended_step_without_its_printed_counterpart_is_refused():
    amend = Amendment(key="t-3-hyp", kind="hypothesis added", what="x >= 1 assumed", why="the print fails below 1",
                      severity="missing-hypothesis")
    amended = Step("(3) for x >= 1", lhs=(x + 1) ** 2, rhs=x + 1, relation=">=", cites=("(3)",), fidelity=amend)
    with pytest.raises(FidelityError, match=r"amends \(3\) \(t-3-hyp\) but no step of the derivation states it "
                                            "as printed"):
        Derivation(key="toy", title="t", source="toy.txt", where="(3)", entries=(), steps=(amended,))
    printed = Step("(3) as printed", lhs=x**2, rhs=x, relation=">=", cites=("(3)",), erratum=err("t-3", at=HALF))
    d = Derivation(key="toy", title="t", source="toy.txt", where="(3)", entries=(), steps=(printed, amended))
    assert d.amendments == [amend] and all(r.ok for r in d.check())


def test_records_validate_severity_kind_and_text_in_one_line():
    with pytest.raises(TrivialStepError, match="severity must be one of typo, proof-gap"):
        err("t", severity="serious")
    with pytest.raises(TrivialStepError, match="kind must be one of"):
        Amendment(key="a", kind="fixed", what="w", why="w", severity="typo")
    with pytest.warns(DeprecationWarning, match=r"write Erratum\(key=\.\.\., source="):  # the API-1 form warns
        Erratum("t", "toy.txt", "(3)", "a", "b", "typo")
    with pytest.raises(TypeError, match="at most"):
        Erratum("t", "toy.txt", "(3)", "a", "b", "typo", None, "", None, (), "", "one too many")
    with pytest.raises(TrivialStepError, match="withdrawn"):
        Step("(3)", lhs=x**2, rhs=x, relation=">=", cites=("(3)",), erratum=err("t", at=HALF, withdrawn="misread"))
    with pytest.raises(TrivialStepError, match="`withdrawn` holds Erratum records with a withdrawn reason"):
        Derivation(key="toy", title="t", source="toy.txt", where="(3)", entries=(), steps=(), withdrawn=(err("t"),))


def _toy() -> list[tuple[str, Derivation]]:
    root = Step("(3) as printed", lhs=x**2, rhs=x, relation=">=", cites=("(3)",), erratum=err("t-3", at=HALF))
    again = Step("(5) repeats (3)", lhs=2 * x**2, rhs=2 * x, relation=">=", cites=("(5)",),
                 erratum=err("t-5", severity="wrong-value", root="t-3", at=HALF))
    typo = Step("(6) as printed", lhs=x + 1, rhs=x + 2, cites=("(6)",), erratum=err("t-6", severity="typo", at={"x": 1}))
    fixed = Step("(6) with the typo fixed", lhs=x + 1, rhs=(x**2 + x) / x, cites=("(6)",),
                 fidelity=Amendment(key="t-6-fix", kind="typo fixed", what="+2 read as +1", why="the next line",
                                    severity="typo", root="t-6"))
    gone = err("t-7", severity="false-statement", withdrawn="footnote 2 makes x >= 1 without loss of generality",
               history=("was false-statement: read without the footnote",))
    return [("toy", Derivation(key="toy.a", title="a", source="toy.txt", where="(3)-(5)", entries=(), steps=(root, again))),
            ("toy", Derivation(key="toy.b", title="b", source="toy.txt", where="(6)", entries=(), steps=(typo, fixed), withdrawn=(gone,))),
            ("other", Derivation(key="o.a", title="o", source="o.txt", where="(1)", entries=(), steps=(
                Step("(1)", lhs=x, rhs=x**2, relation=">=", cites=("(1)",),
                     erratum=Erratum(key="o-1", source="o.txt", where="(1)", says="x >= x^2", truth="x <= 1",
                                     severity="typo", at={"x": 2})),)))]


def test_the_ledger_ranks_by_severity_folds_consequences_and_keeps_withdrawn_items():
    items = collect(_toy())
    assert [(i.key, i.depth) for i in items] == [("t-3", 0), ("t-5", 1), ("t-6", 0), ("t-6-fix", 1), ("o-1", 0),
                                                 ("t-7", 0)]
    by = {i.key: i for i in items}
    assert by["t-3"].status == "confirmed" and by["t-3"].counterexample
    assert by["t-6-fix"].kind == "amendment" and by["t-6-fix"].amendment_kind == "typo fixed"
    assert by["t-7"].kind == "withdrawn" and by["t-7"].status == "withdrawn" and "footnote 2" in by["t-7"].withdrawn
    s = summary(items)
    assert s["roots"] == 3 and s["withdrawn"] == 1 and s["consequences"] == 2 and s["amendments"] == 1
    assert s["roots_by_paper"]["toy"]["wrong-value"] == 1 and s["roots_by_paper"]["toy"]["typo"] == 1
    assert s["roots_by_paper"]["other"]["typo"] == 1
    assert sum(s["roots_by_severity"].values()) == 3 and set(s["roots_by_severity"]) == set(SEVERITIES)
    assert from_json([i.to_json() for i in items]) == items


def test_a_stale_erratum_shows_as_not_reproduced():
    fixed_paper = Step("(3) as printed", lhs=x**2 + 1, rhs=x, relation=">=", cites=("(3)",), erratum=err("t-3", at=HALF))
    (item,) = collect([("toy", Derivation(key="toy.a", title="a", source="toy.txt", where="(3)", entries=(), steps=(fixed_paper,)))])
    assert item.status == "NOT REPRODUCED"


def test_roots_must_exist_in_the_same_paper_without_cycles():
    orphan = Step("(5)", lhs=2 * x**2, rhs=2 * x, relation=">=", cites=("(5)",), erratum=err("t-5", root="t-9", at=HALF))
    with pytest.raises(LedgerError, match="names root t-9, which is no item of the ledger"):
        collect([("toy", Derivation(key="toy.a", title="a", source="toy.txt", where="(5)", entries=(), steps=(orphan,)))], verdict=None)
    a = Step("(5)", lhs=2 * x**2, rhs=2 * x, relation=">=", cites=("(5)",), erratum=err("t-5", root="t-6", at=HALF))
    b = Step("(6)", lhs=3 * x**2, rhs=3 * x, relation=">=", cites=("(6)",), erratum=err("t-6", root="t-5", at=HALF))
    with pytest.raises(LedgerError, match="cycle"):
        collect([("toy", Derivation(key="toy.a", title="a", source="toy.txt", where="(5)", entries=(), steps=(a, b)))], verdict=None)
    with pytest.raises(LedgerError, match="names two different items"):
        collect([("toy", Derivation(key="toy.a", title="a", source="toy.txt", where="(5)", entries=(), steps=(
            Step("(5)", lhs=2 * x**2, rhs=2 * x, relation=">=", cites=("(5)",), erratum=err("t-5", at=HALF)),
            Step("(6)", lhs=3 * x**2, rhs=3 * x, relation=">=", cites=("(6)",),
                 erratum=err("t-5", severity="typo", at=HALF)))))], verdict=None)


def test_the_built_in_ledger_ranks_every_item_and_keeps_the_withdrawn_ones():
    import json

    from helpers import run_cli

    code, out, err = run_cli("errata", "--json")
    assert code == 0, err
    data = json.loads(out)
    items = {it["key"]: it for it in data["items"]}
    assert all(it["severity"] in SEVERITIES for it in items.values())
    assert all(it["root"] is None or it["root"] in items for it in items.values())
    assert all(it["status"] == "confirmed" for it in items.values() if it["kind"] == "erratum")
    gone = items["003-eq7-symmetric"]
    assert gone["kind"] == "withdrawn" and "footnote" in gone["withdrawn"]
    # the audit's five errors that change a value or a theorem keep their weight; duplicates fold under one root
    assert items["002-thm22-dudley"]["severity"] == "false-statement" and items["002-eq25"]["root"] == "002-thm22-dudley"
    assert {items[k]["severity"] for k in ("001-eq10-unique", "002-thm39-depth", "003-eq17-kernel")} == {"wrong-value"}
    assert items["003-thm1-existence"]["severity"] == "missing-hypothesis"
    assert items["000-A-eq9"]["root"] == "000-A-eq8-9"
    assert {items[k]["root"] for k in ("002-eq80", "002-eq82", "002-eq84", "002-eq85", "002-B4-rate")} == {"002-eq78"}
    s = data["summary"]
    assert s["roots"] == sum(s["roots_by_severity"].values()) == sum(
        sum(row.values()) for row in s["roots_by_paper"].values())
    code, out, _ = run_cli("errata", "adaptive-tangent", "--no-eval")
    assert code == 0 and "WITHDRAWN" in out and "002-" not in out
