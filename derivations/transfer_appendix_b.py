"""Seed 002, App. B.2-B.4 (eqs (32)-(87)): the conservation law, the rank-one bounds behind Lemma B.1 and Theorem 3.4,
and the convergence of Theorem 3.5, transcribed as steps (relations decided by the engine).

Every side is evaluated on a small deep linear network (d <= 3, L <= 4) whose initialization W_l(0) = alpha Wbar_l
satisfies the paper's assumption (19), Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T >= lam I (built backwards:
Wbar_l = Q_l (Wbar_{l+1} Wbar_{l+1}^T + lam I + R R^T)^(1/2) with Q_l orthogonal), trained by the gradient flow (4)
on the population objective (2) (x ~ N(0, I), y = beta_s^T x + eps with eps ~ N(0, sigma^2) as in Assumption
2.1: L = ||beta - beta_s||^2 / 2 + sigma^2 / 2; the points carry `sigma`, 0 unless given; the constant changes no
gradient, so the flow is the same for every sigma) or on the empirical objective (3) (L = ||X beta - y||^2 / (2n)),
integrated by scipy's solve_ivp (DOP853, rtol 1e-12, atol 1e-14). Derivatives in time and gradients are complex-step
derivatives (exact to float64 rounding: the losses are polynomials in the weights), independent of the flow's
hand-written vector field.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np
import sympy as sp

from theorylab.authoring import Amendment, Derivation, Erratum, Step

SEED = "002_a6e10e5d8d1167fd.txt"

ODE_TOL = 1e-8
ODE_SRC = ("solve_ivp DOP853 at rtol 1e-12 / atol 1e-14 over t <= 50 on weights of norm <= 5: the state's global "
           "error (re-solved at rtol 1e-13, below 1e-10) times the derivative of a quadratic/quartic in the weights")
CS_TOL = 1e-10
CS_SRC = ("complex-step derivatives (h = 1e-30) of polynomial losses: truncation ~ h^2, float64 rounding "
          "~ 1e-15 relative on values <= 1e3, plus the ODE state's error (< 1e-10)")


# -- the network and its flow ---------------------------------------------------------------------------------------
def _init(d: int, L: int, lam: float, seed: int, gen: int = 0):
    """Wbar_1..Wbar_L (d x d, ..., d x 1) satisfying (19) with constant lam, built from the last layer backwards.

    gen = 2: the tight initialization Wbar_l = sqrt((L - l) lam) I_d, Wbar_L = 0 ((19) with equality).
    gen = 1: the wide family of the (41) search (layer scales 10^U(-1, 1), slacks R R^T with R ~ 10^U(-2, 1) N,
    d and lam drawn from the seed's stream and required to match the point's)."""
    if gen == 2:  # (19) with equality: Wbar_l = sqrt((L - l) lam) I, Wbar_L = 0
        return [np.sqrt((L - l) * lam) * np.eye(d) for l in range(1, L)] + [np.zeros((d, 1))]
    if gen == 1:
        rng = np.random.default_rng(seed)
        dd, ll = int(rng.integers(2, 4)), float(10 ** rng.uniform(-3, 0))
        if dd != d or abs(ll - lam) > 1e-15 * lam:
            raise ValueError(f"gen=1 seed {seed} draws d = {dd}, lam = {ll!r}")
        ws = [rng.normal(size=(d, 1)) * 10 ** rng.uniform(-1, 1)]
        for _ in range(L - 1):
            nxt, r = ws[0], 10 ** rng.uniform(-2, 1) * rng.normal(size=(d, d))
            evals, evecs = np.linalg.eigh(nxt @ nxt.T + lam * np.eye(d) + r @ r.T)
            q, _ = np.linalg.qr(rng.normal(size=(d, d)))
            ws.insert(0, q @ (evecs @ np.diag(np.sqrt(evals)) @ evecs.T))
        return ws
    rng = np.random.default_rng(1000 + seed)
    ws = [rng.normal(size=(d, 1))]
    for _ in range(L - 1):
        nxt = ws[0]
        r = 0.5 * rng.normal(size=(d, d))
        m = nxt @ nxt.T + lam * np.eye(d) + r @ r.T
        evals, evecs = np.linalg.eigh(m)
        root = evecs @ np.diag(np.sqrt(evals)) @ evecs.T
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        ws.insert(0, q @ root)
    return ws


def _data(kind: str, d: int, n: int, seed: int, yscale: float = 1.0):
    rng = np.random.default_rng(2000 + seed)
    if kind == "pop":
        b = rng.normal(size=(d, 1))
        return None, b / np.linalg.norm(b)  # beta_s, unit norm (Assumption 3.2)
    x = rng.normal(size=(n, d))
    return x, yscale * rng.normal(size=(n, 1))


def _prod(ws):
    out = np.eye(ws[0].shape[0]) if ws else None
    for w in ws:
        out = out @ w
    return out


def _loss(ws, kind, x, y):
    beta = _prod(ws)
    if kind == "pop":
        r = beta - y
        return 0.5 * np.sum(r * r)
    r = x @ beta - y
    return np.sum(r * r) / (2 * x.shape[0])


def _grad_beta(ws, kind, x, y):
    beta = _prod(ws)
    return beta - y if kind == "pop" else x.T @ (x @ beta - y) / x.shape[0]


def _field(ws, kind, x, y):
    """The gradient-flow vector field -grad_l L = -(W_1..W_{l-1})^T g (W_{l+1}..W_L)^T, g = dL/dbeta."""
    g = _grad_beta(ws, kind, x, y)
    d = ws[0].shape[0]
    out = []
    for l in range(len(ws)):
        pre = _prod(ws[:l]) if l else np.eye(d)
        post = _prod(ws[l + 1:]) if l + 1 < len(ws) else np.eye(1)
        out.append(-(pre.T @ g @ post.T))
    return out


def _flat(ws):
    return np.concatenate([w.ravel() for w in ws])


def _unflat(v, d, L):
    ws, i = [], 0
    for l in range(L):
        cols = 1 if l == L - 1 else d
        ws.append(v[i:i + d * cols].reshape(d, cols))
        i += d * cols
    return ws


@functools.lru_cache(maxsize=None)
def _state(kind, d, L, alpha, seed, t, n=0, lam=0.5, yscale=1.0, gen=0):
    """Weights W_l(t) of the flow (4) from W_l(0) = alpha Wbar_l, with the instance's data."""
    from scipy.integrate import solve_ivp

    wbar = _init(d, L, lam, seed, gen)
    x, y = _data(kind, d, n, seed, yscale)
    w0 = [alpha * w for w in wbar]
    if t > 0:
        sol = solve_ivp(lambda _t, v: _flat(_field(_unflat(v, d, L), kind, x, y)), (0.0, t), _flat(w0),
                        method="DOP853", rtol=1e-12, atol=1e-14)
        ws = _unflat(sol.y[:, -1], d, L)
    else:
        ws = w0
    return {"ws": ws, "wbar": wbar, "x": x, "y": y, "kind": kind, "alpha": alpha, "lam": lam, "L": L, "d": d}


def _S(p):
    """The state at a point; its kind ("pop" or "emp") as given, else "emp" exactly where it has n samples (every
    empirical point has n >= 1, no population point has n), so a point read without its text values (the machine
    comparison keeps numbers only) is the same point."""
    return _state(p.get("kind", "emp" if p.get("n") else "pop"), p["d"], p["L"], p["alpha"], p["seed"], p["t"],
                  p.get("n", 0), p.get("lam", 0.5), p.get("yscale", 1.0), p.get("gen", 0))


def _cs_dir(fun, ws, dirs, h=1e-30):
    """d/ds fun(W + s dW) at s = 0 by the complex step."""
    return float(np.imag(fun([w + 1j * h * dw for w, dw in zip(ws, dirs)])) / h)


def _cs_grad(fun, ws):
    """The gradient of fun with respect to each W_l, entry by entry, by the complex step."""
    out = []
    for l, w in enumerate(ws):
        gl = np.zeros(w.shape)
        for idx in np.ndindex(w.shape):
            e = [np.zeros(v.shape) for v in ws]
            e[l][idx] = 1.0
            gl[idx] = _cs_dir(fun, ws, e)
        out.append(gl)
    return out


def _L(st):
    return lambda ws: _loss(ws, st["kind"], st["x"], st["y"])


def _dbar(st, l):
    """Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T (1-based l)."""
    wb = st["wbar"]
    return wb[l - 1].T @ wb[l - 1] - wb[l] @ wb[l].T


def _D(st, l):
    ws = st["ws"]
    return ws[l - 1].T @ ws[l - 1] - ws[l] @ ws[l].T


def _svd_top(w):
    u, s, vt = np.linalg.svd(w)
    return u[:, 0], s[0], vt[0]


def _top(st, l):
    """(u_l, s_l, v_l) of W_l; for the vector W_L: u_L = W_L/||W_L||, s_L = ||W_L||, v_L = 1."""
    return _svd_top(st["ws"][l - 1])


def _phi(st):
    return _prod(st["ws"][:-1])


def _r(st):
    beta = _prod(st["ws"])
    return beta - st["y"] if st["kind"] == "pop" else st["x"] @ beta - st["y"]


def _op2(m):
    return float(np.linalg.norm(m, 2) ** 2)


def _fro2(m):
    return float(np.sum(m * m))


def _mineig(m):
    return float(np.min(np.linalg.eigvalsh((m + m.T) / 2)))


def _rate(st):
    return (st["alpha"] ** 2 * st["lam"]) ** (st["L"] - 1)


def _Lval(st, p):
    """The loss as the paper defines it: (2) with the label-noise constant sigma^2 / 2 (sigma from the point, 0
    unless given), or (3) on the instance's data."""
    noise = 0.5 * float(p.get("sigma", 0.0)) ** 2 if st["kind"] == "pop" else 0.0
    return _L(st)(st["ws"]) + noise


# -- the printed symbols at a point ----------------------------------------------------------------------------------
# The displays of App. B are relations between norms, singular values and losses of the weights at time t. Their
# notation map (notation_002_b) names each such printed quantity by one symbol; a step citing the label carries the
# values of those symbols at its points (`printed`), computed from the point's state like the steps' sides, so the
# machine comparison evaluates the printed expression built of them and compares it with the step's side (the
# printed composition: alpha^2 (||Wbar_l||_F^2 - ||Wbar_{l+1}||_F^2), -2 (alpha^2 lambda)^{L-1} L, ...). A printed
# quantity a point does not carry stays a name of what the step computes. The steps' sides never read these values.
def _layer_of(st, p, name):
    """W_l, W_{l+1}, W_L or Wbar_l, ... of the point (name: 'W_l', 'Wbar_l1', 'W_L', ...)."""
    base, at = name.split("_")
    ws = st["ws"] if base == "W" else st["wbar"]
    return ws[{"l": p.get("l", 0) - 1, "l1": p.get("l", 0), "L": st["L"] - 1, "1": 0}[at]]


def _qform(x, m):
    """x^T M x"""
    return float(x @ m @ x)


def _r_parts(st):
    r = st["x"] @ _prod(st["ws"]) - st["y"]
    pp = _proj(st)
    return r, pp @ r, r - pp @ r


_PRINTED = {
    "lam": lambda st, p: st["lam"],                                           # lambda of (19)
    "loss_t": lambda st, p: _Lval(st, p),                                     # L(t): (2) or (3) at the point's t
    "loss_0": lambda st, p: _Lval(_S(dict(p, t=0.0)), p),                     # L(0)
    **{f"fro_{w}_{a}": (lambda st, p, n=f"{w}_{a}": float(np.linalg.norm(_layer_of(st, p, n))))
       for w in ("W", "Wbar") for a in ("l", "l1", "L", "1")},               # ||W_l||_F, ||Wbar_{l+1}||_F, ...
    **{f"op_{w}_{a}": (lambda st, p, n=f"{w}_{a}": float(np.linalg.norm(_layer_of(st, p, n), 2)))
       for w in ("W", "Wbar") for a in ("l", "l1", "L", "1")},               # ||W_l||_op, ...
    "froW": lambda st, p: tuple(float(np.linalg.norm(w)) for w in st["ws"]),       # ||W_k||_F, k = 1..L
    "froWbar": lambda st, p: tuple(float(np.linalg.norm(w)) for w in st["wbar"]),  # ||Wbar_k||_F, k = 1..L
    "op_Dbar_l": lambda st, p: float(np.linalg.norm(_dbar(st, p["l"]), 2)),  # ||Wbar_l^T Wbar_l - ..||_op
    "s_l": lambda st, p: float(_top(st, p["l"])[1]),                          # top singular value of W_l
    "s_l1": lambda st, p: float(_top(st, p["l"] + 1)[1]),                     # of W_{l+1}
    "vu_l": lambda st, p: float(_top(st, p["l"])[2] @ _top(st, p["l"] + 1)[0]),  # v_l^T u_{l+1}
    "C_l": lambda st, p: 2 * _dbar_op2(st, p["l"]) + _K57(st, p["l"]),        # C_l as (67) prints it
    "vWWv_l": lambda st, p: _qform(_top(st, p["l"])[2], st["ws"][p["l"] - 1].T @ st["ws"][p["l"] - 1]),
    "uWWu_l": lambda st, p: _qform(_top(st, p["l"] + 1)[0], st["ws"][p["l"] - 1].T @ st["ws"][p["l"] - 1]),
    "vWWtv_l": lambda st, p: _qform(_top(st, p["l"])[2], st["ws"][p["l"]] @ st["ws"][p["l"]].T),
    "vDv_l": lambda st, p: _qform(_top(st, p["l"])[2], _D(st, p["l"])),      # D_l of (32) at the point's t
    "uDbaru_l": lambda st, p: _qform(_top(st, p["l"] + 1)[0], _dbar(st, p["l"])),
    "norm_r": lambda st, p: float(np.linalg.norm(_r_parts(st)[0])),           # ||r||_2, r = X W_1..W_L - y
    "norm_r_par": lambda st, p: float(np.linalg.norm(_r_parts(st)[1])),       # ||r_par||_2 (in im(X))
    "norm_r_perp": lambda st, p: float(np.linalg.norm(_r_parts(st)[2])),      # ||r_perp||_2 (in ker(X^T))
    "norm_XtPr": lambda st, p: float(np.linalg.norm(_xpr(st))),               # ||X^T P_par r||_2
    "L_par": lambda st, p: _Lpar(**p),                                        # L_par := ||r_par||_2^2
    "norm_PhiTr": lambda st, p: float(np.linalg.norm(_phi(st).T @ _r(st))),  # ||W_{L-1}^T .. W_1^T r||_2
    "norm_PhiTXtPr": lambda st, p: float(np.linalg.norm(_phi(st).T @ _xpr(st))),  # ||W_{L-1}^T..W_1^T X^T P r||_2
    "smin_Phi": lambda st, p: float(np.linalg.svd(_phi(st), compute_uv=False)[-1]),  # sigma_min(W_{L-1}^T..W_1^T)
    "Wperp_t": lambda st, p: _w1perp(**p),                                    # ||W_1^perp(t)||_F
    "Wperp_0": lambda st, p: _w1perp0(**p),                                   # ||W_1^perp(0)||_F
    "norm_yhat": lambda st, p: float(np.linalg.norm(st["x"] @ _prod(st["ws"]))),  # ||yhat||_2, yhat = X W_1..W_L
    "op_X": lambda st, p: float(np.linalg.norm(st["x"], 2)),                   # ||X||_op
    "norm_beta": lambda st, p: float(np.linalg.norm(_prod(st["ws"]))),        # ||W_1 .. W_L||_2
    "prod_s2": lambda st, p: float(np.prod([_op2(w) for w in st["ws"]])),      # prod_l s_l^2
    "lambda_min": lambda st, p: _lmin(st),                                    # smallest nonzero eigenvalue of X X^T
    # (33)-(35), (76)-(81): dL/dt, dL_par/dt along the flow and the per-layer gradient terms, tuples over l = 1..L
    "Ldot": lambda st, p: _Ldot(**p),                                          # dL/dt
    "Lpardot": lambda st, p: _Lpar_dot(**p),                                   # dL_par/dt
    "gWdot": lambda st, p: _per_layer(st, "gWdot"),                            # <grad_l L, dW_l/dt>
    "gradF": lambda st, p: _per_layer(st, "gradF"),                            # ||grad_l L||_F
    "gparWdot": lambda st, p: _per_layer(st, "gparWdot"),                      # <grad_l L_par, dW_l/dt>
    "gparg": lambda st, p: _per_layer(st, "gparg"),                            # <grad_l L_par, grad_l L>
    "gparF": lambda st, p: _per_layer(st, "gparF"),                            # ||grad_l L_par||_F
    "gradF_L": lambda st, p: _per_layer(st, "gradF")[-1],                      # ||grad_L L||_F
    "gparF_L": lambda st, p: _per_layer(st, "gparF")[-1],                      # ||grad_L L_par||_F
    "gpargperp": lambda st, p: _per_layer(st, "gpargperp"),                    # <grad_l L_par, grad_l L_perp>
    # the matrices of (52), (53), (60), (64) (notation_002_b binds their \\check names to 3 x 3 MatrixSymbols and 3 x 1
    # vectors of these names; read at d = 3 points only): entries of the point's state
    "W_l": lambda st, p: st["ws"][p["l"] - 1],                                # W_l(t)
    "W_l1": lambda st, p: st["ws"][p["l"]],                                   # W_{l+1}(t)
    "D_l": lambda st, p: _D(st, p["l"]),                                      # D_l(t) by (32)
    # the matrices of (39) at L = 4 (notation_002_b binds W_1, W_2, W_3, D_1 to 3 x 3 MatrixSymbols; read at the d = 3,
    # L = 4 points only; a layer the point's network does not have is None): entries of the point's state
    **{f"W_{k}": (lambda st, p, k=k: st["ws"][k - 1] if k <= st["L"] else None) for k in (1, 2, 3, 4)},
    "beta_s": lambda st, p: st["y"] if st["kind"] == "pop" else None,        # beta_s, the teacher (population)
    "D_1": lambda st, p: _D(st, 1),                                           # D_1(t) by (32)
    "u_l1": lambda st, p: _top(st, p["l"] + 1)[0].reshape(-1, 1),             # u_{l+1}, the top left singular vector
    "v_l": lambda st, p: _top(st, p["l"])[2].reshape(-1, 1),                  # v_l, the top right singular vector
}


def _per_layer(st, what):
    """The tuple over l = 1..L of a per-layer gradient term (complex-step gradients, as the steps' sides)."""
    g = _cs_grad(_L(st), st["ws"])
    f = _field(st["ws"], st["kind"], st["x"], st["y"])
    dot = lambda a, b: float(np.real(np.sum(a * b)))  # noqa: E731
    if what in ("gWdot", "gradF"):
        return tuple(dot(a, b) for a, b in zip(g, f)) if what == "gWdot" else tuple(
            float(np.linalg.norm(a)) for a in g)
    gp, gq, gl = _grads(st)
    return {"gparWdot": lambda: tuple(dot(a, b) for a, b in zip(gp, f)),
            "gparg": lambda: tuple(dot(a, b) for a, b in zip(gp, gl)),
            "gparF": lambda: tuple(float(np.linalg.norm(np.real(a))) for a in gp),
            "gpargperp": lambda: tuple(dot(a, b) for a, b in zip(gp, gq))}[what]()


class _StatePoint(dict):
    """A point whose values `state_values` are computed from the same state as the step's sides (theorylab's
    fidelity comparison reports a printed side that is one such symbol as circular, never as compared)."""

    state_values: frozenset = frozenset()


def printed(point, *names):
    """The point with the values of the printed symbols `names` (of notation_002_b) at its state (`state_values`
    names them)."""
    st = _S(point)
    out = _StatePoint(point, **{k: _PRINTED[k](st, point) for k in names})
    out.state_values = frozenset(names) | frozenset(getattr(point, "state_values", ()))
    return out


def _printed_pts(points, *names):
    return lambda: [printed(p, *names) for p in points()]


class _PrintedAt(Mapping):
    """An erratum's counterexample with the printed symbols' values there, computed when first read (the point's
    state may need the flow solved)."""

    def __init__(self, point, *names):
        self._point, self._names, self._full = dict(point), names, None
        self.state_values = frozenset(names)

    def _get(self):
        if self._full is None:
            self._full = printed(self._point, *self._names)
        return self._full

    def __getitem__(self, k):
        return self._get()[k]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())


# -- points ---------------------------------------------------------------------------------------------------------
def _pts(*rows, **extra):
    keys = ("d", "L", "alpha", "seed", "t")
    return lambda: [dict(zip(keys, r), **extra) for r in rows]


POP = _pts((2, 2, 1.0, 0, 0.5), (3, 3, 0.5, 1, 1.0), (3, 4, 0.7, 2, 2.0), (3, 3, 0.2, 3, 5.0))
POP3 = _pts((3, 3, 0.5, 1, 1.0), (3, 4, 0.7, 2, 2.0), (2, 3, 1.0, 4, 0.3), (3, 3, 0.2, 3, 5.0))  # L >= 3
EMP_ROWS = ((2, 2, 1.0, 0, 0.5, 4), (3, 3, 0.5, 1, 1.0, 2), (3, 3, 0.7, 2, 2.0, 5), (1, 2, 0.8, 3, 1.0, 3))


def EMP():
    return [dict(zip(("d", "L", "alpha", "seed", "t", "n"), r), kind="emp") for r in EMP_ROWS]


def _with_l(points, ls=(1, 2)):
    def out():
        return [dict(p, l=l) for p in points() for l in ls if l < p["L"]]
    return out


BOTH = lambda: POP() + EMP()  # noqa: E731
PAIRS = _with_l(BOTH)
# the d = 3 points with L >= 3 and l + 1 < L (W_l, W_{l+1} both 3 x 3): the matrix instance of (52), (53), (60), (64),
# whose printed matrices notation_002_b binds to 3 x 3 MatrixSymbols
def D3L4_FIRST():
    """BOTH with two d = 3, L = 4 population points first (the instance of (39) its notation names; the machine
    comparison reads a step's first points): BOTH's (3, 4, 0.7, 2, 2.0) and one more, (3, 4, 0.5, 5, 1.0)."""
    ps = [dict(zip(("d", "L", "alpha", "seed", "t"), (3, 4, 0.5, 5, 1.0)))] + BOTH()
    return sorted(ps, key=lambda p: not (p["d"] == 3 and p["L"] == 4))


def PAIRS_D3_FIRST():
    """PAIRS, the d = 3 pairs with l + 1 < L first (the machine comparison reads a step's first points)."""
    ps = PAIRS()
    return sorted(ps, key=lambda p: not (p["d"] == 3 and p["l"] + 1 < p["L"]))


# -- B.2: Lemma 3.3 -------------------------------------------------------------------------------------------------
def _D_t(l, **p):
    """D_l(t) = W_l^T W_l - W_{l+1} W_{l+1}^T on the flow"""
    return _D(_S(p), l)


def _D_0(l, **p):
    """alpha^2 (Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T)"""
    st = _S(p)
    return st["alpha"] ** 2 * _dbar(st, l)


def _Ldot(**p):
    """dL/dt along the flow (complex step along the vector field)"""
    st = _S(p)
    return _cs_dir(_L(st), st["ws"], _field(st["ws"], st["kind"], st["x"], st["y"]))


def _sum_grad_wdot(**p):
    """sum_l <grad_l L, dW_l/dt>"""
    st = _S(p)
    return sum(float(np.sum(gr * f)) for gr, f in zip(_cs_grad(_L(st), st["ws"]),
                                                     _field(st["ws"], st["kind"], st["x"], st["y"])))


def _minus_sum_grad2(**p):
    """-sum_l ||grad_l L||_F^2"""
    st = _S(p)
    return -sum(_fro2(gr) for gr in _cs_grad(_L(st), st["ws"]))


def _gradL2(**p):
    """||grad_L L||_F^2"""
    st = _S(p)
    return _fro2(_cs_grad(_L(st), st["ws"])[-1])


def _minus_gradL2(**p):
    """-||grad_L L||_F^2"""
    return -_gradL2(**p)


def _minus_phiT_r2(**p):
    """-||W_{L-1}^T .. W_1^T r||_2^2"""
    st = _S(p)
    return -_fro2(_phi(st).T @ _r(st))


def _smin2_bound(**p):
    """-2 sigma_min^2(W_{L-1}^T .. W_1^T) L, L = ||beta - beta_s||^2/2 + sigma^2/2"""
    st = _S(p)
    return -2 * float(np.linalg.svd(_phi(st), compute_uv=False)[-1] ** 2) * _Lval(st, p)


def _phiTphi(**p):
    """W_{L-1}^T .. W_1^T W_1 .. W_{L-1}"""
    ph = _phi(_S(p))
    return ph.T @ ph


def _rhs39(**p):
    """W_{L-1}^T .. W_2^T (W_2 W_2^T + D_1) W_2 .. W_{L-1}, D_1 = D_1(0) by (32)"""
    st = _S(p)
    mid = _prod(st["ws"][1:-1]) if st["L"] > 2 else np.eye(st["d"])
    w2 = st["ws"][1]
    return mid.T @ (w2 @ w2.T + st["alpha"] ** 2 * _dbar(st, 1)) @ mid


def _rhs40(st):
    ws = st["ws"]
    mid = _prod(ws[2:-1]) if st["L"] > 3 else np.eye(st["d"])
    w2tw2 = ws[1].T @ ws[1]
    return mid.T @ w2tw2 @ w2tw2 @ mid


def _gap40(**p):
    """lambda_min((39) - W_{L-1}^T .. W_3^T (W_2^T W_2)^2 W_3 .. W_{L-1})"""
    return _mineig(_rhs39(**p) - _rhs40(_S(p)))


def _rhs41(st):
    w = st["ws"][-2]
    return np.linalg.matrix_power(w.T @ w, st["L"] - 1)


def _gap41(**p):
    """lambda_min((40) - (W_{L-1}^T W_{L-1})^{L-1})"""
    st = _S(p)
    return _mineig(_rhs40(st) - _rhs41(st))


def _gap39_41(**p):
    """lambda_min(Phi^T Phi - (W_{L-1}^T W_{L-1})^{L-1})"""
    st = _S(p)
    ph = _phi(st)
    return _mineig(ph.T @ ph - _rhs41(st))


AT_41 = {"d": 2, "L": 4, "alpha": 1.0, "seed": 24, "t": 0.0, "lam": 0.016426004857367785, "gen": 1}


def _lhs42(**p):
    """(W_{L-1}^T W_{L-1})^{L-1}"""
    return _rhs41(_S(p))


def _rhs42(**p):
    """(W_L W_L^T + D_{L-1})^{L-1} with D_{L-1} = D_{L-1}(0)"""
    st = _S(p)
    wl = st["ws"][-1]
    return np.linalg.matrix_power(wl @ wl.T + st["alpha"] ** 2 * _dbar(st, st["L"] - 1), st["L"] - 1)


def _rhs42_printed(**p):
    """(W_L W_L^T + D_L)^{L-1}, D_L by (32) at l = L with no W_{L+1}: D_L = W_L^T W_L = ||W_L||^2 (1x1), added as
    ||W_L||^2 I"""
    st = _S(p)
    wl = st["ws"][-1]
    return np.linalg.matrix_power(wl @ wl.T + _fro2(wl) * np.eye(st["d"]), st["L"] - 1)


def _mineig42_printed(**p):
    """lambda_min((W_L W_L^T + D_L)^{L-1}), D_L as printed (= ||W_L||^2 I)"""
    return _mineig(_rhs42_printed(**p))


def _mineig42(**p):
    """lambda_min((W_L W_L^T + D_{L-1})^{L-1})"""
    return _mineig(_rhs42(**p))


def _rate_side(**p):
    """(alpha^2 lambda)^{L-1}"""
    return _rate(_S(p))


def _smin2_phi(**p):
    """sigma_min^2(W_{L-1}^T .. W_1^T)"""
    return float(np.linalg.svd(_phi(_S(p)), compute_uv=False)[-1] ** 2)


def _rate_L(**p):
    """-2 (alpha^2 lambda)^{L-1} L, L = ||beta - beta_s||^2/2 + sigma^2/2"""
    st = _S(p)
    return -2 * _rate(st) * _Lval(st, p)


def _L_t(**p):
    """L(t) = ||beta(t) - beta_s||^2/2 + sigma^2/2 on the flow"""
    st = _S(p)
    return _Lval(st, p)


def _L_lim(**p):
    """lim_{t -> oo} L(t), read at a converged time T: L(T) (>= sigma^2/2 at every T)"""
    return _L_t(**p)


def _L_exp(**p):
    """L(0) exp(-2 (alpha^2 lambda)^{L-1} t)"""
    st, st0 = _S(p), _S(dict(p, t=0.0))
    return _Lval(st0, p) * float(np.exp(-2 * _rate(st) * p["t"]))


def _beta_err(**p):
    """||W_1 .. W_L(t) - beta_s||_2"""
    st = _S(p)
    return float(np.linalg.norm(_prod(st["ws"]) - st["y"]))


def _beta_bound(**p):
    """sqrt(2 L(0)) exp(-(alpha^2 lambda)^{L-1} t)"""
    return float(np.sqrt(2 * _L_exp(**p)))


# (19) with equality (gen = 2): (37), (43), (44) hold with equality at t = 0 -- the hypotheses' edge
TIGHT_POP = lambda: [{"d": 1, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.0, "gen": 2},  # noqa: E731
                     {"d": 2, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.3, "gen": 2},
                     {"d": 2, "L": 3, "alpha": 0.8, "seed": 1, "t": 0.5, "gen": 2}]
LEMMA33 = _pts((2, 2, 1.0, 0, 0.5), (3, 3, 0.5, 1, 1.0), (3, 3, 0.8, 3, 20.0), (2, 2, 1.0, 0, 50.0))

# the source loss (2) with its label noise kept (sigma = 1, Assumption 2.1): (37), (44) at the tight d = 1 point,
# where they hold with equality at sigma = 0; (46) at a converged flow (L(T) - sigma^2/2 < 1e-20 there)
AT_NOISE = {"d": 1, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.0, "gen": 2, "sigma": 1.0}
AT_46 = {"d": 2, "L": 2, "alpha": 1.0, "seed": 0, "t": 50.0, "sigma": 1.0}
AT_42 = {"d": 1, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.0, "gen": 2}

E37 = Erratum(key="002-eq37-noise", source=SEED, where="eq (37), App. B.2",
              says="-||W_{L-1}^T .. W_1^T r||^2 <= -2 sigma_min^2(W_{L-1}^T .. W_1^T) L, with L the source loss (2)",
              truth="(2) is an expectation over p_s(x, y) with y = beta_s^T x + eps, eps ~ N(0, sigma^2) (Assumption "
              "2.1; nothing in Sec. 3 or App. B sets the source noise to 0), so L = ||r||^2/2 + sigma^2/2 and "
              "||Phi^T r||^2 >= sigma_min^2 ||r||^2 gives only -||Phi^T r||^2 <= -2 sigma_min^2 (L - sigma^2/2): "
              "the bound holds for the excess loss L - sigma^2/2, not for L when sigma > 0",
              severity="proof-gap",
              note="At the tight d = 1 point (Wbar_1 = sqrt(lam), Wbar_2 = 0, alpha = 1, t = 0, sigma = 1): -1/2 <= "
              "-1 fails. The gradient flow does not see the constant, so Lemma 3.3 (lim beta = beta_s) holds: the "
              "argument works for the excess loss (amendment 002-B2-noise); (44) and (46) repeat the slip.",
              at=_PrintedAt(AT_NOISE, "norm_PhiTr", "smin_Phi", "loss_t"))
NOISE = Amendment(key="002-B2-noise", kind="hypothesis added",
                  what="(37), (44), (46) checked with noise-free source labels (sigma = 0 in (2)), i.e. with L read "
                  "as the excess loss ||beta - beta_s||^2/2",
                  why="the printed L of (2) carries sigma^2/2, with which (37), (44), (46) fail (erratum "
                  "002-eq37-noise); the constant leaves every gradient and the flow unchanged, so the excess-loss "
                  "form is what the proof of Lemma 3.3 needs",
                  severity="proof-gap", root="002-eq37-noise")
E42 = Erratum(key="002-eq42", source=SEED, where="eq (42)", says="(W_{L-1}^T W_{L-1})^{L-1} = (W_L W_L^T + D_L)^{L-1}",
              truth="= (W_L W_L^T + D_{L-1})^{L-1}: by (32) W_{L-1}^T W_{L-1} = D_{L-1} + W_L W_L^T; D_L would need a "
              "W_{L+1}, which the network has not (read with the empty term it is the 1x1 W_L^T W_L = ||W_L||^2, "
              "added as ||W_L||^2 I)",
              severity="typo",
              note="an index slip: D_{L-1} is the only D of (32) holding W_L W_L^T, and (43) uses it through (19). "
              "Counterexample: the tight d = 1, L = 2 point at t = 0 (W_2 = 0): lambda_min(W_1^T W_1) = 1/2 against 0.",
              at=AT_42)
INDEX = Amendment(key="002-eq42-index", kind="typo fixed", what="D_L of (42)-(43) read as D_{L-1}",
                  why="(32) defines D_l for l <= L-1 only; W_{L-1}^T W_{L-1} = W_L W_L^T + D_{L-1} is the identity "
                  "the chain (41)-(43) uses", severity="typo", root="002-eq42")

B2 = Derivation(
    key="transfer.appendixB2", title="Lemma 3.3 (App. B.2, eqs (32)-(46)): conservation law and exponential convergence",
    source=SEED, where="App. B.2, eqs (32)-(46)", entries=("transfer.finetune_risk",), steps=(
        Step("(32): D_l(t) = D_l(0) = alpha^2 (Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T) on the flow",
             lhs=_D_t, rhs=_D_0, search=_printed_pts(PAIRS_D3_FIRST, "W_l", "W_l1"), tol=ODE_TOL, tol_source=ODE_SRC,
             cites=("(32)",),
             fidelity="as printed", why="the text's D(t) = D(0) is D_l(t) = D_l(0) for each l"),
        Step("(33): dL/dt = sum_l <grad_l L, dW_l/dt>", lhs=_Ldot, rhs=_sum_grad_wdot,
             search=_printed_pts(BOTH, "Ldot", "gWdot"), tol=CS_TOL,
             tol_source=CS_SRC, cites=("(33)",), fidelity="as printed",
             why="the noise constant of (2) has zero derivative: the sides are the same for every sigma"),
        Step("(34): sum_l <grad_l L, dW_l/dt> = -sum_l ||grad_l L||_F^2", lhs=_sum_grad_wdot, rhs=_minus_sum_grad2,
             search=_printed_pts(BOTH, "gWdot", "gradF"), tol=CS_TOL, tol_source=CS_SRC, cites=("(34)",), fidelity="as printed"),
        Step("(35) as printed: -sum_l ||grad_l L||^2 <= +||grad_L L||_F^2 (holds: lhs <= 0 <= rhs)",
             lhs=_minus_sum_grad2, rhs=_gradL2, relation="<=", search=_printed_pts(POP, "gradF", "gradF_L"), cites=("(35)",),
             fidelity="as printed"),
        Step("(35) meant: -sum_l ||grad_l L||^2 <= -||grad_L L||_F^2", lhs=_minus_sum_grad2, rhs=_minus_gradL2,
             relation="<=", search=POP, tol=CS_TOL, tol_source=CS_SRC, cites=("(35)",),
             fidelity=Amendment(key="002-eq35-sign", kind="typo fixed", what="the minus sign of (35) restored",
                                why="(36) continues with -||Phi^T r||^2 and (37) needs the bound below zero",
                                severity="typo", root="002-eq35-36-sign")),
        Step("(36) as chained after (35): ||grad_L L||_F^2 = -||W_{L-1}^T .. W_1^T r||_2^2", lhs=_gradL2,
             rhs=_minus_phiT_r2, search=POP, tol=CS_TOL, tol_source=CS_SRC, cites=("(36)",),
             erratum=Erratum(key="002-eq35-36-sign", source=SEED, where="eqs (35)-(36)",
                             says="Ldot <= ||grad_L L||_F^2 = -||Phi^T r||^2",
                             truth="Ldot <= -||grad_L L||_F^2 = -||Phi^T r||^2 (a sign dropped in (35))",
                             severity="typo",
                             note="a sign slip: (36) and (37) carry the minus sign; (37) is unaffected.",
                             at=_PrintedAt(POP()[0], "norm_PhiTr"))),
        Step("(36) with the sign of (35) restored: -||grad_L L||^2 = -||Phi^T r||^2", lhs=_minus_gradL2, rhs=_minus_phiT_r2,
             search=POP, tol=CS_TOL, tol_source=CS_SRC),
        Step("(37) as printed, L of (2) with its noise: -||Phi^T r||^2 <= -2 sigma_min^2(Phi^T) "
             "(||r||^2/2 + sigma^2/2)", lhs=_minus_phiT_r2, rhs=_smin2_bound, relation="<=", cites=("(37)",),
             why="Phi^T = W_{L-1}^T .. W_1^T, r = W_1 .. W_L - beta_s; L = ||r||^2/2 + sigma^2/2 is (2) with "
             "x ~ N(0, I) and y = beta_s^T x + eps, eps ~ N(0, sigma^2)",
             erratum=E37),
        Step("(37) for the excess loss (sigma = 0): -||Phi^T r||^2 <= -2 sigma_min^2(Phi^T) ||r||^2/2",
             lhs=_minus_phiT_r2, rhs=_smin2_bound, relation="<=",
             search=_printed_pts(lambda: POP() + TIGHT_POP(), "norm_PhiTr", "smin_Phi", "loss_t"), tol=1e-12,
             tol_source="float64 SVD and products of matrices of norm <= 5 (equality at the tight d = 1 point)",
             cites=("(37)",), fidelity=NOISE),
        Step("(39): Phi^T Phi = W_{L-1}^T..W_2^T (W_2 W_2^T + D_1) W_2..W_{L-1} (D_1 conserved)", lhs=_phiTphi, rhs=_rhs39,
             search=_printed_pts(D3L4_FIRST, "W_1", "W_2", "W_3", "D_1"), tol=ODE_TOL, tol_source=ODE_SRC,
             cites=("(39)",), fidelity="as printed"),
        Step("(40): (39) >= W_{L-1}^T..W_3^T (W_2^T W_2)^2 W_3..W_{L-1} (Loewner order, L >= 3)", lhs=_gap40,
             rhs=sp.Integer(0), relation=">=", search=POP3, tol=ODE_TOL, tol_source=ODE_SRC, cites=("(40)",),
             fidelity="as printed", why="the display has a W_3 only for L >= 3"),
        Step("(41): (40) >= (W_{L-1}^T W_{L-1})^{L-1} (Loewner order)", lhs=_gap41, rhs=sp.Integer(0), relation=">=",
             search=POP3, tol=ODE_TOL, tol_source=ODE_SRC, cites=("(41)",),
             erratum=Erratum(key="002-eq41", source=SEED, where="eq (41)",
                             says="W_{L-1}^T..W_3^T (W_2^T W_2)^2 W_3..W_{L-1} >= (W_{L-1}^T W_{L-1})^{L-1} (from (19) "
                             "and (32))",
                             truth="fails for L = 4: A >= B >= 0 does not give A^2 >= B^2 (squaring is not operator "
                             "monotone); even Phi^T Phi >= (W_{L-1}^T W_{L-1})^{L-1} fails at this point. What (44) "
                             "needs holds by another route: sigma_min^2(W_l) >= alpha^2 lambda for l < L by (19), "
                             "so sigma_min^2(Phi) >= (alpha^2 lambda)^{L-1} (the end-to-end step below)",
                             severity="proof-gap",
                             note="At this initialization (d = 2, L = 4, alpha = 1, t = 0; (19) holds with lam = 0.0164) "
                             "lambda_min = -0.109 against ||(W_3^T W_3)^3|| = 36. The bound (43) that the chain is "
                             "for holds, so Lemma 3.3 stands.", at=AT_41)),
        Step("(39) >= (41) directly: Phi^T Phi >= (W_{L-1}^T W_{L-1})^{L-1} at the (41) counterexample", lhs=_gap39_41,
             rhs=sp.Integer(0), relation=">=", search=lambda: [AT_41],
             erratum=Erratum(key="002-eq39-41", source=SEED, where="eqs (39)-(41)",
                             says="Phi^T Phi >= (W_{L-1}^T W_{L-1})^{L-1}",
                             truth="not implied by (19) for L >= 4; sigma_min^2(Phi) >= (alpha^2 lambda)^{L-1} holds",
                             severity="proof-gap", root="002-eq41",
                             note="the chain's end-to-end claim, failing at the same point as (41)", at=AT_41)),
        Step("(42) as printed: (W_{L-1}^T W_{L-1})^{L-1} = (W_L W_L^T + D_L)^{L-1}, D_L = ||W_L||^2 (no W_{L+1})",
             lhs=_lhs42, rhs=_rhs42_printed, cites=("(42)",), erratum=E42),
        Step("(42) with D_{L-1}: (W_{L-1}^T W_{L-1})^{L-1} = (W_L W_L^T + D_{L-1})^{L-1}",
             lhs=_lhs42, rhs=_rhs42, search=BOTH, tol=ODE_TOL, tol_source=ODE_SRC, cites=("(42)",), fidelity=INDEX),
        Step("(43) as printed: (W_L W_L^T + D_L)^{L-1} >= (alpha^2 lambda)^{L-1} I, D_L = ||W_L||^2",
             lhs=_mineig42_printed, rhs=_rate_side, relation=">=", cites=("(43)",),
             erratum=Erratum(key="002-eq43", source=SEED, where="eq (43)",
                             says="(W_L W_L^T + D_L)^{L-1} >= (alpha^2 lambda)^{L-1}",
                             truth="(W_L W_L^T + D_{L-1})^{L-1} >= (alpha^2 lambda)^{L-1} I by (19) and (32)",
                             severity="typo", root="002-eq42",
                             note="the D_L of (42) carried; at the tight point W_L(0) = 0 gives 0 >= 1/2.",
                             at=_PrintedAt(AT_42, "lam"))),
        Step("(43) with D_{L-1}: (W_L W_L^T + D_{L-1})^{L-1} >= (alpha^2 lambda)^{L-1} I", lhs=_mineig42, rhs=_rate_side,
             relation=">=", search=_printed_pts(lambda: BOTH() + TIGHT_POP(), "lam"), tol=ODE_TOL,
             tol_source=ODE_SRC, cites=("(43)",),
             fidelity=INDEX),
        Step("(39)-(43) end to end: sigma_min^2(Phi) >= (alpha^2 lambda)^{L-1}", lhs=_smin2_phi, rhs=_rate_side,
             relation=">=", search=lambda: BOTH() + [AT_41] + TIGHT_POP(), tol=1e-12,
             tol_source="float64 SVD of a product of <= 3 matrices of norm <= 5 (equality at the tight points)"),
        Step("(44) as printed, L of (2) with its noise: dL/dt <= -2 (alpha^2 lambda)^{L-1} (||r||^2/2 + sigma^2/2)",
             lhs=_Ldot, rhs=_rate_L, relation="<=", cites=("(44)",),
             erratum=Erratum(key="002-eq44-noise", source=SEED, where="eq (44)",
                             says="dL/dt <= -2 (alpha^2 lambda)^{L-1} L, L the source loss (2)",
                             truth="dL/dt <= -2 (alpha^2 lambda)^{L-1} (L - sigma^2/2): dL/dt -> 0 while L -> sigma^2/2",
                             severity="proof-gap", root="002-eq37-noise",
                             note="(37)'s bound carried; at the tight d = 1 point with sigma = 1: -1/2 <= -1 fails.",
                             at=_PrintedAt(AT_NOISE, "lam", "loss_t"))),
        Step("(44) for the excess loss (sigma = 0): dL/dt <= -2 (alpha^2 lambda)^{L-1} ||r||^2/2", lhs=_Ldot, rhs=_rate_L,
             relation="<=", search=_printed_pts(lambda: POP() + TIGHT_POP(), "lam", "loss_t"), tol=CS_TOL,
             tol_source=CS_SRC, cites=("(44)",),
             fidelity=NOISE),
        Step("(45) as printed: L(t) = L(0) exp(-2 (alpha^2 lambda)^{L-1} t)", lhs=_L_t, rhs=_L_exp, search=POP,
             tol=ODE_TOL, tol_source=ODE_SRC, cites=("(45)",),
             why="the counterexample has sigma = 0 (noise-free source labels), a case (2) allows",
             erratum=Erratum(key="002-eq45", source=SEED, where="eq (45)",
                             says="L(t) = L(0) exp(-2 (alpha^2 lambda)^{L-1} t)",
                             truth="L(t) <= L(0) exp(-2 (alpha^2 lambda)^{L-1} t) (Gronwall from (44))",
                             severity="typo",
                             note="'=' printed where the implication from the inequality (44) gives '<='; (46) uses "
                             "only the bound.", at=_PrintedAt(dict(POP()[0], sigma=0.0), "lam", "loss_t", "loss_0"))),
        Step("(46) as printed, L of (2) with its noise: lim_{t -> oo} L(t) = 0", lhs=_L_lim, rhs=sp.Integer(0),
             cites=("(46)",),
             why="L(t) = ||beta(t) - beta_s||^2/2 + sigma^2/2 >= sigma^2/2 at every t: the limit is sigma^2/2",
             erratum=Erratum(key="002-eq46-noise", source=SEED, where="eq (46)", says="lim_{t -> oo} L(t) = 0",
                             truth="lim_{t -> oo} L(t) = sigma^2/2 (the noise floor of (2)); the excess loss "
                             "L - sigma^2/2 tends to 0, which is what gives lim beta = beta_s",
                             severity="proof-gap", root="002-eq37-noise",
                             note="at a converged flow (d = 2, L = 2, alpha = 1, t = 50) with sigma = 1: L = 1/2.",
                             at=AT_46)),
        Step("(46) for the excess loss (sigma = 0), via Gronwall: L(t) <= L(0) exp(-2 (alpha^2 lambda)^{L-1} t) -> 0",
             lhs=_L_t, rhs=_L_exp, relation="<=", search=lambda: LEMMA33() + TIGHT_POP(), tol=ODE_TOL, tol_source=ODE_SRC,
             cites=("(46)",), fidelity=NOISE),
        Step("||beta(t) - beta_s|| <= sqrt(2 L(0)) exp(-(alpha^2 lambda)^{L-1} t) -> 0 (L the excess loss): the "
             "finite-time bound behind Lemma 3.3 and (71), which print only the t -> oo limit",
             lhs=_beta_err, rhs=_beta_bound, relation="<=", search=LEMMA33, tol=ODE_TOL, tol_source=ODE_SRC),
    ))


# -- B.3: Lemma B.1 -------------------------------------------------------------------------------------------------
def _fro_diff(l, **p):
    """||W_l||_F^2 - ||W_{l+1}||_F^2"""
    ws = _S(p)["ws"]
    return _fro2(ws[l - 1]) - _fro2(ws[l])


def _fro_diff0(l, **p):
    """alpha^2 (||Wbar_l||_F^2 - ||Wbar_{l+1}||_F^2)"""
    st = _S(p)
    return st["alpha"] ** 2 * (_fro2(st["wbar"][l - 1]) - _fro2(st["wbar"][l]))


def _sum50(l, **p):
    """sum_{k=l}^{L-1} ||W_k||_F^2 - ||W_{k+1}||_F^2"""
    return sum(_fro_diff(k, **p) for k in range(l, p["L"]))


def _sum50bar(l, **p):
    """alpha^2 sum_{k=l}^{L-1} (||Wbar_k||_F^2 - ||Wbar_{k+1}||_F^2)"""
    return sum(_fro_diff0(k, **p) for k in range(l, p["L"]))


def _fro_lL(l, **p):
    """||W_l||_F^2 - ||W_L||_F^2"""
    ws = _S(p)["ws"]
    return _fro2(ws[l - 1]) - _fro2(ws[-1])


def _fro_lL0(l, **p):
    """alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2)"""
    st = _S(p)
    return st["alpha"] ** 2 * (_fro2(st["wbar"][l - 1]) - _fro2(st["wbar"][-1]))


def _op_l(l, **p):
    """||W_l||_op^2"""
    return _op2(_S(p)["ws"][l - 1])


def _vWWv(l, **p):
    """v_l^T W_l^T W_l v_l"""
    st = _S(p)
    w = st["ws"][l - 1]
    v = _top(st, l)[2]
    return float(v @ w.T @ w @ v)


def _uWWu(l, **p):
    """u_{l+1}^T W_l^T W_l u_{l+1}"""
    st = _S(p)
    w = st["ws"][l - 1]
    u = _top(st, l + 1)[0]
    return float(u @ w.T @ w @ u)


def _rhs53(l, **p):
    """u_{l+1}^T (D_l + W_{l+1}^T W_{l+1}) u_{l+1}"""
    st = _S(p)
    u, w = _top(st, l + 1)[0], st["ws"][l]
    return float(u @ (_D(st, l) + w.T @ w) @ u)


def _rhs54(l, **p):
    """||W_{l+1}||_op^2 + alpha^2 u_{l+1}^T Dbar_l u_{l+1}"""
    st = _S(p)
    u = _top(st, l + 1)[0]
    return _op2(st["ws"][l]) + st["alpha"] ** 2 * float(u @ _dbar(st, l) @ u)


def _rhs55(l, **p):
    """||W_{l+1}||_op^2 + alpha^2 (||Wbar_{l+1}||_op^2 - ||Wbar_l||_op^2)"""
    st = _S(p)
    return _op2(st["ws"][l]) + st["alpha"] ** 2 * (_op2(st["wbar"][l]) - _op2(st["wbar"][l - 1]))


def _rhs56(l, **p):
    """||Wbar_L||_op^2 + alpha^2 (||Wbar_L||_op^2 - ||Wbar_l||_op^2)"""
    st = _S(p)
    return _op2(st["wbar"][-1]) + st["alpha"] ** 2 * (_op2(st["wbar"][-1]) - _op2(st["wbar"][l - 1]))


def _rhs56_fixed(l, **p):
    """||W_L(t)||_op^2 + alpha^2 (||Wbar_L||_op^2 - ||Wbar_l||_op^2)"""
    st = _S(p)
    return _op2(st["ws"][-1]) + st["alpha"] ** 2 * (_op2(st["wbar"][-1]) - _op2(st["wbar"][l - 1]))


def _resid2(l, **p):
    """||W_l||_F^2 - ||W_l||_op^2"""
    w = _S(p)["ws"][l - 1]
    return _fro2(w) - _op2(w)


def _K57(st, l):
    wb = st["wbar"]
    return _fro2(wb[l - 1]) - _fro2(wb[-1]) + _op2(wb[l - 1]) - _op2(wb[-1])


def _rhs57(l, **p):
    """alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2 + ||Wbar_l||_op^2 - ||Wbar_L||_op^2)"""
    st = _S(p)
    return st["alpha"] ** 2 * _K57(st, l)


def _vW1W1v(l, **p):
    """v_l^T W_{l+1} W_{l+1}^T v_l"""
    st = _S(p)
    v, w = _top(st, l)[2], st["ws"][l]
    return float(v @ w @ w.T @ v)


def _rhs58(l, **p):
    """v_l^T W_l^T W_l v_l - v_l^T D_l v_l, D_l = D_l(0)"""
    st = _S(p)
    v = _top(st, l)[2]
    return _vWWv(l, **p) - st["alpha"] ** 2 * float(v @ _dbar(st, l) @ v)


def _dbar_op2(st, l):
    return _op2(_dbar(st, l))


def _rhs59(l, **p):
    """s_l^2 - alpha^2 ||Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T||_op^2"""
    st = _S(p)
    return _top(st, l)[1] ** 2 - st["alpha"] ** 2 * _dbar_op2(st, l)


def _rhs59_fixed(l, **p):
    """s_l^2 - alpha^2 ||Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T||_op"""
    st = _S(p)
    return _top(st, l)[1] ** 2 - st["alpha"] ** 2 * float(np.linalg.norm(_dbar(st, l), 2))


def _rhs60(l, **p):
    """v_l^T (s_{l+1}^2 u u^T W_{l+1} W_{l+1}^T - s_{l+1}^2 u u^T) v_l, as printed"""
    st = _S(p)
    u, s, _ = _top(st, l + 1)
    v, w = _top(st, l)[2], st["ws"][l]
    uu = np.outer(u, u)
    return float(v @ (s**2 * uu @ w @ w.T - s**2 * uu) @ v)


def _align(st, l):
    return float(_top(st, l)[2] @ _top(st, l + 1)[0]) ** 2


def _rhs61(l, **p):
    """s_{l+1}^2 (v_l^T u_{l+1})^2 + ||W_{l+1}||_F^2 - ||W_{l+1}||_F^2, as printed"""
    st = _S(p)
    w = st["ws"][l]
    return _top(st, l + 1)[1] ** 2 * _align(st, l) + _fro2(w) - _fro2(w)


def _rhs61_fixed(l, **p):
    """s_{l+1}^2 (v_l^T u_{l+1})^2 + ||W_{l+1}||_F^2 - ||W_{l+1}||_op^2"""
    st = _S(p)
    w = st["ws"][l]
    return _top(st, l + 1)[1] ** 2 * _align(st, l) + _fro2(w) - _op2(w)


def _s2(l, **p):
    """s_l^2"""
    return _top(_S(p), l)[1] ** 2


def _s2_next(l, **p):
    """s_{l+1}^2"""
    return _top(_S(p), l + 1)[1] ** 2


def _rhs62(l, **p):
    """s_{l+1}^2 (v_l^T u_{l+1})^2 + alpha^2 ||Dbar_l||_op^2 + ||W_{l+1}||_F^2 - ||W_{l+1}||_F^2, as printed"""
    st = _S(p)
    return _rhs61(l, **p) + st["alpha"] ** 2 * _dbar_op2(st, l)


def _rhs63(l, **p):
    """s_{l+1}^2 (v_l^T u_{l+1})^2 + alpha^2 ||Dbar_l||_op^2 + alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2
    + ||Wbar_l||_op^2 - ||Wbar_L||_op^2)"""
    st = _S(p)
    return (_top(st, l + 1)[1] ** 2 * _align(st, l) + st["alpha"] ** 2 * _dbar_op2(st, l)
            + st["alpha"] ** 2 * _K57(st, l))


def _rhs65(l, **p):
    """s_{l+1}^2 - alpha^2 ||Dbar_l||_op^2"""
    st = _S(p)
    return _top(st, l + 1)[1] ** 2 - st["alpha"] ** 2 * _dbar_op2(st, l)


def _align_side(l, **p):
    """(v_l^T u_{l+1})^2"""
    return _align(_S(p), l)


def _rhs66(l, **p):
    """1 - alpha^2 C_l / s_{l+1}^2, C_l of (67)"""
    st = _S(p)
    c = 2 * _dbar_op2(st, l) + _K57(st, l)
    return 1 - st["alpha"] ** 2 * c / _top(st, l + 1)[1] ** 2


def _lp(f):
    """A side taking the layer index l from the point."""
    def side(**p):
        q = dict(p)
        return f(q.pop("l"), **q)
    side.__doc__ = f.__doc__
    side.__name__ = f.__name__
    return side


def _yhat_over_x(**p):
    """||yhat||_2 / ||X||_op, yhat = X W_1..W_L(T) at a converged time T"""
    st = _S(p)
    return float(np.linalg.norm(st["x"] @ _prod(st["ws"])) / np.linalg.norm(st["x"], 2))


def _beta_norm(**p):
    """||W_1 .. W_L(T)||_2"""
    return float(np.linalg.norm(_prod(_S(p)["ws"])))


def _prod_s2(**p):
    """prod_l s_l(T)^2"""
    return float(np.prod([_op2(w) for w in _S(p)["ws"]]))


def _prod_s(**p):
    """prod_l s_l(T)"""
    return float(np.sqrt(_prod_s2(**p)))


def _yhat_over_x2(**p):
    """(||yhat||_2 / ||X||_op)^2"""
    return _yhat_over_x(**p) ** 2


# converged empirical flows (T = 50: ||beta(T) - X^+ y|| < 1e-7, L_par(T) < 1e-14 at these points)
CONV = lambda: [dict(p, kind="emp") for p in (  # noqa: E731
    {"d": 2, "L": 2, "alpha": 1.0, "seed": 0, "t": 50.0, "n": 4},
    {"d": 2, "L": 2, "alpha": 1.0, "seed": 0, "t": 50.0, "n": 4, "yscale": 0.3},
    {"d": 3, "L": 2, "alpha": 0.5, "seed": 5, "t": 50.0, "n": 2})]


# the residual's order in alpha at t = 0: ||W_l(0) - s_l u_l v_l^T||_F = alpha rho, rho = ||Wbar_l - rank-1||_F
_a = sp.Symbol("alpha", positive=True)
_RHO = sp.Float(float(np.sqrt(_fro2(_init(3, 3, 0.5, 1)[0]) - _op2(_init(3, 3, 0.5, 1)[0]))), 30)

# small-alpha converged flows for (48): alpha = 0.01, T = 100 (population losses below 1e-25, ||r_par|| < 1e-7)
ALIGNED = _with_l(lambda: [{"d": 2, "L": 2, "alpha": 0.01, "seed": 0, "t": 100.0},
                           {"d": 3, "L": 3, "alpha": 0.01, "seed": 1, "t": 100.0},
                           {"d": 2, "L": 2, "alpha": 0.01, "seed": 0, "t": 100.0, "n": 4, "kind": "emp"}])
SMALL = _with_l(_pts((3, 3, 0.05, 1, 0.0), (2, 2, 0.1, 0, 0.0)), ls=(1,))
AT_SMALL = {"d": 2, "L": 2, "alpha": 0.1, "seed": 0, "t": 0.0, "l": 1}
AT_59 = {"d": 1, "L": 2, "alpha": 0.8, "seed": 3, "t": 1.0, "n": 3, "kind": "emp", "l": 1}
AT_53 = {"d": 3, "L": 3, "alpha": 0.5, "seed": 1, "t": 1.0, "l": 1}

# -- Theorem 3.4's proof after (69): (70)-(74), (120) (and (119) of App. B.8) -----------------------------------------
# (71): W_1 .. W_L = beta_s after pretraining, the t -> oo limit of the population flow (2) (Lemma 3.3), read at a
# converged time T of the d = 3, L = 4 flow at alpha = 1, lam = 1, where the finite-time bound ||beta(T) - beta_s|| <=
# sqrt(2 L(0)) exp(-(alpha^2 lam)^{L-1} T) (the step after (46), checked) is below 1e-15
PRETRAINED = _pts((3, 4, 1.0, 0, 40.0), (3, 4, 1.0, 1, 40.0), lam=1.0)
LIMIT_SRC = ("ODE_SRC, plus the finite-time bound sqrt(2 L(0)) exp(-(alpha^2 lam)^{L-1} T) < 1e-15 at T = 40 (checked "
             "as the step after (46)): the t -> oo limit is within it of beta(T)")


def _beta_T(**p):
    """W_1 .. W_L(T), the network's linear map at the point's time (d x 1)"""
    return _prod(_S(p)["ws"])


def _beta_s(**p):
    """beta_s, the instance's teacher (unit norm, Assumption 3.2; d x 1)"""
    return _S(p)["y"]


def _beta_gap_bound(**p):
    """sqrt(2 L(0)) exp(-(alpha^2 lam)^{L-1} t), L the excess loss"""
    return _beta_bound(**p)


# (74), (120), (119): the alpha -> 0, t -> oo limit of pretraining as an exact instance. Lemma B.1 with (48) and
# (57) at alpha -> 0 (D_l = alpha^2 Dbar_l -> 0: W_l^T W_l = W_{l+1} W_{l+1}^T; every W_l rank one; v_l = +-u_{l+1})
# and Lemma 3.3 (W_1 .. W_L = beta_s, ||beta_s|| = 1) leave W_l = e_l a_l a_{l+1}^T (l < L), W_L = e_L a_L with unit
# a_l, a_1 = beta_s, signs e_l with e_1 .. e_L = 1; the instance draws a_2 .. a_L and the signs at random.
def _limit(d: int, L: int, seed: int):
    """(ws, beta_s, X) of the pretrained limit instance (d x d layers and a d x 1 last layer; X the 5 x d target data
    of the same seed, for (119))."""
    if d < 2 or L < 3:
        raise ValueError(f"d, L: the limit instance needs d >= 2 and L >= 3, got d = {d}, L = {L}")
    rng = np.random.default_rng(3000 + seed)
    _, beta_s = _data("pop", d, 0, seed)
    a = [beta_s[:, 0]] + [v / np.linalg.norm(v) for v in rng.normal(size=(L - 1, d))]
    e = list(rng.choice([-1.0, 1.0], size=L - 1))
    e.append(float(np.prod(e)))
    ws = [e[l] * np.outer(a[l], a[l + 1]) for l in range(L - 1)] + [e[-1] * a[-1].reshape(-1, 1)]
    x, _ = _data("emp", d, 5, seed)
    return ws, beta_s, x


def _v_last(ws):
    """v_{L-1}: the top right singular vector of W_{L-1} (numpy's SVD), signed so that v_{L-1}^T W_L > 0 (the text
    after (73) absorbs a factor -1 into u_1, but (74) needs it in v_{L-1}: v_{L-1}^T W_L = 1)"""
    v = np.linalg.svd(ws[-2])[2][0]
    return v if float(v @ ws[-1][:, 0]) > 0 else -v


def _u_first(ws):
    """u_1: the top left singular vector of W_1 (numpy's SVD; its sign is numpy's)"""
    return np.linalg.svd(ws[0])[0][:, 0]


def _c_lim(ws):
    """c of (70), 'for some c in R': u_1^T W_1 .. W_{L-1} v_{L-1}, the only c for which (70) can hold (u_1, v_{L-1}
    unit vectors)"""
    return float(_u_first(ws) @ _prod(ws[:-1]) @ _v_last(ws))


def _cuv_lim(**p):
    """c u_1 v_{L-1}^T at the limit instance"""
    ws = _limit(p["d"], p["L"], p["seed"])[0]
    return _c_lim(ws) * np.outer(_u_first(ws), _v_last(ws))


def _beta_s_lim(**p):
    """beta_s, the limit instance's teacher (d x 1)"""
    return _limit(p["d"], p["L"], p["seed"])[1]


def _cu_vw_lim(**p):
    """c u_1 (v_{L-1}^T W_L) at the limit instance"""
    ws = _limit(p["d"], p["L"], p["seed"])[0]
    return (_c_lim(ws) * float(_v_last(ws) @ ws[-1][:, 0]) * _u_first(ws)).reshape(-1, 1)


def _phi_lim(**p):
    """W_1 .. W_{L-1} at the limit instance (d x d)"""
    return _prod(_limit(p["d"], p["L"], p["seed"])[0][:-1])


def _beta_v_lim(**p):
    """beta_s v_{L-1}^T at the limit instance"""
    ws, beta_s, _ = _limit(p["d"], p["L"], p["seed"])
    return beta_s @ _v_last(ws).reshape(1, -1)


def _xphi_lim(**p):
    """X W_1 .. W_{L-1}: the features Phi of linear transfer (Sec. 3) at the limit instance (5 x d)"""
    ws, _, x = _limit(p["d"], p["L"], p["seed"])
    return x @ _prod(ws[:-1])


def _xbeta_v_lim(**p):
    """(X beta_s) v_{L-1}^T at the limit instance"""
    ws, beta_s, x = _limit(p["d"], p["L"], p["seed"])
    return (x @ beta_s) @ _v_last(ws).reshape(1, -1)


def _limit_premises(**p):
    """max over the instance's premises of their residual: ||W_l^T W_l - W_{l+1} W_{l+1}^T||_F (balanced: D_l = 0),
    ||W_l||_F^2 - ||W_l||_op^2 (rank one), 1 - (v_l^T u_{l+1})^2 (aligned), ||W_1 .. W_L - beta_s|| and ||beta_s|| - 1"""
    ws, beta_s, _ = _limit(p["d"], p["L"], p["seed"])
    res = [float(np.linalg.norm(ws[l].T @ ws[l] - ws[l + 1] @ ws[l + 1].T)) for l in range(len(ws) - 1)]
    res += [_fro2(w) - _op2(w) for w in ws]
    res += [1 - float(np.linalg.svd(ws[l])[2][0] @ np.linalg.svd(ws[l + 1])[0][:, 0]) ** 2 for l in range(len(ws) - 1)]
    res += [float(np.linalg.norm(_prod(ws) - beta_s)), abs(float(np.linalg.norm(beta_s)) - 1)]
    return max(abs(r) for r in res)


class _LimitPoint(dict):
    """A limit-instance point with the instance's matrices the notation names (`state_values`: W_1, .., W_4, beta_s,
    u_1, v_3, c, X), for the machine comparison of (70), (72), (74), (119), (120) at L = 4."""

    state_values: frozenset = frozenset()


def LIMIT():
    """The d = 3, L = 4 limit instances (seeds 0-2) with their matrices, and one d = 2, L = 3 instance."""
    out = []
    for d, L, seed in ((3, 4, 0), (3, 4, 1), (3, 4, 2), (2, 3, 3)):
        ws, beta_s, x = _limit(d, L, seed)
        pt = _LimitPoint(d=d, L=L, seed=seed)
        if L == 4:
            pt.update({"W_1": ws[0], "W_2": ws[1], "W_3": ws[2], "W_4": ws[3], "beta_s": beta_s,
                       "v_3": _v_last(ws).reshape(-1, 1), "u_1": _u_first(ws).reshape(-1, 1), "c_lim": _c_lim(ws),
                       "X": x})
            pt.state_values = frozenset(("W_1", "W_2", "W_3", "W_4", "beta_s", "v_3", "u_1", "c_lim", "X"))
        out.append(pt)
    return out


B3 = Derivation(
    key="transfer.appendixB3", title="Lemma B.1 and Theorem 3.4 (App. B.3, eqs (47)-(69)): near rank one and aligned layers",
    source=SEED, where="App. B.3, eqs (47)-(74)", entries=("transfer.finetune_risk",), steps=(
        Step("(47) as stated: W_l = s_l u_l v_l^T + O(alpha^2), i.e. the residual's order in alpha is >= 2 "
             "(at t = 0: ||W_l(0) - s u v^T||_F = alpha ||Wbar_l - rank-1(Wbar_l)||_F)",
             lhs=sp.Limit(sp.log(_a * _RHO) / sp.log(_a), _a, 0, "+"), rhs=sp.Integer(2), relation=">=",
             cites=("(47)", "Lemma B.1"),
             why="the printed sigma_l u_l v_l is the rank-one term sigma_l u_l v_l^T; Lemma B.1's first claim is (47)",
             erratum=Erratum(key="002-eq47", source=SEED, where="eq (47), Lemma B.1", says="W_l = sigma_l u_l v_l^T + O(alpha^2)",
                             truth="W_l = sigma_l u_l v_l^T + O(alpha): the proof bounds the SQUARED residual "
                             "||W_l||_F^2 - ||W_l||_op^2 by O(alpha^2) (57), and at t = 0 the residual is exactly "
                             "alpha ||Wbar_l - rank-1||_F", severity="wrong-constant",
                             history=("was wrong-value; #35: an error term's exponent (alpha^2 for alpha) that nothing "
                                      "downstream uses (Theorem 3.4's alpha -> 0 limit needs only that the residual "
                                      "vanish): a wrong order of a bound, the scale's wrong-constant",),
                             note="an exponent: the residual is first order in alpha (the proof calls the squared "
                             "residual ||W_l||_F^2 - ||W_l||_op^2 'the norm'); Theorem 3.4's alpha -> 0 limit only "
                             "needs the residual to vanish and is unaffected.")),
        Step("(49): ||W_l||_F^2 - ||W_{l+1}||_F^2 = alpha^2 (||Wbar_l||_F^2 - ||Wbar_{l+1}||_F^2)", lhs=_lp(_fro_diff),
             rhs=_lp(_fro_diff0), search=_printed_pts(PAIRS, "fro_W_l", "fro_W_l1", "fro_Wbar_l", "fro_Wbar_l1"), tol=ODE_TOL, tol_source=ODE_SRC, cites=("(49)",), fidelity="as printed"),
        Step("(50): the sum of (49) over k = l..L-1", lhs=_lp(_sum50), rhs=_lp(_sum50bar),
             search=_printed_pts(PAIRS, "froW", "froWbar"), tol=ODE_TOL,
             tol_source=ODE_SRC, cites=("(50)",), fidelity="as printed"),
        Step("(51): ||W_l||_F^2 - ||W_L||_F^2 = alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2)", lhs=_lp(_fro_lL),
             rhs=_lp(_fro_lL0), search=_printed_pts(PAIRS, "fro_W_l", "fro_W_L", "fro_Wbar_l", "fro_Wbar_L"), tol=ODE_TOL, tol_source=ODE_SRC, cites=("(51)",), fidelity="as printed"),
        Step("(52a): ||W_l||_op^2 = v_l^T W_l^T W_l v_l", lhs=_lp(_op_l), rhs=_lp(_vWWv),
             search=_printed_pts(PAIRS_D3_FIRST, "op_W_l", "W_l", "v_l", "u_l1"), tol=1e-12,
             tol_source="float64 SVD of a 3x3 matrix of norm <= 5: backward error ~ 1e-15 * 25", cites=("(52)",),
             fidelity="as printed"),
        Step("(52b): v_l^T W_l^T W_l v_l >= u_{l+1}^T W_l^T W_l u_{l+1}", lhs=_lp(_vWWv), rhs=_lp(_uWWu), relation=">=",
             search=_printed_pts(PAIRS_D3_FIRST, "op_W_l", "W_l", "v_l", "u_l1"), tol=1e-12, tol_source="float64 SVD of a 3x3 matrix of norm <= 5", cites=("(52)",),
             fidelity="as printed"),
        Step("(53) as printed: u_{l+1}^T W_l^T W_l u_{l+1} = u_{l+1}^T (D_l + W_{l+1}^T W_{l+1}) u_{l+1}",
             lhs=_lp(_uWWu), rhs=_lp(_rhs53), search=_with_l(POP3, ls=(1,)), tol=ODE_TOL, tol_source=ODE_SRC,
             cites=("(53)",),
             erratum=Erratum(key="002-eq53", source=SEED, where="eq (53)", says="W_l^T W_l = D_l + W_{l+1}^T W_{l+1}",
                             truth="W_l^T W_l = D_l + W_{l+1} W_{l+1}^T (the definition (32)); for l+1 = L the printed "
                             "W_L^T W_L is 1x1", severity="typo",
                             note="a transpose slip: (54) follows from (32) as defined and holds.",
                             at=_PrintedAt(AT_53, "W_l", "u_l1", "D_l", "W_l1"))),
        Step("(54): u_{l+1}^T W_l^T W_l u_{l+1} = ||W_{l+1}||_op^2 + alpha^2 u_{l+1}^T Dbar_l u_{l+1}", lhs=_lp(_uWWu),
             rhs=_lp(_rhs54), search=_printed_pts(PAIRS_D3_FIRST, "W_l", "u_l1", "op_W_l1", "uDbaru_l"), tol=ODE_TOL, tol_source=ODE_SRC, cites=("(54)",), fidelity="as printed"),
        Step("(55): (54) >= ||W_{l+1}||_op^2 + alpha^2 (||Wbar_{l+1}||_op^2 - ||Wbar_l||_op^2)", lhs=_lp(_rhs54),
             rhs=_lp(_rhs55), relation=">=", search=_printed_pts(PAIRS, "op_W_l", "op_W_l1", "uDbaru_l", "op_Wbar_l1", "op_Wbar_l"), tol=1e-12, tol_source="float64 SVD", cites=("(55)",), fidelity="as printed"),
        Step("(56) as printed: ||W_l||_op^2 >= ||Wbar_L||_op^2 + alpha^2 (||Wbar_L||_op^2 - ||Wbar_l||_op^2)",
             lhs=_lp(_op_l), rhs=_lp(_rhs56), relation=">=", search=SMALL, cites=("(56)",),
             erratum=Erratum(key="002-eq56", source=SEED, where="eq (56)", says="||W_l||_op^2 >= ||Wbar_L||_op^2 + alpha^2(...)",
                             truth="||W_l||_op^2 >= ||W_L(t)||_op^2 + alpha^2 (||Wbar_L||_op^2 - ||Wbar_l||_op^2) "
                             "(summing (55) telescopes to the current W_L, not Wbar_L)", severity="typo",
                             note="a bar slip: 'summing (55) from l to L - 1' fixes the intended W_L(t), and (57) "
                             "follows from it (and holds).",
                             at=_PrintedAt(AT_SMALL, "op_W_l", "op_Wbar_L", "op_Wbar_l"))),
        Step("(56) with W_L(t): ||W_l||_op^2 >= ||W_L||_op^2 + alpha^2 (||Wbar_L||_op^2 - ||Wbar_l||_op^2)",
             lhs=_lp(_op_l), rhs=_lp(_rhs56_fixed), relation=">=", search=PAIRS, tol=ODE_TOL, tol_source=ODE_SRC),
        Step("(57): ||W_l||_F^2 - ||W_l||_op^2 <= alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2 + ||Wbar_l||_op^2 "
             "- ||Wbar_L||_op^2)", lhs=_lp(_resid2), rhs=_lp(_rhs57), relation="<=",
             search=_printed_pts(PAIRS, "fro_W_l", "op_W_l", "fro_Wbar_l", "fro_Wbar_L", "op_Wbar_l", "op_Wbar_L"),
             tol=ODE_TOL,
             tol_source=ODE_SRC, cites=("(57)",), fidelity="as printed"),
        Step("(58): v_l^T W_{l+1} W_{l+1}^T v_l = v_l^T W_l^T W_l v_l - v_l^T D_l v_l", lhs=_lp(_vW1W1v), rhs=_lp(_rhs58),
             search=_printed_pts(PAIRS, "vWWtv_l", "vWWv_l", "vDv_l"), tol=ODE_TOL, tol_source=ODE_SRC, cites=("(58)",), fidelity="as printed"),
        Step("(59): (58) >= s_l^2 - alpha^2 ||Dbar_l||_op^2", lhs=_lp(_vW1W1v), rhs=_lp(_rhs59), relation=">=",
             search=PAIRS, tol=ODE_TOL, tol_source=ODE_SRC, cites=("(59)",),
             why="Dbar_l = Wbar_l^T Wbar_l - Wbar_{l+1} Wbar_{l+1}^T, D_l = alpha^2 Dbar_l by (32)",
             erratum=Erratum(key="002-eq59", source=SEED, where="eq (59)", says="v^T W_{l+1} W_{l+1}^T v >= s_l^2 - alpha^2 ||Dbar_l||_op^2",
                             truth=">= s_l^2 - alpha^2 ||Dbar_l||_op (v^T Dbar v <= ||Dbar||_op, not its square)",
                             severity="wrong-constant",
                             note="fails when ||Dbar_l||_op < 1; the square is carried into (62), (63), (65) and C_l "
                             "of (67), which should carry ||Dbar_l||_op; the form alpha^2 C_l of (66) survives",
                             at=_PrintedAt(AT_59, "s_l", "op_Dbar_l", "vWWv_l", "vDv_l"))),
        Step("(59) corrected: v^T W_{l+1} W_{l+1}^T v >= s_l^2 - alpha^2 ||Dbar_l||_op", lhs=_lp(_vW1W1v),
             rhs=_lp(_rhs59_fixed), relation=">=", search=PAIRS, tol=ODE_TOL, tol_source=ODE_SRC),
        Step("(60) as printed: v^T W_{l+1} W_{l+1}^T v = v^T (s^2 u u^T W W^T - s^2 u u^T) v", lhs=_lp(_vW1W1v),
             rhs=_lp(_rhs60), search=PAIRS, tol=ODE_TOL, tol_source=ODE_SRC, cites=("(60)",),
             erratum=Erratum(key="002-eq60", source=SEED, where="eq (60)", says="v^T W W^T v = v^T (s^2 u u^T W W^T - s^2 u u^T) v",
                             truth="v^T W W^T v = v^T (s^2 u u^T + (W W^T - s^2 u u^T)) v", severity="typo",
                             note="a garbled split (a product printed for a sum); (61) meant the second term <= "
                             "||W_{l+1}||_F^2 - ||W_{l+1}||_op^2",
                             at=_PrintedAt(AT_53, "v_l", "W_l1", "u_l1", "s_l1"))),
        Step("(61) as printed: v^T W_{l+1} W_{l+1}^T v <= s^2 (v^T u)^2 + ||W_{l+1}||_F^2 - ||W_{l+1}||_F^2",
             lhs=_lp(_vW1W1v), rhs=_lp(_rhs61), relation="<=", search=PAIRS, cites=("(61)",),
             erratum=Erratum(key="002-eq61", source=SEED, where="eq (61)", says="... + ||W_{l+1}||_F^2 - ||W_{l+1}||_F^2 (= 0)",
                             truth="... + ||W_{l+1}||_F^2 - ||W_{l+1}||_op^2", severity="typo",
                             note="an op norm printed as F; (63) uses the intended residual bound (57)",
                             at=_PrintedAt(AT_53, "s_l1", "vu_l", "v_l", "W_l1"))),
        Step("(61) corrected: v^T W_{l+1} W_{l+1}^T v <= s^2 (v^T u)^2 + ||W_{l+1}||_F^2 - ||W_{l+1}||_op^2",
             lhs=_lp(_vW1W1v), rhs=_lp(_rhs61_fixed), relation="<=", search=PAIRS, tol=1e-12, tol_source="float64 SVD"),
        Step("(62) first line as printed: s_l^2 <= s_{l+1}^2 (v^T u)^2 + alpha^2 ||Dbar_l||_op^2 + ||W_{l+1}||_F^2 "
             "- ||W_{l+1}||_F^2", lhs=_lp(_s2), rhs=_lp(_rhs62), relation="<=", search=PAIRS, tol=ODE_TOL,
             tol_source=ODE_SRC, cites=("(62)",),
             erratum=Erratum(key="002-eq62", source=SEED, where="eq (62)", says="s_l^2 <= s_{l+1}^2 (v^T u)^2 + alpha^2 ||Dbar_l||_op^2 + 0",
                             truth="s_l^2 <= s_{l+1}^2 (v^T u)^2 + alpha^2 ||Dbar_l||_op + ||W_{l+1}||_F^2 - "
                             "||W_{l+1}||_op^2 (the errors of (59) and (61) combined)", severity="wrong-constant",
                             root="002-eq59",
                             note="the counterexample has d = 1 (F = op norms): only the square of (59) fails there",
                             at=AT_59)),
        Step("(63): s_l^2 <= s_{l+1}^2 (v^T u)^2 + alpha^2 ||Dbar_l||_op^2 + alpha^2 (||Wbar_l||_F^2 - ||Wbar_L||_F^2 "
             "+ ||Wbar_l||_op^2 - ||Wbar_L||_op^2)", lhs=_lp(_s2), rhs=_lp(_rhs63), relation="<=", search=PAIRS,
             tol=ODE_TOL, tol_source=ODE_SRC, cites=("(63)",), fidelity="as printed",
             why="(63) prints the Dbar_l term without the last transpose and ||Wbar_L||_O: read as the Dbar_l of "
             "(59), (62), (65), (67) and ||Wbar_L||_op (the only well-formed readings); the second line of (62) is "
             "the same bound garbled"),
        Step("(64): s_l^2 >= u_{l+1}^T W_l^T W_l u_{l+1}", lhs=_lp(_s2), rhs=_lp(_uWWu), relation=">=",
             search=_printed_pts(PAIRS_D3_FIRST, "s_l", "W_l", "u_l1"),
             tol=1e-12, tol_source="float64 SVD", cites=("(64)",), fidelity="as printed"),
        Step("(65): u_{l+1}^T W_l^T W_l u_{l+1} >= s_{l+1}^2 - alpha^2 ||Dbar_l||_op^2", lhs=_lp(_uWWu), rhs=_lp(_rhs65),
             relation=">=", search=_printed_pts(PAIRS_D3_FIRST, "s_l", "s_l1", "op_Dbar_l", "W_l", "u_l1"), tol=ODE_TOL, tol_source=ODE_SRC,
             cites=("(65)",), fidelity="as printed"),
        Step("(66)-(67): (v_l^T u_{l+1})^2 >= 1 - alpha^2 C_l / s_{l+1}^2", lhs=_lp(_align_side), rhs=_lp(_rhs66),
             relation=">=", search=_printed_pts(lambda: PAIRS() + ALIGNED(), "vu_l", "C_l", "s_l1"), tol=ODE_TOL,
             tol_source=ODE_SRC, cites=("(66)",), fidelity="as printed",
             why="C_l as printed in (67), with ||Dbar_l||_op^2; the finite-alpha form of (48)"),
        Step("(48): lim_{alpha -> 0} lim_{t -> oo} (u_{l+1}(t)^T v_l(t))^2 = 1, read at alpha = 0.01 and a converged "
             "T = 100", lhs=_lp(_align_side), rhs=sp.Integer(1), search=_printed_pts(ALIGNED, "vu_l"), tol=3e-3,
             tol_source="(66)-(67), the step above: 0 <= 1 - (v_l^T u_{l+1})^2 <= alpha^2 C_l/s_{l+1}^2, at most 2.9e-3 "
                        "at these points (alpha = 0.01; C_l depends on Wbar only)",
             why="the limits read at a small alpha and a time T where the flow has converged (the population losses (2) "
                 "below 1e-25, the empirical flow's (3) ||r_par|| below 1e-7)", cites=("(48)",), fidelity="as printed"),
        Step("(68) first: ||yhat|| / ||X||_op <= ||W_1..W_L||_2 (at a converged T)", lhs=_yhat_over_x, rhs=_beta_norm,
             relation="<=", search=_printed_pts(CONV, "norm_yhat", "op_X", "norm_beta", "prod_s2"), cites=("(68)",), fidelity="as printed",
             why="the limit t -> oo read at a converged time T"),
        Step("(68) second, as printed: ||W_1..W_L||_2 <= prod_l s_l^2 (at a converged T)", lhs=_beta_norm, rhs=_prod_s2,
             relation="<=", search=_printed_pts(CONV, "norm_yhat", "op_X", "norm_beta", "prod_s2"), cites=("(68)",),
             erratum=Erratum(key="002-eq68", source=SEED, where="eq (68)", says="||W_1 .. W_L||_2 <= prod_l s_l^2",
                             truth="||W_1 .. W_L||_2 <= prod_l s_l (submultiplicativity); the square fails whenever "
                             "prod s_l < 1", severity="typo",
                             note="a square slip: submultiplicativity gives prod s_l, and (69) (prod s_l^2 > 0) "
                             "needs only positivity", at=dict(CONV()[0]))),
        Step("(68) corrected: ||W_1..W_L||_2 <= prod_l s_l", lhs=_beta_norm, rhs=_prod_s, relation="<=", search=CONV,
             tol=1e-12, tol_source="float64 SVD"),
        Step("(68) corrected, squared: prod_l s_l^2 >= (||yhat|| / ||X||_op)^2 at a converged T", lhs=_prod_s2,
             rhs=_yhat_over_x2, relation=">=", search=CONV),
        Step("(69): prod_l s_l^2 > 0 at a converged T", lhs=_prod_s2, rhs=sp.Integer(0), relation=">", search=CONV,
             cites=("(69)",), fidelity="as printed", why="the limit t -> oo read at a converged time T"),
        Step("(71): W_1 .. W_L = beta_s after pretraining, read at a converged T of the population flow (d = 3, L = 4)",
             lhs=_beta_T, rhs=_beta_s, search=_printed_pts(PRETRAINED, "W_1", "W_2", "W_3", "W_4", "beta_s"),
             tol=ODE_TOL, tol_source=LIMIT_SRC, cites=("(71)",), fidelity="as printed",
             why="the limit t -> oo read at T = 40, where the checked finite-time bound puts it within 1e-15"),
        Step("(71)'s bound at its points: sqrt(2 L(0)) exp(-(alpha^2 lam)^{L-1} T) <= 1e-15", lhs=_beta_gap_bound,
             rhs=sp.Float(1e-15), relation="<=", search=PRETRAINED),
        Step("the pretrained limit instance of (74), (119), (120): balanced, rank one, aligned, W_1..W_L = beta_s, "
             "||beta_s|| = 1 (residual 0)", lhs=_limit_premises, rhs=sp.Integer(0), search=LIMIT, tol=1e-12,
             tol_source="float64 SVD and products of unit-norm rank-one 3 x 3 matrices"),
        Step("(70): W_1 .. W_{L-1} = c u_1 v_{L-1}^T at the pretrained limit (d = 3, L = 4; d = 2, L = 3), c = u_1^T "
             "W_1 .. W_{L-1} v_{L-1}", lhs=_phi_lim, rhs=_cuv_lim, search=LIMIT, tol=1e-12,
             tol_source="float64 SVD and products of unit-norm rank-one 3 x 3 matrices", cites=("(70)",),
             fidelity="as printed",
             why="'for some c in R': the only candidate, the projection u_1^T Phi v_{L-1}; the identity then says that "
             "the product is rank one along W_1's top left and W_{L-1}'s top right singular vectors"),
        Step("(72): beta_s = c u_1 (v_{L-1}^T W_L) at the pretrained limit, c of (70)", lhs=_beta_s_lim, rhs=_cu_vw_lim,
             search=LIMIT, tol=1e-12, tol_source="float64 SVD and products of unit-norm rank-one 3 x 3 matrices",
             cites=("(72)",), fidelity="as printed",
             why="(71) with (70) put in, v_{L-1} where the print has v_{L_1} (no L_1 is defined); the print is not "
             "compared (notation_002_b does not read v_{L_1} as v_{L-1})"),
        Step("(74), (120): W_1 .. W_{L-1} = beta_s v_{L-1}^T at the pretrained limit (d = 3, L = 4; d = 2, L = 3)",
             lhs=_phi_lim, rhs=_beta_v_lim, search=LIMIT, tol=1e-12,
             tol_source="float64 SVD and products of unit-norm rank-one 3 x 3 matrices", cites=("(74)", "(120)"),
             fidelity="as printed",
             why="Theorem 3.4's alpha -> 0, t -> oo limit as an exact instance of what Lemma B.1 and Lemma 3.3 say it "
             "is; v_{L-1} signed so that v_{L-1}^T W_L > 0 (a singular vector's sign is free; the text after (73) "
             "absorbs the possible -1 into u_1, which leaves c u_1 v_{L-1}^T unchanged: the sign (74) needs is "
             "v_{L-1}'s)"),
        Step("(119): Phi = (X beta_s) v_{L-1}^T, Phi = X W_1 .. W_{L-1} the features of linear transfer (Sec. 3), at the "
             "pretrained limit", lhs=_xphi_lim, rhs=_xbeta_v_lim, search=LIMIT, tol=1e-12,
             tol_source="float64 SVD and products of a 5 x 3 Gaussian X and unit-norm rank-one 3 x 3 matrices",
             cites=("(119)",), fidelity="as printed",
             why="Phi of Sec. 3's linear transfer, X W_1 .. W_{L-1}, at the pretrained limit instance of (74)"),
    ))


# -- B.4: Theorem 3.5, part 1 ---------------------------------------------------------------------------------------
def _proj(st):
    """P_par: the orthogonal projector onto im(X) (n x n)."""
    x = st["x"]
    return x @ np.linalg.pinv(x)


def _Lpar_fn(st):
    pp = _proj(st)
    return lambda ws: float(0) + np.sum((pp @ (st["x"] @ _prod(ws) - st["y"])) ** 2)


def _Lperp_fn(st):
    pq = np.eye(st["x"].shape[0]) - _proj(st)
    return lambda ws: np.sum((pq @ (st["x"] @ _prod(ws) - st["y"])) ** 2)


def _Lemp(**p):
    """L = ||X W_1..W_L - y||^2 / (2n)"""
    st = _S(p)
    return _L(st)(st["ws"])


def _rhs75(**p):
    """(||r_par||^2 + ||r_perp||^2) / (2n)"""
    st = _S(p)
    return float(np.real(_Lpar_fn(st)(st["ws"]) + _Lperp_fn(st)(st["ws"]))) / (2 * st["x"].shape[0])


def _Lpar_dot(**p):
    """dL_par/dt along the flow (complex step)"""
    st = _S(p)
    return _cs_dir(_Lpar_fn(st), st["ws"], _field(st["ws"], st["kind"], st["x"], st["y"]))


def _grads(st):
    return _cs_grad(_Lpar_fn(st), st["ws"]), _cs_grad(_Lperp_fn(st), st["ws"]), _cs_grad(_L(st), st["ws"])


def _rhs76(**p):
    """sum_l <grad_l L_par, dW_l/dt>"""
    st = _S(p)
    gp = _grads(st)[0]
    return sum(float(np.sum(a * b)) for a, b in zip(gp, _field(st["ws"], st["kind"], st["x"], st["y"])))


def _rhs77(**p):
    """-sum_l <grad_l L_par, grad_l L>"""
    gp, _, gl = _grads(_S(p))
    return -sum(float(np.sum(a * b)) for a, b in zip(gp, gl))


def _rhs78(**p):
    """-sum_l (||grad_l L_par||_F^2 + <grad_l L_par, grad_l L_perp>)"""
    gp, gq, _ = _grads(_S(p))
    return -sum(_fro2(a) + float(np.sum(a * b)) for a, b in zip(gp, gq))


def _perp_grad(**p):
    """sum_l ||grad_l L_perp||_F"""
    return sum(float(np.linalg.norm(a)) for a in _grads(_S(p))[1])


def _rhs80(**p):
    """-sum_l ||grad_l L_par||_F^2"""
    return -sum(_fro2(a) for a in _grads(_S(p))[0])


def _rhs81(**p):
    """-||grad_L L_par||_F^2"""
    return -_fro2(_grads(_S(p))[0][-1])


def _xpr(st):
    return st["x"].T @ _proj(st) @ (st["x"] @ _prod(st["ws"]) - st["y"])


def _phi_xpr2(**p):
    """||W_{L-1}^T .. W_1^T X^T P_par r||_2^2"""
    st = _S(p)
    return _fro2(_phi(st).T @ _xpr(st))


def _m_phi_xpr2(**p):
    """-||W_{L-1}^T .. W_1^T X^T P_par r||_2^2"""
    return -_phi_xpr2(**p)


def _rhs83(**p):
    """-sigma_min^2(W_{L-1}^T .. W_1^T) ||X^T P_par r||^2"""
    st = _S(p)
    return -float(np.linalg.svd(_phi(st), compute_uv=False)[-1] ** 2) * _fro2(_xpr(st))


def _rhs84(**p):
    """-(alpha^2 lambda)^{L-1} ||X^T P_par r||^2"""
    st = _S(p)
    return -_rate(st) * _fro2(_xpr(st))


def _rhs84_fixed(**p):
    """-(2/n) (alpha^2 lambda)^{L-1} ||X^T P_par r||^2"""
    st = _S(p)
    return 2 / st["x"].shape[0] * _rhs84(**p)


def _Lpar_exp_fixed(**p):
    """L_par(0) exp(-(2/n) (alpha^2 lambda)^{L-1} lambda_min t)"""
    st = _S(p)
    return _Lpar(**dict(p, t=0.0)) * float(np.exp(-2 / st["x"].shape[0] * _rate(st) * _lmin(st) * p["t"]))


def _lmin(st):
    ev = np.linalg.eigvalsh(st["x"] @ st["x"].T)
    return float(np.min(ev[ev > 1e-10 * np.max(ev)]))


def _Lpar(**p):
    """L_par = ||P_par r||^2"""
    st = _S(p)
    return float(np.real(_Lpar_fn(st)(st["ws"])))


def _rhs85(**p):
    """-2 (alpha^2 lambda)^{L-1} lambda_min L_par"""
    st = _S(p)
    return -2 * _rate(st) * _lmin(st) * _Lpar(**p)


def _Lpar_exp(**p):
    """L_par(0) exp(-2 (alpha^2 lambda)^{L-1} lambda_min t)"""
    st = _S(p)
    return _Lpar(**dict(p, t=0.0)) * float(np.exp(-2 * _rate(st) * _lmin(st) * p["t"]))


def _w1perp(**p):
    """||W_1^perp(t)||_F, W_1^perp = (I - P_row(X)) W_1"""
    st = _S(p)
    x = st["x"]
    return float(np.linalg.norm((np.eye(st["d"]) - np.linalg.pinv(x) @ x) @ st["ws"][0]))


def _w1perp0(**p):
    """||W_1^perp(0)||_F"""
    return _w1perp(**dict(p, t=0.0))


def _alpha_w1bar(**p):
    """alpha ||Wbar_1||_F"""
    st = _S(p)
    return st["alpha"] * float(np.linalg.norm(st["wbar"][0]))


AT_EMP = dict(EMP()[0])
AT_85 = dict(EMP()[3])  # d = 1: im(X) is a line, ||X^T P r||^2 = lambda_min L_par exactly
EMP_OVER = lambda: [dict(p, kind="emp") for p in (  # noqa: E731  n < d: r_perp = 0 impossible to see; W_1^perp != 0
    {"d": 3, "L": 2, "alpha": 0.7, "seed": 5, "t": 1.0, "n": 2}, {"d": 3, "L": 3, "alpha": 0.5, "seed": 6, "t": 3.0,
                                                                   "n": 1})]
# (19) with equality (Wbar_l = sqrt((L-l) lam) I, Wbar_L = 0): sigma_min^2(Phi) = (alpha^2 lambda)^{L-1} at t = 0
TIGHT = lambda: [dict(p, kind="emp", gen=2) for p in (  # noqa: E731
    {"d": 1, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.0, "n": 3}, {"d": 1, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.1, "n": 3},
    {"d": 2, "L": 2, "alpha": 1.0, "seed": 0, "t": 0.1, "n": 4}, {"d": 2, "L": 3, "alpha": 1.0, "seed": 0, "t": 0.1, "n": 4})]

B4 = Derivation(
    key="transfer.appendixB4", title="Theorem 3.5, part 1 (App. B.4, eqs (75)-(87)): convergence on the empirical loss",
    source=SEED, where="App. B.4, eqs (75)-(87)", entries=("transfer.scratch_risk",), steps=(
        Step("(75): L = (||r_par||^2 + ||r_perp||^2) / (2n)", lhs=_Lemp, rhs=_rhs75,
             search=_printed_pts(EMP, "loss_t", "norm_r", "norm_r_par", "norm_r_perp"), tol=1e-12,
             tol_source="float64 projector X X^+ of a 5x3 Gaussian matrix", cites=("(75)",), fidelity="as printed"),
        Step("(76): dL_par/dt = sum_l <grad_l L_par, dW_l/dt>", lhs=_Lpar_dot, rhs=_rhs76,
             search=_printed_pts(EMP, "Lpardot", "gparWdot"), tol=CS_TOL,
             tol_source=CS_SRC, cites=("(76)",), fidelity="as printed"),
        Step("(77): (76) = -sum_l <grad_l L_par, grad_l L>", lhs=_rhs76, rhs=_rhs77,
             search=_printed_pts(EMP, "gparWdot", "gparg"), tol=CS_TOL,
             tol_source=CS_SRC, cites=("(77)",), fidelity="as printed"),
        Step("(78) as printed: dL_par/dt = -sum_l (||grad_l L_par||^2 + <grad_l L_par, grad_l L_perp>)", lhs=_Lpar_dot,
             rhs=_rhs78, search=EMP, tol=CS_TOL, tol_source=CS_SRC, cites=("(78)",),
             erratum=Erratum(key="002-eq78", source=SEED, where="eqs (78), (80)", says="dL_par/dt = -sum_l (||grad L_par||^2 + <.,.>)",
                             truth="dL_par/dt = -(1/(2n)) sum_l (...): L = (L_par + L_perp)/(2n), so grad L = "
                             "(grad L_par + grad L_perp)/(2n)", severity="wrong-constant",
                             note="the root of App. B.4's constants: the chain (78)-(85) computes as if L = ||r||^2/2 "
                             "and L_par = ||r_par||^2/2, while (75) prints L = ||r||^2/(2n) and the text L_par = "
                             "||r_par||^2; (80), (82), (84), (85) and the rate after (85) carry it. Exponential "
                             "convergence of L_par survives.",
                             at=_PrintedAt(AT_EMP, "Lpardot", "gparWdot", "gparg", "gparF", "gpargperp"))),
        Step("(79): grad_l L_perp = W^T..X^T P_perp r W^T.. = 0", lhs=_perp_grad, rhs=sp.Integer(0), search=EMP, tol=CS_TOL,
             tol_source=CS_SRC, cites=("(79)",), fidelity="as printed",
             why="the printed middle expression lacks the factor 2 of the gradient of ||P_perp r||^2, but it and the "
             "gradient are 0 (X^T P_perp = 0): the step checks the printed conclusion grad_l L_perp = 0"),
        Step("(80) as printed: dL_par/dt = -sum_l ||grad_l L_par||_F^2", lhs=_Lpar_dot, rhs=_rhs80, search=EMP, tol=CS_TOL,
             tol_source=CS_SRC, cites=("(80)",),
             erratum=Erratum(key="002-eq80", source=SEED, where="eq (80)", says="dL_par/dt = -sum_l ||grad_l L_par||_F^2",
                             truth="dL_par/dt = -(1/(2n)) sum_l ||grad_l L_par||_F^2", severity="wrong-constant",
                             root="002-eq78", note="the 1/(2n) of (78) carried",
                             at=_PrintedAt(AT_EMP, "Lpardot", "gparF"))),
        Step("(81): -sum_l ||grad_l L_par||^2 <= -||grad_L L_par||^2", lhs=_rhs80, rhs=_rhs81, relation="<=",
             search=_printed_pts(EMP, "gparF", "gparF_L"),
             tol=CS_TOL, tol_source=CS_SRC, cites=("(81)",), fidelity="as printed"),
        Step("(82) as printed, after (81): -||grad_L L_par||^2 = -||W_{L-1}^T..W_1^T X^T P_par r||^2", lhs=_rhs81,
             rhs=_m_phi_xpr2,
             search=EMP, tol=CS_TOL, tol_source=CS_SRC, cites=("(82)",),
             erratum=Erratum(key="002-eq82", source=SEED, where="eq (82)", says="||grad_L L_par||^2 = ||Phi^T X^T P r||^2",
                             truth="||grad_L L_par||^2 = 4 ||Phi^T X^T P r||^2 (L_par = ||P r||^2 has gradient 2 Phi^T X^T P r)",
                             severity="wrong-constant", root="002-eq78",
                             note="the gradient of L_par = ||r_par||^2/2, not of the L_par the text defines: the "
                             "normalization of (78)", at=_PrintedAt(AT_EMP, "norm_PhiTXtPr"))),
        Step("(83): -||Phi^T X^T P r||^2 <= -sigma_min^2(Phi^T) ||X^T P r||^2", lhs=_m_phi_xpr2, rhs=_rhs83, relation="<=",
             search=_printed_pts(EMP, "norm_PhiTXtPr", "smin_Phi", "norm_XtPr"), tol=1e-12, tol_source="float64 SVD", cites=("(83)",), fidelity="as printed"),
        Step("(84): dL_par/dt <= -(alpha^2 lambda)^{L-1} ||X^T P_par r||^2", lhs=_Lpar_dot, rhs=_rhs84, relation="<=",
             search=lambda: EMP() + TIGHT(), tol=CS_TOL, tol_source=CS_SRC, cites=("(84)",),
             erratum=Erratum(key="002-eq84", source=SEED, where="eq (84)", says="dL_par/dt <= -(alpha^2 lambda)^{L-1} ||X^T P r||^2",
                             truth="dL_par/dt <= -(2/n) (alpha^2 lambda)^{L-1} ||X^T P r||^2 (the 1/(2n) of (78)/(80) "
                             "times the 4 of (82)); fails for n >= 3 where (19) is tight",
                             severity="wrong-constant", root="002-eq78",
                             note="Counterexample: d = 1, L = 2, n = 3, Wbar_1 = sqrt(lam), Wbar_2 = 0, t = 0.",
                             at=_PrintedAt(TIGHT()[0], "lam", "norm_XtPr"))),
        Step("(84) corrected: dL_par/dt <= -(2/n) (alpha^2 lambda)^{L-1} ||X^T P_par r||^2", lhs=_Lpar_dot,
             rhs=_rhs84_fixed, relation="<=", search=lambda: EMP() + TIGHT(), tol=CS_TOL, tol_source=CS_SRC),
        Step("(85) as chained: -(alpha^2 lambda)^{L-1} ||X^T P r||^2 <= -2 (alpha^2 lambda)^{L-1} lambda_min L_par",
             lhs=_rhs84, rhs=_rhs85, relation="<=", search=EMP, cites=("(85)",),
             erratum=Erratum(key="002-eq85", source=SEED, where="eq (85)", says="-c ||X^T P r||^2 <= -2 c lambda_min L_par",
                             truth="-c ||X^T P r||^2 <= -c lambda_min L_par (||X^T z||^2 >= lambda_min ||z||^2 on im(X); "
                             "the 2 belongs to L_par = ||r_par||^2/2, the normalization of (78))", severity="wrong-constant",
                             root="002-eq78", note="equality at d = 1",
                             at=_PrintedAt(AT_85, "lam", "norm_XtPr", "L_par", "lambda_min"))),
        Step("text after (85): L_par(t) <= L_par(0) exp(-2 (alpha^2 lambda)^{L-1} lambda_min t)", lhs=_Lpar, rhs=_Lpar_exp,
             relation="<=", search=lambda: EMP() + TIGHT(), tol=ODE_TOL, tol_source=ODE_SRC,
             erratum=Erratum(key="002-B4-rate", source=SEED, where="App. B.4, text after (85)",
                             says="L_par(t) <= L_par(0) exp(-2 (alpha^2 lambda)^{L-1} lambda_min t)",
                             truth="L_par(t) <= L_par(0) exp(-(2/n) (alpha^2 lambda)^{L-1} lambda_min t) (rate n times "
                             "slower); convergence to a global minimum (Theorem 3.5, part 1) is unaffected",
                             severity="wrong-constant", root="002-eq78",
                             note="the constants of (78)-(85) combined; counterexample: the tight initialization, "
                             "d = 1, L = 2, n = 3, t = 0.1.", at=dict(TIGHT()[1]))),
        Step("text after (85) corrected: L_par(t) <= L_par(0) exp(-(2/n) (alpha^2 lambda)^{L-1} lambda_min t) -> 0",
             lhs=_Lpar, rhs=_Lpar_exp_fixed, relation="<=", search=lambda: EMP() + TIGHT() + CONV(), tol=ODE_TOL,
             tol_source=ODE_SRC),
        Step("(87a): ||W_1^perp(t)||_F = ||W_1^perp(0)||_F", lhs=_w1perp, rhs=_w1perp0,
             search=_printed_pts(lambda: EMP() + EMP_OVER(), "Wperp_t", "Wperp_0", "fro_Wbar_1"),
             tol=ODE_TOL, tol_source=ODE_SRC, cites=("(87)",), fidelity="as printed",
             why="W_1^perp: the columns' component in ker(X) = row(X)^perp (the text's ker(X^T) is in R^n, where "
             "the columns of W_1 are not)"),
        Step("(87b): ||W_1^perp(0)||_F <= alpha ||Wbar_1||_F", lhs=_w1perp0, rhs=_alpha_w1bar, relation="<=",
             search=_printed_pts(lambda: EMP() + EMP_OVER(), "Wperp_t", "Wperp_0", "fro_Wbar_1"), tol=1e-12, tol_source="float64 projector", cites=("(87)",),
             fidelity="as printed"),
    ))

DERIVATIONS = (B2, B3, B4)
