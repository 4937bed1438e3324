"""measure family: PR bounds and invariances, ENSD and CKA properties, the seed's example."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import theorylab
from theorylab import DomainError
from theorylab.derivations.measure import centered

pr = theorylab.get("measure.participation_ratio")
ensd = theorylab.get("measure.ensd")
cka = theorylab.get("measure.cka")

data = st.tuples(st.integers(2, 8), st.integers(1, 5)).flatmap(
    lambda s: hnp.arrays(np.float64, s, elements=st.floats(-1e3, 1e3, allow_subnormal=False))).filter(
    lambda X: np.linalg.norm(X - X.mean(0)) > 1e-3 * (1 + np.abs(X).max()) and np.any(centered(X)))


@given(data)
def test_pr_is_between_1_and_the_rank(X):
    rank = np.linalg.matrix_rank(X - X.mean(0))
    value = pr(X=X)
    assert 1 - 1e-9 <= value <= rank + 1e-9


@given(data, st.floats(0.01, 100), st.integers(0, 2**31))
def test_pr_is_invariant_to_rotation_and_scale(X, c, seed):
    Q = np.linalg.qr(np.random.default_rng(seed).normal(size=(X.shape[1], X.shape[1])))[0]
    assert pr(X=c * X @ Q) == pytest.approx(pr(X=X), rel=1e-7)


@given(data.flatmap(lambda X: st.tuples(st.just(X), hnp.arrays(np.float64, (X.shape[0], 3),
                                                                 elements=st.floats(-1e3, 1e3)))))
def test_ensd_is_symmetric_and_cka_is_a_similarity(pair):
    X, Y = pair
    if not np.any(centered(Y)):  # the entry's own exact test of a constant column (rejected as bad input)
        return
    assert ensd(X=X, Y=Y) == pytest.approx(ensd(X=Y, Y=X), rel=1e-9)
    assert -1e-12 <= cka(X=X, Y=Y) <= 1 + 1e-12
    assert ensd(X=X, Y=Y) == pytest.approx(cka(X=X, Y=Y) * np.sqrt(pr(X=X) * pr(X=Y)), rel=1e-9, abs=1e-300)
    assert cka(X=X, Y=X) == pytest.approx(1.0, rel=1e-12)


def test_seed_example_subset_of_uncorrelated_units_gives_five():
    H = np.array([[1.0]])
    while H.shape[0] < 16:
        H = np.block([[H, H], [H, -H]])
    X = H[:, 1:11]
    assert ensd(X=X, Y=X[:, :5]) == pytest.approx(5.0, rel=1e-14)
    assert ensd(X=X, Y=H[:, 11:16]) == pytest.approx(0.0, abs=1e-14)
    assert pr(X=X) == pytest.approx(10.0, rel=1e-14)


def test_degenerate_inputs_are_rejected():
    with pytest.raises(DomainError, match="X must have at least one non-constant column"):
        pr(X=[[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(DomainError, match="Y must have the same number of rows"):
        ensd(X=[[1.0], [2.0]], Y=[[1.0], [2.0], [3.0]])
