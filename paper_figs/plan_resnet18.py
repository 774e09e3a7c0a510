"""MU-SplitFed Theorem 4.3 planned on ResNet-18 for CIFAR-10 with cut_layer's settings (seed 003, Table 1: 100
clients, 200 rounds): the bound against the server steps tau at every cut, and the best bound against the cut,
with the optimum and Corollary 4.4's rule d_c = sqrt(d/tau) marked.

cut_layer's own Proposition 1 does not depend on the cut, so the cut-dependent theorem of MU-SplitFed is planned
on the models and client counts cut_layer uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sfltheory.plotting import plan_figure

DATA = Path(__file__).resolve().parent / "data"
PARAMS = {"T": 200.0, "M": 100.0, "eta_g": 1.0}  # cut_layer Table 1: CIFAR-10, 100 clients, 200 rounds


def draw(plt: Any, small: bool = False) -> Any:
    setting = (
        "ResNet-18 (CIFAR-10 layout) with cut_layer's settings: M = 100 clients, T = 200 rounds (Table 1); "
        "eta_g = 1 (SFL-V1 has no global step). cut_layer's Proposition 1 does not depend on the cut, so the "
        "cut-dependent Theorem 4.3 of MU-SplitFed is planned on cut_layer's model and clients. "
    )
    return plan_figure(plt, DATA / "resnet18.json", "mu_splitfed/thm4.3", PARAMS, setting, small=small)


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
