r"""Split learning on non-IID data (seed 002), Fig. 1: the model updates of FL and SL for 2 clients and 2 local steps
in one round, on IID and on non-IID data (the figure is an image the seed text does not hold; line 19 is its caption,
line 21 its claim: "Under the IID setting, SL approach the global optima x^* faster than FL given the sequential
training mechanism. In contrast, under the non-IID setting, SL may deviate from the global optima for the same
reason.").

Redrawn from the update rules of the seed's Table 5 (line 383, eta_g = 1, full gradients so that one round is
deterministic):

.. math::
    \text{FL: } x_i^{(r,0)} = x^r,\ x_i^{(r,k+1)} = x_i^{(r,k)} - \eta_l\nabla f_i(x_i^{(r,k)}),\
    x^{r+1} = \tfrac1N\sum_i x_i^{(r,K)};\qquad
    \text{SL: } x_i^{(r,0)} = x_{i-1}^{(r,K)}\ (x_0^{(r,K)} = x^r),\ x^{r+1} = x_N^{(r,K)},

on two quadratic clients :math:`f_i(x) = \tfrac12 (x-b_i)^\top H_i (x-b_i)` in the plane, whose global objective
:math:`f = \tfrac12(f_1+f_2)` has its minimiser :math:`x^* = (H_1+H_2)^{-1}(H_1b_1+H_2b_2)`. IID: the two clients
have the same :math:`b` and :math:`H`; non-IID: different optima and curvatures. The left two panels show one round
from the same :math:`x^0` (each client's two steps, FL's average, SL's chain); the right one the distance to
:math:`x^*` over 30 rounds (SL in the fixed order 1, 2, as drawn, and in a random order per round).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.plotting import PALETTE, footnote

ETA_L = 0.3
K = 2
X0 = np.array([-3.0, 2.5])
IID = ((np.zeros(2), np.diag([1.0, 0.3])), (np.zeros(2), np.diag([1.0, 0.3])))
NON_IID = ((np.array([1.5, -1.0]), np.diag([1.0, 0.3])), (np.array([-1.5, 1.0]), np.diag([0.3, 1.0])))
Client = tuple[np.ndarray, np.ndarray]  # (b_i, H_i)


def optimum(clients: tuple[Client, ...]) -> np.ndarray:
    """The minimiser of the mean of the clients' quadratics: (sum H_i)^{-1} sum H_i b_i."""
    h = sum(hh for _, hh in clients)
    return np.linalg.solve(h, sum(hh @ b for b, hh in clients))


def local_path(x: np.ndarray, client: Client, eta: float = ETA_L, k: int = K) -> list[np.ndarray]:
    """``k`` gradient steps of one client from ``x``: the points x^(0..k)."""
    b, h = client
    path = [np.asarray(x, float)]
    for _ in range(k):
        path.append(path[-1] - eta * h @ (path[-1] - b))
    return path


def fl_round(x: np.ndarray, clients: tuple[Client, ...]) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """One FL (local SGD) round of Table 5: every client from ``x``, then the average; the clients' paths too."""
    paths = [local_path(x, c) for c in clients]
    return np.mean([p[-1] for p in paths], axis=0), paths


def sl_round(x: np.ndarray, clients: tuple[Client, ...],
             order: tuple[int, ...] | None = None) -> tuple[np.ndarray, list[list[np.ndarray]]]:  # fmt: skip
    """One SL round of Table 5: the clients in ``order`` (default 1..N), each from where the previous one ended."""
    paths: list[list[np.ndarray]] = []
    for i in order if order is not None else range(len(clients)):
        paths.append(local_path(paths[-1][-1] if paths else x, clients[i]))
    return paths[-1][-1], paths


def distances(clients: tuple[Client, ...], rounds: int, rule: str, seed: int = 0) -> np.ndarray:
    """||x^r - x*|| for r = 0..rounds under ``rule`` (``fl``, ``sl`` in the fixed order, ``sl_random``)."""
    rng = np.random.default_rng(seed)
    star, x, out = optimum(clients), X0.copy(), []
    for _ in range(rounds + 1):
        out.append(float(np.linalg.norm(x - star)))
        if rule == "fl":
            x = fl_round(x, clients)[0]
        else:
            order = tuple(int(i) for i in rng.permutation(len(clients))) if rule == "sl_random" else None
            x = sl_round(x, clients, order)[0]
    return np.array(out)


def one_round(ax: Any, clients: tuple[Client, ...], title: str, small: bool) -> dict[str, float]:
    """Contours of the global objective, each client's two FL steps (dashed) and their average, SL's chain (solid);
    returns the distance of each method's x^1 to x*."""
    star = optimum(clients)
    g = np.linspace(-3.6, 2.6, 40 if small else 160)
    xx, yy = np.meshgrid(g, g)
    pts = np.stack([xx, yy], axis=-1)
    f = sum(0.25 * np.einsum("...i,ij,...j->...", pts - b, h, pts - b) for b, h in clients)
    ax.contour(xx, yy, f, levels=12, colors="#bbbbbb", linewidths=0.6)
    fl, fl_paths = fl_round(X0, clients)
    sl, sl_paths = sl_round(X0, clients)
    for i, p in enumerate(fl_paths):
        a = np.array(p)
        ax.plot(a[:, 0], a[:, 1], "--o", color=PALETTE[0], ms=3, lw=1.6, zorder=3,
                label="FL: each client's 2 steps from x^0 (over SL's)" if i == 0 else None)  # fmt: skip
    chain = np.array([X0] + [q for p in sl_paths for q in p[1:]])
    ax.plot(chain[:, 0], chain[:, 1], "-o", color=PALETTE[1], ms=5, lw=2.5, zorder=2,
            label="SL: client 1, then client 2")  # fmt: skip
    ax.scatter(*fl, marker="s", s=50, color=PALETTE[0], zorder=4, label="FL: x^1 (average)")
    ax.scatter(*sl, marker="D", s=45, color=PALETTE[1], zorder=4, label="SL: x^1 (end of the chain)")
    ax.scatter(*X0, marker="o", s=40, color="black", zorder=4)
    ax.annotate("x^0", X0, textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.scatter(*star, marker="*", s=140, color="black", zorder=5, label="x* (global optimum)")
    for i, (b, _) in enumerate(clients):
        if len(clients) > 1 and not np.allclose(clients[0][0], clients[1][0]):
            ax.scatter(*b, marker="x", s=40, color=PALETTE[2], zorder=4, label="client optima" if i == 0 else None)
    ax.set_title(title, loc="left", fontsize=9)
    ax.set_aspect("equal")
    ax.legend(fontsize=6.5, loc="lower right")
    return {"fl": float(np.linalg.norm(fl - star)), "sl": float(np.linalg.norm(sl - star))}


def draw(plt: Any, small: bool = False) -> Any:
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    iid = one_round(axes[0], IID, "IID: one round from x^0 (2 clients, K = 2)", small)
    non = one_round(axes[1], NON_IID, "non-IID: one round from x^0", small)
    rounds = 30
    for clients, what in ((IID, "IID"), (NON_IID, "non-IID")):
        for rule, mark, label in (("fl", "s", "FL"), ("sl", "D", "SL, order 1, 2"), ("sl_random", "^", "SL, random")):
            if what == "IID" and rule == "sl_random":
                continue  # identical clients: the order cannot matter
            d = distances(clients, rounds, rule)
            colour = PALETTE[0] if rule == "fl" else PALETTE[1] if rule == "sl" else PALETTE[3]
            axes[2].plot(range(rounds + 1), d, marker=mark, ms=3, lw=1.2, color=colour,
                         ls="-" if what == "IID" else "--", label=f"{what}: {label}")  # fmt: skip
    axes[2].set_yscale("log")
    axes[2].set_xlabel("round r")
    axes[2].set_ylabel("||x^r - x*||")
    axes[2].set_title("distance to the global optimum over rounds", loc="left", fontsize=9)
    axes[2].legend(fontsize=7)
    fl_end = distances(NON_IID, rounds, "fl")[-1]
    sl_end = distances(NON_IID, rounds, "sl")[-1]
    footnote(
        fig,
        f"Seed 002, Fig. 1 (line 19), redrawn from Table 5's update rules (eta_g = 1, full gradients, eta_l = "
        f"{ETA_L:g}, K = {K}) on two quadratic clients in the plane. After one round, IID: SL is {iid['sl']:.3f} "
        f"from x*, FL {iid['fl']:.3f} (SL closer: 'SL approach the global optima x* faster than FL', line 21); "
        f"non-IID: SL {non['sl']:.3f}, FL {non['fl']:.3f}. After {rounds} rounds on non-IID data FL stays "
        f"{fl_end:.3f} from x* (client drift) and SL, in a fixed order, {sl_end:.3f}: it settles nearer the last "
        "client's optimum ('SL may deviate from the global optima'); in a random order it wanders.",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
