"""MU-SplitFed Theorem 4.3 planned on ResNet-50 for CIFAR-100 with cut_layer's settings (seed 003, Table 1: 100
clients, 300 rounds): the bound against the server steps tau at every cut, and the best bound against the cut,
with the optimum and Corollary 4.4's rule d_c = sqrt(d/tau) marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sfltheory.plotting import plan_figure

DATA = Path(__file__).resolve().parent / "data"
PARAMS = {"T": 300.0, "M": 100.0, "eta_g": 1.0}  # cut_layer Table 1: CIFAR-100, 100 clients, 300 rounds


def draw(plt: Any, small: bool = False) -> Any:
    setting = (
        "ResNet-50 (CIFAR-100 layout) with cut_layer's settings: M = 100 clients, T = 300 rounds (Table 1); "
        "eta_g = 1 (SFL-V1 has no global step). "
    )
    return plan_figure(plt, DATA / "resnet50.json", "mu_splitfed/thm4.3", PARAMS, setting, small=small)


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
