"""HERON-SFL (seed 001): Theorem 1 (explicit form behind (49): eq. (48) averaged over the rounds) and Theorem 2
(the bound before the O-step, eq. (62)) against the number of rounds T, term by term, on the paper's ResNet-18
split with 5 clients and batch 256 (Sec. VI-B).

The smoothing radius follows each theorem's own choice: mu = (d h N B T)^(-1/4) for Theorem 1 (the printed order,
constant 1) and mu = kappa^(1/4) / ((N T)^(1/4) (d+3)^(3/2)) for Theorem 2 (its condition with equality).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plotting import footnote, terms_grid

# Sec. VI-B: ResNet-18 on CIFAR-10, 5 clients, batch 256, learning rate 1e-4 (Adam), split "after the second 2-D
# BatchNorm layer" (stem conv 1,728 + bn 128 + layer1.0.conv1 36,864 + bn1 128 parameters), auxiliary head "a
# single fully connected layer" on the 64x32x32 activation (65,536 x 10 + 10 parameters).
D_C = 1_728 + 128 + 36_864 + 128
D_AUX = 65_536 * 10 + 10
PAPER = {"M": 5.0, "batch": 256.0, "d_c": float(D_C), "d_aux": float(D_AUX), "eta_c": 1e-4}
# assumed (the paper gives none): h local steps, constants of Assumptions 1-5
ASSUMED = {"K": 5.0, "L": 1.0, "F": 2.3, "sigma_c2": 1.0, "G_c2": 1.0, "G_s2": 1.0, "delta": 1.0, "kappa": 10.0}


def curves(rid: str, T: np.ndarray, extra: dict[str, Any]) -> tuple[dict[str, np.ndarray], np.ndarray, str]:
    r = st.get(rid)
    p = {k: v for k, v in {**PAPER, **ASSUMED, **extra}.items() if k in r.parameters() and v is not None}
    ev = st.evaluate(rid, {**p, "T": T})
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T.shape) for k, v in ev.terms.items()}
    verdict = ev.verdict() if np.ndim(ev.applies) == 0 else _verdict(ev)
    return terms, np.asarray(ev.value, dtype=float), verdict


def _verdict(ev: Any) -> str:
    bad = sorted({h.name for h in ev.hypotheses if h.source == "statement" and not np.all(h.holds)})
    return "every stated hypothesis holds at every T" if not bad else f"fails somewhere: {', '.join(bad)}"


def draw(plt: Any, small: bool = False) -> Any:
    T = np.unique(np.round(np.logspace(0, 12, 60 if small else 400)))
    d = D_C + D_AUX
    h, n, b, kappa = ASSUMED["K"], PAPER["M"], PAPER["batch"], ASSUMED["kappa"]
    lam1 = (d * h * n * b * T) ** -0.25
    lam2 = kappa**0.25 / ((n * T) ** 0.25 * (d + 3) ** 1.5)
    t1, tot1, v1 = curves("heron_sfl/thm1@sum", T, {"lam": lam1})
    t2, tot2, v2 = curves("heron_sfl/thm2@proof", T, {"lam": lam2, "eta": PAPER["eta_c"] / 4, "eta_c": None})
    fig = plt.figure(figsize=(11, 5.6))
    axes = terms_grid(
        fig,
        T,
        [
            ("heron_sfl/thm1@sum: Theorem 1, (48) averaged (i.i.d.)", t1, tot1),
            ("heron_sfl/thm2@proof: Theorem 2, eq. (62) (non-i.i.d.)", t2, tot2),
        ],
        "rounds T",
        "bound on avg E||grad f||^2",
    )
    footnote(
        fig,
        f"ResNet-18 split after its second BatchNorm (d_c = {D_C:,}) with a one-layer auxiliary head on the 64x32x32 "
        f"activation (d_aux = {D_AUX:,}; d = d_c + d_aux = {d:,}), N = 5 clients, batch B = 256, client step "
        "eta_c = 1e-4 (the paper's learning rate, used with Adam in its experiments; the theorems are for "
        "zeroth-order SGD), server step from the coupling eta_s = h eta_c/(2N-1) (Thm 1) and eta_s = 4 eta/(2N-1), "
        "eta = eta_c/4 (Thm 2). Smoothing radius: mu = (d h N B T)^(-1/4) (Theorem 1's order, constant 1) and "
        "Theorem 2's condition mu <= kappa^(1/4)/((N T)^(1/4)(d+3)^(3/2)) at equality. Assumed, as the paper gives "
        "none: h = 5 local steps, L = 1, F = 2.3, sigma_c^2 = G_c^2 = G_s^2 = 1, drift bound delta = 1, effective "
        "rank kappa = 10. "
        f"Theorem 1: {v1}. Theorem 2: {v2}.",
        below=axes[1, 0],
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
