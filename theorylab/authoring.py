"""The authoring API: everything a researcher needs to bring their own paper to theorylab, in one import.

    from theorylab.authoring import Paper, Family, Entry, Source, scalar, Derivation, Step, Erratum, Check, compare

- a paper: `Paper`, `Family` (theorylab.paper);
- its closed forms: `Entry`, `Source`, `Constraint` (theorylab.entry) with parameter kinds `scalar`, `integer`,
  `vector`, `matrix`, `expression`, `Param` and the one exception family `DomainError` (theorylab.params);
- its derivations: `Derivation`, `Step`, `Erratum` (theorylab.derivation);
- its evidence: `Check`, `Context`, `Evidence`, `Finding`, `compare`, `compare_mc`, `compare_scaling`
  (theorylab.evidence); Monte Carlo `estimate`, `Estimate`, `rng_for` (theorylab.montecarlo); trained networks
  `train`, `TrainConfig`, `TrainResult` (theorylab.training, imports torch when first used); sweeps `grid`,
  `run_sweep` (theorylab.sweep);
- its figures: `Figure`, `Series`, `pyplot`, `legend` (theorylab.figure).

Names are resolved when first used, so importing this module imports neither torch nor matplotlib.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Paper": "paper", "Family": "paper",
    "Entry": "entry", "Source": "entry", "Constraint": "entry",
    "Param": "params", "scalar": "params", "integer": "params", "vector": "params", "matrix": "params",
    "expression": "params", "DomainError": "params",
    "Derivation": "derivation", "Step": "derivation", "Erratum": "derivation",
    "Check": "evidence", "Context": "evidence", "Evidence": "evidence", "Finding": "evidence",
    "compare": "evidence", "compare_mc": "evidence", "compare_scaling": "evidence",
    "estimate": "montecarlo", "Estimate": "montecarlo", "rng_for": "montecarlo",
    "train": "training", "TrainConfig": "training", "TrainResult": "training",
    "grid": "sweep", "run_sweep": "sweep",
    "Figure": "figure", "Series": "figure", "pyplot": "figure", "legend": "figure",
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
