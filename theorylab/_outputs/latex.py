"""LaTeX of the registered papers: one block per entry, each derivation with its steps, and a standalone document
(title and preface from the papers selected, their printer settings, an errata section)."""
from __future__ import annotations

import html
import re
from typing import Any, Iterable, Mapping, Sequence

from .._pipeline import catalogue
from .._pipeline import runner
from .._decide.derivation import RELATION_TEX as _REL  # the one relation table
from .._decide.derivation import Derivation, Erratum, StepResult
from .._decide.entry import Entry, _latex

__all__ = ["entry_block", "derivation_block", "document", "from_steps", "escape", "well_formed", "paper_html"]



def _method(method: str) -> str:
    """How a verdict was reached, without the step cache's note: a document says the same, cache warm or cold."""
    return method[:-len(" [cached]")] if method.endswith(" [cached]") else method

def escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    out = []
    for ch in text:
        out.append({"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}.get(ch, ch))
    return "".join(out)


def entry_block(entry: Entry, status: str | None = None) -> str:
    """The LaTeX block of one entry: closed form (in the paper's form and printer settings), stable form,
    conditions, parameters, source."""
    lines = [rf"\subsection*{{\texttt{{{escape(entry.id)}}}: {escape(entry.title)}}}",
             r"\begin{equation*}", entry.latex(), r"\end{equation*}"]
    if entry.display is not None and entry.formula is not None:
        out = entry.check_display()
        if out is not None:
            lines.append(f"The displayed form is the paper's; it equals the formula "
                         f"({escape(out.strength)}: {escape(_method(out.method))})." if out.holds else
                         r"\textbf{The displayed form does not equal the formula}: " + escape(out.detail) + ".")
        else:
            lines += ["In full:", r"\begin{equation*}", entry.latex("full"), r"\end{equation*}"]
    if entry.stable_form is not None and entry.stable_form != entry.formula:
        lines += [r"Evaluated in floating point as the equal form", r"\begin{equation*}",
                  entry.latex("stable"), r"\end{equation*}"]
    if entry.conditions:
        lines.append("Conditions: $" + r"$, $".join(entry.conditions) + "$.")
    lines.append(r"\begin{itemize}")
    for p in entry.params:
        lines.append(rf"\item \texttt{{{escape(p.name)}}}: {escape(p.domain)}" + (f" --- {escape(p.doc)}" if p.doc else ""))
    lines.append(r"\end{itemize}")
    lines.append(f"Source: {escape(str(entry.source))}. Value: {escape(entry.value_doc)}.")
    if status:
        lines.append(f" Derivation: {escape(status)}.")
    lines.append("")
    lines.append(escape(entry.doc))
    return "\n".join(lines) + "\n"


def _step_tex(step, settings: dict) -> str:
    if step.numeric:
        return ""
    return f"{_latex(step.lhs, settings)} {_REL[step.relation]} {_latex(step.rhs, settings)}"


def derivation_block(derivation: Derivation, results: Sequence[StepResult], settings: dict | None = None) -> str:
    """A derivation as LaTeX: each step's relation (printed with the paper's settings; a step with numeric sides
    in words), why it holds, its premises and the engine's verdict as a run recorded it (`results`, e.g.
    `runner.results_from_steps`; nothing is decided here); an erratum is marked with what holds instead."""
    if results is None:
        raise TypeError("derivation_block reads the derivation's step results from a run record "
                        "(runner.results_from_steps); got results=None")
    settings = dict(settings or {})
    lines = [rf"\subsubsection*{{Derivation \texttt{{{escape(derivation.key)}}}: {escape(derivation.title)}}}",
             f"From {escape(derivation.source)}, {escape(derivation.where)}; for "
             + ", ".join(rf"\texttt{{{escape(e)}}}" for e in derivation.entries) + ".", r"\begin{enumerate}"]
    for r in results:
        step = r.step
        tex = _step_tex(step, settings)
        head = (r"\item \textbf{Erratum " + escape(step.erratum.key) + ".} " if step.erratum is not None
                else r"\item ") + escape(step.label) + "."
        body = [head]
        if tex:
            body += [r"\begin{equation*}", tex, r"\end{equation*}"]
        else:
            body.append(f" Numerically: {escape(step.statement())}.")
        if step.why:
            body.append(f"Why: {escape(step.why)}.")
        if step.premises:
            body.append("From: " + "; ".join(escape(p) for p in step.premises) + ".")
        if step.erratum is not None:
            body.append(f"The paper states {escape(step.erratum.says)}; what holds: {escape(step.erratum.truth)}.")
        verdict = f"{escape(r.status)} ({escape(r.strength)}; {escape(_method(r.outcome.method))})"
        if r.outcome.counterexample:
            verdict += f", counterexample {escape(r.outcome.counterexample)}"
        body.append(r"\emph{Verdict:} " + verdict + ".")
        lines.append("\n".join(body))
    weakest = derivation.weakest(results)
    lines.append(r"\end{enumerate}")
    if weakest is not None:
        lines.append(f"Chain strength: {escape(weakest.strength)} (weakest link: {escape(weakest.step.label)}).")
    return "\n".join(lines) + "\n"


def _erratum_block(e: Any) -> str:
    """One ledger item (a theorylab._decide.ledger.LedgerItem, or an Erratum) as an \\item: severity, kind, root."""
    severity = getattr(e, "severity", "")
    kind = getattr(e, "kind", "erratum")
    tag = {"withdrawn": "withdrawn", "amendment": f"amendment: {getattr(e, 'amendment_kind', '')}"}.get(kind, "")
    head = (rf"\item \textbf{{{escape(e.key)}}} [{escape(severity)}{'; ' + escape(tag) if tag else ''}] "
            rf"({escape(e.source)}, {escape(e.where)})"
            + (rf", a consequence of \textbf{{{escape(e.root)}}}" if getattr(e, "root", None) else "") + ". ")
    if kind == "amendment":
        body = rf"Checked instead of the print: {escape(e.truth)}. Why: {escape(e.why)}."
    else:
        body = rf"The paper states: {escape(e.says)}. What holds: {escape(e.truth)}."
    if getattr(e, "withdrawn", ""):
        body += rf" Withdrawn: {escape(e.withdrawn)}."
    return head + body + (f" {escape(e.note)}" if e.note else "")


def _title(papers: list) -> tuple[str, str]:
    """The document's title and preface: the paper's own when one paper is selected, else the papers listed."""
    if len(papers) == 1:
        p = papers[0]
        preface = p.latex.get("preface") or p.doc or ""
        return p.title, " ".join(filter(None, [f"{p.source}.", preface]))
    titles = "; ".join(f"{p.title} ({p.source})" for p in papers)
    return (f"Closed forms of {len(papers)} papers",
            "Papers: " + titles + "." + "".join(f" {p.latex.get('preface')}" for p in papers if p.latex.get("preface")))


def document(entries: Iterable[Entry], errata: Iterable[Any], statuses: dict[str, str] | None = None,
             counterexamples: dict[str, str] | None = None, *, derivations: bool = True,
             results: Mapping[str, Sequence[StepResult]] | None = None) -> str:
    """A standalone LaTeX document of the given entries, grouped by family, with their derivations (steps,
    relations, verdicts, errata marked; the verdicts read from `results`, derivation key -> StepResults of a run
    record: a derivation not in it is named as not in the record, and nothing is decided here) and
    an errata section (ledger items in the ledger's order: roots by severity, consequences after their root,
    withdrawn last; plain Erratum records are listed as given). Title and preface come from the selected papers; each paper's `latex` settings apply
    (`preamble`: extra lines; `printer`: SymPy `latex()` settings; `preface`: text after the title)."""
    statuses = statuses or {}
    counterexamples = counterexamples or {}
    results = results or {}
    chosen = list(entries)
    fams = catalogue.families({e.id.split(".")[0] for e in chosen})
    papers = list(dict.fromkeys(f.paper for f in fams))
    preamble: list[str] = []
    for paper in papers:  # each paper's own LaTeX settings, once
        lines = paper.latex.get("preamble", ())
        preamble += [line for line in ([lines] if isinstance(lines, str) else lines) if line not in preamble]
    title, preface = _title(papers) if papers else ("Closed forms", "")
    parts = [r"\documentclass[11pt]{article}", r"\usepackage[margin=2.2cm]{geometry}",
             r"\usepackage{amsmath,amssymb}", r"\usepackage[T1]{fontenc}", r"\usepackage{lmodern}",
             r"\emergencystretch=3em",  # long identifiers (file names, IDs) wrap instead of overflowing
             *preamble,
             rf"\title{{{escape(title)}}}", r"\date{}", r"\begin{document}", r"\maketitle",
             escape(preface), "",
             "Every closed form below is transcribed from its paper, machine-checked step by step by theorylab, and "
             "evaluated numerically from the stated float-stable form.", ""]
    for fam in fams:
        mine = [e for e in chosen if e in fam.entries]
        if not mine:
            continue
        parts.append(rf"\section*{{Family \texttt{{{escape(fam.name)}}}}}")
        if len(papers) > 1:
            parts.append(f"From the paper {escape(fam.paper.title)} ({escape(fam.paper.source)}).\n")
        parts += [entry_block(e, statuses.get(e.id)) for e in mine]
        if derivations:
            ids = {e.id for e in mine}
            for d in fam.derivations:
                if not set(d.entries) & ids:
                    continue
                if d.key in results:
                    parts.append(derivation_block(d, results[d.key], fam.paper.latex.get("printer", {})))
                else:
                    parts.append(rf"\subsubsection*{{Derivation \texttt{{{escape(d.key)}}}: {escape(d.title)}}}"
                                 "\nIts steps are not in the run record this document was made from.\n")
    errs = list(errata)
    if errs:
        parts += [r"\section*{Errata}", r"\begin{enumerate}"]
        for e in errs:
            block = _erratum_block(e)
            cx = counterexamples.get(e.key) or getattr(e, "counterexample", None)
            if cx:
                block += f" Counterexample: {escape(cx)}."
            parts.append(block)
        parts.append(r"\end{enumerate}")
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"


def from_steps(select: Sequence[str], steps: Iterable[Mapping[str, Any]]) -> tuple[str, list, int]:
    """(tex, errata ledger, number of entries): the LaTeX document of the selected papers, families or entries read
    from a run's step records (`runner.check(select).steps`, or a verify record's `derivation_steps`): each
    derivation's verdicts, the entries' statuses and the errata's confirmations come from the records; no step is
    decided here."""
    steps = list(steps)
    ids, fams = catalogue.select(list(select))
    loaded = catalogue.families(fams)
    chosen = [e for f in loaded for e in f.entries if e.id in ids]
    paper_of = {d.key: f.paper.name for f in loaded for d in f.derivations}
    derivs = runner.derivations_for(ids, fams)
    results = runner.results_from_steps(derivs, steps)
    statuses: dict[str, str] = {}
    for d in derivs:
        if d.key not in results:
            continue
        bad = sum(not r.ok for r in results[d.key])
        text = f"{len(results[d.key])} steps machine-checked ({d.key})" + (f", {bad} unexpected" if bad else "")
        for eid in d.entries:
            statuses[eid] = "; ".join(filter(None, [statuses.get(eid), text]))
    errata = runner.ledger_from_steps([(paper_of.get(d.key, ""), d) for d in derivs], steps)
    return document(chosen, errata, statuses, results=results), errata, len(chosen)


def paper_html(paper) -> str:
    """A paper as HTML for Jupyter (`Paper._repr_html_`): title, source, preface, and per family its entries in
    the paper's LaTeX and its derivations with their step counts (families not registered are named only)."""
    out = [f"<div><b>{html.escape(paper.title)}</b> ({html.escape(paper.source)}); paper "
           f"<code>{html.escape(paper.name)}</code>"]
    preface = paper.latex.get("preface") or paper.doc
    if preface:
        out.append(f"<br><i>{html.escape(preface)}</i>")
    for spec in paper.families:
        try:
            fam = catalogue.family(spec.name)
        except Exception:  # noqa: BLE001 - a paper not registered (yet): its families are named, not loaded
            out.append(f"<br>family <code>{html.escape(spec.name)}</code> (not registered)")
            continue
        out.append(f"<br>family <code>{html.escape(spec.name)}</code>: {len(fam.entries)} entries, "
                   f"{len(fam.derivations)} derivations ({sum(len(d.steps) for d in fam.derivations)} steps)<ul>")
        out += [f"<li><code>{html.escape(e.id)}</code> {html.escape(e.title)}: "
                f"$${html.escape(e.latex())}$$</li>" for e in fam.entries]
        out.append("</ul>")
    return "".join(out) + "</div>"


def well_formed(tex: str) -> list[str]:
    """Structural problems of a LaTeX document (empty list: none found), for machines without pdflatex.

    Checks what breaks a compile most often in generated LaTeX: unbalanced braces (escaped \\{ \\} aside),
    \\begin/\\end environments that do not nest, inline $...$ left open within a paragraph, and the document
    frame (documentclass, begin/end document)."""
    problems = []
    if not tex.lstrip().startswith("\\documentclass"):
        problems.append("does not start with \\documentclass")
    body = re.sub(r"\\\\|\\[{}$%&#_]", "", tex)          # drop escaped characters and \\\\ line breaks
    body = re.sub(r"(?<!\\)%.*", "", body)                 # comments
    depth = 0
    for i, ch in enumerate(body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            problems.append(f"unmatched }} near: {body[max(0, i - 40):i + 1]!r}")
            depth = 0
    if depth:
        problems.append(f"{depth} unclosed {{")
    stack = []
    for m in re.finditer(r"\\(begin|end)\{([^}]*)\}", body):
        if m.group(1) == "begin":
            stack.append(m.group(2))
        elif not stack or stack.pop() != m.group(2):
            problems.append(f"\\end{{{m.group(2)}}} does not close the innermost environment")
    problems += [f"\\begin{{{env}}} never closed" for env in stack]
    for k, para in enumerate(body.split("\n\n")):
        if para.count("$") % 2:
            problems.append(f"odd number of $ in paragraph {k}: {para[:60]!r}")
    if "\\begin{document}" not in body:
        problems.append("no \\begin{document}")
    return problems
