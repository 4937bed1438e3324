"""Mutation testing of the checks: plant a standard mistake in an entry and see which layer catches it.

Each mutant changes one entry in place (its formula, its stable form, or its solver's output) for the duration of
the test; the layers are the contract (value against the independent reference, stable form against the
paper's formula), the derivation steps in which the entry's value appears (a SymPy side containing its formula or
stable form, which is substituted by the mutant's, or a numeric side that calls the entry), and the evidence
checks that name it. Every layer runs on every mutant, so each layer has its own score. A mutant that no layer
catches is a check that could not fail, and `theorylab mutate` exits 1.

The per-check view (`sensitivity`): every evidence check is rerun with each entry it names perturbed, by a
relative error delta (the entry's value scaled by 1 + delta; delta = twice the resolution the check's records
need, at most 1) and by the standard mutants; a check that passes under every perturbation of an entry it names is
*insensitive* to it (a self-comparison, a tolerance that swallows a factor 2, a check that never calls its entry),
and `theorylab mutate` exits 1. `coverage` lists the entries whose value appears in no derivation step or in no
evidence check (unless the paper states why, in NO_STEP / NO_EVIDENCE of the family's entries module).
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import math
import sys
import time
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, given, settings  # each campaign draws its sample points (samples())

from .._decide.derivation import StepResult
from .._decide.entry import Entry
from .._numerics import kernels
from .._pipeline import catalogue
from .._records.evidence import Context, Evidence, needed_resolution
from .._records.params import DomainError
from .._shared import close, fmt
from .._shared import representable as _representable  # one definition: the contract suite's too

__all__ = ["Mutant", "MutantResult", "mutants", "run", "score", "layer_scores", "LAYERS", "PROFILES",
           "CheckSensitivity", "sensitivity", "delta_mutant", "steps_using", "coverage", "VIEWS", "campaign"]

LAYERS = ("contract", "derivation", "evidence")
VIEWS = ("entries", "checks", "coverage")
# Every layer runs on every mutant in both profiles (each layer's own score). quick: 12 sampled points per entry,
# and only the checks whose unperturbed run took at most `check_seconds`, trained networks never (the others are
# listed as not run);
# the per-check view stops at the first perturbation of an entry that the check catches. full: 40 points, every
# check, every perturbation.
PROFILES = {"quick": {"samples": 12, "check_seconds": 30.0, "first_catch": True, "kinds_skipped": ("training",)},
            "full": {"samples": 40, "check_seconds": math.inf, "first_catch": False, "kinds_skipped": ()}}
_EQUIV_RTOL = 1e-9


@dataclass(frozen=True)
class Mutant:
    """One planted mistake: `target` is "formula", "stable_form" or "compute"; `op` names the mutation."""

    entry: str
    target: str
    op: str
    description: str
    apply: Callable[[Entry], dict] = dataclasses.field(repr=False, compare=False)  # entry -> field overrides


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    caught_by: tuple[str, ...]       # the layers that caught it (in order tried)
    equivalent: bool                 # the mutant computes the same values: excluded from the score
    detail: str
    seconds: float
    ran: tuple[str, ...] = ()        # the layers that ran on it (had steps, checks to run): their scores

    @property
    def survived(self) -> bool:
        return not self.equivalent and not self.caught_by

    def to_json(self) -> dict:
        return {"entry": self.mutant.entry, "target": self.mutant.target, "op": self.mutant.op,
                "description": self.mutant.description, "caught_by": list(self.caught_by),
                "ran": list(self.ran), "equivalent": self.equivalent, "survived": self.survived,
                "detail": self.detail, "seconds": round(self.seconds, 3)}


# ---------------------------------------------------------------------------------------------------
# the standard set of mutations


def _terms(expr: sp.Expr) -> list[sp.Expr]:
    return list(sp.Add.make_args(expr))


def _first_pow(expr: sp.Expr) -> sp.Pow | None:
    """The first power with a numeric exponent other than +-1/2 and -1, in a stable (preorder) order."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.exp.is_Number and node.exp not in (-1,):
            return node
    return None


def _expr_mutations(expr: sp.Expr, symbols: Sequence[sp.Symbol]) -> list[tuple[str, str, sp.Expr]]:
    out: list[tuple[str, str, sp.Expr]] = []
    terms = _terms(expr)
    if len(terms) > 1:
        # the largest term by operation count: the one a transcription slip most likely hits
        t = max(terms, key=lambda a: (sp.count_ops(a), sp.default_sort_key(a)))
        out.append(("sign flip", f"sign of the term {sp.sstr(t)[:60]} flipped", expr - 2 * t))
        small = min(terms, key=lambda a: (sp.count_ops(a), sp.default_sort_key(a)))
        out.append(("dropped term", f"term {sp.sstr(small)[:60]} dropped", expr - small))
        out.append(("factor 2", f"term {sp.sstr(t)[:60]} doubled", expr + t))
    else:
        out.append(("sign flip", "the whole expression negated", -expr))
        out.append(("factor 2", "the whole expression doubled", 2 * expr))
    p = _first_pow(expr)
    if p is not None:
        for d, name in ((1, "exponent + 1"), (-1, "exponent - 1")):
            new = sp.Pow(p.base, p.exp + d)
            out.append((name, f"{sp.sstr(p)[:50]} -> {sp.sstr(new)[:50]}", expr.xreplace({p: new})))
    scal = [s for s in symbols if s in expr.free_symbols]
    if len(scal) >= 2:
        a, b = scal[0], scal[1]
        out.append(("swapped arguments", f"{a} and {b} swapped", expr.xreplace({a: b, b: a})))
    return out


def _map_numbers(x: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(x, dict):
        return {k: _map_numbers(v, fn) for k, v in x.items()}
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_map_numbers(v, fn) for v in x)
    arr = np.asarray(x, dtype=float)
    out = fn(arr)
    return float(out) if np.ndim(out) == 0 else out


def _compute_mutations(entry: Entry) -> list[tuple[str, str, Callable]]:
    f = entry.compute
    out: list[tuple[str, str, Callable]] = [
        ("sign flip", "the solver's output negated", lambda **kw: _map_numbers(f(**kw), lambda a: -a)),
        ("factor 2", "the solver's output doubled", lambda **kw: _map_numbers(f(**kw), lambda a: 2 * a)),
        ("exponent + 1", "the solver's output squared", lambda **kw: _map_numbers(f(**kw), lambda a: a * np.abs(a))),
        ("perturbed", "the solver's output off by 1e-6 relative",
         lambda **kw: _map_numbers(f(**kw), lambda a: a * (1 + 1e-6) + 1e-300)),
    ]
    same = {}
    for p in entry.params:
        if p.kind in ("scalar", "vector", "matrix"):
            same.setdefault((p.kind, p.shape), []).append(p.name)
    pair = next((names[:2] for names in same.values() if len(names) >= 2), None)
    if pair:
        a, b = pair
        out.append(("swapped arguments", f"{a} and {b} swapped in the solver's input",
                    lambda **kw: f(**{**kw, a: kw[b], b: kw[a]})))
    return out


def mutants(entry: Entry) -> list[Mutant]:
    """The standard set of mutations of one entry: of its formula, its stable form and its solver."""
    syms = [p.symbol for p in entry.params if p.kind in ("scalar", "integer")]
    out: list[Mutant] = []
    if entry.compute is not None:
        for op, text, fn in _compute_mutations(entry):
            out.append(Mutant(entry.id, "compute", op, text, lambda e, fn=fn: {"compute": fn}))
    for target in ("formula", "stable_form"):
        expr = getattr(entry, target)
        if expr is None or (target == "stable_form" and expr == entry.formula):
            continue
        for op, text, new in _expr_mutations(expr, syms):
            out.append(Mutant(entry.id, target, op, text, lambda e, t=target, n=new: {t: n}))
    return out


@contextlib.contextmanager
def applied(entry: Entry, overrides: dict) -> Iterator[None]:
    """Change the entry's fields in place (frozen records included) and restore them afterwards."""
    old = {k: getattr(entry, k) for k in overrides}

    def clear():
        for cached in ("_kernel_expr", "kernel_params"):
            entry.__dict__.pop(cached, None)

    try:
        for k, v in overrides.items():
            object.__setattr__(entry, k, v)
        clear()
        yield
    finally:
        for k, v in old.items():
            object.__setattr__(entry, k, v)
        clear()


# ---------------------------------------------------------------------------------------------------
# the layers


def samples(entry: Entry, n: int) -> list[dict]:
    """Pinned examples plus n points drawn (derandomized) from the entry's own strategy."""
    found: list[dict] = [dict(e) for e in entry.examples]

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(entry.strategy())
    def grab(kwargs):
        found.append(kwargs)

    grab()
    return found


def _close(a: Any, b: Any, rtol: float) -> bool:
    """a within rtol of b: `_shared.close`, the one closeness rule (as the contract compares)."""
    return close(a, b, rtol)


def _value(entry: Entry, kw: dict) -> Any:
    try:
        return entry(**kw)
    except DomainError as exc:
        return ("DomainError", str(exc).split(" at ")[0])


def contract_layer(entry: Entry, points: Sequence[dict]) -> str | None:
    """Value against the entry's reference, and the stable form against the paper's formula; None if it holds."""
    try:
        return _contract(entry, points)
    except _ReferenceRaised as exc:
        return str(exc)


def _contract(entry: Entry, points: Sequence[dict]) -> str | None:
    for kw in points:
        try:
            value = entry(**kw)
        except DomainError as exc:
            ref = _safe_reference(entry, kw)
            if ref is None or not _representable(ref):
                continue
            return f"DomainError where the reference is {ref!r:.60} at {fmt(kw, 17)}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a mutant that crashes the kernel is caught
            return f"{type(exc).__name__} at {fmt(kw, 17)}: {exc}"
        ref = _safe_reference(entry, kw)
        if ref is not None and not _close(value, ref, max(entry.rtol, 1e-10) * 10):
            return f"value {fmt(value, 17)} vs reference {fmt(ref, 17)} at {fmt(kw, 17)}"
        if entry.formula is not None and entry.stable_form is not None and entry.stable_form != entry.formula:
            vals = entry.validate(kw)
            args = [vals[p.name] for p in entry.kernel_params]
            try:
                paper = kernels.mp_reference_array(entry.mpmath, args)
            except Exception:  # noqa: BLE001 - the paper's form is singular here: not evidence
                continue
            stable = entry.numpy(*args)
            if np.all(np.isfinite(np.asarray(paper, dtype=float))) and not _close(stable, paper, 1e-8):
                return f"stable form {fmt(stable, 17)} vs the paper's formula {fmt(paper, 17)} at {fmt(kw, 17)}"
    return None




class _ReferenceRaised(Exception):
    pass


def _safe_reference(entry: Entry, kw: dict) -> Any:
    """The reference's value; None where it is bad input; a crash (as the contract test would see it) is raised."""
    try:
        return entry.reference_value(**kw)
    except DomainError:
        return None
    except Exception as exc:  # noqa: BLE001 - the contract test fails on it, so the mutant is caught
        raise _ReferenceRaised(f"the reference raised {type(exc).__name__}: {exc}") from exc


# ---------------------------------------------------------------------------------------------------
# where an entry's value appears: derivation steps (static) and evidence checks (by name)


def _targets(entry: Entry) -> list[tuple[sp.Basic, bool]]:
    """The entry's own expressions a step can contain, with whether they count anywhere in a side: its formula and
    stable form (anywhere), and for a piecewise one each branch's expression (a step states one branch on its
    domain: as a whole side or a term of one, since a small branch such as 1/(g - 1) is a factor of many other
    expressions); never a bare symbol or number."""
    out: list[tuple[sp.Basic, bool]] = []
    for e in (entry.formula, entry.stable_form):
        if not isinstance(e, sp.Basic):
            continue
        for t, anywhere in [(e, True)] + ([(a.expr, False) for a in e.args] if isinstance(e, sp.Piecewise) else []):
            if not t.is_Atom and all(t != o for o, _ in out):
                out.append((t, anywhere))
    return out


def _branches(old: sp.Basic, new: sp.Basic) -> dict:
    """{branch of the piecewise `old`: the same branch (same condition) of `new`}, where they can be matched."""
    if not isinstance(old, sp.Piecewise):
        return {}
    try:
        folded = sp.piecewise_fold(new)
    except Exception:  # noqa: BLE001 - branches that cannot be matched are left as they are
        return {}
    if not isinstance(folded, sp.Piecewise):
        return {}
    by_cond = {c: e for e, c in folded.args}
    return {a.expr: by_cond[a.cond] for a in old.args if a.cond in by_cond and not a.expr.is_Atom}


def _expr_mentions(side: Any, targets: Sequence[tuple[sp.Basic, bool]]) -> bool:
    if not targets or not isinstance(side, (sp.Basic, sp.MatrixBase)):
        return False
    exprs = list(side) if isinstance(side, sp.MatrixBase) else [side]
    anywhere = {t for t, a in targets if a}
    whole = {t for t, a in targets if not a}
    return any(node in anywhere for e in exprs for node in sp.preorder_traversal(e)) or any(
        e in whole or any(term in whole for term in sp.Add.make_args(e)) for e in exprs)


def _code_mentions(fn: Any, entry: Entry, depth: int = 0, seen: set | None = None) -> bool:
    """A numeric side calls the entry: its code (or that of the functions of its module it calls, three levels
    deep) names the entry's ID as a constant (theorylab.get("id"), a lookup by ID) or holds the Entry object."""
    seen = set() if seen is None else seen
    if isinstance(fn, functools.partial):
        return any(v is entry for v in (*fn.args, *fn.keywords.values())) or _code_mentions(fn.func, entry, depth, seen)
    code = getattr(fn, "__code__", None)
    if code is None or id(code) in seen:
        return False
    seen.add(id(code))
    cells = []
    for c in getattr(fn, "__closure__", None) or ():
        try:
            cells.append(c.cell_contents)
        except ValueError:
            continue
    for v in (*cells, *(getattr(fn, "__defaults__", None) or ())):
        if v is entry:
            return True
        if callable(v) and depth < 3 and _code_mentions(v, entry, depth + 1, seen):
            return True
    g = getattr(fn, "__globals__", {})

    def walk(co: types.CodeType) -> bool:
        for c in co.co_consts:
            if c == entry.id or (isinstance(c, types.CodeType) and walk(c)):
                return True
        for name in co.co_names:
            v = g.get(name)
            if v is entry:
                return True
            if (isinstance(v, types.FunctionType) and depth < 3 and v.__module__ == getattr(fn, "__module__", None)
                    and _code_mentions(v, entry, depth + 1, seen)):
                return True
        return False

    return walk(code)


def _side_uses(side: Any, entry: Entry, targets: Sequence[sp.Basic]) -> bool:
    return _code_mentions(side, entry) if callable(side) and not isinstance(side, sp.Basic) else _expr_mentions(
        side, targets)


def steps_using(entry: Entry, derivations: Sequence[Any] | None = None) -> list[tuple[Any, Any]]:
    """(derivation, step) pairs in which the entry's value appears: a SymPy side containing its formula or stable
    form as a subexpression, or a numeric side that calls it. A step that states a hand-typed copy of the formula
    in other symbols does not count: a mistake in the entry would not reach it."""
    targets = _targets(entry)
    out = []
    for d in (catalogue.derivations() if derivations is None else derivations):
        for step in d.steps:
            if _side_uses(step.lhs, entry, targets) or _side_uses(step.rhs, entry, targets):
                out.append((d, step))
    return out


def _substitutions(entry: Entry, overrides: dict) -> dict:
    """{the entry's expression: the mutant's} for the formula / stable form a mutant changes (call unmutated)."""
    subs = {}
    for field_name in ("formula", "stable_form"):
        old = getattr(entry, field_name)
        if field_name in overrides and isinstance(old, sp.Basic) and isinstance(overrides[field_name], sp.Basic):
            subs[old] = overrides[field_name]
            for k, v in _branches(old, overrides[field_name]).items():
                subs.setdefault(k, v)
    return subs


def _mutated_step(step: Any, subs: dict) -> Any:
    """The step as the mutated entry makes it: its SymPy sides with the entry's formula / stable form replaced by the
    mutant's (`subs`; numeric sides call the entry, which is mutated in place)."""
    if not subs:
        return step

    def sub(side):
        if isinstance(side, sp.MatrixBase):
            return side.xreplace(subs)
        return side.xreplace(subs) if isinstance(side, sp.Basic) else side

    lhs, rhs = sub(step.lhs), sub(step.rhs)
    if lhs is step.lhs and rhs is step.rhs:
        return step
    return dataclasses.replace(step, lhs=lhs, rhs=rhs)


class _Baselines:
    """Unperturbed results, computed once: each used step's verdict, each check's records and run time."""

    def __init__(self, profile: str = "quick", *, check_seconds: float | None = None):
        self.cfg = dict(PROFILES[profile])
        if check_seconds is not None:  # a single check judged whatever its time (tests of one check)
            self.cfg.update(check_seconds=check_seconds, kinds_skipped=())
        self.steps: dict[int, bool] = {}
        self.checks: dict[str, "_CheckBaseline"] = {}
        self.using: dict[str, list] = {}

    def steps_for(self, entry: Entry) -> list[tuple[Any, Any]]:
        if entry.id not in self.using:
            self.using[entry.id] = steps_using(entry)
        return self.using[entry.id]

    def step_ok(self, step: Any) -> bool:
        if id(step) not in self.steps:
            try:
                self.steps[id(step)] = StepResult(step, step.check()).ok
            except Exception:  # noqa: BLE001 - a step that crashes unperturbed tells nothing about a mutant
                self.steps[id(step)] = False
        return self.steps[id(step)]

    def check(self, check: Any) -> "_CheckBaseline":
        if check.name not in self.checks:
            t0 = time.perf_counter()
            why, recs = _run_check(check)
            self.checks[check.name] = _CheckBaseline(why, time.perf_counter() - t0, recs)
        return self.checks[check.name]

    def usable(self, check: Any) -> tuple[bool, str]:
        """Whether the check can tell a mutant: it passes unperturbed, asserts something (an Evidence record), and
        (quick) is cheap enough."""
        if check.kind in self.cfg["kinds_skipped"]:
            return False, f"not run in this profile: a {check.kind} check (run --profile full)"
        b = self.check(check)
        if b.failure:
            return False, f"fails unperturbed ({b.failure})"
        if not any(isinstance(r, Evidence) for r in b.records):
            return False, "asserts nothing: its records are findings (reported, never a pass or a failure)"
        if b.seconds > self.cfg["check_seconds"]:
            return False, (f"not run in this profile: {b.seconds:.1f} s unperturbed > {self.cfg['check_seconds']:g} s "
                           "(run --profile full)")
        return True, ""


@dataclass(frozen=True)
class _CheckBaseline:
    failure: str | None
    seconds: float
    records: tuple = ()


def _run_check(check: Any) -> tuple[str | None, tuple]:
    """The check's records in verify's quick profile, and why it fails (its first failing record, or what it
    raised; None when every record passes)."""
    try:
        recs = tuple(check.evaluate(Context(profile="quick", device="cpu", seed=0)))
    except Exception as exc:  # noqa: BLE001 - a mutant that crashes a check is caught by it
        return f"raised {type(exc).__name__}: {str(exc)[:200]}", ()
    bad = next((r for r in recs if isinstance(r, Evidence) and not r.passed), None)
    if bad is not None:
        return f"{bad.check[:80]} failed (abs err {bad.abs_error:.3g} > tol {float(bad.tolerance):.3g})", recs
    return None, recs


def _check_failure(check: Any) -> str | None:
    return _run_check(check)[0]


def derivation_layer(entry: Entry, subs: dict | None = None, baselines: _Baselines | None = None) -> str | None:
    """Re-check the steps in which the entry's value appears, as the (mutated) entry makes them; the first step
    whose verdict is not what the ledger expects, or None. Call with the mutant applied, `subs` from
    `_substitutions` (taken before), and baselines computed before (`_layer_ran`)."""
    baselines = baselines or _Baselines()
    for d, step in baselines.steps_for(entry):
        if not baselines.step_ok(step):
            continue
        try:
            new = _mutated_step(step, subs or {})
            res = StepResult(new, new.check())
        except Exception as exc:  # noqa: BLE001 - a step that cannot be stated or evaluated any more is caught
            return f"{d.key}: step {step.label!r} raised {type(exc).__name__}: {str(exc)[:120]}"
        if not res.ok:
            return f"{d.key}: step {step.label!r} {res.status}"
    return None


def evidence_layer(entry: Entry, profile: str = "quick", baselines: _Baselines | None = None) -> str | None:
    """Run the checks that name the entry (those usable in this profile); the first failure, or None."""
    baselines = baselines or _Baselines(profile)
    for check in catalogue.checks():
        if entry.id not in check.entries or not baselines.usable(check)[0]:
            continue
        why = _check_failure(check)
        if why:
            return f"{check.name}: {why}"
    return None


def _layer_ran(layer: str, entry: Entry, baselines: _Baselines) -> bool:
    """Whether the layer has anything to run on this entry's mutants (steps using it, usable checks naming it)."""
    if layer == "contract":
        return True
    if layer == "derivation":  # every baseline now, before any mutant is applied
        return any([baselines.step_ok(st) for _, st in baselines.steps_for(entry)])
    return any([baselines.usable(c)[0] for c in catalogue.checks() if entry.id in c.entries])


def _formula_values(entry: Entry, kw: dict) -> Any:
    """The paper's formula (not the kernel) at a point, in float64: what a formula mutant changes."""
    try:
        values = entry.validate(kw)
        f = kernels.build("numpy", entry.formula, tuple(p.symbol for p in entry.kernel_params))
        out = f(*(values[p.name] for p in entry.kernel_params))
        return np.sum(out, axis=-1) if entry.reduce == "sum" else out
    except Exception as exc:  # noqa: BLE001 - a formula that cannot be evaluated here is a value of its own
        return ("error", type(exc).__name__)


def _observed(entry: Entry, target: str, kw: dict) -> Any:
    return _formula_values(entry, kw) if target == "formula" else _value(entry, kw)


def _equivalent(entry: Entry, target: str, baseline: Sequence[Any], points: Sequence[dict]) -> bool:
    """The mutated field computes the same values as the original at every sample point (an equivalent mutant):
    for a formula mutant, the formula's own values; otherwise the entry's value."""
    for kw, base in zip(points, baseline):
        if not _close_or_same(_observed(entry, target, kw), base):
            return False
    return True


def _close_or_same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return False
        same_nan = np.isnan(a) & np.isnan(b)
        a, b = np.where(same_nan, 0, a), np.where(same_nan, 0, b)
    try:
        return _close(a, b, _EQUIV_RTOL)
    except Exception:  # noqa: BLE001
        return False


def run(entries: Sequence[Entry], *, profile: str = "quick", progress: Callable[[MutantResult], None] | None = None,
        layers: Sequence[str] = LAYERS, first_catch: bool = False, baselines: _Baselines | None = None
        ) -> list[MutantResult]:
    """Apply every standard mutant of each entry and record which layers catch it: every layer on every mutant
    (each layer's own score; `first_catch=True` stops at the first layer that catches it)."""
    cfg = PROFILES[profile]
    baselines = baselines or _Baselines(profile)
    results: list[MutantResult] = []
    for entry in entries:
        points = samples(entry, cfg["samples"])
        baseline = {t: [_observed(entry, t, kw) for kw in points] for t in ("formula", "stable_form", "compute")
                    if getattr(entry, t) is not None}
        has: dict[str, bool] = {}   # whether each layer has anything to run on this entry (computed unmutated)
        for m in mutants(entry):
            t0 = time.perf_counter()
            caught: list[str] = []
            details: list[str] = []
            tried: list[str] = []
            overrides = m.apply(entry)
            originals = {k: getattr(entry, k) for k in overrides}
            subs = _substitutions(entry, overrides)
            with applied(entry, overrides):
                equivalent = False
                try:
                    equivalent = _equivalent(entry, m.target, baseline[m.target], points)
                except Exception:  # noqa: BLE001 - a crashing mutant is not equivalent
                    equivalent = False
                if not equivalent:
                    for layer in layers:
                        if layer not in has:  # the layer's baselines, taken on the unmutated entry
                            with applied(entry, originals):
                                has[layer] = _layer_ran(layer, entry, baselines)
                        if not has[layer]:
                            continue
                        tried.append(layer)
                        fn = {"contract": lambda: contract_layer(entry, points),
                              "derivation": lambda: derivation_layer(entry, subs, baselines),
                              "evidence": lambda: evidence_layer(entry, profile, baselines)}[layer]
                        why = fn()
                        if why:
                            caught.append(layer)
                            details.append(f"{layer}: {why}")
                            if first_catch:
                                break
            res = MutantResult(m, tuple(caught), equivalent,
                               "; ".join(details) or ("equivalent at every sample point" if equivalent
                                                      else "SURVIVED every layer"),
                               time.perf_counter() - t0, tuple(tried))
            results.append(res)
            if progress:
                progress(res)
    return results


def score(results: Sequence[MutantResult]) -> tuple[int, int, float]:
    """(caught, counted, caught / counted) over the non-equivalent mutants."""
    counted = [r for r in results if not r.equivalent]
    caught = sum(bool(r.caught_by) for r in counted)
    return caught, len(counted), (caught / len(counted) if counted else math.nan)


def layer_scores(results: Sequence[MutantResult], layers: Sequence[str] = LAYERS) -> dict[str, tuple[int, int]]:
    """Each layer's own score: (caught by it, non-equivalent mutants it ran on)."""
    out = {}
    for layer in layers:
        ran = [r for r in results if not r.equivalent and layer in r.ran]
        out[layer] = (sum(layer in r.caught_by for r in ran), len(ran))
    return out


# ---------------------------------------------------------------------------------------------------
# the per-check view: every check against perturbations of every entry it names


def delta_for(kind: str, check: Any = None) -> float:
    """The relative error delta a check is perturbed by: twice the resolution its records need (at most 1), so a
    check whose records have the resolution they need must see it."""
    module = None
    if check is not None:
        fn = getattr(check.run, "__wrapped__", check.run)
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
    return min(2 * needed_resolution(kind, check, module), 1.0)


def delta_mutant(entry: Entry, delta: float, component: str | None = None) -> Mutant:
    """The entry's value off by a relative error delta (1 + delta times its formula, stable form and solver output;
    `component`: only that key of a solver's dict output)."""
    factor = sp.Rational(1) + sp.nsimplify(delta, rational=True)
    f = entry.compute

    def apply(e: Entry) -> dict:
        out: dict = {}
        if f is not None:
            def scaled(**kw):
                value = f(**kw)
                if component is not None and isinstance(value, dict):
                    return {**value, component: _map_numbers(value[component], lambda a: a * (1 + delta))}
                return _map_numbers(value, lambda a: a * (1 + delta))
            out["compute"] = scaled
        if component is None:
            for t in ("formula", "stable_form"):
                expr = getattr(e, t)
                if isinstance(expr, sp.Basic):
                    out[t] = factor * expr
        return out

    what = f"the value{'' if component is None else ' of ' + repr(component)} off by {delta:.3g} relative"
    return Mutant(entry.id, "value" if component is None else f"value[{component}]", f"relative error {delta:.3g}",
                  what, apply)


@dataclass(frozen=True)
class Perturbation:
    entry: str
    target: str
    op: str
    description: str
    caught: bool
    detail: str

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class CheckSensitivity:
    """One check against perturbations of the entries it names. `baseline`: "" (it passes unperturbed) or why it
    could not be judged (it fails unperturbed, or is too slow for the profile)."""

    check: str
    kind: str
    entries: tuple[str, ...]
    delta: float
    baseline: str
    tried: tuple[Perturbation, ...]
    seconds: float
    weak: tuple[str, ...] = ()   # its records that are weak evidence unperturbed (coarser than they need)

    @property
    def judged(self) -> bool:
        return not self.baseline

    def caught(self, entry: str) -> bool:
        return any(p.caught for p in self.tried if p.entry == entry)

    @property
    def blind_to(self) -> tuple[str, ...]:
        """The entries it names whose every perturbation it passes."""
        return tuple(e for e in self.entries if self.judged and not self.caught(e))

    @property
    def insensitive(self) -> bool:
        """It passes under every perturbation of an entry it names (of every one, or of some: a check that never
        calls one of its entries is insensitive to it)."""
        return bool(self.blind_to)

    def delta_caught(self, entry: str) -> bool | None:
        """Whether the relative error delta of this entry's value was caught (None: not tried)."""
        d = [p for p in self.tried if p.entry == entry and p.op.startswith("relative error") and
             p.target == "value"]
        return d[0].caught if d else None

    def to_json(self) -> dict:
        return {"check": self.check, "kind": self.kind, "entries": list(self.entries), "delta": self.delta,
                "baseline": self.baseline, "judged": self.judged, "insensitive": self.insensitive,
                "blind_to": list(self.blind_to),
                "delta_caught": {e: self.delta_caught(e) for e in self.entries},
                "weak": list(self.weak), "tried": [p.to_json() for p in self.tried],
                "seconds": round(self.seconds, 3)}


def sensitivity(checks: Sequence[Any], *, profile: str = "quick",
                progress: Callable[[CheckSensitivity], None] | None = None,
                baselines: _Baselines | None = None) -> list[CheckSensitivity]:
    """Rerun each check with each entry it names perturbed: first by the relative error delta (`delta_for`), then
    by each standard mutant (and, for a solver with a dict output, delta on each component); quick stops at the
    first perturbation of an entry that the check catches, full tries them all."""
    cfg = PROFILES[profile]
    baselines = baselines or _Baselines(profile)
    out: list[CheckSensitivity] = []
    for check in checks:
        t0 = time.perf_counter()
        ok, why = baselines.usable(check)
        tried: list[Perturbation] = []
        delta = delta_for(check.kind, check)
        if ok:
            for eid in check.entries:
                entry = catalogue.get(eid)
                for m in _perturbations(entry, delta):
                    try:
                        overrides = m.apply(entry)
                    except Exception as exc:  # noqa: BLE001
                        tried.append(Perturbation(eid, m.target, m.op, m.description, False,
                                                  f"could not be applied: {exc}"))
                        continue
                    with applied(entry, overrides):
                        failure = _check_failure(check)
                    tried.append(Perturbation(eid, m.target, m.op, m.description, bool(failure), failure or "passed"))
                    if failure and cfg["first_catch"]:
                        break
        weak = tuple(r.check for r in (baselines.checks[check.name].records if check.name in baselines.checks
                                       else ()) if getattr(r, "weak", False))
        res = CheckSensitivity(check.name, check.kind, tuple(check.entries), delta, why, tuple(tried),
                               time.perf_counter() - t0, weak)
        out.append(res)
        if progress:
            progress(res)
    return out


def _perturbations(entry: Entry, delta: float) -> list[Mutant]:
    """delta first, then the standard mutants (factor 2 and sign flips early: the cheap way to a first catch)."""
    order = {"factor 2": 0, "sign flip": 1}
    std = sorted(mutants(entry), key=lambda m: order.get(m.op, 2))
    out = [delta_mutant(entry, delta)] + std
    return out


def component_coverage(checks: Sequence[Any], *, profile: str = "quick", baselines: _Baselines | None = None
                       ) -> dict[str, list[str]]:
    """For solvers with a dict output: the components whose relative error delta no usable check naming the entry
    catches ({entry: [component, ...]})."""
    baselines = baselines or _Baselines(profile)
    out: dict[str, list[str]] = {}
    for entry in sorted({catalogue.get(e) for c in checks for e in c.entries}, key=lambda e: e.id):
        if entry.compute is None:
            continue
        keys = _dict_keys(entry)
        if not keys:
            continue
        named = [c for c in checks if entry.id in c.entries and baselines.usable(c)[0]]
        if not named:
            continue
        for key in keys:
            caught = False
            for c in named:
                m = delta_mutant(entry, delta_for(c.kind, c), component=key)
                with applied(entry, m.apply(entry)):
                    caught = bool(_check_failure(c))
                if caught:
                    break
            if not caught:
                out.setdefault(entry.id, []).append(key)
    return out


def _dict_keys(entry: Entry) -> list[str]:
    for kw in [dict(e) for e in entry.examples][:1] or samples(entry, 1)[:1] or [{}]:
        try:
            v = entry(**kw)
        except Exception:  # noqa: BLE001
            return []
        return sorted(v) if isinstance(v, dict) else []
    return []


# ---------------------------------------------------------------------------------------------------
# coverage: every entry's value in a derivation step and in an evidence check, or the paper says why not


@dataclass(frozen=True)
class EntryCoverage:
    entry: str
    steps: int           # steps in which its value appears
    checks: int          # evidence checks that name it
    no_step: str         # the paper's reason for no step ("" if none given)
    no_evidence: str     # the paper's reason for no evidence

    @property
    def gaps(self) -> list[str]:
        out = []
        if not self.steps and not self.no_step:
            out.append("appears in no derivation step")
        if not self.checks and not self.no_evidence:
            out.append("has no evidence check")
        return out

    def to_json(self) -> dict:
        return {**dataclasses.asdict(self), "gaps": self.gaps}


def coverage(entries: Sequence[Entry]) -> list[EntryCoverage]:
    """Per entry: the steps in which its value appears and the checks that name it, with the reasons a paper
    states for none (NO_STEP / NO_EVIDENCE, dicts {entry ID: reason} in the family's entries module)."""
    checks = catalogue.checks()
    out = []
    for e in entries:
        fam = catalogue.family(e.id.split(".")[0])
        module = importlib.import_module(fam.spec.entries)
        out.append(EntryCoverage(e.id, len(steps_using(e)), sum(e.id in c.entries for c in checks),
                                 str(getattr(module, "NO_STEP", {}).get(e.id, "")),
                                 str(getattr(module, "NO_EVIDENCE", {}).get(e.id, ""))))
    return out


def campaign(select: Sequence[str] = (), *, profile: str = "quick", layers: Sequence[str] = LAYERS,
             views: Sequence[str] = VIEWS, first_catch: bool = False, require_coverage: bool = False,
             say: Callable[[str], None] = print) -> tuple[int, dict]:
    """`theorylab mutate`: the selected papers, families or entries through the chosen views (entry mutants with each
    layer's score, per-check sensitivity, coverage), each line of the account given to `say` as it comes; returns
    (exit status: 1 when a mutant survives, a check is insensitive, or, with `require_coverage`, an entry is
    uncovered; the JSON record of `mutate --json`)."""
    ids, fams = catalogue.select(list(select))
    chosen = [e for f in catalogue.families(fams) for e in f.entries if e.id in ids]
    layers, views = tuple(layers), tuple(views)
    say(f"theorylab mutate: profile {profile}, views {', '.join(views)}, layers {', '.join(layers)}, "
        f"{len(chosen)} entries")
    t0 = time.time()
    baselines = _Baselines(profile)
    record: dict = {"profile": profile, "layers": list(layers), "families": fams, "views": list(views)}
    status = 0
    if "entries" in views:
        def show(r):
            state = ("equivalent (excluded)" if r.equivalent else
                     f"caught by {', '.join(r.caught_by)}" if r.caught_by else "SURVIVED")
            say(f"  {'ok ' if not r.survived else '!! '}{r.mutant.entry:32s} {r.mutant.target:11s} "
                f"{r.mutant.op:18s} {state}  [{r.detail[:140]}]")

        results = run(chosen, profile=profile, progress=show, layers=layers, baselines=baselines,
                      first_catch=first_catch)
        say("")
        for fam in fams:
            rs = [r for r in results if r.mutant.entry.split(".")[0] == fam]
            caught, counted, frac = score(rs)
            say(f"mutation score {fam}: {caught}/{counted} caught ({100 * frac:.0f}%)"
                f"{'' if caught == counted else ', ' + str(counted - caught) + ' SURVIVED'}"
                f"; {sum(r.equivalent for r in rs)} equivalent mutants excluded")
        caught, counted, frac = score(results)
        own = layer_scores(results, layers)
        say(f"total: {caught}/{counted} caught ({100 * frac:.0f}%); each layer's own score (caught / mutants it ran "
            "on): " + ", ".join(f"{k} {c}/{n}" for k, (c, n) in own.items()))
        record.update(mutants=[r.to_json() for r in results], score={"caught": caught, "counted": counted},
                      layer_scores={k: {"caught": c, "ran": n} for k, (c, n) in own.items()})
        status |= caught < counted
    if "checks" in views:
        checks = [c for c in catalogue.checks(fams) if set(c.entries) & ids]
        say(f"\nper-check sensitivity: {len(checks)} checks, each entry it names perturbed by a relative error "
            "delta (twice the resolution its records need, at most 1), then by the standard mutants"
            + (" (quick: until one is caught)" if profile == "quick" else ""))

        def show_check(c):
            if not c.judged:
                say(f"  -- {c.check[:60]:60s} [{c.kind}] {c.baseline}")
                return
            parts = []
            for e in c.entries:
                hit = next((p for p in c.tried if p.entry == e and p.caught), None)
                parts.append(f"{e}: " + (f"caught ({hit.op}{', delta resolved' if c.delta_caught(e) else ''})"
                                         if hit else f"INSENSITIVE (passed {sum(p.entry == e for p in c.tried)} "
                                                     "perturbations)"))
            say(f"  {'!! ' if c.insensitive else 'ok '}{c.check[:60]:60s} [{c.kind}, delta {c.delta:.3g}] "
                + "; ".join(parts) + (f"; {len(c.weak)} weak records" if c.weak else ""))

        sens = sensitivity(checks, profile=profile, progress=show_check, baselines=baselines)
        bad_checks = [c for c in sens if c.insensitive]
        judged = [c for c in sens if c.judged]
        blind_delta = [(c.check, e) for c in judged for e in c.entries if c.delta_caught(e) is False]
        say(f"checks: {len(judged)} judged, {len(bad_checks)} insensitive"
            + (" (" + "; ".join(f"{c.check}: {', '.join(c.blind_to)}" for c in bad_checks) + ")" if bad_checks
               else "") + f", {len(sens) - len(judged)} not judged; {len(blind_delta)} (check, entry) pairs do not "
            f"resolve their delta; {sum(len(c.weak) for c in sens)} weak records (reported, not a full pass)")
        record["checks"] = [c.to_json() for c in sens]
        status |= bool(bad_checks)
        blind = component_coverage(checks, profile=profile, baselines=baselines)
        if blind:
            say("components of a solver's output that no check catches off by its delta: "
                + "; ".join(f"{e}[{', '.join(ks)}]" for e, ks in blind.items()))
        record["uncaught_components"] = blind
    if "coverage" in views:
        cov = coverage(chosen)
        gaps = [c for c in cov if c.gaps]
        say(f"\ncoverage: {len(cov) - len(gaps)}/{len(cov)} entries appear in a derivation step and an evidence "
            f"check (or their paper states why not)" + (":" if gaps else ""))
        for c in gaps:
            say(f"  !! {c.entry:40s} {'; '.join(c.gaps)}")
        record["coverage"] = [c.to_json() for c in cov]
        status |= bool(gaps) and require_coverage
    say(f"{time.time() - t0:.1f} s")
    return int(status), record
