"""Gradient descent that tracks gradient flow, batched over independent runs (a leading tensor axis).

Step-size rule: each run takes steps eta = lr_fraction / lambda_max, with lambda_max the largest Hessian
eigenvalue of that run's loss (power iteration on Hessian-vector products), re-estimated every
`curvature_every` steps. Explicit Euler on the flow w' = -grad L then has local error O((eta*lambda)^2),
so lr_fraction = 0.05 keeps the discrete path within a few percent of the flow per unit of its
time scale. Curvature grows as small weights grow, so between estimates a step that raises a run's loss
(or makes it non-finite) is undone and that run's step halved until the next estimate. A run converges when its loss <= loss_tol; runs that do not converge within max_steps are
reported as such (TrainResult.converged) and must be excluded from comparisons. Where the loss has a
non-zero minimum (regression on frozen features), convergence is ||grad|| <= grad_tol instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from tqdm.auto import tqdm

__all__ = ["TrainConfig", "TrainResult", "train", "resolve_device", "default_dtype"]

Params = dict[str, torch.Tensor]


def resolve_device(choice: str = "auto") -> torch.device:
    """'auto' -> CUDA when present, else CPU; 'cuda' without a GPU is a ValueError naming --device."""
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        raise ValueError("device must be auto or cpu on this machine (no CUDA device); got device=cuda")
    return torch.device(choice)


def default_dtype(device: torch.device) -> torch.dtype:
    """float64 everywhere by default (the comparisons are with closed forms); CUDA may ask float32."""
    return torch.float64


@dataclass(frozen=True)
class TrainConfig:
    lr_fraction: float = 0.05       # eta * lambda_max per step (the gradient-flow rule above)
    lr: float | None = None         # a fixed step instead of the rule
    max_steps: int = 20_000
    loss_tol: float = 1e-10
    grad_tol: float = 0.0           # also converged when ||grad|| <= grad_tol (a non-zero minimum of the loss)
    curvature_every: int = 50
    power_iterations: int = 8
    progress: bool = False
    desc: str = "training"


@dataclass(frozen=True)
class TrainResult:
    params: Params
    loss: torch.Tensor        # (R,) final loss of each run
    converged: torch.Tensor   # (R,) bool
    steps: torch.Tensor       # (R,) steps taken until convergence (max_steps if not converged)
    lr: torch.Tensor          # (R,) last step size

    def summary(self) -> str:
        r = self.loss.numel()
        c = int(self.converged.sum())
        return (f"{c}/{r} runs converged (loss <= tol); max final loss {float(self.loss.max()):.2e}; "
                f"steps median {int(self.steps.float().median())}")


def _per_run(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(x.shape[0], -1).sum(dim=1)


def _lambda_max(loss_fn: Callable[[Params], torch.Tensor], params: Params, iters: int) -> torch.Tensor:
    """Largest |Hessian eigenvalue| per run by power iteration (runs are independent: one summed loss)."""
    names = list(params)
    ps = [params[n].detach().requires_grad_(True) for n in names]
    loss = loss_fn(dict(zip(names, ps))).sum()
    grads = torch.autograd.grad(loss, ps, create_graph=True)
    gen = torch.Generator(device=ps[0].device).manual_seed(0)
    v = [torch.randn(p.shape, generator=gen, device=p.device, dtype=p.dtype) for p in ps]
    lam = torch.zeros(ps[0].shape[0], dtype=ps[0].dtype, device=ps[0].device)
    for _ in range(iters):
        norm = torch.sqrt(sum(_per_run(u * u) for u in v)).clamp_min(1e-300)
        v = [u / norm.view(-1, *([1] * (u.dim() - 1))) for u in v]
        hv = torch.autograd.grad(grads, ps, grad_outputs=v, retain_graph=True)
        lam = sum(_per_run(a * b) for a, b in zip(v, hv)).abs()
        v = [h.detach() for h in hv]
    return lam.detach()


def train(params: Params, loss_fn: Callable[[Params], torch.Tensor], config: TrainConfig = TrainConfig()
          ) -> TrainResult:
    """Full-batch gradient descent on every run at once.

    params: tensors whose leading axis indexes independent runs (seeds x grid points); loss_fn maps them
    to the (R,) vector of per-run losses. Converged runs are frozen (their updates are masked out).
    """
    params = {k: v.detach().clone() for k, v in params.items()}
    first = next(iter(params.values()))
    R = first.shape[0]
    done = torch.zeros(R, dtype=torch.bool, device=first.device)
    steps = torch.full((R,), config.max_steps, dtype=torch.long, device=first.device)
    lr = torch.full((R,), float(config.lr or 0.0), dtype=first.dtype, device=first.device)
    bar = None
    if config.progress:
        bar = tqdm(total=config.max_steps, desc=config.desc, leave=False, unit="step")
    loss = None
    prev_params, prev_loss = None, None
    for step in range(config.max_steps):
        if config.lr is None and step % config.curvature_every == 0:
            lam = _lambda_max(loss_fn, params, config.power_iterations)
            lr = torch.where(done, lr, config.lr_fraction / lam.clamp_min(1e-12))
        for p in params.values():
            p.requires_grad_(True)
        loss = loss_fn(params)
        if prev_loss is not None:
            # reject steps that raised a run's loss (curvature outgrew the step): undo and halve the step
            bad = (~torch.isfinite(loss.detach()) | (loss.detach() > prev_loss * (1 + 1e-12))) & ~done
            if bool(bad.any()):
                with torch.no_grad():
                    for name in params:
                        mask = bad.view(-1, *([1] * (params[name].dim() - 1)))
                        params[name] = torch.where(mask, prev_params[name], params[name].detach())
                for p in params.values():
                    p.requires_grad_(True)
                lr = torch.where(bad, lr / 2, lr)
                loss = loss_fn(params)
        grads = torch.autograd.grad(loss.sum(), list(params.values()))
        gnorm = torch.sqrt(sum(_per_run(g * g) for g in grads)).detach()
        newly = ((loss.detach() <= config.loss_tol) | (gnorm <= config.grad_tol)) & ~done
        steps = torch.where(newly, torch.full_like(steps, step), steps)
        done = done | newly
        if bool(done.all()):
            break
        prev_params = {k: v.detach() for k, v in params.items()}
        prev_loss = loss.detach()
        with torch.no_grad():
            live = (~done).to(first.dtype) * lr
            for (name, p), g in zip(list(params.items()), grads):
                params[name] = (p - live.view(-1, *([1] * (p.dim() - 1))) * g).detach()
        if bar is not None and step % 100 == 0:
            bar.update(100)
            bar.set_postfix(converged=f"{int(done.sum())}/{R}")
    if bar is not None:
        bar.close()
    with torch.no_grad():
        final = loss_fn(params).detach()
    return TrainResult({k: v.detach() for k, v in params.items()}, final, done | (final <= config.loss_tol),
                       steps, lr)
