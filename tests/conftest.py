"""Hypothesis profiles: a derandomized `ci` profile by default, `thorough` on demand.

HYPOTHESIS_PROFILE=thorough pytest  runs 20x more examples with randomization.
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, database=None, max_examples=100,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("thorough", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest


@pytest.fixture(autouse=True)
def _no_papers_left_registered():
    """A test that runs the CLI in-process with --paper registers that paper for the process (catalogue.use); forget
    it afterwards, so a later test in the same worker never sees it (which tests share a worker depends on -n)."""
    yield
    from theorylab import catalogue

    catalogue.use(())


# Tests that check every built-in derivation in-process. A process checks a derivation once (Derivation.check caches
# its results per process: the steps are pure), so these run in one pytest-xdist worker (`--dist loadgroup`, set in
# pyproject.toml) and the derivations are checked once per run instead of once per worker that meets them.
_CHECK_ALL = ("test_derivation_is_as_recorded", "test_every_built_in_paper_is_accounted_for", "test_latex_document_",
              "test_relu_derivations_check_as_recorded", "test_check_lists_every_step_with_its_method")
_CHECK_ALL_MODULES = ("test_coverage_000", "test_coverage_001", "test_coverage_002", "test_coverage_003",
                      "test_omega_proofs")


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = getattr(item, "originalname", item.name)
        if name.startswith(_CHECK_ALL) or item.module.__name__.rsplit(".", 1)[-1] in _CHECK_ALL_MODULES:
            item.add_marker(pytest.mark.xdist_group("derivations"))
