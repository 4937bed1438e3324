"""A learning-dynamics paper of 10 derivations and 40 symbolic steps, written to a single .py file: what an author's
edit-check loop is measured on (benchmarks/bench_speed.py, tests/test_check_loop.py).

`write(folder, edit=0)` writes ldyn_paper.py there; `edit=k` changes one step (the 8th, "(edited) power rule": its
exponent) to the k-th of several true variants, as an author does between two checks; `displays` (default 10) of four
steps each.
"""
from __future__ import annotations

import os
from pathlib import Path

STEPS = 40

TEMPLATE = '''"""ldyn: gradient flow on a scalar linear model (a synthetic benchmark paper of {steps} symbolic steps)."""
import sympy as sp

from theorylab.authoring import Derivation, Entry, Family, Paper, Source, Step, scalar

SOURCE = "ldyn.pdf"
T = scalar("t", "training time", low=0, high=10)
A = scalar("a", "the data's second moment", low=0.1, high=5)
t, a = T.symbol, A.symbol
x = sp.Symbol("x", positive=True)

LOSS = sp.exp(-2 * a * t) / 2  # eq. (1): the loss along gradient flow from w(0) = 1, target 0
ENTRY = Entry(id="ldyn.loss", title="The loss along gradient flow", source=Source(SOURCE, "eq (1)"),
              doc="L(t) = exp(-2 a t) / 2.", params=(T, A), lhs="L(t)", formula=LOSS, stable_form=LOSS)
ENTRIES = (ENTRY,)


def steps(k):
    """Four steps of display k: a power rule, a product rule, an exponential identity, a bound."""
    return (
        Step(f"({{k}}a) power rule", lhs=sp.Derivative(t ** (k + 2) * a, t), rhs=(k + 2) * a * t ** (k + 1)),
        Step(f"({{k}}b) product rule", lhs=sp.Derivative(t ** (k + 1) * sp.exp(-a * t), t),
             rhs=sp.exp(-a * t) * ((k + 1) * t ** k - a * t ** (k + 1))),
        Step(f"({{k}}c) square", lhs=(sp.exp(a * t) + (k + 1) * sp.exp(-a * t)) ** 2,
             rhs=sp.exp(2 * a * t) + (k + 1) ** 2 * sp.exp(-2 * a * t) + 2 * (k + 1)),
        Step(f"({{k}}d) bound", lhs=LOSS * (k + 1), rhs=sp.Rational(k + 1, 2), relation="<="),
    )


EDITED = Step("(edited) power rule", lhs=sp.Derivative(t ** {power} * a, t), rhs={power} * a * t ** ({power} - 1))

DERIVATIONS = tuple(Derivation(key=f"ldyn.d{{k}}", title=f"display {{k}}", source=SOURCE, where=f"eq ({{k}})",
                               entries=(ENTRY.id,), steps=steps(k) if k != 1 else (*steps(k)[:3], EDITED))
                    for k in range({displays}))
PAPER = Paper(name="ldyn", title="Gradient flow on a scalar linear model", source=SOURCE,
              families=(Family(name="ldyn", entries=__name__),))
'''


def write(folder, edit: int = 0, displays: int = STEPS // 4) -> Path:
    """Write the paper (edit: which variant of the edited step; each one holds) and return its path; the file is
    replaced whole (an editor's atomic save), so a watcher never reads it half-written."""
    path = Path(folder) / "ldyn_paper.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    # each variant has a size of its own: Python trusts a .pyc whose source has the same size and mtime second
    text = TEMPLATE.format(steps=4 * displays, displays=displays, power=6 + 10 ** edit)
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return path
