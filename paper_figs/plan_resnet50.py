"""MU-SplitFed Theorem 4.3 planned on ResNet-50 for CIFAR-100 with cut_layer's settings (seed 003, Table 1: 100
clients, 300 rounds): the bound against the server steps tau at every cut, and the best bound against the cut,
with the optimum and Corollary 4.4's rule d_c = sqrt(d/tau) marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.plan import load_blocks, plan
from sfltheory.plotting import footnote, plan_panels

DATA = Path(__file__).resolve().parent / "data"
RID = "mu_splitfed/thm4.3"
MODEL = "resnet50"
PARAMS = {"T": 300.0, "M": 100.0, "eta_g": 1.0}  # cut_layer Table 1: CIFAR-100, 100 clients, 300 rounds
ASSUMED = {"L": 1.0, "F": 2.3, "sigma_c2": 1.0, "sigma_s2": 1.0, "eps2": 0.5, "lam": 1e-10}


def draw(plt: Any, small: bool = False) -> Any:
    cuts = load_blocks(DATA / f"{MODEL}.json")
    grid = np.unique(np.round(np.logspace(0, 3, 40))) if small else None  # default: tau = 1..1000
    p = plan(RID, {**PARAMS, **ASSUMED}, cuts=cuts, grid=grid)
    fig = plt.figure(figsize=(14, 4.8))
    ax, _ = plan_panels(fig, p)
    footnote(
        fig,
        "ResNet-50 (CIFAR-100 layout) with cut_layer's settings: M = 100 clients, T = 300 rounds (Table 1); "
        "eta_g = 1 (SFL-V1 has no global step). "
        "Step: the largest Theorem 4.3 allows at each (cut, tau); at that step the bound falls as tau grows (flat "
        "once the d_c branch binds), so the optimum sits at the end of the planner's range tau = 1..1000. "
        "Assumed: L = 1, F = 2.3, "
        "sigma_c^2 = sigma_s^2 = 1, eps^2 = 0.5, and lambda = 1e-10 so that the zeroth-order bias L^2 lambda^2 d_s^3 "
        "stays out of the way (at MU-SplitFed's lambda = 0.005 it is 1e18 and flat in tau: see terms_mu_splitfed). "
        "Planner's notes: " + " ".join(n.rstrip(".") + "." for n in p.notes),
        below=ax,
        width=190,
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
