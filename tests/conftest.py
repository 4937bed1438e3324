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
