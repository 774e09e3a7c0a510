"""The largest step size MU-SplitFed's Theorem 4.3 (seed 000, eq. (10)) admits, branch by branch, against the server
steps tau, the client size d_c and the number of clients M, on the paper's AlexNet split; the background shows
which of the statement's branches binds.

The statement's two branches are solid; the conditions its proof uses (App. D.1) are dashed and the ones the
proof needs but prints nowhere (implicit) dotted. Black: the largest step the statement allows (the minimum of
its branches); grey: the largest step once every condition is required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.plan import load_blocks
from sfltheory.plotting import TERM_CYCLE, footnote, shade_runs

DATA = Path(__file__).resolve().parent / "data"
RID = "mu_splitfed/thm4.3"
STYLE = {"statement": "-", "proof": "--", "implicit": ":"}


def base() -> dict[str, float]:
    cut = load_blocks(DATA / "alexnet.json").cuts[1]  # L_c = 2, as in the paper's experiments
    return {"L": 1.0, "tau": 2.0, "d": float(cut.d), "d_c": float(cut.d_c), "M": 10.0, "eta_g": 0.3}


def draw(plt: Any, small: bool = False) -> Any:
    n = 40 if small else 300
    b = base()
    sweeps = [
        ("tau", np.unique(np.round(np.logspace(0, 7, n))), "server steps per round tau"),
        ("d_c", np.unique(np.round(np.logspace(2, np.log10(b["d"] * 0.999), n))), "client parameters d_c"),
        ("M", np.unique(np.round(np.logspace(0, 4, n))), "clients M"),
    ]
    names = [h.name for h in st.get(RID).hypotheses if h.kind == "step_size"]
    colours = dict(zip(names, TERM_CYCLE, strict=False))
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.4), sharey=False)
    for ax, (name, x, label) in zip(axes, sweeps, strict=True):
        sc = st.max_step(RID, {**b, name: x})
        for br in sc.branches:
            y = np.broadcast_to(np.asarray(br.bound, dtype=float), x.shape)
            ls = STYLE[br.source]
            ax.plot(x, y, color=colours[br.name], ls=ls, lw=1.6 if br.source == "statement" else 1.1, label=br.name)
        ax.plot(
            x, np.broadcast_to(sc.max_step, x.shape), color="#000000", lw=5, alpha=0.25, zorder=1,
            label="largest step, statement",
        )  # fmt: skip
        ax.plot(
            x, np.broadcast_to(sc.max_step_all, x.shape), color="#000000", lw=1, ls=(0, (5, 3)), zorder=4,
            label="largest step, all conditions",
        )  # fmt: skip
        shade_runs(ax, x, np.broadcast_to(sc.binding, x.shape), colours)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        fixed = ", ".join(f"{k} = {v:,.10g}" for k, v in b.items() if k not in (name, "L", "d"))
        ax.set_title(f"against {name} ({fixed})", loc="left", fontsize=8)
    axes[0].set_ylabel("largest admissible step eta (= eta_s = eta_c/tau)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=7)
    footnote(
        fig,
        f"{RID}, eta = eta_s = eta_c/tau, on AlexNet (d = {b['d']:,.0f}) cut after its 2nd block (d_c = "
        f"{b['d_c']:,.0f}) with M = 10 clients, tau = 2 and eta_g = 0.3 as in the paper's experiments, L = 1 "
        "(assumed; every branch scales as 1/L). Shading: the statement's branch that binds. At this size the "
        "statement's first branch, about 1/(240 L d_s), is far below every condition of the proof, so requiring them "
        "all changes nothing; the second branch takes over only at tau > 20 M d_s/d_c, about 3e4.",
        below=axes[0],
        width=190,
    )
    return fig


if __name__ == "__main__":
    from sfltheory.figs import main

    raise SystemExit(main(name=Path(__file__).stem))
