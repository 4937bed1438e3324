"""The author API's version and its policy: a call in an older form keeps working for at least one release, with
one warning (per call site) naming the form to write instead; docs/authoring.md lists the changes.

API_VERSION counts changes of the author API (theorylab.authoring) that break a paper written against it. A change
bumps it, adds a row to CHANGES, and keeps the old form working with `deprecated(...)` until API_VERSION + 2. An
addition (a new optional field or function: every paper written before it works unchanged) does not bump it: it adds
a row to API_ADDITIONS, with the version it arrived in.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import fields
from typing import Any

__all__ = ["API_VERSION", "API_CHANGES", "API_ADDITIONS", "AuthoringDeprecationWarning", "deprecated",
           "accept_positional"]

API_VERSION = 4

# (version, the old form, the form to write): what a paper written against an earlier version must change
API_CHANGES = (
    (2, "Step(label, lhs, rhs, why, ...)", "Step(label, lhs=..., rhs=..., why=...): keyword-only after the label"),
    (2, "Erratum(key, source, where, says, truth, severity)", "Erratum(key=..., source=..., ...): keyword-only"),
    (2, "Derivation(key, title, source, where, entries, steps)", "Derivation(key=..., title=..., ...): keyword-only"),
    (3, "ENTRY.as_function(name) on an entry of several scalar parameters",
     "ENTRY.as_function(name, of=PARAM_NAME): the argument named (it was the first parameter, silently)"),
    (4, "from theorylab.authoring import solvers", "from theorylab.authoring import golden_mp (each solver by name)"),
)

# (version, what a paper may now write): additions, which break nothing (docs/authoring.md lists them)
API_ADDITIONS = (
    (4, "Step(..., quotes=(\"a fragment of a sentence\",), fidelity=...)",
     "a step cites a claim made in a sentence of the prose (no label) by a fragment found once in the source; "
     "coverage lists the sentence with its verdict (#35)"),
    (4, "NotationMap(..., indexed=(\"x\",), labels=(\"W\",))",
     "declares the bases whose subscripts are indices (x_i is x[i]; else u_f is one symbol) and those whose "
     "superscripts are labels (W^{2} a name, not a power) (#35, PARSE_FORMAT 7)"),
    (4, "Family(..., derivations=\"mypaper.proofs\")",
     "the module of a family's DERIVATIONS, built only by the commands that decide or list steps, so eval and list "
     "never pay for them (#36)"),
)


class AuthoringDeprecationWarning(DeprecationWarning):
    """An author-API call in an older form: it still works, and the message names the form to write instead."""


# shown once per call site even outside __main__ (Python hides DeprecationWarning by default in imported modules,
# which is where a paper's declarations live)
warnings.filterwarnings("default", category=AuthoringDeprecationWarning)


def deprecated(old: str, new: str, since: int, stacklevel: int = 3) -> None:
    """Warn once per call site that `old` is deprecated since API `since` and `new` is what to write."""
    warnings.warn(f"{old} is deprecated since theorylab author API {since} (now {API_VERSION}); write {new}. "
                  f"It keeps working until API {since + 2}.", AuthoringDeprecationWarning, stacklevel=stacklevel)


def accept_positional(cls: type, keep: int, since: int) -> type:
    """Let a keyword-only record accept its older positional form: the first `keep` fields stay positional, the
    next positional arguments fill the following fields in declaration order, with one deprecation warning naming
    the keyword form. More positional arguments than fields is the usual TypeError."""
    init = cls.__init__
    names = [f.name for f in fields(cls) if f.init and not f.name.startswith("_")]

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > keep:
            extra = names[keep:keep + len(args) - keep]
            if len(args) > len(names):
                raise TypeError(f"{cls.__name__} takes at most {len(names)} fields ({', '.join(names)}); got "
                                f"{len(args)} positional arguments")
            clash = [n for n in extra if n in kwargs]
            if clash:
                raise TypeError(f"{cls.__name__}: {', '.join(clash)} given both by position and by keyword")
            head = ", ".join(names[:keep])
            deprecated(f"{cls.__name__}({', '.join(names[:keep] + extra)}) with positional "
                       f"{', '.join(extra)}", f"{cls.__name__}({head + ', ' if head else ''}"
                       f"{', '.join(f'{n}=...' for n in extra)})", since)
            kwargs.update(zip(extra, args[keep:]))
            args = args[:keep]
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    return cls
