"""features-are-fate App. B (seed 002, eqs (32)-(87)): the displays whose sides are matrices of a small deep linear
network at the steps' points, compared entrywise with the steps' matrix-valued sides (session 32): each matches, and
the print with a slip planted (a transpose, a sign, a layer) does not."""
import pytest

from derivations import transfer_appendix_b as B


def _step(deriv, prefix):
    return next(s for s in getattr(B, deriv).steps if s.label.startswith(prefix))


def _rewritten(label):
    """The display's text after the notation map's rewrites (its \\check names), and its lead."""
    from test_transfer_appendix_b import _check_text

    return _check_text(label)


@pytest.mark.parametrize("label, deriv, prefix, good, slip", [
    # (39) at L = 4: W_2^T W_2 in place of W_2 W_2^T inside
    ("(39)", "B2", "(39)", r"(\check{W}_{2} \check{W}_{2}^{T} +", r"(\check{W}_{2}^{T} \check{W}_{2} +"),
    # (39): the sign of D_1
    ("(39)", "B2", "(39)", r"+ \check{D}_{1})", r"- \check{D}_{1})"),
    # (39): the outer layers' order (W_2 W_3 read as W_3 W_2 on the right)
    ("(39)", "B2", "(39)", r"\check{D}_{1}) \check{W}_{2} \check{W}_{3}", r"\check{D}_{1}) \check{W}_{3} \check{W}_{2}"),
    # (71) at L = 4, read at a converged T: the layers' order (W_2 W_1 is not the network's map)
    ("(71)", "B3", "(71):", r"\check{W}_{1} \check{W}_{2} \check{W}_{3}", r"\check{W}_{2} \check{W}_{1} \check{W}_{3}"),
    # (71): a sign
    ("(71)", "B3", "(71):", r"= \check{\beta}_{s}", r"= - \check{\beta}_{s}"),
    # (70) at the pretrained limit: u_1 and v_{L-1} exchanged
    ("(70)", "B3", "(70)", r"\check{c} \check{u}_{1} \check{v}_{3}^{T}", r"\check{c} \check{v}_{3} \check{u}_{1}^{T}"),
    # (74) and (120) at the pretrained limit: the sign of the right side (v_{L-1} signed as the text after (73) reads it)
    ("(74)", "B3", "(74), (120)", r"= \check{\beta}_{s}", r"= - \check{\beta}_{s}"),
    ("(120)", "B3", "(74), (120)", r"= \check{\beta}_{s}", r"= - \check{\beta}_{s}"),
    # (74): the layers' order
    ("(74)", "B3", "(74), (120)", r"\check{W}_{2} \check{W}_{3} =", r"\check{W}_{3} \check{W}_{2} ="),
    # (120): the outer product the other way round (v beta_s^T: same shape, another matrix; review)
    ("(120)", "B3", "(74), (120)", r"= \check{\beta}_{s} \check{v}_{3}^{T}", r"= \check{v}_{3} \check{\beta}_{s}^{T}"),
    # (119): X W_1 beta_s in place of X beta_s
    ("(119)", "B3", "(119)", r"(\check{X} \check{\beta}_{s})", r"(\check{X} \check{W}_{1} \check{\beta}_{s})"),
])
def test_matrix_valued_steps_match_the_print_and_a_planted_slip_does_not(label, deriv, prefix, good, slip):
    """(39) (at L = 4), (71) (at L = 4, a converged T), (70), (74), (119), (120) (at the pretrained limit instance,
    L = 4) as products of the d = 3 instance's matrices (notation_002_b's \\check names; the points carry W_l(t),
    W_{l+1}(t), or W_1, .., W_4, D_1(t) of (32), beta_s, v_3, X): the printed matrix is the step's matrix-valued side,
    entry by entry (fidelity._routine_value); the print with the slip planted is not."""
    from theorylab.derivations.notation_002 import NOTATION
    from theorylab._pipeline.fidelity import compare_step
    from theorylab._sources.sources import parse_display

    step = _step(deriv, prefix)
    text, lead = _rewritten(label)
    assert good in text, text
    c = compare_step(label, parse_display(text, NOTATION, lead=lead), step)
    assert c.verdict == "matches", c
    planted = parse_display(text.replace(good, slip, 1), NOTATION, lead=lead)
    assert isinstance(planted, tuple), planted
    c = compare_step(label, planted, step)
    assert c.verdict != "matches", c


def test_39_compares_the_conservation_law_not_only_the_steps_arithmetic(monkeypatch):
    """(39)'s printed right side is evaluated with D_1(t) of the point's state, the step's right side with D_1(0) =
    alpha^2 Dbar_1 (the conservation law (32)): under a flow that is not the gradient flow (a factor 2 on the first
    layer's field), D_1 is not conserved and the print no longer matches the step, so the match is more than the
    step's own arithmetic around the points' matrices."""
    from theorylab.derivations.notation_002 import NOTATION
    from theorylab._pipeline.fidelity import compare_step
    from theorylab._sources.sources import parse_display

    text, lead = _rewritten("(39)")
    rel = parse_display(text, NOTATION, lead=lead)
    field = B._field

    def wrong(ws, kind, x, y):
        out = field(ws, kind, x, y)
        return [2 * out[0]] + out[1:]

    monkeypatch.setattr(B, "_field", wrong)
    B._state.cache_clear()
    try:
        c = compare_step("(39)", rel, _step("B2", "(39)"))
        assert c.verdict != "matches", c
    finally:
        monkeypatch.undo()
        B._state.cache_clear()


@pytest.mark.parametrize("good, slip", [
    # slips that keep every index inside the points' tuples, so each is compared by value (review: W_{k+2} and an
    # upper bound L read past the last layer and left the side without a value)
    (r"\alpha^2 \sum_{k=l}^{L-1}", r"\alpha^2 \sum_{k=l}^{L-2}"),                   # the right side's upper bound
    (r"\alpha^2 \sum_{k=l}^{L-1}", r"\alpha^2 \sum_{k=l+1}^{L-1}"),                 # the right side's lower bound
    (r"\|\boldsymbol{W}_{k+1}\|_F^2) =", r"\|\boldsymbol{W}_{k+1}\|_F) ="),         # a dropped square
    (r"\alpha^2 \sum", r"\alpha \sum"),                                               # the power of alpha
])
def test_50_sums_the_layers_norms_between_the_points_bounds(good, slip):
    """(50): sum_{k=l}^{L-1} (||W_k||_F^2 - ||W_{k+1}||_F^2) = alpha^2 sum_{k=l}^{L-1} (...) with the layers' norms as
    the points' per-layer tuples (froW, froWbar) and the bounds l, L - 1 read at each point (fidelity._bound_at):
    it matches the step; a slip in the summand, a bound or the power of alpha does not."""
    from theorylab.derivations.notation_002 import NOTATION
    from theorylab._pipeline.fidelity import compare_step
    from theorylab._sources.sources import parse_display

    step = _step("B3", "(50)")
    text, lead = _rewritten("(50)")
    assert good in text, text
    assert compare_step("(50)", parse_display(text, NOTATION, lead=lead), step).verdict == "matches"
    planted = parse_display(text.replace(good, slip, 1), NOTATION, lead=lead)
    assert isinstance(planted, tuple), planted
    c = compare_step("(50)", planted, step)
    assert c.verdict != "matches" and "no value" not in c.how, c


@pytest.mark.parametrize("old, new", [
    (r"\geq s_l^2 - \alpha^2", r"\geq s_l^2 - \alpha"),                   # the power of alpha
    (r"\|_{\text{op}}^2", r"\|_{\text{op}}"),                              # erratum 002-eq59's truth, not the print
])
def test_59_the_erratum_step_states_the_print(old, new):
    """(59) as printed (erratum 002-eq59: ||Dbar_l||_op^2 where ||Dbar_l||_op is meant), compared at the erratum's
    counterexample, whose points carry s_l, ||Dbar_l||_op and (58)'s v_l^T W_l^T W_l v_l, v_l^T D_l v_l: the chain
    (58)-(59) matches the step (which then fails: the erratum); the print planted with a slip, or with the erratum's
    correction, does not match the as-printed step."""
    from theorylab.testing import label_status

    status, reason = label_status("features-are-fate", "(59)")
    assert status == "matches the print", reason
    status, reason = label_status("features-are-fate", "(59)", old, new)
    assert status != "matches the print", reason
