"""Figures of the paper of seed 003 ("An Adaptive Tangent Feature Perspective of Neural Networks").

FIG1 names the evidence series the tangent-kernel checks (tangent_features.py) record.
"""
from __future__ import annotations

import numpy as np

import theorylab
from theorylab.authoring import Figure, Series, legend, no_data, pyplot

FIG1 = Series("003-fig1")


def _fig1(data):
    plt = pyplot()
    pts = data.points(FIG1)
    al = [p for p in pts if p["check"].startswith("(a)")]
    fit = [p for p in pts if p["check"].startswith("(c)")]
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.2))
    if not al:
        no_data(axes[0], "tangent-kernel runs")
    x = np.arange(len(al))
    # the (a) records test the paired difference; the mean cosines they rest on ride in extra
    axes[0].bar(x - 0.2, [p["extra"].get("cos_initial", np.nan) for p in al], 0.4, label=r"initial NTK $K_0$")
    axes[0].bar(x + 0.2, [p["extra"].get("cos_adapted", np.nan) for p in al], 0.4, label=r"adapted $\bar K$ (eq. 2)")
    axes[0].set_xticks(x, [p["extra"]["task"] for p in al], fontsize=7)
    axes[0].set_ylabel(r"cosine with $K_y$"), legend(axes[0], fontsize=7)
    x = np.arange(len(fit))
    axes[1].bar(x - 0.2, [p["extra"].get("residual_K0_only", np.nan) for p in fit], 0.4, label=r"$a K_0$ only")
    axes[1].bar(x + 0.2, [p["extra"].get("residual_eq19", np.nan) for p in fit], 0.4, label=r"$a K_0 + b K_y$ (eq. 19)")
    axes[1].set_xticks(x, [p["extra"]["task"] for p in fit], fontsize=7)
    axes[1].set_ylabel("least-squares residual fraction"), legend(axes[1], fontsize=7)
    fig.tight_layout()
    return fig


def _fig2(data):
    plt = pyplot()
    tilde, toplus = theorylab.get("omega.tilde"), theorylab.get("omega.tilde_oplus")
    v = np.linspace(0, 4, 161)
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.plot(v, tilde(v=v, omega="(z-1)**2"), label=r"$\tilde\omega_1$, $\omega_1 = (v-1)^2$")
    ax.plot(v, tilde(v=v, omega="Abs(z-1)"), label=r"$\tilde\omega_2$, $\omega_2 = |v-1|$")
    ax.plot(v, toplus(v=v, omega1="(z-1)**2", omega2="Abs(z-1)"),
            label=r"$\tilde\omega_3$, $\omega_3 = \omega_1 \oplus \omega_2$")
    ax.plot(v, v**2, "k:", lw=0.8, label=r"$v^2$")
    ax.set_ylim(0, 5), ax.set_xlabel("v"), ax.set_ylabel("effective penalty")
    legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


FIGURES = (
    Figure(family="omega", name="omega-fig1", draws=(FIG1,), draw=_fig1,
           caption="Seed 003 Fig. 1 on scikit-learn's digits (2 vs 3): cosine of the initial and the path-averaged "
                   "tangent kernel with the label kernel for the linear-fit and binarized tasks, and the eq. (19) "
                   "least-squares fit of the adapted kernel."),
    Figure(family="omega", name="omega-fig2", draw=_fig2,
           caption="Seed 003 Fig. 2: effective penalties for ω₁ = (v−1)², ω₂ = |v−1| and ω₃ = ω₁ ⊕ ω₂: all "
                   "sub-quadratic, all like v² near 0."),
)
