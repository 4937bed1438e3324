"""Shipped parses: a paper's displays parsed once and written beside its source (`rebuild`, the CLI's
`theorylab parses` and `python -m theorylab._pipeline.fidelity`), and whether they are current."""
from __future__ import annotations

import argparse
import multiprocessing
import time
from typing import Sequence

import sympy as sp

from .._sources import sources
from .._sources.sources import ParseFailure, Printed, notation_key
from .._pipeline import catalogue
from .parses import _ParseCache
from .chains import _chain_text
from .paper import notation_of


# -- shipped parses: a paper's displays parsed once, beside its source (the built-in papers ship theirs) -------------

def parse_requests(paper, items: Sequence[Printed] | None = None) -> list[tuple[str, str, str]]:
    """Every parse the paper's comparisons ask for: (label, text, lead) of each labelled display with text, and of the
    printed chain each continuation display belongs to (label + " chain")."""
    items = list(items if items is not None else catalogue.printed_labels(paper) or ())
    out = []
    for p in items:
        if p.kind != "display" or not p.text:
            continue
        out.append((p.label, p.text, p.lead))
        chain = _chain_text(p, items)
        if chain is not None:
            out.append((p.label + " chain", *chain))
    return out


def shipped_status(paper) -> dict:
    """Whether a paper's shipped parses are current: {"path", "requests", "missing": [labels whose key the file
    lacks], "extra": number of keys no request asks for}."""
    path = sources.shipped_path(catalogue.source_path(paper))
    have = sources.read_parses(path)
    nk = notation_key(notation_of(paper))
    keys = {sources.parse_key(text, lead=lead, notation_text=nk): label for label, text, lead in parse_requests(paper)}
    return {"path": str(path), "requests": len(keys), "missing": [label for k, label in keys.items() if k not in have],
            "extra": len(set(have) - set(keys))}


_REBUILD: list = []
_UNSHIPPED = _ParseCache()           # never reads shipped parses


def _parse_request(i: int) -> dict:
    label, text, lead, notation = _REBUILD[i]
    out = _UNSHIPPED.parse(text, notation, lead=lead)       # the disk cache (keyed by the code of sources.py) or parsed
    entry = sources.relations_to_json(out)
    back = sources.relations_from_json(entry)
    if sources.relations_to_json(back) != entry or (not isinstance(out, ParseFailure) and any(
            sp.srepr(a) != sp.srepr(b) for a, b in zip(back, out))):
        raise RuntimeError(f"{label}: the parse does not read back from its srepr; it cannot be shipped")
    return entry


def rebuild(paper, *, jobs: int = 1, log=None) -> str:
    """Parse every display of the paper's source (and each printed chain) afresh and write `<source>.parses.json`
    beside the source; returns its path."""
    notation = notation_of(paper)
    requests = parse_requests(paper)
    nk = notation_key(notation)
    _REBUILD[:] = [(label, text, lead, notation) for label, text, lead in requests]
    t = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            entries = pool.map(_parse_request, range(len(requests)), chunksize=1)
    else:
        entries = [_parse_request(i) for i in range(len(requests))]
    table = {}
    for (label, text, lead), entry in zip(requests, entries):
        table[sources.parse_key(text, lead=lead, notation_text=nk)] = {"label": label, "text": text, **entry}
    path = sources.shipped_path(catalogue.source_path(paper))
    sources.write_parses(path, table, source=catalogue.source_path(paper).name)
    if log:
        parsed = sum("relations" in e for e in table.values())
        log(f"{paper.name}: {len(table)} parses ({parsed} parse) in {time.perf_counter() - t:.0f} s -> {path}")
    return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    """python -m theorylab._pipeline.fidelity --rebuild [PAPER ...] [--jobs N]: regenerate the shipped parses (default: the
    registered papers that ship them: the built-in ones); --check: list the papers whose shipped parses are stale (exit 1 if any)."""
    ap = argparse.ArgumentParser(prog="python -m theorylab._pipeline.fidelity", description=main.__doc__)
    ap.add_argument("papers", nargs="*", help="paper names (default: the papers that ship parses)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--rebuild", action="store_true", help="parse every display afresh and write the file")
    mode.add_argument("--check", action="store_true", help="report which shipped files are stale")
    ap.add_argument("--jobs", type=int, default=1, help="parse in this many processes")
    args = ap.parse_args(argv)
    if args.papers:
        chosen = [p for p in catalogue.papers() if p.name in args.papers]
        unknown = sorted(set(args.papers) - {p.name for p in chosen})
        if unknown:
            ap.error(f"unknown paper(s): {', '.join(unknown)}")
    else:                                   # the registered papers that ship their parses (the built-in ones)
        chosen = [p for p in catalogue.papers() if p.source_file is not None
                  and sources.shipped_path(catalogue.source_path(p)).is_file()]
    stale = 0
    for paper in chosen:
        if paper.source_file is None:
            continue
        if args.rebuild:
            rebuild(paper, jobs=args.jobs, log=print)
        else:
            st = shipped_status(paper)
            bad = bool(st["missing"] or st["extra"])
            stale += bad
            print(f"{paper.name}: {st['requests']} parses, {len(st['missing'])} missing, {st['extra']} extra "
                  f"({st['path']})" + (" STALE" if bad else ""))
    return 1 if stale else 0
