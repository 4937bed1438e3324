"""LaTeX of the catalogue: one block per entry and a standalone document with an errata section."""
from __future__ import annotations

from typing import Iterable

from . import catalogue
from .derivation import Erratum
from .entry import Entry

__all__ = ["entry_block", "document", "escape", "well_formed"]


def escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    out = []
    for ch in text:
        out.append({"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}.get(ch, ch))
    return "".join(out)


def entry_block(entry: Entry, status: str | None = None) -> str:
    """The LaTeX block of one entry: closed form, stable form, conditions, parameters, source."""
    lines = [rf"\subsection*{{\texttt{{{escape(entry.id)}}}: {escape(entry.title)}}}",
             r"\begin{equation*}", entry.latex(), r"\end{equation*}"]
    if entry.display is not None and entry.formula is not None:
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


def _erratum_block(e: Erratum) -> str:
    return (rf"\item \textbf{{{escape(e.key)}}} ({escape(e.seed)}, {escape(e.where)}). "
            rf"The seed states: {escape(e.says)}. What holds: {escape(e.truth)}"
            + (f" {escape(e.note)}" if e.note else ""))


def document(entries: Iterable[Entry], errata: Iterable[Erratum], statuses: dict[str, str] | None = None,
             counterexamples: dict[str, str] | None = None) -> str:
    """A standalone LaTeX document of the given entries, grouped by family, with an errata section."""
    statuses = statuses or {}
    counterexamples = counterexamples or {}
    chosen = list(entries)
    fams = catalogue.families({e.id.split(".")[0] for e in chosen})
    preamble: list[str] = []
    for paper in dict.fromkeys(f.paper for f in fams):  # each paper's own LaTeX settings, once
        lines = paper.latex.get("preamble", ())
        preamble += [line for line in ([lines] if isinstance(lines, str) else lines) if line not in preamble]
    parts = [r"\documentclass[11pt]{article}", r"\usepackage[margin=2.2cm]{geometry}",
             r"\usepackage{amsmath,amssymb}", r"\usepackage[T1]{fontenc}", r"\usepackage{lmodern}",
             r"\emergencystretch=3em",  # long identifiers (seed file names, IDs) wrap instead of overflowing
             *preamble,
             r"\title{theorylab: the catalogue of closed forms}", r"\date{}", r"\begin{document}", r"\maketitle",
             "Every closed form below is transcribed from its seed, machine-checked step by step, and "
             "evaluated numerically from the stated float-stable form.", ""]
    for fam in fams:
        mine = [e for e in chosen if e in fam.entries]
        if not mine:
            continue
        parts.append(rf"\section*{{Family \texttt{{{escape(fam.name)}}}}}")
        parts.append(f"From the paper {escape(fam.paper.title)} ({escape(fam.paper.source)}).\n")
        parts += [entry_block(e, statuses.get(e.id)) for e in mine]
    errs = list(errata)
    if errs:
        parts += [r"\section*{Errata}", r"\begin{enumerate}"]
        for e in errs:
            block = _erratum_block(e)
            if e.key in counterexamples:
                block += f" Counterexample: {escape(counterexamples[e.key])}."
            parts.append(block)
        parts.append(r"\end{enumerate}")
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"


def well_formed(tex: str) -> list[str]:
    """Structural problems of a LaTeX document (empty list: none found), for machines without pdflatex.

    Checks what breaks a compile most often in generated LaTeX: unbalanced braces (escaped \\{ \\} aside),
    \\begin/\\end environments that do not nest, inline $...$ left open within a paragraph, and the document
    frame (documentclass, begin/end document)."""
    import re

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
