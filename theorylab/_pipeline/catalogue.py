"""The registry: papers from the `theorylab.papers` entry points, THEORYLAB_PAPERS and --paper, all alike.

Registering a paper imports only its declaration; a family's entries module is imported on first use (so
`theorylab eval qpenalty.q` imports one module), its derivations module (`Family.derivations`) only when a command
decides or lists steps, and its checks module only when verify asks for its checks.
A paper that fails to load, or two papers claiming one name, is a PaperError naming it, never a silent skip.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

from .._decide import entry as _entry
from .._records.paper import Family
from .._records.paper import Paper
from .._records.params import DomainError

__all__ = ["GROUP", "PaperError", "LoadedFamily", "use", "paper_specs", "papers", "paper_of", "families", "family",
           "get", "entries", "derivations", "errata", "ledger", "checks", "select", "paper_files", "forget"]

GROUP = "theorylab.papers"  # the entry-point group a distribution registers its papers in
_SELF = "theorylab"


class PaperError(DomainError):
    """A registered paper that cannot be loaded, or that claims a name another paper has."""


@dataclass(frozen=True, eq=False)
class LoadedFamily:
    """A loaded family: its entries; its derivations and its checks are imported (built) on first access."""

    paper: Paper
    spec: Family
    entries: tuple = ()

    @property
    def name(self) -> str:
        return self.spec.name

    @functools.cached_property
    def derivations(self) -> tuple:
        """The family's DERIVATIONS: from `Family.derivations` when declared (that module is imported here, so
        `eval` never builds steps), else from the entries module."""
        where = self.spec.derivations or self.spec.entries
        module = _import_family_module(self.paper, self.spec, where)
        found = getattr(module, "DERIVATIONS", None)
        if found is None and self.spec.derivations is not None:
            raise PaperError(f"paper {self.paper.name}: family {self.name}: module {where} has no DERIVATIONS")
        derivs = tuple(found or ())
        _own(self.paper, self.spec, "derivation", [(d.key, d.entries) for d in derivs])
        return derivs

    @functools.cached_property
    def checks(self) -> tuple:
        if self.spec.checks is None:
            return ()
        module = _import_family_module(self.paper, self.spec, self.spec.checks)
        found = getattr(module, "CHECKS", None)
        if found is None:
            raise PaperError(f"paper {self.paper.name}: family {self.name}: module {self.spec.checks} has no CHECKS")
        _own(self.paper, self.spec, "check", [(c.name, c.entries) for c in found])
        return tuple(found)


# -- sources of papers ---------------------------------------------------------------------------------------
_cli_papers: tuple[str, ...] = ()


def use(specs: Iterable[str]) -> None:
    """Register the papers named on the command line (`--paper MODULE_OR_FILE.py`, repeatable) for this process,
    in addition to the installed ones and THEORYLAB_PAPERS; each call replaces the previous call's list."""
    global _cli_papers
    _cli_papers = tuple(str(Path(s).expanduser().resolve()) if _is_path(s) else s for s in specs)


def paper_specs() -> str:
    """THEORYLAB_PAPERS and --paper as one THEORYLAB_PAPERS value: what a worker process needs to register the
    same papers (files by absolute path)."""
    env = [s for s in os.environ.get("THEORYLAB_PAPERS", "").split(os.pathsep) if s.strip()]
    return os.pathsep.join(dict.fromkeys([*env, *_cli_papers]))


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _entry_points() -> list[tuple[str, Any]]:
    """(origin, loader) for each `theorylab.papers` entry point: theorylab's own first, in its pyproject's order.

    Without an installed theorylab distribution (a source checkout on PYTHONPATH), theorylab's own entry points
    are read from the pyproject.toml beside the package, so the built-in papers register the same way."""
    own: list[tuple[str, Any]] = []
    others: dict[tuple[str, str, str], Any] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        where = f"entry point {ep.name} = {ep.value} ({dist})"
        if _normal(dist) == _SELF:
            own.append((where, ep.load))
        else:
            others.setdefault((dist, ep.name, ep.value), (where, ep.load))
    if not own:
        own = [(f"entry point {name} = {value} (pyproject.toml of the source checkout)",
                functools.partial(_load_reference, value)) for name, value in _checkout_entry_points()]
    return own + [others[k] for k in sorted(others)]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _checkout_entry_points() -> list[tuple[str, str]]:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"  # theorylab/_pipeline/ -> the checkout
    if not pyproject.is_file():
        return []
    import tomllib  # lazy: ~3 ms that `import theorylab` skips; read only without an installed distribution

    project = tomllib.loads(pyproject.read_text()).get("project", {})
    if project.get("name") != _SELF:
        return []
    return list(project.get("entry-points", {}).get(GROUP, {}).items())


def _load_reference(value: str) -> Any:
    """`module` or `module:attribute` (an entry point's value), or a path to a .py file imported by path."""
    target, _, attr = value.partition(":") if not _is_path(value) else (value, "", "")
    obj: Any = _import_path(target) if _is_path(target) else importlib.import_module(target.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or os.sep in spec or bool(os.altsep and os.altsep in spec)


def _import_path(spec: str) -> ModuleType:
    """Import a paper file by its path, under a name of its own (never its bare stem, which could shadow)."""
    path = Path(spec).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no such file {spec}")
    stem = re.sub(r"\W", "_", path.stem)
    name = f"theorylab_paper_{stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # so that Family(entries=__name__) finds the file's own module
    # and Family(entries="probe_paper") in probe_paper.py too: the bare stem names this file where it names no other
    alias = path.stem if path.stem.isidentifier() and path.stem not in sys.modules and _unclaimed(path.stem, path) \
        else None
    if alias:
        sys.modules[alias] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        if alias:
            sys.modules.pop(alias, None)
        raise
    return module


def _unclaimed(stem: str, path: Path) -> bool:
    """True when importing `stem` would find no module, or this very file."""
    try:
        found = importlib.util.find_spec(stem)
    except (ImportError, ValueError):
        return False
    return found is None or (found.origin is not None and Path(found.origin).resolve() == path)


def _papers_in(obj: Any, origin: str) -> tuple[Paper, ...]:
    if isinstance(obj, ModuleType):
        if hasattr(obj, "PAPERS"):
            obj = obj.PAPERS
        elif hasattr(obj, "PAPER"):
            obj = obj.PAPER
        elif getattr(obj, "__file__", None) is None and list(getattr(obj, "__path__", [])):
            # a folder without __init__.py found first on sys.path (e.g. the project folder `theorylab new` made,
            # when `python -m theorylab` runs in its parent): the installed package is shadowed
            raise PaperError(f"paper {origin}: {obj.__name__} resolved to the folder {list(obj.__path__)[0]} (no "
                             f"__init__.py), which shadows the installed package: run from another folder")
        else:
            raise PaperError(f"paper {origin}: module {obj.__name__} defines neither PAPER nor PAPERS")
    found = (obj,) if isinstance(obj, Paper) else tuple(obj) if isinstance(obj, (list, tuple)) else None
    if not found or not all(isinstance(p, Paper) for p in found):
        raise PaperError(f"paper {origin}: PAPER must be a theorylab Paper record (PAPERS a tuple of them); "
                         f"got {type(obj).__name__}")
    return found


@dataclass(frozen=True)
class _Registry:
    papers: tuple[Paper, ...]
    origin: dict = field(hash=False)     # paper name -> where it was registered
    families: dict = field(hash=False)   # family name -> (Paper, Family)


@functools.lru_cache(maxsize=8)
def _registry(cli: tuple[str, ...], env: str, only: str) -> _Registry:
    sources = _entry_points()
    sources += [(f"THEORYLAB_PAPERS entry {s!r}", functools.partial(_load_reference, s))
                for s in env.split(os.pathsep) if s.strip()]
    sources += [(f"--paper {s}", functools.partial(_load_reference, s)) for s in cli]
    chosen: list[Paper] = []
    origin: dict[str, str] = {}
    fams: dict[str, tuple[Paper, Family]] = {}
    for where, load in sources:
        try:
            obj = load()
        except PaperError:
            raise
        except Exception as exc:  # any failure to import is the user's to see, named
            raise PaperError(f"paper {where} failed to import: {_line(exc)}") from exc
        for p in _papers_in(obj, where):
            if p.name in origin:
                if next(q for q in chosen if q.name == p.name) is p:
                    continue  # the same paper registered twice (e.g. installed and on THEORYLAB_PAPERS)
                raise PaperError(f"papers from {origin[p.name]} and {where} both claim the name {p.name}")
            for f in p.families:
                if f.name in fams:
                    other = fams[f.name][0]
                    raise PaperError(f"paper {p.name} ({where}) claims family {f.name} (entry IDs {f.name}.*), "
                                     f"which paper {other.name} ({origin[other.name]}) has")
                fams[f.name] = (p, f)
            origin[p.name] = where
            chosen.append(p)
    for p in chosen:  # paper names and family names select alike on the command line
        if p.name in fams and (fams[p.name][0] is not p or len(p.families) > 1):
            raise PaperError(f"paper {p.name} ({origin[p.name]}) has the name of family {p.name} "
                             f"(of paper {fams[p.name][0].name}); a selection would be ambiguous")
    if only:  # development aid: load a subset of the families (THEORYLAB_ONLY_FAMILIES=qpenalty,l12; none: no family)
        keep = set(only.split(","))
        fams = {k: v for k, v in fams.items() if k in keep}
        chosen = [p for p in chosen if any(f.name in fams for f in p.families)]
    return _Registry(tuple(chosen), origin, fams)


def _current() -> _Registry:
    return _registry(_cli_papers, os.environ.get("THEORYLAB_PAPERS", ""),
                     os.environ.get("THEORYLAB_ONLY_FAMILIES", ""))


# -- loading families ----------------------------------------------------------------------------------------
def _import_family_module(paper: Paper, spec: Family, module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except Exception as exc:
        raise PaperError(f"paper {paper.name}: family {spec.name}: module {module} failed to import: "
                         f"{_line(exc)}") from exc


@functools.lru_cache(maxsize=None)
def _load(paper: Paper, spec: Family) -> LoadedFamily:
    module = _import_family_module(paper, spec, spec.entries)
    found = getattr(module, "ENTRIES", None)
    if found is None:
        raise PaperError(f"paper {paper.name}: family {spec.name}: module {spec.entries} has no ENTRIES")
    entries = tuple(found)
    seen: set[str] = set()
    for e in entries:
        if not str(getattr(e, "id", "")).startswith(f"{spec.name}."):
            raise PaperError(f"paper {paper.name}: family {spec.name}: entry ID {getattr(e, 'id', e)!r} must start "
                             f"with '{spec.name}.'")
        if e.id in seen:
            raise PaperError(f"paper {paper.name}: family {spec.name}: entry ID {e.id} is declared twice")
        seen.add(e.id)
    return LoadedFamily(paper, spec, entries)


def _own(paper: Paper, spec: Family, what: str, items: list[tuple[str, Iterable[str]]]) -> None:
    """A family's derivations and checks concern its own entries (so selecting a family finds all of them)."""
    for name, ids in items:
        foreign = [i for i in ids if not i.startswith(f"{spec.name}.")]
        if foreign:
            raise PaperError(f"paper {paper.name}: family {spec.name}: {what} {name!r} names entries of another "
                             f"family ({', '.join(foreign)}); it belongs to that family")


def papers() -> tuple[Paper, ...]:
    """The registered papers, theorylab's own first."""
    return _current().papers


def paper_of(family_name: str) -> Paper:
    return _current().families[family_name][0]


# handed down to the entries (theorylab._decide.entry asks for its paper's printer settings through it)
_entry.PAPER_PRINTER[:] = [lambda entry_id: paper_of(entry_id.split(".")[0]).latex.get("printer", {})]


def family(name: str) -> LoadedFamily:
    """The family of this name, loaded (its entries module imported); DomainError naming it when unknown."""
    try:
        paper, spec = _current().families[name]
    except KeyError:
        raise DomainError(f"family must be one of {', '.join(_current().families)}; got {name!r}") from None
    return _load(paper, spec)


def families(names: Iterable[str] | None = None) -> tuple[LoadedFamily, ...]:
    """The registered families, loaded, in registration order (only `names`, when given)."""
    reg = _current()
    chosen = None if names is None else set(names)
    wanted = [n for n in reg.families if chosen is None or n in chosen]
    return tuple(family(n) for n in wanted)


def _index(fam: LoadedFamily) -> dict:
    return {e.id: e for e in fam.entries}


def entries() -> tuple:
    """All entries of the registered papers, family by family."""
    return tuple(e for fam in families() for e in fam.entries)


def get(entry_id: str):
    """The entry with this ID (only its family's module is imported); DomainError naming the ID when none."""
    prefix = entry_id.split(".", 1)[0] if isinstance(entry_id, str) else None
    if prefix in _current().families:
        found = _index(family(prefix)).get(entry_id)
        if found is not None:
            return found
    raise DomainError(f"ID must be one of the catalogue's entry IDs (see `theorylab list`); got ID={entry_id!r}")


def derivations() -> tuple:
    return tuple(d for fam in families() for d in fam.derivations)


def errata() -> tuple:
    """Every Erratum on a step of a registered paper (withdrawn items and amendments: `ledger()`)."""
    return tuple(e for d in derivations() for e in d.errata)


def ledger(names: Iterable[str] = (), *, evaluate: bool = True) -> list:
    """The ranked errata ledger (theorylab._decide.ledger.LedgerItem) of the selected papers, families or entries (all
    when empty). Only each erratum's own step is decided (`evaluate=False`: none)."""
    from .._decide import ledger as _ledger  # lazy: ~9 ms that `import theorylab` skips; only the ledger needs it

    _, fams = select(list(names))
    pairs = [(f.paper.name, d) for f in families(fams) for d in f.derivations]
    # a selection takes whole families, but a root may lie in another family of the paper
    strict = not list(names)
    return (_ledger.collect(pairs, strict=strict) if evaluate else
            _ledger.collect(pairs, verdict=None, strict=strict))


def checks(names: Iterable[str] | None = None) -> tuple:
    """The checks of the registered families (only `names`, when given); their modules are imported here."""
    return tuple(c for fam in families(names) for c in fam.checks)


def select(names: list[str] | tuple[str, ...]) -> tuple[set[str], list[str]]:
    """Resolve CLI selectors (paper names, families or entry IDs) to entry IDs and their families, in registration
    order; empty means everything. Only the families selected are imported."""
    reg = _current()
    order = list(reg.families)
    if not names:
        return {e.id for e in entries()}, order
    ids: set[str] = set()
    fams: set[str] = set()
    by_paper = {p.name: p for p in reg.papers}
    for n in names:
        if n in by_paper and n not in reg.families:
            chosen = [f.name for f in by_paper[n].families if f.name in reg.families]
        elif n in reg.families:
            chosen = [n]
        else:
            get_or_none = None
            try:
                get_or_none = get(n)
            except PaperError:
                raise
            except DomainError:
                pass
            if get_or_none is None:
                raise DomainError(f"selection must be paper names ({', '.join(by_paper)}), families "
                                  f"({', '.join(order)}) or entry IDs; got {n!r}")
            ids.add(n)
            fams.add(n.split(".")[0])
            continue
        for f in chosen:
            ids.update(e.id for e in family(f).entries)
            fams.add(f)
    return ids, [f for f in order if f in fams]


def source_path(p: Paper) -> Path | None:
    """The paper's printed source file (`Paper.source_file`) resolved, or None when it declares none; a DomainError
    naming the paper when it is declared but missing."""
    if p.source_file is None:
        return None
    path = Path(p.source_file).expanduser()
    if not path.is_absolute():
        module = p.coverage or p.families[0].entries
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if origin is None:
            raise DomainError(f"paper {p.name}: source_file {p.source_file!r} is relative, but module {module} has no "
                              "file to resolve it against")
        path = Path(origin).parent / path
    if not path.is_file():
        raise DomainError(f"paper {p.name}: source_file must be an existing file; got {path}")
    return path


def printed_labels(p: Paper) -> "list | None":
    """The labelled displays and numbered statements of the paper's source file (theorylab._sources.sources.Printed), in
    order; None when the paper names no source file."""
    path = source_path(p)
    if path is None:
        return None
    from .._sources import sources  # lazy: the source parser costs ~90 ms of start-up; only source reads need it

    return list(sources.read_source(path))


def coverage_declarations(paper: str = "") -> list[tuple]:
    """(paper, labels, accounts, printed text by label) of every registered paper that declares `coverage` (a module
    with ACCOUNTS, and LABELS where the paper names no source file); `paper` selects one by name, source file or
    source number. Labels come from the source file when there is one; LABELS, when also given, must equal them.
    ACCOUNTS are checked (`coverage.check_accounts`): a one-line DomainError for a wrong type, a label accounted twice
    or not printed, a label both accounted for and cited, a step citing a label the paper does not print."""
    out = []
    for p in papers():
        if (p.coverage is None and p.source_file is None) or (
                paper and paper not in (p.name, p.source, p.source.split("_", 1)[0])):
            continue
        mod = importlib.import_module(p.coverage) if p.coverage is not None else None
        found = printed_labels(p)
        listed = tuple(getattr(mod, "LABELS", ()))
        if found is None:
            labels, printed = listed, {}
        else:
            labels, printed = tuple(x.label for x in found), {x.label: x.text for x in found}
            if listed and listed != labels:
                extra, lost = sorted(set(listed) - set(labels)), sorted(set(labels) - set(listed))
                raise DomainError(f"paper {p.name}: LABELS of {p.coverage} differ from the labels of its source "
                                  f"file (only in LABELS: {extra or 'none'}; only in the source: {lost or 'none'}; "
                                  "or the order): drop LABELS, the source file is the reference")
        from .._decide.coverage import check_accounts  # lazy: ~5 ms that `import theorylab` skips

        derivs = [d for f in families([f.name for f in p.families]) for d in f.derivations]
        accounts = check_accounts(p.name, getattr(mod, "ACCOUNTS", ()), labels, derivs)
        out.append((p, labels, accounts, printed))
    if paper and not out:
        names = ", ".join(p.name for p in papers() if p.coverage is not None or p.source_file is not None)
        raise DomainError(f"paper must be a registered paper that declares coverage or a source_file "
                          f"({names or 'none registered'}); got {paper!r}")
    return out


def paper_files(names: Iterable[str]) -> tuple[list[Path], list[str]]:
    """(files, modules) of the named families' papers as loaded now: the source files of the modules in the folders
    of their families' modules (the paper's package, or the folder of a paper file given by path), and each paper's
    printed source; modules: those modules' names. What `check --watch` watches and imports again on a change."""
    chosen = families(names)
    folders = set()
    for f in chosen:
        for module in (f.spec.entries, f.spec.derivations, f.spec.checks):
            found = getattr(sys.modules.get(module or ""), "__file__", None)
            if found:
                folders.add(Path(found).resolve().parent)
    files: dict[Path, None] = {}
    modules = []
    for name, module in list(sys.modules.items()):
        found = getattr(module, "__file__", None)
        if found and Path(found).resolve().parent in folders:
            files[Path(found).resolve()] = None
            modules.append(name)
    for p in dict.fromkeys(f.paper for f in chosen):
        try:
            path = source_path(p)
        except DomainError:
            path = None
        if path is not None:
            files[path.resolve()] = None
    return list(files), modules


def forget(modules: Iterable[str] = ()) -> None:
    """Forget the registered papers and loaded families, and the given modules (`paper_files`), so that the next use
    imports them again from their files (`check --watch` after an edit)."""
    for name in modules:
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    _registry.cache_clear()
    _load.cache_clear()
