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
from sfltheory.plotting import PALETTE, save, style

from .document import Document, Record

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


__all__ = ["EMBED_DPI", "YLABEL", "Drawn", "T_range", "draw", "figure", "log_ticks"]
