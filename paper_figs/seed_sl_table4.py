"""SL non-IID Table 4 (seed 002, App. A) drawn: floats communicated per round by FL and by split learning
(peer-to-peer and centralized modes) against the number of clients N, the local epochs E and the cut, on
ResNet-18 / CIFAR-10 sizes (``paper_figs/data/resnet18.json``).

Solid: the printed totals (``sl_noniid/tab4.*_round``: 2En + N x_c, 2En + 2N x_c). Dashed: the per-client column
summed over the clients (:func:`sfltheory.seedtables.sl_tables.summed`: 2Enq + N x_c, ...): the printed totals
drop the smashed-layer size q (recorded on the round results).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from sfltheory.plan import load_blocks
from sfltheory.plotting import PALETTE, footnote
from sfltheory.registry import get
from sfltheory.seedtables.sl_tables import summed
from sfltheory.vocabulary import symbol

CUTS = load_blocks(Path(__file__).resolve().parent / "data" / "resnet18.json")
CUT = 3  # the cut of the N and E panels (index into CUTS.cuts)
BASE = {"M": 10.0, "E_epochs": 1.0, "n_data": 50000.0, "d": float(CUTS.d)}
LINES = (  # label, round result, client result (summed), colour
    ("FL (2N x)", "sl_noniid/tab4.fl_round", "sl_noniid/tab4.fl_client", 0),
    ("SL peer-to-peer", "sl_noniid/tab4.sl_p2p_round", "sl_noniid/tab4.sl_p2p_client", 1),
    ("SL centralized", "sl_noniid/tab4.sl_central_round", "sl_noniid/tab4.sl_central_client", 2),
)
NAMES = ("M", "E_epochs", "n_data", "d", "d_c", "q_smash")


def fn(expr: sp.Expr) -> Any:
    """``expr`` as a numpy function of :data:`NAMES`."""
    return sp.lambdify([symbol(n) for n in NAMES], expr, "numpy")


def values(expr: sp.Expr, at: dict[str, Any]) -> np.ndarray:
    """``expr`` at ``at``, broadcast to the longest array given."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in at.values()))
    return np.broadcast_to(np.asarray(fn(expr)(*[at[n] for n in NAMES]), dtype=float), shape)


def draw(plt: Any, small: bool = False) -> Any:
    cut = CUTS.cuts[CUT]
    assert cut.activation is not None  # the stored cut tables carry each cut's activation size
    at_cut = {**BASE, "d_c": float(cut.d_c), "q_smash": float(cut.activation)}
    panels = (
        ("clients N", "M", np.unique(np.round(np.logspace(0, 3, 8 if small else 40)))),
        ("local epochs E", "E_epochs", np.arange(1.0, 11.0)),
        ("cut (client-side layers)", "cut", np.arange(len(CUTS.cuts), dtype=float)),
    )
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
    for ax, (label, name, x) in zip(axes, panels, strict=True):
        if name == "cut":
            at = {**BASE, "d_c": np.array([c.d_c for c in CUTS.cuts], float),
                  "q_smash": np.array([c.activation or 0 for c in CUTS.cuts], float)}  # fmt: skip
        else:
            at = {**at_cut, name: x}
        for text, rid, cid, k in LINES:
            ax.plot(x, values(get(rid).bound_expr, at), color=PALETTE[k], label=f"{text}: Table 4 total as printed")
            if "SL" in text:
                ax.plot(x, values(summed(cid), at), color=PALETTE[k], ls="--",
                        label=f"{text}: client column summed (2Enq + ...)")  # fmt: skip
        ax.set_yscale("log")
        ax.set_xlabel(label)
        if name == "M":
            ax.set_xscale("log")
        if name == "cut":
            ax.set_xticks(x, [c.name for c in CUTS.cuts], rotation=45, ha="right", fontsize=7)
        else:
            ax.axvline(at_cut[name], color="#555555", lw=0.8, ls=":")
    axes[0].set_ylabel("floats communicated per round")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    footnote(
        fig,
        f"ResNet-18 (d = {CUTS.d:,} parameters), CIFAR-10 (n = 50,000 samples), N = {BASE['M']:g} clients, "
        f"E = {BASE['E_epochs']:g}, cut '{cut.name}' (x_c = {cut.d_c:,}, q = {cut.activation:,} floats per sample) "
        "where not varied (dotted). The printed SL totals 2En + N x_c leave out q, the size of the smashed layer "
        "(dashed: the per-client column E n_i q + E n_i q + x_c summed over the clients); with q the SL traffic is "
        "orders of magnitude above the printed totals, except at the deepest cuts where q is small.",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
