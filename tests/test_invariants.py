"""Invariants no list of mutants names: evidence kinds, random streams, the ledger's ranking, the summaries' counts.

Each test here was written against a plausible mistake planted in the code (said in its docstring) and fails on it.
"""
from __future__ import annotations

import ast
import json
import pathlib
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import theorylab
from theorylab._decide.derivation import SEVERITIES
from theorylab._decide.ledger import LedgerItem, ordered
from theorylab._numerics.montecarlo import rng_for
from theorylab._records.evidence import (EVIDENCE_KINDS, RESOLUTION_NEEDED, Check, Evidence, Finding,
                                         evidence_kind, needed_resolution, register_evidence_kind)

ROOT = pathlib.Path(__file__).resolve().parents[1]


# --- evidence kinds: a registry that refuses an unknown kind (issue #37, item 4) -----------------------------------

def _ev(kind: str, **kw) -> Evidence:
    return Evidence(entry="toy.f", check="c", kind=kind, predicted=1.0, observed=1.0, tolerance=0.1,
                    tolerance_source="stated", **kw)


@pytest.mark.parametrize("make", [
    lambda k: _ev(k),
    lambda k: Finding(entry="toy.f", check="c", kind=k, text="t"),
    lambda k: Check(name="c", entries=("toy.f",), kind=k, run=lambda ctx: []),
], ids=["evidence", "finding", "check"])
def test_an_unknown_evidence_kind_is_refused_in_one_line(make):
    """A typo such as "montecarlo" once got the fallback resolution 0.5 silently (a Monte Carlo record then needed
    only 50%, not 25%)."""
    with pytest.raises(ValueError, match=r"kind must be a registered evidence kind \(numeric, monte-carlo, training, "
                                         r"property.*got kind='montecarlo'") as exc:
        make("montecarlo")
    assert "\n" not in str(exc.value)
    for kind in ("numeric", "monte-carlo", "training", "property"):
        make(kind)


def test_each_built_in_kind_has_the_resolution_its_doc_states():
    """The defaults are the documented ones (a 10x looser numeric default would let a 10% error pass as evidence)."""
    assert dict(RESOLUTION_NEEDED) == {"numeric": 0.02, "monte-carlo": 0.25, "training": 0.5, "property": 0.5}
    assert _ev("numeric").resolution_needed == 0.02 and _ev("monte-carlo").resolution_needed == 0.25
    assert needed_resolution("training") == 0.5
    # a record whose resolution is 5% passes a Monte Carlo need (25%) but is weak as numeric evidence (2%)
    off = dict(predicted=1.0, observed=1.0, tolerance=0.05, tolerance_source="stated")
    assert Evidence(entry="t.f", check="c", kind="numeric", **off).verdict == "weak"
    assert Evidence(entry="t.f", check="c", kind="monte-carlo", **off).verdict == "pass"
    with pytest.raises(TypeError):
        RESOLUTION_NEEDED["numeric"] = 0.5  # read-only: the registry is the one place


def test_a_paper_registers_its_own_kind_once_and_cannot_redefine_one():
    kind = register_evidence_kind("toy-ode", resolution=0.01, doc="an ODE solved at rtol 1e-10")
    try:
        assert EVIDENCE_KINDS["toy-ode"] is kind and _ev("toy-ode").resolution_needed == 0.01
        assert register_evidence_kind("toy-ode", resolution=0.01, doc="an ODE solved at rtol 1e-10") == kind
        with pytest.raises(ValueError, match="'toy-ode' is registered already with resolution 0.01"):
            register_evidence_kind("toy-ode", resolution=0.5, doc="an ODE solved at rtol 1e-10")
        with pytest.raises(ValueError, match="resolution must be a number > 0; got resolution=0"):
            register_evidence_kind("toy-bad", resolution=0, doc="d")
        with pytest.raises(ValueError, match="check 'c': resolution's key must be a registered evidence kind"):
            Check(name="c", entries=("toy.f",), kind="numeric", run=lambda ctx: [], resolution={"numerc": 0.1})
    finally:
        EVIDENCE_KINDS.pop("toy-ode", None)
        from theorylab._records import evidence as _e
        _e._RESOLUTIONS.pop("toy-ode", None)
    with pytest.raises(ValueError, match="registered evidence kind"):
        evidence_kind("toy-ode")


def test_every_built_in_check_has_a_registered_kind():
    """Every check of the catalogue declares a registered kind (checked at declaration; this loads them all)."""
    from theorylab._pipeline import catalogue

    kinds = {c.kind for fam in catalogue.families() for c in fam.checks}
    assert kinds and kinds <= set(EVIDENCE_KINDS)


# --- random streams (issue #37, item 7) ------------------------------------------------------------------------------

def test_named_streams_of_one_seed_differ_and_repeat():
    """Plant: a spawn key that ignores the keys (or the seed) makes two named streams one."""
    draws = {k: rng_for(7, *k).normal(size=8) for k in [("a",), ("b",), ("a", 1), ("a", 2), ("a", "1"), ()]}
    keys = list(draws)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            assert not np.allclose(draws[a], draws[b]), (a, b)
    assert np.array_equal(rng_for(7, "a").normal(size=8), draws[("a",)])
    assert not np.allclose(rng_for(8, "a").normal(size=8), draws[("a",)])


def _rng_keys(tree: ast.AST) -> list[tuple[str, ...]]:
    """The constant keys of each rng_for(seed, key, ...) call (the string constants among its keys)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "rng_for":
            out.append(tuple(a.value for a in node.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str)))
    return out


def _test_streams_sharing_a_training_key(files) -> list[str]:
    bad = []
    for path in files:
        keys = _rng_keys(ast.parse(path.read_text()))
        for k in keys:
            if any("test" in s for s in k):
                clash = [o for o in keys if o is not k and set(o) & set(k)]
                if clash:
                    bad.append(f"{path.name}: test stream {k} shares a key with {clash}")
    return bad


def test_a_test_set_never_draws_from_a_training_stream():
    """A held-out set drawn with the training stream's key (e.g. "relu-fig1c" for "relu-fig1c-test") is the
    training data again: the paper's test error would be its training error. Every rng_for key naming a test set is
    used by no other stream of its module."""
    files = [p for d in ("verify", "derivations", "examples") for p in (ROOT / d).rglob("*.py")]
    assert any(any("test" in s for k in _rng_keys(ast.parse(p.read_text())) for s in k) for p in files)
    assert _test_streams_sharing_a_training_key(files) == []


def test_the_stream_rule_sees_a_planted_shared_key(tmp_path):
    src = (ROOT / "verify" / "relu_networks.py").read_text()
    assert '"relu-fig1c-test"' in src
    planted = tmp_path / "relu_networks.py"
    planted.write_text(src.replace('rng_for(run_seed, "relu-fig1c-test")', 'rng_for(run_seed, "relu-fig1c-test", '
                                   '"relu-fig1c")'))
    assert _test_streams_sharing_a_training_key([planted])


# --- the ledger's ranking: severity first, whatever the paper and key order (issue #37, item 7) --------------------

@st.composite
def _ledgers(draw):
    n = draw(st.integers(2, 12))
    papers = draw(st.lists(st.sampled_from(["zeta", "alpha", "mid"]), min_size=n, max_size=n))
    sev = draw(st.lists(st.sampled_from(SEVERITIES), min_size=n, max_size=n))
    kinds = draw(st.lists(st.sampled_from(["erratum", "amendment", "withdrawn"]), min_size=n, max_size=n))
    keys = draw(st.permutations([f"k{i:02d}" for i in range(n)]))
    items = [LedgerItem(key=keys[i], kind=kinds[i], severity=sev[i], paper=papers[i], source="s", where="(1)",
                        says="a", truth="b") for i in range(n)]
    return items, draw(st.randoms(use_true_random=False))


@given(_ledgers())
def test_the_ledger_ranks_severity_first_whatever_the_order(case):
    """Plant: paper (or key) before severity in the rank, or the severity order reversed."""
    items, rnd = case
    out = ordered(items)
    live = [it for it in out if it.kind != "withdrawn"]
    assert out[len(live):] == [it for it in out if it.kind == "withdrawn"]  # withdrawn last
    ranks = [SEVERITIES.index(it.severity) for it in live]
    assert ranks == sorted(ranks, reverse=True), [(it.key, it.severity) for it in live]
    # within one severity and paper: errata before amendments, then by key
    for a, b in zip(live, live[1:]):
        if (a.severity, a.paper) == (b.severity, b.paper):
            assert (a.kind != "erratum", a.key) < (b.kind != "erratum", b.key), (a.key, b.key)
    # the input's order moves nothing but the order of papers (their listing order) within a severity
    shuffled = list(items)
    rnd.shuffle(shuffled)
    again = [it for it in ordered(shuffled) if it.kind != "withdrawn"]
    assert [it.severity for it in again] == [it.severity for it in live]
    assert sorted(it.key for it in again) == sorted(it.key for it in live)


# --- the summaries show every count, a count of one included (issue #37, item 7) ------------------------------------

def _one_of_each_record(tmp_path) -> pathlib.Path:
    """A run record with one derivation step (unexpected), one evidence record (failed), one weak one, one finding."""
    from theorylab._records.record import SCHEMA_VERSION

    ev = lambda **kw: {"record": "evidence", "entry": "qpenalty.q", "check": "c", "kind": "numeric",  # noqa: E731
                       "predicted": 1.0, "observed": 1.0, "tolerance": 0.0, "tolerance_source": "s",
                       "relation": "==", "abs_error": 0.0, "rel_error": 0.0, "resolution": 1e-9,
                       "resolution_needed": 0.02, "weak": False, "passed": True, "verdict": "pass", **kw}
    data = {"schema_version": SCHEMA_VERSION, "profile": "quick", "device": "cpu", "seed": 0, "seconds": 1.0,
            "papers": ["ptft-diagonal"], "families": ["qpenalty"],
            "unexpected_steps": 1, "failed_evidence": 1,
            "derivation_steps": [{"derivation": "qpenalty.q", "step": "s1", "status": "FAILS (unexpected)", "ok": False,
                       "strength": "searched", "method": "m", "detail": ""}],
            "evidence": [ev(), ev(passed=False, verdict="fail", observed=2.0, abs_error=1.0, rel_error=1.0),
                         {"record": "finding", "entry": "qpenalty.q", "check": "f", "kind": "numeric", "text": "t",
                          "values": {}, "extra": {}, "passed": False}],
            "ledger": [], "coverage": []}
    p = tmp_path / "one.json"
    p.write_text(json.dumps(data))
    return p


def test_the_report_header_shows_every_count_of_one(tmp_path):
    """Plant: a count shown only when it is above one (or only when nonzero) in the report's header."""
    from theorylab._outputs import report

    out = report.build(_one_of_each_record(tmp_path), tmp_path / "out")
    head = pathlib.Path(out["index"]).read_text().split("</header>")[0]
    for text in ("1 derivation steps", "(1 unexpected)", "2 evidence records", "(1 failed)", "1 findings"):
        assert text in head, text
    assert out["failed"] == 1 and out["evidence"] == 2


def test_the_latex_statuses_show_every_count_of_one():
    """Plant: "k unexpected" written only when k > 1 in the document's entry statuses. The records are made here
    (one step of a built-in derivation recorded as failing, every other as its ledger says): nothing is decided."""
    from theorylab._outputs import latex
    from theorylab._pipeline import catalogue, runner

    ids, fams = catalogue.select(["qpenalty"])
    derivs = runner.derivations_for(ids, fams)
    d = next(d for d in derivs if any(s.erratum is None for s in d.steps))
    target = next(s for s in d.steps if s.erratum is None)
    steps = [{"derivation": dd.key, "step": s.label, "ok": s is not target, "strength": "proved", "method": "m",
              "status": ("erratum confirmed" if s.erratum is not None else
                         "FAILS (unexpected)" if s is target else "holds")}
             for dd in derivs for s in dd.steps]
    tex, _, _ = latex.from_steps(["qpenalty"], steps)
    assert f"{len(d.steps)} steps machine-checked ({latex.escape(d.key)}), 1 unexpected" in tex


# --- typed run-record rows: statuses are enums, a stored word is one of them (issue #37, item 3) --------------------

def test_run_rows_carry_status_enums_that_read_and_write_as_their_words(tmp_path):
    from theorylab._decide.ledger import from_json
    from theorylab._records.record import load
    from theorylab._records.status import LedgerStatus, StepStatus, Verdict

    rec = load(_one_of_each_record(tmp_path))
    (step,) = rec.derivation_steps
    assert step.status is StepStatus.FAILS and not step.status.expected and not step.status.step_holds
    assert [r.verdict for r in rec.evidence] == [Verdict.PASS, Verdict.FAIL, None]
    assert json.loads(json.dumps(rec.to_json()))["derivation_steps"][0]["status"] == "FAILS (unexpected)"
    weak = _ev("numeric")  # tolerance 0.1: passes, but cannot see the 2% a numeric record must
    assert weak.verdict is Verdict.WEAK and json.dumps(weak.to_json()["verdict"]) == '"weak"'
    it = LedgerItem(key="k", kind="erratum", severity="typo", paper="p", source="s", where="(1)", says="a",
                    truth="b", status="confirmed")
    assert it.status is LedgerStatus.CONFIRMED and from_json([it.to_json()]) == [it]


def test_a_row_with_an_unknown_status_is_refused_in_one_line(tmp_path):
    """Plant: a status word retyped with a slip ("erratum confirmd") would count as neither holds nor an erratum."""
    from theorylab._records.params import DomainError
    from theorylab._records.record import load

    p = _one_of_each_record(tmp_path)
    data = json.loads(p.read_text())
    data["derivation_steps"][0]["status"] = "erratum confirmd"
    p.write_text(json.dumps(data))
    with pytest.raises(DomainError, match=r"step 's1''s status must be one of 'holds', .*got 'erratum confirmd'"):
        load(p)
    with pytest.raises(ValueError, match="ledger item 'k': status must be one of 'confirmed'"):
        LedgerItem(key="k", kind="erratum", severity="typo", paper="p", source="s", where="(1)", says="a",
                   truth="b", status="confirmd")


# --- the step cache's key: every field of the step, derived from the record (issue #37, item 7) --------------------

def test_the_step_cache_key_changes_with_every_field_of_the_step():
    """Plant: a key listed by hand that forgets a field (tol, rtol and draft were missing from the hand-made key: a
    step whose tolerance changed was answered from the cache). Every field of Step has a variant here, and each
    variant changes the key; a field added to Step without a variant fails the first assertion."""
    import dataclasses

    import sympy as sp

    from theorylab._decide.cache import content_key
    from theorylab._records.errata import Amendment, Erratum
    from theorylab._records.relation import Approx
    from theorylab._records.step import Step

    x = sp.Symbol("x", positive=True)
    base = Step("(3) base", lhs=x**2 + 1, rhs=2 * x, relation=">=", cites=("(3)",), fidelity="as printed")
    err = Erratum(key="k", source="s", where="(3)", says="a", truth="b", severity="typo", at={"x": 2})
    tolerant = dataclasses.replace(base, tol=1e-9, tol_source="s")  # tol, rtol, tol_source vary from here
    variants = {  # field -> (the record it varies, the change of that field alone)
        "label": (base, dict(label="(3) renamed")), "lhs": (base, dict(lhs=x**2 + 2)), "rhs": (base, dict(rhs=3 * x)),
        "why": (base, dict(why="AM-GM")), "domain": (base, dict(domain={x: (1, 2)})),
        "relation": (base, dict(relation=">")), "erratum": (base, dict(erratum=err)),
        "search": (base, dict(search=lambda: [{"x": 2}])), "tol": (tolerant, dict(tol=1e-8)),
        "rtol": (tolerant, dict(rtol=1e-9)), "tol_source": (tolerant, dict(tol_source="rounding")),
        "symbolic": (base, dict(symbolic=False)), "points": (base, dict(points=7)),
        "premises": (None, None),  # premises name earlier steps of a derivation: a field a lone step cannot vary
        "cites": (base, dict(cites=("(4)",))),
        "fidelity": (base, dict(fidelity=Amendment(key="a", kind="typo fixed", what="w", why="y", severity="typo"))),
        "draft": (base, dict(draft=True)), "conditions": (base, dict(conditions=(x < 3,))),
        "tex": (base, dict(tex=r"x^2 + 1 \ge 2x")), "binds": (base, dict(binds={"t": "lhs"})),
        "quotes": (base, dict(quotes=("it follows that x^2 + 1 is at least 2x",))),
    }
    assert set(variants) == {f.name for f in dataclasses.fields(Step)}
    assert content_key(base) == content_key(dataclasses.replace(base))  # the same record, the same key
    for name, (record, change) in variants.items():
        if record is not None:
            assert content_key(dataclasses.replace(record, **change)) != content_key(record), name
    assert content_key(dataclasses.replace(base, relation=Approx(rtol=1e-3, source="s"))) != \
        content_key(dataclasses.replace(base, relation=Approx(rtol=1e-2, source="s")))  # a relation's parameters too
