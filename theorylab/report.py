"""The offline HTML report: closed forms as MathML, the seeds' figures as SVG, the evidence table, the errata.

Built from the evidence JSON that `theorylab verify` writes; nothing is rerun. Theory curves are evaluated from
the catalogue's kernels (milliseconds); simulation and trained-network points come from the JSON's records
(`Evidence.extra["figure"]` names the figure a point belongs to). No JavaScript, no CDN: one index.html and a
figures/ folder of SVG files that any browser opens from disk.
"""
from __future__ import annotations

import datetime
import html
import io
import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import catalogue
from .params import DomainError

__all__ = ["FIGURES", "Figure", "build", "load_evidence", "mathml"]


# -- input -------------------------------------------------------------------------------------------------
def load_evidence(path: str | os.PathLike) -> dict:
    """The record `theorylab verify --json PATH` wrote; a clear one-line error when it is missing or not one."""
    p = Path(path)
    if not p.is_file():
        raise DomainError(f"evidence must be a JSON file written by `theorylab verify`; got evidence={p} (no such "
                          f"file: run `theorylab verify` first, or pass --rerun)")
    try:
        data = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DomainError(f"evidence must be a JSON file written by `theorylab verify`; got evidence={p} "
                          f"(not JSON: {exc})") from None
    missing = [k for k in ("profile", "evidence", "derivation_steps") if not isinstance(data, dict) or k not in data]
    if missing:
        raise DomainError(f"evidence must be a JSON file written by `theorylab verify`; got evidence={p} "
                          f"(missing {', '.join(missing)})")
    return data


def mathml(latex: str, display: str = "block") -> str:
    """MathML of a LaTeX formula (latex2mathml), so the report needs no MathJax."""
    from latex2mathml.converter import convert

    # latex2mathml reads \operatorname* (limits below) as a literal star; the starred form only places limits
    return convert(latex.replace(r"\operatorname*{", r"\operatorname{"), display=display)


# -- figures -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    family: str
    name: str
    caption: str
    draw: Callable[[list[dict]], "object"]  # evidence records -> matplotlib Figure


def _points(evidence: list[dict], figure: str) -> list[dict]:
    return [r for r in evidence if isinstance(r.get("extra"), dict) and r["extra"].get("figure") == figure]


def _plt():
    import matplotlib

    matplotlib.use("Agg")  # no display needed, and no window opened
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "svg.hashsalt": "theorylab"})  # stable SVG ids: the same data give the same file
    return plt


def _qpenalty_q(ev):
    plt = _plt()
    q = catalogue.get("qpenalty.q")
    z = np.linspace(-12, 12, 601)
    fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.2))
    ax[0].plot(z, q(z=z), label="q(z)")
    ax[0].plot(z, z**2 / 4, "--", label=r"$z^2/4$ (small $|z|$)")
    ax[0].plot(z, np.abs(z) * np.log(np.abs(z) + 1e-300) - np.abs(z), ":", label=r"$|z|\log|z| - |z|$ (large $|z|$)")
    ax[0].set_ylim(-1, 25)
    ax[0].set_xlabel("z"), ax[0].set_title("q(z), eq. (23)"), _legend(ax[0], fontsize=7)
    fin = catalogue.get("qpenalty.finetune")
    b = np.linspace(-3, 3, 241)
    for aux, style in ((0.0, "-"), (1.0, "--"), (4.0, ":")):
        for gamma, color in ((0.1, "C0"), (1.0, "C3")):
            vals = [fin(beta=[x], beta_aux=[aux], gamma=gamma) for x in b]
            ax[1].plot(b, vals, style, color=color, label=rf"$\beta^{{aux}}$={aux:g}, $\gamma$={gamma:g}")
    ax[1].set_xlabel(r"$\beta_d$"), ax[1].set_title("PT+FT penalty of one coordinate")
    ax[1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return fig


def _relu_fig1(ev):
    plt = _plt()
    from verify.relu import figure1_data

    data = figure1_data()
    fig, ax = plt.subplots(2, 3, figsize=(9.6, 5.4), sharex=True)
    for j, maux in enumerate(data["m_aux"]):
        for i, rho in enumerate(data["rho"]):
            ax[0, j].loglog(data["m"], data["penalty"][i, j], color=f"C{i}", label=rf"$\rho$={rho:g}")
            ax[1, j].semilogx(data["m"], data["log_slope"][i, j], color=f"C{i}", label=rf"$\rho$={rho:g}")
        ax[0, j].set_title(rf"$m^{{aux}}$ = {maux:g}")
        ax[1, j].set_xlabel("m")
        ax[1, j].set_ylim(0.5, 2.5)
    ax[0, 0].set_ylabel(r"$\tilde r$  (a)")
    ax[1, 0].set_ylabel(r"d log $\tilde r$ / d log m  (b)")
    _legend(ax[0, 0], fontsize=7)
    fig.tight_layout()
    return fig


def _grid(sigma_gamma_min=0.02):
    g = np.linspace(sigma_gamma_min, 2.0, 120)
    g = g[np.abs(g - 1) > 5e-3]
    t = np.linspace(0, math.pi / 2, 61)
    return np.meshgrid(g, t, indexing="xy")


def _surface(entry_id: str, sigma: float, title: str, clip=(-1.0, 1.5)):
    plt = _plt()
    e = catalogue.get(entry_id)
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


def _slices(entry_id: str, figure: str, ylabel: str, thetas, ylim=None):
    def draw(ev):
        plt = _plt()
        e = catalogue.get(entry_id)
        g = np.linspace(0.02, 2.0, 400)
        g = np.where(np.abs(g - 1) > 0.01, g, np.nan)  # a break at gamma = 1, where (11) diverges
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
        pts = _points(ev, figure)
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
        _legend(ax, fontsize=6)
        fig.tight_layout()
        return fig

    return draw


def _ridge(ev):
    plt = _plt()
    from verify.transfer import ridge_finite

    e = catalogue.get("transfer.ridge_transfer_risk")
    lam = np.linspace(0, 1.0, 201)
    theta, sigma, n = math.pi / 4, 0.2, 250
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    ax.plot(lam, e(theta=theta, lam=lam), label="(13), n → ∞")
    ax.plot(lam, [ridge_finite(n, theta, sigma, float(x)) for x in lam], "--", label=f"exact finite n = {n} (125)")
    pts = _points(ev, "002-fig6")
    if pts:
        ax.errorbar([p["extra"]["lam"] for p in pts], [p["observed"] for p in pts], yerr=[p["stderr"] for p in pts],
                    fmt="o", ms=4, capsize=2, label="Monte Carlo ± SE")
    ax.set_xlabel(r"ridge parameter $\lambda$"), ax.set_ylabel("generalization error")
    ax.set_title(r"$\gamma$ = 0.5, $\theta$ = $\pi/4$, $\sigma$ = 0.2")
    _legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


def _omega_fig2(ev):
    plt = _plt()
    tilde, toplus = catalogue.get("omega.tilde"), catalogue.get("omega.tilde_oplus")
    v = np.linspace(0, 4, 161)
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.plot(v, tilde(v=v, omega="(z-1)**2"), label=r"$\tilde\omega_1$, $\omega_1 = (v-1)^2$")
    ax.plot(v, tilde(v=v, omega="Abs(z-1)"), label=r"$\tilde\omega_2$, $\omega_2 = |v-1|$")
    ax.plot(v, toplus(v=v, omega1="(z-1)**2", omega2="Abs(z-1)"),
            label=r"$\tilde\omega_3$, $\omega_3 = \omega_1 \oplus \omega_2$")
    ax.plot(v, v**2, "k:", lw=0.8, label=r"$v^2$")
    ax.set_ylim(0, 5), ax.set_xlabel("v"), ax.set_ylabel("effective penalty")
    _legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=float)  # JSON keeps non-finite values as the strings "nan"/"inf"


def _legend(ax, **kw):
    """A legend only where something is labelled (a record without points draws only the theory)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _no_data(ax, what: str):
    ax.text(0.5, 0.5, f"no {what} in this evidence record", ha="center", va="center", transform=ax.transAxes)


def _relu_fig1c(ev):
    plt = _plt()
    pts = _points(ev, "001-fig1c")
    rhos = sorted({p["extra"]["rho"] for p in pts}, reverse=True) or [None]
    mags = sorted({p["extra"]["magnitude"] for p in pts}, reverse=True) or [None]
    fig, axes = plt.subplots(len(rhos), len(mags), figsize=(2.8 * len(mags) + 1, 2.1 * len(rhos) + 0.6),
                             sharex=True, squeeze=False)
    if not pts:
        _no_data(axes[0, 0], "Fig. 1c runs")
    for p in pts:
        x = p["extra"]
        ax = axes[rhos.index(x["rho"]), mags.index(x["magnitude"])]
        n = _arr(x["n"])
        for key, label, color in (("stl", "STL", "C0"), ("ptft", "PT+FT", "C3")):
            ax.errorbar(n, _arr(x[key]), yerr=_arr(x[key + "_se"]), fmt="o-", ms=3, capsize=2, color=color,
                        label=label)
        ax.set_title(rf"$\rho$ = {x['rho']:g}, magnitude {x['magnitude']:g}", fontsize=8)
        ax.set_yscale("log")
    for ax in axes[-1]:
        ax.set_xlabel("finetuning samples n")
    for ax in axes[:, 0]:
        ax.set_ylabel("test error")
    _legend(axes[0, 0], fontsize=7)
    fig.tight_layout()
    return fig


def _relu_ratio(ev):
    plt = _plt()
    pts = _points(ev, "001-deviation-ratio")
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    if not pts:
        _no_data(ax, "trained units")
    for i, rho in enumerate(sorted({p["extra"]["rho"] for p in pts}, reverse=True)):
        mine = sorted((p["extra"] for p in pts if p["extra"]["rho"] == rho and p["extra"]["ratio_median"]),
                      key=lambda x: x["init_scale"])
        s = _arr([x["init_scale"] for x in mine])
        med = _arr([x["ratio_median"] for x in mine])
        lo, hi = med - _arr([x["ratio_min"] for x in mine]), _arr([x["ratio_max"] for x in mine]) - med
        ax.errorbar(s * (1 + 0.04 * i), med - 1, yerr=[lo, hi], fmt="o-", capsize=3, label=rf"$\rho$ = {rho:g}")
    ax.set_xscale("log"), ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_ylim(bottom=0)  # the ratio is >= 1 by definition (the bound the check asserts)
    ax.set_xlabel("initialization scale of finetuning"), ax.set_ylabel(r"deviation / $\tilde r$ $-$ 1")
    _legend(ax, fontsize=7)
    fig.tight_layout()
    return fig


def _transfer_fig3ab(ev):
    plt = _plt()
    pts = [p for p in _points(ev, "002-fig3ab") if "K_model" in p["extra"]]
    fig, axes = plt.subplots(max(len(pts), 1), 2, figsize=(6.4, 3.0 * max(len(pts), 1)), squeeze=False)
    if not pts:
        _no_data(axes[0, 0], "Gram matrices")
    for row, p in zip(axes, pts):
        x = p["extra"]
        Km, Ks = _arr(x["K_model"]), _arr(x["K_source"])
        vmax = max(Km.max(), Ks.max())
        for ax, K, title in ((row[0], Km, "(a) pretrained model"), (row[1], Ks, "(b) source teacher")):
            im = ax.imshow(K, cmap="viridis", vmin=0, vmax=vmax)
            ax.set_title(rf"{title}, $\mu$ = {x['mu']:.2f}", fontsize=8)
            ax.set_xticks([]), ax.set_yticks([])
        fig.colorbar(im, ax=row, shrink=0.8)
    return fig


def _transfer_fig3_lt(ev):
    plt = _plt()
    pts = _points(ev, "002-fig3")
    ladders = {round(p["extra"]["mu"], 6): p["extra"] for p in _points(ev, "002-fig3d")}
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    if not pts:
        _no_data(ax, "transfer runs")
    for i, mu in enumerate(sorted({round(p["extra"]["mu"], 6) for p in pts})):
        mine = sorted((p for p in pts if round(p["extra"]["mu"], 6) == mu), key=lambda p: p["extra"]["n"])
        n = _arr([p["extra"]["n"] for p in mine])
        ax.errorbar(n, [p["observed"] for p in mine], yerr=[p["stderr"] for p in mine], fmt="o", ms=4, capsize=2,
                    color=f"C{i}", label=rf"$\mu$ = {mu:.2f}: trained, mean $\pm$ SE")
        ax.plot(n, [p["predicted"] for p in mine], "-", color=f"C{i}", lw=1,
                label=r"residual$_\tau$ + S/n" if i == 0 else None)
        if mu in ladders:
            ax.axhline(ladders[mu]["ladder"][-1], color=f"C{i}", ls=":", lw=0.8)
    ax.set_xscale("log"), ax.set_yscale("log")
    ax.set_xlabel("target samples n"), ax.set_ylabel(r"$\|\hat f - f_t^*\|^2$")
    _legend(ax, fontsize=6)
    fig.tight_layout()
    return fig


def _omega_fig1(ev):
    plt = _plt()
    pts = _points(ev, "003-fig1")
    al = [p for p in pts if p["check"].startswith("(a)")]
    fit = [p for p in pts if p["check"].startswith("(c)")]
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.2))
    if not al:
        _no_data(axes[0], "tangent-kernel runs")
    x = np.arange(len(al))
    axes[0].bar(x - 0.2, [p["predicted"] for p in al], 0.4, label=r"initial NTK $K_0$")
    axes[0].bar(x + 0.2, [p["observed"] for p in al], 0.4, label=r"adapted $\bar K$ (eq. 2)")
    axes[0].set_xticks(x, [p["extra"]["task"] for p in al], fontsize=7)
    axes[0].set_ylabel(r"cosine with $K_y$"), _legend(axes[0], fontsize=7)
    x = np.arange(len(fit))
    axes[1].bar(x - 0.2, [p["predicted"] for p in fit], 0.4, label=r"$a K_0$ only")
    axes[1].bar(x + 0.2, [p["observed"] for p in fit], 0.4, label=r"$a K_0 + b K_y$ (eq. 19)")
    axes[1].set_xticks(x, [p["extra"]["task"] for p in fit], fontsize=7)
    axes[1].set_ylabel("least-squares residual fraction"), _legend(axes[1], fontsize=7)
    fig.tight_layout()
    return fig


FIGURES: tuple[Figure, ...] = (
    Figure("qpenalty", "qpenalty-q", "Seed 000: q(z) of eq. (23) with its small- and large-|z| behaviour, and the "
           "PT+FT penalty of one coordinate, k q(2β/k) with k = |β^aux| + γ², for several β^aux and γ.", _qpenalty_q),
    Figure("relu", "relu-fig1ab", "Seed 001 Fig. 1a/b: r̃ (top) and its log-slope (bottom) against m for "
           "ρ ∈ {1, 0.99, 0.9} and m^aux ∈ {0.01, 1, 100} (γ = 0; the log-slope is left blank where it is "
           "undefined).", _relu_fig1),
    Figure("relu", "relu-fig1c", "Seed 001 Fig. 1c: test error of single-task learning (STL) and pretraining + "
           "finetuning (PT+FT) against the number of finetuning samples, for feature correlations ρ (rows) and "
           "finetuning magnitudes (columns), mean ± SE over seeds (trained shallow ReLU networks).", _relu_fig1c),
    Figure("relu", "relu-deviation-ratio", "Seed 001, penalty (2) vs r̃: per-unit deviation of finetuned ReLU "
           "networks over its minimum r̃ (median, with min–max bars), against the finetuning initialization scale.",
           _relu_ratio),
    Figure("transfer", "transfer-fig1ab", "Seed 002 Fig. 1(a)/(b): linear transferability (11), σ = 0.2; the "
           "surface is clipped to [−1, 1.5] (it diverges at γ = 1).",
           lambda ev: _surface("transfer.linear_transferability", 0.2, "linear transferability, σ = 0.2")),
    Figure("transfer", "transfer-fig1c", "Seed 002 Fig. 1(c): slices of (11) at constant θ (lines), with "
           "simulated (filled circles, finite d) and trained-network (open squares) points ± one standard error "
           "(the seed's bars are standard deviations). Points are at finite d, so they scatter around the "
           "exact finite-size value, which the evidence table compares with; the lines are the d → ∞ limit.",
           _slices("transfer.linear_transferability", "002-fig1c", r"$\mathcal{T}_{lt}$",
                   (math.pi / 8, math.pi / 4, 3 * math.pi / 8), ylim=(-1.2, 2.0))),
    Figure("transfer", "transfer-fig2ab", "Seed 002 Fig. 2(a)/(b): fine-tuning transferability (15) as corrected "
           "here (depth law, L = 2), σ = 0.2; white: no transfer benefit (γ > 1).",
           lambda ev: _surface("transfer.finetune_transferability", 0.2, "fine-tuning transferability, σ = 0.2")),
    Figure("transfer", "transfer-fig2c", "Seed 002 Fig. 2(c): slices of the fine-tuning transferability with "
           "trained 2-layer networks (open squares ± SE, finite d).",
           _slices("transfer.finetune_transferability", "002-fig2c", r"$\mathcal{T}_{ft}$",
                   (math.pi / 8, math.pi / 4, 3 * math.pi / 8))),
    Figure("transfer", "transfer-fig6", "Seed 002 Fig. 6: ridge linear transfer is increasing in λ (γ = 0.5); "
           "the line is (13), the dashed line the exact finite-n risk, points Monte Carlo ± SE.", _ridge),
    Figure("transfer", "transfer-fig7", "Seed 002 Fig. 7(a)/(b): linear transferability without label noise "
           "(σ = 0): negative for every γ > 1.",
           lambda ev: _surface("transfer.linear_transferability", 0.0, "linear transferability, σ = 0")),
    Figure("transfer", "transfer-fig3ab", "Seed 002 Fig. 3(a)/(b): Gram matrix of the pretrained mean-field ReLU "
           "network's kernel and of the source teacher's, on the same 40 points, for each ablation fraction μ.",
           _transfer_fig3ab),
    Figure("transfer", "transfer-fig3-lt", "Seed 002 §4, eq. (18): error of linear transfer on the pretrained "
           "features against n (mean ± SE over target sets), with residual_τ + S/n (lines) and the out-of-RKHS "
           "residual (dotted).", _transfer_fig3_lt),
    Figure("omega", "omega-fig1", "Seed 003 Fig. 1 on scikit-learn's digits (2 vs 3): cosine of the initial and "
           "the path-averaged tangent kernel with the label kernel for the linear-fit and binarized tasks, and the "
           "eq. (19) least-squares fit of the adapted kernel.", _omega_fig1),
    Figure("omega", "omega-fig2", "Seed 003 Fig. 2: effective penalties for ω₁ = (v−1)², ω₂ = |v−1| and "
           "ω₃ = ω₁ ⊕ ω₂: all sub-quadratic, all like v² near 0.", _omega_fig2),
)


def _svg(fig) -> str:
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


# -- HTML --------------------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em} h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.entry{border-left:3px solid #8ab;padding:.2em .8em;margin:1em 0;background:#f8fafb}
.entry h3{margin:.2em 0;font-size:1em} .entry code{font-size:.95em}
.math{overflow-x:auto;padding:.3em 0} math{font-size:1.1em}
figure{margin:1.2em 0;text-align:center} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444;text-align:left;margin-top:.4em}
table{border-collapse:collapse;font-size:.82em;width:100%;margin:1em 0}
th,td{border:1px solid #ddd;padding:.25em .4em;vertical-align:top;text-align:left}
th{background:#f0f3f5} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#17692b;font-weight:600} .fail{color:#b00020;font-weight:700}
.meta{color:#555;font-size:.92em} nav a{margin-right:1em}
.erratum{margin:.8em 0;padding:.4em .8em;border-left:3px solid #c66;background:#fdf6f6}
"""


def _num(x) -> str:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return "0" if x == 0 else f"{x:.3g}"
    return html.escape(str(x))


def _entry_html(e) -> str:
    parts = [f'<div class="entry" id="entry-{html.escape(e.id)}"><h3><code>{html.escape(e.id)}</code>: '
             f'{html.escape(e.title)}</h3>', f'<div class="math">{mathml(e.latex())}</div>']
    if e.stable_form is not None and e.stable_form != e.formula:
        parts.append(f'<div class="math" title="evaluated as">evaluated as {mathml(e.latex("stable"), "inline")}'
                     f'</div>')
    parts.append(f'<p class="meta">Source: {html.escape(str(e.source))}. Parameters: '
                 + ", ".join(f"<code>{html.escape(p.name)}</code> ({html.escape(p.domain)})" for p in e.params)
                 + "</p></div>")
    return "\n".join(parts)


def _table(headers: list[str], rows: list[list[tuple[str, str]]], cls: str = "") -> str:
    """An HTML table; each cell is (inner HTML, CSS class)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td class='{c}'>{x}</td>" if c else f"<td>{x}</td>" for x, c in row)
                     + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


def _evidence_table(rows: list[dict]) -> str:
    cells = [[(f"<code>{html.escape(r['entry'])}</code>", ""),
              (html.escape(r["check"]) + (f"<br><small>{html.escape(r['detail'])}</small>" if r.get("detail") else ""),
               ""), (html.escape(r["kind"]), ""), (_num(r["abs_error"]), "num"), (_num(r["rel_error"]), "num"),
              (_num(r["tolerance"]), "num"), (html.escape(r["tolerance_source"]), ""),
              ("pass", "pass") if r.get("passed") else ("FAIL", "fail")] for r in rows]
    return _table(["entry", "check", "kind", "abs error", "rel error", "tolerance", "tolerance from", "result"], cells,
                  "evidence")


def _findings_html(rows: list[dict]) -> str:
    items = "".join(f"<li><code>{html.escape(r['entry'])}</code> <b>{html.escape(r['check'])}</b>: "
                    f"{html.escape(r['text'])}</li>" for r in rows)
    return f"<h3>Findings ({len(rows)}: reported, not asserted)</h3><ul class='findings'>{items}</ul>"


def _is_finding(r: dict) -> bool:
    return r.get("record") == "finding"


def _derivation_table(steps: list[dict]) -> str:
    by: dict[str, dict] = {}
    for s in steps:
        d = by.setdefault(s["derivation"], {"title": s.get("title", ""), "where": s.get("where", ""), "steps": 0,
                                            "holds": 0, "errata": 0, "unexpected": 0, "numeric": 0})
        d["steps"] += 1
        d["holds"] += s["status"] == "holds"
        d["errata"] += s["status"] == "erratum confirmed"
        d["unexpected"] += not s["ok"]
        d["numeric"] += s.get("strength", "searched" if "numeric" in (s.get("method") or "") else "") == "searched"
    cells = [[(f"<code>{html.escape(k)}</code> {html.escape(d['title'])}", ""), (html.escape(d["where"]), "")]
             + [(str(d[c]), "num") for c in ("steps", "holds", "errata", "numeric")]
             + [(str(d["unexpected"]), "num fail" if d["unexpected"] else "num pass")] for k, d in by.items()]
    return _table(["derivation", "where", "steps", "hold", "errata confirmed", "searched (not proved)",
                   "unexpected"], cells)


def _errata_html(steps: list[dict]) -> str:
    seen, out = set(), []
    for s in steps:
        e = s.get("erratum")
        if not e or e["key"] in seen:
            continue
        seen.add(e["key"])
        state = "confirmed" if s["status"] == "erratum confirmed" else "NOT reproduced"
        out.append(f'<div class="erratum" id="erratum-{html.escape(e["key"])}"><b>{html.escape(e["key"])}</b> '
                   f'({html.escape(e["seed"])}, {html.escape(e["where"])}; {state})<br>'
                   f'<b>The seed states:</b> {html.escape(e["says"])}<br><b>What holds:</b> {html.escape(e["truth"])}'
                   + (f'<br><b>Counterexample:</b> {html.escape(e["counterexample"])}' if e.get("counterexample") else "")
                   + (f'<br><small>{html.escape(e["note"])}</small>' if e.get("note") else "") + "</div>")
    return f"<p>{len(seen)} errata.</p>" + "\n".join(out)


def build(evidence_path: str | os.PathLike, out_dir: str | os.PathLike, *, progress: bool = False) -> dict:
    """Write out_dir/index.html and out_dir/figures/*.svg from an evidence record; returns a summary dict.

    Everything is built in a temporary folder first and moved into place at the end, so a failure never leaves
    a report that looks complete."""
    data = load_evidence(evidence_path)
    evidence = data["evidence"]
    steps = data["derivation_steps"]
    fams = data.get("families") or [f.name for f in catalogue.families()]
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise DomainError(f"-o must be a directory; got -o={out} (a file)")
    figures = [f for f in FIGURES if f.family in fams]
    from tqdm import tqdm

    svgs = {f.name: _svg(f.draw(evidence)) for f in tqdm(figures, desc="figures", disable=not progress)}
    findings = [r for r in evidence if _is_finding(r)]
    evidence = [r for r in evidence if not _is_finding(r)]
    failed = sum(not r.get("passed") for r in evidence)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = [f"<header><h1>theorylab report</h1><p class='meta'>Evidence record <code>"
            f"{html.escape(str(evidence_path))}</code>: profile <b>{html.escape(str(data['profile']))}</b>, device "
            f"{html.escape(str(data.get('device')))}, seed {html.escape(str(data.get('seed')))}, "
            f"{html.escape(str(data.get('seconds')))} s. {len(steps)} derivation steps "
            f"({data.get('unexpected_steps', 0)} unexpected), {len(evidence)} evidence records ({failed} failed), {len(findings)} findings. "
            f"Report written {when}.</p>",
            "<nav>" + "".join(f'<a href="#family-{html.escape(f)}">{html.escape(f)}</a>' for f in fams)
            + '<a href="#derivations">derivations</a><a href="#errata">errata</a></nav></header>']
    for fam in catalogue.families():
        if fam.name not in fams:
            continue
        body.append(f'<section id="family-{fam.name}"><h2>Family <code>{fam.name}</code></h2>')
        body += [_entry_html(e) for e in fam.entries]
        for f in figures:
            if f.family == fam.name:
                body.append(f'<figure id="fig-{f.name}"><img src="figures/{f.name}.svg" alt="{html.escape(f.caption)}">'
                            f"<figcaption>{html.escape(f.caption)}</figcaption></figure>")
        ids = {e.id for e in fam.entries}
        rows = [r for r in evidence if r["entry"] in ids]
        body.append(f"<h3>Evidence ({len(rows)} records)</h3>" + (_evidence_table(rows) if rows else
                                                                    "<p>No evidence records in this run.</p>"))
        notes = [r for r in findings if r["entry"] in ids]
        if notes:
            body.append(_findings_html(notes))
        body.append("</section>")
    body.append(f'<section id="derivations"><h2>Derivations</h2>{_derivation_table(steps)}</section>')
    body.append(f'<section id="errata"><h2>Errata</h2>{_errata_html(steps)}</section>')
    page = ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>theorylab report</title>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".report-", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        for name, svg in svgs.items():
            (tmp / "figures" / f"{name}.svg").write_text(svg)
        (tmp / "index.html").write_text(page)
        out.mkdir(exist_ok=True)
        if (out / "figures").exists():
            shutil.rmtree(out / "figures")
        os.replace(tmp / "figures", out / "figures")
        os.replace(tmp / "index.html", out / "index.html")  # last: the page appears only when complete
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"index": str(out / "index.html"), "figures": sorted(svgs), "evidence": len(evidence), "failed": failed,
            "errata": len({s["erratum"]["key"] for s in steps if s.get("erratum")})}
