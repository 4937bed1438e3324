"""sigmoid-paper: the paper's declaration, scaffolded from its source sigmoid.tex (theorylab new --from)."""
from theorylab.authoring import Family, Paper
from theorylab.authoring import NotationMap

# How the source's LaTeX maps to the SymPy symbols of your steps: rewrites of macros and printed sub-expressions, and
# names -> SymPy objects (symbols unify by name already: a parsed \gamma is your Symbol("gamma")). See
# theorylab.authoring.NotationMap.
NOTATION = NotationMap(rewrites=(), symbols={})

PAPER = Paper(
    name="sigmoid-paper",
    title="sigmoid",
    source="sigmoid.tex",
    source_file="sigmoid.tex",
    families=(Family(name="sigmoid_paper", entries="sigmoid_paper.entries", checks="sigmoid_paper.checks", doc="the paper's results"),),
    coverage="sigmoid_paper.coverage",
    notation=NOTATION,
)
