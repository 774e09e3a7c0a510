"""MU-SplitFed Theorem 4.3 planned on AlexNet, the model of MU-SplitFed's experiments (seed 000, Sec. 5): the
bound against the server steps tau at every cut, and the best bound against the cut, with the optimum and
Corollary 4.4's rule d_c = sqrt(d/tau) marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sfltheory.plotting import plan_figure

DATA = Path(__file__).resolve().parent / "data"
PARAMS = {"T": 500.0, "M": 10.0, "eta_g": 0.3}  # Sec. 5 and App. F: 500 epochs, 10 clients, eta_g = 0.3


def draw(plt: Any, small: bool = False) -> Any:
    setting = (
        "AlexNet as in MU-SplitFed: T = 500 rounds, M = 10 clients, eta_g = 0.3 (App. F, Table 6); the paper ran "
        "tau = 1..4 and found tau = 2 best (dotted). "
    )
    return plan_figure(
        plt,
        DATA / "alexnet.json",
        "mu_splitfed/thm4.3",
        PARAMS,
        setting,
        small=small,
        marks=((2.0, "tau = 2 (paper's best)"),),
    )


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
