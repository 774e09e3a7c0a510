"""MU-SplitFed (seed 000): Theorems 4.1 (MU-Split, one client) and 4.3 (MU-SplitFed, M clients) against the
number of rounds T, term by term, on the paper's own AlexNet split and hyperparameters.

Left: at the paper's smoothing radius lambda = 0.005 (App. F, Table 6). Right: at the radius Corollaries 4.2
and 4.4 prescribe, lambda^2 = 1/(sqrt(tau T) d^(5/2) L), which shrinks with T. The step is the largest the
theorem allows (the paper's eta_s = 0.01 breaks the step conditions by eight orders of magnitude).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plan import load_blocks
from sfltheory.plotting import footnote, terms_grid

DATA = Path(__file__).resolve().parent / "data"
PAPER_T = 500  # "500 epochs" (Table 1), one round per epoch
LAM_PAPER = 0.005  # App. F, Table 6
CONSTANTS = {"L": 1.0, "F": 2.3, "sigma_c2": 1.0, "sigma_s2": 1.0, "eps2": 0.5}  # assumed: the paper gives none


def settings() -> dict[str, float]:
    cut = load_blocks(DATA / "alexnet.json").cuts[1]  # L_c = 2: after the 2nd block (Sec. 5)
    return {**CONSTANTS, "tau": 2.0, "d": float(cut.d), "d_c": float(cut.d_c), "M": 10.0, "eta_g": 0.3}


def curves(rid: str, T: np.ndarray, lam: Any) -> tuple[dict[str, np.ndarray], np.ndarray, float, str]:
    r = st.get(rid)
    p = {k: v for k, v in settings().items() if k in r.parameters() or k == "d"}
    sc = st.max_step(rid, p)
    ev = st.evaluate(rid, {**p, "T": T, "eta": sc.max_step, "lam": lam})
    terms = {k: np.broadcast_to(np.asarray(v, dtype=float), T.shape) for k, v in ev.terms.items()}
    return terms, np.asarray(ev.value, dtype=float), float(sc.max_step), str(sc.binding)


def draw(plt: Any, small: bool = False) -> Any:
    T = np.unique(np.round(np.logspace(1, 16, 60 if small else 400)))
    s = settings()
    lam_rule = np.sqrt(1.0 / (np.sqrt(s["tau"] * T) * s["d"] ** 2.5 * s["L"]))
    fig = plt.figure(figsize=(11, 10.5))
    rows = [
        ("mu_splitfed/thm4.1", "Theorem 4.1 (MU-Split, one client), eq. (8)"),
        ("mu_splitfed/thm4.3", "Theorem 4.3 (MU-SplitFed, M clients), eq. (10)"),
    ]
    steps = []
    axes = None
    for sub, (rid, title) in zip(fig.subfigures(2, 1, hspace=0.04), rows, strict=True):
        sub.suptitle(f"{rid}: {title}", x=0.02, ha="left", fontsize=10)
        panels = []
        for lam, text in [
            (LAM_PAPER, "the paper's lambda = 0.005"),
            (lam_rule, "lambda^2 = 1/(sqrt(tau T) d^(5/2) L)"),
        ]:
            terms, total, eta, binding = curves(rid, T, lam)
            panels.append((f"at {text}", terms, total))
        axes = terms_grid(sub, T, panels, "rounds T", "bound on avg E||grad f||^2", ((PAPER_T, "T = 500 (paper)"),))
        steps.append(f"{rid}: eta = {eta:.3g} ({binding})")
    footnote(
        fig,
        f"AlexNet (d = {s['d']:,.0f}) cut after its 2nd block, features.3 (d_c = {s['d_c']:,.0f}), as the paper's "
        f"L_c = 2; tau = 2 (its best, Table 1), M = 10 clients, eta_g = 0.3 (Table 6). Step: the largest each theorem "
        f"allows, {'; '.join(steps)}; the paper's eta_s = 0.01, eta_c = 0.005 break those conditions and the "
        "coupling eta_c = tau eta_s. Assumed, as the paper gives none: L = 1, F = 2.3 (ln 10, cross-entropy of "
        "10 classes at a uniform start), sigma_c^2 = sigma_s^2 = 1, eps^2 = 0.5. Dotted: T = 500 rounds (the "
        "paper's 500 epochs). At lambda = 0.005 the server's zeroth-order bias L^2 lambda^2 d_s^3 ~ 5e18 swamps "
        "every other term at every T.",
        below=None if axes is None else axes[1, 0],
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
