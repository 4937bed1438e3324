"""Evidence for the omega family (seed 003): Theorem 1 against a direct numerical solution of the joint
problem (4) over (M, theta), the adapted kernel (9), and omega-tilde / (+) against brute-force minimization.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import minimize, minimize_scalar

import theorylab
from theorylab.authoring import Check, Context, Evidence, Finding, compare
from theorylab.authoring import Z

from .tangent_features import CHECKS as TANGENT_CHECKS


def _joint_problem(G: np.ndarray, r: np.ndarray, rng: np.random.Generator, starts: int):
    """min over M (P x P) and delta = theta - theta0 of sum_j (sigma_j(M) - 1)^2 + ||delta||^2
    s.t. G M delta = r (eq 4 with omega = (z-1)^2), by SLSQP from several random starts."""
    N, P = G.shape

    def unpack(w):
        return w[:P * P].reshape(P, P), w[P * P:]

    def objective(w):
        M, delta = unpack(w)
        return float(np.sum((np.linalg.svd(M, compute_uv=False) - 1) ** 2) + delta @ delta)

    best = None
    for _ in range(starts):
        w0 = np.concatenate([(np.eye(P) + 0.3 * rng.normal(size=(P, P))).ravel(), rng.normal(size=P)])
        res = minimize(objective, w0, method="SLSQP", options={"ftol": 1e-13, "maxiter": 3000},
                       constraints=[{"type": "eq", "fun": lambda w: G @ unpack(w)[0] @ unpack(w)[1] - r}])
        if res.success and np.max(np.abs(G @ unpack(res.x)[0] @ unpack(res.x)[1] - r)) < 1e-8:
            if best is None or res.fun < best.fun:
                best = res
    return best, unpack(best.x) if best is not None else (None, None)


def _theorem1(ctx: Context) -> list[Evidence]:
    """Objective values equal; the solution's beta = M delta equals the minimum-norm interpolant; M has the
    eigenvalue s along beta (the symmetry of the proof: M is determined up to rotations fixing beta-hat, and
    only M's action on beta-hat and its singular values matter)."""
    rng = np.random.default_rng(ctx.seed)
    t1, tilde = theorylab.get("omega.theorem1"), theorylab.get("omega.tilde")
    out = []
    for trial, (N, P) in enumerate(ctx.pick(quick=((2, 4), (3, 5), (4, 6)), paper=((2, 4), (3, 5), (4, 6), (4, 6), (3, 6)))):
        G, r = rng.normal(size=(N, P)), rng.normal(size=N)
        beta = np.linalg.pinv(G) @ r  # eq 5 with Omega~ increasing in ||beta||: the minimum-norm solution
        pred = t1(beta=beta, omega="(z-1)**2")
        value = tilde(v=float(np.linalg.norm(beta)), omega="(z-1)**2")
        best, (M, delta) = _joint_problem(G, r, rng, 6)
        if best is None:
            out.append(Evidence(entry="omega.theorem1", check=f"direct solution of (4), instance {trial}", kind="numeric",
                                predicted=value, observed=None, tolerance=0.0,
                                tolerance_source="no feasible solution to compare with (a failure, not a pass)",
                                detail="SLSQP found no feasible solution"))
            continue
        out.append(compare("omega.theorem1", f"(4) solved directly vs omega~(||beta-hat||), N={N}, P={P}", "numeric",
                           value, best.fun, rtol=1e-6, source="SLSQP ftol 1e-13, best of 6 starts: 1e-6 relative"))
        b_found = M @ delta
        out.append(compare("omega.theorem1", f"beta = M (theta - theta0) equals the minimum-norm interpolant, N={N}, P={P}",
                           "numeric", beta, b_found, atol=1e-4 * np.linalg.norm(beta),
                           source="sqrt of the 1e-8 objective tolerance, relative to ||beta||"))
        # the proof's symmetry: M is determined up to M -> U M V^T with U, V fixing the solution; its invariants
        # are the singular values (s, 1, ..., 1) and ||theta - theta0|| = ||beta-hat||/s
        sv = np.sort(np.linalg.svd(M, compute_uv=False))[::-1]
        want = np.concatenate([[pred["s"]], np.ones(P - 1)])
        out.append(compare("omega.theorem1", f"singular values of M are (s, 1, ..., 1), N={N}, P={P}", "numeric",
                           want, sv, atol=1e-3, source="sqrt of the SLSQP objective tolerance (1e-6 -> 1e-3)"))
        out.append(compare("omega.theorem1", f"||theta - theta0|| = ||beta-hat||/s, N={N}, P={P}", "numeric",
                           float(np.linalg.norm(beta)) / pred["s"], float(np.linalg.norm(delta)), atol=1e-3,
                           source="sqrt of the SLSQP objective tolerance (1e-6 -> 1e-3)"))
        # the entry's own (theta_delta, M): feasible (G M theta_delta = r) and attaining the direct minimum of (4)
        # (theta_delta itself is fixed only up to the rotations of the symmetry, so its value is checked through
        # the constraint and the objective, both of which it enters)
        td, Mp = np.asarray(pred["theta_delta"], float), np.asarray(pred["M"], float)
        out.append(compare("omega.theorem1", f"entry's (M, theta_delta) satisfies G M theta_delta = r, N={N}, P={P}",
                           "numeric", r, G @ Mp @ td, atol=1e-9 * float(np.linalg.norm(r)),
                           source="float64 products of a few P x P matrices: 1e-9 of ||r||"))
        obj = float(np.sum((np.linalg.svd(Mp, compute_uv=False) - 1) ** 2) + td @ td)
        out.append(compare("omega.theorem1", f"objective of (4) at the entry's (M, theta_delta) vs SLSQP's minimum, "
                           f"N={N}, P={P}", "numeric", obj, best.fun, rtol=1e-6,
                           source="SLSQP ftol 1e-13, best of 6 starts: 1e-6 relative"))
    # the adapted kernel (9) against the kernel computed from the solution: G M^2 G^T
    G, r = rng.normal(size=(3, 5)), rng.normal(size=3)
    beta = np.linalg.pinv(G) @ r
    pred = t1(beta=beta, omega="(z-1)**2")
    K_direct = G @ pred["M"] @ pred["M"] @ G.T
    s = pred["s"]
    K_9 = G @ G.T + (s * s - 1) / (beta @ beta) * np.outer(G @ beta, G @ beta)
    out.append(compare("omega.theorem1", "adapted kernel (9) vs grad f M^2 grad f^T at the solution (8)", "numeric",
                       K_direct, K_9, rtol=1e-12, source="two float64 evaluations of the same matrix"))
    return out


def _scalar(ctx: Context) -> list[Evidence]:
    """omega-tilde and (+) against generic bounded minimization (scipy), per point."""
    tilde, oplus = theorylab.get("omega.tilde"), theorylab.get("omega.oplus")
    out = []
    for om in ("(z-1)**2", "Abs(z-1)", "Abs(z-1)**3", "exp(z-1)-z"):
        f = sp.lambdify(Z, sp.sympify(om, locals={"z": Z}), "numpy")
        vs = np.array([0.1, 0.7, 1.5, 4.0, 30.0])
        brute = [minimize_scalar(lambda zz, v=v: f(zz) + v * v / zz**2, bounds=(1, 1e3), method="bounded",
                                 options={"xatol": 1e-12}).fun for v in vs]
        brute = np.minimum(brute, vs**2)  # the boundary z = 1
        out.append(compare("omega.tilde", f"omega~ vs scipy bounded minimization, omega = {om}", "numeric",
                           tilde(v=vs, omega=om), brute, rtol=1e-8,
                           source="scipy's bounded Brent with xatol 1e-12: value error ~ F'' xatol^2, 1e-8 relative"))
    f1, f2 = (sp.lambdify(Z, sp.sympify(o, locals={"z": Z}), "numpy") for o in ("(z-1)**2", "Abs(z-1)"))
    vs = np.array([1.0, 1.5, 3.0, 10.0])
    brute = [min(minimize_scalar(lambda zz, v=v: f1(zz) + f2(v / zz), bounds=(1, v), method="bounded",
                                 options={"xatol": 1e-12}).fun if v > 1 else 0.0, f1(1.0) + f2(v), f1(v) + f2(1.0))
             for v in vs]
    out.append(compare("omega.oplus", "(z-1)^2 (+) |z-1| vs scipy bounded minimization over [1, v]", "numeric",
                       oplus(v=vs, omega1="(z-1)**2", omega2="Abs(z-1)"), brute, rtol=1e-8,
                       source="scipy's bounded Brent with xatol 1e-12"))
    return out


def _diag_l1(ctx: Context) -> list[Evidence]:
    """App. A.1: min over m_j > 0 of sum_j m_j^2 + beta_j^2/m_j^2, minimized directly (L-BFGS on log m, from
    several starts) against the entry's 2||beta||_1."""
    rng = np.random.default_rng(ctx.seed)
    diag = theorylab.get("omega.diag_l1")
    out = []
    for P in (1, 3, 6):
        beta = rng.normal(size=P) * rng.choice((0.1, 1.0, 10.0), size=P)

        def objective(u, beta=beta):
            m2 = np.exp(2 * u)
            return float(np.sum(m2 + beta**2 / m2))

        best = min((minimize(objective, rng.normal(size=P), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
                    for _ in range(4)), key=lambda res: res.fun)
        out.append(compare("omega.diag_l1", f"2||beta||_1 vs direct minimization over diagonal M, P={P}", "numeric",
                           diag(beta=beta), best.fun, rtol=1e-7,
                           source="L-BFGS-B at ftol 1e-15 on a smooth convex problem in log m: value error ~1e-10 "
                                  "relative, held to 1e-7"))
    return out


def _text_findings(ctx: Context) -> list[Evidence | Finding]:
    """What the seed's text says that no relation can decide: the shape of a growth claim. (Prop. 3's undefined w~,
    a Finding before #22, is the typo erratum 003-prop3-w of omega.prop3_proof.)"""
    tilde = theorylab.get("omega.tilde")
    vs = np.array([1e2, 1e4, 1e6])
    w = np.asarray(tilde(v=vs, omega="(z-1)**2"), float)
    return [
        Finding(entry="omega.tilde", check="text after Prop. 3: omega = (z-1)^2 'behaves like |v| for large v'",
                kind="numeric",
                text=("Linear growth holds (omega.propositions proves omega~(v)/v -> 2 and omega~(v) = 2v - 2 sqrt(v) + "
                      "3/4 + o(1) along the exact minimizer curve), so the claim stands as stated; the slope is 2 (twice "
                      "the nuclear norm for large singular values) and the sqrt correction decays only like v^(-1/2) "
                      "relative: omega~(v)/v at v = 1e2, 1e4, 1e6 from the entry omega.tilde is "
                      + ", ".join(f"{x:.8f}" for x in w / vs) + "."),
                values={"v": vs.tolist(), "omega_tilde_over_v": (w / vs).tolist(),
                        "two_minus_2_over_sqrt_v": (2 - 2 / np.sqrt(vs)).tolist()}),
    ]


FLAT = "Max(0, z - 2)"  # omega(1) = 0, nondecreasing on z >= 1, flat on [1, 2]: quasi-convex but NOT strictly


def _flat_tilde(v: float) -> tuple[float, float]:
    """min over z >= 1 of Max(0, z-2) + v^2/z^2 solved directly: on [1, 2] the minimum is v^2/4 at z = 2; beyond 2
    the objective z - 2 + v^2/z^2 is convex with stationary point z = (2 v^2)^(1/3); bounded Brent on [2, 2 + v^2]
    (F(2 + v^2) >= v^2 >= F(2)) at xatol 1e-13"""
    res = minimize_scalar(lambda z: max(0.0, z - 2) + v * v / z**2, bounds=(2.0, 2.0 + v * v), method="bounded",
                          options={"xatol": 1e-13})
    return (float(res.fun), float(res.x)) if res.fun < v * v / 4 else (v * v / 4, 2.0)


def _hypothesis_edges(ctx: Context) -> list[Finding]:
    """Theorem 1 and Prop. 3 with 'strictly' dropped from 'strictly quasi-convex' (omega = Max(0, z-2)): which
    conclusions survive (reported as findings: the entries reject such an omega)."""
    rng = np.random.default_rng(ctx.seed)
    f = sp.lambdify(Z, sp.sympify(FLAT, locals={"z": Z}), "numpy")
    bs = [0.5, 1.0, 3.0]
    attained, lower_gap = [], []
    for b in bs:
        val, s = _flat_tilde(b)
        beta = b * np.array([0.6, -0.8])
        M = np.eye(2) + (s - 1) * np.outer(beta, beta) / b**2      # (8)
        delta = beta / s
        obj = float(np.sum(f(np.linalg.svd(M, compute_uv=False))) + delta @ delta)
        attained.append(abs(obj - val))
        # random feasible (M, theta): M delta = beta; the objective must not go below omega~(||beta||)
        gaps = []
        for _ in range(200):
            Mr = np.eye(2) + rng.normal(size=(2, 2)) * rng.uniform(0, 3)
            if abs(np.linalg.det(Mr)) < 1e-3:
                continue
            dr = np.linalg.solve(Mr, beta)
            gaps.append(float(np.sum(f(np.linalg.svd(Mr, compute_uv=False))) + dr @ dr) - val)
        lower_gap.append(min(gaps))
    vs = np.array([1e-1, 1e-2, 1e-3])
    ratio = np.array([_flat_tilde(v)[0] / v**2 for v in vs])
    return [
        Finding(entry="omega.theorem1", check="Theorem 1 without 'strictly' (omega = Max(0, z-2))", kind="numeric",
                text=("Dropping 'strictly' from Theorem 1's hypothesis: with omega = Max(0, z-2) (flat on [1, 2]) the "
                      "minimizer s of omega(z) + ||beta||^2/z^2 still exists (s = "
                      + ", ".join(f"{_flat_tilde(b)[1]:.6g}" for b in bs) + " at ||beta|| = 0.5, 1, 3), the rank-one "
                      "solution (8) attains omega~(||beta||) (|objective - omega~| = "
                      + ", ".join(f"{x:.1e}" for x in attained) + "), and 200 random feasible (M, theta) per ||beta|| "
                      "never go below it (smallest excess " + ", ".join(f"{x:.3g}" for x in lower_gap) + "): the "
                      "conclusion survives on these instances."),
                values={"beta_norm": bs, "attained_abs_error": attained, "min_excess_random_feasible": lower_gap}),
        Finding(entry="omega.tilde", check="Prop. 3 without 'strictly' (omega = Max(0, z-2))", kind="numeric",
                text=("Prop. 3's 'omega~(v) = v^2 + o(v^2)' does NOT survive dropping 'strictly': for omega = Max(0, "
                      "z-2) the minimizer sits at z = 2 for small v and omega~(v)/v^2 = 1/4 (at v = 0.1, 0.01, 0.001: "
                      + ", ".join(f"{x:.6g}" for x in ratio) + "); concavity in v^2 and monotonicity do survive (a "
                      "minimum of functions affine in v^2). The strict increase near z = 1 is the hypothesis that "
                      "gives the quadratic behaviour at 0."),
                values={"v": vs.tolist(), "omega_tilde_over_v2": ratio.tolist()}),
    ]


CHECKS = (
    Check(name="Theorem 1 vs the joint problem", entries=("omega.theorem1", "omega.tilde"), kind="numeric",
          run=_theorem1,
          doc="Direct numerical solution of (4) over (M, theta) on small random instances; the adapted kernel (9)."),
    Check(name="effective penalties vs brute force", entries=("omega.tilde", "omega.oplus"), kind="numeric",
          run=_scalar,
          doc="omega-tilde and the joint penalty against generic scalar minimization."),
    Check(name="diagonal M: 2||beta||_1 vs direct minimization", entries=("omega.diag_l1",), kind="numeric",
          run=_diag_l1,
          doc="App. A.1's diagonal reparameterization minimized directly over m_j > 0."),
    Check(name="seed text: growth", entries=("omega.tilde",), kind="property", run=_text_findings,
          doc="Finding (reported, not asserted): the large-v growth of omega~ (Prop. 3's w~ is the erratum "
              "003-prop3-w)."),
    Check(name="omega: hypotheses at their edges", entries=("omega.theorem1", "omega.tilde"), kind="numeric",
          run=_hypothesis_edges,
          doc="Findings: Theorem 1 and Prop. 3 with 'strictly quasi-convex' weakened to quasi-convex (omega flat "
              "on [1, 2])."),
) + TANGENT_CHECKS
