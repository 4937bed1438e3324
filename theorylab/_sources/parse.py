"""Parsing a printed display into SymPy relations (parse_display) through a paper's NotationMap: each term converted,
parsed by a backend and its placeholders put back as the notation's objects; a whole Printout at once."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Iterable, Sequence

import sympy as sp

from .backends import DEFAULT_PARSER, PARSERS, _error_column, _resolve, _unbalanced
from .convert import _convert
from .matrices import _is_matrix, _matrices_back, _run_symbol, _with_matrices
from .notation import _NO_NOTATION, NotationMap
from .printed import Printed, Printout
from .relations import _APPROXIMATE, _REL_RX, _RELATIONS, relation
from .scan import _APPLIED, _bare_letters, _bound_indices, _Names
from .prepare import _prepare
from .text import ParseFailure, _Fail, _match_close, _T, _top_level


_INNER_BAR = re.compile(r"\|\s*_\s*\{")
_EVAL_BAR = re.compile(r"\|\s*_\s*\{([^{}=]+)=([^{}]+)\}\s*$")


def _parse_term(t: _T, names: _Names, parser: str):
    t = t.strip()
    if not t.s:
        raise _Fail("an empty side of a relation", "", t.at(0))
    bar = _EVAL_BAR.search(t.s)
    if bar and t.s[:bar.start()].count("|") % 2 == 0 and t.s[:bar.start()].strip():
        # an evaluation bar ending a side, X |_{v=a}: X with v put to a (SymPy's Subs), the whole side as printed
        var = _parse_term(t[bar.start(1):bar.end(1)], names, parser)
        if not isinstance(var, sp.Symbol):
            raise _Fail("an evaluation bar at something other than a variable", bar.group(0), t.at(bar.start()))
        body = _parse_term(t[:bar.start()], names, parser)
        if var not in body.free_symbols:
            # M_{\theta'}|_{\theta'=...}: the variable only inside a name; Subs would drop the bar silently
            raise _Fail("an evaluation bar at a variable the side shows only inside a name (or not at all)",
                        bar.group(0), t.at(bar.start()))
        return sp.Subs(body, var, _parse_term(t[bar.start(2):bar.end(2)], names, parser))
    inner_bar = next((m for m in _INNER_BAR.finditer(t.s)
                      if "=" in t.s[m.end() - 1:max(_match_close(t.s, m.end() - 1, "{", "}"), m.end())]), None)
    if inner_bar:
        # X|_{v=a} inside a side: the parser would put a into X's free symbols only, and a v inside a name
        # (M_{\theta'}) is none of them: the substitution would be dropped silently
        raise _Fail("an evaluation bar the parse cannot place (X|_{v=a} inside a side, or its value braced)",
                    inner_bar.group(0), t.at(inner_bar.start()))
    conv = _convert(t, names, "\\int" in t.s).strip()
    try:
        fn = PARSERS[parser]
    except KeyError:
        raise ValueError(f"parser must be one of {sorted(PARSERS)}; got parser={parser!r}") from None
    try:
        e = _resolve(_with_matrices(fn, conv, names, parser))
    except _Fail:
        raise
    except ImportError as ex:
        raise _Fail(f"the parser {parser} is not installed ({ex})", parser, 0) from None
    except Exception as ex:            # the parsers raise their own exception types
        col = min(max(_error_column(ex, conv.s), 0), max(len(conv.s) - 1, 0))
        tok = re.match(r"\\[A-Za-z]+|Q_\{[yz][a-z]{3}\}|.", conv.s[col:]) if conv.s else None
        construct = tok.group(0) if tok else ""
        if construct.startswith("Q_{y") and "Q" + construct[3:-1] in names.apps:
            function = names.apps["Q" + construct[3:-1]][0]
            construct = names.table.get("Q" + function[3:-1], (function,))[0] + "(…)"
        elif construct.startswith("Q_{"):
            construct = names.table.get("Q" + construct[3:-1], (construct,))[0]
        if _unbalanced(t.s) is not None:
            at = _unbalanced(t.s)
            raise _Fail("the parentheses of this side do not balance as printed (a misprint, or a side cut across "
                        "displays)", t.s[at], t.at(at)) from None
        raise _Fail(f"{parser} cannot read it here", construct, conv.at(col)) from None
    if not isinstance(e, sp.Basic):
        raise _Fail(f"{parser} gave no SymPy expression", type(e).__name__, t.at(0))
    rep = {}
    for a in e.atoms(sp.Symbol):
        k = re.sub(r"[{}_]", "", a.name)
        if k in names.apps:
            function, args = names.apps[k]
            if function == "\\cases":
                pieces = []
                for value, cond in zip(args[::2], args[1::2]):
                    c = _parse_condition(cond, names, parser)
                    pieces.append((_parse_term(value, names, parser), c))
                rep[a] = sp.Piecewise(*pieces)
            elif function == "\\copt":
                fn = sp.Function(args[0].s)                # the placeholder of "\min_{S}\text{ s.t. }"
                rep[a] = fn(_parse_term(args[1], names, parser), *[_parse_condition(c, names, parser)
                                                                   for c in args[2:]])
            elif function == "\\diff":
                body, var = _parse_term(args[0], names, parser), _parse_term(args[1], names, parser)
                rep[a] = sp.Derivative(body, (var, int(args[2].s)))
            elif function in ("\\int", "\\lim"):
                body, var, lo, hi, *more = [None if x is None else _parse_term(x, names, parser) for x in args]
                if function == "\\lim":
                    rep[a] = sp.Limit(body, var, lo)
                else:
                    rep[a] = sp.Integral(body, (var, lo, hi) if lo is not None and hi is not None else (var,),
                                         *[(v,) for v in more])
            else:
                rep[a] = sp.Function(function)(*[_parse_term(x, names, parser) for x in args])
    return e.xreplace(rep) if rep else e


def _parse_condition(t: _T, names: _Names, parser: str):
    """A case's condition: a relation or a chain a < x <= b (a conjunction); empty (otherwise) is true."""
    if t.s.strip() in ("", "\\pwtrue"):
        return sp.true
    ops = _top_level(t.s, _REL_RX)
    if not ops or any(m.group(0) not in _RELATIONS for m in ops):
        raise _Fail("a case condition that is not a relation", t.s.strip()[:40], t.at(0))
    terms, last = [], 0
    for m in ops:
        terms.append(t[last:m.start()])
        last = m.end()
    terms.append(t[last:])
    values = [_parse_term(x, names, parser) for x in terms]
    return sp.And(*[sp.Rel(a, b, _RELATIONS[m.group(0)]) for m, a, b in zip(ops, values, values[1:])])


def _back(e, names: _Names, notation: NotationMap):
    """Placeholders -> the notation's SymPy objects (or Symbols, IndexedBases and Functions named canonically)."""
    symbols = dict(notation.symbols)
    symbols.setdefault("e", sp.E)
    symbols.setdefault("\\pi", sp.pi)
    for k, f in _APPLIED.items():
        symbols.setdefault("\\" + k, f)

    def obj(key: str):
        name, idx = names.table[key]
        full = name + (f"_{{{','.join(idx)}}}" if idx else "")
        if full in symbols:
            return symbols[full], ()
        if name in symbols:
            return symbols[name], idx
        return None, idx

    def index(i: str):
        m = re.fullmatch(r"([A-Za-z]|\\[a-z]+)(?:([+-])(\w+))?", i)
        s = sp.Symbol(m.group(1))
        if m.group(2):
            off = sp.Integer(m.group(3)) if m.group(3).isdigit() else sp.Symbol(m.group(3))
            s = s + off if m.group(2) == "+" else s - off
        return s

    def indexed(name: str, idx: tuple) -> bool:
        # #35: a subscript is an index only where declared (NotationMap.indexed) or summed/quantified over
        top = _top_level(name, re.compile(r"\^"))
        return (name in names.indexed or (bool(top) and name[:top[0].start()] in names.indexed)     # W covers W^{T}
                or any(re.match(r"\\[a-z]+|[A-Za-z]", i).group(0) in names.bound for i in idx))

    def subscripted(name: str, idx: tuple):
        if indexed(name, idx):
            return sp.IndexedBase(name)[tuple(index(i) for i in idx)]
        sub = f"_{{{','.join(idx)}}}"
        top = _top_level(name, re.compile(r"\^"))
        if "_" in name or not top:
            return sp.Symbol(name + sub)                                # u_f: one name, "u_{f}"
        return sp.Symbol(name[:top[0].start()] + sub + name[top[0].start():])      # W_{l}^{T}, never W^{T}_{l}

    def symbol(key: str):
        name, idx = names.table[key]
        o, idx = obj(key)
        if o is None and key in names.runs:
            return _run_symbol(names.runs[key], symbols, notation)
        if o is None:
            return subscripted(name, idx) if idx else sp.Symbol(name)
        if idx:
            if isinstance(o, sp.IndexedBase):
                return o[tuple(index(i) for i in idx)]
            if callable(o) and not isinstance(o, sp.Expr):
                return o(*[index(i) for i in idx])
            return subscripted(name, idx)                               # a value for the bare name only
        return o if isinstance(o, sp.Basic) else sp.Symbol(name)

    def key_of(nm: str) -> str | None:
        k = re.sub(r"[{}_]", "", nm)
        return k if k in names.table else None

    rep = {}
    for a in e.atoms(sp.Symbol):
        k = key_of(a.name)
        if k:
            rep[a] = symbol(k)
    e = e.xreplace(rep) if rep else e
    for f in sorted(e.atoms(sp.core.function.AppliedUndef), key=lambda f: -sp.count_ops(f)):
        k = key_of(f.func.__name__)
        if not k:
            continue
        name, idx = names.table[k]
        o, idx = obj(k)
        if o is None or not callable(o):
            full = name + (f"_{{{','.join(idx)}}}" if idx else "")
            e = e.xreplace({f: sp.Function(full)(*f.args)})
        else:
            e = e.xreplace({f: o(*[index(i) for i in idx], *f.args)})
    return _matrices_back(e, names, symbols)


def parse_display(text: str, notation: NotationMap | None = None, *, lead: str = "",
                  parser: str | None = None) -> tuple | ParseFailure:
    """A printed display's relations (SymPy), or a ParseFailure saying why not (reason, construct, position).

    The display's LaTeX is rewritten by the notation map, stripped of layout (\\left/\\right, spacing, \\quad,
    alignment `&`, line breaks `\\\\`, \\label/\\tag, trailing punctuation), cut into statements at \\quad,
    \\text{and}, `;`, \\implies and top-level commas followed by a relation; a condition (\\text{s.t. / for / if /
    where}, \\forall, a membership `x \\in S`) ends or drops its statement. A chain `a = b \\le c` gives two
    relations, Eq(a, b) and b <= c (:=, \\triangleq, \\equiv give Eq). A display that opens with a relation takes
    the last term of `lead` as its left side. Each term is parsed by `parser` (PARSERS; DEFAULT_PARSER) after its
    symbols are replaced by placeholders, which are then mapped back through `notation.symbols`. A display with no
    relation gives its one expression; relations with no SymPy counterpart (\\succcurlyeq, \\to; \\approx and \\propto are kept as Approx and Propto) and the
    constructs in `_UNSUPPORTED` are failures naming the construct.

    PARSE_FORMAT 3 reads: \\frac{\\partial^k X}{\\partial v^k} and \\frac{d X}{d v} as Derivative(X, (v, k)) (a partial
    derivative holds every other symbol fixed: a printed z* that depends on v needs the notation map to say so); an
    evaluation bar ending a side, X|_{v=a}, as Subs(X, v, a); \\nabla_{w} X as the undefined function "\\nabla_{w}"
    applied to its operand (a notation map may define it); \\min_{S} / \\max / \\inf / \\sup / argmin / minimize
    over a subscript as the undefined function "\\min_{S}" applied to the objective, which runs to the end of its
    side; a run of differentials, \\int f dx dy, as a multiple integral.

    PARSE_FORMAT 5 adds (theorylab._sources.constructs; each a name a notation map binds, never a guessed meaning):
    a run of indexed factors with an ellipsis, W_1 W_2 \\dots W_{L-1}, as ONE Symbol "W_{1}\\cdots W_{L-1}" (first and
    last factor), a run of transposes W_{L-1}^T \\dots W_1^T as "(W_{1}\\cdots W_{L-1})^{T}" (the transpose of the
    map's object where the map binds the run to a matrix or a noncommutative object; noncommutative where the map
    declares the base, "W", one); (A \\oplus B)(v) as the function "A\\oplus B" applied to v, (A \\otimes B) as
    "\\otimes"(A, B); an accent over an expression, \\overline{\\nabla f_\\theta}(x), as the name
    "\\bar{\\nabla f_{\\theta}}"; \\operatorname{tr}(X), \\det(X), \\mathrm{vec}(X), \\operatorname{diag}(X) as the
    functions "\\operatorname{tr}" etc. (not applied to a group: reported); (X)_k as "(\\cdot)" indexed by k applied
    to X (a map binds "(\\cdot)" to lambda k, x: ...; unmapped: "(\\cdot)_{k}"); \\sum_{i \\in A} X and
    \\sum_{ij}^{M} X (a range left to the reader) as the named operator "\\sum_{i \\in A}" applied to the body (to
    the next top-level + or -); <a, b>_{L_2} and <x>_{L_2} as "\\langle\\cdot,\\cdot\\rangle_{L_2}" and
    "\\langle\\cdot\\rangle_{L_2}"; D(p \\| q) as D(p, q); x^{\\perp} a name; x^T (A + B) a product, never an
    application; \\left| x \\right| an absolute value; an optimum with constraints, \\min_{S} f \\text{ s.t. } g = c,
    as "\\min_{S}\\text{ s.t. }"(f, Eq(g, c), ...) (quantified constraints, \\forall i, and several values on the
    left are reported). A side whose parentheses do not balance says so; a continuation whose previous display is
    only a label ($$\\tag{89}$$) takes the display before that as its lead.

    PARSE_FORMAT 7 (#35) reads: a name with letter subscripts, u_f, N_l, as one Symbol "u_{f}" unless its base is
    declared indexed (NotationMap.indexed, or mapped to an IndexedBase or a callable) or the display sums or
    quantifies over the index (\\sum_{i=1}^n x_i is a Sum of x[i]); a superscript label, W^{21}, \\Sigma^{31} (two or
    more digits, or any superscript of a base in NotationMap.labels) and W^{(2)}, as part of the name, x^{2} a
    power; the operator forms \\frac{d}{dt} X, \\frac{d^2}{dt^2}(X), \\frac{\\partial}{\\partial x}(X) as
    Derivative(X, ...) where X is one group or one symbol ending its product; a one-letter name followed by a group
    as a factor where the display also prints it as a bare value (b(s - a b)) or a thin space separates them
    (b\\,(s - a b)), unless the notation map declares it a function."""
    notation = notation or _NO_NOTATION
    parser = parser or DEFAULT_PARSER
    try:
        return _parse(text, notation, lead, parser)
    except _Fail as f:
        return f.failure
    except RecursionError:
        return ParseFailure("too deeply nested for the parser", "", 0)
    except (TypeError, ValueError, AttributeError) as ex:   # a notation map's object that does not fit the parse
        return ParseFailure(f"the notation map does not apply here ({type(ex).__name__}: {ex})"[:160], "", 0)
    except NotImplementedError as ex:   # SymPy cannot form it, e.g. a scalar of the parse inside a product of matrices
        return ParseFailure(f"SymPy cannot form this expression of the map's matrices ({ex})"[:160], "", 0)


def _parse(text: str, notation: NotationMap, lead: str, parser: str) -> tuple:
    statements = _prepare(text, notation)
    if (lead.strip() and statements and re.match(r"\s*[+\-]", statements[0].s)
            and not any(_top_level(st.s, _REL_RX) for st in statements)):
        # a display that continues the side printed before it ("- 2 d_0^2 ..." after "beta = 2 s_0^2 ..."): the
        # relation it completes
        joined = _prepare(lead + " " + text, notation)
        if joined and _top_level(joined[-1].s, _REL_RX):
            shift = len(lead) + 1
            statements = [_T(st.s, [max(o - shift, 0) for o in st.o]) for st in joined[-1:]]
    if not statements:
        raise _Fail("nothing to parse (only conditions or an empty display)", text[:30], 0)
    names = _Names()
    names.plain = {k for k, v in notation.symbols.items() if isinstance(v, sp.Expr) and not isinstance(v, sp.Indexed)}
    names.matrices = {k for k, v in notation.symbols.items() if _is_matrix(v)}
    names.plain |= names.matrices
    names.indexed = set(notation.indexed) | {k for k, v in notation.symbols.items() if isinstance(v, sp.IndexedBase)}
    names.bound = _bound_indices(text + " " + lead)
    names.labels = set(notation.labels)
    names.declared = set(notation.symbols)
    functions = {k for k, v in notation.symbols.items() if callable(v) and not isinstance(v, sp.Basic)}
    names.values = _bare_letters(text) - functions
    rels: list = []
    for k, st in enumerate(statements):
        ops = _top_level(st.s, _REL_RX)
        terms, last = [], 0
        for m in ops:
            terms.append(st[last:m.start()])
            last = m.end()
        terms.append(st[last:])
        for m in ops:
            if m.group(0) not in _RELATIONS and m.group(0) not in _APPROXIMATE:
                raise _Fail("a relation with no SymPy counterpart", m.group(0), st.at(m.start()))
        if ops and not terms[0].s.strip():
            if k == 0 and lead.strip():
                prev = _prepare(lead, notation)
                if not prev:
                    raise _Fail("a continuation whose previous line does not parse", ops[0].group(0), st.at(0))
                pops = _top_level(prev[-1].s, _REL_RX)
                prev_last = prev[-1][pops[-1].end():] if pops else prev[-1]
                try:
                    left = _back(_parse_term(prev_last, names, parser), names, notation)
                except _Fail as f:
                    raise _Fail(f"a continuation whose left side, the last term printed before it, does not parse "
                                f"({f.failure.reason})", ops[0].group(0), st.at(ops[0].start())) from None
            elif k > 0 and rels:
                left = rels[-1].rhs if isinstance(rels[-1], sp.core.relational.Relational) else rels[-1]
            else:
                raise _Fail("a continuation (the display opens with a relation) with no left side printed before it",
                            ops[0].group(0), st.at(ops[0].start()))
            values = [left] + [_back(_parse_term(x, names, parser), names, notation) for x in terms[1:]]
        else:
            values = [_back(_parse_term(x, names, parser), names, notation) for x in terms]
        if not ops:
            rels.append(values[0])
            continue
        for m, a, b in zip(ops, values, values[1:]):
            rels.append(relation(a, b, _RELATIONS.get(m.group(0)) or _APPROXIMATE[m.group(0)]))
    return tuple(rels)


_CONTINUED = re.compile(r"^(?:\s|\\(?:hskip|kern|hspace\*?)\s*\{?-?[\d.]+\s*(?:pt|em|mu|ex)?\}?|\\q?quad|&)*"
                        r"(\\cdot|\\times|\+)")


def cut_sides(items: Sequence[Printed]) -> dict[str, ParseFailure]:
    r"""Displays whose last side the next display continues (it opens with \cdot, \times or +, as adaptive-tangent's
    (18) continues (17)): label -> the reason. Such a display's own parse would be a side cut short, so it is
    reported, never compared as if complete."""
    displays = [p for p in items if p.kind == "display" and p.text]
    out = {}
    for p, nxt in zip(displays, displays[1:]):
        m = _CONTINUED.match(nxt.text)
        if m:
            out[p.label] = ParseFailure(f"a side cut across displays: the next display {nxt.label} continues it",
                                        m.group(1), len(p.text))
    return out


def parse_printed(printed: Iterable[Printed], notation: NotationMap | None = None, *,
                  parser: str | None = None) -> Printout:
    """The Printed records with `relations` filled: each display parsed (a tuple of relations or a ParseFailure);
    statements unchanged; a display the next one continues (`cut_sides`) is reported. Keeps a Printout's warnings and
    refs."""
    items = list(printed)
    cut = cut_sides(items)
    out = [replace(p, relations=cut.get(p.label) or parse_display(p.text, notation, lead=p.lead, parser=parser))
           if p.kind == "display" and p.text else (replace(p, relations=ParseFailure("no printed display", p.label, 0))
                                                   if p.kind == "display" else p) for p in items]
    return Printout(out, warnings=getattr(printed, "warnings", ()), refs=getattr(printed, "refs", {}),
                    fmt=getattr(printed, "fmt", "md"))


def parse_report(printed: Iterable[Printed], notation: NotationMap | None = None, *, parser: str | None = None,
                 top: int = 3) -> dict:
    """How much of a paper's printed displays parse: {"displays": n, "parsed": k, "share": k/n, "reasons":
    [(reason, count), ...] most common first (at most `top`), "failures": {label: str(ParseFailure)}}. Displays
    already parsed (relations set) are not parsed again; labels on no display count as failures."""
    items = [p for p in printed if p.kind == "display"]
    if any(p.relations is None for p in items):
        items = [p for p in parse_printed(items, notation, parser=parser)]
    failures = {p.label: p.relations for p in items if isinstance(p.relations, ParseFailure)}
    n = len(items)
    return {"displays": n, "parsed": n - len(failures), "share": (n - len(failures)) / n if n else 0.0,
            "reasons": Counter(f.reason for f in failures.values()).most_common(top),
            "failures": {k: str(v) for k, v in failures.items()}}
