"""Plotting helpers the trend checks' figures share (in the house style of :mod:`sfltheory.plotting`): plain tick
labels on a short log axis, a log2 axis with one tick per grid value, and the measured-vs-predicted panel of the
two sweeps."""

from __future__ import annotations

from typing import Any

import numpy as np

from sfltheory.plotting import OPTIMUM, PALETTE

from .record import TrendCheck
from .verdicts import tied_with_best


def plain_log_ticks(axis: Any) -> None:
    """Plain numbers (0.3, 1, 20) on a log axis spanning less than about two decades, where matplotlib would print
    only one decade label or 3 x 10^0."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    lo, hi = axis.get_view_interval()
    if lo > 0 and hi / lo < 100:
        subs = tuple(float(k) for k in range(1, 10)) if hi / lo < 4 else (1.0, 2.0, 3.0, 5.0)
        axis.set_major_locator(LogLocator(subs=subs))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}"))
        axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def grid_axis(ax: Any, x: np.ndarray, label: str) -> None:
    """A log2 x axis with one tick per grid value."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{v:g}" for v in x])
    ax.minorticks_off()
    ax.set_xlabel(label)


def sweep_panel(
    ax: Any, c: TrendCheck, mk: str, pk: str, jp: int | None, *, ylabel: str, blabel: str, title: str
) -> list[Any]:
    """Measured (left axis, mean and 2 SE, the best starred, ties ringed) and predicted (right axis, the best as a
    diamond) against the grid; returns the legend handles."""

    x, m, se, p = c.x, c.measured[mk], c.measured_se.get(mk), c.predicted[pk]
    h1 = ax.errorbar(x, m, yerr=None if se is None else 2 * se, color=PALETTE[0], marker="o", capsize=3,
                     label="measured (mean over seeds, 2 SE)")  # fmt: skip
    tied = tied_with_best(m, se)
    handles = [h1]
    if len(tied) > 1:
        handles.append(ax.scatter(x[tied], m[tied], s=90, facecolors="none", edgecolors=PALETTE[0], zorder=4,
                                  label="within 2 SE of the measured best"))  # fmt: skip
    jm = int(np.nanargmin(m))
    handles.append(ax.scatter([x[jm]], [m[jm]], label="measured best", **OPTIMUM))
    ax.set_ylabel(ylabel, color=PALETTE[0])
    ax.tick_params(axis="y", colors=PALETTE[0])
    grid_axis(ax, x, c.x_label)
    ax.set_title(title, loc="left", fontsize=9)
    ax2 = ax.twinx()
    ax2.spines["right"].set_visible(True)
    ax2.grid(False)
    handles.append(ax2.plot(x, p, color=PALETTE[1], ls="--", marker="s", label=f"predicted: {blabel}")[0])
    if jp is not None:
        handles.append(ax2.scatter([x[jp]], [p[jp]], marker="D", s=70, facecolors="none", edgecolors=PALETTE[1],
                                   linewidths=1.6, zorder=5, label="predicted best"))  # fmt: skip
    if np.nanmax(p) / np.nanmin(p) > 3:
        ax2.set_yscale("log")
        plain_log_ticks(ax2.yaxis)
    ax2.set_ylabel(f"predicted: {blabel}", color=PALETTE[1])
    ax2.tick_params(axis="y", colors=PALETTE[1])
    return handles


__all__ = ["grid_axis", "plain_log_ticks", "sweep_panel"]
