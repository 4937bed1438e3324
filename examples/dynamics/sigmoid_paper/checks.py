"""Evidence for sigmoid.tex: the flows (2) and (5) integrated against (3), (7) and the learning time, and gradient
descent on (1) against the sigmoid (the experiment), each tolerance derived from the runs and stated."""
import numpy as np
import torch

from theorylab.authoring import Check, ode_check, trajectory_check

from .entries import T_STAR, U_F

S, U0, TAU = np.array([1.0, 2.0, 3.0]), np.array([1e-3, 1e-2, 0.1]), 1.0


def _logistic(ctx):
    """(5) from three (s, u_0) at once against u_f (7) and the time to reach s/2 against t* (corrected)."""
    return ode_check("sigmoid_paper.u_f", "the logistic flow (5)", system=lambda t, u: 2 * u * (S - u) / TAU,
                     y0=U0, times=np.linspace(0, 8, ctx.pick(quick=41, paper=401)),
                     solution=lambda t: U_F(t=t, tau=TAU, s=S, u_0=U0),
                     events={"time to reach s/2 vs t*": (lambda t, u: u - S / 2, T_STAR(s=S, tau=TAU, u_0=U0))})


def _conserved(ctx):
    """(2) from unbalanced starts: a^2 - b^2 (3) stays at its initial value."""
    a0, b0 = np.array([0.1, 0.5, 1.0]), np.array([0.3, 0.2, 0.05])

    def flow(t, y):
        a, b = y[:, 0], y[:, 1]
        return np.stack([b * (S - a * b), a * (S - a * b)], axis=1) / TAU

    return ode_check("sigmoid_paper.u_f", "a^2 - b^2 along the flow (2)", system=flow, y0=np.stack([a0, b0], 1),
                     times=np.linspace(0, 10, 21), observe=lambda y: y[..., 0] ** 2 - y[..., 1] ** 2,
                     solution=lambda t: (a0**2 - b0**2) + 0 * t)


def _trained(ctx):
    """The experiment: gradient descent on (1) from a_0 = b_0 = sqrt(u_0), u_0 read at step 0, t = k lr (tau = 1)."""
    s, a0 = torch.tensor(S), torch.tensor(np.sqrt(U0))
    return trajectory_check("sigmoid_paper.u_f", "gradient descent on (1) vs u_f", params={"a": a0, "b": a0},
                            loss=lambda p: (s - p["a"] * p["b"]) ** 2 / 2, observe={"u": lambda p: p["a"] * p["b"]},
                            predicted={"u": lambda t, start: U_F(t=t, tau=TAU, s=S, u_0=start["u"])},
                            lr=ctx.pick(quick=2e-3, paper=5e-4), steps=ctx.pick(quick=3000, paper=12000), every=100)


CHECKS = (Check(name="flows integrated", entries=("sigmoid_paper.u_f",), kind="numeric", run=_logistic),
          Check(name="conserved quantity", entries=("sigmoid_paper.u_f",), kind="numeric", run=_conserved),
          Check(name="trained network", entries=("sigmoid_paper.u_f",), kind="training", run=_trained))
