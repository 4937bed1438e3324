"""The record of one citing step against one label's printed display (`Comparison`), and what it
says of the step (its fidelity, its stated relation) and the seed of its sampled points."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass


# -- the comparison --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """One citing step against the printed display of one label.

    verdict: "matches" (the step states a printed relation, a composition of them, or a printed side where the
    other printed side names what the step computes), "differs" (both forms shown in `printed` and `stated`;
    `decisive` when some sampled point makes one relation hold and the other fail, with the same symbols and finite
    values: for a step declared "as printed", an unexpected result of check), "not parsed" or "not compared" (`how`
    says why)."""

    label: str
    derivation: str
    step: str
    fidelity: str
    verdict: str
    how: str
    printed: str = ""
    stated: str = ""
    decisive: bool = False
    links: tuple = ()          # the printed links (relations, as `_link_key`s) a match compares
    all_links: tuple = ()      # every printed link of the relations compared
    substantive: tuple = ()    # the links of `links` that carry printed mathematics (not name = name)
    cases: tuple = ()          # per printed case distinction of a match: "key#n#reached branches" (`_Comparer.cases`)

    @property
    def compared(self) -> bool:
        return self.verdict in ("matches", "differs")

    @property
    def unexpected(self) -> bool:
        """A step declared "as printed" that decisively states something else than the print."""
        return self.decisive and self.fidelity == "as printed"

    def to_json(self) -> dict:
        return {"label": self.label, "derivation": self.derivation, "step": self.step, "fidelity": self.fidelity,
                "verdict": self.verdict, "how": self.how, "printed": self.printed, "stated": self.stated,
                "decisive": self.decisive, "links": list(self.links), "all_links": list(self.all_links),
                "substantive": list(self.substantive), "cases": list(self.cases)}


def _fidelity_text(step) -> str:
    if getattr(step, "draft", False):
        return "draft"
    f = step.fidelity
    return f if isinstance(f, str) or f is None else f"amended ({f.kind})"


def _stated(step) -> str:
    tex = step.latex() if not step.numeric else ""
    return tex or step.statement()


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:8], 16)
