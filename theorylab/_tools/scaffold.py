"""`theorylab new NAME [DIR]`: an installable paper package that passes its own checks, to edit into your paper.

The package registers through the `theorylab.papers` entry point (theorylab is not touched) and holds one entry with
its stable form, a derivation with checked steps and one erratum, a Monte Carlo check, a figure and a test file that
runs theorylab's contract suite.
"""
from __future__ import annotations

import importlib.util
import keyword
import re
from pathlib import Path

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from .._pipeline import catalogue
from .._records.params import DomainError

__all__ = ["scaffold", "scaffold_from_source", "check_name", "module_name", "draft_code"]

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def module_name(name: str) -> str:
    """The Python package (and family) name of a paper name: '-' becomes '_'."""
    return name.replace("-", "_")


def check_name(name: str) -> str:
    """The paper name if it can name a new paper package; else DomainError in one line saying why.

    Arguments: name: lower-case letters, digits, '-' or '_', starting with a letter; its package name (with '_' for
    '-') must not be a Python keyword, an importable module, or a registered paper or family.
    Returns: the name. Example: `check_name("ridge-bias")` returns "ridge-bias" (package ridge_bias)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise DomainError(f"NAME must be lower-case letters, digits, '-' or '_', starting with a letter; got "
                          f"NAME={name!r}")
    module = module_name(name)
    if keyword.iskeyword(module):
        raise DomainError(f"NAME must not be a Python keyword (it names the package {module}); got NAME={name!r}")
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = True
    if found:
        raise DomainError(f"NAME must not be an importable module (the package {module} would shadow it or be "
                          f"shadowed); got NAME={name!r}")
    taken = {p.name for p in catalogue.papers()} | {f.name for p in catalogue.papers() for f in p.families}
    if name in taken or module in taken:
        raise DomainError(f"NAME must not be a registered paper or family (see `theorylab list`); got NAME={name!r}")
    return name


def scaffold(name: str, folder: str | Path | None = None) -> list[Path]:
    """Write a new paper package named `name` into `folder` (default: ./NAME), which must be absent or empty.

    Arguments: name: the paper's name (see `check_name`); folder: where to write it.
    Returns: the files written, in order.
    Example: `scaffold("ridge-bias", "/tmp/ridge-bias")`, then `pip install -e /tmp/ridge-bias` and
    `theorylab verify ridge-bias`."""
    check_name(name)
    target = Path(folder if folder is not None else name).expanduser()
    if target.exists() and not target.is_dir():
        raise DomainError(f"DIR must be a new or empty folder; got DIR={str(target)!r} (a file)")
    if target.is_dir() and any(target.iterdir()):
        raise DomainError(f"DIR must be a new or empty folder (nothing is overwritten); got DIR={str(target)!r}, "
                          f"which is not empty")
    module = module_name(name)
    files = {
        "pyproject.toml": _PYPROJECT,
        "README.md": _README,
        f"{module}/__init__.py": _INIT,
        f"{module}/entries.py": _ENTRIES,
        f"{module}/checks.py": _CHECKS,
        f"{module}/figures.py": _FIGURES,
        f"{module}/paper.md": _PAPER_MD,
        f"tests/test_{module}.py": _TEST,
    }
    written = []
    for rel, template in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.replace("__NAME__", name).replace("__MODULE__", module))
        written.append(path)
    return written


def _target(folder: str | Path) -> Path:
    target = Path(folder).expanduser()
    if target.exists() and not target.is_dir():
        raise DomainError(f"DIR must be a new or empty folder; got DIR={str(target)!r} (a file)")
    if target.is_dir() and any(target.iterdir()):
        raise DomainError(f"DIR must be a new or empty folder (nothing is overwritten); got DIR={str(target)!r}, "
                          f"which is not empty")
    return target


# -- from the paper's own source (#24 item 4) -------------------------------------------------------------------------

_SOURCE_SUFFIXES = (".tex", ".md", ".markdown", ".txt")


def _identifier(name: str, taken: set[str]) -> str:
    r"""A Python identifier for a printed name ("\gamma" -> gamma, "w^{(1)}" -> w_1, "\tilde{r}" -> r_tilde)."""
    n = re.sub(r"\\(tilde|hat|bar|dot|ddot|check|breve|vec)\{([^{}]*)\}", r"\2_\1", name)
    n = re.sub(r"\\(?:mathcal|mathbb|mathfrak|mathscr|mathsf|mathrm|mathit|text|operatorname)\{([^{}]*)\}", r"\1",
               n)
    n = n.replace("\\|\\cdot\\|", "norm").replace("\\langle\\cdot,\\cdot\\rangle", "inner")
    n = n.replace("(\\cdot)_{+}", "relu").replace("'", "_prime").replace("*", "star")
    n = re.sub(r"[^0-9A-Za-z_]+", "_", n).strip("_") or "x"
    if n[0].isdigit():
        n = "x_" + n
    base, k = n, 1
    while n in taken or keyword.iskeyword(n) or n in ("sp", "Step", "Derivation", "SOURCE", "DERIVATIONS", "ENTRIES",
                                                      "AS_PRINTED", "_printed"):
        k += 1
        n = f"{base}_{k}"
    taken.add(n)
    return n


def draft_code(relations, names: dict | None = None) -> tuple[list[tuple[str, str, str]], dict]:
    """Python source for the sides of parsed relations, in this module's symbols: ([(lhs, op, rhs)], declarations)
    where declarations maps each SymPy object (Symbol, Function, IndexedBase) to (identifier, its declaration). Each
    side's code is checked: evaluated back, it is the parsed side in the declared symbols (else it is written as
    SymPy's srepr, which is exact)."""
    from .._pipeline.fidelity import _normal  # lazy: fidelity costs ~0.2 s; only `new --from SOURCE` drafts steps

    names = {} if names is None else names
    taken = {v[0] for v in names.values()}

    def declare(obj) -> str:
        if obj not in names:
            if isinstance(obj, sp.IndexedBase):
                ident = _identifier(str(obj.label), taken)
                names[obj] = (ident, f"{ident} = sp.IndexedBase({str(obj.label)!r})")
            elif isinstance(obj, sp.Symbol):
                ident = _identifier(obj.name, taken)
                names[obj] = (ident, f"{ident} = sp.Symbol({_normal(obj.name)!r}, real=True)")
            else:                                               # an undefined function class
                ident = _identifier(obj.__name__, taken)
                names[obj] = (ident, f"{ident} = sp.Function({obj.__name__!r})")
        return names[obj][0]

    class Code(StrPrinter):
        printmethod = "_theorylab_code"  # never an object's own _sympystr (Indexed prints its label that way)

        def _print_Symbol(self, e):
            return declare(e)

        def _print_IndexedBase(self, e):
            return declare(e)

        def _print_Indexed(self, e):
            return f"{declare(e.base)}[{', '.join(self._print(i) for i in e.indices)}]"

        def _print_Function(self, e):
            head = declare(e.func) if isinstance(e, AppliedUndef) else "sp." + type(e).__name__
            return f"{head}({', '.join(self._print(a) for a in e.args)})"

        def _generic(self, e):
            return f"sp.{type(e).__name__}({', '.join(self._print(a) for a in e.args)})"

        _print_Integral = _print_Sum = _print_Product = _print_Derivative = _print_Subs = _generic

        def _print_Limit(self, e):
            f, z, z0, d = e.args
            return f"sp.Limit({self._print(f)}, {self._print(z)}, {self._print(z0)}, dir={str(d)!r})"
        _print_Abs = _print_Max = _print_Min = _generic

        def _print_Tuple(self, e):
            return "(" + ", ".join(self._print(a) for a in e.args) + ("," if len(e.args) == 1 else "") + ")"

        def _print_Piecewise(self, e):
            return "sp.Piecewise(" + ", ".join(f"({self._print(a)}, {self._print(c)})" for a, c in e.args) + ")"

        def _print_Pow(self, e, rational=False):
            b, x = e.args
            if x == sp.S.Half:
                return f"sp.sqrt({self._print(b)})"
            return (f"{self.parenthesize(b, PRECEDENCE['Pow'], strict=True)}**"
                    f"{self.parenthesize(x, PRECEDENCE['Pow'], strict=True)}")

        def _print_Rational(self, e):
            return f"sp.Rational({e.p}, {e.q})"

        _print_Half = _print_Rational

        def _print_Integer(self, e):
            return str(e.p)  # SymPy arithmetic keeps it exact; the check below catches a side of integers alone

        def _print_Float(self, e):
            return f"sp.Float({str(e)!r})"

        def _print_Exp1(self, e):
            return "sp.E"

        def _print_Pi(self, e):
            return "sp.pi"

        def _print_ImaginaryUnit(self, e):
            return "sp.I"

        def _print_Infinity(self, e):
            return "sp.oo"

        def _print_NegativeInfinity(self, e):
            return "-sp.oo"

        def _print_BooleanTrue(self, e):
            return "sp.true"

        def _print_Relational(self, e):
            return f"sp.Rel({self._print(e.lhs)}, {self._print(e.rhs)}, {e.rel_op!r})"

        def _print_And(self, e):
            return "sp.And(" + ", ".join(self._print(a) for a in e.args) + ")"

    def code(x) -> str:
        text = Code().doprint(x)
        labels = {b.label for b in x.atoms(sp.IndexedBase)}
        declared = {k: sp.Symbol(_normal(k.name), real=True) for k in names
                    if isinstance(k, sp.Symbol) and k not in labels}
        ns = {"sp": sp, **{v[0]: declared.get(k, k) for k, v in names.items()}}
        try:
            back = sp.sympify(eval(text, ns))  # noqa: S307 - our own printer's output, checked against the parse
            if back == x.xreplace(declared):
                return text
        except Exception:  # noqa: BLE001 - printed differently: the exact srepr below
            pass
        return f"_printed({sp.srepr(x.xreplace(declared))!r})"

    out = []
    for r in relations:
        if isinstance(r, sp.core.relational.Relational) and r.rel_op in ("==", "<=", "<", ">=", ">"):
            out.append((code(r.lhs), r.rel_op, code(r.rhs)))
    return out, names


def _readable_whole(src: Path, text: str, printout) -> None:
    """DomainError in one line where the source cannot be read whole (issue #35: a .tex with an unterminated
    environment and unbalanced braces, or with no labelled display, scaffolded with exit 0 and an empty label list):
    an environment or display never ended, braces that do not balance (outside comments, escaped braces aside), or
    not one labelled display or numbered statement."""
    ended = [w for w in getattr(printout, "warnings", ()) if "never ended" in w.message]
    if ended:
        w = ended[0]
        raise DomainError(f"--from: {src.name} cannot be read whole: {w.construct} at line {w.line} {w.message}")
    if src.suffix.lower() == ".tex":
        depth = 0
        for number, line in enumerate(text.splitlines(), 1):
            line = re.sub(r"(?<!\\)%.*", "", line).replace("\\{", "").replace("\\}", "")
            for ch in line:
                depth += (ch == "{") - (ch == "}")
                if depth < 0:
                    raise DomainError(f"--from: {src.name} cannot be read whole: a '}}' at line {number} closes no "
                                      f"brace")
        if depth:
            raise DomainError(f"--from: {src.name} cannot be read whole: {depth} brace(s) opened and never closed")
    if not len(printout):
        raise DomainError(f"--from: {src.name} has no labelled display or numbered statement (\\label in an equation "
                          f"or align, \\tag, (k) after a $$ display): nothing to scaffold")


def scaffold_from_source(name: str, source: str | Path, folder: str | Path | None = None) -> list[Path]:
    """A paper package from the paper's own .tex or .md source, its coverage pre-filled.

    Writes, into `folder` (default ./NAME; absent or empty): the source copied into the package and named by its
    Paper's `source_file`; `coverage.py` listing every label with its printed text (an Account to fill for each label
    no step will cite); `entries.py` with one derivation of draft steps, one per printed relation of each display that
    parses (Step(draft=True): check reports them as drafts, never as checked; edit each into the paper's derivation);
    a pyproject.toml registering the paper and a test file running the contract suite.
    Returns the files written. DomainError in one line for a bad name, folder or source."""
    # lazy: fidelity and the source parser cost ~0.3 s of start-up that a plain `theorylab new NAME` skips
    from .._pipeline import fidelity
    from .._sources import sources

    check_name(name)
    src = Path(source).expanduser()
    if not src.is_file() or src.suffix.lower() not in _SOURCE_SUFFIXES:
        raise DomainError(f"--from must be an existing .tex or .md file (the paper's source); got {str(source)!r}")
    target = _target(folder if folder is not None else name)
    module = module_name(name)
    text = src.read_text(encoding="utf-8")
    printout = sources.read_source(src)
    _readable_whole(src, text, printout)
    items = fidelity.parsed_printout(printout)
    copy_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", src.name)
    names: dict = {}
    steps, table, entries = [], [], []
    for p in items:
        printed = " ".join(p.text.split())
        shown = printed if len(printed) <= 160 else printed[:157] + "..."
        if p.kind != "display":
            table.append((p.label, "a numbered statement", shown))
            continue
        if isinstance(p.relations, sources.ParseFailure):
            table.append((p.label, f"not parsed: {p.relations}", shown))
            continue
        rels, names = draft_code(p.relations, names)
        entries += _proposed_entries(p, names, module, {e[0] for e in entries})
        if not rels:
            table.append((p.label, "parsed, states no relation", shown))
            continue
        table.append((p.label, f"{len(rels)} draft step(s) in entries.py", shown))
        for k, (lhs, op, rhs) in enumerate(rels, 1):
            if lhs == rhs:
                continue
            label = f"{p.label} as printed" + (f" [{k}]" if len(rels) > 1 else "") + " (draft)"
            steps.append(f"        Step(label={label!r},\n             lhs={lhs},\n             rhs={rhs}, "
                         f"relation={op!r},\n             cites=({p.label!r},), fidelity=AS_PRINTED, draft=True,\n"
                         f"             why=\"TODO: the paper's derivation of {p.label}, then drop draft=True\"),")
    decls = "\n".join(v[1] for v in names.values()) or "# (no display parsed: declare your symbols here)"
    claims = _candidate_claims(text, items)
    accounts = []
    for label, state, shown in table:
        accounts.append(f"    # {label} [{state}]: {shown}")
        if "draft" not in state:
            accounts.append(f"    # Account({label!r}, \"definition\", \"TODO: why no step checks it\"),")
    subs = {"__NAME__": name, "__MODULE__": module, "__SOURCE__": copy_name, "__TITLE__": src.stem,
            "__SYMBOLS__": decls, "__STEPS__": "\n".join(steps) or "        # no display parsed into a relation",
            "__ACCOUNTS__": "\n".join(accounts), "__COUNT__": str(len(items)),
            "__DRAFTS__": str(len(steps)), "__CLAIMS__": "\n".join(claims[1]), "__NCLAIMS__": str(claims[0]),
            "__ENTRIES__": "\n".join(code for _, code in entries) + ("\n" if entries else ""),
            "__ENTRY_LIST__": ("(" + ", ".join(f"{name.upper()}_ENTRY" for name, _ in entries) + ",)") if entries
            else "()"}
    files = {
        "pyproject.toml": _PYPROJECT + _PACKAGE_DATA,
        "README.md": _FROM_README,
        f"{module}/__init__.py": _FROM_INIT,
        f"{module}/entries.py": _FROM_ENTRIES,
        f"{module}/coverage.py": _FROM_COVERAGE,
        f"tests/test_{module}.py": _FROM_TEST,
    }
    written = []
    for rel, template in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for k, v in subs.items():
            template = template.replace(k, v)
        path.write_text(template)
        written.append(path)
    copy = target / module / copy_name
    copy.write_text(text, encoding="utf-8")
    written.insert(3, copy)
    return written


def _candidate_claims(text: str, items) -> tuple[int, list[str]]:
    """(count, comment lines) of the claims the paper makes that no display holds (#35 item 4): its numbered
    statements (theorem, lemma, proposition, corollary, claim and every \\newtheorem environment, as the source reader
    numbers them) and the sentences of its prose that assert ('we show', 'it follows', 'therefore', 'for every', 'is
    bounded', 'converges', 'holds': theorylab._sources.prose.CLAIM_CUES), each with a commented step that cites it
    (by label, or by a quoted fragment found once in the source). Comments only: nothing here is checked or counted."""
    from .._sources import prose  # lazy: only `new --from SOURCE` proposes claims

    lines, count = [], 0
    statements = [p for p in items if p.kind == "statement"]
    for p in statements:
        count += 1
        shown = " ".join(p.text.split())
        lines.append(f"# {p.label} (line {p.line}): {shown[:300]}")
        lines.append(f"#     Step({(p.label + ' as printed')!r}, lhs=..., rhs=..., cites=({p.label!r},), "
                     "fidelity=AS_PRINTED),")
    # a sentence of a numbered statement is proposed above, by its label
    for s, cue in prose.candidate_claims(text, skip=tuple(p.text for p in statements)):
        count += 1
        fragment = s.trimmed(160).removesuffix(" …")
        try:
            unique = prose.find_quote(text, fragment).start == s.start
        except prose.QuoteError:
            unique = False
        lines.append(f"# {s.where} [{cue}]: {s.trimmed(300)}")
        lines.append(f"#     Step(\"...\", lhs=..., rhs=..., quotes=({fragment!r},), fidelity=AS_PRINTED),"
                     if unique else "#     (its text occurs twice in the source: quote more of it, or its neighbour)")
    return count, lines or ["# (none found)"]


def _proposed_entries(item, names: dict, module: str, taken: set[str]) -> list[tuple[str, str]]:
    """Entries proposed from a display that defines a function, `u_f(t) = <closed form>`: [(name, code)], the
    entry's parameters being the function's arguments, then the other symbols of the closed form (each a scalar with
    a placeholder domain to replace by the paper's). Its kernels come with it; its draft step stays beside it."""
    out = []
    for r in item.relations:
        if not (isinstance(r, sp.Equality) and isinstance(r.lhs, AppliedUndef) and r.lhs.func in names
                and r.lhs.args and all(isinstance(a, sp.Symbol) for a in r.lhs.args)
                and not r.rhs.atoms(AppliedUndef) and r.rhs.free_symbols and not r.rhs.atoms(sp.Indexed)):
            continue
        fname = names[r.lhs.func][0]
        if fname in taken or any(n == fname for n, _ in out):
            continue
        args = list(r.lhs.args)
        params = args + sorted(r.rhs.free_symbols - set(args), key=lambda x: x.name)
        if not all(sym in names for sym in params):
            continue
        idents = [names[sym][0] for sym in params]
        rhs_code = draft_code([r], names)[0][0][2]
        decl = [f"# {item.label}: {fname}({', '.join(idents[:len(args)])}) as printed (proposed by theorylab new "
                f"--from; TODO: the domains, the docs, a stable form and an independent reference)"]
        for sym, ident in zip(params, idents):
            decl.append(f"P_{fname}_{ident} = scalar({ident!r}, \"TODO: {ident} in the paper's words\", low=0.5, "
                        f"high=2.0, tex={sp.latex(sym)!r})  # TODO: the paper's domain (a placeholder)")
        mapping = ", ".join(f"{ident}: P_{fname}_{ident}.symbol" for ident in idents)
        decl.append(f"{fname.upper()}_ENTRY = Entry(\n    id=\"{module}.{fname}\", title={f'{sp.latex(r.lhs)} as printed in {item.label}'!r},"
                    f"\n    source=Source(SOURCE, {item.label!r}), doc=\"TODO: what it is\",\n    params=("
                    + ", ".join(f"P_{fname}_{ident}" for ident in idents) + ",),"
                    f"\n    lhs={sp.latex(r.lhs)!r},\n    formula=({rhs_code}).xreplace({{{mapping}}}))\n")
        out.append((fname, "\n".join(decl)))
    return out


_PACKAGE_DATA = '''
[tool.setuptools.package-data]
__MODULE__ = ["__SOURCE__"]
'''

_FROM_README = '''\
# __NAME__

A paper for theorylab, scaffolded from its source `__SOURCE__` (`theorylab new __NAME__ --from __SOURCE__`): the
source is part of the package (`source_file` of its Paper), `__MODULE__/coverage.py` lists its __COUNT__ labels with
their printed text, and `__MODULE__/entries.py` holds __DRAFTS__ draft steps, the relations of the displays that
parse, each citing its label. A draft is reported by `theorylab check` as a draft, never as checked: turn each into the
paper's derivation (the steps from its premises to the printed relation), then drop `draft=True`. At the end of
`entries.py`, __NCLAIMS__ candidate claims (comments, never checked): the numbered statements and the sentences of the
prose that assert, each with a step to write that cites it by label or by a quoted fragment (`quotes=`).

```bash
pip install -e .                    # registers the paper (entry point group theorylab.papers)
theorylab check __NAME__            # the drafts, and every label beside its citing steps, compared by machine
theorylab coverage __NAME__ -v      # every label: the printed text, what checks it, what is still missing
pytest                              # the contract suite
```
'''

_FROM_INIT = '''\
"""__NAME__: the paper's declaration, scaffolded from its source __SOURCE__ (theorylab new --from)."""
from theorylab.authoring import Family, Paper
from theorylab.authoring import NotationMap

# How the source's LaTeX maps to the SymPy symbols of your steps: rewrites of macros and printed sub-expressions, and
# names -> SymPy objects (symbols unify by name already: a parsed \\gamma is your Symbol("gamma")). See
# theorylab.authoring.NotationMap.
NOTATION = NotationMap(rewrites=(), symbols={})

PAPER = Paper(
    name="__NAME__",
    title="__TITLE__",
    source="__SOURCE__",
    source_file="__SOURCE__",
    families=(Family(name="__MODULE__", entries="__MODULE__.entries", doc="the paper's results"),),
    coverage="__MODULE__.coverage",
    notation=NOTATION,
)
'''

_FROM_ENTRIES = '''\
"""__NAME__'s entries and derivations. Scaffolded from __SOURCE__: one draft step per printed relation of each display
that parses (the printed relation as both the paper's statement and a TODO for its derivation). `theorylab check`
reports a draft as a draft, never as checked. Make each draft the last step of the paper's derivation of it (the steps
from its premises, each checked), drop `draft=True`. A display that defines a function (u_f(t) = ...) is proposed as
an entry below: give its parameters the paper's domains, its docs, a stable form and an independent reference."""
import sympy as sp

from theorylab.authoring import Derivation, Entry, Source, Step, scalar  # noqa: F401 - Entry: the proposed ones
from theorylab.authoring import AS_PRINTED

SOURCE = "__SOURCE__"


def _printed(text):
    """A printed side written as SymPy's srepr (where plain code would not reproduce the parse), in these symbols."""
    return sp.sympify(text).xreplace({s: sp.Symbol(s.name, real=True) for s in sp.sympify(text).free_symbols
                                      if isinstance(s, sp.Symbol)})


__SYMBOLS__

__ENTRIES__
ENTRIES = __ENTRY_LIST__

DERIVATIONS = (Derivation(
    key="__MODULE__.drafts",
    title="The paper's displays as printed (drafts, not derived yet)",
    source=SOURCE,
    where="every display that parses",
    entries=(),
    steps=(
__STEPS__
    ),
),)

# Candidate claims (__NCLAIMS__): the paper's numbered statements and the sentences of its prose that assert (we show,
# it follows, therefore, for every, is bounded, converges, holds), found in __SOURCE__ by theorylab new --from. None
# is checked or counted: to check one, write the steps of its argument into a derivation above, the last one citing
# it by its label (cites=) or by a fragment of its sentence (quotes=: found once in the source, markup and case
# aside); `theorylab coverage __NAME__` then lists it with its verdict. Delete the ones that claim nothing.
__CLAIMS__
'''

_FROM_COVERAGE = '''\
"""__NAME__'s coverage: every label of __SOURCE__ (the paper's source, read by theorylab), with its printed text and
what the scaffold made of it. A label no step cites needs an Account here: a definition, or not checkable (why);
`theorylab coverage __NAME__ -v` shows each label's printed text beside what checks it."""
from theorylab.authoring import Account  # noqa: F401

ACCOUNTS = (
__ACCOUNTS__
)
'''

_FROM_TEST = '''\
"""__NAME__'s tests: theorylab's contract suite (the drafts are reported as drafts, never as checked)."""
from theorylab.testing import contract_tests

TestContract = contract_tests("__NAME__", cli=False)
'''


# -- templates: __NAME__ is the paper's name, __MODULE__ its package (and family) name --------------------------------
_PYPROJECT = '''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "__NAME__"
version = "0.1.0"
description = "__NAME__: a paper's closed forms, derivations and evidence for theorylab"
requires-python = ">=3.11"
dependencies = ["theorylab"]

# This is how theorylab finds the paper: a module exposing PAPER (or PAPERS), registered in this group.
[project.entry-points."theorylab.papers"]
__NAME__ = "__MODULE__"

[tool.setuptools]
packages = ["__MODULE__"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

_README = '''\
# __NAME__

A paper for theorylab: its closed form as the paper writes it and a float64-stable equal
form (`__MODULE__/entries.py`), the paper's derivation with every step machine-checked and one erratum
(`__MODULE__/entries.py`), Monte Carlo evidence with standard errors (`__MODULE__/checks.py`), a figure
(`__MODULE__/figures.py`), and the contract tests (`tests/test___MODULE__.py`).

The example result is the moment generating function of the uniform distribution on [0, 1],
M(t) = E[exp(t U)] = (e^t - 1)/t (eq. (2) of the example), whose eq. (3) claims M(t) <= e^{t/2}: the engine refutes
that at t = 1 (Jensen's inequality goes the other way), so it is recorded as an erratum. Replace it with your paper.

## Commands

```bash
pip install -e .                                    # registers the paper (entry point group theorylab.papers)
theorylab list                                      # the paper and its entry IDs
theorylab check __NAME__                            # every derivation step: proved, certified, searched or refuted
theorylab verify __NAME__ --json ev.json            # derivations + evidence, a typed JSON record
theorylab latex __NAME__ -o paper.tex               # LaTeX of every closed form, with the errata
theorylab report --evidence ev.json -o out/         # offline HTML report with the figure
pytest                                              # the contract suite (theorylab.testing) and your own tests
```

## Making it yours

- `__MODULE__/entries.py`: declare parameters with their domains (`scalar("t", low=..., high=..., exclude=...)`),
  the formula exactly as the paper writes it, a stable form for float64, and an independent reference (a different
  route to the same number: quadrature, the defining optimization, a series) whose docstring names the route.
  Derivation steps state `lhs <relation> rhs`; a step the paper gets wrong carries an `Erratum` with the
  counterexample `at=` where the engine must refute it.
- `__MODULE__/checks.py`: evidence compares a prediction with an independent observation, with a stated tolerance
  (`compare_mc`: k standard errors of a Monte Carlo mean; `compare`: an a-priori error bound). Size it with
  `ctx.pick(quick=..., paper=...)`.
- `__MODULE__/figures.py`: figures read the evidence records tagged with a `Series`.
- After each change, plant a mistake (multiply the formula by 1.01) and watch `pytest` and `theorylab verify` fail.
'''

_INIT = '''\
"""__NAME__: the paper's declaration, which theorylab imports to register it (cheap: entries, checks and figures are
imported only when a command needs them)."""
from theorylab.authoring import Family, Paper

PAPER = Paper(
    name="__NAME__",
    title="The moment generating function of the uniform distribution (an example paper)",
    source="__NAME__.pdf",
    families=(Family(name="__MODULE__", entries="__MODULE__.entries", checks="__MODULE__.checks",
                     doc="M(t) = E[exp(t U)] for U uniform on [0, 1]"),),
    figures=("__MODULE__.figures",),
    source_file="paper.md",  # the printed page: `theorylab coverage` shows each label beside the steps citing it
)
'''

_PAPER_MD = r'''# The moment generating function of the uniform distribution (an example paper)

Replace this file with your paper's source (Markdown with labelled displays, or a .tex file): it is the ground
truth that every step citing a label is compared with.

Let $U$ be uniform on $[0, 1]$. Its moment generating function is

$$M(t) = \mathbb{E}\left[e^{tU}\right] = \int_0^1 e^{tu}\,du \tag{1}$$

which evaluates, for $t \neq 0$, to

$$M(t) = \frac{e^t - 1}{t}. \tag{2}$$

Since $e^{tu}$ is convex in $u$, we obtain the bound

$$M(t) \le e^{t/2}. \tag{3}$$
'''

_ENTRIES = '''\
"""__NAME__'s entries and derivations: M(t) = E[exp(t U)], U uniform on [0, 1], as eq. (2) writes it, its
float64-stable form, and the paper's steps, of which eq. (3) is an erratum."""
import mpmath
import numpy as np
import sympy as sp

from theorylab.authoring import Amendment, Derivation, Entry, Erratum, Source, Step, scalar

SOURCE = "__NAME__.pdf"  # the file (or citation) the results are transcribed from

T = scalar("t", "the argument of the moment generating function", low=-100, high=100,
           exclude=(0,), exclude_why="eq. (2) is 0/0 there (its limit is 1)")
t = T.symbol
u = sp.Symbol("u", real=True)

FORMULA = (sp.exp(t) - 1) / t  # eq. (2) as the paper writes it: loses all digits near t = 0 in float64
STABLE = 2 * sp.exp(t / 2) * sp.sinh(t / 2) / t  # e^t - 1 = 2 e^(t/2) sinh(t/2): no cancellation


def reference(t):
    """Route: the defining integral, the mean of exp(t u) over u in [0, 1], by mpmath tanh-sinh quadrature at 40
    digits (never the closed form)."""
    def one(x):
        with mpmath.workdps(40):
            return float(mpmath.quad(lambda v: mpmath.exp(x * v), [0, 1]))

    out = np.array([one(float(x)) for x in np.ravel(t)]).reshape(np.shape(t))
    return float(out) if out.ndim == 0 else out


MGF = Entry(
    id="__MODULE__.mgf",
    title="Moment generating function of the uniform distribution on [0, 1]",
    source=Source(SOURCE, "eq (2)"),
    doc="M(t) = E[exp(t U)] for U uniform on [0, 1]. Evaluated through 2 e^(t/2) sinh(t/2) / t, accurate to a few "
        "ulps for every t, where (e^t - 1)/t loses all its digits as t -> 0.",
    params=(T,),
    lhs="M(t)",
    formula=FORMULA,
    stable_form=STABLE,
    reference=reference,
    examples=({"t": 1e-12}, {"t": -100.0}, {"t": 100.0}),  # hard inputs, always tested
)
ENTRIES = (MGF,)

# The ledger: what the paper prints that fails (an Erratum, with its severity on the fixed scale typo < proof-gap <
# missing-hypothesis < wrong-constant < wrong-value < false-statement), and what theorylab checks instead (an
# Amendment naming the erratum as its root, so the ledger counts one root). See "Errata, amendments, findings and
# notes" in theorylab's docs/authoring.md.
ERRATUM_3 = Erratum(key="__NAME__-eq3", source=SOURCE, where="eq (3)", severity="false-statement",
                    says="M(t) <= exp(t/2)",
                    truth="M(t) >= exp(t/2) (Jensen's inequality: exp(t u) is convex in u, E[U] = 1/2)",
                    at={"t": 1})
JENSEN = Amendment(key="__NAME__-eq3-jensen", kind="statement replaced", severity="false-statement",
                   root=ERRATUM_3.key, what="the direction of (3) reversed: M(t) >= exp(t/2)",
                   why="Jensen's inequality for the convex exp(t u) and E[U] = 1/2")

DERIVATIONS = (Derivation(
    key="__MODULE__.mgf",
    title="M(t) from its definition, and the paper's bound",
    source=SOURCE,
    where="eqs (1)-(3)",
    entries=(MGF.id,),
    steps=(
        Step("(1)-(2): M(t) is the integral of exp(t u) over [0, 1]", lhs=sp.Integral(sp.exp(t * u), (u, 0, 1)),
             rhs=FORMULA, why="integrate exp(t u) from 0 to 1", cites=("(1)", "(2)"), fidelity="as printed"),
        Step("the stable form equals (2)", lhs=STABLE, rhs=FORMULA, why="2 e^(t/2) sinh(t/2) = e^t - 1"),
        # the paper's (3) exactly as printed: it fails, so it is an erratum, with its counterexample and severity
        Step("the paper's (3): M(t) <= exp(t/2)", lhs=FORMULA, rhs=sp.exp(t / 2), relation="<=",
             cites=("(3)",), erratum=ERRATUM_3),
        # what holds instead, checked beside the printed (3) and declared as an amendment of it (never in its
        # place): certified by interval arithmetic on boxes either side of t = 0, where eq. (2) is 0/0
        Step("Jensen: M(t) >= exp(t/2) on [1/2, 20]", lhs=FORMULA, rhs=sp.exp(t / 2), relation=">=",
             domain={t: (0.5, 20.0)}, why="exp(t u) is convex in u and E[U] = 1/2", cites=("(3)",),
             fidelity=JENSEN),
        Step("Jensen: M(t) >= exp(t/2) on [-20, -1/2]", lhs=FORMULA, rhs=sp.exp(t / 2), relation=">=",
             domain={t: (-20.0, -0.5)}, why="exp(t u) is convex in u and E[U] = 1/2", cites=("(3)",),
             fidelity=JENSEN),
    ),
),)
'''

_CHECKS = '''\
"""__NAME__'s evidence: M(t) against Monte Carlo means of exp(t U), U uniform on [0, 1], within 4 standard
errors (imported only by `theorylab verify`)."""
import numpy as np

from theorylab.authoring import Check, Series, compare_mc, estimate

from .entries import MGF

MONTE_CARLO = Series("__NAME__-monte-carlo")  # the records the figure draws
POINTS = (-2.0, -0.5, 0.5, 1.0, 2.0)


def _monte_carlo(ctx):
    draws = ctx.pick(quick=20_000, paper=2_000_000)
    records = []
    for t in POINTS:
        est = estimate(lambda rng, size: np.exp(t * rng.random(size)), draws, seed=ctx.seed, key=("mgf", t))
        records.append(compare_mc(MGF.id, f"Monte Carlo mean of exp(t U) at t = {t:g}", MGF(t=t), est.mean,
                                  est.stderr, est.samples, k=4.0, extra=MONTE_CARLO.tag(t=t)))
    return records


CHECKS = (Check(name="Monte Carlo mean of exp(t U)", entries=(MGF.id,), kind="monte-carlo", run=_monte_carlo,
                doc="the sample mean of exp(t U) over independent uniform draws, with its standard error"),)
'''

_FIGURES = '''\
"""__NAME__'s figure: M(t), the paper's bound (3) and the Monte Carlo means (imported only by `theorylab report`)."""
import numpy as np

from theorylab.authoring import Figure, legend, pyplot

from .checks import MONTE_CARLO
from .entries import MGF


def _draw(data):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.0))
    t = np.linspace(-2.5, 2.5, 200)  # an even count: 0, the excluded point, is not on the grid
    ax.plot(t, MGF(t=t), label="M(t), eq. (2)")
    ax.plot(t, np.exp(t / 2), "--", label="exp(t/2): the bound (3), an erratum")
    points = data.points(MONTE_CARLO)
    if points:
        ax.errorbar([p["extra"]["t"] for p in points], [p["observed"] for p in points],
                    yerr=[4 * p["stderr"] for p in points], fmt="o", ms=3, label="Monte Carlo, 4 SE")
    ax.set_xlabel("t")
    legend(ax)
    fig.tight_layout()
    return fig


FIGURES = (Figure(family="__MODULE__", name="__NAME__-mgf", draw=_draw, draws=(MONTE_CARLO,),
                  caption="M(t) = E[exp(t U)] with Monte Carlo means (4 standard errors) and the paper's bound (3), "
                          "which fails: M(t) >= exp(t/2) by Jensen's inequality."),)
'''

_TEST = '''\
"""__NAME__'s tests: theorylab's contract suite in one line, and the paper's own evidence."""
from theorylab.authoring import Context
from theorylab.testing import contract_tests

TestContract = contract_tests("__NAME__")


def test_monte_carlo_evidence_passes():
    from __MODULE__.checks import CHECKS

    records = [r for check in CHECKS for r in check.evaluate(Context(profile="quick", seed=0))]
    assert records and all(r.passed for r in records), [(r.check, r.predicted, r.observed, r.tolerance)
                                                        for r in records if not r.passed]
'''
