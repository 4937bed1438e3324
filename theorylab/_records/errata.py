"""Ledger records: errata (statements the paper prints that do not hold) and amendments (what theorylab changed in a
printed statement before checking it), their severity scale, and the errors a step or derivation is refused with.

Records only: nothing here decides a step (theorylab._decide does); they validate themselves at declaration.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["TrivialStepError", "FidelityError", "SEVERITIES", "SEVERITY_TEXT", "AMENDMENT_KINDS", "AS_PRINTED",
           "Erratum", "Amendment"]


class TrivialStepError(ValueError):
    """A step that cannot fail (or cannot be evaluated) refused at declaration."""


# The severity scale of the ledger, least first. One rule for every paper (docs/authoring.md, "Errata, amendments,
# findings and notes"): the class of a discrepancy is decided by what it does to the printed claim, not by where
# it occurs.
SEVERITIES = ("typo", "proof-gap", "missing-hypothesis", "wrong-constant", "wrong-value", "false-statement")
SEVERITY_TEXT = {
    "typo": "a typo or notation slip: the intended statement is clear from the context and holds",
    "proof-gap": "the statement holds but the printed argument does not establish it (a step fails or is missing)",
    "missing-hypothesis": "the statement holds only under a hypothesis the paper does not state",
    "wrong-constant": "a constant or factor is wrong; the form of the result survives",
    "wrong-value": "a formula gives a wrong value (a closed form, a limit, a rate), beyond a constant",
    "false-statement": "a claimed theorem, inequality or qualitative statement is false",
}
# What an amendment changes in a printed statement before theorylab checks it.
AMENDMENT_KINDS = ("typo fixed", "notation", "hypothesis added", "constant corrected", "statement weakened",
                   "statement replaced")
AS_PRINTED = "as printed"


class FidelityError(TrivialStepError):
    """A step that cites a label without saying whether it checks the printed statement or an amendment of it."""


def _severity(where: str, severity: Any) -> None:
    if severity not in SEVERITIES:
        raise TrivialStepError(f"{where}: severity must be one of {', '.join(SEVERITIES)}; got {severity!r}")


def _text(where: str, name: str, value: Any, *, required: bool = True) -> None:
    if not isinstance(value, str) or (required and not value.strip()):
        raise TrivialStepError(f"{where}: {name} must be a {'non-empty ' if required else ''}string; got "
                               f"{name}={value!r}")


@dataclass(frozen=True, kw_only=True)
class Erratum:
    """A statement the paper prints that does not hold, with what holds instead and how much it matters.

    key         stable identifier, e.g. "000-A-eq18".
    source      the paper's source file (or citation) the statement is printed in.
    where       the equation numbers / section.
    says        what the paper prints (as printed).
    truth       what holds: the correction theorylab uses.
    severity    one of SEVERITIES (typo < proof-gap < missing-hypothesis < wrong-constant < wrong-value <
                false-statement).
    root        the key of the ledger item this one is a consequence of (the same mistake propagated), or None.
    note        why it matters / what it affects.
    at          the counterexample: a point (parameter name -> value) at which the engine evaluates the step's two
                sides; the erratum is confirmed only when the stated relation fails there. Without `at`, the
                step's own search must find a counterexample.
    history     earlier classifications and why they changed ("demoted from wrong-value: ..."), oldest first.
    withdrawn   a non-empty reason marks an item withdrawn: it stays listed in the ledger, as withdrawn, with the
                reason, and attaches to no step (Derivation(withdrawn=...)).
    """

    key: str
    source: str
    where: str
    says: str
    truth: str
    severity: str
    root: str | None = None
    note: str = ""
    at: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)
    history: tuple[str, ...] = ()
    withdrawn: str = ""

    def __post_init__(self):
        where = f"Erratum {self.key!r}"
        for name in ("key", "source", "where", "says", "truth"):
            _text(where, name, getattr(self, name))
        _severity(where, self.severity)
        _text(where, "note", self.note, required=False)
        _text(where, "withdrawn", self.withdrawn, required=False)
        if self.root is not None:
            _text(where, "root", self.root)
            if self.root == self.key:
                raise TrivialStepError(f"{where}: root names the item itself")
        if isinstance(self.history, str):
            object.__setattr__(self, "history", (self.history,))

    @property
    def seed(self) -> str:  # the record's former name for `source` (old code and JSON)
        return self.source

    def __repr__(self) -> str:
        state = f"withdrawn: {self.withdrawn}" if self.withdrawn else self.severity
        return f"<Erratum {self.key} ({self.source}, {self.where}; {state}): says {self.says!r}; holds: {self.truth!r}>"

    def _repr_html_(self) -> str:
        at = ", ".join(f"{k} = {v}" for k, v in (self.at or {}).items())
        state = f"withdrawn: {_esc(self.withdrawn)}" if self.withdrawn else _esc(self.severity)
        return (f"<div><b>Erratum {_esc(self.key)}</b> ({_esc(self.source)}, {_esc(self.where)}; {state})<br>"
                f"the paper states: {_esc(self.says)}<br>what holds: {_esc(self.truth)}"
                + (f"<br>counterexample: {_esc(at)}" if at else "") + (f"<br><i>{_esc(self.note)}</i>" if self.note
                                                                       else "") + "</div>")


@dataclass(frozen=True, kw_only=True)
class Amendment:
    """What theorylab changed in a printed statement before checking it, and why: a ledger item.

    A step that checks an amended statement declares `fidelity=Amendment(...)`; the printed statement is then
    also stated, as a step of the same derivation citing the same label with `fidelity="as printed"`, and holds
    or is an erratum.

    key         stable identifier, e.g. "002-eq37-noise".
    kind        one of AMENDMENT_KINDS: typo fixed, notation, hypothesis added, constant corrected, statement
                weakened, statement replaced.
    what        what was changed ("the label-noise constant sigma^2 of the loss is dropped").
    why         why the change is needed or harmless.
    severity    one of SEVERITIES: how much the discrepancy matters to the paper's claim.
    root        the key of the ledger item this one follows from, or None.
    """

    key: str
    kind: str
    what: str
    why: str
    severity: str
    root: str | None = None

    def __post_init__(self):
        where = f"Amendment {self.key!r}"
        for name in ("key", "what", "why"):
            _text(where, name, getattr(self, name))
        if self.kind not in AMENDMENT_KINDS:
            raise TrivialStepError(f"{where}: kind must be one of {', '.join(AMENDMENT_KINDS)}; got {self.kind!r}")
        _severity(where, self.severity)
        if self.root is not None:
            _text(where, "root", self.root)

    def __repr__(self) -> str:
        return f"<Amendment {self.key} ({self.kind}, {self.severity}): {self.what}>"



def _esc(text: Any) -> str:
    return html.escape(str(text))


class PremiseError(ValueError):
    """A step's premise that is not an earlier step of its own derivation (a later step, or another derivation's)."""


def _premise_message(key: str, label: str, premise: str, labels: list[str]) -> str:
    """One line saying what to write instead of a premise that is not an earlier step of derivation `key`."""
    where = (f"it is a later step of {key}: order the steps so premises come first" if premise in labels else
             f"{key} has no step {premise!r} (a step of another derivation is not a premise here): state it as a "
             "step of this derivation (citing its label), or move this step into the derivation that proves it")
    return f"step {label!r} of {key}: premise {premise!r} is not an earlier step; {where}"
