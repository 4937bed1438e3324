"""theorylab-minnorm: the test risk of minimum-norm least squares in the proportional limit, as a theorylab paper.

Hastie, Montanari, Rosset and Tibshirani, "Surprises in high-dimensional ridgeless least squares interpolation"
(Ann. Statist. 50(2), 2022; arXiv:1903.08560), Theorem 1 for isotropic features. Registered through the
`theorylab.papers` entry point of this package's pyproject.toml, and nothing else.
"""
from theorylab.authoring import Family, Paper

SOURCE = "Hastie, Montanari, Rosset, Tibshirani (2022), Surprises in high-dimensional ridgeless least squares"

PAPER = Paper(
    name="minnorm",
    title="Minimum-norm least squares in the proportional limit",
    source=SOURCE,
    families=(Family(name="minnorm", entries="theorylab_minnorm.entries", checks="theorylab_minnorm.checks",
                     doc="Risk of the minimum-norm interpolator: exact at finite n, d and its limit d/n -> gamma"),),
    figures=("theorylab_minnorm.checks",),
    latex={"preamble": [r"\newcommand{\E}{\mathbb{E}}"],
           "printer": {"symbol_names": {"r": r"\|\beta\|"}},   # SymPy latex() settings for every formula
           "preface": ("The risk of ridgeless least squares with isotropic Gaussian features, from the exact "
                       "finite-size expectation (inverse-Wishart moments) to the Marchenko-Pastur limit.")},
    doc="Double descent of the minimum-norm least-squares interpolator (HMRT 2022, Theorem 1 and Sec. 2).",
)
