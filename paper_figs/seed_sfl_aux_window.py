"""SplitFed with auxiliary networks (seed 004): the bounds against the window l (the server updates every l client
steps), client side (Theorem 1, ``sfl_aux/thm1``) and server side (Theorem 3, ``sfl_aux/thm3``).

Left: Theorem 1 at the largest step its statement allows for each l, mu_L = 1/(l L K 2^{1.15 l + 1.85}); at l = 1
the proof's Gamma lambda_2 < 1 fails and the bound (which divides by 1 - Gamma lambda_2) is void (crosses). Right:
Theorem 3 at the proof's step mu = 1/(2L(2m+1)): its initialisation term 2Fl/(T mu (2m-3)) grows linearly in l.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.evaluate import evaluate
from sfltheory.plotting import PALETTE, footnote

BASE = {"F": 1.0, "L": 1.0, "eps2": 1.0, "sigma2": 1.0}
K = 5.0
M = 10.0


def draw(plt: Any, small: bool = False) -> Any:
    ell = np.arange(1.0, 9.0 if small else 13.0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    step = 1.0 / (ell * BASE["L"] * K * 2 ** (1.15 * ell + 1.85))
    for i, t in enumerate((1e2, 1e4, 1e6)):
        e = evaluate("sfl_aux/thm1", {**BASE, "K": K, "T": t, "eta_l": step, "l": ell})
        y, ok = np.asarray(e.value, float), np.asarray(e.applies, bool) & (np.asarray(e.value, float) > 0)
        left.plot(ell[ok], y[ok], color=PALETTE[i], marker="o", ms=3, label=f"T = {t:.0e}")
        if np.any(~ok):  # no value to draw: a cross at the foot of the axes
            left.scatter(ell[~ok], np.full(int(np.sum(~ok)), 0.03), marker="x", color=PALETTE[i], zorder=3,
                         transform=left.get_xaxis_transform(), clip_on=False)  # fmt: skip
    left.scatter([], [], marker="x", color="#555555", label="void: Gamma lambda_2 >= 1 (no bound)")
    left.set_yscale("log")
    left.set_title("Theorem 1 (client side) at mu_L = 1/(lLK 2^{1.15l+1.85})", loc="left", fontsize=9)
    left.set_ylabel("bound on min_t E||grad F^c||^2")
    mu = 1.0 / (2 * BASE["L"] * (2 * M + 1))
    for i, t in enumerate((1e1, 1e2, 1e3)):
        e = evaluate("sfl_aux/thm3", {**BASE, "M": M, "T": t, "eta": mu, "l": ell})
        ok = np.asarray(e.applies, bool) * np.ones_like(ell, dtype=bool)
        right.plot(ell, np.asarray(e.value, float) * np.ones_like(ell), color=PALETTE[i], marker="o", ms=3,
                   label=f"T = {t:.0e}" + ("" if ok.all() else " (a condition fails)"))  # fmt: skip
    right.set_title("Theorem 3 (server side) at mu = 1/(2L(2m+1))", loc="left", fontsize=9)
    right.set_ylabel("bound on min_t E||grad F^s||^2")
    for ax in (left, right):
        ax.set_xlabel("window l (client steps per server update)")
        ax.set_xlim(0.5, ell[-1] + 0.5)
        ax.legend(fontsize=7)
    footnote(
        fig,
        f"Assumed: F = L = sigma^2 = eps^2 = 1 (sigma_L^2, sigma_G^2 in the paper); K = {K:g} local steps, "
        f"m = {M:g} clients. Left: the statement's largest step shrinks like 2^(-1.15 l)/l, so the bound's 1/(mu_L T) "
        "term grows fast with l (for large T an intermediate l gives the smallest bound); at l = 1 the step "
        "makes Gamma lambda_2 >= 1 and the bound is void (recorded on "
        "sfl_aux/thm1). Right: the server-side bound grows linearly in l through 2Fl/(T mu (2m-3)).",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
