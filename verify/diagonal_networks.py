"""Trained-network evidence for diagonal linear networks (seed 000): PT+FT against the Q-penalty's
implicit bias (App. A), and multi-task networks against the l1,2 reduction (App. B).
"""
from __future__ import annotations

import numpy as np
import torch

import theorylab
from theorylab.evidence import Check, Context, Evidence, Finding, compare
from theorylab.montecarlo import rng_for
from theorylab.training import TrainConfig, resolve_device, train


def _ptft_problem(seed: int, n: int, D: int):
    rng = rng_for(seed, "ptft-diagonal")
    X = rng.normal(size=(n, D)) / np.sqrt(D)
    beta_aux = rng.normal(size=D) * (rng.uniform(size=D) < 0.5)  # a sparse pretrained predictor
    beta_true = beta_aux * rng.uniform(0.5, 1.5, size=D)          # a task that reuses its features
    return X, X @ beta_true, beta_aux


def train_ptft(problems, scale: float, gamma: float, lr_fraction: float, device: torch.device,
               max_steps: int, progress: bool = False):
    """Train the +/- diagonal network of eqs (6)-(7) from w+(0) = w-(0) = (scale sqrt|beta_aux|, scale gamma).

    All problems train at once (a leading run axis). Loss ||X beta - y||^2 (the seed's L).
    """
    X = torch.tensor(np.stack([p[0] for p in problems]), dtype=torch.float64, device=device)
    y = torch.tensor(np.stack([p[1] for p in problems]), dtype=torch.float64, device=device)
    aux = torch.tensor(np.stack([p[2] for p in problems]), dtype=torch.float64, device=device)
    w1 = scale * aux.abs().sqrt()
    w2 = scale * gamma * torch.ones_like(w1)
    params = {"a_p": w1, "c_p": w2, "a_m": w1.clone(), "c_m": w2.clone()}

    def loss(p):
        beta = p["a_p"] * p["c_p"] - p["a_m"] * p["c_m"]
        return ((torch.einsum("rnd,rd->rn", X, beta) - y) ** 2).sum(1)

    res = train(params, loss, TrainConfig(lr_fraction=lr_fraction, loss_tol=1e-20, max_steps=max_steps,
                                          progress=progress, desc=f"PT+FT diagonal, scale {scale}"))
    p = res.params
    beta = (p["a_p"] * p["c_p"] - p["a_m"] * p["c_m"]).cpu().numpy()
    return beta, res, w1.cpu().numpy(), w2.cpu().numpy()


def _ptft_checks(ctx: Context) -> list[Evidence]:
    """The trained beta_inf against qpenalty.implicit_bias, with the tolerance from step-size halving.

    Gradient descent is a first-order discretization of the flow: beta_eta - beta_flow ~ c eta, so the
    difference between the runs at eta and eta/2 estimates the discretization error; the tolerance is 4x
    that estimate plus the interpolation residual's effect (loss <= 1e-20 -> 1e-10).
    """
    quick = ctx.profile == "quick"
    n, D = (8, 16) if quick else (40, 200)
    seeds = range(3 if quick else 20)
    device = resolve_device(ctx.device)
    problems = [_ptft_problem(ctx.seed * 1000 + s, n, D) for s in seeds]
    ib = theorylab.get("qpenalty.implicit_bias")
    out = []
    for scale in (1.0, 0.3, 0.1):
        gamma = 0.5
        fine, res_f, w1, w2 = train_ptft(problems, scale, gamma, 0.02, device, 60_000, ctx.progress)
        coarse, res_c, _, _ = train_ptft(problems, scale, gamma, 0.04, device, 60_000, ctx.progress)
        ok = (res_f.converged & res_c.converged).cpu().numpy()
        errors, tols, preds, got = [], [], [], []
        for i, (X, y, _) in enumerate(problems):
            if not ok[i]:
                continue
            pred = ib(X=X, y=y, w1=w1[i], w2=w2[i])
            # Richardson: with error c*eta, the fine run's error is |fine - coarse|
            tols.append(4 * np.max(np.abs(fine[i] - coarse[i])) + 1e-9)
            errors.append(np.max(np.abs(fine[i] - pred)))
            preds.append(pred)
            got.append(fine[i])
        not_conv = int((~ok).sum())
        if not errors:
            # nothing to compare: a record without values fails (it is not a pass)
            out.append(Evidence(entry="qpenalty.implicit_bias", check=f"trained PT+FT diagonal network, scale {scale}",
                                kind="training", predicted=None, observed=None, tolerance=0.0,
                                tolerance_source="no run converged: nothing to compare",
                                detail=f"{not_conv} runs did not reach loss 1e-20"))
            continue
        worst = int(np.argmax(np.array(errors) - np.array(tols)))
        out.append(compare(
            "qpenalty.implicit_bias", f"trained PT+FT diagonal network vs implicit_bias, init scale {scale} "
            f"({len(errors)} seeds, n={n}, D={D}; worst seed shown)", "training", preds[worst], got[worst],
            atol=tols[worst],
            source="4 x |beta(eta) - beta(eta/2)| (GD is first order in eta) + 1e-9; convergence: loss <= 1e-20",
            detail=f"max |beta_trained - beta*| over seeds = {max(errors):.2e}; runs not converged (excluded): {not_conv}; "
                   f"median steps {int(res_f.steps.float().median())}"))
    return out


CHECKS_QPENALTY = (
    Check("trained PT+FT diagonal networks", ("qpenalty.implicit_bias",), "training", _ptft_checks,
          "Gradient descent on the +/- diagonal network from (sqrt|beta_aux|, gamma) ends at the minimum-Q "
          "interpolant (seed 000, App. A), at several initialization scales."),
)


# -- multi-task diagonal networks (seed 000, App. B) -------------------------------------------------
def min_l12_interpolant(X: np.ndarray, Y: np.ndarray, iters: int = 3000) -> np.ndarray:
    """argmin_B sum_d ||B[:, d]||_2 s.t. X B^T = Y (B is O x D), by iteratively reweighted least squares.

    Each step minimizes the majorizer of the smoothed objective sum_d sqrt(||B_d||^2 + eps^2) in closed
    form (weighted minimum norm: B^T = W X^T (X W X^T)^{-1} Y, W = diag(sqrt(||B_d||^2 + eps^2))), a
    descent step for that objective; eps shrinks geometrically to 1e-12, following the smoothed minimizers
    to the group-lasso one.
    """
    D = X.shape[1]
    w = np.ones(D)
    B = None
    for i in range(iters):
        eps = max(0.99**i, 1e-12)
        XW = X * w
        B = (XW.T @ np.linalg.solve(XW @ X.T, Y)).T
        w = np.sqrt(np.sum(B**2, axis=0) + eps**2)
    return B


def _mtl_problem(seed: int, n: int, D: int, O: int):
    rng = rng_for(seed, "mtl-diagonal")
    X = rng.normal(size=(n, D)) / np.sqrt(D)
    support = rng.uniform(size=D) < 0.25
    B = rng.normal(size=(O, D)) * support  # tasks share a sparse set of input dimensions
    return X, (B @ X.T).T


def _train_mtl(problems, alpha: float, device, seed: int, progress: bool):
    """Multi-task diagonal networks (25) with shared first layer, all problems at once; returns beta, P, ok."""
    O, D = problems[0][1].shape[1], problems[0][0].shape[1]
    X = torch.tensor(np.stack([p[0] for p in problems]), dtype=torch.float64, device=device)
    Y = torch.tensor(np.stack([p[1] for p in problems]), dtype=torch.float64, device=device)
    gen = torch.Generator().manual_seed(seed)
    R = len(problems)

    def init(*shape):
        return (alpha * (0.5 + torch.rand(R, *shape, generator=gen, dtype=torch.float64))).to(device)

    params = {"a_p": init(D), "c_p": init(O, D), "a_m": init(D), "c_m": init(O, D)}

    def loss(p):
        B = p["c_p"] * p["a_p"][:, None, :] - p["c_m"] * p["a_m"][:, None, :]
        return ((torch.einsum("rnd,rod->rno", X, B) - Y) ** 2).sum((1, 2))

    res = train(params, loss, TrainConfig(loss_tol=1e-18, max_steps=80_000, progress=progress,
                                          desc=f"multi-task diagonal O={O}, alpha {alpha}"))
    p = {k: v.cpu().numpy() for k, v in res.params.items()}
    B = p["c_p"] * p["a_p"][:, None, :] - p["c_m"] * p["a_m"][:, None, :]
    P = sum((p[k] ** 2).reshape(R, -1).sum(1) for k in p)
    return B, P, res.converged.cpu().numpy()


def _trend(entry: str, name: str, alphas, values) -> Evidence:
    """A decrease as alpha shrinks: every successive difference <= 0 (the record fails otherwise)."""
    values = np.asarray(values, dtype=float)
    steps = np.diff(values)
    return Evidence(entry=entry, check=f"{name} decreases as alpha shrinks {tuple(alphas)}: successive differences "
                    "<= 0", kind="training", predicted=[0.0] * len(steps), observed=steps.tolist(), tolerance=0.0,
                    relation="<=", tolerance_source="none: a trend over alpha, compared exactly",
                    detail="values " + ", ".join(f"{v:.2e}" for v in values))


def _mtl_checks(ctx: Context) -> list[Evidence]:
    """Train multi-task diagonal networks (25) from small initialization alpha; compare with App. B.

    (i) the parameter norm (26) at convergence is >= l12.min_param_norm of the learned beta (a bound that
    holds by definition) and the ratio approaches 1 as alpha shrinks (gradient flow conserves
    w1_d^2 - ||w2_d||^2 ~ alpha^2: balanced layers realize beta at minimum norm);
    (ii) the learned beta against the minimum-l1,2 interpolant. Control, O = 1: the distance to the
    minimum-l1 interpolant shrinks with alpha (Woodworth et al.'s rich limit). For O > 1 the learned
    beta's l1,2 norm is >= the minimum (a bound) and the gap is reported: measured here, it does not
    close as alpha shrinks -- gradient descent on the squared loss need not find the minimum-parameter-
    norm network that App. B's reduction speaks about.
    """
    quick = ctx.profile == "quick"
    n, D, O = (6, 12, 3) if quick else (30, 100, 5)
    seeds = range(3 if quick else 20)
    device = resolve_device(ctx.device)
    alphas = (0.1, 0.01, 0.001)
    mpn = theorylab.get("l12.min_param_norm")
    out = []
    control = [_mtl_problem(ctx.seed * 1000 + s, n, D, 1) for s in seeds]
    control_min = [min_l12_interpolant(*p) for p in control]
    problems = [_mtl_problem(ctx.seed * 1000 + s, n, D, O) for s in seeds]
    targets = [min_l12_interpolant(*p) for p in problems]
    control_dist, ratios, gaps = [], [], []
    for alpha in alphas:
        Bc, _, okc = _train_mtl(control, alpha, device, ctx.seed, ctx.progress)
        control_dist.append(max(np.max(np.abs(Bc[i] - control_min[i])) / np.max(np.abs(control_min[i]))
                                for i in range(len(control)) if okc[i]))
        B, P, ok = _train_mtl(problems, alpha, device, ctx.seed, ctx.progress)
        idx = [i for i in range(len(problems)) if ok[i]]
        r = [P[i] / mpn(beta=B[i]) for i in idx]
        lo = min(r)
        ratios.append(max(r) - 1)
        out.append(Evidence(
            entry="l12.min_param_norm", check=f"parameter norm at convergence >= min_param_norm(learned beta), "
            f"alpha {alpha} ({len(idx)} seeds, n={n}, D={D}, O={O}): smallest ratio P/min_param_norm >= 1",
            kind="training", predicted=1.0, observed=lo, tolerance=1e-12, relation=">=",
            tolerance_source="a bound: the minimum over realizations cannot exceed a realization; 1e-12 covers the "
                             "float64 rounding of both sums of 2(O + 1)D squares (< 100 ulps)",
            detail=f"ratios P/min_param_norm: {', '.join(f'{v:.6f}' for v in r)}; not converged "
                   f"(excluded): {len(problems) - len(idx)}"))
        norm_l = np.array([np.linalg.norm(B[i], axis=0).sum() for i in idx])
        norm_m = np.array([np.linalg.norm(targets[i], axis=0).sum() for i in idx])
        gap = (norm_l - norm_m) / norm_m
        gaps.append(float(np.max(gap)))
        dist = max(np.max(np.abs(B[i] - targets[i])) / np.max(np.abs(targets[i])) for i in idx)
        out.append(Evidence(
            entry="l12.norm", check=f"learned beta's l1,2 norm >= the minimum over interpolants (IRLS), alpha {alpha} "
            f"(O={O}), relative to the minimum", kind="training", predicted=np.zeros(len(idx)), observed=gap,
            tolerance=1e-7, relation=">=",
            tolerance_source="a bound: ||beta_learned||_1,2 >= min over interpolants; IRLS's point interpolates, so its "
                             "norm is >= the minimum and 1e-7 relative covers the learned beta interpolating only to "
                             "loss 1e-18 (residual 1e-9 against ||X|| ~ 1, ||Y|| ~ 1)",
            detail=f"relative l1,2 gap {np.max(gap):.2e}, max relative distance to the minimizer {dist:.2e}"))
    out.append(_trend("l12.min_param_norm", "rich limit: P/min_param_norm - 1", alphas, ratios))
    out.append(_trend("l12.norm", "control O=1: distance to the minimum-l1 interpolant", alphas, control_dist))
    out.append(Finding(entry="l12.norm", check=f"l1,2 gap of the learned beta over alpha (O={O})", kind="training",
                       text=f"relative l1,2 gap of the learned beta to the minimum-l1,2 interpolant at alpha "
                            f"{', '.join(map(str, alphas))}: {', '.join(f'{g:.2e}' for g in gaps)}"
                            + (" -- it does not close as alpha shrinks" if not gaps[-1] < gaps[0] / 10 else "")
                            + ". Reported, not asserted: App. B speaks of the minimum-parameter-norm network, not of "
                              "what gradient descent on the squared loss finds.",
                       values={"alphas": list(alphas), "relative_gaps": gaps}))
    return out


CHECKS_L12 = (
    Check("trained multi-task diagonal networks", ("l12.min_param_norm", "l12.norm"), "training", _mtl_checks,
          "Multi-task diagonal networks from small initialization: parameter norm vs the l1,2 reduction "
          "(seed 000, App. B) and the learned beta vs the minimum-l1,2 interpolant."),
)
