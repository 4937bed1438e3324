"""Step, derivation and verdict records: a step states `lhs <relation> rhs` as the paper does, a derivation orders
steps, an Outcome is the engine's verdict on one step. Records only: they validate at declaration and decide nothing.

A step states what the paper states and the engine alone decides it (theorylab._decide): SymPy proves it, or a
numeric search at real points evaluates both sides (points, minimum slack and digits stated), or a counterexample
refutes it. A step cannot carry its own verdict: there is no check function, only points to evaluate the sides at,
and an erratum's verdict is the relation evaluated at its counterexample (a corrected paper flips it). Steps that
cannot fail (both sides the same expression) are refused when they are declared. `Step.check()` and
`Derivation.check()` call the deciders registered in DECIDERS by theorylab._decide.steps (loaded with the package):
the record names no decider.
"""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import sympy as sp

from .domain import _condition_domain
from .compat import accept_positional
from .errata import (AS_PRINTED, Amendment, Erratum, FidelityError, PremiseError, TrivialStepError, _esc,
                     _premise_message)
from .relation import RELATION_KINDS, STEP_RELATIONS, Relation, relation_of
from .status import StepStatus

__all__ = ["RELATIONS", "STRENGTHS", "RELATION_TEX", "Outcome", "Step", "StepResult", "StepResults", "Derivation",
           "DECIDERS"]

RELATIONS = ("==", "<=", "<", ">=", ">")  # the plain kinds a step may name by their symbol (relation.py: the others)
# weakest first: a derivation is as strong as its weakest step
STRENGTHS = ("refuted", "searched", "certified", "proved")
# relation -> LaTeX, read off the one relation table (theorylab._records.relation)
RELATION_TEX = {symbol: kind.tex for symbol, kind in RELATION_KINDS.items()}

# The deciders a record's check() hands itself to, registered by theorylab._decide.steps when the package loads:
# "step" (Step -> Outcome), "content_key" (Step -> cache key or None), "derivation" (Derivation, progress, cache ->
# StepResults). Records sit below deciders (tests/test_structure.py): they reach them only through this table.
DECIDERS: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True)
class Outcome:
    holds: bool
    method: str
    detail: str = ""
    counterexample: str | None = None
    strength: str = "searched"   # proved | certified | searched | refuted | error
    points: int = 0              # points at which both sides were evaluated
    min_slack: float | None = None


def _is_numeric_side(x: Any) -> bool:
    return callable(x) and not isinstance(x, (sp.Basic, sp.MatrixBase))


def _sympify(x: Any) -> Any:
    return x if isinstance(x, sp.MatrixBase) else sp.sympify(x)


def _name(k: Any) -> str:
    return k.name if isinstance(k, sp.Symbol) else str(k)



@dataclass(frozen=True)
class Step:
    """One step of a derivation: `lhs <relation> rhs`, as the paper states it. The label may be positional, every
    other field is keyword-only: `Step("(3) as printed", lhs=..., rhs=..., cites=("(3)",), fidelity=AS_PRINTED)`.

    lhs, rhs     SymPy expressions (or matrices) in the derivation's symbols, or numeric sides: callables
                 `side(**point) -> number or array` that evaluate the paper's expression on numbers (a solver's
                 output, an expectation, a minimum over a set). Both are required; a step whose two sides are
                 the same expression is refused (`TrivialStepError`).
    relation     "==", "<=", "<", ">=" or ">", or a relation object (theorylab._records.relation): Approx(rtol=,
                 atol=, source=) for the paper's "≈" within a stated tolerance, Proportional(constant) for its "∝"
                 with the constant it drops. Stored as the relation object (which still equals its symbol).
    domain       symbol -> (low, high): where the search samples, certification works and SymPy-side inequalities
                 hold. Default from the symbol's assumptions: positive (0.05, 3), nonnegative (0, 3), real (-3, 3).
                 A bound may be unbounded (None, sympy.oo or math.inf): "for all lambda > 0" is
                 {lam: (0, sp.oo)}. How a variable is searched (theorylab._decide.search): a positive interval spanning two
                 decades or more in log coordinates (lambda = 10^u); an unbounded one in log coordinates from its
                 finite end, clipped (lambda = lo + 10^u, u in [-9, 9]); (-oo, oo) as x = sinh(u), |x| <= 1e9; and,
                 for at most three variables, certified through the compactifying change of variables
                 lambda = lo + t/(1 - t) (hi - t/(1 - t) for (-oo, hi]; t/(1 - t^2) on (-oo, oo)) with t on the closed
                 interval [0, 1] ([-1, 1]), so the limit at infinity is part of what is certified. An inequality's
                 verdict states the box, each variable's coordinates, the points of each stage and the smallest
                 slack found, and why certification was not attempted or failed.
    search       a callable returning the points (dicts of parameter values) at which the engine evaluates both
                 sides; required for numeric sides. Simple points first, so a counterexample is small.
    tol, rtol    numeric sides only: |lhs - rhs| <= tol + rtol * max(|lhs|, |rhs|) for "==" (slack margin for
                 inequalities); `tol_source` says where the tolerance comes from (required when either > 0).
    premises     labels of the earlier steps this one follows from.
    cites        the paper's equation labels and statements this step transcribes ("(28)", "Lemma 5"): what
                 `theorylab coverage` counts as checked.
    quotes       sentences of the paper's prose this step checks, each by a fragment quoted from it, as copied from
                 the PDF or the .tex ("it follows that the loss converges to zero"): a claim made in a sentence with
                 no label (#35). The fragment must be found once in the paper's source (markup, case, punctuation
                 and spacing aside: theorylab._sources.prose); `theorylab coverage` lists each cited sentence with
                 the verdict of the steps that quote it.
    conditions   relations that bound one symbol each, `(gamma < 1, lam >= sp.Rational(1, 10))`: the step holds
                 under them; they narrow that symbol's interval (its `domain`, else its default from its assumptions)
                 for the search, the certification and the numeric identity test.
    tex          for a step with numeric sides, the statement as LaTeX (printed by `latex()`, coverage, the report);
                 without it the label is printed. SymPy sides print themselves.
    fidelity     required when `cites` or `quotes` is given: "as printed" (the statement the paper prints, up to notation: say
                 the notation in `why`), or an `Amendment` naming what theorylab changed in it and why. An amended
                 step needs the printed statement as a step of the same derivation citing the same label. An
                 erratum step is the printed statement failing: its fidelity is "as printed".
    draft        True: the printed relation copied from the source (`theorylab new --from`), not derived yet; check
                 reports it as a draft, never decides it (it cites its label, "as printed", and carries no erratum).
    """

    label: str
    _: KW_ONLY  # everything after the label is keyword-only: Step("label", lhs=..., rhs=..., why=...)
    lhs: Any = None
    rhs: Any = None
    why: str = ""
    domain: dict = field(default_factory=dict)
    erratum: Erratum | None = None
    relation: "str | Relation" = "=="
    search: Callable[[], Iterable[Mapping[str, Any]]] | None = field(default=None, compare=False, repr=False)
    tol: float = 0.0
    rtol: float = 0.0
    tol_source: str = ""
    symbolic: bool = True  # False: go straight to the numeric identity test (simplify too slow)
    points: int | None = None  # random points of the numeric test (default NUMERIC_POINTS)
    premises: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()  # the paper's labels this step transcribes: "(28)", "Theorem 3.6"
    fidelity: "str | Amendment | None" = None  # "as printed" or an Amendment (required with cites)
    draft: bool = False  # the printed relation, not derived yet (theorylab new --from): reported as a draft
    conditions: tuple = ()  # relations bounding one symbol each (gamma < 1): they narrow its search box and proof
    tex: str = ""  # the statement as LaTeX, for a step with numeric sides (else its SymPy sides print it)
    # printed names -> what the step computes ("lhs", "rhs" or a SymPy expression), for the machine comparison with
    # the print (#35): t = ... printed, the step's left side is t; only the comparison reads it
    binds: dict = field(default_factory=dict)
    # fragments of sentences of the paper's prose this step checks (#35 item 4): found in the source by coverage
    quotes: tuple[str, ...] = ()

    def __post_init__(self):
        where = f"step {self.label!r}"
        if isinstance(self.cites, str):
            object.__setattr__(self, "cites", (self.cites,))
        if isinstance(self.quotes, str):
            object.__setattr__(self, "quotes", (self.quotes,))
        if not (isinstance(self.quotes, (tuple, list)) and all(isinstance(q, str) and q.strip() for q in self.quotes)):
            raise TrivialStepError(f"{where}: quotes must be a tuple of fragments of the paper's sentences (strings); "
                                   f"got quotes={self.quotes!r}"[:200])
        object.__setattr__(self, "quotes", tuple(self.quotes))
        cited = (*self.cites, *(f"the sentence quoted {q[:60]!r}" for q in self.quotes))
        if self.erratum is not None and not isinstance(self.erratum, Erratum):
            raise TrivialStepError(f"{where}: erratum must be an Erratum record; got {type(self.erratum).__name__}")
        if self.erratum is not None and self.erratum.withdrawn:
            raise TrivialStepError(f"{where}: erratum {self.erratum.key} is withdrawn; list it in the derivation's "
                                   "`withdrawn`, not on a step")
        if self.erratum is not None:
            if self.fidelity not in (None, AS_PRINTED):
                raise FidelityError(f"{where}: an erratum step states what the paper prints (fidelity 'as "
                                    f"printed'); got fidelity={self.fidelity!r}")
            object.__setattr__(self, "fidelity", AS_PRINTED if cited else None)
        if cited and self.fidelity is None:
            raise FidelityError(f"{where}: cites {', '.join(cited)} without a fidelity declaration: pass "
                                "fidelity='as printed' or fidelity=Amendment(...)")
        if self.fidelity is not None:
            if not cited:
                raise FidelityError(f"{where}: declares fidelity but cites no label or sentence of the paper")
            if not (self.fidelity == AS_PRINTED or isinstance(self.fidelity, Amendment)):
                raise FidelityError(f"{where}: fidelity must be 'as printed' or an Amendment; got "
                                    f"{self.fidelity!r}")
        if self.draft and (not self.cites or self.erratum is not None):
            raise TrivialStepError(f"{where}: a draft states the relation printed at a label: it cites that label "
                                   "and carries no erratum")
        try:
            relation = relation_of(self.relation)
        except ValueError as exc:
            raise TrivialStepError(f"{where}: {exc}") from None
        if relation.symbol not in STEP_RELATIONS:
            raise TrivialStepError(f"{where}: relation must be one of {', '.join(STEP_RELATIONS)}; got "
                                   f"{self.relation!r} (a step states what holds)")
        object.__setattr__(self, "relation", relation)
        if not isinstance(self.label, str) or not self.label.strip():
            raise TrivialStepError(f"{where}: label must be a non-empty string; got label={self.label!r}")
        if not isinstance(self.domain, dict):
            raise TrivialStepError(f"{where}: domain must be a dict symbol -> (low, high); got the "
                                   f"{type(self.domain).__name__} {self.domain!r}"[:200])
        if not (isinstance(self.binds, dict) and all(isinstance(k, str) and (v in ("lhs", "rhs") or isinstance(
                v, sp.Basic)) for k, v in self.binds.items())):
            raise TrivialStepError(f"{where}: binds maps printed LaTeX names to 'lhs', 'rhs' or a SymPy expression; "
                                   f"got binds={self.binds!r}"[:200])
        if not isinstance(self.tex, str):
            raise TrivialStepError(f"{where}: tex must be a string of LaTeX; got tex={self.tex!r}")
        conds = (self.conditions,) if isinstance(self.conditions, sp.Basic) else tuple(self.conditions)
        object.__setattr__(self, "conditions", conds)
        _condition_domain(where, conds, self.domain)  # one-line errors for conditions it cannot use
        if self.lhs is None or self.rhs is None:
            raise TrivialStepError(f"{where}: a step states a relation between two expressions (lhs and rhs); "
                                   "a claim in words alone cannot be checked")
        numeric = self.numeric
        if not numeric:
            a, b = _sympify(self.lhs), _sympify(self.rhs)
            if (isinstance(a, sp.MatrixBase) == isinstance(b, sp.MatrixBase)) and a == b:
                raise TrivialStepError(f"{where}: both sides are the same expression ({sp.sstr(a)[:80]}); "
                                       "a step that cannot fail checks nothing (state the paper's two sides, "
                                       "unevaluated where SymPy would decide at construction)")
        elif self.lhs is self.rhs:
            raise TrivialStepError(f"{where}: both sides are the same callable")
        if numeric and self.search is None and (self.erratum is None or self.erratum.at is None):
            raise TrivialStepError(f"{where}: a step with numeric sides needs `search` (the points to evaluate at)")
        if (self.tol or self.rtol) and not self.tol_source:
            raise TrivialStepError(f"{where}: a tolerance needs `tol_source` (the error bound it comes from)")
        if self.tol < 0 or self.rtol < 0:
            raise TrivialStepError(f"{where}: tol and rtol must be >= 0")

    @property
    def numeric(self) -> bool:
        """True when a side is a callable evaluated on numbers (not a SymPy expression)."""
        return _is_numeric_side(self.lhs) or _is_numeric_side(self.rhs)

    def _side_text(self, side: Any, which: str) -> str:
        if _is_numeric_side(side):
            doc = (getattr(side, "__doc__", None) or "").strip()
            name = getattr(side, "__name__", "")
            if doc:
                return doc.splitlines()[0]
            if name and name != "<lambda>":
                return name
            return f"the {which} side of {self.label!r}"  # never '<lambda>'
        return sp.sstr(side)

    def statement(self) -> str:
        if self.numeric and self.tex:
            return self.tex
        return f"{self._side_text(self.lhs, 'left')} {self.relation.symbol} {self._side_text(self.rhs, 'right')}"

    def latex(self, **settings: Any) -> str:
        """The step as LaTeX, `lhs rel rhs` printed with SymPy `latex` settings; a step with numeric sides prints
        its `tex`, else its label as text."""
        if self.numeric:
            return self.tex or r"\text{" + self.label.replace("\\", "").replace("{", "(").replace("}", ")") + "}"
        return self.relation.latex(sp.latex(self.lhs, **settings), sp.latex(self.rhs, **settings))

    @property
    def search_domain(self) -> dict:
        """The domain the engine searches: `domain`, narrowed by `conditions`."""
        return _condition_domain(f"step {self.label!r}", self.conditions, self.domain)

    def __repr__(self) -> str:
        return f"<Step {self.label!r}: {self.statement()[:100]}{' (erratum ' + self.erratum.key + ')' if self.erratum else ''}>"

    def _repr_html_(self) -> str:
        return _table([self], None)

    def check(self) -> Outcome:
        """The engine's verdict (theorylab._decide.steps.check_step: a symbolic step's verdict is cached on disk by
        a hash of its content)."""
        return DECIDERS["step"](self)

    def content_key(self) -> str | None:
        """The hash the step's verdict is cached under (theorylab._decide.cache.content_key); None for a step with
        numeric sides (code decides it: never cached)."""
        return DECIDERS["content_key"](self)


@dataclass(frozen=True)
class StepResult:
    step: Step
    outcome: Outcome

    @property
    def ok(self) -> bool:
        """True when the result is what the ledger says: errata fail, other steps hold (a draft is not decided)."""
        if self.step.draft:
            return True
        if self.outcome.strength == "error":
            return False
        return self.outcome.holds != (self.step.erratum is not None)

    @property
    def strength(self) -> str:
        return self.outcome.strength

    def __repr__(self) -> str:
        return f"<StepResult {self.step.label!r}: {self.status} ({self.strength}; {self.outcome.method})>"

    def _repr_html_(self) -> str:
        return _table([self.step], [self])

    @property
    def status(self) -> StepStatus:
        if self.step.draft:
            return StepStatus.DRAFT
        if self.outcome.strength == "error":
            return StepStatus.ERROR
        if self.step.erratum is None:
            return StepStatus.HOLDS if self.outcome.holds else StepStatus.FAILS
        return StepStatus.ERRATUM_CONFIRMED if not self.outcome.holds else StepStatus.ERRATUM_NOT_REPRODUCED


@dataclass(frozen=True, kw_only=True)
class Derivation:
    """The steps from a paper's premises to a closed form, each machine-checked (keyword-only).

    key         the derivation's identifier (the entry's ID, or family.topic).
    title       what it derives.
    source      the paper's source file or citation (as `Paper.source`).
    where       the equations and sections it covers.
    entries     the entry IDs it concerns.
    steps       the Steps, in order.
    withdrawn   errata of this derivation found wrong on re-reading: `Erratum(..., withdrawn="why")`, listed in the
                ledger as withdrawn.
    """

    key: str
    title: str
    source: str
    where: str
    entries: tuple[str, ...]
    steps: tuple[Step, ...]
    withdrawn: tuple[Erratum, ...] = ()  # ledger items found wrong, kept visible with why (Erratum(withdrawn=...))

    def __post_init__(self):
        for name in ("key", "title", "source", "where"):
            if not isinstance(getattr(self, name), str):
                raise TrivialStepError(f"Derivation {self.key!r}: {name} must be a string; got "
                                       f"{name}={getattr(self, name)!r}"[:200])
        entries = (self.entries,) if isinstance(self.entries, str) else self.entries
        if not isinstance(entries, (tuple, list)) or not all(isinstance(e, str) for e in entries):
            raise TrivialStepError(f"Derivation {self.key!r}: entries must be a tuple of entry IDs; got "
                                   f"entries={self.entries!r}"[:200])
        object.__setattr__(self, "entries", tuple(entries))
        steps = (self.steps,) if isinstance(self.steps, Step) else self.steps
        if not isinstance(steps, (tuple, list)) or not all(isinstance(st, Step) for st in steps):
            bad = next((st for st in (steps if isinstance(steps, (tuple, list)) else [steps])
                        if not isinstance(st, Step)), steps)
            raise TrivialStepError(f"Derivation {self.key!r}: steps must be a tuple of Step records; got the "
                                   f"{type(bad).__name__} {bad!r}"[:200])
        object.__setattr__(self, "steps", tuple(steps))
        object.__setattr__(self, "withdrawn", tuple(self.withdrawn))
        for e in self.withdrawn:
            if not isinstance(e, Erratum) or not e.withdrawn:
                raise TrivialStepError(f"derivation {self.key}: `withdrawn` holds Erratum records with a "
                                       f"withdrawn reason; got {e!r}")
        printed = {c for s in self.steps if s.fidelity == AS_PRINTED for c in (*s.cites, *s.quotes)}
        for s in self.steps:
            if isinstance(s.fidelity, Amendment):
                lost = [c for c in (*s.cites, *s.quotes) if c not in printed]
                if lost:
                    raise FidelityError(f"step {s.label!r} of {self.key}: amends {', '.join(lost)} "
                                        f"({s.fidelity.key}) but no step of the derivation states it as printed")
        labels = [s.label for s in self.steps]
        for s in self.steps:
            missing = [p for p in s.premises if p not in labels[:labels.index(s.label)]]
            if missing:
                raise PremiseError(_premise_message(self.key, s.label, missing[0], labels))

    def __repr__(self) -> str:
        return f"<Derivation {self.key}: {self.title} ({len(self.steps)} steps; {self.source}, {self.where})>"

    def _repr_html_(self) -> str:
        """The steps as a table, with their verdicts where this process has checked them (showing never checks)."""
        cached = _RESULTS.get(id(self))
        results = list(cached[1]) if cached is not None and cached[0] is self else None
        head = (f"<p><b>{_esc(self.key)}</b>: {_esc(self.title)} ({_esc(self.source)}, {_esc(self.where)}); entries "
                f"{_esc(', '.join(self.entries))}" + ("" if results else "; not checked yet (<code>.check()</code>)")
                + "</p>")
        return head + _table(self.steps, results)

    def check(self, progress: Callable[[StepResult], None] | None = None, *, cache: bool = True) -> "StepResults":
        """Check every step (theorylab._decide.steps.check_derivation; results are cached per process: the steps
        are pure; cache=False recomputes)."""
        return DECIDERS["derivation"](self, progress, cache=cache)

    @property
    def errata(self) -> list[Erratum]:
        return [s.erratum for s in self.steps if s.erratum is not None]

    @property
    def seed(self) -> str:  # the field's former name
        return self.source

    @property
    def amendments(self) -> list[Amendment]:
        """The amendments its steps declare, once each, in step order."""
        return list(dict.fromkeys(s.fidelity for s in self.steps if isinstance(s.fidelity, Amendment)))

    def weakest(self, results: Sequence[StepResult] | None = None) -> StepResult | None:
        """The weakest link among the steps that hold (the derivation is as strong as it)."""
        held = [r for r in (self.check() if results is None else results) if r.status == StepStatus.HOLDS]
        return min(held, key=lambda r: STRENGTHS.index(r.strength), default=None)


_RESULTS: dict[int, tuple[Derivation, tuple[StepResult, ...]]] = {}

# the positional forms of author API 1 keep working, with one warning naming the keyword form (compat.py)
for _cls, _keep in ((Step, 1), (Erratum, 0), (Derivation, 0)):
    accept_positional(_cls, keep=_keep, since=2)


class StepResults(list):
    """The results of a derivation's steps: a list, shown in Jupyter as a table of verdicts."""

    def _repr_html_(self) -> str:
        return _table([r.step for r in self], list(self))


_MARK = {StepStatus.HOLDS: "&#10003;", StepStatus.ERRATUM_CONFIRMED: "erratum"}


def _table(steps: Sequence[Step], results: Sequence[StepResult] | None) -> str:
    """An HTML table of steps (statement in LaTeX where the sides are SymPy, why, premises) and their verdicts."""
    rows = ["<table><tr><th></th><th>step</th><th>statement</th><th>verdict</th></tr>"]
    for i, step in enumerate(steps):
        tex = step.latex()
        statement = f"${_esc(tex)}$" if tex else _esc(step.statement())
        verdict = ""
        if results is not None:
            r = results[i]
            verdict = (f"{_MARK.get(r.status, '<b>' + _esc(r.status) + '</b>')} {_esc(r.strength)}<br>"
                       f"<small>{_esc(r.outcome.method)}"
                       + (f"; {_esc(r.outcome.counterexample)}" if r.outcome.counterexample else "") + "</small>")
        label = _esc(step.label) + (f"<br><small>{_esc(step.why)}</small>" if step.why else "")
        if step.erratum is not None:
            label += f"<br><small>erratum {_esc(step.erratum.key)}: {_esc(step.erratum.truth)}</small>"
        rows.append(f"<tr><td>{i + 1}</td><td>{label}</td><td>{statement}</td><td>{verdict}</td></tr>")
    return "".join(rows) + "</table>"

