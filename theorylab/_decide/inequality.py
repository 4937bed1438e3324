"""Inequality steps: proof by SymPy, points at high precision, the float64 search (theorylab._decide.search),
certification on a box (theorylab._decide.enclosure), a counterexample shrunk to simple values.
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Any, Callable, Mapping, Sequence

import flint
import numpy as np
import sympy as sp

from . import enclosure as _enc
from . import search as _search
from .._records import domain as _domain  # _domain._interval: one holder, so a patched rule reaches every caller
from .._records.relation import Relation, relation_of
from .._records.step import Outcome
from .enclosure import _certify
from .equality import SYMPY_TIMEOUT_S, _Timeout, _with_timeout
from .evaluate import NUMERIC_POINTS, PointDecider, _candidate_points, _evaluate, _fmt_point, _name


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


def _minimized(point: Mapping, domain: Mapping, found: Outcome, decide: Callable[[Mapping, str], Outcome]) -> Outcome:
    """Shrink a counterexample: each coordinate in turn replaced by the simplest value (within the domain) at which
    the relation still fails (decided rigorously by `decide`), until no coordinate can be simplified."""
    point = dict(point)
    best = found
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
                out = decide({**point, sym: cand}, found.method.split("(")[-1].rstrip(")") + ", minimized")
                if out.strength == "refuted":
                    point[sym] = cand
                    best = out
                    changed = True
                    break
    return best


def _point_decider(lhs: sp.Expr, rhs: sp.Expr, relation: Relation, domain: Mapping
                   ) -> tuple[PointDecider, Callable[[Mapping, str], Outcome]]:
    """The decision of one point: both sides compiled once into ball arithmetic and decided with the precision
    raised until the slack excludes zero (theorylab._decide.evaluate.PointDecider); a point outside the domain (open
    ends, integers, relations between symbols) is never a counterexample."""
    decider = PointDecider(lhs, rhs, relation)

    def decide(point: Mapping, how: str) -> Outcome:
        return _evaluate(lhs, rhs, relation, [point], how, decider=decider, domain=domain)

    return decider, decide


NOISE_BITS = 256           # the precision of the re-search where float64 noise was seen
NOISE_EVALS_PER_VARIABLE = 60  # Nelder-Mead evaluations per variable of that re-search, per noisy point
NOISE_POINTS = 3           # noisy points re-searched at most


def _noise(cov: Any, decider: PointDecider, relation: Relation, coords: Sequence, results: Sequence) -> list:
    """The search's best points where float64 found the slack tight or violated (relative slack <= TIGHT) and
    disagrees with the enclosure by more than the enclosure's slack (both as relative slack over |lhs| + |rhs| +
    the search's scale): [(float64 relative slack, rigorous one, u)]."""
    out = []
    for (r64, u), (status, a, b, s) in zip(cov.best, results):
        if status not in ("holds", "fails") or not isinstance(s, flint.arb):
            continue
        try:
            norm = abs(float(a.mid())) + abs(float(b.mid())) + cov.scale
            rx = float(s.mid()) / norm if norm > 0 else 0.0
        except (OverflowError, ValueError):
            continue
        # float64 said tight or violated, and its error exceeds the true slack (by a sign, or by more than it)
        if r64 <= TIGHT and abs(r64 - rx) > abs(rx):
            out.append((r64, rx, u))
    return out


def _research(decider: PointDecider, relation: Relation, coords: Sequence, u0: Sequence[float], scale: float
              ) -> list:
    """Nelder-Mead on the relative slack computed in ball arithmetic at NOISE_BITS (the midpoints of the balls),
    from a point where float64 was noise: the search float64 could not do there. Returns the points it visited
    (best first, at most CONFIRM)."""
    from scipy.optimize import minimize  # lazy: SciPy's optimizers cost ~0.55 s; `import theorylab` skips them

    lo = np.array([c.ulo for c in coords])
    hi = np.array([c.uhi for c in coords])
    seen: list = []

    def f(u):
        u = np.clip(np.asarray(u, float), lo, hi)
        pt = _search.point_of(coords, u)
        try:
            with _enc._prec(NOISE_BITS):
                a, b = decider.run([_enc.to_arb(pt[s]) for s in decider.syms])
                r = float((relation.slack(a, b) / (abs(a) + abs(b) + scale)).mid())
        except (ValueError, ZeroDivisionError, ArithmeticError, TypeError, OverflowError):
            r = _search.PENALTY
        if not math.isfinite(r):
            r = _search.PENALTY
        seen.append((r, tuple(u)))
        return r

    d = len(coords)
    step = np.where(hi > lo, (hi - lo) * 1e-3, 1e-3)
    simplex = [np.clip(np.asarray(u0, float), lo, hi)] + [np.clip(np.asarray(u0, float) + step * np.eye(d)[i], lo, hi)
                                                         for i in range(d)]
    minimize(f, simplex[0], method="Nelder-Mead", bounds=list(zip(lo, hi)),
             options={"maxfev": NOISE_EVALS_PER_VARIABLE * d, "initial_simplex": np.array(simplex)})
    seen.sort()
    return seen[:_search.CONFIRM]


CERTIFY_MAX_VARIABLES = 3  # interval bisection is attempted on boxes of at most this many variables
CERTIFY_MAX_BOXES = 20000
CERTIFY_QUICK_BOXES = 200  # tried before the float64 search: a slack certified in this many boxes needs no search
CERTIFY_WORK = 400_000     # boxes x operations of the slack (SymPy count_ops): ~10 s at the most on a slow core
TIGHT = 1e-9               # a float64 relative slack this small: the certification budget is cut to a tenth


def _g(x: float) -> str:
    return f"{x:.0e}".replace("e-0", "e-").replace("e+0", "e+")


def check_inequality(lhs: Any, rhs: Any, relation: Any, *, domain: Mapping | None = None, symbolic: bool = True,
                     points: int | None = None, search: Callable | None = None, seed: int = 0) -> Outcome:
    """Decide lhs <relation> rhs over the domain, in stages:

    1. proved: SymPy shows the slack nonnegative (positive for a strict relation) from the assumptions;
    2. simple points, random points of the domain (log coordinates on multi-decade and unbounded intervals) and the
       step's own `search` points, each decided by guaranteed enclosures (ball arithmetic, the precision raised
       until the slack's ball excludes zero; theorylab._decide.enclosure);
    3. the float64 search of theorylab._decide.search: corners and faces of the box, differential evolution on the
       relative slack (seeded; its budget grows with the variables and the decades), Nelder-Mead from several
       starts; its best distinct points are decided by enclosures (float64 never refutes on its own). Where
       float64 disagrees with the enclosure by more than the slack (cancellation noise), the search continues
       there in ball arithmetic at NOISE_BITS, and the verdict states the noise;
    4. certified: ball arithmetic with bisection on boxes of at most CERTIFY_MAX_VARIABLES variables, an unbounded
       interval through a compactifying change of variables (x = lo + t/(1 - t), t in [0, 1]); a function with no
       enclosure: "not certified: no enclosure of f" and the search verdict stands;
    5. else searched, the verdict stating the box and its coordinates, the points of each stage, the smallest slack
       found and why certification was not attempted or failed.
    Refuted only at a point inside the domain and its conditions whose slack is certainly on the failing side,
    shrunk to simple values (_minimized); a point no precision decides is undecided, counted neither way."""
    domain = domain if domain is not None else {}
    relation = relation_of(relation)
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    derivative = lhs.has(sp.Derivative) or rhs.has(sp.Derivative)
    lhs, rhs = _enc._prepared(lhs), _enc._prepared(rhs)  # derivatives carried out: enclosed like any expression
    slack = relation.slack_expr(lhs, rhs)
    if derivative:  # a quotient's derivative is a difference of terms: over one denominator it encloses tightly
        try:
            slack = _with_timeout(lambda: sp.cancel(sp.together(slack)), SYMPY_TIMEOUT_S)
        except _Timeout:
            pass
    strict = relation.strict
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
    decider, decide = _point_decider(lhs, rhs, relation, domain)
    scored: list = []
    undecided = 0

    def take(p: Mapping, out: Outcome) -> None:
        nonlocal undecided
        if out.min_slack is not None:
            scored.append((out.min_slack, p))
        elif "undecided" in out.detail:
            undecided += 1

    for p in cands:
        out = decide(p, "simple and random points")
        if out.strength == "refuted":
            return _minimized(p, domain, out, decide)
        take(p, out)
    exact = len(scored)
    if exact == 0:
        return Outcome(False, "undecided", "no point of the domain could be evaluated" + (
            f" ({undecided} undecided at this point: precision reached)" if undecided else ""), strength="error")
    coords = _search.coordinates(syms, lambda s: _domain._interval(s, domain))
    plan = None
    if 0 < len(syms) <= CERTIFY_MAX_VARIABLES:
        def simplify(e):
            return _with_timeout(lambda: sp.cancel(sp.together(e)), SYMPY_TIMEOUT_S)

        plan = _search.certification_plan(slack, coords, simplify)
        ops = max(1, int(sp.count_ops(plan.expr)))

    def bisection_counterexample(mid: dict, detail: str) -> Outcome | None:
        pt = {}
        for k, v in mid.items():
            if k in plan.mapped:  # a compactified variable: back to the step's own
                sym, phi = plan.mapped[k]
                pt[sym] = sp.nsimplify(phi.subs(k, v))
            else:
                pt[k] = v
        out = decide(pt, "interval bisection")
        if out.strength == "refuted":
            return _minimized(pt, domain, out, decide)
        return None  # the midpoint is outside the domain or not decided there: certification simply failed

    mine = f", {own} of the step's own" if own else ""
    how_points = "by guaranteed enclosures"
    # a slack that certifies in a few boxes needs no search
    if plan is not None:
        ok, detail, n, mid = _certify(plan.expr, plan.box, strict=strict, log=plan.log,
                                      max_boxes=min(CERTIFY_QUICK_BOXES, CERTIFY_WORK // ops))
        if ok:
            worst, at = min(scored, key=lambda t: t[0])
            return Outcome(True, f"certified on the box {plan.text}",
                           f"ball arithmetic, {detail}; before it {len(scored)} points {how_points} "
                           f"(simple, random{mine}), minimum slack {worst:.3g} (at {_fmt_point(at)})",
                           strength="certified", points=len(scored), min_slack=worst)
        if ok is False and mid is not None:
            found = bisection_counterexample(mid, detail)
            if found is not None:
                return found
    cov = None
    noise_text = ""
    if syms:
        starts = [[c.to_u(float(p[c.sym])) for c in coords] for _, p in sorted(scored, key=lambda t: t[0])[:3]
                  if all(c.sym in p for c in coords)]
        for early in (True, False):
            cov = _search.search(lhs, rhs, relation, coords, seed=seed, starts=starts, early_stop=early)
            results = []
            for rel, u in cov.best:
                pt = _search.point_of(coords, u)
                status = decider(pt) if _domain.contains(domain, pt) else ("outside", None, None, None, 0)
                results.append(status[:4])
                out = decide(pt, "global and local search of the float64 slack")
                exact += 1
                if out.strength == "refuted":
                    return _minimized(pt, domain, out, decide)
                take(pt, out)
            noisy = _noise(cov, decider, relation, coords, results) if decider.run is not None else []
            if noisy:
                again = 0
                for r64, rx, u in noisy[:NOISE_POINTS]:
                    for _, v in _research(decider, relation, coords, u, cov.scale):
                        pt = _search.point_of(coords, v)
                        out = decide(pt, f"re-search in ball arithmetic at {NOISE_BITS} bits where float64 was "
                                         "noise")
                        again += 1
                        exact += 1
                        if out.strength == "refuted":
                            return _minimized(pt, domain, out, decide)
                        take(pt, out)
                r64, rx, _ = noisy[0]
                noise_text = (f"; float64 noise at {len(noisy)} of the search's best points (e.g. float64 relative "
                              f"slack {r64:.3g} where the enclosure gives {rx:.3g}): searched again there in ball "
                              f"arithmetic at {NOISE_BITS} bits ({again} points decided)")
            if not cov.stopped_early:  # a float64 violation not confirmed by the enclosures: search again, in full
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
        tight = worst <= 0 or (best is not None and best <= TIGHT)
        if tight:
            boxes = max(CERTIFY_QUICK_BOXES, boxes // 10)
        ok, detail, n, mid = _certify(plan.expr, plan.box, strict=strict, log=plan.log, max_boxes=boxes)
        if ok:
            certified = plan.text
            why = f"ball arithmetic, {detail}"
        elif ok is False and mid is not None and (found := bisection_counterexample(mid, detail)) is not None:
            return found
        elif detail.startswith("not certified"):
            why = detail
        else:
            budget = (f"a budget of {boxes} boxes: {CERTIFY_WORK} operations over the slack's {ops}"
                      + (f", a tenth where the slack comes within {_g(TIGHT)} of 0 (relative) in the search: "
                         "enclosures rarely separate a touching slack from 0" if tight else ""))
            why = f"failed on {plan.text}: {detail}; {budget}"
    covered = (f"minimum slack {worst:.3g} {how_points} (at {_fmt_point(at)})"
               + (f"; {undecided} points undecided (precision reached)" if undecided else "")
               + (f"; float64 slack / (|lhs| + |rhs| + their median size) >= {best:.3g}" if best is not None else "")
               + noise_text
               + (f"; box: {cov.box()}; float64 search: {cov.stages()}" if cov is not None else ""))
    stages = (f"{exact} {how_points} (simple, random{mine}, the best of the search), "
              f"{tried - exact} in float64 (corners and faces, differential evolution, Nelder-Mead)")
    if certified:
        return Outcome(True, f"certified on the box {certified}", f"{why}; searched first: {stages}; {covered}",
                       strength="certified", points=tried, min_slack=worst)
    return Outcome(True, f"searched: {tried} points ({stages})", f"{covered}; certification: {why}",
                   strength="searched", points=tried, min_slack=worst)
