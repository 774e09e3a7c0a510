"""HERON-SFL Remark 2 (seed 001, Sec. V-A) drawn: the rounds T_eps = d/(hNB eps^2) to an eps-stationary point
against d, h, N and B, with the range where Theorem 1's step conditions hold at the count shaded.

At T_eps Theorem 1's choice eta_c = sqrt(NB/(dhT)) is NB eps/d, so each step condition eta_c <= X holds only for
eps <= X d/(NB) (:func:`sfltheory.seedtables.heron_tables.eps_ranges`); outside, the count is not Theorem 1's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from sfltheory.plotting import PALETTE, footnote
from sfltheory.registry import get
from sfltheory.seedtables.heron_tables import REMARK, eps_ranges
from sfltheory.vocabulary import symbol

BASE = {"d": 1e6, "K": 5.0, "M": 5.0, "batch": 256.0, "eps_target": 0.1, "L": 1.0}
AXES = (("d", "model size d", (1e3, 1e9)), ("K", "local steps h", (1, 1e3)), ("M", "clients N", (1, 1e3)),
        ("batch", "batch size B", (1, 1e6)))  # fmt: skip


def as_function(expr: sp.Expr) -> tuple[Any, list[str]]:
    """``expr`` (in d_c + d_aux) as a function of :data:`BASE`'s names, d standing for d_c + d_aux."""
    e = expr.subs({symbol("d_c"): symbol("d"), symbol("d_aux"): 0})
    names = sorted(BASE)
    return sp.lambdify([symbol(n) for n in names], e, "numpy"), names


def evaluate(expr: sp.Expr, at: dict[str, Any]) -> np.ndarray:
    """``expr`` at ``at`` (arrays allowed)."""
    fn, names = as_function(expr)
    return np.asarray(fn(*[at[n] for n in names]), dtype=float)


def draw(plt: Any, small: bool = False) -> Any:
    count = get(REMARK).bound_expr
    ranges = eps_ranges()
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), sharey=True)
    for ax, (name, label, (lo, hi)) in zip(axes, AXES, strict=True):
        x = np.logspace(np.log10(lo), np.log10(hi), 25 if small else 200)
        at = {**BASE, name: x}
        t = evaluate(count, at) * np.ones_like(x)
        top = np.min([evaluate(r[2], at) * np.ones_like(x) for r in ranges], axis=0)
        holds = BASE["eps_target"] <= top
        ax.plot(x, t, color=PALETTE[0], label="T_eps = d/(hNB eps^2)")
        ax.fill_between(x, 0, 1, where=holds, transform=ax.get_xaxis_transform(), color=PALETTE[2], alpha=0.18,
                        lw=0, label="Theorem 1's conditions hold at T_eps")  # fmt: skip
        ax.fill_between(x, 0, 1, where=~holds, transform=ax.get_xaxis_transform(), color=PALETTE[1], alpha=0.12,
                        lw=0, label="a condition fails: the count is not Theorem 1's")  # fmt: skip
        ax.axvline(BASE[name], color="#555555", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
    axes[0].set_ylabel("rounds T_eps (unit O-constant)")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    footnote(
        fig,
        f"Each panel varies one of d, h, N, B from d = {BASE['d']:.0e}, h = {BASE['K']:g}, N = {BASE['M']:g}, "
        f"B = {BASE['batch']:g} (dotted), at eps = {BASE['eps_target']:g}, L = 1 (assumed). Shaded green where "
        "eta_c = NB eps/d satisfies all of Theorem 1's conditions eta_c <= 1/(3Lh), 2/(NLh^2), N/(72L), i.e. "
        "eps <= min{d/(3LNBh), 2d/(LN^2Bh^2), d/(72LB)}: the speedup in N, B and h holds only up to that range "
        "(recorded on heron_sfl/remark2).",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
