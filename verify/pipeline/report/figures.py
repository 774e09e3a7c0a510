"""The report's figures: a verification's measured left-hand side against its bound, and drawing every figure of a
document once -- saved as a file and embedded in the document for the HTML page."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from sfltheory.experiments import LHS_KINDS
from sfltheory.plotting import PALETTE, footnote, save, style

from .document import Document, Record, TightestItem, TightestRow, kind_text, leg_text

YLABEL = {
    LHS_KINDS["avg"]: r"$\frac{1}{T}\sum_{t<T} E\,\|\nabla f(x^t)\|^2$",
    LHS_KINDS["min"]: r"$\min_{t<T} E\,\|\nabla f(x^t)\|^2$",
    LHS_KINDS["eta_avg"]: r"$\frac{\eta}{T}\sum_{t<T} E\,\|\nabla f(x^t)\|^2$",
}
EMBED_DPI = 110  # the PNG embedded in report.html (the files use the house style's savefig.dpi)


class Drawn(Record, Protocol):
    """A record that draws its own figure (a trend check)."""

    def figure(self) -> Any:
        """The record's matplotlib figure."""
        ...


def figure(v: Record) -> Any:
    """A verification's measured left-hand side and predicted bound against T (log-log), one colour per step."""

    d = v.to_dict()
    with style() as plt:
        fig, ax = plt.subplots(figsize=(6.0, 3.6))
        for i, leg in enumerate(d["legs"]):
            c = PALETTE[i % len(PALETTE)]
            T, lhs, bound = (np.asarray(leg[k], dtype=float) for k in ("T", "measured", "predicted"))
            what = f"{leg['mode']} step {leg['step']:.3g}" + ("" if leg["applies"] else " (hypotheses fail)")
            ax.plot(T, bound, color=c, ls="--", label=f"predicted (bound), {what}")
            ax.plot(T, lhs, color=c, label=f"measured, {what}")
            band = _band(leg, lhs)
            if band is not None:
                ax.fill_between(T, np.maximum(band[0], 1e-300), band[1], color=c, alpha=0.2, lw=0)
        ax.set_xscale("log")
        ax.set_yscale("log")
        log_ticks(ax.xaxis, T_range(d))
        ax.set_xlabel("rounds T")
        ax.set_ylabel(YLABEL.get(d["lhs"], "left-hand side"))
        ax.set_title(f"{d['result']}: {d['legs'][0]['verdict']} ({d['method'].split(' (')[0]})")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
        fig.tight_layout()
        return fig


# the tightest-bound figure's three curves: the paper's bound, the worst case, the deterministic quadratic
TIGHTEST_LOOK = {"paper": PALETTE[1], "tightest": PALETTE[0], "measured": PALETTE[2]}
KIND_SHORT = {
    "exact": "the worst case, attained by a function of the class",
    "relaxation": "an upper bound on the worst case, some conditions imposed at the iterates only",
}


def tightest_figure(t: TightestItem) -> Any:
    """A result's tightest bound against T (log y): the paper's bound at sigma^2 = 0, the worst case and the
    deterministic quadratic at the check's M, one panel per leg; M = 1's (exact) worst case and bound dashed; and,
    where computed, a last panel against the step at the last T."""
    legs = list(dict.fromkeys(r.mode for r in t.rows))
    n = len(legs) + (1 if t.by_step else 0)
    with style() as plt:
        fig, axes = plt.subplots(1, n, figsize=(4.2 * n + 2.6, 3.4), squeeze=False)
        if t.by_step:
            _step_panel(axes[0, -1], t.by_step)
        for ax, mode in zip(axes[0], legs, strict=False):
            if ax is not axes[0, 0]:
                ax.sharey(axes[0, 0])
            at_M = [r for r in t.rows if r.mode == mode and r.M == t.M]
            one = [r for r in t.rows if r.mode == mode and r.M == 1] if t.M != 1 else []
            m = f"M = {t.M}"
            _curve(ax, at_M, "paper", f"paper's bound, {m}")
            _curve(ax, at_M, "tightest", f"tightest ({kind_text(at_M)}), {m}")
            _curve(ax, [r for r in at_M if r.measured is not None], "measured", f"deterministic quadratic, {m}")
            _curve(ax, one, "paper", "paper's bound, M = 1", ls="--")
            _curve(ax, one, "tightest", f"tightest ({kind_text(one)}), M = 1", ls="--")
            bad = [r for r in at_M + one if r.replayed is not None]  # a concrete function, run by the trainer
            if bad:
                ax.plot([r.T for r in bad], [r.replayed for r in bad], ls="none", marker="x", ms=9, mew=2,
                        color="black", label="bound invalid: replayed by the trainer", zorder=5)  # fmt: skip
            own = {r.step for r in one} - {r.step for r in at_M}  # M = 1's own admissible step
            m1 = f"; M = 1 at step {one[0].step:.4g}" if own and len({r.step for r in one}) == 1 else ""
            fails = any(r.failing for r in at_M)
            ax.set_title(leg_text(mode, at_M) + m1 + (" (hypotheses fail)" if fails else ""))
            ax.set_yscale("log")
            Ts = sorted({r.T for r in t.rows if r.mode == mode})
            ax.set_xticks(Ts)
            ax.set_xlabel("rounds T")
        axes[0, 0].set_ylabel(t.quantity if len(t.quantity) < 40 else "left-hand side (see the footnote)")
        shown = {lab: h for ax in axes[0] for h, lab in zip(*ax.get_legend_handles_labels(), strict=True)}
        axes[0, -1].legend(shown.values(), shown.keys(), loc="center left", bbox_to_anchor=(1.02, 0.5))
        fig.suptitle(f"{t.result}: the paper's bound against the tightest (sigma^2 = 0)")
        fig.tight_layout()
        Ms = sorted({r.M for r in t.rows}, reverse=True)
        kinds = ", ".join(f"M = {M} {kind_text([r for r in t.rows if r.M == M])}" for M in Ms)
        meaning = "; ".join(f"{k}: {KIND_SHORT.get(k, k)}" for k in t.kinds)
        footnote(fig, f"sigma^2 = 0 (the bound's deterministic part; the worst case is over full-gradient runs). "
                 f"Quantity: {t.quantity}.\nClass: {t.assumptions}.\nKind: {kinds} ({meaning}).",
                 width=int(62 * len(legs) + 60))  # fmt: skip
        return fig


def _step_panel(ax: Any, rows: tuple[TightestRow, ...]) -> None:
    """The paper's bound and the worst case against the step (log-log) at one T and M; the admissible step marked."""
    x = np.asarray([r.step for r in rows])
    for what, label in (("paper", "paper's bound"), ("tightest", f"tightest ({kind_text(rows)})")):
        y = np.asarray([getattr(r, what) for r in rows], dtype=float)
        ax.plot(x, np.where(np.isfinite(y) & (y > 0), y, np.nan), color=TIGHTEST_LOOK[what], marker="D", ms=4,
                label=label + f", M = {rows[0].M}, against the step")  # fmt: skip
    at = [r.step for r in rows if r.mode == "x1"]
    if at:
        ax.axvline(at[0], color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(x, [f"{v:.2g}" for v in x], minor=False)  # the steps computed, not log decades
    ax.tick_params(axis="x", which="minor", labelbottom=False)
    ax.set_xlabel("step (dotted: the largest admissible)")
    ax.set_title(f"against the step, T = {rows[0].T}")


def _curve(ax: Any, rows: list[TightestRow], what: str, label: str, ls: str = "-") -> None:
    """One curve of the tightest-bound figure against T (non-positive or non-finite values left out)."""
    if not rows:
        return
    T = np.asarray([r.T for r in rows], dtype=float)
    y = np.asarray([getattr(r, what) for r in rows], dtype=float)
    y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
    ax.plot(T, y, color=TIGHTEST_LOOK[what], ls=ls, marker="o" if ls == "-" else "s", mfc="none" if ls != "-" else None,
            label=label)  # fmt: skip


def _band(leg: dict[str, Any], lhs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The Monte-Carlo interval of a leg: the simultaneous one when recorded, else 3 standard errors; None when
    exact."""
    if leg.get("measured_lo") is not None and leg.get("measured_hi") is not None:
        return np.asarray(leg["measured_lo"], dtype=float), np.asarray(leg["measured_hi"], dtype=float)
    if leg.get("measured_se") is not None:
        se = np.asarray(leg["measured_se"], dtype=float)
        return lhs - 3 * se, lhs + 3 * se
    return None


def T_range(d: dict[str, Any]) -> tuple[float, float]:
    """The smallest and largest T of a verification's legs."""
    Ts = [float(t) for leg in d["legs"] for t in leg["T"]]
    return (min(Ts), max(Ts)) if Ts else (1.0, 10.0)


def log_ticks(axis: Any, span: tuple[float, float], most: int = 6) -> None:
    """Readable ticks on a log axis over ``span``: at most ``most`` labels at 1-2-5 values, plain numbers, no
    labelled minor ticks (matplotlib labels every minor tick when the axis spans less than a decade, and they run
    into each other)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    lo, hi = span
    nice = [m * 10**e for e in range(-1, 10) for m in (1, 2, 5)]
    ticks = [t for t in nice if lo <= t <= hi] or [lo, hi]
    while len(ticks) > most:
        ticks = ticks[::2]
    axis.set_major_locator(FixedLocator(ticks))
    fmt = ScalarFormatter()
    fmt.set_scientific(False)
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(NullFormatter())


def draw(
    doc: Document, verifications: Sequence[Record], trends: Sequence[Drawn] | None, out: Path | None
) -> tuple[Document, list[Path]]:
    """Draw each figure of ``doc`` once (``verifications`` and ``trends``: the records it was built from, in its
    order): saved as ``out/<item.figure>`` when ``out`` is given, and embedded as a PNG in the returned document.
    Returns that document and the files written."""
    written: list[Path] = []

    def one(item: Any, make: Callable[[], Any]) -> Any:
        png, path = _render(make, None if out is None else out / item.figure)
        if path is not None:
            written.append(path)
        return replace(item, image=png)

    results = tuple(one(item, partial(figure, v)) for item, v in zip(doc.results, verifications, strict=True))
    results = tuple(
        replace(item, tightest=one(item.tightest, partial(tightest_figure, item.tightest)))
        if item.has_tightest
        else item
        for item in results
    )
    checks = None
    if doc.trends is not None:
        checks = tuple(one(item, c.figure) for item, c in zip(doc.trends, trends or (), strict=True))
    return replace(doc, results=results, trends=checks), written


def _render(make: Callable[[], Any], path: Path | None) -> tuple[bytes, Path | None]:
    """The figure as an embeddable PNG, and saved to ``path`` (atomically) when given; closed either way."""

    with style() as plt:
        fig = make()
        try:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=EMBED_DPI)
            if path is not None:
                save(fig, path)
        finally:
            plt.close(fig)
    return buf.getvalue(), path


__all__ = ["EMBED_DPI", "TIGHTEST_LOOK", "YLABEL", "Drawn", "T_range", "draw", "figure", "log_ticks", "tightest_figure"]
