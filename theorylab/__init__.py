"""theorylab: machine-checked derivations, kernels and evidence for the closed forms of ML-theory papers.

Public API: `get(ID)` returns a catalogue entry (call it with keyword arguments for its value);
`entries()` and `errata()` list the catalogue, `papers()` the registered papers (each a `Paper`);
`DomainError` is the one exception family; `run(selection, profile=..., jobs=...)` verifies papers, families or
entries and returns the typed run record (`theorylab verify` calls it), `check(selection)` decides the derivations
only (`theorylab.verify` is the package of the built-in checks, hence the name `run`). (`theorylab.derivations` is
the package of the built-in papers; the derivations of all registered papers are
`theorylab._pipeline.catalogue.derivations()`.)
"""
import importlib.util as _util
import os as _os


def _source_checkout() -> None:
    """Run from a source checkout without installing (PYTHONPATH=.): the checkout's derivations/ and verify/
    folders, beside this package, serve as theorylab.derivations and theorylab.verify (an install maps them so)."""
    root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    if (_os.path.isfile(_os.path.join(root, "derivations", "__init__.py"))
            and _util.find_spec(f"{__name__}.derivations") is None):
        __path__.append(root)


_source_checkout()

from ._pipeline.catalogue import entries, errata, get, papers  # noqa: E402
from ._decide.derivation import Derivation, Erratum, Step  # noqa: E402
from ._decide.entry import Entry, Source  # noqa: E402
from ._records.evidence import Evidence  # noqa: E402
from ._records.paper import Family, Paper  # noqa: E402
from ._records.params import DomainError  # noqa: E402
from ._pipeline.runner import check  # noqa: E402
from ._pipeline.runner import verify as run  # noqa: E402

__all__ = ["get", "entries", "papers", "errata", "DomainError", "Entry", "Source", "Derivation",
           "Step", "Erratum", "Evidence", "Paper", "Family", "run", "check"]
__version__ = "0.1.0"
