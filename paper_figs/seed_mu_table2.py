"""MU-SplitFed Table 2 (seed 000, App. A) drawn: the SplitServer communication cost and the rounds to accuracy
eps against tau, one line per row of the table, regenerated from the encodings (``mu_splitfed/tab2.*``).

Left: the printed cost column (up to constants, unit constants). Right: the rounds to eps each row's own rate
gives (the rate set to eps and solved for T, :func:`sfltheory.seedtables.mu_table2.rounds_from_rate`). SFL-V2's
dashed line is the cost its own rate gives (rounds times K exchanges): 1/(M eps^2), K times below the printed
K/(M eps^2) -- the discrepancy recorded on ``tab2.sfl_v2``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from sfltheory.evaluate import bound_value
from sfltheory.plotting import PALETTE, footnote
from sfltheory.registry import get
from sfltheory.seedtables.mu_table2 import rounds_from_rate
from sfltheory.seedtables.printed import read_printed
from sfltheory.vocabulary import symbol

SET = {"d": 1e4, "M": 10.0, "K": 5.0, "eps_target": 0.1}
ROWS = (  # result id, label, SplitServer exchanges per round
    ("mu_splitfed/tab2.sfl_v1", "SFL-V1 [2]", SET["K"]),
    ("mu_splitfed/tab2.sfl_v2", "SFL-V2 [45]", SET["K"]),
    ("mu_splitfed/tab2.mu_tau1", "MU-SplitFed (tau = 1)", 1.0),
    ("mu_splitfed/tab2.mu", "MU-SplitFed (tau > 1)", 1.0),
    ("mu_splitfed/tab2.mu_taud", "MU-SplitFed (tau -> d)", 1.0),
)


def rounds(rid: str) -> float:
    """Rounds to eps from the row's printed rate, at :data:`SET` (tau-free rows)."""
    r = get(rid)
    assert r.rate is not None
    t = rounds_from_rate(read_printed(r.rate, r))
    return float(t.subs({s: SET[s.name] for s in t.free_symbols if s.name in SET}))


def draw(plt: Any, small: bool = False) -> Any:
    tau = np.unique(np.round(np.logspace(0, np.log10(SET["d"]), 12 if small else 60)))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    for i, (rid, label, per_round) in enumerate(ROWS):
        c = PALETTE[i]
        if rid.endswith("tab2.mu"):  # the only row that varies with tau (1 < tau <= d)
            left.plot(tau, np.asarray(bound_value(rid, {**SET, "tau": tau}), dtype=float), color=c, label=label)
            t_rate = read_printed(get(rid).rate or "", get(rid))
            fn = sp.lambdify(symbol("tau"), rounds_from_rate(t_rate).subs({symbol(k): v for k, v in SET.items()}))
            right.plot(tau, np.asarray(fn(tau), dtype=float) * np.ones_like(tau), color=c, label=label)
            continue
        given = {k: v for k, v in SET.items() if k in {s.name for s in get(rid).bound_expr.free_symbols}}
        cost = float(np.asarray(bound_value(rid, given)))
        at = tau[-1:] if rid.endswith("taud") else tau[:1] if rid.endswith("tau1") else tau
        style = {"marker": "o", "ms": 6, "ls": "none"} if len(at) == 1 else {}
        left.plot(at, np.full(at.shape, cost), color=c, label=label, **style)
        right.plot(at, np.full(at.shape, rounds(rid)), color=c, label=label, **style)
        if rid.endswith("sfl_v2"):
            left.plot(tau, np.full(tau.shape, rounds(rid) * per_round), color=c, ls="--", lw=1,
                      label="SFL-V2: cost its own rate gives (recorded discrepancy)")  # fmt: skip
    for ax, what in ((left, "SplitServer communication cost to eps"), (right, "communication rounds to eps")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("server steps per round tau")
        ax.set_ylabel(what)
    left.set_title("Table 2: SplitServer Comm. Cost (as printed)", loc="left", fontsize=9)
    right.set_title("Rounds to eps from each row's convergence rate", loc="left", fontsize=9)
    handles, labels = left.get_legend_handles_labels()
    right.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    footnote(
        fig,
        f"Unit O-constants; d = {SET['d']:.0e}, M = {SET['M']:g} clients, K = {SET['K']:g} local updates (SFL), "
        f"eps = {SET['eps_target']:g}. SFL rows do not depend on tau (lines); MU-SplitFed tau = 1 and tau -> d are "
        "the single points at tau = 1 and tau = d of the tau > 1 line. Cost = rounds x exchanges per round (K for "
        "SFL-V1/V2, 1 for MU-SplitFed, App. A.2).",
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
