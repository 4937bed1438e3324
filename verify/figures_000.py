"""Figures of the paper of seed 000 (PT+FT and MTL in diagonal linear networks), drawn by `theorylab report`.

Theory only: curves evaluated from the catalogue's kernels (milliseconds), no evidence series.
"""
from __future__ import annotations

import numpy as np

import theorylab
from theorylab.authoring import Figure, legend, pyplot


def _q_curves(data):
    plt = pyplot()
    q = theorylab.get("qpenalty.q")
    z = np.linspace(-12, 12, 601)
    fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.2))
    ax[0].plot(z, q(z=z), label="q(z)")
    ax[0].plot(z, z**2 / 4, "--", label=r"$z^2/4$ (small $|z|$)")
    ax[0].plot(z, np.abs(z) * np.log(np.abs(z) + 1e-300) - np.abs(z), ":", label=r"$|z|\log|z| - |z|$ (large $|z|$)")
    ax[0].set_ylim(-1, 25)
    ax[0].set_xlabel("z"), ax[0].set_title("q(z), eq. (23)"), legend(ax[0], fontsize=7)
    fin = theorylab.get("qpenalty.finetune")
    b = np.linspace(-3, 3, 241)
    for aux, style in ((0.0, "-"), (1.0, "--"), (4.0, ":")):
        for gamma, color in ((0.1, "C0"), (1.0, "C3")):
            vals = [fin(beta=[x], beta_aux=[aux], gamma=gamma) for x in b]
            ax[1].plot(b, vals, style, color=color, label=rf"$\beta^{{aux}}$={aux:g}, $\gamma$={gamma:g}")
    ax[1].set_xlabel(r"$\beta_d$"), ax[1].set_title("PT+FT penalty of one coordinate")
    ax[1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig


FIGURES = (
    Figure(family="qpenalty", name="qpenalty-q",
           caption="Seed 000: q(z) of eq. (23) with its small- and large-|z| behaviour, and the PT+FT penalty of one "
                   "coordinate, k q(2β/k) with k = |β^aux| + γ², for several β^aux and γ.", draw=_q_curves),
)
