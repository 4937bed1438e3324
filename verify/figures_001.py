"""Figures of the paper of seed 001 (the PT+FT penalty of shallow ReLU networks), drawn by `theorylab report`.

FIG1C and DEVIATION_RATIO name the evidence series the trained-network checks (relu_networks.py) record.
"""
from __future__ import annotations

from theorylab.authoring import Figure, Series, as_array, legend, no_data, pyplot

FIG1C = Series("001-fig1c")
DEVIATION_RATIO = Series("001-deviation-ratio")


def _fig1ab(data):
    plt = pyplot()
    from theorylab.derivations.relu import figure1_data  # a theory curve: the entries' module, not a check's

    d = figure1_data()
    fig, ax = plt.subplots(2, 3, figsize=(9.6, 5.4), sharex=True)
    for j, maux in enumerate(d["m_aux"]):
        for i, rho in enumerate(d["rho"]):
            ax[0, j].loglog(d["m"], d["penalty"][i, j], color=f"C{i}", label=rf"$\rho$={rho:g}")
            ax[1, j].semilogx(d["m"], d["log_slope"][i, j], color=f"C{i}", label=rf"$\rho$={rho:g}")
        ax[0, j].set_title(rf"$m^{{aux}}$ = {maux:g}")
        ax[1, j].set_xlabel("m")
        ax[1, j].set_ylim(0.5, 2.5)
    ax[0, 0].set_ylabel(r"$\tilde r$  (a)")
    ax[1, 0].set_ylabel(r"d log $\tilde r$ / d log m  (b)")
    legend(ax[0, 0], fontsize=7)
    fig.tight_layout()
    return fig


def _fig1c(data):
    plt = pyplot()
    pts = data.points(FIG1C)
    rhos = sorted({p["extra"]["rho"] for p in pts}, reverse=True) or [None]
    mags = sorted({p["extra"]["magnitude"] for p in pts}, reverse=True) or [None]
    fig, axes = plt.subplots(len(rhos), len(mags), figsize=(2.8 * len(mags) + 1, 2.1 * len(rhos) + 0.6),
                             sharex=True, squeeze=False)
    if not pts:
        no_data(axes[0, 0], "Fig. 1c runs")
    for p in pts:
        x = p["extra"]
        ax = axes[rhos.index(x["rho"]), mags.index(x["magnitude"])]
        n = as_array(x["n"])
        for key, label, color in (("stl", "STL", "C0"), ("ptft", "PT+FT", "C3")):
            ax.errorbar(n, as_array(x[key]), yerr=as_array(x[key + "_se"]), fmt="o-", ms=3, capsize=2, color=color,
                        label=label)
        ax.set_title(rf"$\rho$ = {x['rho']:g}, magnitude {x['magnitude']:g}", fontsize=8)
        ax.set_yscale("log")
    for ax in axes[-1]:
        ax.set_xlabel("finetuning samples n")
    for ax in axes[:, 0]:
        ax.set_ylabel("test error")
    legend(axes[0, 0], fontsize=7)
    fig.tight_layout()
    return fig


def _ratio(data):
    plt = pyplot()
    pts = data.points(DEVIATION_RATIO)
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    if not pts:
        no_data(ax, "trained units")
    for i, rho in enumerate(sorted({p["extra"]["rho"] for p in pts}, reverse=True)):
        mine = sorted((p["extra"] for p in pts if p["extra"]["rho"] == rho and p["extra"]["ratio_median"]),
                      key=lambda x: x["init_scale"])
        s = as_array([x["init_scale"] for x in mine])
        med = as_array([x["ratio_median"] for x in mine])
        lo, hi = med - as_array([x["ratio_min"] for x in mine]), as_array([x["ratio_max"] for x in mine]) - med
        ax.errorbar(s * (1 + 0.04 * i), med - 1, yerr=[lo, hi], fmt="o-", capsize=3, label=rf"$\rho$ = {rho:g}")
    ax.set_xscale("log"), ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_ylim(bottom=0)  # the ratio is >= 1 by definition (the bound the check asserts)
    ax.set_xlabel("initialization scale of finetuning"), ax.set_ylabel(r"deviation / $\tilde r$ $-$ 1")
    legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


FIGURES = (
    Figure(family="relu", name="relu-fig1ab", draw=_fig1ab,
           caption="Seed 001 Fig. 1a/b: r̃ (top) and its log-slope (bottom) against m for ρ ∈ {1, 0.99, 0.9} and "
                   "m^aux ∈ {0.01, 1, 100} (γ = 0; the log-slope is left blank where it is undefined)."),
    Figure(family="relu", name="relu-fig1c", draw=_fig1c, draws=(FIG1C,),
           caption="Seed 001 Fig. 1c: test error of single-task learning (STL) and pretraining + finetuning (PT+FT) "
                   "against the number of finetuning samples, for feature correlations ρ (rows) and finetuning "
                   "magnitudes (columns), mean ± SE over seeds (trained shallow ReLU networks)."),
    Figure(family="relu", name="relu-deviation-ratio", draw=_ratio, draws=(DEVIATION_RATIO,),
           caption="Seed 001, penalty (2) vs r̃: per-unit deviation of finetuned ReLU networks over its minimum r̃ "
                   "(median, with min–max bars), against the finetuning initialization scale."),
)
