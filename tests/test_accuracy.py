"""Accuracy maps: a planted loss of digits is found in the right region, a reference that disagrees with the
paper's formula is reported, and the published table covers the entries it is asked for."""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from theorylab import accuracy
from theorylab.entry import Entry, Source
from theorylab.params import scalar
from helpers import run_cli


def _one_minus_cos(stable: bool, reference=None):
    x = scalar("x", low=-1e3, high=1e3, exclude=(0.0,), exclude_why="a test")
    formula = 1 - sp.cos(x.symbol)
    return Entry(id="toy.omc", title="1 - cos x", source=Source("toy", "eq (1)"), doc="", params=(x,),
                 formula=formula, stable_form=2 * sp.sin(x.symbol / 2) ** 2 if stable else None,
                 reference=reference or _omc_series)


def _omc_series(x):
    """1 - cos x as 2 sin(x/2)^2 in mpmath at the working precision."""
    return float(2 * mpmath.sin(mpmath.mpf(x) / 2) ** 2)


def test_a_cancellation_is_found_near_the_singular_point_and_the_stable_form_fixes_it():
    bad = accuracy.measure(_one_minus_cos(stable=False))
    worst = bad.worst
    near = [r for r in bad.rows if "near excluded points" in r.region]
    assert not bad.meets and worst.rel_error > 1e-3 and near and near[0].rel_error > 1e-3
    good = accuracy.measure(_one_minus_cos(stable=True))
    assert good.meets and good.worst.rel_error < 1e-13


def test_a_reference_that_disagrees_with_the_papers_formula_is_reported():
    def wrong(x):
        """1 - cos x off by a factor 1 + 1e-6 (planted)."""
        return _omc_series(x) * (1 + 1e-6)

    m = accuracy.measure(_one_minus_cos(stable=True, reference=wrong))
    assert any("differ" in d for d in m.disagreements)
    assert not m.meets  # the kernel is then 1e-6 off its reference


def test_errors_per_component_of_dict_outputs():
    errs = accuracy.errors({"s": 1.0, "M": np.eye(2)}, {"s": 1.0 + 1e-12, "M": np.eye(2)})
    assert set(errs) == {"s", "M"} and 5e-13 < errs["s"][0] < 2e-12 and errs["M"] == (0.0, 0.0)


def test_cli_accuracy_prints_the_table(tmp_path):
    code, out, err = run_cli("accuracy", "qpenalty.q", "--jobs", "1", "--json", str(tmp_path / "acc.json"))
    assert code == 0, err
    assert "| `qpenalty.q` | value |" in out and "1 entries, 1 meet" in out


def test_relu_kernel_is_a_few_ulps_across_its_domain_and_its_switches():
    """Pinned (issue #16): 7.5e-13 relative just above the former Taylor switch at phi = 0.1."""
    import theorylab

    k = theorylab.get("transfer.relu_kernel")
    u = np.concatenate([np.linspace(-1, 1, 401), -np.cos(0.1) + np.logspace(-15, -2, 40),
                        -np.cos(1.0) + np.logspace(-15, -2, 40) * np.tile([1, -1], 20), -1 + np.logspace(-16, -1, 40),
                        np.logspace(-16, -1, 20) * -1])
    u = u[(u >= -1) & (u <= 1)]
    got = k.numpy(u)
    with mpmath.workdps(50):
        ref = np.array([float((mpmath.sqrt(1 - mpmath.mpf(x) ** 2) + mpmath.mpf(x) * (mpmath.pi - mpmath.acos(x)))
                              / (2 * mpmath.pi)) for x in u])
    ok = ref > 0
    rel = np.abs(got[ok] - ref[ok]) / ref[ok]
    assert rel.max() < 8 * np.finfo(float).eps, (u[ok][rel.argmax()], rel.max())
