"""Figures of the paper of seed 002 ("Features are Fate": transfer in high-dimensional regression).

FIG1C, FIG2C, FIG6, FIG3AB, FIG3 and FIG3D name the evidence series the checks of transfer.py,
linear_networks.py and relu_transfer.py record.
"""
from __future__ import annotations

import math

import numpy as np

import theorylab
from theorylab.authoring import Figure, Series, as_array, legend, no_data, pyplot

FIG1C = Series("002-fig1c")
FIG2C = Series("002-fig2c")
FIG6 = Series("002-fig6")
FIG3AB = Series("002-fig3ab")
FIG3 = Series("002-fig3")
FIG3D = Series("002-fig3d")


def _grid():
    g = np.linspace(0.02, 2.0, 120)
    g = g[np.abs(g - 1) > 5e-3]
    t = np.linspace(0, math.pi / 2, 61)
    return np.meshgrid(g, t, indexing="xy")


def _surface(entry_id: str, sigma: float, title: str, clip=(-1.0, 1.5)):
    def draw(data):
        plt = pyplot()
        e = theorylab.get(entry_id)
        G, T = _grid()
        V = np.asarray(e(gamma=G, theta=T, sigma=sigma), dtype=float)
        fig = plt.figure(figsize=(9.0, 3.8))
        ax = fig.add_subplot(1, 2, 1, projection="3d")
        ax.plot_surface(G, T, np.clip(V, *clip), cmap="coolwarm_r", vmin=clip[0], vmax=clip[1], linewidth=0,
                        antialiased=False, rcount=60, ccount=60)
        ax.set_xlabel(r"$\gamma$"), ax.set_ylabel(r"$\theta$"), ax.set_zlabel(r"$\mathcal{T}$ (clipped)")
        ax.set_title(f"(a) {title}")
        ax2 = fig.add_subplot(1, 2, 2)
        from matplotlib.colors import ListedColormap

        sign = np.where(np.abs(V) <= 1e-12, 0, np.sign(V))
        ax2.pcolormesh(G, T, sign, cmap=ListedColormap(["#d62728", "#ffffff", "#1f77b4"]), vmin=-1.5, vmax=1.5,
                       shading="auto")
        ax2.set_xlabel(r"$\gamma = n/d$"), ax2.set_ylabel(r"$\theta$")
        ax2.set_title("(b) sign: red T < 0, blue T > 0, white T = 0")
        fig.tight_layout()
        return fig

    return draw


def _slices(entry_id: str, series: Series, ylabel: str, thetas, ylim=None):
    def draw(data):
        plt = pyplot()
        e = theorylab.get(entry_id)
        g = np.linspace(0.02, 2.0, 400)
        g = np.where(np.abs(g - 1) > 0.01, g, np.nan)  # a break at gamma = 1, where (11) diverges
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
        pts = data.points(series)
        for i, th in enumerate(thetas):
            ok = ~np.isnan(g)
            vals = np.full_like(g, np.nan)
            vals[ok] = e(gamma=g[ok], theta=th, sigma=0.2)
            ax.plot(g, vals, color=f"C{i}", label=rf"$\theta$ = {th / math.pi:.3g}$\pi$ (theory)")
            for source, marker in (("monte-carlo", "o"), ("trained", "s")):
                mine = [p for p in pts if p["extra"].get("source") == source
                        and abs(p["extra"]["theta"] - th) < 1e-9]
                if mine:
                    ax.errorbar([p["extra"]["gamma"] for p in mine], [p["observed"] for p in mine],
                                yerr=[p["stderr"] for p in mine], fmt=marker, color=f"C{i}", ms=4, capsize=2,
                                mfc="white" if source == "trained" else f"C{i}",
                                label=f"{source} (d={mine[0]['extra'].get('d')}) ± SE")
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xlabel(r"$\gamma = n/d$"), ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        legend(ax, fontsize=6)
        fig.tight_layout()
        return fig

    return draw


def _ridge(data):
    plt = pyplot()
    from theorylab.derivations.transfer_curves import ridge_finite  # a theory curve, not a check's module

    e = theorylab.get("transfer.ridge_transfer_risk")
    lam = np.linspace(0, 1.0, 201)
    theta, sigma, n = math.pi / 4, 0.2, 250
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    ax.plot(lam, e(theta=theta, lam=lam), label="(13), n → ∞")
    ax.plot(lam, [ridge_finite(n, theta, sigma, float(x)) for x in lam], "--", label=f"exact finite n = {n} (125)")
    pts = data.points(FIG6)
    if pts:
        ax.errorbar([p["extra"]["lam"] for p in pts], [p["observed"] for p in pts], yerr=[p["stderr"] for p in pts],
                    fmt="o", ms=4, capsize=2, label="Monte Carlo ± SE")
    ax.set_xlabel(r"ridge parameter $\lambda$"), ax.set_ylabel("generalization error")
    ax.set_title(r"$\gamma$ = 0.5, $\theta$ = $\pi/4$, $\sigma$ = 0.2")
    legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


def _fig3ab(data):
    plt = pyplot()
    pts = [p for p in data.points(FIG3AB) if "K_model" in p["extra"]]
    fig, axes = plt.subplots(max(len(pts), 1), 2, figsize=(6.4, 3.0 * max(len(pts), 1)), squeeze=False)
    if not pts:
        no_data(axes[0, 0], "Gram matrices")
    for row, p in zip(axes, pts):
        x = p["extra"]
        Km, Ks = as_array(x["K_model"]), as_array(x["K_source"])
        vmax = max(Km.max(), Ks.max())
        for ax, K, title in ((row[0], Km, "(a) pretrained model"), (row[1], Ks, "(b) source teacher")):
            im = ax.imshow(K, cmap="viridis", vmin=0, vmax=vmax)
            ax.set_title(rf"{title}, $\mu$ = {x['mu']:.2f}", fontsize=8)
            ax.set_xticks([]), ax.set_yticks([])
        fig.colorbar(im, ax=row, shrink=0.8)
    return fig


def _fig3_lt(data):
    plt = pyplot()
    pts = data.points(FIG3)
    ladders = {round(p["extra"]["mu"], 6): p["extra"] for p in data.points(FIG3D)}
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    if not pts:
        no_data(ax, "transfer runs")
    for i, mu in enumerate(sorted({round(p["extra"]["mu"], 6) for p in pts})):
        mine = sorted((p for p in pts if round(p["extra"]["mu"], 6) == mu), key=lambda p: p["extra"]["n"])
        n = as_array([p["extra"]["n"] for p in mine])
        ax.errorbar(n, [p["observed"] for p in mine], yerr=[p["stderr"] for p in mine], fmt="o", ms=4, capsize=2,
                    color=f"C{i}", label=rf"$\mu$ = {mu:.2f}: trained, mean $\pm$ SE")
        ax.plot(n, [p["predicted"] for p in mine], "-", color=f"C{i}", lw=1,
                label=r"residual$_\tau$ + S/n" if i == 0 else None)
        if mu in ladders:
            ax.axhline(ladders[mu]["ladder"][-1], color=f"C{i}", ls=":", lw=0.8)
    ax.set_xscale("log"), ax.set_yscale("log")
    ax.set_xlabel("target samples n"), ax.set_ylabel(r"$\|\hat f - f_t^*\|^2$")
    legend(ax, fontsize=6)
    fig.tight_layout()
    return fig


_THETAS = (math.pi / 8, math.pi / 4, 3 * math.pi / 8)

FIGURES = (
    Figure(family="transfer", name="transfer-fig1ab",
           caption="Seed 002 Fig. 1(a)/(b): linear transferability (11), σ = 0.2; the surface is clipped to "
                   "[−1, 1.5] (it diverges at γ = 1).",
           draw=_surface("transfer.linear_transferability", 0.2, "linear transferability, σ = 0.2")),
    Figure(family="transfer", name="transfer-fig1c", draws=(FIG1C,),
           caption="Seed 002 Fig. 1(c): slices of (11) at constant θ (lines), with simulated (filled circles, finite "
                   "d) and trained-network (open squares) points ± one standard error (the seed's bars are standard "
                   "deviations). Points are at finite d, so they scatter around the exact finite-size value, which "
                   "the evidence table compares with; the lines are the d → ∞ limit.",
           draw=_slices("transfer.linear_transferability", FIG1C, r"$\mathcal{T}_{lt}$", _THETAS, ylim=(-1.2, 2.0))),
    Figure(family="transfer", name="transfer-fig2ab",
           caption="Seed 002 Fig. 2(a)/(b): fine-tuning transferability (15) as corrected here (depth law, L = 2), "
                   "σ = 0.2; white: no transfer benefit (γ > 1).",
           draw=_surface("transfer.finetune_transferability", 0.2, "fine-tuning transferability, σ = 0.2")),
    Figure(family="transfer", name="transfer-fig2c", draws=(FIG2C,),
           caption="Seed 002 Fig. 2(c): slices of the fine-tuning transferability with trained 2-layer networks "
                   "(open squares ± SE, finite d).",
           draw=_slices("transfer.finetune_transferability", FIG2C, r"$\mathcal{T}_{ft}$", _THETAS)),
    Figure(family="transfer", name="transfer-fig6", draws=(FIG6,), draw=_ridge,
           caption="Seed 002 Fig. 6: ridge linear transfer is increasing in λ (γ = 0.5); the line is (13), the "
                   "dashed line the exact finite-n risk, points Monte Carlo ± SE."),
    Figure(family="transfer", name="transfer-fig7",
           caption="Seed 002 Fig. 7(a)/(b): linear transferability without label noise (σ = 0): negative for every "
                   "γ > 1.",
           draw=_surface("transfer.linear_transferability", 0.0, "linear transferability, σ = 0")),
    Figure(family="transfer", name="transfer-fig3ab", draws=(FIG3AB,), draw=_fig3ab,
           caption="Seed 002 Fig. 3(a)/(b): Gram matrix of the pretrained mean-field ReLU network's kernel and of the "
                   "source teacher's, on the same 40 points, for each ablation fraction μ."),
    Figure(family="transfer", name="transfer-fig3-lt", draws=(FIG3, FIG3D), draw=_fig3_lt,
           caption="Seed 002 §4, eq. (18): error of linear transfer on the pretrained features against n (mean ± SE "
                   "over target sets), with residual_τ + S/n (lines) and the out-of-RKHS residual (dotted)."),
)
