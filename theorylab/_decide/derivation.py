"""Derivations: ordered steps, each a relation (=, <=, <, >=, >) between two expressions, checked by the engine.

A step states what the paper states and the engine alone decides it: SymPy proves it, or a numeric search at
real points evaluates both sides (points, minimum slack and digits stated), or a counterexample refutes it.
A step cannot carry its own verdict: there is no check function, only points to evaluate the sides at, and
an erratum's verdict is the relation evaluated at its counterexample (a corrected paper flips it). Steps that
cannot fail (both sides the same expression) are refused when they are declared.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from . import search as _search

__all__ = ["Erratum", "Amendment", "FidelityError", "SEVERITIES", "AMENDMENT_KINDS", "AS_PRINTED", "Step", "StepResult", "StepResults", "Derivation", "Outcome", "TrivialStepError", "check_equal",
           "RELATIONS", "STRENGTHS"]

SYMPY_TIMEOUT_S = 20
NUMERIC_DIGITS = 50
NUMERIC_POINTS = 24
RELATIONS = ("==", "<=", "<", ">=", ">")
# weakest first: a derivation is as strong as its weakest step
STRENGTHS = ("refuted", "searched", "certified", "proved")
# the one relation -> LaTeX table (steps use the first five; "!=" is for parsed displays)
RELATION_TEX = {"==": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "!=": r"\ne"}


class TrivialStepError(ValueError):
    """A step that cannot fail (or cannot be evaluated) refused at declaration."""


# The severity scale of the ledger, least first. One rule for every paper (docs/authoring.md, "Errata, amendments,
# findings and notes"): the class of a discrepancy is decided by what it does to the printed claim, not by where
# it occurs.
SEVERITIES = ("typo", "proof-gap", "missing-hypothesis", "wrong-constant", "wrong-value", "false-statement")
SEVERITY_TEXT = {
    "typo": "a typo or notation slip: the intended statement is clear from the context and holds",
    "proof-gap": "the statement holds but the printed argument does not establish it (a step fails or is missing)",
    "missing-hypothesis": "the statement holds only under a hypothesis the paper does not state",
    "wrong-constant": "a constant or factor is wrong; the form of the result survives",
    "wrong-value": "a formula gives a wrong value (a closed form, a limit, a rate), beyond a constant",
    "false-statement": "a claimed theorem, inequality or qualitative statement is false",
}
# What an amendment changes in a printed statement before theorylab checks it.
AMENDMENT_KINDS = ("typo fixed", "notation", "hypothesis added", "constant corrected", "statement weakened",
                   "statement replaced")
AS_PRINTED = "as printed"


class FidelityError(TrivialStepError):
    """A step that cites a label without saying whether it checks the printed statement or an amendment of it."""


def _severity(where: str, severity: Any) -> None:
    if severity not in SEVERITIES:
        raise TrivialStepError(f"{where}: severity must be one of {', '.join(SEVERITIES)}; got {severity!r}")


def _text(where: str, name: str, value: Any, *, required: bool = True) -> None:
    if not isinstance(value, str) or (required and not value.strip()):
        raise TrivialStepError(f"{where}: {name} must be a {'non-empty ' if required else ''}string; got "
                               f"{name}={value!r}")


@dataclass(frozen=True, kw_only=True)
class Erratum:
    """A statement the paper prints that does not hold, with what holds instead and how much it matters.

    key         stable identifier, e.g. "000-A-eq18".
    source      the paper's source file (or citation) the statement is printed in.
    where       the equation numbers / section.
    says        what the paper prints (as printed).
    truth       what holds: the correction theorylab uses.
    severity    one of SEVERITIES (typo < proof-gap < missing-hypothesis < wrong-constant < wrong-value <
                false-statement).
    root        the key of the ledger item this one is a consequence of (the same mistake propagated), or None.
    note        why it matters / what it affects.
    at          the counterexample: a point (parameter name -> value) at which the engine evaluates the step's two
                sides; the erratum is confirmed only when the stated relation fails there. Without `at`, the
                step's own search must find a counterexample.
    history     earlier classifications and why they changed ("demoted from wrong-value: ..."), oldest first.
    withdrawn   a non-empty reason marks an item withdrawn: it stays listed in the ledger, as withdrawn, with the
                reason, and attaches to no step (Derivation(withdrawn=...)).
    """

    key: str
    source: str
    where: str
    says: str
    truth: str
    severity: str
    root: str | None = None
    note: str = ""
    at: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)
    history: tuple[str, ...] = ()
    withdrawn: str = ""

    def __post_init__(self):
        where = f"Erratum {self.key!r}"
        for name in ("key", "source", "where", "says", "truth"):
            _text(where, name, getattr(self, name))
        _severity(where, self.severity)
        _text(where, "note", self.note, required=False)
        _text(where, "withdrawn", self.withdrawn, required=False)
        if self.root is not None:
            _text(where, "root", self.root)
            if self.root == self.key:
                raise TrivialStepError(f"{where}: root names the item itself")
        if isinstance(self.history, str):
            object.__setattr__(self, "history", (self.history,))

    @property
    def seed(self) -> str:  # the record's former name for `source` (old code and JSON)
        return self.source

    def __repr__(self) -> str:
        state = f"withdrawn: {self.withdrawn}" if self.withdrawn else self.severity
        return f"<Erratum {self.key} ({self.source}, {self.where}; {state}): says {self.says!r}; holds: {self.truth!r}>"

    def _repr_html_(self) -> str:
        at = ", ".join(f"{k} = {v}" for k, v in (self.at or {}).items())
        state = f"withdrawn: {_esc(self.withdrawn)}" if self.withdrawn else _esc(self.severity)
        return (f"<div><b>Erratum {_esc(self.key)}</b> ({_esc(self.source)}, {_esc(self.where)}; {state})<br>"
                f"the paper states: {_esc(self.says)}<br>what holds: {_esc(self.truth)}"
                + (f"<br>counterexample: {_esc(at)}" if at else "") + (f"<br><i>{_esc(self.note)}</i>" if self.note
                                                                       else "") + "</div>")


@dataclass(frozen=True, kw_only=True)
class Amendment:
    """What theorylab changed in a printed statement before checking it, and why: a ledger item.

    A step that checks an amended statement declares `fidelity=Amendment(...)`; the printed statement is then
    also stated, as a step of the same derivation citing the same label with `fidelity="as printed"`, and holds
    or is an erratum.

    key         stable identifier, e.g. "002-eq37-noise".
    kind        one of AMENDMENT_KINDS: typo fixed, notation, hypothesis added, constant corrected, statement
                weakened, statement replaced.
    what        what was changed ("the label-noise constant sigma^2 of the loss is dropped").
    why         why the change is needed or harmless.
    severity    one of SEVERITIES: how much the discrepancy matters to the paper's claim.
    root        the key of the ledger item this one follows from, or None.
    """

    key: str
    kind: str
    what: str
    why: str
    severity: str
    root: str | None = None

    def __post_init__(self):
        where = f"Amendment {self.key!r}"
        for name in ("key", "what", "why"):
            _text(where, name, getattr(self, name))
        if self.kind not in AMENDMENT_KINDS:
            raise TrivialStepError(f"{where}: kind must be one of {', '.join(AMENDMENT_KINDS)}; got {self.kind!r}")
        _severity(where, self.severity)
        if self.root is not None:
            _text(where, "root", self.root)

    def __repr__(self) -> str:
        return f"<Amendment {self.key} ({self.kind}, {self.severity}): {self.what}>"


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
    relation     "==", "<=", "<", ">=" or ">".
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
    conditions   relations that bound one symbol each, `(gamma < 1, lam >= sp.Rational(1, 10))`: the step holds
                 under them; they narrow that symbol's interval (its `domain`, else its default from its assumptions)
                 for the search, the certification and the numeric identity test.
    tex          for a step with numeric sides, the statement as LaTeX (printed by `latex()`, coverage, the report);
                 without it the label is printed. SymPy sides print themselves.
    fidelity     required when `cites` is given: "as printed" (the statement the paper prints, up to notation: say
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
    relation: str = "=="
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

    def __post_init__(self):
        where = f"step {self.label!r}"
        if isinstance(self.cites, str):
            object.__setattr__(self, "cites", (self.cites,))
        if self.erratum is not None and not isinstance(self.erratum, Erratum):
            raise TrivialStepError(f"{where}: erratum must be an Erratum record; got {type(self.erratum).__name__}")
        if self.erratum is not None and self.erratum.withdrawn:
            raise TrivialStepError(f"{where}: erratum {self.erratum.key} is withdrawn; list it in the derivation's "
                                   "`withdrawn`, not on a step")
        if self.erratum is not None:
            if self.fidelity not in (None, AS_PRINTED):
                raise FidelityError(f"{where}: an erratum step states what the paper prints (fidelity 'as "
                                    f"printed'); got fidelity={self.fidelity!r}")
            object.__setattr__(self, "fidelity", AS_PRINTED if self.cites else None)
        if self.cites and self.fidelity is None:
            raise FidelityError(f"{where}: cites {', '.join(self.cites)} without a fidelity declaration: pass "
                                "fidelity='as printed' or fidelity=Amendment(...)")
        if self.fidelity is not None:
            if not self.cites:
                raise FidelityError(f"{where}: declares fidelity but cites no label of the paper")
            if not (self.fidelity == AS_PRINTED or isinstance(self.fidelity, Amendment)):
                raise FidelityError(f"{where}: fidelity must be 'as printed' or an Amendment; got "
                                    f"{self.fidelity!r}")
        if self.draft and (not self.cites or self.erratum is not None):
            raise TrivialStepError(f"{where}: a draft states the relation printed at a label: it cites that label "
                                   "and carries no erratum")
        if self.relation not in RELATIONS:
            raise TrivialStepError(f"{where}: relation must be one of {', '.join(RELATIONS)}; got {self.relation!r}")
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
        return f"{self._side_text(self.lhs, 'left')} {self.relation} {self._side_text(self.rhs, 'right')}"

    def latex(self, **settings: Any) -> str:
        """The step as LaTeX, `lhs rel rhs` printed with SymPy `latex` settings; a step with numeric sides prints
        its `tex`, else its label as text."""
        if self.numeric:
            return self.tex or r"\text{" + self.label.replace("\\", "").replace("{", "(").replace("}", ")") + "}"
        return f"{sp.latex(self.lhs, **settings)} {RELATION_TEX[self.relation]} {sp.latex(self.rhs, **settings)}"

    @property
    def search_domain(self) -> dict:
        """The domain the engine searches: `domain`, narrowed by `conditions`."""
        return _condition_domain(f"step {self.label!r}", self.conditions, self.domain)

    def __repr__(self) -> str:
        return f"<Step {self.label!r}: {self.statement()[:100]}{' (erratum ' + self.erratum.key + ')' if self.erratum else ''}>"

    def _repr_html_(self) -> str:
        return _table([self], None)

    def check(self) -> Outcome:
        """The engine's verdict (a symbolic step's verdict is cached on disk by a hash of its content)."""
        if self.draft:
            return Outcome(False, "draft", "the printed relation, not derived yet (TODO: the paper's steps)",
                           strength="draft")
        key = self.content_key()
        if key is not None:
            hit = _STEP_CACHE.get(key)
            if hit is not None:
                return hit
        out = self._check()
        if key is not None and out.strength != "error":
            _STEP_CACHE.put(key, out)
        return out

    def content_key(self) -> str | None:
        """A hash of everything the verdict depends on, for steps made of SymPy expressions alone: the engine that
        decides it (`_engine_fingerprint`: the source of the deciding code and the libraries' versions), the sides,
        the relation, the domain, the options, the erratum's point and the search's points (a search is called once
        here to list them). None for steps with numeric sides: their verdict depends on code, never cached."""
        if self.numeric:
            return None
        import hashlib

        searched = ""
        if self.search is not None:
            try:
                searched = repr([sorted((_name(k), sp.srepr(sp.sympify(v))) for k, v in p.items())
                                 for p in self.search()])
            except Exception:  # noqa: BLE001 - points that cannot be written down: not cached
                return None

        parts = [_CACHE_VERSION, _engine_fingerprint(), sp.srepr(_sympify(self.lhs)), sp.srepr(_sympify(self.rhs)),
                 self.relation,
                 repr(sorted((sp.srepr(k), repr(v)) for k, v in self.search_domain.items())), repr(self.symbolic),
                 repr(self.points), repr(self.erratum is not None),
                 repr(sorted((str(k), sp.srepr(sp.sympify(v))) for k, v in (self.erratum.at or {}).items()))
                 if self.erratum is not None else "", searched]
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def _check(self) -> Outcome:
        if self.erratum is not None and self.erratum.at is not None:
            return _evaluate_at(self, [dict(self.erratum.at)], "the erratum's counterexample")
        if self.numeric:
            return _evaluate_at(self, self.search(), "search")
        if self.relation == "==":
            if self.erratum is not None:
                # an erratum is expected to fail: a numeric counterexample settles it without slow simplification
                numeric = check_equal(self.lhs, self.rhs, domain=self.search_domain, symbolic=False,
                                      points=self.points)
                if not numeric.holds:
                    return numeric
            return check_equal(self.lhs, self.rhs, domain=self.search_domain, symbolic=self.symbolic,
                               points=self.points)
        return check_inequality(self.lhs, self.rhs, self.relation, domain=self.search_domain, symbolic=self.symbolic,
                                points=self.points, search=self.search)


_CACHE_VERSION = "theorylab-steps-4"  # bump when what a cached verdict means changes (Outcome's fields, the key)

# The code that decides a step. Its source (and the versions of the libraries it calls) is hashed into every cached
# verdict's key, so a changed engine (a narrower search, another verdict rule, a new budget) decides cached steps
# again instead of answering from the cache; code that only prints or records (the records above, the tables) is
# left out, so editing it keeps the cache.
_DECIDING = ("Step._check", "check_equal", "check_inequality", "_high_precision", "_candidate_points", "_interval",
             "_minimized", "_simpler", "certify_on_box", "_certify", "_iv_eval", "_iv_compile",
             "_provably_nonnegative", "_symbolic_zero", "_with_timeout", "_elements", "_replace_functions",
             "_float_evaluator", "_float_pair", "_at", "_evaluate", "_evaluate_at", "_side_value", "_slack",
             "_slack_at_precision", "_to_float", "_sympify", "_is_numeric_side")
_DECIDING_CONSTANTS = ("SYMPY_TIMEOUT_S", "NUMERIC_DIGITS", "NUMERIC_POINTS", "FLOAT64_RTOL", "CERTIFY_MAX_VARIABLES",
                       "CERTIFY_MAX_BOXES", "CERTIFY_QUICK_BOXES", "CERTIFY_WORK", "_IV_FUNCS")
_ENGINE_MODULES = ("theorylab._decide.search",)  # every function, class and UPPER_CASE constant defined there
_ENGINE_MEMO: list = [None, ""]


def _engine_parts() -> list[tuple[str, Any]]:
    """(name, object) for every piece of deciding code, and (name, value) for every deciding constant."""
    import importlib

    here = globals()
    parts: list[tuple[str, Any]] = []
    for name in _DECIDING:
        obj: Any = here.get(name.split(".")[0])
        for attr in name.split(".")[1:]:
            obj = getattr(obj, attr, None)
        parts.append((name, obj))
    parts += [(name, here.get(name)) for name in _DECIDING_CONSTANTS]
    for modname in _ENGINE_MODULES:
        mod = importlib.import_module(modname)
        for name, obj in sorted(vars(mod).items()):
            if (callable(obj) and getattr(obj, "__module__", None) == modname) or (name.isupper() and isinstance(
                    obj, (int, float, str, tuple))):
                parts.append((f"{modname}.{name}", obj))
    return parts


def _code_digest(code: Any) -> str:
    """A code object's bytecode, names and constants (nested functions included), without its file or line numbers:
    the behaviour, so a function whose code was replaced in place (a patched __code__) hashes differently, while
    code that only moved (lines added above it) hashes the same."""
    import types

    def const(c):
        if isinstance(c, types.CodeType):
            return _code_digest(c)
        if isinstance(c, frozenset):  # set literals: sorted, a frozenset's order changes with the hash seed
            return "frozenset" + repr(sorted(const(v) for v in c))
        if isinstance(c, tuple):
            return "(" + ",".join(const(v) for v in c) + ")"
        return repr(c)

    return "|".join([code.co_code.hex(), repr(code.co_names), repr(code.co_varnames)]
                    + [const(c) for c in code.co_consts])


def _functions_of(obj: Any) -> list[tuple[str, Any]]:
    """(name, function) for a function itself, or for the methods and property accessors of a class."""
    import types

    if isinstance(obj, types.FunctionType):
        return [("", obj)]
    if isinstance(obj, type):
        out = []
        for name, v in sorted(vars(obj).items()):
            v = getattr(v, "__func__", v)
            if isinstance(v, types.FunctionType):
                out.append((name, v))
            elif isinstance(v, property):
                out += [(f"{name}.{k}", f) for k, f in (("get", v.fget), ("set", v.fset)) if f is not None]
        return out
    return []


def _code_text(obj: Any) -> str:
    """What a piece of deciding code contributes to the engine's hash: a function's or class's source text (where it
    can be read) and its bytecode (`_code_digest`); a constant's repr."""
    import inspect

    fns = _functions_of(obj)
    if not fns:
        return _stable_repr(obj)
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):
        source = ""
    return source + "".join(f"\x00{name}:{_code_digest(f.__code__)}" for name, f in fns)


def _stable_repr(obj: Any) -> str:
    """repr without memory addresses: functions and classes by their qualified names, dicts and sets sorted."""
    if isinstance(obj, dict):
        return "{" + ", ".join(sorted(f"{_stable_repr(k)}: {_stable_repr(v)}" for k, v in obj.items())) + "}"
    if isinstance(obj, (set, frozenset)):
        return "{" + ", ".join(sorted(_stable_repr(v) for v in obj)) + "}"
    if isinstance(obj, (tuple, list)):
        return "(" + ", ".join(_stable_repr(v) for v in obj) + ")"
    if callable(obj) and hasattr(obj, "__qualname__"):
        return f"{getattr(obj, '__module__', '')}.{obj.__qualname__}"
    return repr(obj)


def _identity(obj: Any) -> Any:
    """What must stay the same for the remembered hash to stand: the objects and their code objects."""
    fns = _functions_of(obj)
    return (obj, *(f.__code__ for _, f in fns)) if fns else None


def _engine_fingerprint() -> str:
    """A hash of the deciding code (`_DECIDING`, `_DECIDING_CONSTANTS`, the modules in `_ENGINE_MODULES`) and of
    the versions of Python, SymPy, mpmath, NumPy and SciPy. Recomputed whenever one of those objects or its code is
    replaced (a monkeypatch, a patched __code__, a reload) or a constant changes, else remembered for the process."""
    import hashlib
    import sys

    import mpmath
    import scipy

    parts = _engine_parts()
    now = [(name, _identity(obj), None if _functions_of(obj) else _stable_repr(obj)) for name, obj in parts]
    memo = _ENGINE_MEMO[0]
    if memo is not None and len(memo) == len(now) and all(
            m[0] == n[0] and m[2] == n[2] and (m[1] is None) == (n[1] is None)
            and (m[1] is None or (len(m[1]) == len(n[1]) and all(p is q for p, q in zip(m[1], n[1]))))
            for m, n in zip(memo, now)):
        return _ENGINE_MEMO[1]
    h = hashlib.sha256()
    for name, obj in parts:
        h.update(name.encode() + b"\x00" + _code_text(obj).encode() + b"\x00")
    h.update(f"python {sys.version_info[:2]} sympy {sp.__version__} mpmath {mpmath.__version__} numpy "
             f"{np.__version__} scipy {scipy.__version__}".encode())
    _ENGINE_MEMO[:] = [now, h.hexdigest()]
    return _ENGINE_MEMO[1]


class _StepCache:
    """Verdicts of symbolic steps on disk (~/.cache/theorylab/steps), keyed by content; THEORYLAB_STEP_CACHE=0 turns
    it off. A torn or unreadable entry is a miss."""

    @property
    def dir(self) -> str:
        import os

        return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "theorylab", "steps")

    @property
    def on(self) -> bool:
        import os

        return os.environ.get("THEORYLAB_STEP_CACHE", "1") != "0"

    def get(self, key: str) -> Outcome | None:
        import json
        import os

        if not self.on:
            return None
        try:
            with open(os.path.join(self.dir, key[:2], key + ".json")) as fh:
                data = json.load(fh)
            return Outcome(**{**data, "method": data["method"] + " [cached]"})
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, out: Outcome) -> None:
        import dataclasses
        import os

        from .._shared import write_json

        if not self.on:
            return
        try:
            write_json(os.path.join(self.dir, key[:2], key + ".json"), dataclasses.asdict(out), indent=None,
                       prefix=f".{key}.")
        except OSError:  # a read-only home: the cache is a convenience
            pass


_STEP_CACHE = _StepCache()


def _to_float(x: Any) -> Any:
    if isinstance(x, dict):
        return np.concatenate([np.ravel(np.asarray(_to_float(v), dtype=float)) for _, v in sorted(x.items())])
    if isinstance(x, sp.Basic):
        return float(x)
    return x


def _side_value(side: Any, point: Mapping[str, Any]) -> Any:
    if _is_numeric_side(side):
        return side(**point)
    expr = _sympify(side)
    subs = {s: point[s.name] for s in (expr.free_symbols if not isinstance(expr, sp.MatrixBase)
                                       else set().union(*[e.free_symbols for e in expr])) if s.name in point}
    out = expr.subs({s: sp.nsimplify(v) if isinstance(v, float) else v for s, v in subs.items()})
    if isinstance(out, sp.MatrixBase):
        return np.array([float(sp.N(e.doit(), NUMERIC_DIGITS)) for e in out], dtype=float)
    return sp.N(out.doit(), NUMERIC_DIGITS)


def _slack(lhs: Any, rhs: Any, relation: str, tol: float, rtol: float) -> float:
    """The margin by which `lhs relation rhs` holds (>= 0 holds; < 0 fails; strict relations need > 0).

    Scalars are compared in mpmath at NUMERIC_DIGITS + 10 digits, so 50-digit SymPy sides keep their digits."""
    import mpmath

    with mpmath.workdps(NUMERIC_DIGITS + 10):
        return _slack_at_precision(lhs, rhs, relation, tol, rtol)


def _slack_at_precision(lhs: Any, rhs: Any, relation: str, tol: float, rtol: float) -> float:
    import mpmath

    def arr(x):
        if isinstance(x, sp.Basic):
            if x.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not x.is_number:
                raise ValueError(f"a side is not a finite number ({x})")
            return mpmath.mpf(str(sp.re(x))) if x.is_real is not False else None
        return x

    a, b = arr(lhs), arr(rhs)
    if a is None or b is None:
        raise ValueError("a side is complex at this point")
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape and a.size != 1 and b.size != 1:
            raise ValueError(f"sides have shapes {a.shape} and {b.shape}")
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("a side is not finite at this point")
        margin = tol + rtol * np.maximum(np.abs(a), np.abs(b))
        if relation == "==":
            return float(np.min(margin - np.abs(a - b)))
        d = (b - a) if relation in ("<=", "<") else (a - b)
        return float(np.min(d + (margin if relation in ("<=", ">=") else -margin)))
    a = mpmath.mpf(a) if not isinstance(a, mpmath.mpf) else a
    b = mpmath.mpf(b) if not isinstance(b, mpmath.mpf) else b
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        raise ValueError("a side is not finite at this point")
    if tol == 0 and rtol == 0 and (isinstance(lhs, sp.Basic) or isinstance(rhs, sp.Basic)) and relation == "==":
        # SymPy sides: 50-digit evaluation, equality to NUMERIC_DIGITS - 15 digits relative, with an absolute floor
        # of 10^-(NUMERIC_DIGITS - 5) for sides that cancel to zero (an absolute 1e-35 let exp(-1000 y) = 2
        # exp(-1000 y) hold wherever both sides were below it)
        margin = (mpmath.mpf(10) ** (-(NUMERIC_DIGITS - 15)) * max(abs(a), abs(b))
                  + mpmath.mpf(10) ** (-(NUMERIC_DIGITS - 5)))
    else:
        margin = tol + rtol * max(abs(a), abs(b))
    if relation == "==":
        return float(margin - abs(a - b))
    d = (b - a) if relation in ("<=", "<") else (a - b)
    return float(d + margin if relation in ("<=", ">=") else d - margin)


def _fmt_point(point: Mapping[str, Any]) -> str:
    def f(v):
        if isinstance(v, np.ndarray):
            return np.array2string(v, precision=6, separator=", ", threshold=12)
        if isinstance(v, float):
            return f"{v:.12g}"
        return str(v)
    return ", ".join(f"{_name(k)}={f(v)}" for k, v in point.items())


def _fmt_val(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=10, threshold=8)
    try:
        return sp.sstr(sp.N(x, 12)) if isinstance(x, sp.Basic) else f"{float(x):.12g}"
    except (TypeError, ValueError):
        return str(x)


def _evaluate_at(step: Step, points: Iterable[Mapping[str, Any]], how: str) -> Outcome:
    return _evaluate(step.lhs, step.rhs, step.relation, points, how, tol=step.tol, rtol=step.rtol,
                     tol_source=step.tol_source, at=step.erratum is not None and step.erratum.at is not None)


def _evaluate(lhs_side: Any, rhs_side: Any, relation: str, points: Iterable[Mapping[str, Any]], how: str, *,
              tol: float = 0.0, rtol: float = 0.0, tol_source: str = "", at: bool = False) -> Outcome:
    """Evaluate both sides at each point; the verdict is the relation's slack, computed here, never given."""
    tried, worst, skipped = 0, math.inf, 0
    strict = relation in ("<", ">")
    for point in points:
        point = {_name(k): v for k, v in point.items()}
        try:
            lhs, rhs = _side_value(lhs_side, point), _side_value(rhs_side, point)
            slack = _slack(lhs, rhs, relation, tol, rtol)
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError) as exc:
            if at:
                return Outcome(False, "error", f"the counterexample cannot be evaluated: {exc}", strength="error")
            skipped += 1
            continue
        tried += 1
        worst = min(worst, slack)
        if slack < 0 or (strict and slack <= 0):
            text = f"{_fmt_point(point)}: lhs = {_fmt_val(lhs)}, rhs = {_fmt_val(rhs)}"
            return Outcome(False, f"counterexample ({how})", "at " + text, text, strength="refuted",
                           points=tried, min_slack=slack)
    if tried == 0:
        return Outcome(False, "undecided", f"no point could be evaluated ({skipped} skipped)", strength="error")
    tol = f"; tolerance {tol:g} + {rtol:g} rel ({tol_source})" if tol or rtol else ""
    return Outcome(True, f"searched: {tried} points ({how})", f"minimum slack {worst:.3g}{tol}"
                   + (f"; {skipped} points not evaluable" if skipped else ""),
                   strength="searched", points=tried, min_slack=worst)


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
    def status(self) -> str:
        if self.step.draft:
            return "draft (not checked)"
        if self.outcome.strength == "error":
            return "ERROR (not evaluated)"
        if self.step.erratum is None:
            return "holds" if self.outcome.holds else "FAILS (unexpected)"
        return "erratum confirmed" if not self.outcome.holds else "ERRATUM NOT REPRODUCED (step holds)"


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
        printed = {c for s in self.steps if s.fidelity == AS_PRINTED for c in s.cites}
        for s in self.steps:
            if isinstance(s.fidelity, Amendment):
                lost = [c for c in s.cites if c not in printed]
                if lost:
                    raise FidelityError(f"step {s.label!r} of {self.key}: amends {', '.join(lost)} "
                                        f"({s.fidelity.key}) but no step of the derivation states it as printed")
        labels = [s.label for s in self.steps]
        for s in self.steps:
            missing = [p for p in s.premises if p not in labels[:labels.index(s.label)]]
            if missing:
                raise TrivialStepError(f"step {s.label!r} of {self.key}: premises must be earlier steps; "
                                       f"got {missing}")

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
        """Check every step (results are cached per process: the steps are pure; cache=False recomputes)."""
        cached = _RESULTS.get(id(self)) if cache else None
        if cached is not None and cached[0] is self:
            for r in cached[1]:
                if progress:
                    progress(r)
            return StepResults(cached[1])
        results = []
        for step in self.steps:
            try:
                outcome = step.check()
            except Exception as exc:  # a crashing check is a failed check, reported as such
                outcome = Outcome(False, "error", f"{type(exc).__name__}: {exc}", strength="error")
            result = StepResult(step, outcome)
            results.append(result)
            if progress:
                progress(result)
        if cache:
            _RESULTS[id(self)] = (self, tuple(results))
        return StepResults(results)

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
        held = [r for r in (self.check() if results is None else results) if r.status == "holds"]
        return min(held, key=lambda r: STRENGTHS.index(r.strength), default=None)


_RESULTS: dict[int, tuple[Derivation, tuple[StepResult, ...]]] = {}


class StepResults(list):
    """The results of a derivation's steps: a list, shown in Jupyter as a table of verdicts."""

    def _repr_html_(self) -> str:
        return _table([r.step for r in self], list(self))


def _esc(text: Any) -> str:
    import html

    return html.escape(str(text))


_MARK = {"holds": "&#10003;", "erratum confirmed": "erratum"}


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


# --------------------------------------------------------------------------------------------
# equation checks


class _Timeout(Exception):
    pass


def _with_timeout(fn: Callable[[], Any], seconds: int) -> Any:
    """fn() stopped by _Timeout after `seconds` of wall time where possible (main thread on POSIX; else unbounded):
    `_shared.with_timeout`."""
    from .._shared import with_timeout

    return with_timeout(fn, seconds, error=_Timeout)


def _elements(x: Any) -> list[sp.Expr]:
    if isinstance(x, sp.MatrixBase):
        return list(x)
    return [sp.sympify(x)]


def _symbolic_zero(diff: sp.Expr) -> bool:
    if diff == 0:
        return True
    for transform in (sp.expand, sp.cancel, lambda e: sp.simplify(e.doit()),
                      lambda e: sp.simplify(sp.expand(e.rewrite(sp.exp).doit()))):
        try:
            if _with_timeout(lambda: transform(diff), SYMPY_TIMEOUT_S) == 0:
                return True
        except _Timeout:
            return False
        except Exception:  # noqa: BLE001 - a transform SymPy cannot apply just does not decide
            continue
    return False


def _condition_domain(where: str, conditions: Sequence[Any], domain: dict) -> dict:
    """`domain` narrowed by conditions that each bound one symbol by a number (x < 1, 0 <= x, x > 1/10); a
    condition of any other form is a one-line TrivialStepError naming it."""
    out = dict(domain)
    for c in conditions:
        if not isinstance(c, sp.core.relational.Relational) or isinstance(c, (sp.Eq, sp.Ne)):
            raise TrivialStepError(f"{where}: conditions must be inequalities such as gamma < 1; got {c!r}")
        sides = [x for x in (c.lhs, c.rhs) if x.free_symbols]
        if len(sides) != 1 or not isinstance(sides[0], sp.Symbol) or not (c.lhs - c.rhs).free_symbols == {sides[0]}:
            raise TrivialStepError(f"{where}: each condition must bound one symbol by a number (gamma < 1); "
                                   f"got {c}")
        sym = sides[0]
        bound = float(c.rhs if c.lhs == sym else c.lhs)
        upper = isinstance(c, (sp.StrictLessThan, sp.LessThan)) == (c.lhs == sym)
        lo, hi = out[sym] if sym in out else _interval(sym, out)  # a declared bound may be unbounded (None, oo)
        fl, fh = _search.finite_interval(lo, hi)
        if upper and bound < fh:
            hi = bound
        elif not upper and bound > fl:
            lo = bound
        if not _search.finite_interval(lo, hi)[0] < _search.finite_interval(lo, hi)[1]:
            raise TrivialStepError(f"{where}: condition {c} leaves {sym} no interval (its interval was "
                                   f"{_interval(sym, domain)})")
        out[sym] = (lo, hi)
    return out


def _interval(sym: sp.Symbol, domain: dict) -> tuple[float, float]:
    """The interval a symbol is searched on, as floats: the step's domain (a bound of None, sympy.oo or math.inf is
    unbounded), else by its assumptions: positive (0.05, 3), nonnegative (0, 3), real (-3, 3)."""
    if sym in domain:
        lo, hi = domain[sym]
        return _search.finite_interval(lo, hi)
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    return (-3.0, 3.0)


def _candidate_points(syms: Sequence[sp.Symbol], domain: dict, rng: random.Random, points: int = NUMERIC_POINTS):
    """Simple points first (so a counterexample is small), then random real points in the domain: uniform on a
    linear interval (rounded to 1/1000), uniform in the search coordinate elsewhere (log coordinates for a
    multi-decade or unbounded interval, theorylab._decide.search), rounded to 4 significant digits."""
    simple = (1, 2, sp.Rational(1, 2), 3, -1, -2)
    coords = {s: _search.coordinate(s, *_interval(s, domain)) for s in syms}

    def inside(sym, v):
        lo, hi = _interval(sym, domain)
        if sym.is_integer and not sp.sympify(v).is_integer:
            return False
        return lo <= float(v) <= hi

    base = {}
    for s in syms:
        base[s] = next((v for v in simple if inside(s, v)), None)
    if all(v is not None for v in base.values()):
        yield dict(base)
        for s in syms:
            for v in simple[1:]:
                if inside(s, v) and v != base[s]:
                    yield {**base, s: v}
    for _ in range(points):
        pt = {}
        for s in syms:
            c = coords[s]
            if s.is_integer:
                pt[s] = rng.randint(int(c.ulo), int(c.uhi))
            elif c.kind == "lin":
                pt[s] = sp.Rational(round(rng.uniform(c.lo, c.hi) * 1000), 1000) or sp.Rational(1, 1000)
            else:
                pt[s] = _search.point_of([c], [rng.uniform(c.ulo, c.uhi)], digits=4)[s]
        yield pt


def _replace_functions(expr: sp.Expr, rng: random.Random) -> sp.Expr:
    """Undefined functions (r(s)) become random cubic polynomials so integrals can be evaluated."""
    mapping = {}
    for f in expr.atoms(AppliedUndef):
        if f.func in mapping:
            continue
        x = sp.Dummy("x")
        coeffs = [sp.Rational(rng.randint(-9, 9), 7) for _ in range(4)]
        mapping[f.func] = sp.Lambda(x, sum(c * x ** k for k, c in enumerate(coeffs)))
    return expr.subs(mapping).doit() if mapping else expr


FLOAT64_RTOL = 1e-9  # float64 agreement that decides a point: far above rounding, far below any transcription slip


def _float_evaluator(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Callable[..., Any] | None:
    """A float64 evaluator of expr (SciPy quadrature for definite integrals), or None where float64 cannot be built
    (limits, sums, functions without a NumPy/SciPy counterpart)."""
    if expr.has(sp.Limit, sp.Sum, sp.Product) or expr.atoms(AppliedUndef):
        return None
    expr = expr.replace(lambda e: isinstance(e, (sp.Subs, sp.Derivative)), lambda e: e.doit())
    try:
        return sp.lambdify(list(syms), expr, modules=["scipy", "numpy"])
    except Exception:  # noqa: BLE001 - no float64 route: the point goes to high precision
        return None


def _float_pair(fa: Callable | None, fb: Callable | None, point: Mapping[sp.Symbol, Any],
                syms: Sequence[sp.Symbol]) -> bool:
    """True when float64 decides this point: both sides finite, real and equal to FLOAT64_RTOL relative."""
    if fa is None or fb is None:
        return False
    import warnings

    args = [float(point[s]) for s in syms]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            a, b = complex(fa(*args)), complex(fb(*args))
    except Exception:  # noqa: BLE001 - float64 cannot evaluate it here: high precision decides
        return False
    if a.imag or b.imag or not (math.isfinite(a.real) and math.isfinite(b.real)):
        return False
    scale = max(abs(a.real), abs(b.real))
    if scale < 1e-290:  # zeros and near-underflow: float64 cannot tell 0 from exp(-1000) (high precision can)
        return False
    return abs(a.real - b.real) <= FLOAT64_RTOL * scale


def _at(expr: sp.Expr, point: Mapping[sp.Symbol, Any]) -> sp.Expr:
    """expr at a point, its limits and substitutions carried out (evalf leaves an unevaluated Limit as it is;
    integrals stay for evalf's quadrature, which is faster than SymPy integrating)."""
    return expr.subs(point).replace(lambda e: isinstance(e, (sp.Limit, sp.Subs)), lambda e: e.doit())


def check_equal(lhs: Any, rhs: Any, *, domain: dict | None = None, symbolic: bool = True,
                seed: int = 0, points: int | None = None) -> Outcome:
    """Decide lhs = rhs: SymPy simplification first, else a numeric identity test at real points.

    The numeric test evaluates both sides at simple points and then NUMERIC_POINTS random rational points of the
    domain, in float64 first (SciPy quadrature for integrals): a point where both sides agree to FLOAT64_RTOL is
    decided there; any other point (a float64 disagreement, an overflow, a limit, a complex value) is evaluated at
    NUMERIC_DIGITS digits, and only that evaluation can refute. The verdict says how many points each decided.
    """
    domain = domain or {}
    lhs_el, rhs_el = _elements(lhs), _elements(rhs)
    if len(lhs_el) != len(rhs_el):
        return Outcome(False, "shape", f"sides have {len(lhs_el)} and {len(rhs_el)} entries", strength="error")
    diffs = [sp.sympify(a) - sp.sympify(b) for a, b in zip(lhs_el, rhs_el)]
    if symbolic and all(_symbolic_zero(d) for d in diffs):
        return Outcome(True, "sympy: simplifies to 0", strength="proved")
    rng = random.Random(seed)
    lhs_el = [_replace_functions(sp.sympify(e), rng) for e in lhs_el]
    rng = random.Random(seed)
    rhs_el = [_replace_functions(sp.sympify(e), rng) for e in rhs_el]
    syms = sorted(set().union(*[e.free_symbols for e in lhs_el + rhs_el]), key=lambda s: s.name)
    floats = [(_float_evaluator(a, syms), _float_evaluator(b, syms)) for a, b in zip(lhs_el, rhs_el)]
    tested = by_float = 0
    guarded = False
    tol = sp.Float(10, NUMERIC_DIGITS) ** (-(NUMERIC_DIGITS - 15))
    floor = sp.Float(10, NUMERIC_DIGITS) ** (-(NUMERIC_DIGITS - 5))
    npts = NUMERIC_POINTS if points is None else points
    # a step that asks for few points (costly integrals) also gets few simple points
    cap = npts + 40 if points is None else 2 * npts + 1
    for point in itertools.islice(_candidate_points(syms, domain, random.Random(seed), npts), cap):
        # one point is always evaluated at high precision: float64 cannot see a difference below its resolution
        # (a dropped e^-40), 50 digits can; every other point is decided in float64 where it can be
        if guarded and all(_float_pair(fa, fb, point, syms) for fa, fb in floats):
            tested += 1
            by_float += 1
            continue
        try:
            pairs = [(sp.N(_at(a, point), NUMERIC_DIGITS), sp.N(_at(b, point), NUMERIC_DIGITS))
                     for a, b in zip(lhs_el, rhs_el)]
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if any(not (a.is_number and b.is_number) or a.has(sp.zoo, sp.nan, sp.oo, -sp.oo)
               or b.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for a, b in pairs):
            continue  # a singular point of either side: not evidence either way
        # relative agreement to NUMERIC_DIGITS - 15 digits, with an absolute floor for sides that cancel to zero
        # (an absolute 1e-35 for values below 1 let exp(-1000 y) = 2 exp(-1000 y) hold at y ~ 0.1)
        bad = next(((a, b) for a, b in pairs
                    if sp.Abs(sp.N(a - b, NUMERIC_DIGITS)) > tol * max(sp.Abs(a), sp.Abs(b)) + floor), None)
        if bad is not None:
            where = ", ".join(f"{s}={v}" for s, v in point.items())
            text = f"{where}: lhs = {sp.N(bad[0], 12)}, rhs = {sp.N(bad[1], 12)}"
            return Outcome(False, f"numeric counterexample ({NUMERIC_DIGITS} digits)", "at " + text, text,
                           strength="refuted", points=tested + 1)
        tested += 1
        guarded = True
    if tested == 0:
        return Outcome(False, "undecided", "SymPy could not simplify and no point could be evaluated", strength="error")
    if by_float == 0:
        how = f"{NUMERIC_DIGITS} digits"
    else:
        how = (f"{by_float} decided in float64 (agreement to {FLOAT64_RTOL:g} relative), {tested - by_float} at "
               f"{NUMERIC_DIGITS} digits (one always; the others where float64 could not decide)")
    return Outcome(True, f"numeric identity test ({tested} real points, {how})",
                   "SymPy did not simplify the difference to 0" if symbolic else "", strength="searched",
                   points=tested)


# --------------------------------------------------------------------------------------------
# inequality checks: proof, certification on a box, adversarial search


def _provably_nonnegative(slack: sp.Expr) -> bool:
    """SymPy decides slack >= 0 from the symbols' assumptions (after simplification)."""
    if slack.is_nonnegative:
        return True
    for transform in (sp.factor, sp.simplify, sp.cancel, lambda e: sp.sqf(sp.together(e))):
        try:
            t = _with_timeout(lambda: transform(slack), SYMPY_TIMEOUT_S)
        except _Timeout:
            return False
        except Exception:  # noqa: BLE001 - a transform SymPy cannot apply does not decide
            continue
        if t.is_nonnegative:
            return True
    return False


_IV_FUNCS = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.sqrt: "sqrt", sp.atan: "atan",
             sp.tanh: "tanh", sp.cosh: "cosh", sp.sinh: "sinh"}


def _iv_eval(expr: sp.Expr, box: Mapping[sp.Symbol, Any]):
    """Interval enclosure of expr over the box (mpmath.iv), by structural recursion; TypeError if unsupported."""
    import mpmath

    iv = mpmath.iv
    if expr.is_Symbol:
        return box[expr]
    if expr.is_Rational:
        return iv.mpf(expr.p) / iv.mpf(expr.q)
    if expr.is_Number or expr.is_NumberSymbol:
        v = sp.N(expr, 40)
        return iv.mpf([str(v - sp.Float(10, 40) ** -35), str(v + sp.Float(10, 40) ** -35)])
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + _iv_eval(a, box)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * _iv_eval(a, box)
        return out
    if expr.is_Pow:
        base, e = expr.args
        b = _iv_eval(base, box)
        if e.is_Integer:
            n = int(e)
            if n >= 0:
                return b ** n
            return iv.mpf(1) / (b ** (-n))
        if e == sp.Rational(1, 2):
            return iv.sqrt(b)
        if e == -sp.Rational(1, 2):
            return iv.mpf(1) / iv.sqrt(b)
        return iv.exp(_iv_eval(e, box) * iv.log(b))
    if isinstance(expr, sp.Abs):
        a = _iv_eval(expr.args[0], box)
        lo, hi = a.a, a.b
        if lo >= 0:
            return a
        if hi <= 0:
            return -a
        return iv.mpf([0, max(-lo, hi)])
    if expr.func in _IV_FUNCS:
        return getattr(iv, _IV_FUNCS[expr.func])(_iv_eval(expr.args[0], box))
    raise TypeError(f"no interval rule for {expr.func}")


def _iv_compile(expr: sp.Expr, syms: Sequence[sp.Symbol]) -> Callable[[Sequence[Any]], Any]:
    """_iv_eval compiled once: the same interval rules, constants converted once and common subexpressions
    (SymPy cse) evaluated once per box: the enclosure of each occurrence is the same interval, so the result is an
    enclosure as _iv_eval's is, several times faster on a large side. TypeError if an operation has no rule."""
    import mpmath

    iv = mpmath.iv
    reps, (reduced,) = sp.cse([expr])
    slot = {s: i for i, s in enumerate(syms)}

    def const(c):
        return lambda v: c

    def comp(e):
        if e in slot:
            i = slot[e]
            return lambda v: v[i]
        if e.is_Symbol:
            raise TypeError(f"no interval for the symbol {e}")
        if e.is_Rational:
            return const(iv.mpf(e.p) / iv.mpf(e.q))
        if e.is_Number or e.is_NumberSymbol:
            val = sp.N(e, 40)
            return const(iv.mpf([str(val - sp.Float(10, 40) ** -35), str(val + sp.Float(10, 40) ** -35)]))
        if e.is_Add or e.is_Mul:
            fs = [comp(a) for a in e.args]
            if e.is_Add:
                def add(v):
                    out = fs[0](v)
                    for f in fs[1:]:
                        out = out + f(v)
                    return out
                return add

            def mul(v):
                out = fs[0](v)
                for f in fs[1:]:
                    out = out * f(v)
                return out
            return mul
        if e.is_Pow:
            base, ex = e.args
            fb = comp(base)
            if ex.is_Integer:
                n = int(ex)
                one = iv.mpf(1)
                return (lambda v: fb(v) ** n) if n >= 0 else (lambda v: one / (fb(v) ** (-n)))
            if ex == sp.Rational(1, 2):
                return lambda v: iv.sqrt(fb(v))
            if ex == -sp.Rational(1, 2):
                one = iv.mpf(1)
                return lambda v: one / iv.sqrt(fb(v))
            fe = comp(ex)
            return lambda v: iv.exp(fe(v) * iv.log(fb(v)))
        if isinstance(e, sp.Abs):
            fa = comp(e.args[0])

            def absolute(v):
                a = fa(v)
                if a.a >= 0:
                    return a
                if a.b <= 0:
                    return -a
                return iv.mpf([0, max(-a.a, a.b)])
            return absolute
        if e.func in _IV_FUNCS:
            g, fa = getattr(iv, _IV_FUNCS[e.func]), comp(e.args[0])
            return lambda v: g(fa(v))
        raise TypeError(f"no interval rule for {e.func}")

    program = []
    for sym, sub in reps:
        program.append(comp(sub))
        slot[sym] = len(slot)
    final = comp(reduced)

    def run(values: Sequence[Any]) -> Any:
        v = list(values)
        for f in program:
            v.append(f(v))
        return final(v)
    return run


def certify_on_box(slack: sp.Expr, box: Mapping[sp.Symbol, tuple[float, float]], *, strict: bool = False,
                   max_boxes: int = 20000, log: Iterable[sp.Symbol] = ()) -> tuple[bool | None, str, int]:
    """Certify slack >= 0 (> 0 if strict) on a closed box by interval arithmetic with bisection.

    Returns (True, detail, boxes) when every sub-box's enclosure is >= 0, (False, point, boxes) when a sub-box's
    midpoint violates it, (None, reason, boxes) when the budget runs out or an operation has no interval rule (the
    reason names the cell left open). A cell is split along its widest side relative to the box; along the symbols
    in `log` (a positive or negative interval) geometrically, so a multi-decade box is bisected by decades.
    """
    ok, detail, done, _ = _certify(slack, box, strict=strict, max_boxes=max_boxes, log=log)
    return ok, detail, done


def _certify(slack: sp.Expr, box: Mapping[sp.Symbol, tuple[float, float]], *, strict: bool = False,
             max_boxes: int = 20000, log: Iterable[sp.Symbol] = ()) -> tuple[bool | None, str, int, dict | None]:
    """certify_on_box, with the violating midpoint as a point (symbol -> rational) when there is one."""
    import mpmath

    syms = sorted(box, key=lambda s: s.name)
    full = [(float(box[s][0]), float(box[s][1])) for s in syms]
    geo = [s in set(log) and lo * hi > 0 for s, (lo, hi) in zip(syms, full)]
    span = [math.log(hi / lo) if g else hi - lo for g, (lo, hi) in zip(geo, full)]
    stack = [tuple(full)]
    done = 0
    try:
        enclose = _iv_compile(slack, syms)
    except (TypeError, ZeroDivisionError, ValueError) as exc:
        return None, f"interval arithmetic cannot evaluate it ({exc})", done, None
    try:
        fast = sp.lambdify(syms, slack, "mpmath")
    except Exception:  # noqa: BLE001 -- no mpmath form: every midpoint goes to SymPy
        fast = None

    def cell_text(cell) -> str:
        return ", ".join(f"{s} in [{lo:.6g}, {hi:.6g}]" for s, (lo, hi) in zip(syms, cell))

    def clearly_ok(mid: dict) -> bool:
        """The slack at a midpoint is certainly > 0 (so no violation there) when 40- and 60-digit mpmath values
        agree to half their size: cancellation would make them disagree. SymPy's exact evaluation (~1 ms a box,
        most of a box's cost) is left for the points this cannot settle."""
        if fast is None:
            return False
        try:
            vals = []
            for dps in (40, 60):
                with mpmath.workdps(dps):
                    vals.append(fast(*(mpmath.mpf(v.p) / v.q for v in mid.values())))
            lo_, hi_ = vals
            return bool(mpmath.isfinite(hi_) and hi_ > 0 and abs(lo_ - hi_) < hi_ / 2)
        except Exception:  # noqa: BLE001 -- any failure: decide with SymPy
            return False

    def middle(k: int, lo: float, hi: float) -> float:
        return math.copysign(math.sqrt(lo * hi), lo) if geo[k] else (lo + hi) / 2

    while stack:
        if done >= max_boxes:
            return None, (f"undecided after {done} boxes (the enclosure is still too wide on {len(stack) + 1} cells, "
                          f"e.g. {cell_text(cell)})"), done, None
        cell = stack.pop()
        done += 1
        try:
            enc = enclose([mpmath.iv.mpf([lo, hi]) for lo, hi in cell])
        except (TypeError, ZeroDivisionError, ValueError) as exc:
            return None, f"interval arithmetic cannot evaluate it ({exc})", done, None
        if enc.a > 0 or (enc.a >= 0 and not strict):
            continue
        mid = {s: _search.rational(middle(k, lo, hi), 13) if lo != hi else _search.rational(lo, 13)
               for k, (s, (lo, hi)) in enumerate(zip(syms, cell))}
        if not clearly_ok(mid):
            val = sp.N(slack.subs(mid), 30)
            if val.is_number and (val < 0 or (strict and val <= 0)):
                return False, ", ".join(f"{s}={float(v):.12g}" for s, v in mid.items()), done, mid
        k = max(range(len(syms)), key=lambda i: (math.log(cell[i][1] / cell[i][0]) if geo[i] else
                                                  cell[i][1] - cell[i][0]) / (span[i] or 1.0))
        lo, hi = cell[k]
        m = middle(k, lo, hi)
        if hi - lo < 1e-12 * (max(abs(lo), abs(hi)) if geo[k] else 1.0) or not lo < m < hi:
            return None, f"the enclosure does not decide near {cell_text(cell)}", done, None
        for half in ((lo, m), (m, hi)):
            stack.append(cell[:k] + (half,) + cell[k + 1:])
    return True, f"{done} boxes", done, None


def _simpler(v: Any) -> list:
    """Candidates simpler than v, simplest first: small integers and halves, the nearest fractions of small
    denominator, then v rounded to fewer decimals and to 1, 2, 3 significant digits."""
    x = float(v)
    out = [sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Integer(-2), sp.Rational(1, 2),
           sp.Rational(-1, 2), sp.Integer(3), sp.Integer(-3)]
    out += [sp.Rational(round(x * q), q) for q in range(1, 11)]  # the nearest integer, half, third, ...
    out += [sp.Rational(round(x * 10**k), 10**k) for k in range(2, 7)]
    if x and math.isfinite(x):  # far from 1 (1e-5, 3e6): the value to 1, 2, 3 significant digits
        out += [_search.rational(x, d) for d in (1, 2, 3)]
    return [c for c in out if c != v]


def _minimized(lhs: Any, rhs: Any, relation: str, point: Mapping, domain: dict, found: Outcome,
               decide: Callable[[Mapping, str], Outcome] | None = None) -> Outcome:
    """Shrink a counterexample: each coordinate in turn replaced by the simplest value (within the domain) at which
    the relation still fails, until no coordinate can be simplified; the verdict is re-evaluated there. `decide`
    (check_inequality's _high_precision) evaluates a candidate; by default _evaluate."""
    decide = decide or (lambda p, how: _evaluate(lhs, rhs, relation, [p], how))
    point = dict(point)
    changed = True
    while changed:
        changed = False
        for sym in list(point):
            lo, hi = _interval(sym, domain) if isinstance(sym, sp.Symbol) else (-math.inf, math.inf)
            for cand in _simpler(point[sym]):
                if not (lo <= float(cand) <= hi) or (isinstance(sym, sp.Symbol) and sym.is_positive and cand <= 0):
                    continue
                if sp.count_ops(cand) >= sp.count_ops(sp.nsimplify(point[sym])) and len(str(cand)) >= len(
                        str(point[sym])):
                    continue
                out = decide({**point, sym: cand}, "minimized")
                if out.strength == "refuted":
                    point[sym] = cand
                    changed = True
                    break
    out = _evaluate(lhs, rhs, relation, [point], found.method.split("(")[-1].rstrip(")") + ", minimized")
    return out if out.strength == "refuted" else found


def _high_precision(lhs: sp.Expr, rhs: sp.Expr, relation: str, syms: Sequence[sp.Symbol]
                    ) -> Callable[[Mapping, str], Outcome]:
    """The evaluation of a point that decides it: the sides as mpmath at NUMERIC_DIGITS + 10 digits (lambdified:
    milliseconds where SymPy's substitution takes up to a second on a large side) settle a point where the relation
    holds by a clear margin (1e-40 relative); any other point (a violation, a near-tie, a complex or non-finite
    value, a side mpmath cannot evaluate) is decided by `_evaluate`, SymPy at NUMERIC_DIGITS digits."""
    import mpmath

    try:
        f = sp.lambdify(list(syms), [lhs, rhs], modules="mpmath")
    except Exception:  # noqa: BLE001 - SymPy decides every point
        f = None

    def mp(v):
        if isinstance(v, sp.Rational):
            return mpmath.mpf(int(v.p)) / int(v.q)
        if isinstance(v, sp.Basic):
            return mpmath.mpf(str(sp.N(v, NUMERIC_DIGITS + 10)))
        return mpmath.mpf(v) if isinstance(v, (int, float)) else v

    def decide(point: Mapping, how: str) -> Outcome:
        if f is not None and all(s in point for s in syms):
            try:
                with mpmath.workdps(NUMERIC_DIGITS + 10):
                    a, b = (mpmath.mpf(v) if isinstance(v, (int, float)) else v
                            for v in f(*(mp(point[s]) for s in syms)))
                    if isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf) and mpmath.isfinite(a) and \
                            mpmath.isfinite(b):
                        d = (b - a) if relation in ("<=", "<") else (a - b)
                        if d > mpmath.mpf(10) ** -40 * (abs(a) + abs(b)):
                            return Outcome(True, "", strength="searched", points=1, min_slack=float(d))
            except Exception:  # noqa: BLE001 - SymPy decides this point
                pass
        return _evaluate(lhs, rhs, relation, [point], how)

    return decide


CERTIFY_MAX_VARIABLES = 3  # interval bisection is attempted on boxes of at most this many variables
CERTIFY_MAX_BOXES = 20000
CERTIFY_QUICK_BOXES = 200  # tried before the float64 search: a slack certified in this many boxes needs no search
CERTIFY_WORK = 400_000     # boxes x operations of the slack (SymPy count_ops): ~10 s at the most on a slow core


def check_inequality(lhs: Any, rhs: Any, relation: str, *, domain: dict | None = None, symbolic: bool = True,
                     points: int | None = None, search: Callable | None = None, seed: int = 0) -> Outcome:
    """Decide lhs <relation> rhs over the domain, in stages:

    1. proved: SymPy shows the slack nonnegative (positive for a strict relation) from the assumptions;
    2. simple points, random points of the domain (log coordinates on multi-decade and unbounded intervals) and the
       step's own `search` points, at NUMERIC_DIGITS digits;
    3. the float64 search of theorylab._decide.search: corners and faces of the box, differential evolution on the relative
       slack (seeded; its budget grows with the variables and the decades), Nelder-Mead from several starts; the
       best distinct points are re-evaluated at NUMERIC_DIGITS digits (float64 never refutes on its own);
    4. certified: interval arithmetic with bisection on boxes of at most CERTIFY_MAX_VARIABLES variables, an
       unbounded interval through a compactifying change of variables (x = lo + t/(1 - t), t in [0, 1]);
    5. else searched, the verdict stating the box and its coordinates, the points of each stage, the smallest slack
       found and why certification was not attempted or failed.
    Refuted at the first violating point, shrunk to simple values (_minimized)."""
    domain = domain or {}
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    slack = (rhs - lhs) if relation in ("<=", "<") else (lhs - rhs)
    strict = relation in ("<", ">")
    syms = sorted(slack.free_symbols, key=lambda s: s.name)
    if symbolic and not strict and _provably_nonnegative(slack):
        return Outcome(True, "sympy: the slack is manifestly nonnegative", strength="proved")
    if symbolic and strict and slack.is_positive:
        return Outcome(True, "sympy: the slack is positive", strength="proved")
    rng = random.Random(seed)
    npts = NUMERIC_POINTS if points is None else points
    cands = list(itertools.islice(_candidate_points(syms, domain, rng, npts), npts + 40))
    own = 0
    if search is not None:
        given = [{next(s for s in syms if s.name == _name(k)) if any(s.name == _name(k) for s in syms) else k: v
                 for k, v in p.items()} for p in search()]
        own = len(given)
        cands = given + cands
    decide = _high_precision(lhs, rhs, relation, syms)
    scored = []
    for p in cands:
        out = decide(p, "simple and random points")
        if out.strength == "refuted":
            return _minimized(lhs, rhs, relation, p, domain, out, decide)
        if out.min_slack is not None:
            scored.append((out.min_slack, p))
    exact = len(scored)
    if exact == 0:
        return Outcome(False, "undecided", "no point of the domain could be evaluated", strength="error")
    coords = _search.coordinates(syms, lambda s: _interval(s, domain))
    plan = None
    if 0 < len(syms) <= CERTIFY_MAX_VARIABLES:
        def simplify(e):
            return _with_timeout(lambda: sp.cancel(sp.together(e)), SYMPY_TIMEOUT_S)

        plan = _search.certification_plan(slack, coords, simplify)
        ops = max(1, int(sp.count_ops(plan.expr)))

    def bisection_counterexample(mid: dict, detail: str) -> Outcome:
        pt = {}
        for k, v in mid.items():
            if k in plan.mapped:  # a compactified variable: back to the step's own
                sym, phi = plan.mapped[k]
                pt[sym] = sp.nsimplify(phi.subs(k, v))
            else:
                pt[k] = v
        out = _evaluate(lhs, rhs, relation, [pt], "interval bisection")
        if out.strength == "refuted":
            return _minimized(lhs, rhs, relation, pt, domain, out, decide)
        return Outcome(False, "counterexample (interval bisection)", "at " + detail, detail, strength="refuted",
                       points=len(scored))

    mine = f", {own} of the step's own" if own else ""
    # a slack that certifies in a few boxes needs no search
    if plan is not None:
        ok, detail, n, mid = _certify(plan.expr, plan.box, strict=strict, log=plan.log,
                                      max_boxes=min(CERTIFY_QUICK_BOXES, CERTIFY_WORK // ops))
        if ok:
            worst, at = min(scored, key=lambda t: t[0])
            return Outcome(True, f"certified on the box {plan.text}",
                           f"interval arithmetic, {detail}; before it {len(scored)} points at {NUMERIC_DIGITS} digits "
                           f"(simple, random{mine}), minimum slack {worst:.3g} (at {_fmt_point(at)})",
                           strength="certified", points=len(scored),
                           min_slack=worst)
        if ok is False and mid is not None:
            return bisection_counterexample(mid, detail)
    cov = None
    if syms:
        starts = [[c.to_u(float(p[c.sym])) for c in coords] for _, p in sorted(scored, key=lambda t: t[0])[:3]
                  if all(c.sym in p for c in coords)]
        for early in (True, False):
            cov = _search.search(lhs, rhs, relation, coords, seed=seed, starts=starts, early_stop=early)
            for rel, u in cov.best:
                pt = _search.point_of(coords, u)
                out = decide(pt, "global and local search of the float64 slack")
                exact += 1
                if out.strength == "refuted":
                    return _minimized(lhs, rhs, relation, pt, domain, out, decide)
                if out.min_slack is not None:
                    scored.append((out.min_slack, pt))
            if not cov.stopped_early:  # a float64 violation not confirmed at 50 digits: search again, in full
                break
    worst, at = min(scored, key=lambda t: t[0])
    tried = exact + (cov.float_evals if cov is not None else 0)
    best = cov.best[0][0] if cov is not None and cov.best else None
    certified, why = None, ""
    if not syms:
        why = "no variables"
    elif plan is None:
        why = (f"not attempted: {len(syms)} variables (interval bisection is attempted on at most "
               f"{CERTIFY_MAX_VARIABLES})")
    else:
        boxes = min(CERTIFY_MAX_BOXES, CERTIFY_WORK // ops)
        tight = worst <= 0 or (best is not None and best <= 1e-9)
        if tight:
            boxes = max(CERTIFY_QUICK_BOXES, boxes // 10)
        ok, detail, n, mid = _certify(plan.expr, plan.box, strict=strict, log=plan.log, max_boxes=boxes)
        if ok:
            certified = plan.text
            why = f"interval arithmetic, {detail}"
        elif ok is False and mid is not None:
            return bisection_counterexample(mid, detail)
        else:
            budget = (f"a budget of {boxes} boxes: {CERTIFY_WORK} operations over the slack's {ops}"
                      + (", a tenth where the slack comes within 1e-9 of 0 (relative) in the search: interval "
                         "enclosures rarely separate a touching slack from 0" if tight else ""))
            why = f"failed on {plan.text}: {detail}; {budget}"
    covered = (f"minimum slack {worst:.3g} at {NUMERIC_DIGITS} digits (at {_fmt_point(at)})"
               + (f"; float64 slack / (|lhs| + |rhs| + their median size) >= {best:.3g}" if best is not None else "")
               + (f"; box: {cov.box()}; float64 search: {cov.stages()}" if cov is not None else ""))
    stages = (f"{exact} at {NUMERIC_DIGITS} digits (simple, random{mine}, the best of the search), "
              f"{tried - exact} in float64 (corners and faces, differential evolution, Nelder-Mead)")
    if certified:
        return Outcome(True, f"certified on the box {certified}", f"{why}; searched first: {stages}; {covered}",
                       strength="certified", points=tried, min_slack=worst)
    return Outcome(True, f"searched: {tried} points ({stages})", f"{covered}; certification: {why}",
                   strength="searched", points=tried, min_slack=worst)
