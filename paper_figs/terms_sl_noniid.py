"""Convergence of split learning on non-IID data (seed 002): split learning (Theorem 1, eq. (5)) and FedAvg with a
global step (Theorem 2, eq. (51), the paper's Table 1 comparison) against the number of rounds R, term by term.

Both at the largest local step their conditions allow (eta_g = 1), on the paper's MNIST setting of Sec. 5.2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plotting import footnote, terms_grid

PAPER_R = 1000  # Sec. 5.3: 1000 rounds on MNIST at E = 1
# Sec. 5.2: MNIST over N = 10 clients (6,000 samples each); E = 1 local epoch at the paper's batch of 10 (Sec. 5.3)
PAPER = {"M": 10.0, "K": 600.0, "eta_g": 1.0}
ASSUMED = {"L": 1.0, "F": 2.3, "sigma2": 1.0, "G2": 1.0, "B2": 1.0}  # the paper gives none


def curves(rid: str, T: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, float, str]:
    p = {**PAPER, **ASSUMED}
    sc = st.max_step(rid, p)
    ev = st.evaluate(rid, {**p, "T": T, sc.step: sc.max_step})
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T.shape) for k, v in ev.terms.items()}
    return terms, np.asarray(ev.value, dtype=float), float(sc.max_step), str(sc.binding)


def draw(plt: Any, small: bool = False) -> Any:
    T = np.unique(np.round(np.logspace(0, 8, 60 if small else 300)))
    t1, tot1, e1, b1 = curves("sl_noniid/thm1", T)
    t2, tot2, e2, b2 = curves("sl_noniid/thm2", T)
    fig = plt.figure(figsize=(11, 5.6))
    axes = terms_grid(
        fig,
        T,
        [
            (f"sl_noniid/thm1: split learning, eq. (5), eta_l = {e1:.3g}", t1, tot1),
            (f"sl_noniid/thm2: FedAvg, eq. (51), eta_l = {e2:.3g}", t2, tot2),
        ],
        "rounds R",
        "bound on avg E||grad f(x^r)||^2",
        ((PAPER_R, "R = 1000 (paper, MNIST)"),),
    )
    footnote(
        fig,
        "MNIST over N = 10 clients (Sec. 5.2), K = 600 local steps (one epoch of 6,000 samples at the paper's batch "
        f"of 10), eta_g = 1. Each at its largest local step: split learning {b1}, FedAvg {b2}: the sequential "
        "clients cost split learning a step N times smaller, so its initialisation term matches FedAvg's while its "
        "global variance is N times larger. Assumed, as the paper gives none: L = 1, F = 2.3, sigma^2 = 1, "
        "G^2 = 1, B^2 = 1.",
        below=axes[1, 0],
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
