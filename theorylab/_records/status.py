"""The statuses of a run's rows, as enums: a step's status, an evidence record's verdict, a ledger item's status.

Each is a `StrEnum` whose values are the words the run record has always stored, so a row still reads and writes
as its JSON (`json.dumps(StepStatus.HOLDS) == '"holds"'`) while code compares with one member, never a retyped
string. `parse` reads a stored word back (old records included) and refuses a word it does not know, in one line.
"""
from __future__ import annotations

from enum import StrEnum

__all__ = ["StepStatus", "Verdict", "LedgerStatus", "parse"]


class StepStatus(StrEnum):
    """What `check` made of a step: it holds, an erratum's printed statement fails as the ledger says, or not."""

    HOLDS = "holds"
    FAILS = "FAILS (unexpected)"
    ERRATUM_CONFIRMED = "erratum confirmed"
    ERRATUM_NOT_REPRODUCED = "ERRATUM NOT REPRODUCED (step holds)"
    ERROR = "ERROR (not evaluated)"
    DRAFT = "draft (not checked)"

    @property
    def expected(self) -> bool:
        """As the paper's record says (a step that holds, an erratum confirmed) or a draft, which claims nothing."""
        return self in (StepStatus.HOLDS, StepStatus.ERRATUM_CONFIRMED, StepStatus.DRAFT)

    @property
    def step_holds(self) -> bool:
        """The step's relation held (whether or not it was meant to: an erratum not reproduced holds)."""
        return self in (StepStatus.HOLDS, StepStatus.ERRATUM_NOT_REPRODUCED)


class Verdict(StrEnum):
    """An evidence record's verdict: within tolerance at the resolution it needs, within it but coarser, or not."""

    PASS = "pass"
    WEAK = "weak"
    FAIL = "fail"


class LedgerStatus(StrEnum):
    """A ledger item's status: an erratum confirmed by its step (or not, or not evaluated), an amendment declared,
    an erratum withdrawn."""

    CONFIRMED = "confirmed"
    NOT_REPRODUCED = "NOT REPRODUCED"
    NOT_EVALUATED = "not evaluated"
    DECLARED = "declared"
    WITHDRAWN = "withdrawn"


def parse(enum: type[StrEnum], word: object, where: str) -> StrEnum:
    """The member of `enum` a stored word stands for; a one-line ValueError naming `where` and the words allowed."""
    try:
        return enum(word)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum)
        raise ValueError(f"{where} must be one of {allowed}; got {word!r}") from None
