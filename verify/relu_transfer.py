"""Trained-network evidence for seed 002 §4: a mean-field ReLU network pretrained on the ablated teacher
f_s* (16), linear transfer to f_t* (17), the transferred error against transfer.rkhs_residual (18), Fig. 3(a)/(b).

Setup (Seed 002, §4 and App. D.2): f(x) = (1/m) sum_i c_i relu(w_i.x), w_i on the unit sphere, x ~ N(0, I_d);
pretraining is gradient descent on the population loss 1/2 ||f - f_s*||^2_{L2}, exact through the arc-cosine
kernel (150); linear transfer freezes the w_i and fits the readout by minimum-norm least squares (kernel
interpolation, the seed's "linear transfer ... formulated as a kernel interpolation problem") on n target samples.
The transferred model's L2 error is exact per draw (kernel quadratic form), so Monte Carlo runs only over
the draws of the target set.
"""
from __future__ import annotations

import contextlib
import json
import math
import time

import numpy as np
import torch

import theorylab
from theorylab.authoring import Check, Context, Evidence, Finding, compare, compare_mc, compare_scaling, to_jsonable
from theorylab.authoring import rng_for
from theorylab.authoring import TrainConfig, train

from .figures_002 import FIG3, FIG3AB, FIG3D  # the figures' series (records tagged with Series.tag)

__all__ = ["CHECKS", "relu_kernel_torch", "teacher", "pretrain", "mean_field_forward",
           "spectral_residual", "transfer_errors", "sandwich_constant", "gram_alignment", "student_teacher"]


def _sizes(profile: str) -> dict:
    """Sizes per profile (Context.pick; an unknown profile is a one-line ValueError naming it). quick: CPU in CI,
    one verify task per mu; paper: Seed 002 App. D.2 (d = 100, m = 1000, m* = 100, 1e5 steps or loss 1e-6)."""
    return Context(profile=profile).pick(
        quick=dict(d=10, m=60, m_star=6, mus=(0.0, 1 / 3, 2 / 3), ns=(480, 1920, 7680), draws=100,
                   max_steps=20_000, loss_tol=1e-4, gram_points=200, sandwich_points=100_000, tau=1e-8,
                   taus=(1e-6, 1e-8, 1e-10), groups=((0, 1, 2),), segment=20_000, chunk=None),
        paper=dict(d=100, m=1000, m_star=100, mus=(0.0, 0.1, 0.3, 0.5, 0.7, 0.9), ns=(8000, 32000, 128000),
                   draws=100, max_steps=100_000, loss_tol=1e-6, gram_points=500, sandwich_points=1_000_000,
                   tau=1e-8, taus=(1e-6, 1e-8, 1e-10), groups=tuple((r,) for r in range(6)), segment=1_000,
                   chunk=800_000))


# How the experiment splits into verify tasks (parts), per profile:
#   groups:  the mus pretrained together as one batch of runs. quick: all three (60x60 Gram matrices: a step costs
#            its dispatch overhead, so one batch costs what one run does; split by mu it cost ~3x); paper: one
#            chain per mu (1000x1000 Gram matrices: 6 runs batched took 2.5 s a step against 0.22 s for one run,
#            measured on a 2-core machine -- batching does not pay there, and separate chains run in parallel).
#   segment: pretraining steps per task; a segment continues from the weights its predecessor hands off (the
#            steps are sequential: 1e5 steps of one paper run take ~6 CPU-hours, more than one task may). A
#            segment that starts converged returns at once.
#   chunk:   n x draws per linear-transfer task (None: all draws of one n in one task).


def _check_mu(mu: float, m_star: int) -> int:
    """Number of ablated neurons |A| = mu m*; mu in [0, 1) (mu = 1 leaves (16) with no neuron: 0/0)."""
    if not (isinstance(mu, (int, float)) and 0 <= mu < 1):
        raise ValueError(f"mu must be in [0, 1) (mu = 1 ablates every source neuron in eq (16)); got mu={mu}")
    k = round(mu * m_star)
    if abs(k - mu * m_star) > 1e-9:
        raise ValueError(f"mu must make mu*m_star an integer (|A| = mu m* in eq (16)); got mu={mu}, m_star={m_star}")
    return int(k)


class _ReluKernel(torch.autograd.Function):
    """k(u) of eq (150) with the derivative k'(u) = (pi - arccos u)/(2 pi), finite on [-1, 1] (autograd of the
    formula gives inf - inf at u = 1, the diagonal and every aligned pair)."""

    @staticmethod
    def forward(ctx, u):
        u = u.clamp(-1.0, 1.0)
        ctx.save_for_backward(u)
        return (torch.sqrt(1 - u * u) + u * (math.pi - torch.acos(u))) / (2 * math.pi)

    @staticmethod
    def backward(ctx, grad):
        (u,) = ctx.saved_tensors
        return grad * (math.pi - torch.acos(u)) / (2 * math.pi)


def relu_kernel_torch(u: torch.Tensor) -> torch.Tensor:
    """E relu(w.x) relu(v.x) for unit w, v with w.v = u, x ~ N(0, I). Seed 002, eq (150)."""
    return _ReluKernel.apply(u)


def _unit(V: torch.Tensor) -> torch.Tensor:
    return V / V.norm(dim=-1, keepdim=True)


def mean_field_forward(c: torch.Tensor, W: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """f(x) = (1/m) sum_i c_i relu(w_i.x) (mean-field 1/m scaling). Seed 002, §4 and eq (142).

    c: (..., m), W: (..., m, d), X: (..., n, d) -> (..., n)."""
    return (torch.relu(X @ W.transpose(-1, -2)) @ c.unsqueeze(-1)).squeeze(-1) / c.shape[-1]


def teacher(d: int, m_star: int, mus, seed: int):
    """Teacher (17) with ||f_t*||_{L2} = 1 and one ablated source (16) per mu.

    Returns W_star (m*, d) unit rows, c_star (m*,), and c_source (len(mus), m*): the source as a teacher on the
    same neurons, c_source_i = c*_i m*/((1-mu) m*) on A^c and 0 on A, so f_s* = (1/m*) sum_i c_source_i relu(w*_i.x).
    The seed does not state the law of c*: here c* ~ N(0, 1) rescaled to a unit-norm target (residuals are
    then the fractions of Fig. 3(d)); A is a uniformly random subset, nested across mu.
    """
    ks = [_check_mu(mu, m_star) for mu in mus]
    rng = rng_for(seed, "relu-teacher", d, m_star)
    W_star = rng.standard_normal((m_star, d))
    W_star /= np.linalg.norm(W_star, axis=1, keepdims=True)
    c = rng.standard_normal(m_star)
    Gs = theorylab.get("transfer.relu_kernel").numpy(np.clip(W_star @ W_star.T, -1, 1))
    c *= m_star / math.sqrt(c @ Gs @ c)
    order = rng.permutation(m_star)  # A = the first |A| of one random order
    cs = np.zeros((len(mus), m_star))
    for r, (mu, k) in enumerate(zip(mus, ks)):
        keep = order[k:]
        cs[r, keep] = c[keep] / (1 - mu)
    return W_star, c, cs


def _population_loss(W_star: torch.Tensor, c_source: torch.Tensor):
    """1/2 ||f - f_s*||^2_{L2} in closed form through (150): per run, (R,) losses. Seed 002, eqs (150)-(152)."""
    m_star = W_star.shape[0]
    Gs = relu_kernel_torch(W_star @ W_star.T)
    fs2 = torch.einsum("ri,ij,rj->r", c_source, Gs, c_source) / m_star**2

    def loss(p):
        W = _unit(p["V"])
        m = W.shape[1]
        G = relu_kernel_torch(W @ W.transpose(-1, -2))
        Gt = relu_kernel_torch(W @ W_star.T)
        c = p["c"]
        quad = torch.einsum("ri,rij,rj->r", c, G, c) / m**2
        cross = torch.einsum("ri,rij,rj->r", c, Gt, c_source) / (m * m_star)
        return 0.5 * (quad - 2 * cross + fs2)

    return loss


@contextlib.contextmanager
def _small_cpu_threads(device, m: int, d: int):
    """One torch thread for small CPU problems (quick profile: 60x60 Gram matrices), restored afterwards: they
    ran ~10x slower with several threads on a shared 2-core machine (measured: pretraining 75 s vs 7 s)."""
    threads = torch.get_num_threads()
    if torch.device(device).type == "cpu" and m * m * d < 10**7:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def pretrain(W_star: np.ndarray, c_source: np.ndarray, m: int, seed: int, *, max_steps: int, loss_tol: float,
             device: str = "cpu", progress: bool = False, key: object = None):
    """Gradient descent on the population loss from w_i uniform on the sphere and c_i = 1e-7 (Seed 002, App. D.2),
    one run per row of c_source; the sphere constraint by w = v/||v||. Returns (W unit rows, c, TrainResult, W0).

    The step is theorylab._numerics.training's curvature rule with eta = 0.2 / lambda_max (re-estimated every 50 steps)
    instead of the seed's fixed 0.01 m: stable at every m without tuning, and 4x the engine's default 0.05 to
    fit the quick profile's time budget (the end point, not the path, is what the checks use)."""
    R, d = c_source.shape[0], W_star.shape[1]
    stream = rng_for(seed, "relu-init") if key is None else rng_for(seed, "relu-init", key)
    gen = torch.Generator().manual_seed(int(stream.integers(2**62)))
    V = torch.randn(R, m, d, generator=gen, dtype=torch.float64)
    dev = torch.device(device)
    params = {"V": _unit(V).to(dev), "c": torch.full((R, m), 1e-7, dtype=torch.float64, device=dev)}
    loss = _population_loss(torch.as_tensor(W_star, device=dev), torch.as_tensor(c_source, device=dev))
    with _small_cpu_threads(dev, m, d):
        res = train(params, loss, TrainConfig(loss_tol=loss_tol, max_steps=max_steps, progress=progress,
                                              lr_fraction=0.2, desc="pretrain mean-field ReLU"))
    return _unit(res.params["V"]).cpu().numpy(), res.params["c"].cpu().numpy(), res, params["V"].cpu().numpy()


def _kernels(W: np.ndarray, W_star: np.ndarray):
    k = theorylab.get("transfer.relu_kernel").numpy
    return (k(np.clip(W @ W.T, -1, 1)), k(np.clip(W @ W_star.T, -1, 1)), k(np.clip(W_star @ W_star.T, -1, 1)))


def spectral_residual(W: np.ndarray, W_star: np.ndarray, c_star: np.ndarray, tau: float):
    """||f_t* - P_tau f_t*||^2 with P_tau the L2 projection onto the principal subspace of the feature Gram
    G_jk = k(w_j.w_k) with eigenvalues > tau * lambda_max; tau = m * eps is transfer.rkhs_residual (eq (156)).

    Returns (residual, eigenvalues kept, eigenvectors kept, coefficients of P_tau f_t* in that eigenbasis)."""
    m_star = W_star.shape[0]
    G, Gt, Gs = _kernels(W, W_star)
    evals, evecs = np.linalg.eigh(G)
    keep = evals > evals.max() * max(tau, G.shape[0] * np.finfo(float).eps)
    lam, V = evals[keep], evecs[:, keep]
    b = V.T @ (Gt @ c_star / m_star)
    f2 = c_star @ Gs @ c_star / m_star**2
    return float(max(f2 - np.sum(b * b / lam), 0.0)), lam, V, b / lam


def transfer_errors(W: np.ndarray, W_star: np.ndarray, c_star: np.ndarray, n: int, draws: int, seed: int,
                    key: object = "", tau: float = 1e-8, device: str = "cpu") -> np.ndarray:
    """Linear transfer: freeze the unit rows W, fit the readout by minimum-norm least squares to f_t*(x) on n
    Gaussian samples (noiseless, sigma = 0 as in Fig. 3) within the kernel's principal subspace (eigenvalues
    > tau lambda_max), and return the exact L2 error ||f_hat - f_t*||^2 of each of `draws` target sets.
    Seed 002, eqs (17)-(18).

    Why the cutoff: pretrained neurons cluster on the teacher directions, so G has eigenvalues down to 1e-16
    lambda_max; their eigenfunctions are concentrated on thin wedges (heavy-tailed), and plain min-norm least
    squares at n ~ 5e2..2e3 then has mean errors 1e-2..1e19 against residuals 1e-5..0.2 (measured, quick
    profile), far from (18). The error is computed as
    sum_l lambda_l (beta_l - beta_inf_l)^2 + residual_tau (f_hat - P_tau f_t* lies in the span, the rest is
    orthogonal to it), which has no cancellation."""
    m_star = W_star.shape[0]
    res, lam, V, binf = spectral_residual(W, W_star, c_star, tau)
    dev = torch.device(device)
    rng = rng_for(seed, "relu-transfer", key, n)
    out = np.empty(draws)
    batch = max(1, min(draws, 4_000_000 // (n * (W.shape[0] + W.shape[1]))))
    WV = torch.as_tensor(W, device=dev).T, torch.as_tensor(V, device=dev)
    St, cs = torch.as_tensor(W_star.T, device=dev), torch.as_tensor(c_star, device=dev)
    lam_t, binf_t = torch.as_tensor(lam, device=dev), torch.as_tensor(binf, device=dev)
    for s in range(0, draws, batch):
        bsz = min(batch, draws - s)
        X = torch.as_tensor(rng.standard_normal((bsz, n, W.shape[1])), device=dev)
        Psi = torch.relu(X @ WV[0]) @ WV[1]
        y = torch.relu(X @ St) @ cs / m_star
        beta = torch.linalg.lstsq(Psi, y.unsqueeze(-1)).solution.squeeze(-1)
        out[s:s + bsz] = (((beta - binf_t) ** 2 * lam_t).sum(-1) + res).cpu().numpy()
    return out


def sandwich_constant(W: np.ndarray, W_star: np.ndarray, c_star: np.ndarray, points: int, seed: int,
                      tau: float = 1e-8):
    """The 1/n term of least squares on misspecified features: n (E R(n) - residual_tau) -> tr(Lambda^-1 E[psi psi^T
    r^2]) with psi the kept eigen-features and r = f_t* - P_tau f_t* (the sandwich formula); the expectation by
    sampling x (`points` draws). Returns (S, p) with p the number of kept directions."""
    m_star = W_star.shape[0]
    res, lam, V, binf = spectral_residual(W, W_star, c_star, tau)
    rng = rng_for(seed, "relu-sandwich")
    diag = np.zeros(lam.size)
    h2 = 0.0
    done = 0
    while done < points:
        b = min(50_000, points - done)
        X = rng.standard_normal((b, W.shape[1]))
        Psi = np.maximum(X @ W.T, 0) @ V
        r = np.maximum(X @ W_star.T, 0) @ c_star / m_star - Psi @ binf
        diag += np.sum(Psi**2 * r[:, None] ** 2, axis=0)
        h2 += float(np.sum(np.sum(Psi**2 / lam, axis=1) ** 2))
        done += b
    return float(np.sum(diag / points / lam)), int(lam.size), h2 / points / lam.size


def gram_alignment(W: np.ndarray, c: np.ndarray, W_star: np.ndarray, c_source: np.ndarray, points: int, seed: int):
    """Fig. 3(a)/(b) as numbers: the pretrained kernel k(x,x') = (1/m) sum_i relu(w_i.x) relu(w_i.x') against the
    source teacher's (1/((1-mu) m*)) sum_{i in A^c} relu(w*_i.x) relu(w*_i.x') on `points` Gaussian inputs.

    Returns the two Gram matrices and: cosine (Frobenius) similarity, relative Frobenius distance, the fraction
    of the model kernel's trace (L2 operator) inside span{relu(w*_i.x), i in A^c}, and how the learned w_i
    concentrate on the source directions (max cosine per neuron; share of neurons and of readout mass |c_i|
    with max cosine > 0.99)."""
    active = np.flatnonzero(c_source != 0)
    S = W_star[active]
    rng = rng_for(seed, "relu-gram")
    X = rng.standard_normal((points, W.shape[1]))
    Pm = np.maximum(X @ W.T, 0)
    Ps = np.maximum(X @ S.T, 0)
    K_model = Pm @ Pm.T / W.shape[0]
    K_source = Ps @ Ps.T / S.shape[0]
    cos = float(np.sum(K_model * K_source) / (np.linalg.norm(K_model) * np.linalg.norm(K_source)))
    rel = float(np.linalg.norm(K_model - K_source) / np.linalg.norm(K_source))
    k = theorylab.get("transfer.relu_kernel").numpy
    Gs = k(np.clip(S @ S.T, -1, 1))
    Gx = k(np.clip(W @ S.T, -1, 1))                       # (m, |A^c|)
    captured = np.einsum("ij,jk,ik->i", Gx, np.linalg.pinv(Gs), Gx) / 0.5   # k(1) = 1/2 = ||relu(w.x)||^2
    maxcos = np.max(W @ S.T, axis=1)
    aligned = maxcos > 0.99
    return {"K_model": K_model, "K_source": K_source, "cosine": cos, "relative_frobenius": rel,
            "trace_fraction_in_source_span": float(np.mean(np.clip(captured, 0, 1))),
            "max_cosine_per_neuron": maxcos, "share_neurons_aligned": float(aligned.mean()),
            "share_readout_mass_aligned": float(np.abs(c)[aligned].sum() / np.abs(c).sum())}


def _gid(group) -> str:
    return "mu" + "+".join(str(r) for r in group)


def _parts(ctx: Context) -> list[dict]:
    """The experiment's tasks: per group of mus, its pretraining segments in sequence; per mu, after its group's
    last segment, the analysis (residuals, sandwich constant, Gram pictures) and linear transfer per n in chunks
    of target-set draws."""
    P = _sizes(ctx.profile)
    out, last = [], {}
    for g in P["groups"]:
        prev = None
        for s0 in range(0, P["max_steps"], P["segment"]):
            pid = f"{_gid(g)}@{s0}"
            out.append({"stage": "pretrain", "id": pid, "mus": list(g),
                        "steps": [s0, min(s0 + P["segment"], P["max_steps"])], "after": [prev] if prev else []})
            prev = pid
        last.update({r: prev for r in g})
    for r in range(len(P["mus"])):
        out.append({"stage": "analysis", "mu": r, "after": [last[r]]})
        for n in P["ns"]:
            per = P["draws"] if P["chunk"] is None else max(1, min(P["draws"], P["chunk"] // n))
            for a in range(0, P["draws"], per):
                out.append({"stage": "transfer", "mu": r, "n": n, "draws": [a, min(a + per, P["draws"])],
                            "after": [last[r]]})
    return out


def _init_state(P: dict, seed: int, group) -> dict:
    """Pretraining's start for one group of mus: w_i uniform on the sphere, c_i = 1e-7 (as `pretrain`)."""
    key = None if len(group) == len(P["mus"]) else ("mu", tuple(group))
    stream = rng_for(seed, "relu-init") if key is None else rng_for(seed, "relu-init", key)
    gen = torch.Generator().manual_seed(int(stream.integers(2**62)))
    V = _unit(torch.randn(len(group), P["m"], P["d"], generator=gen, dtype=torch.float64))
    R = len(group)
    return {"V": V.numpy(), "c": np.full((R, P["m"]), 1e-7), "steps": np.zeros(R, dtype=int),
            "loss": np.full(R, np.inf), "converged": np.zeros(R, dtype=bool), "seconds": 0.0}


_STATES: dict = {}  # in-process results of segments (Check.evaluate runs the parts one after another, no handoff)


def _segment(P: dict, seed: int, part: dict, device: str = "cpu", progress: bool = False) -> dict:
    """Pretraining steps [s0, s1) of one group of mus from the state its predecessor handed off (Seed 002, App.
    D.2: gradient descent on the population loss); its result's handoff is the state after them."""
    g, (s0, s1) = tuple(part["mus"]), part["steps"]
    state = _input_state(P, seed, part, device, progress, pretrain_input=True)
    if state is None:
        state = _init_state(P, seed, g)
    W_star, _, c_all = teacher(P["d"], P["m_star"], P["mus"], seed)
    t0 = time.perf_counter()
    if not bool(np.all(state["converged"])):
        dev = torch.device(device)
        params = {"V": torch.as_tensor(np.asarray(state["V"], dtype=float), device=dev),
                  "c": torch.as_tensor(np.asarray(state["c"], dtype=float), device=dev)}
        loss = _population_loss(torch.as_tensor(W_star, device=dev), torch.as_tensor(c_all[list(g)], device=dev))
        with _small_cpu_threads(dev, P["m"], P["d"]):
            res = train(params, loss, TrainConfig(loss_tol=P["loss_tol"], max_steps=s1 - s0, progress=progress,
                                                  lr_fraction=0.2, desc=f"pretrain mean-field ReLU, steps {s0}-{s1}"))
        was = np.asarray(state["converged"], dtype=bool)
        conv = res.converged.cpu().numpy()
        steps = np.where(was, state["steps"], np.asarray(state["steps"]) + res.steps.cpu().numpy())
        state = {"V": res.params["V"].cpu().numpy(), "c": res.params["c"].cpu().numpy(), "steps": steps,
                 "loss": res.loss.cpu().numpy(), "converged": was | conv}
    state = {**state, "seconds": float(state.get("seconds", 0.0)) + time.perf_counter() - t0}
    state = to_jsonable(state)
    _STATES[(seed, json.dumps(P, default=str), part["id"])] = state
    return {"loss": state["loss"], "converged": state["converged"], "steps": state["steps"], "handoff": state}


def _input_state(P: dict, seed: int, part: dict, device: str, progress: bool, pretrain_input: bool = False):
    """The state a part starts from: its predecessor's handoff (verify passes it as part["inputs"]); run
    in-process (no "inputs": Check.evaluate), the predecessor's segments are run here first (memoized); in a
    sample that left them out (inputs None), a stand-in: the initial state (the timing, not the data, counts)."""
    if not part.get("after"):
        return None
    if "inputs" in part:
        if part["inputs"] is None:
            if pretrain_input:
                return None
            g = next(g for g in P["groups"] if part["mu"] in g)
            return _init_state(P, seed, g)
        return part["inputs"][0]
    key = (seed, json.dumps(P, default=str), part["after"][0])
    if key not in _STATES:
        ctx_parts = {q.get("id"): q for q in _parts_for(P)}
        _segment(P, seed, ctx_parts[part["after"][0]], device, progress)
    return _STATES[key]


def _parts_for(P: dict) -> list[dict]:
    profile = next(p for p in ("quick", "paper") if _sizes(p) == P)
    return _parts(Context(profile=profile))


def _final(P: dict, seed: int, part: dict, device: str, progress: bool):
    """(W unit rows, c, W0, pretraining info) of the part's mu after its group's last segment."""
    r = part["mu"]
    g = next(g for g in P["groups"] if r in g)
    state = _input_state(P, seed, part, device, progress)
    k = list(g).index(r)
    V = torch.as_tensor(np.asarray(state["V"], dtype=float)[k])
    W0 = _init_state(P, seed, g)["V"][k]
    info = {"pretrain_loss": float(np.asarray(state["loss"], dtype=float)[k]),
            "pretrain_converged": bool(np.asarray(state["converged"])[k]),
            "pretrain_steps": int(np.asarray(state["steps"])[k]), "pretrain_seconds": float(state["seconds"])}
    return _unit(V).numpy(), np.asarray(state["c"], dtype=float)[k], np.asarray(W0, dtype=float), info


def _analysis(P: dict, seed: int, part: dict, device: str = "cpu", progress: bool = False) -> dict:
    """The §4 experiment for one mu after pretraining, but for linear transfer: the residuals, the sandwich
    constant, the Gram pictures (JSON-ready numbers)."""
    t0 = time.perf_counter()
    r = part["mu"]
    W, c, W0, info = _final(P, seed, part, device, progress)
    W_star, c_star, c_all = teacher(P["d"], P["m_star"], P["mus"], seed)
    c_src = c_all[r:r + 1]
    rk = theorylab.get("transfer.rkhs_residual")
    active = np.flatnonzero(c_src[0] != 0)
    rec = {"mu": P["mus"][r], **info,
           "residual_learned": rk(W=W, W_star=W_star, c_star=c_star),
           "residual_source_teacher": rk(W=W_star[active], W_star=W_star, c_star=c_star),
           "residual_init": rk(W=W0, W_star=W_star, c_star=c_star),
           "source_residual_learned": rk(W=W, W_star=W_star, c_star=c_src[0]),
           "residual_tau": np.array([spectral_residual(W, W_star, c_star, t)[0] for t in P["taus"]]),
           "residual_eps": spectral_residual(W, W_star, c_star, 0.0)[0]}
    m_eps = W.shape[0] * np.finfo(float).eps
    rec["rounding_band"] = spectral_residual(W, W_star, c_star, 1e4 * m_eps)[0] - rec["residual_eps"]
    rec["residual_at_tau"] = spectral_residual(W, W_star, c_star, P["tau"])[0]
    rec["sandwich"], rec["rank"], rec["kappa"] = sandwich_constant(W, W_star, c_star, P["sandwich_points"], seed,
                                                                   P["tau"])
    for name, (w, cc) in (("gram", (W, c)), ("gram_init", (W0, np.ones(W0.shape[0])))):
        g = gram_alignment(w, cc, W_star, c_src[0], P["gram_points"], seed)
        # the first 40 points of both Gram matrices ride along for the report's heat maps; the rest are numbers
        rec[name] = {k: (np.round(v[:40, :40], 6) if k in ("K_model", "K_source") else v) for k, v in g.items()
                     if k != "max_cosine_per_neuron"}
    rec["seconds"] = time.perf_counter() - t0
    return rec


def _transfer_part(P: dict, seed: int, part: dict, device: str = "cpu", progress: bool = False) -> dict:
    """Linear transfer's exact L2 errors at one n for draws [a, b) of the target set (eq (18))."""
    t0 = time.perf_counter()
    r, n, (a, b) = part["mu"], int(part["n"]), part["draws"]
    W, _, _, _ = _final(P, seed, part, device, progress)
    W_star, c_star, _ = teacher(P["d"], P["m_star"], P["mus"], seed)
    key = ("mu", r) if (a, b) == (0, P["draws"]) else ("mu", r, "draws", a)  # one task: the quick profile's stream
    with _small_cpu_threads(device, P["m"], P["d"]):
        e = transfer_errors(W, W_star, c_star, n, b - a, seed, key=key, tau=P["tau"], device=device)
    return {"errors": e, "seconds": time.perf_counter() - t0}


def _run(ctx: Context, part: dict) -> dict:
    P = _sizes(ctx.profile)
    stage = {"pretrain": _segment, "analysis": _analysis, "transfer": _transfer_part}[part["stage"]]
    return stage(P, ctx.seed, part, ctx.device, ctx.progress)


def _combine(ctx: Context, results: list) -> list:
    """All records, from the parts' results (the analysis and transfer parts of each mu)."""
    P = _sizes(ctx.profile)
    per_mu = _per_mu(P, _parts(ctx), results)
    o = _assemble(P, ctx.profile, per_mu)
    return _pretraining(ctx, o) + _residual_ladder(ctx, o) + _transfer_mc(ctx, o) + _gram(ctx, o)


def _per_mu(P: dict, parts: list, results: list) -> list[dict]:
    recs = {p["mu"]: dict(res) for p, res in zip(parts, results) if p["stage"] == "analysis"}
    errors: dict = {}
    for p, res in zip(parts, results):
        if p["stage"] == "transfer":
            errors.setdefault((p["mu"], int(p["n"])), []).append((p["draws"][0], np.asarray(res["errors"], float)))
    per_mu = []
    for r in range(len(P["mus"])):
        rec = recs[r]
        means, ses = [], []
        for n in P["ns"]:
            e = np.concatenate([v for _, v in sorted(errors[(r, int(n))], key=lambda t: t[0])])
            means.append(float(e.mean()))
            ses.append(float(e.std(ddof=1) / math.sqrt(e.size)))
        rec["error_mean"], rec["error_se"] = np.array(means), np.array(ses)
        rec["seconds"] = float(rec["seconds"]) + sum(float(res.get("seconds", 0.0)) for p, res in zip(parts, results)
                                                     if p["stage"] == "transfer" and p["mu"] == r)
        per_mu.append(rec)
    return per_mu


def _assemble(P: dict, profile: str, per_mu: list[dict]) -> dict:
    """The per-mu results as student_teacher's record."""
    arr = (lambda key: np.array([rec[key] for rec in per_mu]))
    per_mu = [{**rec, "residual_tau": np.asarray(rec["residual_tau"], dtype=float),
               "error_mean": np.asarray(rec["error_mean"], dtype=float),
               "error_se": np.asarray(rec["error_se"], dtype=float)} for rec in per_mu]
    # pretraining seconds: each group's (its mus report the same), summed over groups
    seconds = sum(per_mu[g[0]]["pretrain_seconds"] for g in P["groups"])
    return {"profile": profile, "mus": np.array(P["mus"]), "ns": np.array(P["ns"]), "d": P["d"], "m": P["m"],
            "m_star": P["m_star"], "tau": P["tau"], "taus": np.array(P["taus"]), "draws": P["draws"],
            "gram_points": P["gram_points"], "loss_tol": P["loss_tol"],
            "pretrain_loss": arr("pretrain_loss"), "pretrain_converged": arr("pretrain_converged"),
            "pretrain_steps": arr("pretrain_steps"), "pretrain_seconds": float(seconds),
            "seconds": float(sum(arr("seconds"))), "per_mu": per_mu}


def student_teacher(profile: str = "quick", seed: int = 0, device: str = "cpu", progress: bool = False) -> dict:
    """The whole §4 experiment at one profile, in this process: teacher, pretraining per group of mus, linear
    transfer over n, Gram pictures.

    Returns a dict (arrays, usable by a figure): mus, ns, per-mu pretraining losses/convergence, transfer.rkhs_residual
    with the learned features and with the source teacher's, the truncated residuals residual_tau, the transferred
    errors (mean, SE per n), the sandwich 1/n constant, and gram_alignment's numbers per mu after pretraining and
    at initialization. Seed 002, §4, Fig. 3."""
    P = _sizes(profile)
    ctx = Context(profile=profile, seed=seed, device=device, progress=progress)
    parts = _parts(ctx)
    results = [to_jsonable(_run(ctx, p)) for p in parts]
    return _assemble(P, profile, _per_mu(P, parts, results))


def _where(o: dict) -> str:
    return f"d={o['d']}, m={o['m']}, m*={o['m_star']}"


def _pretraining(ctx: Context, o: dict) -> list[Evidence]:
    """The pretrained network represents f_s*: f_pre lies in the span of its own features, so the part of f_s*
    outside that span is at most ||f_pre - f_s*||^2 = 2 L (L the final population loss) -- a bound, not an
    estimate. Convergence (L <= the profile's loss_tol) is its own record. The pretrained and source-teacher
    Gram matrices of Fig. 3(a)/(b) ride on the bound's record for the report's heat maps."""
    tol = o["loss_tol"]
    out = []
    for r, rec in enumerate(o["per_mu"]):
        L = float(o["pretrain_loss"][r])
        g = rec["gram"]
        out.append(Evidence(entry="transfer.rkhs_residual", check=f"pretraining on f_s* (16) converges, "
                            f"mu={rec['mu']:.3f} ({_where(o)})", kind="training", predicted=tol, observed=L,
                            tolerance=0.0, relation="<=",
                            tolerance_source=f"the profile's convergence criterion: final population loss <= {tol:g}",
                            detail=f"{int(o['pretrain_steps'][r])} steps; pretraining {o['pretrain_seconds']:.1f} s"))
        out.append(Evidence(entry="transfer.rkhs_residual", check=f"pretraining on f_s* (16), mu={rec['mu']:.3f}: "
                            f"||P_perp f_s*||^2 with the learned features <= 2 L ({_where(o)})", kind="training",
                            predicted=2 * L, observed=rec["source_residual_learned"], relation="<=",
                            tolerance=2 * L * 1e-9,
                            tolerance_source=("f_pre is in the feature span: ||P_perp f_s*||^2 <= ||f_pre - f_s*||^2 = "
                                              "2 L (the bound is the prediction); slack 1e-9 of it for float64 "
                                              "rounding"),
                            detail=f"L = {L:.3e}",
                            extra=FIG3AB.tag(mu=rec["mu"], cosine=g["cosine"],
                                             relative_frobenius=g["relative_frobenius"],
                                             # the first 40 points of both Gram matrices, for the report's heat maps
                                             K_model=np.asarray(g["K_model"])[:40, :40],
                                             K_source=np.asarray(g["K_source"])[:40, :40])))
    return out


def _residual_ladder(ctx: Context, o: dict) -> list[Evidence]:
    """What (18)'s n -> oo term is for learned features: residual_tau decreases as the cutoff tau is lowered and
    reaches transfer.rkhs_residual (the pseudo-inverse at m eps); the sparsified source teacher's residual and
    the random initial features' are shown beside it. Two records per mu: the entry against the eigenbasis
    computation, and the ladder's monotonicity (nested projections)."""
    out = []
    for rec in o["per_mu"]:
        ladder = [float(v) for v in rec["residual_tau"]] + [rec["residual_eps"]]
        out.append(compare("transfer.rkhs_residual", f"(156) with the learned features, mu={rec['mu']:.3f}: the entry "
                           f"vs the eigenbasis projection at cutoff m*eps ({_where(o)})",
                           "training", rec["residual_learned"], rec["residual_eps"], atol=rec["rounding_band"] + 1e-15,
                           source=("same projection computed twice (entry vs eigenbasis here); the Gram matrix is "
                                   "ill-conditioned, so rounding moves the part of the projection carried by eigenvalues "
                                   "within 1e4 of the cutoff: tolerance = that part"),
                           detail=(f"ladder over tau={tuple(float(t) for t in o['taus'])} then m*eps: "
                                   f"{', '.join(f'{v:.4g}' for v in ladder)}; source-teacher features (Fig. 3(b) "
                                   f"kernel): {rec['residual_source_teacher']:.4g}; random initial features: "
                                   f"{rec['residual_init']:.4g}"),
                           extra=FIG3D.tag(mu=rec["mu"], ladder=ladder, taus=list(o["taus"]),
                                                source_teacher=rec["residual_source_teacher"],
                                                init=rec["residual_init"])))
        steps = np.diff(ladder)
        out.append(Evidence(entry="transfer.rkhs_residual", check=f"residual_tau is nonincreasing as the cutoff is "
                            f"lowered (nested principal subspaces), mu={rec['mu']:.3f}", kind="training",
                            predicted=0.0, observed=float(np.max(steps)), relation="<=",
                            tolerance=1e-12 * max(1.0, ladder[0]),
                            tolerance_source=("projections on nested subspaces of one eigendecomposition: exact "
                                              "monotonicity up to float64 summation of <= m terms of size <= "
                                              "||f_t*||^2 = 1 (m eps < 1e-13; held to 1e-12)"),
                            detail="steps " + ", ".join(f"{v:.3g}" for v in steps)))
    return out


def _transfer_mc(ctx: Context, o: dict) -> list[Evidence]:
    """(18) on trained features: E R_lt(n) = residual_tau + C(n) with C(n) = S/n + O(n^-2) (S the sandwich
    constant); mean over target sets vs residual_tau + S/n, 4 SE + the stated second-order term (only where
    n > p + 1, the expansion's range; elsewhere a Finding). Beside it, (18)'s C(n) > 0: the mean is at least
    residual_tau, within 4 SE."""
    draws = o["draws"]
    out = []
    for rec in o["per_mu"]:
        S, p, kappa = rec["sandwich"], rec["rank"], rec["kappa"]
        for n, mean, se in zip(o["ns"], rec["error_mean"], rec["error_se"]):
            n = int(n)
            first = S / n
            where = f"mu={rec['mu']:.3f}, n={n}, tau={o['tau']:g}, p={p}, {_where(o)}"
            detail = (f"n -> oo limit residual_tau = {rec['residual_at_tau']:.6g}; transfer.rkhs_residual = "
                      f"{rec['residual_learned']:.6g}; n (mean - residual_tau) = "
                      f"{n * (mean - rec['residual_at_tau']):.4g} vs S = {S:.4g}")
            out.append(Evidence(entry="transfer.rkhs_residual", check=f"(18) C(n) > 0: linear transfer's mean error "
                                f"is at least the out-of-span residual ({where})", kind="monte-carlo",
                                predicted=rec["residual_at_tau"], observed=mean, relation=">=", tolerance=4 * se,
                                tolerance_source=f"4 standard errors ({draws} target sets)", stderr=se, samples=draws,
                                detail=detail))
            if n <= p + 1:
                out.append(Finding(entry="transfer.rkhs_residual", check=f"linear transfer of the pretrained ReLU "
                                   f"network outside the 1/n expansion ({where})", kind="monte-carlo",
                                   text=(f"n={n} <= p+1={p + 1}: the sandwich expansion does not apply; mean error "
                                         f"{mean:.4g} +- {se:.2g}, residual_tau + S/n = {rec['residual_at_tau'] + first:.4g}"),
                                   values={"n": n, "p": p, "mean": mean, "se": se, "S": S,
                                           "residual_tau": rec["residual_at_tau"]}))
                continue
            bias = first * kappa / (n - p - 1)
            out.append(compare_mc("transfer.rkhs_residual", f"linear transfer of the pretrained ReLU network, "
                                  f"{where}: E ||f_hat - f_t*||^2 vs residual_tau + S/n", rec["residual_at_tau"] + first,
                                  mean, se, draws, k=4.0, bias=bias,
                                  bias_source=f"second-order term (S/n) kappa/(n-p-1), kappa = E[h^2]/p = {kappa:.3g} "
                                              f"(h the leverage; p+2 = {p + 2} for Gaussian features)",
                                  detail=detail, extra=FIG3.tag(mu=rec["mu"], n=n)))
        out.extend(_transfer_scaling(o, rec))
    return out


def _transfer_scaling(o: dict, rec: dict) -> list:
    """(18)'s n -> oo limit as a finite-size scaling fit: E R_lt(n) = residual_tau + C n^-p over the sizes inside
    the expansion's range (n > p + 1), predicted order 1 (the sandwich term S/n). The stated second-order term
    (S/n) kappa/(n - p - 1), from the sampled leverages (not from the means), is subtracted first, so what is fitted
    is residual_tau + S/n + O(n^-3)."""
    S, rank, kappa = rec["sandwich"], rec["rank"], rec["kappa"]
    ok = [(int(n), m, se) for n, m, se in zip(o["ns"], rec["error_mean"], rec["error_se"]) if int(n) > rank + 1]
    name = f"(18) n -> oo: linear transfer's mean error tends to the out-of-span residual, mu={rec['mu']:.3f}"
    if len(ok) < 3:
        return [Finding(entry="transfer.rkhs_residual", check=name, kind="monte-carlo",
                        text=f"fewer than 3 sizes with n > p + 1 = {rank + 1}: no scaling fit",
                        values={"ns": [n for n, _, _ in ok]})]
    ns = np.array([n for n, _, _ in ok], dtype=float)
    second = S / ns * kappa / (ns - rank - 1)
    return compare_scaling("transfer.rkhs_residual", name, ns, np.array([m for _, m, _ in ok]) - second,
                           np.array([se for _, _, se in ok]), theory=rec["residual_at_tau"], order=1.0, k=4.0,
                           size_name="n", kind="monte-carlo",
                           detail=f"second-order term subtracted: {', '.join(f'{v:.3g}' for v in second)} (kappa = "
                                  f"{kappa:.3g}, p = {rank}); sandwich constant S = {S:.4g} (predicts C = S); "
                                  f"{_where(o)}",
                           extra={"mu": rec["mu"], "sandwich": S})



def _gram(ctx: Context, o: dict) -> list[Finding]:
    """Fig. 3(a)/(b): the seed says the pretrained and source-teacher Gram matrices are "nearly
    indistinguishable" -- a reading of a picture, with no number or scale. Reported as a Finding with the
    numbers (cosine, relative Frobenius distance, trace fraction of the model kernel inside the source span,
    each against its value at initialization), not asserted: at the quick profile the relative Frobenius
    distance stays near 0.5 while the trace fraction is near 1 (the kernel weights each source direction by
    the share of neurons that landed on it and keeps the neurons that never moved, c_i ~ 0), and no stated
    tolerance says whether that is "nearly indistinguishable". The heat maps ride on the pretraining records."""
    out = []
    for rec in o["per_mu"]:
        g, g0 = rec["gram"], rec["gram_init"]
        out.append(Finding(entry="transfer.rkhs_residual", check=f"Fig. 3(a)/(b): pretrained Gram vs source-teacher "
                           f"Gram, mu={rec['mu']:.3f} ({_where(o)}, {o['gram_points']} points)",
                           kind="training",
                           text=(f"relative Frobenius distance {g['relative_frobenius']:.3f} (init "
                                 f"{g0['relative_frobenius']:.3f}); cosine {g['cosine']:.4f} (init {g0['cosine']:.4f}); "
                                 f"trace fraction in the source span {g['trace_fraction_in_source_span']:.4f} (init "
                                 f"{g0['trace_fraction_in_source_span']:.4f}); neurons within cos > 0.99 of a source "
                                 f"direction {g['share_neurons_aligned']:.3f}, readout mass "
                                 f"{g['share_readout_mass_aligned']:.3f}. The seed's 'nearly indistinguishable' has no "
                                 f"stated tolerance; not asserted."),
                           values={"mu": rec["mu"], "relative_frobenius": g["relative_frobenius"],
                                   "relative_frobenius_init": g0["relative_frobenius"], "cosine": g["cosine"],
                                   "cosine_init": g0["cosine"],
                                   "trace_fraction": g["trace_fraction_in_source_span"],
                                   "trace_fraction_init": g0["trace_fraction_in_source_span"],
                                   "share_neurons_aligned": g["share_neurons_aligned"],
                                   "share_readout_mass_aligned": g["share_readout_mass_aligned"]}))
    return out


def _cost(ctx: Context, part: dict) -> float:
    """Work of one part: a pretraining segment, steps x runs x m^2 d (the Gram matrices of the population loss);
    the analysis, the sandwich points x m (d + m) and the Gram points; linear transfer, draws x n x m (d + m)."""
    P = _sizes(ctx.profile)
    m, d = P["m"], P["d"]
    if part["stage"] == "pretrain":
        return float((part["steps"][1] - part["steps"][0]) * len(part["mus"]) * m * m * d)
    if part["stage"] == "analysis":
        return float(P["sandwich_points"] * m * (d + m) + 2 * P["gram_points"] * m * d + 20 * m**3)
    return float((part["draws"][1] - part["draws"][0]) * int(part["n"]) * m * (d + m))


CHECKS = (
    Check(name="trained ReLU network: student-teacher transfer (Sec. 4, Fig. 3)", entries=("transfer.rkhs_residual",),
          kind="training", run=_run,
          doc="Mean-field ReLU network trained on the population loss of the ablated teacher (16): convergence and the "
          "bound ||P_perp f_s*||^2 <= 2 L; (156) with the learned features at decreasing eigenvalue cutoffs (Fig. "
          "3(d)); minimum-norm readout on n target samples, mean error over target sets vs residual + S/n and its "
          "n -> oo scaling fit; the Gram matrices of Fig. 3(a)/(b) (findings). In parts: pretraining segments in "
          "sequence per group of mus, then per mu the analysis and linear transfer in chunks of draws.",
          parts=_parts, combine=_combine, cost=_cost),
)
