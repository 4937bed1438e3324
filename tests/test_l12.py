"""l12 family: the l1,2 norm is a norm; the reductions (28)-(30) and (33)-(35)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import theorylab
from theorylab import DomainError

norm = theorylab.get("l12.norm")
unit = theorylab.get("l12.unit")
mpn = theorylab.get("l12.min_param_norm")
rmpn = theorylab.get("l12.relu_min_param_norm")

mats = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
    lambda s: hnp.arrays(np.float64, s, elements=st.floats(-1e6, 1e6, allow_subnormal=False)))


@given(mats, st.floats(-1e3, 1e3))
def test_homogeneity(B, c):
    assert norm(beta=c * B) == pytest.approx(abs(c) * norm(beta=B), rel=1e-12, abs=1e-300)


@given(mats.flatmap(lambda A: st.tuples(st.just(A), hnp.arrays(np.float64, A.shape,
                                                                 elements=st.floats(-1e6, 1e6, allow_subnormal=False)))))
def test_triangle_inequality(pair):
    A, B = pair
    # each side is accurate to a few ulps of the largest column norm
    assert norm(beta=A + B) <= norm(beta=A) + norm(beta=B) + 1e-12 * (norm(beta=A) + norm(beta=B))


@given(mats)
def test_definiteness_and_reductions(B):
    assert (norm(beta=B) == 0) == (not np.any(B))
    assert mpn(beta=B) == pytest.approx(2 * norm(beta=B), rel=1e-15)
    # a single-output network (O = 1) gives twice the l1 norm (the seed's special case)
    assert mpn(beta=B[:1]) == pytest.approx(2 * np.abs(B[0]).sum(), rel=1e-12)
    # the ReLU version with rows as units equals the diagonal version of the transpose
    assert rmpn(m=B) == pytest.approx(mpn(beta=B.T), rel=1e-15)


@given(hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-1e3, 1e3)))
def test_unit_is_the_infimum_over_z(b):
    """2||b|| is below z^2 + ||b||^2/z^2 for every z > 0 and attained at z^2 = ||b||."""
    B = np.linalg.norm(b)
    value = unit(b=b)
    for z in (1e-3, 0.1, 1.0, 10.0, 1e3):
        assert value <= z**2 + B**2 / z**2 + 1e-12 * (1 + value)
    if B > 0:
        z = np.sqrt(B)
        assert z**2 + B**2 / z**2 == pytest.approx(value, rel=1e-14)


def test_huge_and_tiny_entries_do_not_overflow():
    assert norm(beta=[[1e200], [1e200]]) == pytest.approx(np.sqrt(2) * 1e200, rel=1e-15)
    assert norm(beta=[[1e-200], [1e-200]]) == pytest.approx(np.sqrt(2) * 1e-200, rel=1e-15)


def test_bad_shapes_are_rejected():
    with pytest.raises(DomainError, match="beta must be a OxD matrix"):
        norm(beta=[1.0, 2.0])


def test_eq31_machine_compared_and_planted_slips_are_not_credited():
    """#24: (31)'s second equality (H = 1, d = O = 1) is compared with the step stating it (the link 'the step
    states'); a slip planted in its right side (m_h^2, a dropped (.)_+, theta_h -> w_h^(1)) is never credited to that
    link (the label keeps at most the name link f_w(x) = ...)"""
    from theorylab.testing import label_status

    def status(old=None, new=None):
        return label_status("ptft-diagonal", "(31)", old, new)

    st, why = status()
    assert st == "partly compared" and "the step states" in why, (st, why)
    for old, new in ((r"\vec{m}_h (\langle", r"\vec{m}_h^2 (\langle"), (r"\vec{x} \rangle)_+,", r"\vec{x} \rangle),"),
                     (r"\langle \vec{\theta}_h", r"\langle w_h^{(1)}")):
        st, why = status(old, new)
        assert st != "matches the print" and "the step states" not in why, (old, new, st, why)
