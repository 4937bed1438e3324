"""The offline HTML report: closed forms as MathML, each paper's figures as SVG, the evidence table, the errata.

Built from the evidence record that `theorylab verify` writes; nothing is rerun. It knows no paper: the figures are
the registered papers' own (`Paper.figures`, imported here only), each drawing theory curves from the entries and
the evidence series it declares. No JavaScript, no CDN: one index.html and a figures/ folder of SVG files that
any browser opens from disk.
"""
from __future__ import annotations

import datetime
import html
import importlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

import numpy as np
from latex2mathml.converter import convert
from tqdm import tqdm

from .._records.status import LedgerStatus, StepStatus
from .._pipeline import catalogue
from .._records.figure import Figure, FigureData, pyplot
from .._records.params import DomainError
from .._records.record import EvidenceRecord, load
from .._records.evidence import RESOLUTION_NEEDED, resolution
from .._tools.accuracy import worst_rows

__all__ = ["build", "figures", "load_evidence", "mathml"]


def load_evidence(path: str | os.PathLike) -> EvidenceRecord:
    """The record `theorylab verify --json PATH` wrote; a clear one-line error when it is missing or not one."""
    return load(path)


def mathml(latex: str, display: str = "block") -> str:
    """MathML of a LaTeX formula (latex2mathml), so the report needs no MathJax."""
    # latex2mathml reads \operatorname* (limits below) as a literal star; the starred form only places limits
    return convert(latex.replace(r"\operatorname*{", r"\operatorname{"), display=display)


# -- figures -----------------------------------------------------------------------------------------------
def figures(families: Iterable[str] | None = None) -> tuple[Figure, ...]:
    """The figures the registered papers declare (of these families, when given), their modules imported here."""
    wanted = None if families is None else set(families)
    out = []
    for paper in catalogue.papers():
        for module in paper.figures:
            try:
                found = tuple(importlib.import_module(module).FIGURES)
            except Exception as exc:  # a paper whose figures cannot load is named, never skipped
                raise catalogue.PaperError(f"paper {paper.name}: figures module {module} failed to load: "
                                           f"{type(exc).__name__}: {exc}") from exc
            for f in found:
                if not isinstance(f, Figure) or paper.family(f.family) is None:
                    raise catalogue.PaperError(f"paper {paper.name}: {module}.FIGURES must hold Figure records of "
                                               f"its own families; got {f!r:.80}")
                if wanted is None or f.family in wanted:
                    out.append(f)
    names = [f.name for f in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise catalogue.PaperError(f"figure names must be distinct across papers; got {', '.join(dup)} twice")
    return tuple(out)


def _svg(fig) -> str:
    plt = pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


# -- HTML --------------------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em} h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.entry{border-left:3px solid #8ab;padding:.2em .8em;margin:1em 0;background:#f8fafb}
.entry h3{margin:.2em 0;font-size:1em} .entry code{font-size:.95em}
.math{overflow-x:auto;padding:.3em 0} math{font-size:1.1em}
figure{margin:1.2em 0;text-align:center} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444;text-align:left;margin-top:.4em}
table{border-collapse:collapse;font-size:.82em;width:100%;margin:1em 0}
th,td{border:1px solid #ddd;padding:.25em .4em;vertical-align:top;text-align:left}
th{background:#f0f3f5} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#17692b;font-weight:600} .fail{color:#b00020;font-weight:700}
.meta{color:#555;font-size:.92em} nav a{margin-right:1em}
.erratum{margin:.8em 0;padding:.4em .8em;border-left:3px solid #c66;background:#fdf6f6}
"""


def _num(x) -> str:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return "0" if x == 0 else f"{x:.3g}"
    return html.escape(str(x))


def _entry_html(e) -> str:
    parts = [f'<div class="entry" id="entry-{html.escape(e.id)}"><h3><code>{html.escape(e.id)}</code>: '
             f'{html.escape(e.title)}</h3>', f'<div class="math">{mathml(e.latex())}</div>']
    if e.stable_form is not None and e.stable_form != e.formula:
        parts.append(f'<div class="math" title="evaluated as">evaluated as {mathml(e.latex("stable"), "inline")}'
                     f'</div>')
    parts.append(f'<p class="meta">Source: {html.escape(str(e.source))}. Parameters: '
                 + ", ".join(f"<code>{html.escape(p.name)}</code> ({html.escape(p.domain)})" for p in e.params)
                 + "</p></div>")
    return "\n".join(parts)


def _table(headers: list[str], rows: list[list[tuple[str, str]]], cls: str = "") -> str:
    """An HTML table; each cell is (inner HTML, CSS class)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td class='{c}'>{x}</td>" if c else f"<td>{x}</td>" for x, c in row)
                     + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


def _evidence_table(rows: list[dict]) -> str:
    """The evidence records, coarsest resolution first (a weak record is never shown as a pass)."""
    res = [_resolution_of(r) for r in rows]
    order = sorted(range(len(rows)), key=lambda i: (res[i] is None, -(res[i] or 0.0)))
    cells = []
    for i in order:
        r = rows[i]
        need = r.get("resolution_needed", RESOLUTION_NEEDED.get(r.get("kind"), 0.5))
        verdict = r.get("verdict") or ("fail" if not r.get("passed") else
                                       "weak" if res[i] is not None and res[i] > need else "pass")
        cells.append([
            (f"<code>{html.escape(r['entry'])}</code>", ""),
            (html.escape(r["check"]) + (f"<br><small>{html.escape(r['detail'])}</small>" if r.get("detail") else ""),
             ""), (html.escape(r["kind"]), ""), (_num(r["abs_error"]), "num"), (_num(r["rel_error"]), "num"),
            (_num(r["tolerance"]), "num"), (html.escape(r["tolerance_source"]), ""),
            ("n/a (prediction 0)" if res[i] is None else _num(res[i]), "num"),
            ("" if need is None else _num(need), "num"),
            {"pass": ("pass", "pass"), "weak": ("WEAK", "fail")}.get(verdict, ("FAIL", "fail"))])
    return _table(["entry", "check", "kind", "abs error max|p-o|", "rel error ||p-o||/||p||", "tolerance", "tolerance from", "resolution",
                   "needs", "result"], cells, "evidence")


def _resolution_of(r: dict) -> float | None:
    """The record's resolution (computed from its numbers for a record written before records carried it); None
    where the prediction is 0 or the record has no numbers."""
    try:
        if "resolution" in r:
            return None if r["resolution"] is None else float(r["resolution"])  # "inf" as JSON writes it
        if r.get("predicted") is None or r.get("observed") is None:
            return None
        return resolution(r["predicted"], r["observed"], float(r["tolerance"]), r.get("relation", "=="),
                          bool(r.get("elementwise")))
    except (TypeError, ValueError, KeyError):
        return None


def _findings_html(rows: list[dict]) -> str:
    items = "".join(f"<li><code>{html.escape(r['entry'])}</code> <b>{html.escape(r['check'])}</b>: "
                    f"{html.escape(r['text'])}</li>" for r in rows)
    return f"<h3>Findings ({len(rows)}: reported, not asserted)</h3><ul class='findings'>{items}</ul>"


def _is_finding(r: dict) -> bool:
    return r.get("record") == "finding"


def _derivation_table(steps: list[dict]) -> str:
    by: dict[str, dict] = {}
    for s in steps:
        d = by.setdefault(s["derivation"], {"title": s.get("title", ""), "where": s.get("where", ""), "steps": 0,
                                            "holds": 0, "errata": 0, "unexpected": 0, "numeric": 0})
        d["steps"] += 1
        d["holds"] += s["status"] == StepStatus.HOLDS
        d["errata"] += s["status"] == StepStatus.ERRATUM_CONFIRMED
        d["unexpected"] += not s["ok"]
        d["numeric"] += s.get("strength", "searched" if "numeric" in (s.get("method") or "") else "") == "searched"
    cells = [[(f"<code>{html.escape(k)}</code> {html.escape(d['title'])}", ""), (html.escape(d["where"]), "")]
             + [(str(d[c]), "num") for c in ("steps", "holds", "errata", "numeric")]
             + [(str(d["unexpected"]), "num fail" if d["unexpected"] else "num pass")] for k, d in by.items()]
    return _table(["derivation", "where", "steps", "hold", "errata confirmed", "searched (not proved)",
                   "unexpected"], cells)


def _errata_html(steps: list[dict], ledger: list[dict] | None = None) -> str:
    """The ranked ledger (schema 3: roots by severity, consequences indented under their root, amendments with
    their kind, withdrawn items last with why); an older record lists its errata from the steps, unranked."""
    if not ledger:
        ledger = []
        for s in steps:
            e = s.get("erratum")
            if e and e["key"] not in {it["key"] for it in ledger}:
                ledger.append({**e, "kind": "erratum", "source": e.get("source", e.get("seed", "")),
                               "severity": e.get("severity", "unranked"), "depth": 0,
                               "status": LedgerStatus.CONFIRMED if s["status"] == StepStatus.ERRATUM_CONFIRMED
                               else LedgerStatus.NOT_REPRODUCED})
    out = []
    for it in ledger:
        kind = ("withdrawn" if it["kind"] == "withdrawn" else
                f"amendment: {it.get('amendment_kind', '')}" if it["kind"] == "amendment" else "erratum")
        prints = "Checked instead of the print" if it["kind"] == "amendment" else "What holds"
        says = "Amends" if it["kind"] == "amendment" else "The paper states"
        out.append(f'<div class="erratum sev-{html.escape(it["severity"])}" id="erratum-{html.escape(it["key"])}" '
                   f'style="margin-left:{1.5 * it.get("depth", 0)}em"><b>{html.escape(it["key"])}</b> '
                   f'<span class="sev">[{html.escape(it["severity"])}]</span> ({html.escape(it["source"])}, '
                   f'{html.escape(it["where"])}; {html.escape(kind)}; {html.escape(it["status"])})'
                   + (f' <small>consequence of <a href="#erratum-{html.escape(it["root"])}">'
                      f'{html.escape(it["root"])}</a></small>' if it.get("root") else "")
                   + f'<br><b>{says}:</b> {html.escape(it["says"])}<br><b>{prints}:</b> {html.escape(it["truth"])}'
                   + (f'<br><b>Why:</b> {html.escape(it["why"])}' if it.get("why") else "")
                   + (f'<br><b>Counterexample:</b> {html.escape(it["counterexample"])}' if it.get("counterexample")
                      else "")
                   + (f'<br><b>Withdrawn because:</b> {html.escape(it["withdrawn"])}' if it.get("withdrawn") else "")
                   + "".join(f'<br><small>history: {html.escape(h)}</small>' for h in it.get("history") or ())
                   + (f'<br><small>{html.escape(it["note"])}</small>' if it.get("note") else "") + "</div>")
    live = [it for it in ledger if it["kind"] != "withdrawn"]
    roots = [it for it in live if not it.get("root")]
    by = {}
    for it in roots:
        by[it["severity"]] = by.get(it["severity"], 0) + 1
    counts = ", ".join(f"{v} {k}" for k, v in by.items())
    return (f"<p>{sum(it['kind'] == 'erratum' for it in live)} errata and "
            f"{sum(it['kind'] == 'amendment' for it in live)} amendments in {len(roots)} distinct roots"
            + (f" ({counts})" if counts else "") + f"; {len(ledger) - len(live)} withdrawn.</p>" + "\n".join(out))


def _math_or_text(tex: str) -> str:
    """MathML of `tex`, or the LaTeX itself as code where latex2mathml cannot read it (a PDF conversion's display)."""
    try:
        return mathml(tex, "inline")
    except Exception:  # noqa: BLE001 - latex2mathml raises many types on LaTeX it does not know
        return f"<code>{html.escape(tex)}</code>"


def _coverage_html(rows: list[dict]) -> str:
    """Per label: what the paper prints beside what theorylab checks (each citing step's relation, its fidelity and
    verdict), and the label's status."""
    cells = []
    for r in rows:
        checks = "<br>".join((_math_or_text(c["latex"]) if c.get("latex") else html.escape(c.get("statement", "")))
                             + f" <small>({html.escape(c['fidelity'])}; {html.escape(c['status'])})</small>"
                             for c in r.get("checks", ()))
        printed = (_math_or_text(r["printed"]) if r.get("printed") and not r["label"][0].isalpha() else
                   html.escape(r.get("printed", "")))
        cmp = r.get("compared") or {}
        if cmp:  # the machine comparison of the print with the citing steps (theorylab._pipeline.fidelity)
            printed += (f"<br><small>machine-compared: {html.escape(cmp['status'])}</small>" if cmp.get("compared")
                        else f"<br><small>{html.escape(cmp['status'])}: {html.escape(cmp.get('reason', '')[:160])}"
                             "</small>")
        cells.append([(f"<code>{html.escape(r['paper_name'] if 'paper_name' in r else r['paper'])}</code> "
                       f"{html.escape(r['label'])}", ""), (printed, ""),
                      (checks or html.escape(r.get("reason", "")), ""),
                      (html.escape(r["status"]), "pass" if r["status"] in ("as printed", "amended", "definition",
                                                                            "not-checkable", "erratum") else "fail")])
    return _table(["label", "the paper prints", "theorylab checks", "status"], cells, "coverage")


def _scaling_figures(evidence: list[dict]) -> dict[str, tuple[str, str]]:
    """One figure per finite-size scaling fit (records with extra["scaling"]): name -> (svg, caption)."""
    out: dict[str, tuple[str, str]] = {}
    seen: set[tuple[str, str]] = set()
    for r in evidence:
        sc = (r.get("extra") or {}).get("scaling") if isinstance(r.get("extra"), dict) else None
        if not sc:
            continue
        base = r["check"].split(": the ")[0]
        if (r["entry"], base) in seen:
            continue
        seen.add((r["entry"], base))
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5.2, 3.4))
        N, y, se = (np.asarray(sc[k], dtype=float) for k in ("sizes", "means", "stderrs"))
        ax.errorbar(N, y, yerr=se, fmt="o", capsize=3, label="measured (mean +- SE)")
        grid = np.geomspace(N.min(), N.max() * 4, 200)
        ax.plot(grid, sc["L"] + sc["C"] * grid ** (-sc["order"]), "-",
                label=f"fit L + C {sc['size_name']}^-{sc['order']:g}")
        ax.axhline(sc["theory"], color="k", ls="--", lw=1, label="theory (limit)")
        ax.set_xscale("log")
        ax.set_xlabel(sc["size_name"])
        ax.set_title(f"{r['entry']}: {base}"[:70], fontsize=9)
        ax.legend(fontsize=7)
        name = "scaling-" + "".join(c if c.isalnum() else "-" for c in f"{r['entry']}-{base}")[:80]
        cap = (f"Finite-size scaling of {r['entry']} ({base}): extrapolated L = {sc['L']:.5g} +- {sc['se_L']:.2g} "
               f"vs theory {sc['theory']:.5g}" + (f"; fitted order {sc['p']:.3g} +- {sc['se_p']:.2g} vs predicted "
                                                  f"{sc['order']:g}" if "p" in sc else ""))
        out[name] = (_svg(fig), cap)
    return out


def _mutation_html(path: str | os.PathLike) -> str:
    """The mutation score per family and paper from `theorylab mutate --json`, with every survivor listed."""
    try:
        data = json.loads(Path(path).read_text())
        mutants = data["mutants"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DomainError(f"--mutants must be a JSON file written by `theorylab mutate --json`; got --mutants={path} "
                          f"({exc})") from None
    rows = []
    for fam in sorted({m["entry"].split(".")[0] for m in mutants}):
        ms = [m for m in mutants if m["entry"].split(".")[0] == fam and not m["equivalent"]]
        caught = sum(bool(m["caught_by"]) for m in ms)
        layers = {}
        for m in ms:
            for layer in m["caught_by"][:1]:
                layers[layer] = layers.get(layer, 0) + 1
        rows.append([(f"<code>{html.escape(fam)}</code>", ""), (f"{caught}/{len(ms)}", "num pass" if caught == len(ms)
                                                                  else "num fail"),
                     (html.escape(", ".join(f"{k} {v}" for k, v in layers.items())), ""),
                     (str(sum(m["equivalent"] for m in mutants if m["entry"].split(".")[0] == fam)), "num")])
    survivors = [m for m in mutants if m["survived"]]
    extra = "".join(f"<li><code>{html.escape(m['entry'])}</code> {html.escape(m['target'])} {html.escape(m['op'])}: "
                    f"{html.escape(m['description'])}</li>" for m in survivors)
    return (f"<p>Profile {html.escape(str(data.get('profile')))}: each entry's formula, stable form and solver output "
            "mutated in place (sign flip, factor 2, exponent +- 1, swapped arguments, dropped term).</p>"
            + _table(["family", "caught", "first layer that caught it", "equivalent (excluded)"], rows)
            + (f"<p><b>Survivors:</b></p><ul>{extra}</ul>" if survivors else "<p>No mutant survived.</p>"))


def _accuracy_html(path: str | os.PathLike) -> str:
    """The per-entry accuracy table from `theorylab accuracy --json`."""
    try:
        data = json.loads(Path(path).read_text())
        entries = data["entries"]
        worst = worst_rows(entries)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DomainError(f"--accuracy must be a JSON file written by `theorylab accuracy --json`; got "
                          f"--accuracy={path} ({exc})") from None
    rows = []
    for r in worst:
        ok = r["meets"]
        bound = "" if r["bound"] <= 1e-10 else f"documented bound {r['bound']:g}"
        meets = ("yes" + (f", {bound}" if bound else "")) if ok else (
            f"NO ({r['problems']} points raised)" if r["problems"] else f"NO (bound {r['bound']:g})")
        rows.append([(f"<code>{html.escape(r['entry'])}</code>", ""), (html.escape(r["output"]), ""),
                     (html.escape(r["region"]), ""), (_num(r["rel_error"]), "num"), (_num(r["ulps"]), "num"),
                     (html.escape(r["point"][:80]), ""),
                     (f"{'-' if r['points'] is None else r['points']} ({r['slow']})", "num"),
                     (meets, "pass" if ok else "fail")])
    notes = "".join(f"<li><code>{html.escape(m['entry'])}</code>: documented bound {m['rtol']:g}: "
                    f"{html.escape(m.get('note') or 'no reason given')}</li>" for m in entries if m["rtol"] > 1e-10)
    notes += "".join(f"<li><code>{html.escape(m['entry'])}</code>: {html.escape(t)}</li>" for m in entries
                     for t in list(m.get("problems", ()))[:2] + list(m.get("disagreements", ()))[:2])
    notes += "".join(f"<li><code>{html.escape(m['entry'])}</code>: {len(m['slow'])} points not measured (reference "
                     f"over budget), e.g. {html.escape(m['slow'][0])}</li>" for m in entries if m.get("slow"))
    return (f"<p>Profile {html.escape(str(data.get('profile')))}; worst relative error per entry and output over "
            "the regions of its domain, against the independent reference at rising precision.</p>"
            + _table(["entry", "output", "worst region", "rel. error", "ulps", "point", "points (over budget)",
                      "meets"], rows) + (f"<ul>{notes}</ul>" if notes else ""))


def build(evidence_path: str | os.PathLike, out_dir: str | os.PathLike, *, progress: bool = False,
          mutants: str | os.PathLike | None = None, accuracy: str | os.PathLike | None = None) -> dict:
    """Write out_dir/index.html and out_dir/figures/*.svg from an evidence record; returns a summary dict.

    Everything is built in a temporary folder first and moved into place at the end, so a failure never leaves
    a report that looks complete."""
    data = load_evidence(evidence_path)
    evidence = list(data.evidence)
    steps = list(data.derivation_steps)
    registered = [f.name for f in catalogue.families()]
    fams = list(data.families) or registered
    unknown = [f for f in fams if f not in registered]
    if unknown:
        raise DomainError(f"evidence covers families no registered paper provides; got {', '.join(unknown)} in "
                          f"{evidence_path} (register their paper with --paper or THEORYLAB_PAPERS)")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise DomainError(f"-o must be a directory; got -o={out} (a file)")
    drawn = figures(fams)

    svgs = {f.name: _svg(f.draw(FigureData(f, evidence))) for f in tqdm(drawn, desc="figures", disable=not progress)}
    scaling = _scaling_figures(evidence)
    svgs.update({k: v[0] for k, v in scaling.items()})
    mutation_html = _mutation_html(mutants) if mutants else None
    accuracy_html = _accuracy_html(accuracy) if accuracy else None
    findings = [r for r in evidence if _is_finding(r)]
    evidence = [r for r in evidence if not _is_finding(r)]
    failed = sum(not r.get("passed") for r in evidence)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = [f"<header><h1>theorylab report</h1><p class='meta'>Evidence record <code>"
            f"{html.escape(str(evidence_path))}</code>: profile <b>{html.escape(str(data.profile))}</b>, device "
            f"{html.escape(str(data.device))}, seed {html.escape(str(data.seed))}, "
            f"{html.escape(str(data.seconds))} s. {len(steps)} derivation steps "
            f"({data.unexpected_steps} unexpected), {len(evidence)} evidence records ({failed} failed), "
            f"{len(findings)} findings. Report written {when}.</p>",
            "<nav>" + "".join(f'<a href="#family-{html.escape(f)}">{html.escape(f)}</a>' for f in fams)
            + '<a href="#derivations">derivations</a><a href="#errata">errata</a>'
            + ('<a href="#coverage">coverage</a>' if data.coverage else "") + '</nav></header>']
    for fam in catalogue.families(fams):
        paper = fam.paper
        body.append(f'<section id="family-{fam.name}"><h2>Family <code>{fam.name}</code></h2>'
                    f'<p class="meta">Paper <b>{html.escape(paper.name)}</b>: {html.escape(paper.title)} '
                    f'({html.escape(paper.source)}).</p>')
        body += [_entry_html(e) for e in fam.entries]
        for f in drawn:
            if f.family == fam.name:
                body.append(f'<figure id="fig-{f.name}"><img src="figures/{f.name}.svg" alt="{html.escape(f.caption)}">'
                            f"<figcaption>{html.escape(f.caption)}</figcaption></figure>")
        ids = {e.id for e in fam.entries}
        rows = [r for r in evidence if r["entry"] in ids]
        body.append(f"<h3>Evidence ({len(rows)} records)</h3>" + (_evidence_table(rows) if rows else
                                                                    "<p>No evidence records in this run.</p>"))
        notes = [r for r in findings if r["entry"] in ids]
        if notes:
            body.append(_findings_html(notes))
        for name, (_, cap) in scaling.items():
            if any(name.startswith("scaling-" + "".join(c if c.isalnum() else "-" for c in i)) for i in ids):
                body.append(f'<figure id="fig-{name}"><img src="figures/{name}.svg" alt="{html.escape(cap)}">'
                            f"<figcaption>{html.escape(cap)}</figcaption></figure>")
        body.append("</section>")
    body.append(f'<section id="derivations"><h2>Derivations</h2>{_derivation_table(steps)}</section>')
    body.append(f'<section id="errata"><h2>Errata</h2>{_errata_html(steps, list(data.ledger))}</section>')
    if data.coverage:
        body.append(f'<section id="coverage"><h2>Coverage: the printed page beside the checks</h2>'
                    f'{_coverage_html(list(data.coverage))}</section>')
    if mutation_html is not None:
        body.append(f'<section id="mutation"><h2>Mutation score</h2>{mutation_html}</section>')
    if accuracy_html is not None:
        body.append(f'<section id="accuracy"><h2>Accuracy</h2>{accuracy_html}</section>')
    page = ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>theorylab report</title>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".report-", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        for name, svg in svgs.items():
            (tmp / "figures" / f"{name}.svg").write_text(svg)
        (tmp / "index.html").write_text(page)
        out.mkdir(exist_ok=True)
        if (out / "figures").exists():
            shutil.rmtree(out / "figures")
        os.replace(tmp / "figures", out / "figures")
        os.replace(tmp / "index.html", out / "index.html")  # last: the page appears only when complete
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"index": str(out / "index.html"), "figures": sorted(svgs), "evidence": len(evidence), "failed": failed,
            "errata": (sum(it["kind"] == "erratum" for it in data.ledger) if data.ledger else
                       len({s["erratum"]["key"] for s in steps if s.get("erratum")}))}
