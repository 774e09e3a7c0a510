"""The house style for every figure of the project, and the planner's figures.

Every figure (CLI ``--plot``, ``paper_figs/``, notebooks) is made inside :func:`style` and written with
:func:`save`, which writes atomically (temporary file, then rename). matplotlib is imported on first use,
so importing :mod:`sfltheory` stays fast.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .atomic import atomic_path
from .errors import ParameterError

if TYPE_CHECKING:
    from .plan.compare import Row
    from .plan.cuts import CutTable
    from .plan.planner import Plan

# Colour-blind-safe cycle (Okabe & Ito, 2008), thin lines, no top/right spines, one font size.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
RC: dict[str, Any] = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
}
OPTIMUM = {"marker": "*", "s": 120, "color": "#000000", "zorder": 5}
PAPER_RULE = {"marker": "D", "s": 36, "facecolors": "none", "edgecolors": "#D55E00", "zorder": 5}
_FORMATS = (".png", ".pdf", ".svg")


def _mpl() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextlib.contextmanager
def style() -> Iterator[Any]:
    """``with style() as plt:`` -- pyplot with the house rcParams and colour cycle."""
    plt = _mpl()
    from cycler import cycler

    with plt.rc_context({**RC, "axes.prop_cycle": cycler(color=PALETTE)}):
        yield plt


def check_path(path: str | Path) -> Path:
    p = Path(path)
    if p.suffix.lower() not in _FORMATS:
        raise ParameterError("--plot", f"the file must end in {', '.join(_FORMATS)} (got {p.name})")
    if not p.parent.exists():
        raise ParameterError("--plot", f"no such directory: {p.parent}")
    return p


def save(fig: Any, path: str | Path) -> Path:
    """Write ``fig`` atomically and close it."""
    p = check_path(path)
    try:
        with atomic_path(p) as tmp:
            fig.savefig(tmp, format=p.suffix[1:])
    finally:
        _mpl().close(fig)
    return p


# ---------------------------------------------------------------------------------------------------
def plot_plan(plan: Plan, path: str | Path) -> Path:
    """Left: the objective against the searched parameter, one line per cut, optimum starred and the
    paper's rule marked. Right: the best objective at each cut."""
    check_path(path)
    obj = np.asarray(plan.curves["objective"], dtype=float)
    ylabel = {"bound": "bound", "rounds": "rounds to eps", "time": "time to eps (s)"}[plan.objective]
    with style() as plt:
        has_cuts = plan.model is not None and len(plan.cuts) > 1
        fig, axes = plt.subplots(1, 2 if has_cuts else 1, figsize=(11, 4) if has_cuts else (6.4, 4), squeeze=False)
        ax = axes[0, 0]
        colours = cut_colours(plt, len(plan.cuts))
        for i, c in enumerate(plan.cuts):
            y = np.where(np.isfinite(obj[i]), obj[i], np.nan)
            ax.plot(plan.grid, y, label=c.cut.name if c.cut else plan.result, color=colours[i])
            for rp in c.rules[:1]:
                if rp.point is not None and not rp.why_not:
                    j = int(np.argmin(np.abs(plan.grid - rp.point.value)))
                    ax.scatter([plan.grid[j]], [obj[i, j]], **PAPER_RULE)
        best = plan.best
        if best is not None and best.best is not None:
            i = plan.cuts.index(best)
            j = int(np.argmin(np.abs(plan.grid - best.best.value)))
            ax.scatter([plan.grid[j]], [obj[i, j]], label="optimum", **OPTIMUM)
        if any(c.rules for c in plan.cuts):
            ax.scatter([], [], label="paper's rule", **PAPER_RULE)
        ax.set_xscale("log" if plan.grid.size > 1 and plan.grid[-1] / plan.grid[0] > 50 else "linear")
        ax.set_yscale("log" if np.nanmin(np.where(obj > 0, obj, np.nan)) > 0 else "linear")
        ax.set_xlabel(plan.over)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{plan.result}: {ylabel} against {plan.over}")
        ax.legend(ncol=2 if len(plan.cuts) > 8 else 1, fontsize=7)
        if has_cuts:
            ax2 = axes[0, 1]
            names = [c.cut.name if c.cut else "-" for c in plan.cuts]
            vals = [c.best.bound if plan.objective == "bound" and c.best else _objective(c.best) for c in plan.cuts]
            xs = np.arange(len(names))
            ax2.plot(xs, vals, marker="o", color=PALETTE[0])
            if best is not None:
                k = plan.cuts.index(best)
                ax2.scatter([xs[k]], [vals[k]], label=f"optimum ({plan.over} = {best.best.value:g})", **OPTIMUM)  # type: ignore[union-attr]
            ax2.set_xticks(xs, names, rotation=60, ha="right", fontsize=7)
            ax2.set_yscale("log" if all(v is not None and v > 0 for v in vals) else "linear")
            ax2.set_xlabel("cut (after block)")
            ax2.set_ylabel(f"best {ylabel}")
            ax2.set_title(f"{plan.model}: best {ylabel} at each cut (over {plan.over})")
            ax2.legend()
        fig.tight_layout()
        return save(fig, path)


def cut_colours(plt: Any, n: int) -> list[Any]:
    """The palette for a few lines; for many ordered cuts, a sequential map (input side dark, output light)."""
    if n <= len(PALETTE):
        return list(PALETTE[:n])
    return [plt.cm.viridis(x) for x in np.linspace(0.0, 0.9, n)]


def _objective(ch: Any) -> float:
    if ch is None:
        return float("nan")
    return float(ch.time if ch.time is not None else ch.rounds)


def plot_compare(rows: list[Row], path: str | Path) -> Path:
    check_path(path)
    with_rounds = any(r.rounds is not None for r in rows)
    with style() as plt:
        fig, axes = plt.subplots(
            1, 2 if with_rounds else 1, figsize=(10, 4) if with_rounds else (6.4, 4), squeeze=False
        )
        names = [r.entry for r in rows]
        ax = axes[0, 0]
        ax.bar(range(len(rows)), [np.nan if r.bound is None else r.bound for r in rows], color=PALETTE[0])
        ax.set_xticks(range(len(rows)), names, rotation=30, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("bound")
        ax.set_title("bound on the same constants")
        if with_rounds:
            ax2 = axes[0, 1]
            ax2.bar(
                range(len(rows)),
                [r.rounds if r.rounds and np.isfinite(r.rounds) else np.nan for r in rows],
                color=PALETTE[1],
            )
            ax2.set_xticks(range(len(rows)), names, rotation=30, ha="right", fontsize=7)
            ax2.set_yscale("log")
            ax2.set_ylabel("rounds to eps")
            ax2.set_title("rounds to reach the accuracy")
        fig.tight_layout()
        return save(fig, path)


def plot_cuts(table: CutTable, path: str | Path) -> Path:
    check_path(path)
    with style() as plt:
        fig, ax = plt.subplots()
        xs = np.arange(len(table.cuts))
        ax.plot(xs, [c.d_c for c in table.cuts], marker="o", label="client parameters d_c")
        if all(c.activation is not None for c in table.cuts):
            ax.plot(xs, [c.activation for c in table.cuts], marker="s", label="activation values per sample")
        ax.set_xticks(xs, [c.name for c in table.cuts], rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_xlabel("cut (after block)")
        ax.set_title(f"{table.model}: d = {table.d:,}")
        ax.legend()
        fig.tight_layout()
        return save(fig, path)
