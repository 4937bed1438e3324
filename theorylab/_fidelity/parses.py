"""Parsed displays, cached: a paper's shipped parses, then the disk cache, then the parser
(`PARSES`, `parsed_printout`); keyed by the text, its lead, the notation and the parser's version."""
from __future__ import annotations

import ast
import hashlib
import os
import pickle
from importlib import metadata
from pathlib import Path
from dataclasses import replace
from typing import Any, Iterable

import sympy as sp

from .._shared import cache_path
from .._sources import sources
from .._sources.sources import NotationMap, ParseFailure, Printed, notation_key
from .thresholds import PARSE_CACHE_VERSION


# -- parses, cached on disk ------------------------------------------------------------------------------------------

def _parser_version(parser: str) -> str:
    try:
        version = metadata.version(parser) if parser == "latex2sympy2_extended" else "sympy"
    except metadata.PackageNotFoundError:
        version = "absent"
    code = " ".join(_code_of(str(f)) for f in sorted(Path(sources.__file__).parent.glob("*.py")))
    return f"{PARSE_CACHE_VERSION} {parser} {version} sympy {sp.__version__} sources {code}"


def _code_of(path: str) -> str:
    """A digest of a module's code (its syntax tree without docstrings: comments and prose never invalidate)."""
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
    return tuple(x[1] if x[0] == "expr" else sources.relation(x[1], x[2], x[0]) for x in frozen)


class _ParseCache:
    """Parsed displays: first the shipped parses of the papers' sources (`ship`: a `<source>.parses.json` beside the
    source, keyed by sources.parse_key: the parsing rules' PARSE_FORMAT, the parser's version, the text, its lead and
    the notation; read whatever THEORYLAB_STEP_CACHE says, as part of the package), then the disk cache
    (~/.cache/theorylab/parses, keyed by the text, its lead, the notation, the parser's version and the code of
    sources.py; THEORYLAB_STEP_CACHE=0 turns it off), then the parser. A torn or unreadable entry is a miss."""

    def __init__(self):
        self.memo: dict[str, Any] = {}
        self.versions: dict[str, str] = {}
        self.shipped: dict[str, dict] = {}
        self.loaded: set[str] = set()
        self._notations: dict[int, tuple[Any, str]] = {}
        self.hits = self.misses = self.shipped_hits = 0

    @property
    def dir(self) -> str:
        return cache_path("parses")

    @property
    def on(self) -> bool:
        return os.environ.get("THEORYLAB_STEP_CACHE", "1") != "0"

    def ship(self, path) -> None:
        """Read a shipped parses file once (absent or unreadable: nothing; its displays are parsed)."""
        path = str(path)
        if path not in self.loaded:
            self.loaded.add(path)
            self.shipped.update(sources.read_parses(path))

    def _notation_key(self, notation: NotationMap | None) -> str:
        hit = self._notations.get(id(notation))
        if hit is None or hit[0] is not notation:
            hit = self._notations[id(notation)] = (notation, notation_key(notation))
        return hit[1]

    def key(self, text: str, lead: str, notation: NotationMap | None, parser: str) -> str:
        if parser not in self.versions:
            self.versions[parser] = _parser_version(parser)
        parts = [self.versions[parser], text, lead, self._notation_key(notation)]
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def _from_shipped(self, text: str, notation: NotationMap | None, lead: str, parser: str):
        if not self.shipped:
            return None
        entry = self.shipped.get(sources.parse_key(text, lead=lead, parser=parser,
                                                   notation_text=self._notation_key(notation)))
        if entry is None:
            return None
        try:
            return sources.relations_from_json(entry)
        except Exception:  # noqa: BLE001 - an entry that does not read back is a miss: parsed
            return None

    def parse(self, text: str, notation: NotationMap | None = None, *, lead: str = "", parser: str | None = None):
        parser = parser or sources.DEFAULT_PARSER
        key = self.key(text, lead, notation, parser)
        if key in self.memo:
            return self.memo[key]
        out = self._from_shipped(text, notation, lead, parser)
        if out is not None:
            self.shipped_hits += 1
            self.memo[key] = out
            return out
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
    out, printed = [], list(printed)
    cut = sources.cut_sides(printed)
    for p in printed:
        if p.kind != "display":
            out.append(p)
        elif p.label in cut:
            out.append(replace(p, relations=cut[p.label]))
        elif not p.text:
            out.append(replace(p, relations=ParseFailure("no printed display (a label on an empty line)", p.label,
                                                         0)))
        else:
            out.append(replace(p, relations=PARSES.parse(p.text, notation, lead=p.lead, parser=parser)))
    return out
