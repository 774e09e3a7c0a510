"""Split learning on non-IID data (seed 002, Sec. 4.2): the bound against the local steps K and against the global
learning rate eta_g, as the paper discusses them ("Effect of K", "Effect of eta_g").

Left: Theorem 1's eq. (5) (``sl_noniid/thm1``) against K at a fixed local step eta_l and a fixed number of rounds R:
the initialisation error 4F/(NK eta_g eta_l R) falls with K and the client drift 12N^2K^2 eta_l^2 L^2 G^2 grows, so an
optimal K exists (starred), smaller for larger heterogeneity G^2. Right: Corollary 1's explicit form
(``sl_noniid/cor1@explicit``, eta_g eta_l = 1/(L sqrt(T))) against eta_g from 1 to N: the drift terms fall as
1/eta_g^2 (Sec. 4.2 compares eta_g = 1 with eta_g = N, dotted). Hollow: a condition of the statement fails there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.evaluate import evaluate
from sfltheory.plotting import PALETTE, footnote

BASE = {"F": 1.0, "L": 1.0, "M": 10.0, "sigma2": 1.0, "B2": 1.0}
LEFT = {"T": 100.0, "eta_g": 1.0, "eta_l": 1e-4}
RIGHT_T = 1000.0


def points(ax: Any, x: np.ndarray, y: np.ndarray, ok: np.ndarray, colour: str, label: str) -> None:
    """A line with filled markers where the statement's conditions hold and hollow ones where they fail."""
    ax.plot(x, y, color=colour, label=label)
    ax.scatter(x[ok], y[ok], color=colour, s=10, zorder=3)
    ax.scatter(x[~ok], y[~ok], facecolors="white", edgecolors=colour, s=10, zorder=3)


def draw(plt: Any, small: bool = False) -> Any:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    k = np.unique(np.round(np.logspace(0, 3, 16 if small else 60)))
    for i, g2 in enumerate((0.1, 1.0, 10.0)):
        e = evaluate("sl_noniid/thm1", {**BASE, **LEFT, "G2": g2, "K": k})
        y, ok = np.asarray(e.value, float), np.asarray(e.statement_holds, bool)
        points(left, k, y, ok, PALETTE[i], f"G^2 = {g2:g}")
        j = int(np.argmin(np.where(ok, y, np.inf)))
        left.scatter([k[j]], [y[j]], marker="*", s=120, color="black", zorder=4)
    left.scatter([], [], marker="*", s=80, color="black", label="optimal K (conditions hold)")
    left.set_xlabel("local steps K")
    left.set_title("Theorem 1, eq. (5), against K (eta_g = 1, fixed eta_l and R)", loc="left", fontsize=9)
    eta_g = np.logspace(0, np.log10(BASE["M"]), 10 if small else 40)
    for i, kk in enumerate((1.0, 10.0, 100.0)):
        e = evaluate("sl_noniid/cor1@explicit", {**BASE, "G2": 1.0, "K": kk, "T": RIGHT_T, "eta_g": eta_g})
        points(right, eta_g, np.asarray(e.value, float), np.asarray(e.statement_holds, bool), PALETTE[i], f"K = {kk:g}")
    for v, what in ((1.0, "eta_g = 1"), (BASE["M"], "eta_g = N")):
        right.axvline(v, color="#555555", lw=0.8, ls=":")
        right.annotate(what, (v, 1.0), xycoords=("data", "axes fraction"), fontsize=7, ha="center", va="bottom")
    right.set_xlabel("global learning rate eta_g")
    right.set_title("Corollary 1 (explicit) against eta_g (eta_g eta_l = 1/(L sqrt(T)))", loc="left", fontsize=9,
                    pad=14)  # fmt: skip
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("bound on E||grad f||^2")
        ax.legend(fontsize=7)
    footnote(
        fig,
        f"Assumed: F = L = sigma^2 = B^2 = 1; N = {BASE['M']:g} clients. Left: R = {LEFT['T']:g} rounds, "
        f"eta_l = {LEFT['eta_l']:g}; hollow where eta_l > 1/(2NKL sqrt(2B^2+1)), i.e. K too large for that step. "
        f"Right: G^2 = 1, R = {RIGHT_T:g}; hollow where Corollary 1's 'sufficiently large T' "
        "(NKR >= 4N^2K^2 max{(2B^2+1)/eta_g^2, 1}) fails.",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
