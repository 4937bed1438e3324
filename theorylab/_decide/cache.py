"""The step cache: verdicts of symbolic steps on disk, keyed by the step's content and a hash of the engine that
decides it (the deciding modules' code and constants, the libraries' versions), so a changed engine decides again.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import inspect
import json
import os
import sys
import types
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy as sp

from .._records.relation import Relation
from .._records.step import Outcome, Step, _name, _sympify
from .._shared import cache_path, write_json

__all__ = ["content_key"]

_CACHE_VERSION = "theorylab-steps-6"  # bump when what a cached verdict means changes (Outcome's fields, the key)

# The code that decides a step. Its source (and the versions of the libraries it calls) is hashed into every cached
# verdict's key, so a changed engine (a narrower search, another verdict rule, a new budget) decides cached steps
# again instead of answering from the cache; code that only prints or records (the records above, the tables) is
# left out, so editing it keeps the cache.
# Every function, class and UPPER_CASE constant defined in these modules (the whole of each deciding module, so no
# list kept by hand can miss a new helper); this module's own hashing and the records' printing are left out.
_ENGINE_MODULES = ("theorylab._records.domain", "theorylab._records.relation", "theorylab._decide.search",
                   "theorylab._decide.evaluate", "theorylab._decide.equality", "theorylab._decide.enclosure",
                   "theorylab._decide.inequality", "theorylab._decide.steps")
_ENGINE_MEMO: list = [None, ""]


def _engine_parts() -> list[tuple[str, Any]]:
    """(name, object) for every piece of deciding code, and (name, value) for every deciding constant."""
    parts: list[tuple[str, Any]] = []
    for modname in _ENGINE_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError:
            continue
        for name, obj in sorted(vars(mod).items()):
            if (callable(obj) and getattr(obj, "__module__", None) == modname) or (name.isupper() and isinstance(
                    obj, (int, float, str, tuple, frozenset))):
                parts.append((f"{modname}.{name}", obj))
    return parts


def _code_digest(code: Any) -> str:
    """A code object's bytecode, names and constants (nested functions included), without its file or line numbers:
    the behaviour, so a function whose code was replaced in place (a patched __code__) hashes differently, while
    code that only moved (lines added above it) hashes the same."""
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
    fns = _functions_of(obj)
    if not fns:
        return _stable_repr(obj)
    source = _source_of(obj)
    if source is None:
        try:
            source = inspect.getsource(obj)
        except (OSError, TypeError):
            source = ""
    return source + "".join(f"\x00{name}:{_code_digest(f.__code__)}" for name, f in fns)


def _source_of(obj: Any) -> str | None:
    """A function's or class's source text from its file parsed once (`_segments`), None where it is not found there
    (inspect.getsource then reads it): inspect tokenizes a function's file from its first line and parses the whole
    file again for every class, 0.3-0.6 s of every process that decides a step (measured on `theorylab check`)."""
    if isinstance(obj, type):
        filename, where = getattr(sys.modules.get(obj.__module__), "__file__", None), obj.__qualname__
    else:
        filename, where = obj.__code__.co_filename, obj.__code__.co_firstlineno
    return _segments(filename).get(where) if filename else None


def _segments(filename: str) -> dict:
    """{class qualname or first line of a def (its first decorator's): source text} of a Python file, remembered per
    (file, size, mtime)."""
    try:
        st = os.stat(filename)
        stamp = (filename, st.st_size, st.st_mtime_ns)
        if _SEGMENTS.get(filename, (None,))[0] != stamp:
            with open(filename, encoding="utf-8") as fh:
                text = fh.read()
            lines, found = text.splitlines(keepends=True), {}

            def visit(node, prefix):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                        body = "".join(lines[first - 1:child.end_lineno])
                        found[first] = body
                        if isinstance(child, ast.ClassDef):
                            found[prefix + child.name] = body
                            visit(child, prefix + child.name + ".")

            visit(ast.parse(text), "")
            _SEGMENTS[filename] = (stamp, found)
        return _SEGMENTS[filename][1]
    except (OSError, SyntaxError, ValueError):
        return {}


_SEGMENTS: dict[str, tuple] = {}


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
    """A hash of the deciding code (the modules in `_ENGINE_MODULES`) and of
    the versions of Python, SymPy, mpmath, NumPy and SciPy. Recomputed whenever one of those objects or its code is
    replaced (a monkeypatch, a patched __code__, a reload) or a constant changes, else remembered for the process."""
    import scipy  # lazy: only its version; `import theorylab` does not load SciPy (~0.2 s), a cached check need not

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
        return cache_path("steps")

    @property
    def on(self) -> bool:
        return os.environ.get("THEORYLAB_STEP_CACHE", "1") != "0"

    def get(self, key: str) -> Outcome | None:
        if not self.on:
            return None
        try:
            with open(os.path.join(self.dir, key[:2], key + ".json")) as fh:
                data = json.load(fh)
            return Outcome(**{**data, "method": data["method"] + " [cached]"})
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, out: Outcome) -> None:
        if not self.on:
            return
        try:
            write_json(os.path.join(self.dir, key[:2], key + ".json"), dataclasses.asdict(out), indent=None,
                       prefix=f".{key}.")
        except OSError:  # a read-only home: the cache is a convenience
            pass


_STEP_CACHE = _StepCache()


def _field_text(value: Any) -> str:
    """A field's value as stable text for the step cache's key: SymPy by srepr, containers and records (an Erratum,
    an Amendment) element by element, a relation by its kind and parameters; never a memory address."""
    if isinstance(value, sp.Basic):
        return sp.srepr(value)
    if isinstance(value, Relation):
        return type(value).__name__ + _field_text(value._params())
    if isinstance(value, Mapping):
        return "{" + ", ".join(sorted(f"{_field_text(k)}: {_field_text(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_field_text(v) for v in value) + ")"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__ + _field_text({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if callable(value):
        return _stable_repr(value)
    return repr(value)


def content_key(step: Step) -> str | None:
    """A hash of everything the verdict depends on, for steps made of SymPy expressions alone: the engine that
    decides it (`_engine_fingerprint`: the source of the deciding code and the libraries' versions), the sides,
    the relation, the domain, the options, the erratum's point and the search's points (a search is called once
    here to list them). None for steps with numeric sides: their verdict depends on code, never cached."""
    if step.numeric:
        return None
    searched = ""
    if step.search is not None:
        try:
            searched = repr([sorted((_name(k), sp.srepr(sp.sympify(v))) for k, v in p.items())
                             for p in step.search()])
        except Exception:  # noqa: BLE001 - points that cannot be written down: not cached
            return None

    # every field of the record, by its name (derived from the dataclass, never listed by hand: a field added to Step
    # is in the key without an edit here), then the domain the search reads and the points it proposes
    fields = [f"{f.name}={_field_text(getattr(step, f.name))}" for f in dataclasses.fields(step) if f.name != "search"]
    parts = [_CACHE_VERSION, _engine_fingerprint(), *fields,
             repr(sorted((sp.srepr(k), repr(v)) for k, v in step.search_domain.items())),
             repr(sorted((sp.srepr(k), repr(v)) for k, v in getattr(step.search_domain, "open", {}).items())),
             repr(sorted(sp.srepr(r) for r in getattr(step.search_domain, "relations", ()))), searched]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

