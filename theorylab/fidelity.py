"""Fidelity by machine: each step that cites a label is compared with the relations the paper prints there.

The printed display (theorylab.sources: read from the paper's source file, parsed through the paper's NotationMap)
and the step's relation are compared symbolically, else as a numeric identity at sampled real points of the
step's declared domains (tolerance stated). Symbols are unified by name (a parsed Symbol('gamma') is the step's
gamma, with its assumptions); a chain display matches a step that states one link or a composition of links
(a = c from a = b = c, a <= c from a = b <= c), in either orientation (a = b is b = a, a <= b is b >= a).

Per label and citing step the verdict is one of
  matches      the step states a printed relation (or a composition of printed relations), or one printed side
               is the step's while the other is a name the step computes (q(z) = ..., E R = ...);
  differs      it does not (both forms shown); *decisive* when the print and the step have the same symbols, every
               side is finite at the sampled points and some point makes one relation hold and the other fail:
               for a step declared "as printed" that is an unexpected result of `theorylab check`;
  not parsed   the display did not parse (the construct and its position);
  not compared why not (numeric sides, matrices, symbols of the print not in the step, no printed relation).
Parses are slow (latex2sympy2_extended, ~0.7 s a display): they are cached on disk under
~/.cache/theorylab/parses, keyed by the text, its lead, the notation and the parser's version
(THEORYLAB_STEP_CACHE=0 turns the cache off, as it does the step cache); so are the comparisons of steps made of
SymPy expressions. A step with numeric sides is compared at its own first search points (its routines are called).
"""
from __future__ import annotations

import functools
import hashlib
import math
import os
import pickle
import random
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp

from . import sources
from .sources import NotationMap, ParseFailure, Printed

__all__ = ["Comparison", "LabelComparison", "LABEL_STATUSES", "parsed_printout", "compare_step", "compare_paper",
           "compared_rows", "check_section", "share_report", "notation_of", "printout_of", "relations_latex",
           "PARSE_CACHE_VERSION", "RTOL", "DECISIVE", "POINTS"]

PARSE_CACHE_VERSION = "theorylab-parses-1"   # bump when what a cached parse means changes
COMPARE_CACHE_VERSION = "theorylab-compared-1"
RTOL = 1e-9          # two sides agree at a point when |a - b| <= RTOL * max(1, |a|, |b|) (30-digit evaluation)
DECISIVE = 1e-6      # a relation fails decisively at a point when it misses by more than DECISIVE * max(1, |a|, |b|)
POINTS = 12          # sampled points per comparison
_DPS = 30


# -- parses, cached on disk ------------------------------------------------------------------------------------------

def _code_digest(obj: Any) -> str:
    import inspect

    try:
        return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return hashlib.sha256(code.co_code if code is not None else repr(obj).encode()).hexdigest()[:16]


def _object_text(v: Any) -> str:
    if isinstance(v, sp.Basic):
        return sp.srepr(v)
    if isinstance(v, type) and issubclass(v, sp.Basic):      # sp.Function("f"), sp.exp
        return f"class {v.__module__}.{v.__name__}"
    if callable(v):
        return f"callable {getattr(v, '__qualname__', type(v).__name__)} {_code_digest(v)}"
    return repr(v)


def notation_key(notation: NotationMap | None) -> str:
    """A stable text of a notation map: its rewrites (patterns, replacements, a callable's code) and symbols."""
    if notation is None:
        return "none"
    parts = []
    for pat, rep in notation.rewrites:
        p = f"re/{pat.pattern}/{pat.flags}" if hasattr(pat, "pattern") else f"str/{pat}"
        parts.append(p + "->" + (rep if isinstance(rep, str) else _object_text(rep)))
    parts += [f"{k}={_object_text(v)}" for k, v in sorted(notation.symbols.items())]
    return "\x00".join(parts)


def _parser_version(parser: str) -> str:
    from importlib import metadata

    try:
        version = metadata.version(parser) if parser == "latex2sympy2_extended" else "sympy"
    except metadata.PackageNotFoundError:
        version = "absent"
    return f"{PARSE_CACHE_VERSION} {parser} {version} sympy {sp.__version__} sources {_code_of(sources.__file__)}"


def _code_of(path: str) -> str:
    """A digest of a module's code (its syntax tree without docstrings: comments and prose never invalidate)."""
    import ast

    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def _freeze(relations: Any) -> Any:
    """Relations as pickle keeps them: a pickled relation is rebuilt evaluated (Eq(x, x) -> True), so each is kept as
    (op, lhs, rhs); a bare expression as ("expr", e)."""
    if isinstance(relations, ParseFailure):
        return relations
    return tuple((r.rel_op, r.lhs, r.rhs) if isinstance(r, sp.core.relational.Relational) else ("expr", r)
                 for r in relations)


def _thaw(frozen: Any) -> Any:
    if isinstance(frozen, ParseFailure):
        return frozen
    return tuple(x[1] if x[0] == "expr" else sp.Rel(x[1], x[2], x[0], evaluate=False) for x in frozen)


class _ParseCache:
    """Parsed displays on disk (~/.cache/theorylab/parses), keyed by the display's text, its lead, the notation map
    and the parser's version; THEORYLAB_STEP_CACHE=0 turns it off. A torn or unreadable entry is a miss."""

    def __init__(self):
        self.memo: dict[str, Any] = {}
        self.versions: dict[str, str] = {}
        self.hits = self.misses = 0

    @property
    def dir(self) -> str:
        return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "theorylab", "parses")

    @property
    def on(self) -> bool:
        return os.environ.get("THEORYLAB_STEP_CACHE", "1") != "0"

    def key(self, text: str, lead: str, notation: NotationMap | None, parser: str) -> str:
        if parser not in self.versions:
            self.versions[parser] = _parser_version(parser)
        parts = [self.versions[parser], text, lead, notation_key(notation)]
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def parse(self, text: str, notation: NotationMap | None = None, *, lead: str = "", parser: str | None = None):
        parser = parser or sources.DEFAULT_PARSER
        key = self.key(text, lead, notation, parser)
        if key in self.memo:
            return self.memo[key]
        path = os.path.join(self.dir, key[:2], key + ".pickle")
        if self.on:
            try:
                with open(path, "rb") as fh:
                    out = _thaw(pickle.load(fh))
                self.hits += 1
                self.memo[key] = out
                return out
            except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError,
                    IndexError):
                pass
        self.misses += 1
        out = sources.parse_display(text, notation, lead=lead, parser=parser)
        self.memo[key] = out
        if self.on:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.{os.getpid()}"
                with open(tmp, "wb") as fh:
                    pickle.dump(_freeze(out), fh)
                os.replace(tmp, path)
            except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
                pass                                         # the cache is a convenience
        return out


PARSES = _ParseCache()


def parsed_printout(printed: Iterable[Printed], notation: NotationMap | None = None, *,
                    parser: str | None = None) -> list[Printed]:
    """The Printed records with `relations` filled (as sources.parse_printed does), through the disk cache."""
    out = []
    for p in printed:
        if p.kind != "display":
            out.append(p)
        elif not p.text:
            out.append(replace(p, relations=ParseFailure("no printed display (a label on an empty line)", p.label,
                                                         0)))
        else:
            out.append(replace(p, relations=PARSES.parse(p.text, notation, lead=p.lead, parser=parser)))
    return out


# -- unification: the print's symbols are the step's, by name --------------------------------------------------------

_ALIASES = {"lambda": ("lam", "lmbda", "lambda_"), "epsilon": ("eps",), "varepsilon": ("eps", "epsilon"),
            "gamma": ("g",), "theta": ("th",), "sigma": ("s",), "varphi": ("phi",), "vartheta": ("theta",)}


def _normal(name: str) -> str:
    r"""A name as both sides spell it: no backslashes, braces or spaces ("\gamma" -> "gamma", "w_{0}^{(1)}" ->
    "w_0^(1)")."""
    return name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "")


def _names(name: str) -> list[str]:
    """The names a printed symbol may have among a step's: itself, its aliases (lambda: lam), without underscores
    (m_0: m0)."""
    n = _normal(name)
    return [n, *_ALIASES.get(n, ()), n.replace("_", "")]


def _step_symbols(step) -> dict[str, sp.Symbol]:
    """The symbols of a step's SymPy sides and domain, by normalized name."""
    out: dict[str, sp.Symbol] = {}
    for side in (step.lhs, step.rhs):
        if isinstance(side, sp.Basic):
            for s in side.free_symbols:
                if isinstance(s, sp.Symbol):
                    out.setdefault(_normal(s.name), s)
    for s in step.domain:
        if isinstance(s, sp.Symbol):
            out.setdefault(_normal(s.name), s)
    for k, s in list(out.items()):
        out.setdefault(k.replace("_", ""), s)
    return out


def _functions(expr: sp.Basic) -> dict[str, Any]:
    return {_normal(f.func.__name__): f.func for f in expr.atoms(sp.core.function.AppliedUndef)}


# -- values at points ------------------------------------------------------------------------------------------------

class _Timeout(Exception):
    pass


def _with_budget(fn, seconds: float):
    """fn() stopped after `seconds` where this thread can take a timer signal (the main thread); else unbounded."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return fn()

    def handler(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _number(x: Any):
    """x as an mpmath number (real), or None when it is not a finite real number."""
    import mpmath

    try:
        if isinstance(x, sp.Basic):
            if x.free_symbols or x.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                return None
            v = x.evalf(_DPS)
            if not v.is_number:
                return None
            re_, im_ = v.as_real_imag()
            if abs(float(im_)) > 1e-25 * max(1.0, abs(float(re_))):
                return None
            v = mpmath.mpf(str(sp.Float(re_, _DPS)))
        else:
            import numpy as np

            arr = np.asarray(x)
            if arr.dtype == object and arr.ndim == 0:
                v = mpmath.mpf(arr.item()) if not isinstance(arr.item(), mpmath.mpf) else arr.item()
            elif arr.size != 1 or not np.isrealobj(arr):
                return None
            else:
                v = mpmath.mpf(float(arr.reshape(())))
        return v if mpmath.isfinite(v) else None
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError):
        return None


def _ready(expr: sp.Basic, functions: Mapping[str, Any]) -> sp.Basic:
    """expr with its undefined functions replaced by their stand-ins and its derivatives and substitutions carried
    out (symbolically, once: a derivative needs its variable before the point is put in)."""
    e = expr
    if functions:
        rep = {}
        for f in e.atoms(sp.core.function.AppliedUndef):
            stand = functions.get(_normal(f.func.__name__))
            if stand is not None:
                rep[f] = stand(*f.args)
        if rep:
            e = e.xreplace(rep)
    try:
        e = e.replace(lambda x: isinstance(x, sp.Integral) and all(
            x.function.is_polynomial(lim[0]) for lim in x.limits), lambda x: x.doit())
        return e.replace(lambda x: isinstance(x, (sp.Subs, sp.Derivative)), lambda x: x.doit())
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - SymPy cannot carry it out: evaluated as it stands
        return e


def _evaluate(expr: sp.Basic, subs: Mapping):
    """A ready expression (`_ready`) at a point: symbols substituted (never a bound variable), limits, sums and
    products carried out, evaluated at 30 digits. None where it has no finite real value there."""
    try:
        e = expr.subs(dict(subs)) if subs else expr
        if e.free_symbols or e.atoms(sp.core.function.AppliedUndef):
            return None
        e = e.replace(lambda x: isinstance(x, (sp.Subs, sp.Derivative, sp.Limit, sp.Sum, sp.Product)),
                      lambda x: x.doit())
    except _Timeout:
        raise
    except Exception:  # noqa: BLE001 - SymPy cannot carry it out here: no value
        return None
    return _number(e)


def _close(a, b, rtol: float, tol: float = 0.0) -> bool:
    return abs(a - b) <= tol + rtol * max(abs(a), abs(b)) + 1e-25


def _holds(a, b, op: str, rtol: float, tol: float = 0.0) -> bool:
    if op == "==":
        return _close(a, b, rtol, tol)
    slack = (b - a) if op in ("<=", "<") else (a - b)
    return slack >= -(tol + rtol * max(abs(a), abs(b)) + 1e-25)


def _fails(a, b, op: str) -> bool:
    """The relation misses by more than DECISIVE relative (a clear failure, never rounding)."""
    scale = DECISIVE * max(1, abs(a), abs(b))
    if op == "==":
        return abs(a - b) > scale
    slack = (b - a) if op in ("<=", "<") else (a - b)
    return slack < -scale


def _range(sym: sp.Symbol, domain: Mapping) -> tuple[float, float]:
    """Where a symbol is sampled: the step's domain (unbounded ends clipped 10 units out), else by its
    assumptions: positive (0.05, 3), nonnegative (0, 3), negative (-3, -0.05), real (-3, 3)."""
    if sym in domain:
        lo, hi = domain[sym]
        lo = None if lo is None or (isinstance(lo, (int, float, sp.Basic)) and not math.isfinite(float(lo))) \
            else float(lo)
        hi = None if hi is None or (isinstance(hi, (int, float, sp.Basic)) and not math.isfinite(float(hi))) \
            else float(hi)
        if lo is None and hi is None:
            return (-10.0, 10.0)
        if lo is None:
            return (hi - 10.0, hi)
        if hi is None:
            return (lo, lo + (10.0 if lo <= 0 else 10.0 * max(1.0, lo)))
        return (lo, hi)
    if sym.is_positive:
        return (0.05, 3.0)
    if sym.is_nonnegative:
        return (0.0, 3.0)
    if sym.is_negative:
        return (-3.0, -0.05)
    return (-3.0, 3.0)


def _sample(syms: Sequence[sp.Symbol], domain: Mapping, rng: random.Random, n: int) -> list[dict]:
    """n random points inside the symbols' ranges (ends excluded), as exact rationals (3 decimals) or integers."""
    out = []
    for _ in range(n):
        pt = {}
        for s in syms:
            lo, hi = _range(s, domain)
            if s.is_integer:
                a, b = math.ceil(lo + 1e-9), math.floor(hi - 1e-9)
                a, b = (a, b) if a <= b else (math.ceil(lo), math.floor(hi))
                b = min(b, a + 12)
                pt[s] = sp.Integer(rng.randint(a, b)) if a <= b else sp.Integer(a)
            else:
                v = lo + (hi - lo) * rng.uniform(0.03, 0.97)
                q = sp.Rational(round(v * 1000), 1000)
                pt[s] = q if q != 0 else sp.Rational(1, 1000)
        out.append(pt)
    return out


def _stand_in(name: str, rng: random.Random):
    """A smooth stand-in for an undefined function (the same for the step and the print): a random cubic in the sum
    of its arguments."""
    x = sp.Dummy("x")
    coeffs = [sp.Rational(rng.randint(-9, 9) or 1, 7) for _ in range(4)]
    body = sum(c * x ** k for k, c in enumerate(coeffs))
    return lambda *args: body.subs(x, sp.Add(*args))


# -- the printed relations as a graph: links and their compositions --------------------------------------------------

_FLIP = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "=="}
_TEX_REL = {"==": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "!=": r"\ne"}


def _graph(relations: Sequence) -> tuple[list, list[tuple[int, int, str]]]:
    """Nodes (the printed sides, once each) and edges (i, j, op), op in ==, <=, < (a >= b is b <= a); a chain
    a = b <= c shares its middle node, so paths compose it."""
    nodes: list = []
    edges: list[tuple[int, int, str]] = []

    def node(e) -> int:
        for k, n in enumerate(nodes):
            if n == e:
                return k
        nodes.append(e)
        return len(nodes) - 1

    for r in relations:
        if not isinstance(r, sp.core.relational.Relational) or r.rel_op == "!=":
            continue
        a, b, op = node(r.lhs), node(r.rhs), r.rel_op
        if op in (">=", ">"):
            a, b, op = b, a, _FLIP[op]
        edges.append((a, b, op))
    return nodes, edges


def _compose(a: str, b: str) -> str:
    if a == "==":
        return b
    if b == "==":
        return a
    return "<" if "<" in (a, b) else "<="


def _paths(edges: Sequence[tuple[int, int, str]]) -> set[tuple[int, int, str]]:
    """Every (i, j, op) such that the printed relations state nodes[i] op nodes[j], alone or composed (i != j):
    == edges both ways, <= and < edges forwards."""
    adj: dict[int, list[tuple[int, str]]] = {}
    for a, b, op in edges:
        adj.setdefault(a, []).append((b, op))
        if op == "==":
            adj.setdefault(b, []).append((a, op))
    out = set()
    for start in list(adj):
        seen = set()
        todo = [(start, None)]
        while todo:
            k, op = todo.pop()
            for nxt, e in adj.get(k, ()):
                comp = e if op is None else _compose(op, e)
                if (nxt, comp) in seen:
                    continue
                seen.add((nxt, comp))
                if nxt != start:
                    out.add((start, nxt, comp))
                todo.append((nxt, comp))
    return out


def _tex(x: Any) -> str:
    try:
        return sp.latex(x)
    except Exception:  # noqa: BLE001 - a name SymPy's printer cannot print: its string form
        return sp.sstr(x)


def relations_latex(relations: Any) -> str:
    """The parsed relations as LaTeX, ';'-separated (a ParseFailure as its one line)."""
    if isinstance(relations, ParseFailure) or relations is None:
        return str(relations or "")
    return "; ".join(f"{_tex(r.lhs)} {_TEX_REL[r.rel_op]} {_tex(r.rhs)}"
                     if isinstance(r, sp.core.relational.Relational) else _tex(r) for r in relations)


def _fmt(v) -> str:
    try:
        return f"{float(v):.10g}"
    except (TypeError, ValueError):
        return str(v)


def _fmt_point(pt: Mapping) -> str:
    return ", ".join(f"{getattr(k, 'name', k)}={_fmt(v)}" for k, v in pt.items())


# -- the comparison --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """One citing step against the printed display of one label.

    verdict: "matches" (the step states a printed relation, a composition of them, or a printed side where the
    other printed side names what the step computes), "differs" (both forms shown in `printed` and `stated`;
    `decisive` when some sampled point makes one relation hold and the other fail, with the same symbols and finite
    values: for a step declared "as printed", an unexpected result of check), "not parsed" or "not compared" (`how`
    says why)."""

    label: str
    derivation: str
    step: str
    fidelity: str
    verdict: str
    how: str
    printed: str = ""
    stated: str = ""
    decisive: bool = False

    @property
    def compared(self) -> bool:
        return self.verdict in ("matches", "differs")

    @property
    def unexpected(self) -> bool:
        """A step declared "as printed" that decisively states something else than the print."""
        return self.decisive and self.fidelity == "as printed"

    def to_json(self) -> dict:
        return {"label": self.label, "derivation": self.derivation, "step": self.step, "fidelity": self.fidelity,
                "verdict": self.verdict, "how": self.how, "printed": self.printed, "stated": self.stated,
                "decisive": self.decisive}


def _fidelity_text(step) -> str:
    if getattr(step, "draft", False):
        return "draft"
    f = step.fidelity
    return f if isinstance(f, str) or f is None else f"amended ({f.kind})"


def _stated(step) -> str:
    tex = step.latex() if not step.numeric else ""
    return tex or step.statement()


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:8], 16)


def _scalar(v: Any):
    """A point's value as a SymPy number, or None (an array, a matrix)."""
    if isinstance(v, sp.Basic):
        return v if v.is_number else None
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return sp.Integer(v)
    if isinstance(v, float):
        return sp.Float(v, _DPS) if math.isfinite(v) else None
    try:
        import numpy as np

        if isinstance(v, np.generic) and np.ndim(v) == 0:
            return _scalar(v.item())
        import mpmath

        if isinstance(v, mpmath.mpf):
            return sp.Float(str(v), _DPS)
    except (ImportError, TypeError, ValueError):
        pass
    return None


def _comparison_key(label: str, relations: Any, step, derivation: str, points: int) -> str | None:
    """A content hash of a comparison of a step made of SymPy expressions (None for numeric sides: their routines'
    code is not part of the key): the printed relations, the step's sides, relation, domain and fidelity, the sample
    size, and this module's code."""
    if step.numeric or relations is None or isinstance(relations, ParseFailure):
        return None
    try:
        parts = [COMPARE_CACHE_VERSION, _own_code(), sp.__version__, label, derivation, step.label, _fidelity_text(step),
                 sp.srepr(sp.sympify(step.lhs)), sp.srepr(sp.sympify(step.rhs)), step.relation,
                 repr(sorted((sp.srepr(k), repr(v)) for k, v in step.domain.items())), str(points),
                 repr([(x[0], sp.srepr(x[1]), sp.srepr(x[2])) if x[0] != "expr" else (x[0], sp.srepr(x[1]))
                       for x in _freeze(relations)])]
    except Exception:  # noqa: BLE001 - a side SymPy cannot write down: not cached
        return None
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _own_code() -> str:
    return _code_of(__file__)


def _cached_comparison(key: str | None) -> Comparison | None:
    if key is None or not PARSES.on:
        return None
    import json

    try:
        with open(os.path.join(PARSES.dir, "compared", key[:2], key + ".json")) as fh:
            return Comparison(**json.load(fh))
    except (OSError, ValueError, TypeError):
        return None


def _store_comparison(key: str | None, c: Comparison) -> None:
    if key is None or not PARSES.on:
        return
    import json

    try:
        folder = os.path.join(PARSES.dir, "compared", key[:2])
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f".{key}.{os.getpid()}")
        with open(tmp, "w") as fh:
            json.dump({k: getattr(c, k) for k in c.__dataclass_fields__}, fh)
        os.replace(tmp, os.path.join(folder, key + ".json"))
    except OSError:
        pass


def compare_step(label: str, relations: Any, step, *, derivation: str = "", points: int = POINTS,
                 budget_s: float = 10.0) -> Comparison:
    """Compare a step with the relations printed at `label` (a tuple from sources.parse_display, a ParseFailure, or
    None for a numbered statement). A comparison of a step made of SymPy expressions is cached on disk beside the
    parses (keyed by its content and this module's code), one that ran out of its budget too (it would again)."""
    key = _comparison_key(label, relations, step, derivation, points)
    hit = _cached_comparison(key)
    if hit is not None:
        return hit
    try:
        out = _compare_step(label, relations, step, derivation=derivation, points=points, budget_s=budget_s)
    except Exception as exc:  # noqa: BLE001 - a comparison that crashes is reported, never a crash of check
        return Comparison(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                          verdict="not compared", how=f"the comparison failed: {type(exc).__name__}: {exc}"[:200],
                          printed=relations_latex(relations) if not isinstance(relations, ParseFailure) else "",
                          stated=_stated(step))
    _store_comparison(key, out)
    return out


def _compare_step(label: str, relations: Any, step, *, derivation: str, points: int, budget_s: float) -> Comparison:
    base = dict(label=label, derivation=derivation, step=step.label, fidelity=_fidelity_text(step),
                stated=_stated(step))
    if relations is None:
        return Comparison(**base, verdict="not compared", how="a numbered statement (prose): never parsed")
    if isinstance(relations, ParseFailure):
        return Comparison(**base, verdict="not parsed", how=str(relations), printed="")
    printed = relations_latex(relations)
    base["printed"] = printed
    nodes, edges = _graph(relations)
    if not edges:
        return Comparison(**base, verdict="not compared", how="the display states no relation (an expression only)")
    if isinstance(step.lhs, sp.MatrixBase) or isinstance(step.rhs, sp.MatrixBase):
        return Comparison(**base, verdict="not compared", how="the step's sides are matrices (the print's are "
                                                               "scalar expressions)")
    try:
        return _with_budget(lambda: _compare(base, nodes, edges, step, points), budget_s)
    except _Timeout:
        return Comparison(**base, verdict="not compared", how=f"evaluating the sides took over {budget_s:g} s")


def _compare(base: dict, nodes: list, edges: list, step, points: int) -> Comparison:
    rng = random.Random(_seed(base["label"], base["derivation"], base["step"]))
    numeric = step.numeric
    # the print's symbols and functions, unified with the step's by name
    fnames: dict[str, Any] = {}
    for side in (step.lhs, step.rhs):
        if isinstance(side, sp.Basic):
            fnames.update(_functions(side))
    stands = {n: _stand_in(n, rng) for n in sorted(fnames)}
    printed_syms = set().union(*[n.free_symbols for n in nodes])
    if not numeric:
        mine = _step_symbols(step)
        rename = {}
        for s in printed_syms:
            if isinstance(s, sp.Symbol) and not isinstance(s, sp.Dummy):
                hit = next((mine[n] for n in _names(s.name) if n in mine), None)
                if hit is not None:
                    rename[s] = hit
        nodes = [n.xreplace(rename) for n in nodes]
        syms = sorted(set(mine.values()), key=lambda s: s.name)
        pts = _sample(syms, step.domain, rng, points)
        tol, rtol = 0.0, RTOL
        how_points = f"{points} random points of the step's domain, 30 digits, relative tolerance {RTOL:g}"
    else:
        try:
            if step.erratum is not None and step.erratum.at is not None:
                raw = [dict(step.erratum.at)]
            else:
                import itertools

                raw = list(itertools.islice(step.search(), 2))
        except Exception as exc:  # noqa: BLE001 - no points: nothing to compare at
            return Comparison(**base, verdict="not compared", how=f"the step's search failed: {type(exc).__name__}")
        pts = []
        for p in raw:
            pt = {}
            for k, v in p.items():
                x = _scalar(v)
                if x is not None:
                    pt[getattr(k, "name", str(k))] = x
            pts.append(pt)
        tol, rtol = float(step.tol), max(RTOL, float(step.rtol))
        how_points = (f"the step's first {len(pts)} search point(s), tolerance {tol:g} + {rtol:g} relative"
                      + (f" ({step.tol_source})" if step.tol_source else ""))

    def point_subs(pt: Mapping) -> dict:
        if not numeric:
            return pt
        by = {}
        for k, v in pt.items():
            by.setdefault(_normal(k), v)
        for k, v in list(by.items()):
            by.setdefault(k.replace("_", ""), v)
        out = {}
        for s in printed_syms:
            if isinstance(s, sp.Symbol):
                hit = next((by[n] for n in _names(s.name) if n in by), None)
                if hit is not None:
                    out[s] = hit
        return out

    memo: dict[int, sp.Basic] = {}

    def ready(e) -> sp.Basic:
        e = sp.sympify(e)
        if id(e) not in memo:
            memo[id(e)] = (e, _ready(e, stands))
        return memo[id(e)][1]

    def side_value(side, pt):
        if callable(side) and not isinstance(side, sp.Basic):
            return _number(side(**{k: (float(v) if isinstance(v, sp.Float) else int(v) if isinstance(v, sp.Integer)
                                       else v) for k, v in pt.items()}))
        e = ready(side)
        if numeric:
            return _evaluate(e, {s: pt[s.name] for s in e.free_symbols if isinstance(s, sp.Symbol) and s.name in pt})
        return _evaluate(e, pt)

    known = ({_normal(k) for pt in pts for k in pt} if numeric else {_normal(s.name) for s in syms})
    known |= {k.replace("_", "") for k in known}

    def foreign_names() -> list[str]:
        return sorted({_tex(s) for n in nodes for s in n.free_symbols
                       if not (isinstance(s, sp.Symbol) and any(k in known for k in _names(s.name)))}
                      | {f.func.__name__ for n in nodes for f in n.atoms(sp.core.function.AppliedUndef)
                         if _normal(f.func.__name__) not in stands})

    def possible(n) -> bool:             # every symbol and function of the printed side has a value at the points
        return (all(isinstance(s, sp.Symbol) and any(k in known for k in _names(s.name)) for s in n.free_symbols)
                and all(_normal(f.func.__name__) in stands for f in n.atoms(sp.core.function.AppliedUndef)))

    if not any(possible(n) for n in nodes):  # decided before any side is evaluated
        return Comparison(**base, verdict="not compared",
                          how="symbols of the print not in the step: " + (", ".join(foreign_names())[:160] or "none"))
    can = [possible(n) for n in nodes]
    node_vals: list[list] = [[] for _ in nodes]
    step_vals: list[tuple] = []
    used = []
    for pt in pts:
        subs = point_subs(pt)
        nv = [_evaluate(ready(n), subs) if ok else None for n, ok in zip(nodes, can)]
        if numeric and all(v is None for v in nv):
            continue                      # no printed side is evaluable here: the routine is not called
        try:
            sv = (side_value(step.lhs, pt), side_value(step.rhs, pt))
        except _Timeout:
            raise
        except Exception:  # noqa: BLE001 - a side that cannot be evaluated here gives no value
            sv = (None, None)
        for k, v in enumerate(nv):
            node_vals[k].append(v)
        step_vals.append(sv)
        used.append(pt)
    evaluable = [k for k in range(len(nodes)) if any(v is not None for v in node_vals[k])]
    if not evaluable:
        return Comparison(**base, verdict="not compared",
                          how="the printed sides have no finite real value at the sampled points (symbols of the print "
                              "not in the step: " + (", ".join(foreign_names())[:160] or "none") + ")")
    if not any(a is not None or b is not None for a, b in step_vals):
        return Comparison(**base, verdict="not compared",
                          how="the step's sides have no finite real value at the sampled points")

    def matches(side: int) -> set[int]:
        out = set()
        for k in evaluable:
            pairs = [(sv[side], node_vals[k][i]) for i, sv in enumerate(step_vals)]
            both = [(a, b) for a, b in pairs if a is not None and b is not None]
            if both and len(both) >= min(3, len(pairs)) and all(_close(a, b, rtol, tol) for a, b in both):
                out.add(k)
        return out

    op = step.relation
    small, big, sop = (0, 1, op) if op in ("==", "<=", "<") else (1, 0, _FLIP[op])
    m_small, m_big = matches(small), matches(big)
    paths = _paths(edges)
    foreign = [k for k in range(len(nodes)) if k not in evaluable]
    full = [(i, j, pop) for i, j, pop in sorted(paths) if pop == sop and i in m_small and j in m_big]
    if full:
        # equal values cannot tell a link from the composed chain (a = b = c: all three are one function); the sides
        # that are the step's own expressions can
        scored = [(_identical(step, nodes[i], nodes[j], small), (i, j, pop) in edges or (j, i, pop) in edges, i, j,
                   pop) for i, j, pop in full]
        same, link, i, j, pop = max(scored, key=lambda t: (t[0], t[1]))
        how = (f"the step states {_tex(nodes[i])} {_TEX_REL[pop]} {_tex(nodes[j])}"
               + (" (a printed relation)" if link else " (the printed chain composed)")
               + (": symbolically identical sides" if same[1] == 2 and not numeric else ": numerically")
               + f"; {how_points}")
        return Comparison(**base, verdict="matches", how=how)
    for i, j, pop in sorted(paths):           # a printed side against the step's, the other side a name
        if pop != sop:
            continue
        if i in foreign and j in (m_small | m_big if sop == "==" else m_big):
            side_tex, name_tex = nodes[j], nodes[i]
        elif j in foreign and i in m_small:
            side_tex, name_tex = nodes[i], nodes[j]
        else:
            continue
        return Comparison(**base, verdict="matches",
                          how=f"the printed side {_tex(side_tex)} is the step's; the other printed side, "
                              f"{_tex(name_tex)}, names what the step computes (symbols the step does not have); "
                              f"{how_points}")
    # no match: does the step decisively state something else?
    decisive, why = _decisive(nodes, edges, paths, evaluable, node_vals, step_vals, used, step, sop, small, big,
                              printed_syms, numeric, rtol, tol)
    how = ("the step's relation is not a printed relation nor a composition of them"
           + (f"; decisively: {why}" if decisive else (f" ({why})" if why else "")) + f"; {how_points}")
    return Comparison(**base, verdict="differs", how=how, decisive=decisive)


def _identical(step, a, b, small: int) -> tuple[int, int]:
    """How many of the step's sides (0, 1, 2) are the printed nodes a, b as expressions, and how many expand to them
    (small: the index of the step's side that a stands for)."""
    if step.numeric:
        return (0, 0)
    sides = (step.lhs, step.rhs) if small == 0 else (step.rhs, step.lhs)

    def same():
        return (sum(sp.sympify(s) == n for s, n in zip(sides, (a, b))),
                sum(sp.expand(sp.sympify(s) - n) == 0 for s, n in zip(sides, (a, b))))
    try:
        return _with_budget(same, 2.0)
    except (_Timeout, Exception):  # noqa: BLE001 - expansion failed: the numeric comparison stands
        return (0, 0)


def _decisive(nodes, edges, paths, evaluable, node_vals, step_vals, used, step, sop, small, big, printed_syms,
              numeric, rtol, tol) -> tuple[bool, str]:
    """Whether every comparable printed relation (same symbols as the step, both sides evaluable; an equation with a
    number on one side is an equation to solve, never an identity, so it is not comparable) fails at a sampled point
    where the step's relation holds, or holds where the step's fails. Returns (decisive, why)."""
    if numeric:
        return False, "a step with numeric sides is compared by value only"
    mine = {_normal(s.name) for s in _step_symbols(step).values()
            if any(s in sp.sympify(x).free_symbols for x in (step.lhs, step.rhs))}
    cands = []
    for i, j, pop in paths:
        if i not in evaluable or j not in evaluable:
            continue
        syms = nodes[i].free_symbols | nodes[j].free_symbols
        if {_normal(getattr(s, "name", str(s))) for s in syms} != mine:
            continue
        if pop == "==" and (bool(nodes[i].free_symbols) != bool(nodes[j].free_symbols)):
            continue
        cands.append((i, j, pop))
    if not cands:
        return False, "no printed relation has exactly the step's symbols"
    witness = None
    for i, j, pop in cands:
        found = None
        for k, (sv, pt) in enumerate(zip(step_vals, used)):
            a, b, x, y = sv[small], sv[big], node_vals[i][k], node_vals[j][k]
            if None in (a, b, x, y):
                continue
            sop_eff = sop
            step_holds, print_holds = _holds(a, b, sop_eff, rtol, tol), _holds(x, y, pop, rtol, tol)
            if (step_holds and _fails(x, y, pop)) or (print_holds and _fails(a, b, sop_eff)):
                found = (pt, step_holds, a, b, x, y, i, j, pop)
                break
        if found is None:
            return False, ""
        witness = witness or found
    pt, step_holds, a, b, x, y, i, j, pop = witness
    which = ("the step's relation holds there and the print's fails" if step_holds
             else "the print's relation holds there and the step's fails")
    return True, (f"at {_fmt_point(pt)}, {which} (the step: {_fmt(a)} {sop} {_fmt(b)}; the print: "
                  f"{_tex(nodes[i])} = {_fmt(x)} {_TEX_REL[pop]} {_tex(nodes[j])} = {_fmt(y)})")


# -- per label, per paper --------------------------------------------------------------------------------------------

LABEL_STATUSES = ("matches the print", "differs from the print", "not parsed", "not compared", "not cited")


@dataclass(frozen=True)
class LabelComparison:
    """A label's machine comparison: its status (LABEL_STATUSES), why, the printed text and parsed relations, and
    one Comparison per citing step."""

    label: str
    kind: str
    status: str
    reason: str
    printed: str = ""
    relations: str = ""
    comparisons: tuple[Comparison, ...] = ()

    @property
    def compared(self) -> bool:
        return self.status in ("matches the print", "differs from the print")

    @property
    def parsed(self) -> bool:
        return self.kind == "display" and self.status != "not parsed" and not self.reason.startswith("not parsed")

    def to_json(self) -> dict:
        return {"label": self.label, "kind": self.kind, "status": self.status, "reason": self.reason,
                "compared": self.compared, "printed": self.printed, "relations": self.relations,
                "steps": [c.to_json() for c in self.comparisons]}


def _label_status(p: Printed, comps: Sequence[Comparison]) -> tuple[str, str]:
    if isinstance(p.relations, ParseFailure):
        return "not parsed", str(p.relations)
    if p.kind != "display":
        return "not compared", "a numbered statement (prose): never parsed"
    if not comps:
        return "not cited", "no step cites it"
    hit = next((c for c in comps if c.verdict == "matches"), None)
    if hit is not None:
        return "matches the print", f"step {hit.step!r}: {hit.how}"
    hit = next((c for c in comps if c.verdict == "differs"), None)
    if hit is not None:
        return "differs from the print", f"step {hit.step!r}: {hit.how}"
    reasons = list(dict.fromkeys(c.how for c in comps))
    return "not compared", "; ".join(reasons)[:400]


def notation_of(paper) -> NotationMap | None:
    """The paper's NotationMap: `Paper.notation` as given, or imported from its "module:ATTR" reference."""
    n = getattr(paper, "notation", None)
    if n is None or isinstance(n, NotationMap):
        return n
    import importlib

    module, _, attr = str(n).partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr or "NOTATION")


def printout_of(paper) -> list[Printed] | None:
    """The paper's labelled displays and statements, displays parsed with its notation (cached); None without a
    source file."""
    from . import catalogue

    found = catalogue.printed_labels(paper)
    if found is None:
        return None
    return parsed_printout(found, notation_of(paper))


_OPENS_WITH_RELATION = re.compile(r"\s*(?:=|\\le(?![A-Za-z])|\\ge(?![A-Za-z])|\\leq|\\geq|<|>|&|[+\-])")


def _chain(p: Printed, items: Sequence[Printed], notation: NotationMap | None):
    """The printed chain a continuation display belongs to ("= c" after "a = b", "- d" after "a = b + c"): the
    relations of the displays before it and its own, parsed as one (so a = b = c composes to a = c); None where the
    display opens no continuation or the chain does not parse."""
    if not p.lead or not _OPENS_WITH_RELATION.match(p.text):
        return None
    by_text = {" ".join(q.text.split()): q for q in items if q.kind == "display" and q.text}
    chain, lead = p.text, p.lead
    for _ in range(8):
        if not lead or not _OPENS_WITH_RELATION.match(chain):
            break
        chain = lead + " " + chain
        prev = by_text.get(" ".join(lead.split()))
        lead = prev.lead if prev is not None else ""
    out = PARSES.parse(chain, notation, lead=lead)
    return None if isinstance(out, ParseFailure) else out


def compare_paper(paper, derivations: Iterable, *, printout: Sequence[Printed] | None = None,
                  numeric: bool = True) -> dict[str, LabelComparison]:
    """Each label of the paper's source (in order) against the steps of `derivations` that cite it. numeric=False
    skips the steps with numeric sides (their routines are not called): reported as not compared."""
    items = printout if printout is not None else printout_of(paper)
    if items is None:
        return {}
    citing: dict[str, list] = {}
    for d in derivations:
        for s in d.steps:
            for label in s.cites:
                citing.setdefault(label, []).append((d, s))
    notation = notation_of(paper)
    out = {}
    for p in items:
        comps = []
        chain: Any = False
        for d, s in citing.get(p.label, ()):
            if p.kind != "display":
                rel = None
            elif isinstance(p.relations, ParseFailure):
                rel = p.relations
            else:
                if chain is False:
                    chain = _chain(p, items, notation)
                rel = chain or p.relations
            if s.numeric and not numeric and not isinstance(rel, ParseFailure) and rel is not None:
                comps.append(Comparison(label=p.label, derivation=d.key, step=s.label, fidelity=_fidelity_text(s),
                                        verdict="not compared", how="numeric sides (not evaluated here)",
                                        printed=relations_latex(rel), stated=_stated(s)))
                continue
            comps.append(compare_step(p.label, rel, s, derivation=d.key))
        status, reason = _label_status(p, comps)
        out[p.label] = LabelComparison(label=p.label, kind=p.kind, status=status, reason=reason, printed=p.text,
                                       relations=relations_latex(p.relations) if p.kind == "display" else "",
                                       comparisons=tuple(comps))
    return out


def compared_rows(paper, derivations: Iterable) -> dict[str, dict]:
    """compare_paper as JSON by label: what coverage rows carry in their "compared" field."""
    return {k: v.to_json() for k, v in compare_paper(paper, derivations).items()}


def share_report(paper, derivations: Iterable, comparisons: Mapping[str, LabelComparison] | None = None) -> dict:
    """Item 5's measure for one paper: labelled displays, how many parse, cited labels, how many are machine-compared
    (matches or differs), and the most common reasons a display did not parse or compare."""
    from collections import Counter

    comps = comparisons if comparisons is not None else compare_paper(paper, derivations)
    displays = [c for c in comps.values() if c.kind == "display"]
    parsed = [c for c in displays if c.status != "not parsed"]
    cited = [c for c in comps.values() if c.comparisons]
    compared = [c for c in comps.values() if c.compared]
    reasons: Counter = Counter()
    for c in displays:
        if c.compared:
            continue
        if c.status == "not parsed":
            reasons["not parsed: " + c.reason.split(":")[0]] += 1
        elif c.status == "not cited":
            reasons["not cited by any step"] += 1
        else:
            reasons["not compared: " + _reason_kind(c.reason)] += 1
    n = len(displays)
    return {"paper": getattr(paper, "name", str(paper)), "displays": n, "parsed": len(parsed),
            "parse_share": len(parsed) / n if n else 0.0,
            "cited": len(cited), "compared": len(compared),
            "compared_share_of_cited": len(compared) / len(cited) if cited else 0.0,
            "displays_compared": sum(c.compared for c in displays),
            "compared_share_of_displays": sum(c.compared for c in displays) / n if n else 0.0,
            "matches": sum(c.status == "matches the print" for c in comps.values()),
            "differs": sum(c.status == "differs from the print" for c in comps.values()),
            "reasons": reasons.most_common()}


def _reason_kind(reason: str) -> str:
    for key in ("symbols of the print not in the step", "matrices", "numeric sides", "no relation",
                "no finite real value", "took over", "search failed"):
        if key in reason:
            return key
    return reason[:60]


# -- `theorylab check`: the fidelity section -------------------------------------------------------------------------

def check_section(derivations: Sequence, *, papers: Mapping[str, Any] | None = None, families: Sequence[str] = (),
                  out=None) -> tuple[int, list[LabelComparison]]:
    """Print, per paper of the derivations (one that names a source file), its labels with their machine comparison
    (every label where the paper's families are all selected, else the labels the derivations cite); return
    (unexpected, comparisons): unexpected counts the steps declared "as printed" that decisively differ from the
    print, each shown with both forms. papers: derivation key -> its Paper (default: looked up in the catalogue);
    families: the selected family names."""
    import sys

    from . import catalogue

    write = (out or sys.stdout).write
    if papers is None:
        keys = {d.key for d in derivations}
        papers = {d.key: f.paper for f in catalogue.families() for d in f.derivations if d.key in keys}
    by_paper: dict[str, tuple[Any, list]] = {}
    for d in derivations:
        paper = papers.get(d.key)
        if paper is not None:
            by_paper.setdefault(paper.name, (paper, []))[1].append(d)
    unexpected, everything = 0, []
    for paper, derivs in by_paper.values():
        items = printout_of(paper)
        if items is None:
            continue
        comps = compare_paper(paper, derivs, printout=items)
        everything += comps.values()
        rep = share_report(paper, derivs, comps)
        whole = not families or {f.name for f in paper.families} <= set(families)
        shown = [c for c in comps.values() if whole or c.comparisons]
        write(f"\nfidelity to the printed page, {paper.name} ({paper.source}): {rep['displays']} labelled displays, "
              f"{rep['parsed']} parse; {rep['cited']} labels cited by these steps, {rep['compared']} machine-compared "
              f"({rep['matches']} match the print, {rep['differs']} differ)"
              + ("" if whole else f"; the {len(shown)} labels these steps cite") + "\n")
        for c in shown:
            bad = [x for x in c.comparisons if x.unexpected]
            unexpected += len(bad)
            mark = "!! " if bad else "   "
            write(f"  {mark}{c.label:14s} {c.status}: {_short(c.reason)}\n")
            for x in bad:
                write(f"        UNEXPECTED: step {x.step!r} ({x.derivation}) is declared 'as printed' but states "
                      f"something else\n          the paper prints: {x.printed}\n          the step states:  "
                      f"{x.stated}\n          {x.how}\n")
    return unexpected, everything


def _short(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"
