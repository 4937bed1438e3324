"""Claims in prose (#35 item 4): a step cites a sentence by a quoted fragment found in the source, coverage lists every
cited sentence with its verdict, and `theorylab new --from` proposes the claims a paper makes in statements and
sentences. Each test plants the failure it guards against."""
from __future__ import annotations

import dataclasses
import json

import pytest
import sympy as sp

from theorylab._decide.coverage import coverage, quoted_sentences, summary
from theorylab._decide.derivation import Derivation, Erratum, Step
from theorylab._records.errata import FidelityError, TrivialStepError
from theorylab._sources import prose
from theorylab.testing import run_cli

TEX = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}
\newtheorem{claim}[theorem]{Claim}
\begin{document}
\section{Setting}
Let $u(t)$ solve the gradient flow of the \emph{toy} model, with strength $\sigma$ (see Smith et al. for it).
\begin{equation}\label{eq:flow}
u(t) = \frac{\sigma}{1 + e^{-2 \sigma t}}
\end{equation}
\section{Results}
We show that the loss is bounded by $\sigma^2$ for every $t \ge 0$.
It follows from \eqref{eq:flow} that $u(t)$ converges to $\sigma$ as $t \to \infty$, the ﬁxed point.
The figure is drawn in blue.
\begin{claim}\label{cl:mono}
The flow $u$ is increasing in $t$.
\end{claim}
% We show that a commented sentence is never a claim.
\end{document}
"""

t, s = sp.symbols("t sigma", positive=True)


def _derivation(*steps: Step) -> Derivation:
    return Derivation(key="toy.d", title="toy", source="toy.tex", where="Sec. 2", entries=(), steps=steps)


# -- finding a quoted fragment -----------------------------------------------------------------------------------------

def test_a_fragment_copied_from_the_tex_or_the_pdf_names_its_sentence():
    """Plant: comparing raw text. The PDF copy has θ-style letters, the printed equation number for \\eqref, a
    ligature and a hyphenated line break; the .tex copy has the markup. Both name the sentence of line 12."""
    from_tex = prose.find_quote(TEX, r"It follows from \eqref{eq:flow} that $u(t)$ converges to $\sigma$")
    from_pdf = prose.find_quote(TEX, "it follows from (1) that u(t) con- verges to σ as t → ∞, the fixed point")
    assert from_tex == from_pdf
    assert (from_pdf.line, from_pdf.section) == (12, "Results")
    assert from_pdf.text.startswith("It follows from") and from_pdf.text.endswith("the ﬁxed point.")
    assert prose.find_quote(TEX, "the loss is bounded by σ2 for every t ≥ 0").line == 11


def test_a_misquote_is_an_error_naming_the_fragment_and_where_it_departs():
    """Plant: a misquote (σ^3 for σ^2) must not be 'found' nearby; the error names the fragment and the part found."""
    with pytest.raises(prose.QuoteError) as info:
        prose.find_quote(TEX, "We show that the loss is bounded by $\\sigma^3$ for every $t$")
    msg = str(info.value)
    assert "\n" not in msg and "is not in the source" in msg and "sigma^3" in msg
    assert "We show that the loss is bounded by" in msg and "line 11 (Results)" in msg


def test_an_ambiguous_fragment_says_so_and_a_short_one_is_refused():
    """Plant: a fragment in two sentences silently taken as the first."""
    text = TEX.replace("The figure is drawn in blue.", "We show that the loss is bounded by $\\sigma^2$ at the start.")
    with pytest.raises(prose.QuoteError, match=r"ambiguous: it is in 2 sentences .*line 11.*line 13"):
        prose.find_quote(text, "we show that the loss is bounded by")
    assert prose.find_quote(text, "we show that the loss is bounded by σ2 at the start").line == 13
    with pytest.raises(prose.QuoteError, match="at least 12 letters"):
        prose.find_quote(TEX, "the flow")
    with pytest.raises(prose.QuoteError, match="must be a string"):
        prose.find_quote(TEX, 3)


def test_comments_and_the_preamble_are_never_quoted():
    with pytest.raises(prose.QuoteError, match="not in the source"):
        prose.find_quote(TEX, "a commented sentence is never a claim")
    with pytest.raises(prose.QuoteError, match="not in the source"):
        prose.find_quote(TEX, "newtheorem claim theorem Claim")


# -- the Step record ---------------------------------------------------------------------------------------------------

def test_a_quoting_step_declares_its_fidelity_and_quotes_strings():
    """Plant: a quote without fidelity accepted silently (the rule labels follow holds for sentences too)."""
    step = Step("bounded", lhs=t, rhs=t + 1, relation="<", quotes="the loss is bounded", fidelity="as printed")
    assert step.quotes == ("the loss is bounded",)
    with pytest.raises(FidelityError, match="quoted 'the loss is bounded'.*without a fidelity"):
        Step("bounded", lhs=t, rhs=t + 1, relation="<", quotes=("the loss is bounded",))
    with pytest.raises(TrivialStepError, match="quotes must be a tuple"):
        Step("bounded", lhs=t, rhs=t + 1, relation="<", quotes=(3,), fidelity="as printed")
    with pytest.raises(FidelityError, match="no label or sentence"):
        Step("bounded", lhs=t, rhs=t + 1, relation="<", fidelity="as printed")


# -- coverage ----------------------------------------------------------------------------------------------------------

def _quoting(fragment: str, **kw) -> Step:
    return Step("the flow is bounded", lhs=s / (1 + sp.exp(-2 * s * t)), rhs=s, relation="<",
                quotes=(fragment,), fidelity="as printed", domain={t: (0, 5), s: (0.1, 3)}, **kw)


def test_coverage_lists_each_cited_sentence_with_its_verdict_and_where_it_is():
    d = _derivation(_quoting("u(t) converges to σ as t → ∞"),
                    Step("(1) at t = 0", lhs=s / (1 + sp.exp(-2 * s * t)), rhs=s / 2, relation=">=", cites=("(1)",),
                         fidelity="as printed", domain={t: (0, 5), s: (0.1, 3)}))
    rows = coverage("toy.tex", ["(1)"], [d], text=TEX)
    assert [r["kind"] for r in rows] == ["label", "sentence"]
    row = rows[1]
    assert row["status"] == "as printed" and row["label"] == "sentence, line 12 (Results)"
    assert row["printed"].startswith("It follows from") and row["quotes"] == ["u(t) converges to σ as t → ∞"]
    assert row["checks"][0]["step"] == "the flow is bounded"
    assert summary(rows) == "toy.tex: 1/1 accounted (1 as printed); 1 cited sentence (1 as printed)"
    json.dumps(rows)  # `coverage --json` prints these rows


def test_a_failing_quoting_step_fails_its_sentence_and_an_erratum_is_an_erratum():
    """Plant: a sentence row that always says 'as printed'. A step quoting a false claim (u < sigma/2) FAILS; the
    same claim filed as an erratum is 'erratum'."""
    false = Step("the flow stays below half", lhs=s / (1 + sp.exp(-2 * s * t)), rhs=s / 2, relation="<",
                 quotes=("We show that the loss is bounded by",), fidelity="as printed",
                 domain={t: (0, 5), s: (0.1, 3)})
    rows = coverage("toy.tex", [], [_derivation(false)], text=TEX)
    assert rows[0]["status"] == "FAILS" and rows[0]["line"] == 11
    err = Erratum(key="toy-1", source="toy.tex", where="Sec. 2", says="u < sigma/2", truth="u >= sigma/2",
                  severity="false-statement", at={"t": 1, "sigma": 1})
    rows = coverage("toy.tex", [], [_derivation(dataclasses.replace(false, erratum=err))], text=TEX)
    assert rows[0]["status"] == "erratum" and "toy-1" in rows[0]["how"]


def test_a_misquoting_step_is_an_error_naming_the_paper_the_step_and_the_fragment():
    """Plant: a misquote (a step checking a sentence the paper does not print) listed or dropped silently."""
    d = _derivation(_quoting("u(t) diverges as t → ∞"))
    with pytest.raises(prose.QuoteError) as info:
        coverage("toy.tex", [], [d], text=TEX)
    msg = str(info.value)
    assert "\n" not in msg and "toy.tex" in msg and "'the flow is bounded' of toy.d" in msg and "diverges" in msg
    with pytest.raises(prose.QuoteError, match="names no source file"):
        quoted_sentences("toy.tex", None, [d])


def test_the_built_in_paper_000_cites_its_sentences_after_30_and_35():
    """#35 item 4 on a built-in paper: the sentence after (30) that claims a single-output network minimizes the l1
    norm is checked by a step of l12.reduction, and the remark 'the right-hand side is the l1,2 norm' after (30) and
    after (35) by the erratum steps (the same sentence twice: each quote names its display to be found once)."""
    from pathlib import Path

    from theorylab.derivations import l12

    text = (Path(l12.__file__).parent / "sources" / "000_a994d0e1146a9c4a.txt").read_text(encoding="utf-8")
    found = quoted_sentences("000", text, l12.DERIVATIONS)
    assert [(sentence.line, len(steps)) for sentence, _, steps in found] == [(93, 1), (95, 1), (117, 1)]
    assert "one output minimizes the ℓ_1 norm" in found[1][0].text
    with pytest.raises(prose.QuoteError, match="ambiguous"):  # plant: the quote without its display number
        prose.find_quote(text, "where the right-hand side of the equation is the $\\ell_{1,2}$ norm")


def test_the_report_shows_a_cited_sentence_as_text():
    from theorylab._outputs.report import _coverage_html

    d = _derivation(_quoting("u(t) converges to σ as t → ∞"))
    html = _coverage_html(coverage("toy.tex", [], [d], text=TEX))
    assert "sentence, line 12 (Results)" in html and "It follows from" in html and "as printed" in html


# -- theorylab new --from proposes candidate claims --------------------------------------------------------------------

def test_new_from_a_tex_proposes_statements_and_asserting_sentences_as_commented_candidates(tmp_path):
    """Plant: no candidates, a candidate written as live code (counted as checked), a claim from a comment, a sentence
    that asserts nothing ('drawn in blue'), or a \\newtheorem-declared claim missed."""
    src = tmp_path / "paper.tex"
    src.write_text(TEX, encoding="utf-8")
    code, out, err = run_cli("new", "prose-paper", str(tmp_path / "pkg"), "--from", str(src))
    assert code == 0, out + err
    entries = (tmp_path / "pkg" / "prose_paper" / "entries.py").read_text(encoding="utf-8")
    compile(entries, "entries.py", "exec")  # the package still imports
    block = entries[entries.index("# Candidate claims"):]
    assert block.startswith("# Candidate claims (3)")
    assert all(line.startswith("#") for line in block.splitlines() if line.strip())  # never live code
    assert "# Claim 1 (line 14): The flow $u$ is increasing in $t$." in block
    assert "cites=('Claim 1',)" in block
    assert "# line 11 (Results) [we show]: We show that the loss is bounded" in block
    assert "# line 12 (Results) [it follows]: It follows from" in block
    assert "quotes=('We show that the loss is bounded by $\\\\sigma^2$ for every $t \\\\ge 0$.',)" in block
    assert "drawn in blue" not in block and "commented sentence" not in block
    assert block.count("quotes=(") == 2  # the claim's own sentence is proposed once, by its label
    for line in block.splitlines():  # each proposed quote is found once in the copied source
        if "quotes=(" in line:
            fragment = eval(line[line.index("quotes=(") + len("quotes=("):line.index(",),")])  # noqa: S307
            assert prose.find_quote(TEX, fragment).line in (11, 12)


def test_candidate_claims_of_a_built_in_source_are_sentences_that_assert():
    from pathlib import Path

    from theorylab.derivations import l12

    text = (Path(l12.__file__).parent / "sources" / "000_a994d0e1146a9c4a.txt").read_text(encoding="utf-8")
    found = prose.candidate_claims(text)
    assert any("one output minimizes" in sentence.text for sentence, _ in found)
    assert all(prose.CLAIM_CUES.search(sentence.text) for sentence, _ in found)
    assert 5 < len(found) < len(prose.sentences(text)) / 3  # candidates, not every sentence


def test_a_sentence_printed_twice_is_proposed_without_a_quote_that_would_be_ambiguous():
    """Plant: proposing a quote the paper prints twice (the author's step would then be refused as ambiguous)."""
    from theorylab._tools.scaffold import _candidate_claims

    text = TEX.replace("The figure is drawn in blue.", "We show that the loss is bounded by $\\sigma^2$ for every "
                       "$t \\ge 0$.")
    count, lines = _candidate_claims(text, [])  # no numbered statement given: the claim's sentence is one of them
    assert count == 4 and sum("occurs twice in the source" in line for line in lines) == 2
    assert sum("quotes=(" in line for line in lines) == 2


def test_quotes_is_a_recorded_addition_of_the_author_api():
    """The compatibility policy (theorylab._records.compat): a new optional field is an addition, listed in
    API_ADDITIONS and in the guide, the version unchanged; a paper written without it is untouched."""
    from pathlib import Path

    from theorylab.authoring import API_ADDITIONS, API_VERSION

    guide = (Path(__file__).resolve().parents[1] / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert any("quotes=" in what for _, what, _ in API_ADDITIONS)
    for version, what, _ in API_ADDITIONS:
        assert version <= API_VERSION and f"| {version} | `{what}` |" in guide, what  # every addition in its table
    assert "`Step(..., quotes=(\"a fragment of a sentence\",), fidelity=...)`" in guide
    assert Step("plain", lhs=t, rhs=t + 1, relation="<").quotes == ()


PAPER_FILE = '''
import sympy as sp
from theorylab.authoring import AS_PRINTED, Derivation, Family, Paper, Step

t, sigma = sp.symbols("t sigma", positive=True)
ENTRIES = ()
DERIVATIONS = (Derivation(key="quoting.flow", title="the flow", source="paper.tex", where="Sec. 2", entries=(),
    steps=(Step("the flow stays below sigma", lhs=sigma / (1 + sp.exp(-2 * sigma * t)), rhs=sigma, relation="<",
                quotes=(QUOTE,), fidelity=AS_PRINTED, domain={t: (0, 5), sigma: (0.1, 3)}),)),)
PAPER = Paper(name="quoting", title="quoting", source="paper.tex", source_file=SOURCE,
              families=(Family(name="quoting", entries=MODULE, doc="the flow"),))
'''


@pytest.mark.parametrize("quote, code, says", [
    ("it follows from (1) that u(t) converges to σ", 0, "1 hold"),
    ("it follows from (2) that u(t) converges to σ", 2, "step 'the flow stays below sigma' of quoting.flow: quote"),
])
def test_check_refuses_a_misquote_before_deciding_anything(tmp_path, quote, code, says):
    """Plant: a misquote ((2) for (1)) that `check` passes with exit 0 because only `coverage` reads the source."""
    (tmp_path / "paper.tex").write_text(TEX, encoding="utf-8")
    module = f"quoting_paper_{code}"  # one module name per case: an imported module is not imported again
    path = tmp_path / f"{module}.py"
    path.write_text(f"QUOTE = {quote!r}\nSOURCE = {str(tmp_path / 'paper.tex')!r}\nMODULE = {module!r}\n" + PAPER_FILE,
                    encoding="utf-8")
    got, out, err = run_cli("check", "quoting", "--paper", str(path))
    assert got == code and says in out + err, out + err
    if code == 0:
        got, out, err = run_cli("coverage", "quoting", "--paper", str(path))
        assert "as printed    sentence, line 12 (Results): \u201cIt follows from" in out, out + err


def test_theorem_like_environments_that_are_not_numbered_are_candidates_whatever_their_words():
    """Plant: only sentences with a cue word proposed, so an unnumbered theorem*, an undeclared conjecture and a
    \\newtheorem* environment (none of them a numbered statement) are lost; a definition is not a claim."""
    text = TEX.replace("\\begin{document}", "\\newtheorem*{remarkable}{Remarkable}\n\\begin{document}").replace(
        "\\end{document}", "\\begin{conjecture}\nThe escape time is $\\log(s)/s$.\n\\end{conjecture}\n"
        "\\begin{theorem*}\nGradient flow finds the minimum norm solution.\n\\end{theorem*}\n"
        "\\begin{remarkable}\nThe rank drops by one.\n\\end{remarkable}\n\\begin{definition}\nThe rank is the number "
        "of nonzero singular values.\n\\end{definition}\n\\end{document}")
    found = {s.text: cue for s, cue in prose.candidate_claims(text)}
    assert found["The escape time is $\\log(s)/s$."] == "\\begin{conjecture}"
    assert found["Gradient flow finds the minimum norm solution."] == "\\begin{theorem*}"
    assert found["The rank drops by one."] == "\\begin{remarkable}"
    assert not any("nonzero singular values" in t for t in found)
    assert found["We show that the loss is bounded by $\\sigma^2$ for every $t \\ge 0$."] == "we show"


def test_every_sentence_of_the_built_in_sources_is_found_where_it_is_by_a_fragment_of_itself():
    """Self-consistency over the four built-in sources (978 sentences of 10 words or more; measured: 939 found in
    their own sentence, 32 ambiguous (repeated text), 7 too short, 0 missed or misplaced). Plant: the fragment and the
    source normalized differently (a command's name kept in one), or a match mapped to the wrong sentence."""
    from pathlib import Path

    from theorylab.derivations import l12

    folder = Path(l12.__file__).parent / "sources"
    tally = {"found": 0, "ambiguous": 0, "short": 0}
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        for s in prose.sentences(text):
            if len(s.text.split()) < 10:
                continue
            fragment = " ".join(s.text.split()[1:10])
            try:
                assert prose.find_quote(text, fragment).start == s.start, (path.name, s.line, fragment)
                tally["found"] += 1
            except prose.QuoteError as exc:
                assert "ambiguous" in str(exc) or "at least" in str(exc), str(exc)
                tally["ambiguous" if "ambiguous" in str(exc) else "short"] += 1
    assert tally["found"] >= 930 and tally["ambiguous"] <= 40, tally


def test_an_amended_sentence_needs_its_printed_statement_and_shows_as_amended():
    """The rule labels follow, for sentences: an Amendment of a quoted claim needs the printed claim as a step of the
    same derivation quoting it (plant: an amendment alone, the print never checked)."""
    from theorylab._records.errata import Amendment

    fragment = "the loss is bounded by σ2 for every t ≥ 0"
    amended = Step("the flow is below sigma (amended)", lhs=s / (1 + sp.exp(-2 * s * t)), rhs=s, relation="<",
                   quotes=(fragment,), domain={t: (0, 5), s: (0.1, 3)},
                   fidelity=Amendment(key="toy-a", kind="statement replaced", what="u < sigma for the loss bound",
                                      why="the flow's bound gives the loss's", severity="typo"))
    with pytest.raises(FidelityError, match="toy-a.*no step of the derivation states it as printed"):
        _derivation(amended)
    printed = Step("the loss is bounded (as printed)", lhs=(s / (1 + sp.exp(-2 * s * t)) - s)**2, rhs=s**2,
                   relation="<=", quotes=(fragment,), fidelity="as printed", domain={t: (0, 5), s: (0.1, 3)})
    rows = coverage("toy.tex", [], [_derivation(printed, amended)], text=TEX)
    assert [(r["line"], r["status"]) for r in rows] == [(11, "amended")]
    assert len(rows[0]["checks"]) == 2 and rows[0]["quotes"] == [fragment]
    # the ledger says where the amended statement is printed: the quoted sentence (plant: only `cites` joined, "")
    from theorylab._decide import ledger

    item = next(it for it in ledger.collect([("toy", _derivation(printed, amended))], verdict=None)
                if it.key == "toy-a")
    assert fragment[:30] in item.where, item.where
