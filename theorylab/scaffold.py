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

from .params import DomainError

__all__ = ["scaffold", "check_name", "module_name"]

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
    from . import catalogue

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
        f"tests/test_{module}.py": _TEST,
    }
    written = []
    for rel, template in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.replace("__NAME__", name).replace("__MODULE__", module))
        written.append(path)
    return written


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
)
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
    seed=SOURCE,
    where="eqs (1)-(3)",
    entries=(MGF.id,),
    steps=(
        Step("(1)-(2): M(t) is the integral of exp(t u) over [0, 1]", sp.Integral(sp.exp(t * u), (u, 0, 1)),
             FORMULA, why="integrate exp(t u) from 0 to 1", cites=("(1)", "(2)"), fidelity="as printed"),
        Step("the stable form equals (2)", STABLE, FORMULA, why="2 e^(t/2) sinh(t/2) = e^t - 1"),
        # the paper's (3) exactly as printed: it fails, so it is an erratum, with its counterexample and severity
        Step("the paper's (3): M(t) <= exp(t/2)", FORMULA, sp.exp(t / 2), relation="<=", cites=("(3)",),
             erratum=ERRATUM_3),
        # what holds instead, checked beside the printed (3) and declared as an amendment of it (never in its
        # place): certified by interval arithmetic on boxes either side of t = 0, where eq. (2) is 0/0
        Step("Jensen: M(t) >= exp(t/2) on [1/2, 20]", FORMULA, sp.exp(t / 2), relation=">=",
             domain={t: (0.5, 20.0)}, why="exp(t u) is convex in u and E[U] = 1/2", cites=("(3)",),
             fidelity=JENSEN),
        Step("Jensen: M(t) >= exp(t/2) on [-20, -1/2]", FORMULA, sp.exp(t / 2), relation=">=",
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
