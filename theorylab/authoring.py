"""The authoring API: everything a researcher needs to bring their own paper to theorylab, in one import.

    from theorylab.authoring import Paper, Family, Entry, Source, scalar, Derivation, Step, Erratum, Check, compare

`theorylab new NAME [DIR]` writes an installable paper package that uses this API and passes its own checks; edit
it into your paper. `theorylab.testing.contract_tests("NAME")` is its test suite, in one line. Names are resolved
when first used, so importing this module imports neither torch nor matplotlib. The pieces, in the order a paper
uses them:

**A paper** (theorylab.paper)
    `Paper(name=, title=, source=, families=, figures=(), latex={}, doc="")`: the one record per paper, registered
    through the entry-point group `theorylab.papers` (a module defining PAPER), `--paper FILE.py` or
    THEORYLAB_PAPERS. `Family(name=, entries=, checks=None)`: a group of entries with IDs `name.<entry>`, naming the
    module with ENTRIES/DERIVATIONS and the module with CHECKS by dotted name (imported only when needed).

**Closed forms** (theorylab.entry, theorylab.params)
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
    Entries as functions: `M = ENTRY.as_function("m")` (or `function(name, of, formula, stable_form, params=,
    tex=, derivatives=)` for a helper) gives an `EntryFunction`; `M(-lam)` in another entry's formula, stable form,
    display or derivation step prints `m(-\\lambda)`, its derivative `m'(-\\lambda)` (`M.derivative()`, or
    `sp.diff`), and the kernels call m's own kernels; `M(x).doit()` is m's formula at x.

**Derivations** (theorylab.derivation)
    `Step(label, lhs, rhs, why="", relation="==", domain={}, cites=(), premises=(), erratum=None, ...)`: the paper's
    statement `lhs <relation> rhs` (==, <=, <, >=, >) between SymPy expressions, or between numeric sides
    (callables evaluated at the points `search()` proposes). The engine decides it: proved (SymPy), certified on a
    bounded box (interval arithmetic), searched (points and minimum slack stated) or refuted. A step whose two sides
    are the same expression is refused (`TrivialStepError`).
    A step that cites a label declares `fidelity="as printed"` (AS_PRINTED) or `fidelity=Amendment(key=, kind=,
    what=, why=, severity=, root=None)` (kind from AMENDMENT_KINDS); without one it is refused (`FidelityError`),
    and an amended step needs the printed statement as another step citing the same label.
    `Erratum(key=, source=, where=, says=, truth=, severity=, root=None, note="", at={...}, history=(),
    withdrawn="")` (keyword-only): marks a step the paper gets wrong (`source` is the paper's file or citation,
    `severity` one of SEVERITIES, `root` the ledger item it repeats); it is confirmed only when the engine refutes
    the step at the counterexample `at`. The rule deciding erratum, amendment, finding and note is in
    docs/authoring.md.
    `Derivation(key=, title=, source=, where=, entries=, steps=, withdrawn=())` (keyword-only): the chain; `derivation.check()` returns the
    verdicts; `withdrawn` keeps errata found wrong on re-reading, listed as withdrawn with why.

**Evidence** (theorylab.evidence, theorylab.montecarlo, theorylab.training, theorylab.sweep)
    `Check(name, entries, kind, run, doc="", parts=None, combine=None)`: a verify procedure; `run(ctx)` returns
    records; a check (like a derivation) names entries of its own family only (`theorylab verify FAMILY` then finds
    every check of the family): one naming another family's entries is refused when the family loads (PaperError
    naming both); put it in the family whose entries it checks, and read any entry with `theorylab.get(ID)`; `ctx` is a `Context(profile, device, seed)` and `ctx.pick(quick=..., paper=...)` sizes the check per
    profile. Records: `compare(entry, check, kind, predicted, observed, atol=, rtol=, source=)` (deterministic, the
    tolerance an a-priori error bound named in `source`), `compare_mc(entry, check, predicted, mean, stderr,
    samples, k=4, bias=0, bias_source="")` (Monte Carlo: k standard errors plus a stated finite-size bias),
    `compare_scaling(...)` (a limit by a finite-size scaling fit over >= 3 sizes), `Evidence(...)` (keyword-only,
    its verdict computed, never given) and `Finding(...)` (an observation, never a pass).
    Monte Carlo: `estimate(sampler, draws, seed=, key=)` returns an `Estimate(mean, stderr, samples)`, where
    `sampler(rng, size)` draws `size` i.i.d. samples; `rng_for(seed, *keys)` gives independent reproducible
    generators. Trained networks: `train(...)` with `TrainConfig`/`TrainResult` (imports torch when first used).
    Sweeps: `grid(...)`, `run_sweep(...)`.

**Coverage** (theorylab.coverage)
    `Paper(coverage="mypaper.coverage")` names a module whose ACCOUNTS is a tuple of `Account(label, status,
    reason)` records (status "definition" or "not-checkable"): the labels no step cites, and why. A step cites the
    labels it transcribes (`Step(..., cites=("(12)",), fidelity="as printed")`). `check_accounts(paper, ACCOUNTS,
    labels, derivations)` refuses, in one line naming them, an item that is not an Account, a label accounted twice
    or unknown to the paper, a label both accounted for and cited, and a step citing a label the paper does not list.

**Figures** (theorylab.figure)
    `Series(key)`: a set of evidence records a figure draws (`extra=SERIES.tag(x=...)` on the records);
    `Figure(family=, name=, caption=, draw=, draws=(SERIES,))` with `draw(data)` returning a matplotlib figure and
    reading `data.points(SERIES)`; `pyplot()` (Agg backend, report style), `legend(ax)`, `no_data(ax, what)`,
    `as_array(x)`. Sweeps run in-process with `InlineExecutor()`; `resolve_device("auto")` picks the torch device.

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

import importlib
from typing import Any

_WHERE = {
    "Paper": "paper", "Family": "paper",
    "Entry": "entry", "Source": "entry", "Constraint": "entry", "EntryFunction": "entry", "function": "entry",
    "Param": "params", "scalar": "params", "integer": "params", "vector": "params", "matrix": "params",
    "expression": "params", "DomainError": "params", "Z": "params", "ParamSymbol": "params",
    "Account": "coverage", "check_accounts": "coverage", "contract_tests": "testing",
    "Derivation": "derivation", "Step": "derivation", "Erratum": "derivation", "TrivialStepError": "derivation",
    "Amendment": "derivation", "FidelityError": "derivation", "SEVERITIES": "derivation",
    "AMENDMENT_KINDS": "derivation", "AS_PRINTED": "derivation",
    "Check": "evidence", "Context": "evidence", "Evidence": "evidence", "Finding": "evidence",
    "compare": "evidence", "compare_mc": "evidence", "compare_scaling": "evidence",
    "estimate": "montecarlo", "Estimate": "montecarlo", "rng_for": "montecarlo",
    "train": "training", "TrainConfig": "training", "TrainResult": "training",
    "grid": "sweep", "run_sweep": "sweep", "InlineExecutor": "sweep", "resolve_device": "training",
    "Figure": "figure", "Series": "figure", "pyplot": "figure", "legend": "figure", "no_data": "figure",
    "as_array": "figure",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    try:
        module = _WHERE[name]
    except KeyError:
        raise AttributeError(f"theorylab.authoring has no {name!r}; the authoring API is: "
                             f"{', '.join(__all__)}") from None
    value = getattr(importlib.import_module(f"theorylab.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
