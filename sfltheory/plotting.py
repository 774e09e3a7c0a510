"""The house style for every figure of the project, and the planner's figures.

Every figure (CLI ``--plot``, ``paper_figs/``, notebooks) is made inside :func:`style` and written with
:func:`save`, which writes atomically (temporary file, then rename). matplotlib is imported on first use,
so importing :mod:`sfltheory` stays fast.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import atomic_path
from .outputs import check_file, keep
from .plan import load_blocks
from .plan import plan as plan_of
from .plan.choices import d as d_sym
from .plan.choices import tau as tau_sym
from .plan.compare import Row
from .plan.cuts import CutTable
from .plan.records import Plan

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
    import sys

    import matplotlib

    # Files need no display: Agg everywhere, except inside a Jupyter kernel, whose inline backend shows figures.
    if "ipykernel" not in sys.modules:
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


def check_path(path: str | Path, *, name: str = "path") -> Path:
    """``path`` as a figure is written: a .png, .pdf or .svg file in a writable folder (:func:`check_file`); an
    error names ``name`` (the Python parameter; the CLI passes its option, ``--plot``)."""
    return check_file(name, path, suffixes=_FORMATS)


def save(fig: Any, path: str | Path, *, name: str = "path") -> Path:
    """Write ``fig`` atomically and close it; a write that fails keeps the figure in a temp file named in the
    error (:func:`sfltheory.outputs.keep`), which names ``name``."""
    p = check_path(path, name=name)

    def write(q: Path) -> Path:
        with atomic_path(q) as tmp:
            fig.savefig(tmp, format=p.suffix[1:])
        return q

    try:
        return keep(name, p, write)
    finally:
        _mpl().close(fig)


# ---------------------------------------------------------------------------------------------------
def plot_plan(plan: Plan, path: str | Path, *, name: str = "path") -> Path:
    """Left: the objective against the searched parameter, one line per cut, optimum starred and the
    paper's rule marked. Right: the best objective at each cut."""
    check_path(path)
    obj = np.asarray(plan.curves["objective"], dtype=float)
    ylabel = {"bound": "bound", "rounds": "rounds to eps", "time": "time to eps (s)"}[plan.objective]
    with style() as plt:
        has_cuts = plan.model is not None and len(plan.cuts) > 1
        fig, axes = plt.subplots(1, 2 if has_cuts else 1, figsize=(11, 4) if has_cuts else (6.4, 4), squeeze=False)
        ax = axes[0, 0]
        looks = cut_looks(plt, len(plan.cuts), plan.grid.size)
        for i, c in enumerate(plan.cuts):
            y = np.where(np.isfinite(obj[i]), obj[i], np.nan)
            ax.plot(plan.grid, y, label=c.cut.label if c.cut else plan.result, **looks[i])
            for rp in c.rules[:1]:
                if rp.point is not None and not rp.why_not:
                    j = int(np.argmin(np.abs(plan.grid - rp.point.value)))
                    ax.scatter([plan.grid[j]], [obj[i, j]], **PAPER_RULE)
        best = plan.best
        if best is not None and best.best is not None:
            i = plan.cuts.index(best)
            j = int(np.argmin(np.abs(plan.grid - best.best.value)))
            ax.scatter([plan.grid[j]], [obj[i, j]], label="optimum", **OPTIMUM)
            if plan.grid.size > 1 and j in (0, plan.grid.size - 1):  # no interior optimum in the grid searched
                # in a boxed corner, not beside the point: the lines converge there and would cross the words
                ax.text(0.02 if j else 0.98, 0.03, f"optimum at the grid's edge ({plan.over} = {plan.grid[j]:g}): "
                        "widen --grid", transform=ax.transAxes, ha="left" if j else "right", va="bottom", fontsize=7,
                        color="#D55E00", bbox={"facecolor": "white", "edgecolor": "#D55E00", "alpha": 0.9})  # fmt: skip
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
            names = [c.cut.label if c.cut else "-" for c in plan.cuts]
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
        fig.text(0.01, 0.005, plan_caption(plan), fontsize=7, ha="left", va="bottom", wrap=True)
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        return save(fig, path, name=name)


def plan_caption(plan: Plan) -> str:
    """The constants a plan figure assumes: the given values, and those measured at each cut."""
    given = ", ".join(f"{k} = {np.asarray(v).item():g}" if np.ndim(v) == 0 else f"{k} = {np.asarray(v).tolist()}"
                      for k, v in plan.params.items())  # fmt: skip
    per_cut = "; per cut: " + ", ".join(plan.per_cut) if plan.per_cut else ""
    return f"assumed constants: {given or 'none given'}{per_cut}"


def cut_colours(plt: Any, n: int) -> list[Any]:
    """The palette for a few lines; for many ordered cuts, a sequential map (input side dark, output light)."""
    if n <= len(PALETTE):
        return list(PALETTE[:n])
    return [plt.cm.viridis(x) for x in np.linspace(0.0, 0.9, n)]


LINE_STYLES = ("-", "--", ":", "-.")
CUT_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "*")


def cut_looks(plt: Any, n: int, points: int) -> list[dict[str, Any]]:
    """One look per cut line, each different in colour, line style and marker (markers evenly spaced along the
    drawn line, about 8 per line, offset per line so they do not sit on top of each other)."""
    colours = list(PALETTE[:n]) if n <= len(PALETTE) else [plt.cm.tab10(i % 10) for i in range(n)]

    def every(i: int) -> tuple[float, float] | None:  # fractions of the drawn line's length; every point if few
        return (0.02 + 0.1 * i / max(n, 1), 0.1) if points > 8 else None

    return [{"color": colours[i], "ls": LINE_STYLES[i % len(LINE_STYLES)], "marker": CUT_MARKERS[i % len(CUT_MARKERS)],
             "markevery": every(i), "markersize": 4} for i in range(n)]  # fmt: skip


def _objective(ch: Any) -> float:
    if ch is None:
        return float("nan")
    return float(ch.time if ch.time is not None else ch.rounds)


def plot_compare(rows: list[Row], path: str | Path, *, name: str = "path") -> Path:
    """Bar charts of compared rows (:func:`sfltheory.plan.compare.compare`): the bound of each entry on a log
    scale and, where rounds to eps were computed, the rounds beside it; written atomically to ``path``, returned."""
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
        return save(fig, path, name=name)


def plot_cuts(table: CutTable, path: str | Path, *, name: str = "path") -> Path:
    """A model's cut table: the client's parameter count d_c and, where known, the activation values per sample,
    cut by cut (log scale); written atomically to ``path``, returned."""
    check_path(path)
    with style() as plt:
        fig, ax = plt.subplots()
        xs = np.arange(len(table.cuts))
        ax.plot(xs, [c.d_c for c in table.cuts], marker="o", label="client parameters d_c")
        if all(c.activation is not None for c in table.cuts):
            ax.plot(xs, [c.activation for c in table.cuts], marker="s", label="activation values per sample")
        ax.set_xticks(xs, [c.label for c in table.cuts], rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_xlabel("cut (after block)")
        ax.set_title(f"{table.model}: d = {table.d:,}")
        ax.legend()
        fig.tight_layout()
        return save(fig, path, name=name)


# ---------------------------------------------------------------------------------------------------
# Building blocks of the paper figures (paper_figs/, run by ``sfltheory figs``); notebooks may use them too.
FIGURE_FORMATS = (".png", ".pdf")
SHADE_ALPHA = 0.13  # background bands (binding branch, dominating term)
# terms of a bound: the palette without its yellow (unreadable as a thin line) and black (the total), then more
TERM_CYCLE = (
    *(c for c in PALETTE if c not in ("#F0E442", "#000000")),
    "#8C564B",
    "#7F7F7F",
    "#9467BD",
    "#BCBD22",
    "#1B3A6B",
    "#F4A6A6",
)


def save_formats(
    fig: Any, stem: str | Path, formats: tuple[str, ...] = FIGURE_FORMATS, *, name: str = "out"
) -> list[Path]:
    """Write ``fig`` as ``stem.png``, ``stem.pdf``, ... (each atomically), then close it; an error names ``name``,
    and a write that fails keeps that file in a fallback (:func:`sfltheory.outputs.keep`)."""
    stem = Path(stem)
    out = []
    try:
        for suffix in formats:
            p = check_path(stem.with_name(stem.name + suffix), name=name)

            def write(q: Path, fmt: str = suffix[1:]) -> Path:
                with atomic_path(q) as tmp:
                    fig.savefig(tmp, format=fmt)
                return q

            out.append(keep(name, p, write))  # a full disk keeps the figure in a fallback named in the error
    finally:
        _mpl().close(fig)
    return out


def footnote(fig: Any, text: str, width: int = 150, below: Any = None, drop: float | None = None) -> None:
    """A caption under the figure's lowest axes (or ``below``), wrapped to ``width`` characters; paragraphs split
    on newlines, ``drop`` points below the axes (default: clear of tick labels and the x label). ``savefig.bbox =
    tight`` keeps it in the file.

    Say here what a reader needs to read the figure right: which constants are assumed, which step size is used.
    """
    import textwrap

    wrapped = "\n".join(textwrap.fill(par, width) for par in text.split("\n"))
    axes = [a for a in fig.get_axes() if a.get_visible() and a.axison]
    if below is None and not axes:
        fig.text(0.01, 0.0, wrapped, ha="left", va="top", fontsize=7, color="#333333")
        return
    ax = below if below is not None else min(axes, key=lambda a: a.get_position().y0)
    if drop is None:
        drop = 26 + (14 if ax.get_xlabel() else 0)
    ax.annotate(
        wrapped,
        xy=(0.01, 0.0),
        xycoords=("figure fraction", "axes fraction"),
        xytext=(0, -drop),
        textcoords="offset points",
        ha="left",
        va="top",
        fontsize=7,
        color="#333333",
        annotation_clip=False,
    )


def term_colours(names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """One colour per term; 'initialisation' is always the first palette colour."""
    ordered = sorted(names, key=lambda n: (n != "initialisation", list(names).index(n)))
    return {n: TERM_CYCLE[i % len(TERM_CYCLE)] for i, n in enumerate(ordered)}


def plot_terms(
    ax: Any, x: np.ndarray, terms: dict[str, np.ndarray], total: np.ndarray | None = None, colours: Any = None
) -> None:
    """Each term of a bound as a line (log-log), and the total as a thick black line."""
    colours = colours or term_colours(list(terms))
    for name, v in terms.items():
        v = np.broadcast_to(np.asarray(v, dtype=float), x.shape)
        if np.any(v > 0):
            ax.plot(x, np.where(v > 0, v, np.nan), label=name, color=colours[name])
    if total is not None:
        ax.plot(x, np.broadcast_to(total, x.shape), color="#000000", lw=2.4, alpha=0.55, label="bound (sum)", zorder=1)
    ax.set_xscale("log")
    ax.set_yscale("log")


def plot_shares(ax: Any, x: np.ndarray, terms: dict[str, np.ndarray], colours: Any = None) -> None:
    """Each term's share of the bound, stacked to 1 (linear y): which term dominates where."""
    colours = colours or term_colours(list(terms))
    vals = np.stack([np.broadcast_to(np.clip(np.asarray(v, dtype=float), 0, None), x.shape) for v in terms.values()])
    total = vals.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(total > 0, vals / total, 0.0)
    ax.stackplot(x, shares, colors=[colours[n] for n in terms], alpha=0.85, labels=list(terms))
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlim(x[0], x[-1])
    ax.set_ylabel("share of the bound")


def runs(labels: Any) -> list[tuple[int, int, str]]:
    """Contiguous runs ``(start, stop, label)`` (stop exclusive) of a 1-d sequence of labels."""
    lab = [str(v) for v in np.ravel(labels)]
    out: list[tuple[int, int, str]] = []
    start = 0
    for i in range(1, len(lab) + 1):
        if i == len(lab) or lab[i] != lab[start]:
            out.append((start, i, lab[start]))
            start = i
    return out


def shade_runs(ax: Any, x: np.ndarray, labels: Any, colours: dict[str, Any], log: bool = True) -> None:
    """Shade the background of each stretch of ``x`` by its label (e.g. the binding step-size branch).

    Band edges sit halfway between neighbouring grid points (geometrically on a log axis)."""
    x = np.asarray(x, dtype=float)
    mid = np.sqrt(x[1:] * x[:-1]) if log else (x[1:] + x[:-1]) / 2
    edges = np.concatenate([[x[0]], mid, [x[-1]]])
    for a, b, lab in runs(labels):
        if lab in colours:
            ax.axvspan(edges[a], edges[b], color=colours[lab], alpha=SHADE_ALPHA, lw=0, zorder=0)


def terms_grid(
    fig: Any,
    x: np.ndarray,
    panels: list[tuple[str, dict[str, np.ndarray], np.ndarray]],
    xlabel: str,
    ylabel: str = "bound",
    marks: tuple[tuple[float, str] | tuple[float, str, int], ...] = (),
    colours: Any = None,
) -> Any:
    """Side by side, one column per ``(title, terms, total)``: the terms and their sum against ``x`` (log-log) over
    each term's share of the sum. ``marks``: vertical dotted lines ``(x, label)`` (e.g. the paper's own T), named
    in the legend, in every column or, as ``(x, label, column)``, in one. Returns the (2, n) axes; the legend sits
    right of the last column."""
    names = list(dict.fromkeys(n for _, terms, _ in panels for n in terms))
    colours = colours or term_colours(names)
    axes = fig.subplots(
        2, len(panels), sharex=True, squeeze=False, gridspec_kw={"height_ratios": [3, 1.2], "hspace": 0.08}
    )
    for j, (title, terms, total) in enumerate(panels):
        ax, ax2 = axes[0, j], axes[1, j]
        plot_terms(ax, x, terms, total, colours)
        ax.set_title(title, loc="left", fontsize=9)
        plot_shares(ax2, x, terms, colours)
        for k, (at, label, *col) in enumerate(marks):
            if col and col[0] != j:
                continue
            for a in (ax, ax2):
                a.axvline(at, color="#555555", ls=(0, (1, 2 + 2 * k)), lw=1, label=label if a is ax else None)
        ax2.set_xlabel(xlabel)
        if j == 0:
            ax.set_ylabel(ylabel)
    seen: dict[str, Any] = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    axes[0, -1].legend(list(seen.values()), list(seen), loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return axes


def plan_panels(fig: Any, plan: Plan, marks: tuple[tuple[float, str], ...] = ()) -> Any:
    """A plan over tau and a model's cuts, in two panels of ``fig``.

    Left: the bound against tau, one line per cut, the optimum starred and the paper's rule marked where it lands
    on the grid. Right: against the client size d_c, the best bound over the grid at each cut, the bound at
    tau = 1 and at the rule's tau, and the band of d_c the rule d_c = sqrt(d/tau) asks for over the grid.
    ``marks``: vertical dotted lines ``(tau, label)`` on the left panel (e.g. the tau the paper ran). Returns the
    two axes."""
    assert plan.model is not None and plan.d is not None
    bound = np.where(plan.curves["feasible"], np.asarray(plan.curves["bound"], dtype=float), np.nan)
    grid = plan.grid
    ax, lax, ax2 = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.1, 0.5, 1.0], "wspace": 0.1})
    lax.axis("off")
    plt = _mpl()
    colours = [plt.cm.viridis(x) for x in np.linspace(0.0, 0.85, len(plan.cuts))]  # input side dark
    for i, c in enumerate(plan.cuts):
        assert c.cut is not None
        ax.plot(grid, bound[i], color=colours[i], label=f"{c.cut.label} (d_c = {c.cut.d_c:,})")
    rule_x, rule_y = [], []
    for i, c in enumerate(plan.cuts):
        for rp in c.rules[:1]:
            if rp.point is not None and not rp.why_not:
                j = int(np.argmin(np.abs(grid - rp.point.value)))
                rule_x.append(grid[j])
                rule_y.append(bound[i, j])
    best = plan.best
    choice = plan.cuts[0].rules[0].choice if plan.cuts and plan.cuts[0].rules else None
    rule_name = (
        f"{choice.name.replace('Corollary', 'Cor.').replace(' split', '')}: tau = d/d_c^2" if choice else "paper's rule"
    )
    if best is not None and best.best is not None and best.cut is not None:
        ax.scatter(
            [best.best.value],
            [best.best.bound],
            label=f"optimum: {best.cut.label}\nat tau = {best.best.value:g}",
            **OPTIMUM,
        )
    if rule_x:
        ax.scatter(rule_x, rule_y, label=rule_name, **PAPER_RULE)
    for k, (at, label) in enumerate(marks):
        ax.axvline(at, color="#555555", ls=(0, (1, 2 + 2 * k)), lw=1, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("server steps per round tau")
    ax.set_ylabel(f"bound at T = {plan.params.get('T', '?'):g}" if "T" in plan.params else "bound")
    ax.set_title(f"{plan.result} on {plan.model}: bound against tau, per cut", loc="left", fontsize=9)
    lax.legend(*ax.get_legend_handles_labels(), loc="upper left", fontsize=7, borderaxespad=0)

    dcs = np.array([c.cut.d_c for c in plan.cuts if c.cut is not None], dtype=float)
    best_b = np.array([np.nanmin(row) if np.any(np.isfinite(row)) else np.nan for row in bound])
    ax2.plot(dcs, best_b, marker="o", color=PALETTE[0], label=f"best over tau = {grid[0]:g}..{grid[-1]:g}")
    ax2.plot(dcs, bound[:, 0], marker="s", ls="--", color="#777777", label=f"at tau = {grid[0]:g}")
    rx, ry = [], []
    for i, c in enumerate(plan.cuts):
        for rp in c.rules[:1]:
            if rp.point is not None and not rp.why_not:
                rx.append(dcs[i])
                ry.append(rp.point.bound)
    if rx:
        ax2.scatter(rx, ry, label="at the rule's tau = d/d_c^2 (rounded)", **PAPER_RULE)
    if best is not None and best.best is not None and best.cut is not None:
        ax2.scatter([best.cut.d_c], [best.best.bound], label="optimum", **OPTIMUM)
    if choice is not None:
        lo = float(choice.dc_of_tau.subs({d_sym: plan.d, tau_sym: grid[-1]}))
        hi = float(choice.dc_of_tau.subs({d_sym: plan.d, tau_sym: grid[0]}))
        ax2.axvspan(lo, hi, color=PAPER_RULE["edgecolors"], alpha=SHADE_ALPHA, lw=0)
        ax2.plot(
            [],
            [],
            color=PAPER_RULE["edgecolors"],
            alpha=0.35,
            lw=8,
            label=f"d_c = sqrt(d/tau), tau = {grid[0]:g}..{grid[-1]:g}",
        )
        if best is not None and best.best is not None:
            want = float(choice.dc_of_tau.subs({d_sym: plan.d, tau_sym: best.best.value}))
            ax2.axvline(
                want, color=PAPER_RULE["edgecolors"], ls="--", lw=1, label="d_c = sqrt(d/tau) at the optimal tau"
            )
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("client parameters d_c at the cut")
    ax2.set_ylabel(ax.get_ylabel())
    ax2.set_title(f"against the cut (d = {plan.d:,})", loc="left", fontsize=9)
    ax2.legend(fontsize=7)
    return ax, ax2


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _decade_label(value: float, pos: Any = None) -> str:
    """10^k as plain text with Unicode superscripts (no mathtext: drawing many log axes stays fast)."""
    if not value > 0:
        return ""
    e = np.log10(value)
    if abs(e - round(e)) > 1e-9:
        return ""
    k = round(e)
    return {0: "1", 1: "10"}.get(k, "10" + str(k).translate(_SUPERSCRIPT))


def tidy_log_axes(fig: Any) -> None:
    """Label the decades of every log axis showing three or more of them as 10^k in plain text, and drop the minor
    ticks of those spanning more than six (unlabelled clutter); narrower log axes keep matplotlib's labels."""
    from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            lo, hi = sorted(axis.get_view_interval())
            if not (lo > 0 and np.isfinite(hi)) or np.floor(np.log10(hi)) - np.ceil(np.log10(lo)) < 2:
                continue  # fewer than three decades labelled: matplotlib's own labels (with minor ones) read better
            axis.set_major_formatter(FuncFormatter(_decade_label))
            if np.log10(hi / lo) > 6:
                axis.set_minor_locator(NullLocator())
            else:
                axis.set_minor_formatter(NullFormatter())


# The settings every planning figure assumes where the papers give no value, and what the caption says of them.
PLAN_ASSUMED = {"L": 1.0, "F": 2.3, "sigma_c2": 1.0, "sigma_s2": 1.0, "eps2": 0.5, "lam": 1e-10}
PLAN_ASSUMED_TEXT = (
    "Step: the largest Theorem 4.3 allows at each (cut, tau); at that step the bound falls as tau grows (flat "
    "once the d_c branch binds), so the optimum sits at the end of the planner's range tau = 1..1000. "
    "Assumed: L = 1, F = 2.3, "
    "sigma_c^2 = sigma_s^2 = 1, eps^2 = 0.5, and lambda = 1e-10 so that the zeroth-order bias L^2 lambda^2 d_s^3 "
    "stays out of the way (at MU-SplitFed's lambda = 0.005 it is 1e18 and flat in tau: see terms_mu_splitfed). "
)


def plan_figure(
    plt: Any,
    blocks: str | Path,
    result: str,
    params: dict[str, float],
    setting: str,
    *,
    small: bool = False,
    marks: tuple[tuple[float, str], ...] = (),
) -> Any:
    """A paper-figure plan of ``result`` over tau and the cuts of a model given as a block list, at the paper's
    ``params`` and :data:`PLAN_ASSUMED`, captioned with ``setting``, the assumptions and the planner's notes."""
    grid = np.unique(np.round(np.logspace(0, 3, 40))) if small else None  # default: tau = 1..1000
    p = plan_of(result, {**params, **PLAN_ASSUMED}, cuts=load_blocks(blocks), grid=grid)
    fig = plt.figure(figsize=(14, 4.8))
    ax, _ = plan_panels(fig, p, marks=marks)
    notes = " ".join(n.rstrip(".") + "." for n in p.notes)
    footnote(fig, setting + PLAN_ASSUMED_TEXT + "Planner's notes: " + notes, below=ax, width=190)
    return fig
