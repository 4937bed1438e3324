"""Inequality steps: proof by SymPy, points at high precision, the float64 search (theorylab._decide.search),
certification on a box (theorylab._decide.enclosure), a counterexample shrunk to simple values.
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Any, Callable, Mapping, Sequence

import mpmath
import sympy as sp

from . import search as _search
from .._records import domain as _domain  # _domain._interval: one holder, so a patched rule reaches every caller
from .._records.step import Outcome
from .enclosure import _certify
from .equality import SYMPY_TIMEOUT_S, _Timeout, _with_timeout
from .evaluate import NUMERIC_DIGITS, NUMERIC_POINTS, _candidate_points, _evaluate, _fmt_point, _name


def _proved_after_doit(slack: sp.Expr, strict: bool) -> Outcome | None:
    """A slack holding Subs or Derivative (the sign of f'(0): Subs(Derivative(f, u), u, 0) > 0) is decided by SymPy
    once they are carried out (doit), before any search; None where that does not prove it."""
    if not slack.has(sp.Subs, sp.Derivative):
        return None
    try:
        done = _with_timeout(lambda: slack.doit(), SYMPY_TIMEOUT_S)
    except _Timeout:
        return None
    if done.has(sp.Subs, sp.Derivative):
        return None
    if strict:
        ok = done.is_positive or any(_transformed_is(done, t, "is_positive") for t in (sp.factor, sp.simplify))
    else:
        ok = _provably_nonnegative(done)
    if not ok:
        return None
    return Outcome(True, f"sympy: the slack, carried out (doit), is {'positive' if strict else 'nonnegative'}: "
                         f"{sp.sstr(done)[:80]}", strength="proved")


def _transformed_is(expr: sp.Expr, transform: Callable, attr: str) -> bool:
    try:
        return bool(getattr(_with_timeout(lambda: transform(expr), SYMPY_TIMEOUT_S), attr))
    except Exception:  # noqa: BLE001 - a transform SymPy cannot apply (or a timeout) decides nothing
        return False


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
            lo, hi = _domain._interval(sym, domain) if isinstance(sym, sp.Symbol) else (-math.inf, math.inf)
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
    proved = _proved_after_doit(slack, strict) if symbolic else None
    if proved is not None:
        return proved
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
    coords = _search.coordinates(syms, lambda s: _domain._interval(s, domain))
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
