"""The contract suite: every catalogue entry, present and future, must pass these tests.

Kernels against the mpmath reference over each parameter's domain (Hypothesis), torch against NumPy,
the bad-input rule in Python and through the CLI, LaTeX, and `eval` round trips.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import theorylab
from theorylab import DomainError, catalogue
from helpers import close, rel_error, run_cli

ENTRIES = theorylab.entries()
IDS = [e.id for e in ENTRIES]
KERNEL_ENTRIES = [e for e in ENTRIES if e.compute is None and e.formula is not None]
CATALOGUE = "../shared/CATALOGUE.md"


def _representable(ref) -> bool:
    """A numeric value (not a record: region entries use inf endpoints on purpose) that fits in float64."""
    if isinstance(ref, dict):
        return True
    try:
        return bool(np.all(np.isfinite(np.asarray(ref, dtype=float))))
    except (TypeError, ValueError):
        return True


def _cases(entry):
    """The entry's strategy with its pinned examples (hard inputs) mixed in."""
    base = entry.strategy()
    return st.one_of(st.sampled_from(list(entry.examples)), base) if entry.examples else base


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_entry_has_an_independent_reference(entry):
    """A reference that does not reuse the kernel's expression (quadrature, the defining optimization, a series,
    exact arithmetic): without one, the value test below would check rounding only."""
    assert entry.reference is not None, f"{entry.id} has no independent reference"
    assert (entry.reference.__doc__ or "").strip(), f"{entry.id}: the reference's docstring must name its route"


STABLE_ENTRIES = [e for e in KERNEL_ENTRIES if e.stable_form is not None and e.stable_form != e.formula]


@pytest.mark.parametrize("entry", STABLE_ENTRIES, ids=[e.id for e in STABLE_ENTRIES])
def test_stable_form_equals_the_papers_formula(entry):
    """The float64 kernel (stable form) against the paper's formula in mpmath, wherever the latter is finite."""
    from theorylab import kernels

    @given(_cases(entry))
    @settings(max_examples=40)
    def check(kwargs):
        values = entry.validate(kwargs)
        args = [values[p.name] for p in entry.kernel_params]
        paper = np.asarray(kernels.mp_reference_array(entry.mpmath, args), dtype=float)
        if not np.all(np.isfinite(paper)):
            return
        assert close(entry.numpy(*args), paper, 1e-9), (kwargs, entry.numpy(*args), paper)

    check()


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_value_matches_reference(entry):
    """float64 value vs the independent high-precision reference, relative error <= entry.rtol (1e-10)."""
    @given(_cases(entry))
    def check(kwargs):
        ref = entry.reference_value(**kwargs)
        if not _representable(ref):  # the contract: a value float64 cannot hold is a DomainError, never inf
            with pytest.raises(DomainError, match="not representable"):
                entry(**kwargs)
            return
        value = entry(**kwargs)
        assert close(value, ref, entry.rtol), (kwargs, value, ref)

    for ex in entry.examples:  # pinned inputs always run, whatever Hypothesis draws
        value, ref = entry(**ex), entry.reference_value(**ex)
        assert close(value, ref, entry.rtol), (ex, value, ref)
    check()


@pytest.mark.parametrize("entry", KERNEL_ENTRIES, ids=[e.id for e in KERNEL_ENTRIES])
def test_torch_kernel_equals_numpy(entry):
    """Both kernels evaluate the same stable form in float64: agreement to 1e-12 relative (libm ulps)."""
    import torch

    @given(entry.strategy())
    @settings(max_examples=50)
    def check(kwargs):
        values = entry.validate(kwargs)
        args = [values[p.name] for p in entry.kernel_params]
        expected = entry.numpy(*args)
        got = entry.torch(*[torch.as_tensor(np.asarray(a, dtype=float)) for a in args]).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)

    check()


@pytest.mark.parametrize("entry", KERNEL_ENTRIES, ids=[e.id for e in KERNEL_ENTRIES])
def test_torch_kernel_is_differentiable(entry):
    import torch

    kwargs = _valid_example(entry)  # a generic point: pinned examples sit on purpose at boundaries
    values = entry.validate(kwargs)
    args = [torch.tensor(np.asarray(values[p.name], dtype=float), requires_grad=True) for p in entry.kernel_params]
    entry.torch(*args).sum().backward()
    for a in args:
        assert a.grad is not None and torch.all(torch.isfinite(a.grad))


def _valid_example(entry):
    found = []

    @given(entry.strategy())
    @settings(max_examples=1, database=None)
    def grab(kwargs):
        found.append(kwargs)

    grab()
    return found[0]


def _bad_cases(entry):
    good = _valid_example(entry)
    cases = [({**good, "no_such_parameter": 1.0}, "no_such_parameter")]
    for p in entry.params:
        if not p.has_default:
            cases.append(({k: v for k, v in good.items() if k != p.name}, p.name))
        for bad, why in p.bad_values(good[p.name]):
            cases.append(({**good, p.name: bad}, p.name))
    return cases


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_bad_input_raises_domain_error_naming_the_parameter(entry):
    for kwargs, name in _bad_cases(entry):
        with pytest.raises(DomainError) as info:
            entry(**kwargs)
        message = str(info.value)
        assert name in message and "\n" not in message, (kwargs, message)


def _cli_args(kwargs):
    out = []
    for k, v in kwargs.items():
        if isinstance(v, str):
            out.append(f"{k}={v}")
        else:
            out.append(f"{k}={json.dumps(np.asarray(v).tolist() if isinstance(v, np.ndarray) else v)}")
    return out


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_cli_bad_input_rule(entry):
    """Exit status 2, one stderr line starting `error:` that names the parameter, nothing on stdout."""
    for kwargs, name in _bad_cases(entry):
        args = []
        for k, v in kwargs.items():
            if isinstance(v, float) and not np.isfinite(v):
                args.append(f"{k}={v}")
            elif isinstance(v, np.ndarray) and not np.all(np.isfinite(v)):
                args.append(f"{k}=" + json.dumps(v.tolist()).replace("NaN", "NaN").replace("Infinity", "Infinity"))
            else:
                args += _cli_args({k: v})
        code, out, err = run_cli("eval", entry.id, *args)
        assert code == 2 and out == "", (args, code, out, err)
        assert err.startswith("error:") and err.count("\n") == 1 and name in err, (args, err)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_cli_eval_round_trips(entry):
    kwargs = _valid_example(entry)
    code, out, err = run_cli("eval", entry.id, *_cli_args(kwargs))
    assert code == 0 and err == "", err
    record = json.loads(out)
    assert record["id"] == entry.id
    assert rel_error(record["value"], entry(**kwargs)) == 0.0


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_latex_renders(entry):
    text = entry.latex()
    assert text and text.count("{") == text.count("}") and "None" not in text
    assert entry._repr_latex_().startswith("$$")
    from theorylab.latex import entry_block

    block = entry_block(entry)
    assert block.count(r"\begin{") == block.count(r"\end{")


def test_catalogue_ids_are_served():
    """Every ID of CATALOGUE.md that belongs to an implemented family is served by theorylab.get."""
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "shared" / "CATALOGUE.md"
    if not path.exists():
        pytest.skip(f"{path} not found (run from a checkout beside shared/)")
    ids = set(re.findall(r"^\| `([a-z0-9]+\.[a-z0-9_]+)`", path.read_text(), flags=re.M))
    families = {e.id.split(".")[0] for e in ENTRIES}
    missing = {i for i in ids if i.split(".")[0] in families} - set(IDS)
    assert not missing, f"catalogue IDs not served: {sorted(missing)}"


@pytest.mark.parametrize("derivation", catalogue.derivations(), ids=[d.key for d in catalogue.derivations()])
def test_derivation_is_as_recorded(derivation):
    """Unmarked steps hold and every step marked as a seed erratum fails (the ledger cannot go stale)."""
    results = derivation.check()
    bad = [(r.step.label, r.status, r.outcome.detail) for r in results if not r.ok]
    assert not bad, bad
