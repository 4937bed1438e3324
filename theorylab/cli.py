"""The `theorylab` command: new, list, show, eval, check, verify, latex, report, mutate, errata.

Every subcommand takes `--paper MODULE_OR_FILE.py` (repeatable) to register papers beside the installed ones and
THEORYLAB_PAPERS. Bad input anywhere exits with status 2 and one stderr line starting with `error:`; nothing on stdout.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from typing import Any, Sequence

from ._records.status import LedgerStatus, StepStatus
from ._decide.derivation import _engine_fingerprint
from ._pipeline import catalogue, runner
from ._pipeline.runner import BOUND_SECONDS
from ._shared import fmt, write_json
from ._records.evidence import to_jsonable
from ._records.params import DomainError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block (the bad-input rule)
        raise DomainError(message)


def _parse_value(entry, name: str, text: str) -> Any:
    param = entry.param(name)
    if param.kind == "expression":
        try:
            value = json.loads(text)
            return value if isinstance(value, str) else text
        except json.JSONDecodeError:
            return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:  # nan, inf, -inf reach the parameter's own check, which names its domain
        return float(text)
    except ValueError:
        raise DomainError(f"{name} must be a JSON literal ({param.domain}); got {name}={text}") from None


def cmd_eval(args) -> int:
    entry = catalogue.get(args.id)
    kwargs = {}
    for item in args.assignments:
        if "=" not in item:
            raise DomainError(f"parameters must be given as name=value; got {item!r}")
        name, text = item.split("=", 1)
        if name in kwargs:
            raise DomainError(f"{name} must be given once; got it twice")
        kwargs[name] = _parse_value(entry, name, text)
    value = entry(**kwargs)
    print(json.dumps({"id": entry.id, "value": to_jsonable(value)}))
    return 0


def markdown_table() -> str:
    """The registered papers' entries as a Markdown table (README's table is kept equal to this by a test)."""
    rows = ["| ID | title | parameters | source |", "| --- | --- | --- | --- |"]
    for e in catalogue.entries():
        params = ", ".join(f"`{p.name}`" for p in e.params)
        title = e.title.replace("|", "\\|")
        rows.append(f"| `{e.id}` | {title} | {params} | {e.source.where} |")
    return "\n".join(rows)


def _source(source) -> str:
    """An entry's source as the user reads it: the paper (its file or citation) and where in it."""
    return f"{source.paper}, {source.where}"


def cmd_parses(args) -> int:
    """theorylab parses [PAPER ...] [--rebuild] [--jobs N]: fidelity's rebuild or check of the shipped parses."""
    # lazy: the printed-page comparison and its parser (~0.3 s) only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._pipeline import fidelity

    try:
        return fidelity.main([*args.papers, "--rebuild" if args.rebuild else "--check", "--jobs", str(args.jobs)])
    except SystemExit as stop:                  # its own argument errors (an unknown paper): their exit status
        return int(stop.code or 0)


def cmd_new(args) -> int:
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._tools.scaffold import module_name, scaffold

    folder = args.dir if args.dir is not None else args.name
    if args.source:
        # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
        from ._tools.scaffold import scaffold_from_source

        written = scaffold_from_source(args.name, args.source, folder)
    else:
        written = scaffold(args.name, folder)
    module = module_name(args.name)
    root = os.path.expanduser(folder)
    print(f"wrote the paper {args.name} in {folder}: " + ", ".join(os.path.relpath(p, root) for p in written))
    print(f"next:\n  pip install -e {folder}\n  theorylab check {args.name}\n"
          f"  theorylab verify {args.name} --json ev.json\n  theorylab latex {args.name} -o {module}.tex\n"
          f"  theorylab report --evidence ev.json -o out/\n  pytest {folder}")
    return 0


def cmd_list(args) -> int:
    if args.markdown:
        print(markdown_table())
        return 0
    loaded = catalogue.families()  # all of them before the first line: a paper that fails prints nothing
    for paper in catalogue.papers():
        fams = [f for f in loaded if f.paper.name == paper.name]
        print(f"paper {paper.name}: {paper.title} [{paper.source}]; families {', '.join(f.name for f in fams)}")
        for fam in fams:
            for entry in fam.entries:
                print(f"  {entry.id:36s} {entry.title}  [{_source(entry.source)}]")
    return 0


def cmd_show(args) -> int:

    e = catalogue.get(args.id)
    derivs = [d for d in catalogue.family(e.id.split(".")[0]).derivations if e.id in d.entries]
    steps = runner.recorded_steps([e.id], record=args.record, jobs=1, keys=[d.key for d in derivs]) if derivs else ()
    print(f"{e.id}: {e.title}\nsource: {_source(e.source)}\n")
    print(e.unicode() or "(defined by a numeric routine)")
    print(f"\nLaTeX: {e.latex()}")
    if e.stable_form is not None and e.stable_form != e.formula:
        print(f"evaluated as: {e.latex('stable')}")
    if e.conditions:
        print("conditions: " + "; ".join(e.conditions))
    print("\nparameters:")
    for p in e.params:
        default = f" (default {p.default})" if p.has_default else ""
        print(f"  {p.name:10s} {p.domain}{default}" + (f" -- {p.doc}" if p.doc else ""))
    print(f"value: {e.value_doc}\n\n{e.doc}\n")
    if not derivs:
        print("derivation: none recorded")
    results = runner.results_from_steps(derivs, steps)
    for d in derivs:
        if d.key not in results:
            print(f"derivation {d.key}: its steps are not in the run record {args.record}")
            continue
        results_d = results[d.key]
        bad = sum(not r.ok for r in results_d)
        errata = sum(r.step.erratum is not None for r in results_d)
        print(f"derivation {d.key}: {len(results_d)} steps, {errata} errata of the paper, "
              + ("all as recorded" if not bad else f"{bad} UNEXPECTED"))
    return 0


def _print_record(r: dict) -> None:
    mark = {StepStatus.HOLDS: "ok ", StepStatus.ERRATUM_CONFIRMED: "ERR", StepStatus.DRAFT: "DRF"}.get(r["status"], "!! ")
    print(f"  {mark} [{r['relation']}] {r['step']}\n        {r['status']} ({r['strength']}); {r['method']}"
          + (f"; {r['detail']}" if r["detail"] else ""))


def cmd_check(args) -> int:

    if args.watch:
        return _watch(args)

    def show(d, recs, weakest):
        print(f"\n{d.key}: {d.title} [{d.where}]")
        for r in recs:
            _print_record(r)
        if weakest is not None:
            print(f"  chain strength: {weakest.strength} (weakest link: {weakest.step.label})")

    _check_quotes(args.select)
    run = runner.check(args.select, jobs=args.jobs, on_derivation=show)
    _print_check_summary(run)
    return 1 if run.unexpected else 0


def _check_quotes(select) -> None:
    """A step quoting a sentence its paper does not print (or prints twice) is a one-line error before anything is
    decided (#35 item 4: `coverage` lists the sentences; `check` is what an author runs after writing a quote)."""
    _, fams = catalogue.select(list(select))
    quoting: dict = {}
    for f in catalogue.families(fams):
        ds = [d for d in f.derivations if any(s.quotes for s in d.steps)]
        if ds:
            quoting.setdefault(f.paper, []).extend(ds)
    if quoting:
        from ._decide import coverage  # lazy: only papers whose steps quote their prose need it

        for paper, ds in quoting.items():
            path = catalogue.source_path(paper)
            coverage.quoted_sentences(paper.name, path.read_text(encoding="utf-8") if path else None, ds)


_CACHED = " [cached]"  # what a verdict read from the step cache adds to its method (theorylab._decide.derivation)


def _print_check_summary(run, seconds: float | None = None) -> None:
    """The summary lines of `check` (with `seconds`, as --watch prints it: a one-shot check's output stays the same
    from run to run)."""
    by = ", ".join(f"{n} {k}" for k, n in run.by_strength().items())
    print(f"\n{len(run.steps)} steps in {len(run.derivations)} derivations: "
          f"{len(run.held)} hold ({by}), "
          f"{run.count('erratum confirmed')} errata of the paper confirmed, "
          + (f"{run.drafts} drafts (not checked), " if run.drafts else "")
          + (f"{run.differ} declared 'as printed' differ from the print, " if run.differ else "")
          + f"{run.unexpected} unexpected")
    cached = sum(r["method"].endswith(_CACHED) for r in run.steps)
    print(f"{len(run.steps)} steps: {cached} from the step cache, {len(run.steps) - cached - run.drafts} decided"
          + (f", {run.drafts} drafts" if run.drafts else "") + (f" ({seconds:.1f} s)" if seconds is not None else ""))


def _watch(args) -> int:
    """check, then again whenever a file of the selected papers changes (their modules and printed sources, polled
    every THEORYLAB_WATCH_INTERVAL seconds, default 0.5), printing only the steps whose verdict or record changed
    and the summary; an edit that does not import is one error line, and the next save is checked. Ctrl-C ends it."""
    interval = float(os.environ.get("THEORYLAB_WATCH_INTERVAL", "0.5"))
    sys.dont_write_bytecode = True  # a .pyc written now would be trusted for a save within the same second and size
    try:
        _watch_loop(args, interval)
    except KeyboardInterrupt:
        pass
    return 0


def _watch_loop(args, interval: float) -> None:


    before: dict | None = None
    printed: set[str] = set()  # the print's comparison lines shown so far
    watched: dict = {}
    modules: list[str] = []
    given = [os.path.abspath(p) for p in args.paper_modules if os.path.isfile(p)]  # watched even if they fail to import
    while True:
        t0, started = time.perf_counter(), time.time_ns()
        found: list = []
        fidelity = io.StringIO()
        try:
            _check_quotes(args.select)  # a misquote saved is one error line, as in a one-shot check
            with contextlib.redirect_stdout(fidelity):  # the print's comparison: shown where its lines changed
                run = runner.check(args.select, jobs=1, on_derivation=lambda d, recs, weakest: found.append(
                    (d, recs, weakest)))
            names = [f.name for f in _selected_families(args.select)]
            files, modules = catalogue.paper_files(names)
        except Exception as exc:  # noqa: BLE001 - a half-saved edit: said in one line, and watched again
            print(f"error: {exc}".replace("\n", " "), flush=True)
            run = None
            files = list(watched) or given
        if run is not None:
            now = {(d.key, r["step"]): _plain(r) for d, recs, _ in found for r in recs}
            for d, recs, weakest in found:
                # what changed: a verdict or record that differs, and a symbolic step decided again (its content
                # changed: the cache answers the others; numeric steps, never cached, show where their record changed)
                numeric = {st.label for st in d.steps if st.numeric}
                changed = [r for r in recs if before is None or before.get((d.key, r["step"])) != _plain(r)
                           or not (r["method"].endswith(_CACHED) or r["step"] in numeric or r["status"].startswith(
                               "draft"))]
                if changed:
                    print(f"\n{d.key}: {d.title} [{d.where}]")
                    for r in changed:
                        _print_record(r)
                    if weakest is not None and before is None:
                        print(f"  chain strength: {weakest.strength} (weakest link: {weakest.step.label})")
            for gone in [k for k in (before or {}) if k not in now]:
                print(f"\n{gone[0]}: step removed: {gone[1]}")
            lines = fidelity.getvalue().splitlines()
            shown = lines if before is None else [x for x in lines if x not in printed]
            if shown:
                print("\n".join(shown))
            printed = set(lines)
            before = now
            _print_check_summary(run, time.perf_counter() - t0)
        watched = _stamps(files)
        print(f"watching {len(files)} files of {' '.join(args.select) or 'every paper'} (Ctrl-C to stop)", flush=True)
        # a save during the check (after its files were read) is checked at once
        edited = [str(p) for p, st in watched.items() if st is not None and st[0] >= started]
        while not edited:
            time.sleep(interval)
            edited = [str(p) for p in watched if _stamps([p]) != {p: watched[p]}]
        print(f"\n--- changed: {', '.join(os.path.basename(p) for p in edited)}; checking again", flush=True)
        catalogue.forget(modules)



def _selected_families(select):
    _, fams = catalogue.select(list(select))
    return catalogue.families(fams)


def _plain(r) -> tuple:
    """A step record as `--watch` compares it between runs: whether it came from the cache does not count."""
    method = r["method"][:-len(_CACHED)] if r["method"].endswith(_CACHED) else r["method"]
    return (r["status"], r["strength"], r["relation"], method, r["detail"])


def _stamps(files) -> dict:
    out = {}
    for p in files:
        try:
            st = os.stat(p)
            out[p] = (st.st_mtime_ns, st.st_size)
        except OSError:
            out[p] = None
    return out


def cmd_errata(args) -> int:
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._decide import ledger as _ledger


    try:
        items = runner.errata(args.select, record=args.record, evaluate=not args.no_eval)
    except _ledger.LedgerError as exc:
        raise DomainError(str(exc)) from None
    if args.json:
        print(json.dumps({"items": [it.to_json() for it in items], "summary": _ledger.summary(items)}, indent=1))
        return 1 if any(it.status == LedgerStatus.NOT_REPRODUCED for it in items) else 0
    paper = None
    for it in items:
        if it.paper != paper and it.depth == 0:
            paper = it.paper
        pad = "  " * (it.depth + 1) + ("└ " if it.depth else "")
        label = ("WITHDRAWN" if it.kind == "withdrawn" else
                 f"amendment: {it.amendment_kind}" if it.kind == "amendment" else "erratum")
        print(f"{pad}[{it.severity}] {it.key}  ({it.paper}, {it.where}; {label}; {it.status})")
        body = "  " * (it.depth + 2) + ("  " if it.depth else "")
        if it.kind == "amendment":
            print(f"{body}checked instead of the print: {it.truth}\n{body}why: {it.why}")
        else:
            print(f"{body}the paper prints: {it.says}\n{body}what holds: {it.truth}")
        if it.counterexample:
            print(f"{body}counterexample: {it.counterexample}")
        if it.withdrawn:
            print(f"{body}withdrawn because: {it.withdrawn}")
        for h in it.history:
            print(f"{body}history: {h}")
        if it.note and args.verbose:
            print(f"{body}note: {it.note}")
    s = _ledger.summary(items)
    print(f"\n{s['errata']} errata and {s['amendments']} amendments in {s['roots']} distinct roots "
          f"({s['consequences']} consequences folded under their root), {s['withdrawn']} withdrawn"
          + (f", {s['not_reproduced']} NOT REPRODUCED" if s["not_reproduced"] else ""))
    print("distinct roots by paper and severity:\n" + _ledger.summary_table(items))
    return 1 if s["not_reproduced"] else 0


def _print_dry_run(args, d) -> None:

    how = {"measured": "", "part": ", from measured parts", "quick": ", from the quick profile's rate",
           "shipped": ", from the shipped timings"}
    for t, (sec, src) in zip(d.tasks, d.estimates):
        print(f"  {t.kind:10s} {t.label[:90]:90s} " + (f"~{sec:.1f} s{how[src]}" if sec is not None else
                                                      "not yet measured"))
    known, n, jobs = d.known, len(d.tasks), d.jobs
    shipped = sum(src == "shipped" for _, src in d.estimates)
    print(f"{n} tasks, profile {d.profile}" + (f", {d.sample} part(s) per check stage sampled" if d.sample else "")
          + f"; estimated {sum(known):.0f} s of work ({_hours(sum(known))}), about {d.wall:.0f} s "
          f"({_hours(d.wall)}) on {jobs} job{'s' if jobs > 1 else ''} ({len(known) - shipped} estimated from timings "
          f"here, " + (f"{shipped} from the timings shipped with theorylab, " if shipped else "")
          + f"{n - len(known)} not yet measured)")
    if d.largest is not None:
        task, sec = d.largest
        print(f"largest task: {task.label[:100]} ~{sec:.0f} s ({_hours(sec)})")
        print(f"critical path: {d.critical_path:.0f} s (the longest chain of dependent tasks); on {jobs} "
              f"worker{'s' if jobs > 1 else ''} {d.wall:.0f} s" + (f"; on 64 workers {d.wall_64:.0f} s" if jobs != 64
                                                                   else ""))
    for name, (sec, label) in d.over.items():
        print(f"OVER ONE CPU-HOUR: check {name!r}: a single part is estimated at {sec:.0f} s > "
              f"{BOUND_SECONDS:.0f} s ({label[:100]}): declare smaller parts")
    if len(known) < n:
        print(f"{n - len(known)} tasks not yet measured: `theorylab verify {' '.join(args.select)}"
              f"{' ' if args.select else ''}--profile {d.profile} --sample 1` measures a part of each check")
    elif not d.over:
        print(f"no task is estimated above one CPU-hour ({BOUND_SECONDS:.0f} s)")


def _hours(seconds: float) -> str:
    """Seconds as the README's plan table writes them: hours to one decimal from an hour, else whole minutes."""
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min" if seconds >= 60 else \
        f"{seconds:.0f} s"


def _print_task(verbose: bool):
    def show(task, recs, seconds) -> None:
        if task.kind == "derivation":
            bad = sum(not r.ok for r in recs)
            if verbose or bad:
                print(f"  derivation {task.key}: {len(recs)} steps, {bad} unexpected")
                for r in recs:
                    if verbose or not r.ok:
                        print(f"    {r['status']:10s} ({r['strength']}) {r['step']}: {r['method']} {r['detail']}")
            return
        for r in recs:
            if r.is_finding:  # reported, never counted as a pass or a failure
                print(f"  NOTE {r['entry']:32s} {r['check']}: {r['text']}")
                continue
            print(f"  {r.verdict.upper()} {r['entry']:32s} {r['check']}: predicted "
                  f"{fmt(r['predicted'])}, observed {fmt(r['observed'])}, abs err {fmt(r['abs_error'])}, "
                  f"rel err ||p-o||/||p|| {fmt(r['rel_error'])}, tol {fmt(r['tolerance'])} ({r['tolerance_source']})"
                  + (f", resolves {fmt(r['resolution'])} (needs {fmt(r.get('resolution_needed'))})"
                     if r.get("resolution") is not None else "")
                  + (f" [{r['detail']}]" if r.get("detail") else ""))
        print(f"    ({task.key}: {seconds:.1f} s)")

    return show


def _print_start(s) -> None:
    print(f"theorylab verify: profile {s.profile}, device {s.device}, families {', '.join(s.families)}; {s.tasks} "
          f"tasks on {s.executor} ({s.jobs} job{'s' if s.jobs > 1 else ''}, {s.threads} thread"
          f"{'s' if s.threads > 1 else ''} each)")


def _verify(args, select, json_path, **kw):
    """Call the engine's verify with the command's options, printing as it goes (verify and report --rerun)."""

    return runner.verify(select, profile=args.profile, device=args.device, seed=args.seed, json_path=json_path,
                         on_start=_print_start, on_task=_print_task(getattr(args, "verbose", False)),
                         progress=sys.stderr.isatty(), **kw)


def _print_summary(record, path) -> None:
    n_steps, reused = len(record.derivation_steps), record.tasks_reused
    print(f"derivations: {n_steps} steps, {record.unexpected_steps} unexpected"
          + (f"; {reused} of {record.tasks} tasks reused from the journal of the interrupted run" if reused else ""))
    print(f"\nsummary: {n_steps} derivation steps ({record.unexpected_steps} unexpected), "
          f"{len(record.evidence) - record.findings} evidence records ({record.failed_evidence} failed, "
          f"{record.weak_evidence} weak: within tolerance but coarser than needed), {record.findings} findings, "
          f"{record.seconds:.1f} s; JSON record: {path}")


def cmd_verify(args) -> int:

    if args.dry_run:
        _print_dry_run(args, runner.dry_run(args.select, profile=args.profile, seed=args.seed, sample=args.sample,
                                            jobs=args.jobs, executor=args.executor))
        return 0
    record = _verify(args, args.select, args.json, jobs=args.jobs, executor=args.executor, threads=args.threads,
                     resume=args.resume, sample=args.sample, slurm={
                         "partition": args.slurm_partition, "timeout_min": args.slurm_time,
                         "gpus_per_node": args.slurm_gpus})
    _print_summary(record, args.json)
    return 0 if record.ok else 1


def cmd_latex(args) -> int:
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._outputs.latex import from_steps

    tex, errata, n = from_steps(args.select, runner.recorded_steps(args.select, record=args.record, jobs=args.jobs))
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(tex)
        kinds = [it.kind for it in errata]
        print(f"wrote {args.output} ({n} entries, {kinds.count('erratum')} errata, "
              f"{kinds.count('amendment')} amendments, {kinds.count('withdrawn')} withdrawn)")
    else:
        sys.stdout.write(tex)
    return 0


def cmd_report(args) -> int:
    # lazy: the report loads matplotlib and latex2mathml (~1 s); only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._outputs.report import build

    code = 0
    if args.select and not args.rerun:
        raise DomainError(f"select (families or entries to verify) needs --rerun; got select={' '.join(args.select)} "
                          f"without --rerun (the report of {args.evidence} shows the whole record)")
    if args.rerun:
        record = _verify(args, args.select, args.evidence)
        _print_summary(record, args.evidence)
        code = 0 if record.ok else 1
        if code:
            print("verify reported failures; the report shows them", file=sys.stderr)
    summary = build(args.evidence, args.output, progress=sys.stderr.isatty(), mutants=args.mutants or None,
                    accuracy=args.accuracy or None)
    print(f"wrote {summary['index']} ({len(summary['figures'])} figures, {summary['evidence']} evidence records, "
          f"{summary['failed']} failed, {summary['errata']} errata)")
    return code  # with --rerun, verify's status: a failing check fails the command, after the report shows it


def cmd_coverage(args) -> int:
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._decide import coverage

    rows = []
    for paper, labels, accounts, printed in catalogue.coverage_declarations(args.paper):
        derivs = [d for f in catalogue.families([f.name for f in paper.families]) for d in f.derivations]
        rows_p = [dict(r) for r in _coverage_rows(paper, labels, derivs, accounts, printed)]
        if args.claims:
            rows_p += _uncited_claims(paper, rows_p)
        for r in rows_p:
            r["paper_name"] = paper.name
        rows += rows_p
        if not args.json:
            print(f"{paper.name} ({paper.source})")
            for r in rows_p:
                if r.get("kind") in ("sentence", "candidate"):  # claims in prose (#35): always shown (no label)
                    print(f"  {r['status']:13s} {r['label']}: \u201c{_clip(r['printed'], 200)}\u201d")
                    print(f"  {'':13s} {'':16s} {r['how']}")
                    if args.verbose and r["kind"] == "sentence":
                        for c in r["checks"]:
                            print(f"  {'':13s} {'':16s} theorylab checks ({c['fidelity']}; {c['status']}): "
                                  f"{(c['latex'] or c['statement'])[:300]}")
                    continue
                if r["status"] not in ("as printed",) or args.verbose:
                    print(f"  {r['status']:13s} {r['label']:16s} {r['how'] or r['reason']}")
                    if args.verbose:
                        if r["printed"]:
                            print(f"  {'':13s} {'':16s} the paper prints: {r['printed'][:300]}")
                        if r.get("compared"):
                            print(f"  {'':13s} {'':16s} machine comparison: {r['compared']['status']} "
                                  f"({r['compared']['reason'][:200]})")
                        for c in r["checks"]:
                            print(f"  {'':13s} {'':16s} theorylab checks ({c['fidelity']}; {c['status']}): "
                                  f"{(c['latex'] or c['statement'])[:300]}")
            print(coverage.summary(rows_p))
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0 if all(r["status"] in coverage.ACCOUNTED for r in rows if r.get("kind") != "candidate") else 1


def _uncited_claims(paper, rows: list[dict]) -> list[dict]:
    """`coverage --claims`: the sentences of the paper's prose that assert (theorylab._sources.prose.candidate_claims)
    and that no step quotes, outside its numbered statements, as rows {kind: "candidate", status: "uncited claim",
    label, printed, where, line, section, how: the cue}; listed, never counted (the exit status ignores them)."""
    from ._sources import prose  # lazy: only --claims reads the prose

    path = catalogue.source_path(paper)
    if path is None:
        return []
    quoted = {(r["line"], r["printed"]) for r in rows if r.get("kind") == "sentence"}
    statements = tuple(r["printed"] for r in rows if r.get("kind") == "label" and r["label"][:1].isalpha())
    out = []
    for s, cue in prose.candidate_claims(path.read_text(encoding="utf-8"), skip=statements):
        if (s.line, s.trimmed()) in quoted:
            continue
        out.append({"paper": paper.source, "paper_name": paper.name, "label": f"sentence, {s.where}",
                    "kind": "candidate", "status": "uncited claim", "how": f"asserts ({cue}); no step quotes it",
                    "reason": "", "printed": s.trimmed(), "where": s.where, "line": s.line, "section": s.section,
                    "checks": [], "compared": None})
    return out


def _coverage_rows(paper, labels, derivs, accounts, printed) -> list[dict]:
    """coverage's rows of one paper, computed once per process for the same records and engine (`coverage P` and
    `coverage P --json` in one process, as the tests run them, compare the print with the steps once: 5-15 CPU s a
    paper). The records are frozen, so the same objects give the same rows; the key holds them (their ids stay
    theirs) and the engine's fingerprint (a replaced deciding function decides again)."""
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._decide import coverage
    # lazy: the printed-page comparison and its parser (~0.3 s) only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._pipeline import fidelity

    key = (id(paper), tuple(map(id, derivs)), tuple(labels), repr(accounts), _engine_fingerprint())
    hit = _COVERAGE_ROWS.get(key)
    if hit is None or hit[0] is not paper or any(a is not b for a, b in zip(hit[1], derivs)):
        path = catalogue.source_path(paper)  # its sentences: the claims in prose that steps quote (#35)
        rows = coverage.coverage(paper.source, labels, derivs, accounts, printed=printed,
                                 compared=fidelity.compared_rows(paper, derivs),
                                 text=path.read_text(encoding="utf-8") if path is not None else None)
        hit = _COVERAGE_ROWS[key] = (paper, tuple(derivs), rows)
    return hit[2]


_COVERAGE_ROWS: dict = {}


def _clip(text: str, n: int) -> str:
    """`text` cut at a word to about n characters."""
    if len(text) <= n:
        return text
    cut = text.rfind(" ", 0, n)
    return text[:cut if cut > n // 2 else n] + " …"


def cmd_mutate(args) -> int:
    # lazy: mutate loads hypothesis (~0.4 s); only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._tools import mutate

    layers = tuple(args.layers.split(",")) if args.layers else mutate.LAYERS
    bad = [x for x in layers if x not in mutate.LAYERS]
    if bad:
        raise DomainError(f"--layers must be a comma-separated subset of {','.join(mutate.LAYERS)}; got {args.layers}")
    views = tuple(args.view.split(",")) if args.view else mutate.VIEWS
    bad = [x for x in views if x not in mutate.VIEWS]
    if bad:
        raise DomainError(f"--view must be a comma-separated subset of {','.join(mutate.VIEWS)}; got {args.view}")
    status, record = mutate.campaign(args.select, profile=args.profile, layers=layers, views=views,
                                     first_catch=args.first_catch, require_coverage=args.require_coverage, say=print)
    if args.json:
        write_json(args.json, record)
    return status


def cmd_accuracy(args) -> int:
    # lazy: only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from ._tools import accuracy

    ids, _ = catalogue.select(args.select)
    chosen = [e for e in catalogue.entries() if e.id in ids]
    t0 = time.time()
    # lazy: tqdm (~35 ms) only this subcommand needs it; `theorylab eval` and the other commands do not load it
    from tqdm import tqdm

    bar = tqdm(total=len(chosen), desc="accuracy", disable=not sys.stderr.isatty())
    maps = accuracy.measure_all(chosen, args.profile, jobs=args.jobs, progress=lambda m: bar.update())
    bar.close()
    failing = [m for m in maps if not m.meets]
    if args.json:
        write_json(args.json, {"profile": args.profile, "entries": [m.to_json() for m in maps],
                                "seconds": round(time.time() - t0, 2)})
    print(accuracy.table(maps))
    for m in maps:
        for text in m.disagreements[:3] + m.problems[:3] + m.slow[:2]:
            print(f"note {m.entry}: {text}")
        if len(m.slow) > 2:
            print(f"note {m.entry}: {len(m.slow)} points in all had a reference over the time budget")
        if m.note:
            print(f"bound {m.entry}: {m.note}")
    print(f"\n{len(maps)} entries, {len(maps) - len(failing)} meet their contract bound"
          + (f"; NOT met: {', '.join(m.entry for m in failing)}" if failing else "")
          + f"; {time.time() - t0:.1f} s")
    return 1 if failing else 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="theorylab", description="Machine-checked closed forms of ML-theory papers.")
    common = _Parser(add_help=False)
    common.add_argument("--paper", action="append", default=[], metavar="MODULE_OR_FILE.py", dest="paper_modules",
                        help="register a paper: a module exposing PAPER or PAPERS, or a .py file (repeatable)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, **kw) -> argparse.ArgumentParser:  # --paper on every subcommand
        return sub.add_parser(name, parents=[common], **kw)

    s = command("new", help="scaffold an installable paper package: theorylab new NAME [DIR] [--from paper.tex]")
    s.add_argument("name", metavar="NAME", help="the paper's name (lower case; '-' becomes '_' in its package name)")
    s.add_argument("dir", metavar="DIR", nargs="?", default=None, help="a new or empty folder (default: ./NAME)")
    s.add_argument("--from", dest="source", metavar="SOURCE", default="",
                   help="the paper's .tex or .md source: copied into the package, every label listed with its printed "
                        "text and a draft step for each display that parses")
    s.set_defaults(fn=cmd_new)
    s = command("list", help="the registered papers with their entry IDs, titles, sources")
    s.add_argument("--markdown", action="store_true", help="as the Markdown table of the README")
    s.set_defaults(fn=cmd_list)
    s = command("show", help="formula, parameters, source and derivation status of an entry")
    s.add_argument("id")
    s.add_argument("--record", default=None, metavar="FILE",
                   help="read the derivation status from this `theorylab verify --json` record (else checked now)")
    s.set_defaults(fn=cmd_show)
    s = command("eval", help="evaluate an entry: theorylab eval ID name=value ...")
    s.add_argument("id")
    s.add_argument("assignments", nargs="*")
    s.set_defaults(fn=cmd_eval)
    s = command("check", help="run the derivations of the selected papers, families or entries")
    s.add_argument("select", nargs="*")
    s.add_argument("--jobs", type=int, default=0, help="worker processes (default: the usable cores, or in-process "
                   "where the last check of these derivations took under 3 s; 1: in-process)")
    s.add_argument("--watch", action="store_true", help="check, then again on every save of the papers' files, "
                   "printing only what changed (Ctrl-C to stop)")
    s.set_defaults(fn=cmd_check)
    s = command("parses", help="the shipped parses of papers' sources: --rebuild writes <source>.parses.json afresh, "
                               "--check lists the stale ones (exit 1 if any)")
    s.add_argument("papers", nargs="*", help="paper names (default: the papers that ship parses)")
    s.add_argument("--rebuild", action="store_true")
    s.add_argument("--jobs", type=int, default=1, help="parse in this many processes")
    s.set_defaults(fn=cmd_parses)
    s = command("verify", help="check plus all evidence of the selected papers, families or entries")
    s.add_argument("select", nargs="*")
    s.add_argument("--profile", choices=("quick", "paper"), default="quick")
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", default="theorylab-evidence.json", help="where to write the evidence record")
    s.add_argument("-v", "--verbose", action="store_true", help="print every derivation step")
    s.add_argument("--jobs", type=int, default=0, help="worker processes (default 0: the usable cores; 1: in-process)")
    s.add_argument("--executor", default="local",
                   help="local (a spawn process pool of --jobs workers), dask://HOST:PORT, slurm, submitit-local")
    s.add_argument("--threads", type=int, default=0,
                   help="BLAS/torch threads per task (default: the task's share of the usable cores, cores // jobs, at "
                        "least 1; with the default --jobs that is 1: tasks run in parallel processes instead)")
    s.add_argument("--resume", action="store_true", help="continue a killed run: reuse the tasks it finished")
    s.add_argument("--dry-run", action="store_true", help="list the tasks with estimated times, the largest task and "
                   "the wall time on --jobs workers (or the Dask cluster's); run nothing")
    s.add_argument("--sample", type=int, default=0, metavar="K",
                   help="run only K parts of each stage of every check declared with parts (its largest first) and "
                        "remember their timings for --dry-run; a sampled check reports a finding, not a verdict")
    s.add_argument("--slurm-partition", default="", help="with --executor slurm")
    s.add_argument("--slurm-time", type=int, default=60, help="minutes per task, with --executor slurm")
    s.add_argument("--slurm-gpus", type=int, default=0, help="GPUs per task, with --executor slurm")
    s.set_defaults(fn=cmd_verify)
    s = command("latex", help="a standalone LaTeX document of the selected entries")
    s.add_argument("select", nargs="*")
    s.add_argument("-o", "--output")
    s.add_argument("--record", default=None, metavar="FILE",
                   help="read the verdicts from this `theorylab verify --json` record (else the derivations are "
                        "checked now)")
    s.add_argument("--jobs", type=int, default=0, help="worker processes checking the derivations, without --record "
                   "(default: the usable cores; 1: in-process)")
    s.set_defaults(fn=cmd_latex)
    s = command("report", help="an offline HTML report (MathML, SVG figures) from the evidence JSON")
    s.add_argument("select", nargs="*", help="families or entries to verify first (with --rerun)")
    s.add_argument("-o", "--output", default="report", help="the folder to write index.html and figures/ into")
    s.add_argument("--evidence", "--record", dest="evidence", default="theorylab-evidence.json",
                   help="the record `theorylab verify` wrote (--record: the same name latex, show and errata take)")
    s.add_argument("--rerun", action="store_true", help="run `theorylab verify` first (else nothing is rerun)")
    s.add_argument("--mutants", default="", help="add the mutation score from `theorylab mutate --json FILE`")
    s.add_argument("--accuracy", default="", help="add the accuracy table from `theorylab accuracy --json FILE`")
    s.add_argument("--profile", choices=("quick", "paper"), default="quick", help="with --rerun")
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="with --rerun")
    s.add_argument("--seed", type=int, default=0, help="with --rerun")
    s.set_defaults(fn=cmd_report)
    s = command("accuracy", help="worst relative error of each entry per output and region, vs references")
    s.add_argument("select", nargs="*")
    s.add_argument("--profile", choices=("quick", "thorough"), default="quick")
    s.add_argument("--json", default="", help="write the accuracy maps here")
    s.add_argument("--jobs", type=int, default=0, help="worker processes (default: the usable cores)")
    s.set_defaults(fn=cmd_accuracy)
    s = command("coverage", help="every labelled equation and statement of each paper, and how it is checked")
    s.add_argument("paper", nargs="?", default="", help="a paper (its name or source file name); default: all")
    s.add_argument("--json", action="store_true",
                   help="a list of {paper, label, status, how, reason, printed, checks: [{latex, fidelity, ...}], "
                        "compared: {status, reason, steps}}")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="every label, with what the paper prints beside what theorylab checks")
    s.add_argument("--claims", action="store_true",
                   help="also the sentences of the prose that assert (we show, it follows, for every, is bounded, "
                        "converges, holds, ...) and that no step quotes: 'uncited claim' (listed, never counted)")
    s.set_defaults(fn=cmd_coverage)
    s = command("mutate", help="plant standard mistakes in entries and report which check catches each")
    s.add_argument("select", nargs="*")
    s.add_argument("--profile", choices=("quick", "full"), default="quick",
                   help="quick: 12 points per entry, checks that run in <= 30 s unperturbed (no trained networks), "
                        "per-check view until the first catch; full: 40 points, every check, every perturbation")
    s.add_argument("--layers", default="", help="comma-separated subset of contract,derivation,evidence")
    s.add_argument("--view", default="", help="comma-separated subset of entries,checks,coverage (default: all): "
                   "entry mutants with each layer's score, per-check sensitivity, entries in no step or check")
    s.add_argument("--first-catch", action="store_true", help="stop at the first layer that catches a mutant")
    s.add_argument("--require-coverage", action="store_true",
                   help="exit 1 also when an entry appears in no derivation step or evidence check unexplained")
    s.add_argument("--json", default="", help="write the mutants and their fate here")
    s.set_defaults(fn=cmd_mutate)
    s = command("errata", help="the ranked errata ledger (errata, amendments, withdrawn items) with live counterexamples")
    s.add_argument("select", nargs="*", help="papers, families or entries (default: all)")
    s.add_argument("--json", action="store_true", help="{items: [...], summary: {...}} with severity and root")
    s.add_argument("--no-eval", action="store_true", help="list the ledger without deciding any step")
    s.add_argument("--record", default=None, metavar="FILE",
                   help="confirm the errata from this `theorylab verify --json` record (else each erratum's step is "
                        "decided now)")
    s.add_argument("-v", "--verbose", action="store_true", help="print each item's note too")
    s.set_defaults(fn=cmd_errata)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        catalogue.use(args.paper_modules)
        return args.fn(args)
    except DomainError as exc:
        print(f"error: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `theorylab latex | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
