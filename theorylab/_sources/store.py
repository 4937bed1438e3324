"""Parse results as data: keyed by the parsing rules' version, the parser, the text and the notation (parse_key),
written and read as JSON (the built-in papers ship theirs beside their sources, `<source>.parses.json`)."""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

import sympy as sp

from .backends import DEFAULT_PARSER
from .notation import NotationMap
from .relations import relation
from .text import ParseFailure


# -- parse results as data: keyed, written and read (the built-in papers ship theirs) --------------------------------

PARSE_FORMAT = 7
"""The version of the parsing rules: what this module makes of a display's LaTeX (reading, cleanup, placeholders,
relations). Bump it with any change that can change a parse. Shipped parses (`<source>.parses.json` beside a paper's
source, e.g. derivations/sources/) are keyed by it, by the parser and its version, the display's text and lead and
the notation map, never by this module's code: an edit that changes no parse keeps them; a bump makes them stale, and
tests/test_sources.py asks for them to be regenerated (`theorylab parses --rebuild`). 7 (#35): subscripted names
are symbols unless declared indexed, superscript labels, derivative operators, bare values before a group."""
SHIPPED_SUFFIX = ".parses.json"


def _code_digest(obj: Any) -> str:
    try:
        return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return hashlib.sha256(code.co_code if code is not None else repr(obj).encode()).hexdigest()[:16]


def _object_text(v: Any) -> str:
    if isinstance(v, sp.Basic):
        # srepr writes a Symbol with the assumptions it was created with, and SymPy's cache hands back an equal
        # Symbol created elsewhere (gamma positive=True may come back as positive=True, real=True, depending on
        # what was imported first): each symbol is written by its name and its full assumptions instead
        marks = {s: sp.Symbol(f"{s.name}[{','.join(k for k, val in sorted(s.assumptions0.items()) if val)}]")
                 for s in v.atoms(sp.Symbol)}
        return sp.srepr(v.xreplace(marks)) if marks else sp.srepr(v)
    if isinstance(v, type) and issubclass(v, sp.Basic):      # sp.Function("f"), sp.exp
        return f"class {v.__module__}.{v.__name__}"
    if callable(v):
        return f"callable {getattr(v, '__qualname__', type(v).__name__)} {_code_digest(v)}"
    return repr(v)


def notation_key(notation: NotationMap | None) -> str:
    """A stable text of a notation map: its rewrites (patterns, replacements, a callable's code), symbols, and its
    declared indexed and label names."""
    if notation is None:
        return "none"
    parts = []
    for pat, rep in notation.rewrites:
        p = f"re/{pat.pattern}/{pat.flags}" if hasattr(pat, "pattern") else f"str/{pat}"
        parts.append(p + "->" + (rep if isinstance(rep, str) else _object_text(rep)))
    parts += [f"{k}={_object_text(v)}" for k, v in sorted(notation.symbols.items())]
    parts += [f"{what}:{','.join(getattr(notation, what))}" for what in ("indexed", "labels")
              if getattr(notation, what)]
    return "\x00".join(parts)


@functools.lru_cache(maxsize=8)
def parser_version(parser: str | None = None) -> str:
    """The parser and its installed version ("latex2sympy2_extended 1.11.0"; SymPy's own backends: SymPy's version)."""
    parser = parser or DEFAULT_PARSER
    try:
        version = metadata.version(parser) if parser == "latex2sympy2_extended" else "sympy " + sp.__version__
    except metadata.PackageNotFoundError:
        version = "absent"
    return f"{parser} {version}"


def parse_key(text: str, notation: NotationMap | None = None, *, lead: str = "", parser: str | None = None,
              notation_text: str | None = None) -> str:
    """The key of a display's parse as data: PARSE_FORMAT, the parser and its version, the text, its lead and the
    notation map (what `parse_display` reads, and the rules that read it); notation_text: notation_key(notation)
    where the caller has it."""
    nk = notation_key(notation) if notation_text is None else notation_text
    parts = [f"theorylab-parse {PARSE_FORMAT}", parser_version(parser), text, lead, nk]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def relations_to_json(relations: tuple | ParseFailure) -> dict:
    """A parse as JSON: {"relations": [[op, srepr(lhs), srepr(rhs)] or ["expr", srepr(e)], ...]} or {"failure":
    [reason, construct, position]}. Relations are kept as (op, lhs, rhs): one rebuilt evaluated would be decided
    (Eq(x, x) -> True)."""
    if isinstance(relations, ParseFailure):
        return {"failure": [relations.reason, relations.construct, relations.position]}
    return {"relations": [[r.rel_op, sp.srepr(r.lhs), sp.srepr(r.rhs)] if isinstance(r, sp.core.relational.Relational)
                          else ["expr", sp.srepr(r)] for r in relations]}


@functools.lru_cache(maxsize=1)
def _srepr_names() -> dict:
    """SymPy's top-level names, and every SymPy class srepr may write that it lacks (ExprCondPair)."""
    names = {k: getattr(sp, k) for k in dir(sp) if not k.startswith("_")}
    todo = [sp.Basic]
    while todo:
        cls = todo.pop()
        for c in cls.__subclasses__():
            if (c.__module__ or "").startswith("sympy.") and not issubclass(c, sp.core.function.AppliedUndef):
                names.setdefault(c.__name__, c)
            todo.append(c)
    names["__builtins__"] = {}
    return names


def relations_from_json(obj: Mapping) -> tuple | ParseFailure:
    """The parse `relations_to_json` wrote (the same SymPy objects: srepr is evaluated in SymPy's names only)."""
    if "failure" in obj:
        reason, construct, position = obj["failure"]
        return ParseFailure(str(reason), str(construct), int(position))
    names = _srepr_names()
    out = []
    for item in obj["relations"]:
        if item[0] == "expr":
            out.append(eval(item[1], names))                       # noqa: S307 - srepr, SymPy's names only
        else:
            out.append(relation(eval(item[1], names), eval(item[2], names), item[0]))  # noqa: S307
    return tuple(out)


def shipped_path(source: str | Path) -> Path:
    """Where a source's shipped parses lie: beside it, `<stem>.parses.json`."""
    source = Path(source)
    return source.with_name(source.stem + SHIPPED_SUFFIX)


def read_parses(path: str | Path) -> dict[str, dict]:
    """A shipped parses file: {key: entry} (entries as `relations_to_json` writes them, with their label and text);
    {} where the file is absent or unreadable (the displays are then parsed)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return dict(data["parses"]) if data.get("format") == PARSE_FORMAT else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write_parses(path: str | Path, entries: Mapping[str, dict], *, source: str = "", parser: str | None = None
                 ) -> None:
    """Write a shipped parses file: {key: {"label", "text", "relations" | "failure"}} in label order, one entry a
    line (diffs stay readable)."""
    head = {"about": "theorylab's parses of this source's labelled displays (theorylab._sources.sources.parse_display), keyed "
                     "by sources.parse_key; regenerate with `theorylab parses --rebuild`",
            "format": PARSE_FORMAT, "parser": parser_version(parser), "source": source}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + ['  "parses": {']
    body = [f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in entries.items()]
    lines += [",\n".join(body), "  }", "}"]
    tmp = Path(f"{path}.{__import__('os').getpid()}")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
