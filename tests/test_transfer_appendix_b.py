"""App. B.2-B.4 of seed 002: every step holds or is a confirmed erratum; planted mistakes are caught."""
import numpy as np
import pytest

from derivations import transfer_appendix_b as B


@pytest.mark.parametrize("deriv", B.DERIVATIONS, ids=lambda d: d.key)
def test_steps_check_as_recorded(deriv):
    bad = [(r.step.label, r.status, r.outcome.detail) for r in deriv.check(cache=False) if not r.ok]
    assert not bad


def test_initialization_satisfies_19():
    for d, L, lam, seed in ((2, 2, 0.5, 0), (3, 4, 0.5, 2), (1, 2, 0.5, 3)):
        ws = B._init(d, L, lam, seed)
        for l in range(L - 1):
            assert np.min(np.linalg.eigvalsh(ws[l].T @ ws[l] - ws[l + 1] @ ws[l + 1].T)) >= lam - 1e-12


def test_conservation_fails_for_a_wrong_flow(monkeypatch):
    """A vector field that is not -grad L (a factor 2 on the last layer) breaks (32)."""
    field = B._field

    def wrong(ws, kind, x, y):
        out = field(ws, kind, x, y)
        return out[:-1] + [2 * out[-1]]

    monkeypatch.setattr(B, "_field", wrong)
    B._state.cache_clear()
    try:
        step = B.B2.steps[0]
        assert not step.check().holds
    finally:
        monkeypatch.undo()
        B._state.cache_clear()


def test_cites_cover_the_appendix_labels():
    cited = {c for d in B.DERIVATIONS for s in d.steps for c in s.cites}
    for n in (32, 33, 34, 35, 36, 37, 39, 40, 41, 42, 43, 44, 45, 46, 47, 49, 50, 51, 52, 53, 54, 55, 56, 57,
              58, 59, 60, 61, 62, 63, 64, 65, 66, 68, 69, 71, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 87):
        assert f"({n})" in cited
    assert {"Lemma 3.3", "Lemma B.1"} <= cited
