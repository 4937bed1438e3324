"""The derivation engine's names in one place, for the code that imported them from here (theorylab.authoring, the
tests, the engine mutants): records from theorylab._records, deciders from their single-role modules.

Records: errata.py (Erratum, Amendment, severities, errors), step.py (Step, Derivation, Outcome, StepResult),
domain.py (intervals and conditions), relation.py (the relation kinds). Deciders: steps.py (a step to its decider),
equality.py, inequality.py, search.py (the float64 search), enclosure.py (guaranteed enclosures and certification),
evaluate.py (a step at points), cache.py (the step cache). Nothing is defined here.
"""
from __future__ import annotations

from .._records.domain import _condition_domain, _interval
from .._records.errata import (AMENDMENT_KINDS, AS_PRINTED, SEVERITIES, SEVERITY_TEXT, Amendment, Erratum,
                               FidelityError, PremiseError, TrivialStepError)
from .._records.step import (RELATION_TEX, RELATIONS, STRENGTHS, Derivation, Outcome, Step, StepResult,
                             StepResults, _is_numeric_side, _name, _sympify, _table)
from .cache import _STEP_CACHE, _StepCache, _engine_fingerprint
from .enclosure import _certify, certify_on_box
from .equality import FLOAT64_RTOL, SYMPY_TIMEOUT_S, _at, _float_evaluator, check_equal
from .evaluate import NUMERIC_DIGITS, NUMERIC_POINTS, _candidate_points, _evaluate, _slack
from .inequality import (CERTIFY_MAX_BOXES, CERTIFY_MAX_VARIABLES, CERTIFY_QUICK_BOXES, CERTIFY_WORK,
                         check_inequality)
from .steps import check_derivation, check_step

__all__ = ["Erratum", "Amendment", "FidelityError", "SEVERITIES", "SEVERITY_TEXT", "AMENDMENT_KINDS", "AS_PRINTED",
           "Step", "StepResult", "StepResults", "Derivation", "Outcome", "TrivialStepError", "PremiseError", "check_equal",
           "check_inequality", "certify_on_box", "check_step", "check_derivation", "RELATIONS", "RELATION_TEX",
           "STRENGTHS", "NUMERIC_DIGITS", "NUMERIC_POINTS", "SYMPY_TIMEOUT_S", "FLOAT64_RTOL",
           "CERTIFY_MAX_VARIABLES", "CERTIFY_MAX_BOXES", "CERTIFY_QUICK_BOXES", "CERTIFY_WORK",
           "_condition_domain", "_interval", "_is_numeric_side", "_name", "_sympify", "_table", "_STEP_CACHE",
           "_StepCache", "_engine_fingerprint", "_certify", "_at", "_float_evaluator", "_candidate_points",
           "_evaluate", "_slack"]
