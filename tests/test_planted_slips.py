"""Planted slips (#35 item 7): realistic slips planted in the printed displays the tool machine-compares, across
the four built-in papers, scored by the status of their label (`theorylab.testing.label_status`, the comparison
`theorylab coverage` makes). A slip must be reported as a difference ("differs from the print"), never still match.

Kinds: a coefficient, an exponent, a sign, a swapped index or layer, a transposed matrix, a dropped term, a wrong sum
bound, and a display replaced by an unrelated true identity. Most slips were generated mechanically (one edit of a
kind at its first two places in each machine-compared display) and kept where the display still parses; the
transposes, dropped terms, identities and the ptft-relu slips were written by hand. The transposes are honest misses:
no machine-compared display has a transpose the comparison can see (matrix displays are rewritten whole by the maps
or compared in scalar instances), so they are "not compared" / "not parsed", and they count against the share.

The default run scores a representative subset (QUICK: one slip of each kind and of each paper); the whole suite
runs behind the `paper` marker (`pytest -m paper tests/test_planted_slips.py`) and in
`python benchmarks/bench_fidelity.py`, which prints both shares (machine-compared, slips reported)."""
from __future__ import annotations

import pytest

from theorylab.testing import label_status

DIFFERS = "differs from the print"
STILL_MATCHING = ("matches the print", "partly compared")

# (paper, label, kind, the printed text replaced, its replacement)
SLIPS = [
    ('ptft-diagonal', '(10)', 'coefficient',
     't) = -2\\til', 't) = -3\\til'),
    ('ptft-diagonal', '(11)', 'coefficient',
     '(t) = 2\\til', '(t) = 3\\til'),
    ('ptft-diagonal', '(16)', 'sign',
     '(t))^2 - (d_+', '(t))^2 + (d_+'),
    ('ptft-diagonal', '(20)', 'coefficient',
     '= 2(\\ve', '= 3(\\ve'),
    ('ptft-diagonal', '(20)', 'exponent',
     'c{s}_0^2 + \\', 'c{s}_0^3 + \\'),
    ('ptft-diagonal', '(20)', 'sign',
     's}_0^2 + \\vec', 's}_0^2 - \\vec'),
    ('ptft-diagonal', '(28)', 'bound',
     '^2) + \\sum_{o=1}^O (', '^2) + \\sum_{o=2}^O ('),
    ('ptft-diagonal', '(28)', 'exponent',
     '{(1)})^2) + ', '{(1)})^3) + '),
    ('ptft-diagonal', '(28)', 'sign',
     ')})^2) + \\sum', ')})^2) - \\sum'),
    ('ptft-diagonal', '(30)', 'bound',
     ')^2 + \\sum_{o=1}^O (', ')^2 + \\sum_{o=2}^O ('),
    ('ptft-diagonal', '(30)', 'exponent',
     '{(1)})^2 + \\', '{(1)})^3 + \\'),
    ('ptft-diagonal', '(30)', 'sign',
     '1)})^2 + \\sum', '1)})^2 - \\sum'),
    ('ptft-diagonal', '(31)', 'bound',
     '(x) = \\sum_{h=1}^H w', '(x) = \\sum_{h=2}^H w'),
    ('ptft-diagonal', '(33)', 'exponent',
     ')}\\|_2^2 + \\', ')}\\|_2^3 + \\'),
    ('ptft-diagonal', '(33)', 'sign',
     '\\|_2^2 + \\|w_', '\\|_2^2 - \\|w_'),
    ('ptft-diagonal', '(35)', 'exponent',
     ')}\\|_2^2 + \\', ')}\\|_2^3 + \\'),
    ('ptft-diagonal', '(35)', 'sign',
     '\\|_2^2 + \\|w_', '\\|_2^2 - \\|w_'),
    ('ptft-relu', '(1)', 'bound',
     '\\sum_{h=1}^{H}', '\\sum_{h=2}^{H}'),
    ('ptft-relu', '(7)', 'exponent',
     '(m_h/u - \\gamma)^2', '(m_h/u - \\gamma)^3'),
    ('ptft-relu', '(7)', 'sign',
     '- 2u\\langle', '+ 2u\\langle'),
    ('ptft-relu', '(7)', 'identity',
     'p(u) = (m_h/u - \\gamma)^2 + u^2 + \\|\\boldsymbol{w}_{0h}^{(1)}\\|_2^2 - 2u\\langle \\hat{\\boldsymbol{w}}_h, \\boldsymbol{w}_{0h}^{(1)} \\rangle,', '(m_h/u - \\gamma)^2 = m_h^2/u^2 - 2\\gamma m_h/u + \\gamma^2.'),
    ('features-are-fate', '(8)', 'dropped',
     '(1-\\gamma)^2 + \\gamma \\sigma^2}{1-\\gamma}', '(1-\\gamma)^2}{1-\\gamma}'),
    ('features-are-fate', '(8)', 'exponent',
     'gamma)^2 + \\', 'gamma)^3 + \\'),
    ('features-are-fate', '(8)', 'identity',
     '\\mathbb{E}_{\\mathcal{D}}\\mathcal{R} = \\begin{cases} \\frac{(1-\\gamma)^2 + \\gamma \\sigma^2}{1-\\gamma} & \\gamma < 1\\\\ \\frac{\\sigma^2}{\\gamma - 1} & \\gamma > 1 \\end{cases}', '(1-\\gamma)^2 + \\gamma \\sigma^2 = 1 - 2\\gamma + \\gamma^2 + \\gamma\\sigma^2'),
    ('features-are-fate', '(8)', 'sign',
     'rac{(1-\\gam', 'rac{(1 + \\gam'),
    ('features-are-fate', '(10)', 'dropped',
     '= \\sin^2\\theta + \\frac', '= \\frac'),
    ('features-are-fate', '(10)', 'exponent',
     '= \\sin^2\\the', '= \\sin^3\\the'),
    ('features-are-fate', '(10)', 'identity',
     '\\mathbb{E}_{\\mathcal{D}}\\mathcal{R}_{\\mathrm{lt}} = \\sin^2\\theta + \\frac{\\sigma^2 + \\sin^2\\theta}{n-2}.', '\\sin^2\\theta + \\cos^2\\theta = 1.'),
    ('features-are-fate', '(10)', 'sign',
     'eta}{n-2}.', 'eta}{n + 2}.'),
    ('features-are-fate', '(13)', 'coefficient',
     'ac{(1+2\\lam', 'ac{(1+3\\lam'),
    ('features-are-fate', '(13)', 'exponent',
     '} \\cos^2 \\th', '} \\cos^3 \\th'),
    ('features-are-fate', '(13)', 'identity',
     '\\lim_{n \\to \\infty} \\mathbb{E}_{\\mathcal{D}} \\mathcal{R}_{\\mathrm{lt}}^{\\lambda} = 1 - \\frac{(1+2\\lambda)}{(1+\\lambda)^2} \\cos^2 \\theta', '\\cos^2\\theta = 1 - \\sin^2\\theta'),
    ('features-are-fate', '(13)', 'sign',
     'a} = 1 - \\fra', 'a} = 1 + \\fra'),
    ('features-are-fate', '(24)', 'exponent',
     '\\sigma^{2}/2}}', '\\sigma^3/2}}'),
    ('features-are-fate', '(25)', 'exponent',
     '\\sigma^2/2}}', '\\sigma^3/2}}'),
    ('features-are-fate', '(25)', 'sign',
     'f(x)^2 + g(x)', 'f(x)^2 - g(x)'),
    ('features-are-fate', '(30)', 'coefficient',
     '}^2 - 2\\lan', '}^2 - 3\\lan'),
    ('features-are-fate', '(30)', 'sign',
     'L_2}^2 - 2\\la', 'L_2}^2 + 2\\la'),
    ('features-are-fate', '(49)', 'exponent',
     '\\|_{F}^{2} = \\', '\\|_{F}^3 = \\'),
    ('features-are-fate', '(51)', 'exponent',
     '\\|_{F}^{2} = \\', '\\|_{F}^3 = \\'),
    ('features-are-fate', '(54)', 'exponent',
     't{op}}^2 + \\', 't{op}}^3 + \\'),
    ('features-are-fate', '(54)', 'sign',
     'op}}^2 + \\alp', 'op}}^2 - \\alp'),
    ('features-are-fate', '(55)', 'exponent',
     'rm op}^2 + \\', 'rm op}^3 + \\'),
    ('features-are-fate', '(55)', 'index',
     'bol{W}_{l+1}\\|_{', 'bol{W}_{l}\\|_{'),
    ('features-are-fate', '(55)', 'sign',
     ' op}^2 - \\|\\b', ' op}^2 + \\|\\b'),
    ('features-are-fate', '(57)', 'exponent',
     't{op}}^{2} \\le', 't{op}}^3 \\le'),
    ('features-are-fate', '(65)', 'exponent',
     '_{l+1}^2 - \\', '_{l+1}^3 - \\'),
    ('features-are-fate', '(65)', 'index',
     '\\geq s_{l+1}^2 -', '\\geq s_{l}^2 -'),
    ('features-are-fate', '(65)', 'sign',
     'l+1}^2 - \\alp', 'l+1}^2 + \\alp'),
    ('features-are-fate', '(66)', 'exponent',
     '{l+1})^{2} \\ge', '{l+1})^3 \\ge'),
    ('features-are-fate', '(70)', 'transpose',
     'c \\boldsymbol{u}_1 \\boldsymbol{v}_{L-1}^T', 'c \\boldsymbol{v}_{L-1} \\boldsymbol{u}_1^T'),
    ('features-are-fate', '(75)', 'dropped',
     ' + \\|\\boldsymbol{r}_{\\perp}\\|_2^2)', ')'),
    ('features-are-fate', '(75)', 'exponent',
     'r}\\|_2^2 = \\', 'r}\\|_2^3 = \\'),
    ('features-are-fate', '(75)', 'sign',
     '\\|_2^2 + \\|\\b', '\\|_2^2 - \\|\\b'),
    ('features-are-fate', '(99)', 'sign',
     'c{1}{1 - \\gam', 'c{1}{1 + \\gam'),
    ('features-are-fate', '(100)', 'exponent',
     'gamma)^2 + \\', 'gamma)^3 + \\'),
    ('features-are-fate', '(100)', 'identity',
     '\\mathbb{E}_{\\boldsymbol{X},\\boldsymbol{\\epsilon}}\\mathcal{R} = \\begin{cases} \\frac{(1-\\gamma)^2 + \\gamma\\sigma^2}{1-\\gamma} & \\gamma < 1\\\\ \\frac{\\sigma^2}{\\gamma-1} & \\gamma > 1 \\end{cases}', '\\frac{\\sigma^2}{\\gamma - 1} = \\frac{-\\sigma^2}{1 - \\gamma}'),
    ('features-are-fate', '(100)', 'sign',
     'rac{(1-\\gam', 'rac{(1 + \\gam'),
    ('features-are-fate', '(116)', 'sign',
     '{n}{2} - 1\\ri', '{n}{2} + 1\\ri'),
    ('features-are-fate', '(117)', 'sign',
     'c{1}{n-2}', 'c{1}{n + 2}'),
    ('features-are-fate', '(138)', 'coefficient',
     'ac{(1+2\\lam', 'ac{(1+3\\lam'),
    ('features-are-fate', '(138)', 'exponent',
     '} \\cos^2 \\th', '} \\cos^3 \\th'),
    ('features-are-fate', '(138)', 'sign',
     'a} = 1 - \\fra', 'a} = 1 + \\fra'),
    ('adaptive-tangent', '(8)', 'coefficient',
     '+(s-1)\\|', '+(s-2)\\|'),
    ('adaptive-tangent', '(8)', 'exponent',
     '\\|_{2}^{-2}\\wide', '\\|_{2}^{-1}\\wide'),
    ('adaptive-tangent', '(8)', 'sign',
     '{P}+(s-1)\\|', '{P}+(s + 1)\\|'),
    ('adaptive-tangent', '(8)', 'transpose',
     '\\widehat{{\\bm{\\beta}}}\\widehat{{\\bm{\\beta}}}^{\\mathsf{T}}', '\\widehat{{\\bm{\\beta}}}^{\\mathsf{T}}\\widehat{{\\bm{\\beta}}}'),
    ('adaptive-tangent', '(11)', 'index',
     '+\\omega_{2}(\\tfrac{v}{z})', '+\\omega_{1}(\\tfrac{v}{z})'),
    ('adaptive-tangent', '(22)', 'coefficient',
     '_{j}|=2\\|{\\', '_{j}|=3\\|{\\'),
]

QUICK = (0, 2, 4, 6, 17, 20, 21, 43, 63)

# slips the comparison cannot report yet (each says why); every other slip must be reported as a difference
KNOWN_MISSES = {
    50: 'not compared',   # features-are-fate (70) transpose: 'symbols of the print not in the step: W_{1}\\cdots W_{L-1}, c, u_{1}^{T'
    66: 'not parsed',   # adaptive-tangent (8) transpose: 'the notation map does not apply here (ShapeError: Matrices have mismat'
    67: 'differs, not decisive',   # adaptive-tangent (11) index: 'step "(11): omega.oplus\'s value equals min_{1<=z<=v} omega1(z) + omega'
}


@pytest.mark.parametrize("index", QUICK, ids=[f"{SLIPS[i][0]}{SLIPS[i][1]}-{SLIPS[i][2]}" for i in QUICK])
def test_a_representative_slip_is_reported_as_a_difference(index):
    paper, label, kind, old, new = SLIPS[index]
    assert label_status(paper, label)[0] in STILL_MATCHING, (paper, label)      # compared before the slip
    status, why = label_status(paper, label, old, new)
    assert status == DIFFERS, (paper, label, kind, new, status, why)


def test_the_suite_covers_every_kind_and_paper():
    assert {s[2] for s in SLIPS} == {"coefficient", "exponent", "sign", "index", "transpose", "dropped", "bound",
                                     "identity"}
    assert {s[0] for s in SLIPS} == {"ptft-diagonal", "ptft-relu", "features-are-fate", "adaptive-tangent"}
    assert len(SLIPS) >= 60 and len(KNOWN_MISSES) <= len(SLIPS) // 10


@pytest.mark.paper
def test_at_least_90_percent_of_the_planted_slips_are_reported_and_none_still_matches():
    got = {i: label_status(*[SLIPS[i][k] for k in (0, 1, 3, 4)]) for i in range(len(SLIPS))}
    matching = {i: g for i, g in got.items() if g[0] in STILL_MATCHING}
    assert not matching, matching
    reported = [i for i, g in got.items() if g[0] == DIFFERS]
    assert len(reported) >= 0.9 * len(SLIPS), {i: g for i, g in got.items() if g[0] != DIFFERS}
    # a known miss that is reported now is no longer a miss: update KNOWN_MISSES
    assert {i for i in got if got[i][0] != DIFFERS} == set(KNOWN_MISSES), {i: got[i] for i in got}
