"""Hypothesis profiles for this paper's tests (Hypothesis' settings profiles, chosen on pytest's command line):
without one, Hypothesis' default (100 examples per property).

pytest --hypothesis-profile smoke tests     20 derandomized examples per property: a quick look that the suite runs
                                            (theorylab's own CI runs this example's tests so, to keep its run short;
                                            theorylab's engine properties are tested with 100 examples there)
pytest --hypothesis-profile thorough tests  2000 random examples per property
"""
from hypothesis import HealthCheck, settings

settings.register_profile("smoke", derandomize=True, deadline=None, database=None, max_examples=20,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", deadline=None, max_examples=2000, suppress_health_check=[HealthCheck.too_slow])
