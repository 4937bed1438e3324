"""The authoring API: everything a researcher needs to bring their own paper to theorylab, in one import.

    from theorylab.authoring import Paper, Family, Entry, Source, scalar, Derivation, Step, Erratum, Check, compare

`theorylab new NAME [DIR]` writes an installable paper package that uses this API and passes its own checks; edit
it into your paper. `theorylab.testing.contract_tests("NAME")` is its test suite, in one line. Importing this
module imports neither torch nor matplotlib (the trained-network names resolve when first used). The pieces, in the order a paper
uses them:

**A paper**
    `Paper(name=, title=, source=, families=, figures=(), latex={}, doc="")`: the one record per paper, registered
    through the entry-point group `theorylab.papers` (a module defining PAPER), `--paper FILE.py` or
    THEORYLAB_PAPERS. `Family(name=, entries=, checks=None)`: a group of entries with IDs `name.<entry>`, naming the
    module with ENTRIES/DERIVATIONS and the module with CHECKS by dotted name (imported only when needed).

**Closed forms**
    `Entry(id=, title=, source=, doc=, params=, lhs=, formula=, stable_form=, reference=, examples=, ...)`: one
    result. `formula` is the SymPy closed form exactly as the paper writes it (LaTeX and the reference come from it),
    `stable_form` an equal form accurate in float64 (the NumPy and torch kernels come from it; state their equality
    as a derivation step), `reference(**params)` an independent high-precision route to the same number whose
    docstring names the route (quadrature, the defining optimization, a series), `examples` hard inputs always
    tested. Declaration-time validation: a formula symbol that is not a declared parameter's is refused at once.
    Calling the entry validates and evaluates: `entry(t=0.5)`; arrays broadcast over scalar parameters.
    `Source(paper_file_or_citation, where)`: where the result is stated ("eq (2)").
    `Constraint(check, text)`: a condition tying parameters together (`check(values)` returns None or the error).
    A wrong type in any field (a string for `source`, a bare parameter for `params`) is a one-line TypeError naming
    the argument, at declaration.
    Parameter kinds: `scalar(name, doc, low=, high=, low_open=, high_open=, exclude=, exclude_why=, default=, tex=,
    strategy_fn=)`, `integer(...)`, `vector(name, dim, doc, ...)`, `matrix(name, rows, cols, doc, ...)`,
    `expression(name, doc, strategy_fn=)` (a SymPy expression in `Z`); `help(scalar)` lists every argument. Each
    validates its input and raises `DomainError` (a ValueError) with one line naming the parameter, its domain and
    what was given; arrays given for scalar parameters broadcast, and shapes that do not are a DomainError naming the
    parameters and their shapes (exit 2 on the command line). Each draws test values with a Hypothesis strategy:
    the default puts mass at the bounds and just inside them, within relative distances 1e-15..1e-3 of each excluded
    point, and at tiny and huge magnitudes; `strategy_fn(dims)` replaces it (`dims` maps shape names to the sizes
    drawn). `Param` is the record they build. Its `.symbol` is named `name` and carries the SymPy assumptions of
    the domain (positive for low > 0 or an open low = 0, nonnegative for low = 0, negative/nonpositive from `high`,
    nonzero when 0 is excluded, integer); `tex=` changes only its LaTeX (a `ParamSymbol`).
    Entries as functions: `M = ENTRY.as_function("m", of="z")` (or `function(name, of, formula, stable_form, params=,
    tex=, derivatives=)` for a helper) gives an `EntryFunction`; `M(-lam)` in another entry's formula, stable form,
    display or derivation step prints `m(-\\lambda)`, its derivative `m'(-\\lambda)` (`M.derivative()`, or
    `sp.diff`), and the kernels call m's own kernels; `M(x).doit()` is m's formula at x.

**Derivations**
    `Step(label, lhs=, rhs=, why="", relation="==", domain={}, cites=(), premises=(), erratum=None, ...)`
    (keyword-only after the label): the paper's statement `lhs <relation> rhs` (==, <=, <, >=, >) between SymPy
    expressions, or between numeric sides (callables evaluated at the points `search()` proposes). The engine
    decides it: proved (SymPy), certified on a bounded box (interval arithmetic), searched (points and minimum
    slack stated) or refuted. A step whose two sides are the same expression is refused (`TrivialStepError`).
    A step that cites a label declares `fidelity="as printed"` (AS_PRINTED) or `fidelity=Amendment(key=, kind=,
    what=, why=, severity=, root=None)` (kind from AMENDMENT_KINDS); without one it is refused (`FidelityError`),
    and an amended step needs the printed statement as another step citing the same label.
    `Erratum(key=, source=, where=, says=, truth=, severity=, root=None, note="", at={...}, history=(),
    withdrawn="")` (keyword-only): marks a step the paper gets wrong (`source` is the paper's file or citation,
    `severity` one of SEVERITIES, `root` the ledger item it repeats); it is confirmed only when the engine refutes
    the step at the counterexample `at`. The rule deciding erratum, amendment, finding and note is in
    docs/authoring.md.
    `Derivation(key=, title=, source=, where=, entries=, steps=, withdrawn=())` (keyword-only): the chain;
    `derivation.check()` returns the verdicts; `withdrawn` keeps errata found wrong on re-reading, listed as
    withdrawn with why.

**Evidence**
    `Check(name=, entries=, kind=, run=, doc="", parts=None, combine=None, cost=None, resolution=None)`
    (keyword-only): a verify procedure; `run(ctx)` returns records; a check (like a derivation) names entries of
    its own family only (`theorylab verify FAMILY` then finds every check of the family): one naming another
    family's entries is refused when the family loads (PaperError naming both); put it in the family whose entries
    it checks, and read any entry with `theorylab.get(ID)`; `ctx` is a `Context(profile, device, seed)` and
    `ctx.pick(quick=..., paper=...)` sizes the check per profile. Records: `compare(entry, check, kind, predicted,
    observed, atol=, rtol=, source=)` (deterministic, the tolerance an a-priori error bound named in `source`),
    `compare_mc(entry, check, predicted, mean, stderr, samples, k=4, bias=0, bias_source="")` (Monte Carlo: k
    standard errors plus a stated finite-size bias), `compare_scaling(...)` (a limit by a finite-size scaling fit
    over >= 3 sizes), `Evidence(...)` (keyword-only, its verdict computed, never given) and `Finding(...)` (an
    observation, never a pass).
    Monte Carlo: `estimate(sampler, draws, seed=, key=)` returns an `Estimate(mean, stderr, samples)`, where
    `sampler(rng, size)` draws `size` i.i.d. samples; `rng_for(seed, *keys)` gives independent reproducible
    generators. Trained networks: `train(...)` with `TrainConfig`/`TrainResult` (imports torch when first used).
    Sweeps: `grid(...)`, `run_sweep(...)`.
    Learning dynamics: `ode_check(entry, check, system=, y0=, times=, solution=, events=, observe=, rtol=, atol=,
    refine=)` (an ODE by scipy's solve_ivp against its closed form and event times, several initial conditions at
    once, the tolerance from two solves and stated), `integrate(...)` (the solve alone: a `Flow`),
    `trajectory_check(entry, check, params=, loss=, observe=, predicted=, lr=, steps=, every=, read_at=,
    time_per_step=)` (batched gradient descent against the flow's predicted curve, the read-off conventions stated,
    the tolerance from a run at lr/refine), `gradient_descent(...)` (the run alone: a `Trajectory`).

**The author API's version**
    `API_VERSION` (4), `API_CHANGES` ((version, old form, form to write), ...) and `API_ADDITIONS` ((version, what
    a paper may now write, what it does), ...: additions break nothing): an older call form keeps working for two
    API versions with one `AuthoringDeprecationWarning` per call site naming the new form (docs/authoring.md lists
    them). A premise that is not an earlier step of its derivation is a `PremiseError`; `as_written(text,
    *params)` parses a stable form exactly as written (evaluate=False), kept so by the kernels and LaTeX.

**Coverage**
    `Paper(coverage="mypaper.coverage")` names a module whose ACCOUNTS is a tuple of `Account(label, status,
    reason)` records (status "definition" or "not-checkable"): the labels no step cites, and why. A step cites the
    labels it transcribes (`Step(..., cites=("(12)",), fidelity="as printed")`) and the sentences of the prose it
    checks, each by a fragment quoted from it (`Step(..., quotes=("it follows that the loss converges",),
    fidelity="as printed")`: found once in the source, markup and case aside; coverage lists the sentence, where it
    is and its verdict). `check_accounts(paper, ACCOUNTS, labels, derivations)` refuses, in one line naming them, an
    item that is not an Account, a label accounted twice or unknown to the paper, a label both accounted for and
    cited, and a step citing a label the paper does not list.

**Figures**
    `Series(key)`: a set of evidence records a figure draws (`extra=SERIES.tag(x=...)` on the records);
    `Figure(family=, name=, caption=, draw=, draws=(SERIES,))` with `draw(data)` returning a matplotlib figure and
    reading `data.points(SERIES)`; `pyplot()` (Agg backend, report style), `legend(ax)`, `no_data(ax, what)`,
    `as_array(x)`. Sweeps run in-process with `InlineExecutor()`; `resolve_device("auto")` picks the torch device.

**Shared numerics and notation**
    the shared solvers the built-in papers use, by name: brackets (`grid_bracket`, `grid_bracket_mp`,
    `expand_upper`, `bisect`, `bisect_to_adjacent`), golden section (`golden`, `golden_mp`), Newton
    (`newton_bracketed`, `newton_polish`, `iterate_active`) and exact polynomial signs (`square_free`,
    `sturm_positive_roots`, `exact_sign`);
    `interpolating_minimum(objective, gradient, X, y)`: the direct minimum of a penalty over X v = y (SLSQP, then
    projected onto X v = y), as seed 000's eq (22) needs it;
    `NotationMap`: a paper's notation (its printed symbols -> the entries' symbols); `to_jsonable(x)`: a value
    as the JSON record stores it; `Estimate`: what `estimate` returns.

**Tests** (theorylab.testing)
    `contract_tests("NAME")`: the contract suite of a paper, family or entry, as a pytest class (see its docstring).

Example (a whole single-file paper; `theorylab new` writes the same as a package)::

    import sympy as sp
    from theorylab.authoring import Derivation, Entry, Family, Paper, Source, Step, scalar

    T = scalar("t", "the argument", low=-100, high=100, exclude=(0,), exclude_why="0/0 there")
    t = T.symbol

    def reference(t):
        "Route: the series sum_k t^k/(k+1)! in mpmath."
        import mpmath
        return float(mpmath.nsum(lambda k: mpmath.mpf(t) ** k / mpmath.factorial(k + 1), [0, mpmath.inf]))

    ENTRIES = (Entry(id="mgf.m", title="M(t)", source=Source("paper.pdf", "eq (2)"), doc="E exp(tU)",
                     params=(T,), formula=(sp.exp(t) - 1) / t, stable_form=2 * sp.exp(t / 2) * sp.sinh(t / 2) / t,
                     reference=reference),)
    DERIVATIONS = (Derivation(key="mgf.m", title="stable form", source="paper.pdf", where="eq (2)", entries=("mgf.m",),
                              steps=(Step("stable form", lhs=ENTRIES[0].stable_form, rhs=ENTRIES[0].formula),)),)
    PAPER = Paper(name="mgf", title="...", source="paper.pdf", families=(Family(name="mgf", entries=__name__),))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

# One line per public name, `X as X`: what a reader and a type checker follow. The engine behind it is private
# (theorylab._records, _numerics, _sources, _decide, ...): a paper imports only this module and `theorylab`.
from ._decide.coverage import Account as Account
from ._decide.coverage import check_accounts as check_accounts
from ._decide.derivation import AMENDMENT_KINDS as AMENDMENT_KINDS
from ._decide.derivation import AS_PRINTED as AS_PRINTED
from ._decide.derivation import SEVERITIES as SEVERITIES
from ._decide.derivation import Amendment as Amendment
from ._decide.derivation import Derivation as Derivation
from ._decide.derivation import Erratum as Erratum
from ._decide.derivation import FidelityError as FidelityError
from ._decide.derivation import Step as Step
from ._decide.derivation import PremiseError as PremiseError
from ._records.relation import Approx as Approx  # relations with parameters: ≈ within a tolerance, ∝ with its constant
from ._records.relation import Proportional as Proportional
from ._decide.derivation import TrivialStepError as TrivialStepError
from ._decide.entry import Constraint as Constraint
from ._decide.entry import Entry as Entry
from ._decide.entry import EntryFunction as EntryFunction
from ._decide.entry import Source as Source
from ._decide.entry import function as function
# the shared solvers by name (brackets, golden section, Newton, Sturm counts), not the private module (#37 item 5)
from ._numerics.solvers import bisect as bisect
from ._numerics.solvers import bisect_to_adjacent as bisect_to_adjacent
from ._numerics.solvers import exact_sign as exact_sign
from ._numerics.solvers import expand_upper as expand_upper
from ._numerics.solvers import golden as golden
from ._numerics.solvers import golden_mp as golden_mp
from ._numerics.solvers import grid_bracket as grid_bracket
from ._numerics.solvers import grid_bracket_mp as grid_bracket_mp
from ._numerics.solvers import iterate_active as iterate_active
from ._numerics.solvers import newton_bracketed as newton_bracketed
from ._numerics.solvers import newton_polish as newton_polish
from ._numerics.solvers import square_free as square_free
from ._numerics.solvers import sturm_positive_roots as sturm_positive_roots
from ._numerics.dynamics import Flow as Flow
from ._numerics.dynamics import Trajectory as Trajectory
from ._numerics.dynamics import gradient_descent as gradient_descent
from ._numerics.dynamics import integrate as integrate
from ._numerics.dynamics import ode_check as ode_check
from ._numerics.dynamics import trajectory_check as trajectory_check
from ._numerics.kernels import as_written as as_written
from ._numerics.montecarlo import Estimate as Estimate
from ._numerics.montecarlo import estimate as estimate
from ._numerics.montecarlo import rng_for as rng_for
from ._numerics.solvers import interpolating_minimum as interpolating_minimum  # the direct minimum of eq (22)
from ._numerics.sweep import InlineExecutor as InlineExecutor
from ._numerics.sweep import grid as grid
from ._numerics.sweep import run_sweep as run_sweep
from ._records.compat import API_VERSION as API_VERSION
from ._records.compat import API_CHANGES as API_CHANGES
from ._records.compat import API_ADDITIONS as API_ADDITIONS
from ._records.compat import AuthoringDeprecationWarning as AuthoringDeprecationWarning
from ._records.compat import deprecated as _deprecated
from ._records.evidence import Check as Check
from ._records.evidence import Context as Context
from ._records.evidence import Evidence as Evidence
from ._records.evidence import Finding as Finding
from ._records.evidence import compare as compare
from ._records.evidence import compare_mc as compare_mc
from ._records.evidence import compare_scaling as compare_scaling
from ._records.evidence import register_evidence_kind as register_evidence_kind
from ._records.evidence import to_jsonable as to_jsonable
from ._records.figure import Figure as Figure
from ._records.figure import Series as Series
from ._records.figure import as_array as as_array
from ._records.figure import legend as legend
from ._records.figure import no_data as no_data
from ._records.figure import pyplot as pyplot
from ._records.paper import Family as Family
from ._records.paper import Paper as Paper
from ._records.params import Z as Z
from ._records.params import DomainError as DomainError
from ._records.params import Param as Param
from ._records.params import ParamSymbol as ParamSymbol
from ._records.params import expression as expression
from ._records.params import integer as integer
from ._records.params import matrix as matrix
from ._records.params import scalar as scalar
from ._records.params import vector as vector
if TYPE_CHECKING:  # resolved on first use (see __getattr__): what an entries module never needs at import
    from ._numerics.training import TrainConfig as TrainConfig  # trained networks import torch (~3 s)
    from ._numerics.training import TrainResult as TrainResult
    from ._numerics.training import resolve_device as resolve_device
    from ._numerics.training import train as train
    from ._sources.sources import NotationMap as NotationMap  # the source reader (~50 ms), for notation modules
    from .testing import contract_tests as contract_tests  # the contract suite (accuracy, hypothesis), for tests

from ._numerics import solvers as _solvers_module  # only for the deprecated `solvers`

# name -> the module that defines it, imported on first use: `theorylab eval` imports an entries module, which
# imports this one, and pays for none of these (issue #36: eval's start-up)
_LAZY_FROM = {"TrainConfig": "._numerics.training", "TrainResult": "._numerics.training",
              "resolve_device": "._numerics.training", "train": "._numerics.training",
              "NotationMap": "._sources.sources", "contract_tests": ".testing"}
_LAZY = tuple(_LAZY_FROM)
__all__ = sorted([name for name in dir() if not name.startswith("_") and name not in ("TYPE_CHECKING", "Any",
                                                                                      "annotations")]
                 + list(_LAZY))


def __getattr__(name: str) -> Any:
    if name in _LAZY_FROM:
        import importlib  # lazy: see _LAZY_FROM (torch for training; the source reader; the contract suite)

        value = getattr(importlib.import_module(_LAZY_FROM[name], __name__.rpartition(".")[0]), name)
        globals()[name] = value
        return value
    if name == "solvers":  # the module itself, as API 3 exported it: an outside paper keeps working, with a warning
        _deprecated("theorylab.authoring.solvers", "from theorylab.authoring import golden_mp (each solver by name)",
                    since=4)
        return _solvers_module
    raise AttributeError(f"theorylab.authoring has no {name!r}; the authoring API is: {', '.join(__all__)}")


def __dir__() -> list[str]:
    return __all__
