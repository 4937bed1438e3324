"""theorylab: machine-checked derivations, kernels and evidence for the closed forms of ML-theory papers.

Public API: `get(ID)` returns a catalogue entry (call it with keyword arguments for its value);
`entries()`, `derivations()`, `errata()` list the catalogue; `DomainError` is the one exception family.
"""
from .catalogue import derivations, entries, errata, get
from .derivation import Derivation, Erratum, Step
from .entry import Entry, Source
from .evidence import Evidence
from .params import DomainError

__all__ = ["get", "entries", "derivations", "errata", "DomainError", "Entry", "Source", "Derivation",
           "Step", "Erratum", "Evidence"]
__version__ = "0.1.0"
