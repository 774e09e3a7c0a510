r"""From runs to a verdict: the left-hand side a result bounds, the bound at every T, and whether it holds.

For first-order algorithms on a quadratic the left-hand side is exact (:mod:`verify.pipeline.exact`): a bound
below it is violated for certain. Otherwise it is a Monte-Carlo mean over seeds with its standard error; the
verdict is ``holds`` when the mean plus 3 standard errors is below the bound at every T, ``violated`` when the
mean minus 3 standard errors is above it at some T, else ``inconclusive``; ``void`` when the bound is negative or
not finite.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.algorithms import algorithm
from sfltheory.experiments import Experiment

from .records import Leg


def exact_applies(name: str) -> bool:
    """Exact moments apply to an algorithm with first-order clients and server (its round map is affine on a
    quadratic): read from the one algorithm table (:mod:`sfltheory.algorithms`)."""
    a = algorithm(name)
    return a.client == "first" and a.server == "first"


def slope(T: np.ndarray, y: np.ndarray) -> float:
    """d log y / d log T over the last three quarters of T (NaN with fewer than two usable points)."""
    keep = (T >= max(2, len(T) // 4)) & (y > 0) & np.isfinite(y)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(T[keep]), np.log(y[keep]), 1)[0])


def verdict(Ts: np.ndarray, lhs: np.ndarray, se: np.ndarray | None, bound: np.ndarray) -> tuple[str, int | None]:
    """The verdict and the first T where the bound is violated (see the module docstring)."""
    finite = np.isfinite(bound) & (bound >= 0)
    if not finite.all():
        return "void", None
    if se is None:
        bad = np.nonzero(lhs > bound * (1 + 1e-9))[0]
        return ("violated", int(Ts[bad[0]])) if len(bad) else ("holds", None)
    over = np.nonzero(lhs - 3 * se > bound)[0]
    under = bool(np.all(lhs + 3 * se <= bound))
    return ("violated" if len(over) else ("holds" if under else "inconclusive")), (
        int(Ts[over[0]]) if len(over) else None
    )


def lhs_series(kind: str, g: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The left-hand side at T = 1..T from per-seed series g[seed, t] of ||grad f(x^t)||^2, with its se."""
    if kind == "min":  # min over t of the expectation (not the expectation of the min)
        mean_g = g.mean(0)
        idx = np.array([int(np.argmin(mean_g[: t + 1])) for t in range(len(mean_g))])
        se_g = g.std(0, ddof=1) / math.sqrt(g.shape[0]) if g.shape[0] > 1 else None
        return mean_g[idx], None if se_g is None else se_g[idx]
    per = np.cumsum(g, axis=1) / np.arange(1, g.shape[1] + 1)
    if kind == "eta_avg":
        per = step * per
    mean = per.mean(0)
    se = per.std(0, ddof=1) / math.sqrt(per.shape[0]) if per.shape[0] > 1 else None
    return mean, se


def failing_hypotheses(ev: Any) -> set[str]:
    """The statement hypotheses an evaluation finds failing (proof-only conditions are not the claim)."""
    return {h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds))}


def leg_from_series(r: Any, exp: Experiment, mode: str, step: float, g: np.ndarray, params: dict[str, Any], *,
                    T: int) -> Leg:  # fmt: skip
    """A leg from the runs' ||grad f(x^t)||^2, ``g[seed, t]`` for t < T (one exact row, or one row per seed), and
    the bound's parameters at the theorem's step ``step``: the left-hand side, the bound at every T, the verdict,
    and which statement hypotheses fail."""
    assert r.step is not None
    ev = st.evaluate(r, {**params, r.step: step, "T": float(T)})
    Ts = np.arange(1, T + 1)
    lhs, se = lhs_series(exp.lhs, g, step)
    theory = {**params, r.step: step, "T": Ts.astype(float)}
    bound = np.asarray(st.bound_value(r, theory), dtype=float) * np.ones_like(Ts, dtype=float)
    failing = tuple(h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds)))
    v, first = verdict(Ts, lhs, se, bound)
    return Leg(mode=mode, step=step, applies=not failing, failing=failing, T=Ts, lhs=lhs, lhs_se=se, bound=bound,
               verdict=v, first_violation=first, tightness=float(bound[-1] / lhs[-1]) if lhs[-1] > 0 else math.inf,
               slope_lhs=slope(Ts, lhs), slope_bound=slope(Ts, bound))  # fmt: skip


def leg_from_points(mode: str, grid: np.ndarray, lhs: np.ndarray, se: np.ndarray | None, bound: np.ndarray,
                    step: float, failing: set[str]) -> Leg:  # fmt: skip
    """A leg from one point per T of ``grid`` (a corollary's step depends on T: one run per T)."""
    v, first = verdict(grid, lhs, se, bound)
    return Leg(mode=mode, step=step, applies=not failing, failing=tuple(sorted(failing)), T=grid, lhs=lhs,
               lhs_se=se, bound=bound, verdict=v, first_violation=first,
               tightness=float(bound[-1] / lhs[-1]) if lhs[-1] > 0 else math.inf,
               slope_lhs=slope(grid, lhs), slope_bound=slope(grid, bound))  # fmt: skip


__all__ = [
    "exact_applies",
    "failing_hypotheses",
    "leg_from_points",
    "leg_from_series",
    "lhs_series",
    "slope",
    "verdict",
]
