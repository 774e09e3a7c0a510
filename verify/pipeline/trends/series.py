"""Helpers on measured series shared by the trend checks: Monte Carlo mean and standard error, padding after a
divergence, slopes, rank correlation, spread between curves, and a grid written out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def monte_carlo(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over axis 0 (seeds)."""
    a = np.asarray(samples, dtype=float)
    se = a.std(0, ddof=1) / math.sqrt(a.shape[0]) if a.shape[0] > 1 else np.zeros(a.shape[1:])
    return a.mean(0), se


def padded(series: Any, T: int) -> np.ndarray:
    """A recorded series over t = 0..T, padded with inf after a divergence."""
    s = np.asarray(series, dtype=float)
    if len(s) < T + 1:
        s = np.concatenate([s, np.full(T + 1 - len(s), np.inf)])
    return s[: T + 1]


def loglog_slope(x: Any, y: Any) -> float:
    """Least-squares slope of log y against log x (NaN with fewer than two positive points)."""
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = (xa > 0) & (ya > 0) & np.isfinite(ya)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(xa[keep]), np.log(ya[keep]), 1)[0])


def rank_correlation(x: Any, y: Any) -> float:
    """Spearman's rank correlation (ties by average rank)."""

    def ranks(a: np.ndarray) -> np.ndarray:
        order = np.argsort(a, kind="mergesort")
        r = np.empty(len(a))
        r[order] = np.arange(len(a), dtype=float)
        for v in np.unique(a):
            r[a == v] = r[a == v].mean()
        return r

    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(xa) < 2 or np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return float("nan")
    return float(np.corrcoef(ranks(xa), ranks(ya))[0, 1])


def max_relative_spread(curves: Sequence[np.ndarray]) -> float:
    r"""max over curves and t of :math:`|y - y_{ref}| / |y_{ref}|` against the first curve (the largest relative
    distance)."""
    ref = np.asarray(curves[0], dtype=float)
    scale = np.maximum(np.abs(ref), 1e-300)
    out = 0.0
    for c in curves[1:]:
        a = np.asarray(c, dtype=float)
        n = min(len(a), len(ref))
        if n < len(ref) or n < len(a):
            return math.inf  # one run stopped early (diverged): not the same curve
        out = max(out, float(np.max(np.abs(a[:n] - ref[:n]) / scale[:n])))
    return out


def fmt_grid(xs: Any) -> str:
    """A grid as text: ``1, 2, 4``."""
    return ", ".join(f"{x:g}" for x in xs)


__all__ = ["fmt_grid", "loglog_slope", "max_relative_spread", "monte_carlo", "padded", "rank_correlation"]
