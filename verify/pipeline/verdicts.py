r"""From runs to a verdict: the left-hand side a result bounds, the bound at every T, and whether it holds.

For first-order algorithms on a quadratic the left-hand side is exact (:mod:`verify.pipeline.exact`): a bound
below it is violated for certain. Otherwise it is a Monte-Carlo mean over n seeds, with an interval that holds
*simultaneously* over every T at the stated confidence 1 - alpha: Student's t with n - 1 degrees of freedom at
the Bonferroni level alpha/(2m) over the m values of T,

.. math:: \bar y_T \pm t_{n-1,\,1-\alpha/(2m)}\, s_T/\sqrt n \quad\text{for every } T,

which holds at the seed count used when the per-seed values are normal (Bonferroni needs no independence over
T). For :math:`\min_{t<T}\mathbb E\|\nabla f(x^t)\|^2` the simultaneous interval of every
:math:`\mathbb E\|\nabla f(x^t)\|^2` gives one of the running minimum, :math:`[\min_{t<T}\ell_t, \min_{t<T}h_t]`
(the running minimum of the means alone is biased low). The verdict is ``holds`` when the upper end is below
the bound at every T, ``violated`` when the lower end is above it at some T (each a statement at the stated
confidence), else ``inconclusive``; ``void`` when the bound is negative or not finite.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from scipy import stats

import sfltheory as st
from sfltheory.algorithms import algorithm
from sfltheory.experiments import Experiment, lhs_reduction

from .records import Leg

CONFIDENCE = 0.95  # simultaneous over T, of every Monte-Carlo interval


def exact_applies(name: str, sampled: bool = False) -> bool:
    """Exact moments apply to an algorithm with first-order clients and server (its round map is affine on a
    quadratic): read from the one algorithm table (:mod:`sfltheory.algorithms`); not to a run that samples its
    participants (``sampled``: :attr:`Experiment.sampled`), whose round map is random."""
    a = algorithm(name)
    return a.client == "first" and a.server == "first" and not sampled


def slope(T: np.ndarray, y: np.ndarray) -> float:
    """d log y / d log T over the last three quarters of T (NaN with fewer than two usable points)."""
    keep = (T >= max(2, len(T) // 4)) & (y > 0) & np.isfinite(y)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(T[keep]), np.log(y[keep]), 1)[0])


def verdict(Ts: np.ndarray, lhs: np.ndarray, bound: np.ndarray, lo: np.ndarray | None = None,
            hi: np.ndarray | None = None) -> tuple[str, int | None]:  # fmt: skip
    """The verdict and the first T where the bound is violated (see the module docstring): exact when ``lo``
    and ``hi`` are None, else from the simultaneous interval [lo, hi]."""
    finite = np.isfinite(bound) & (bound >= 0)
    if not finite.all():
        return "void", None
    if lo is None or hi is None:
        bad = np.nonzero(lhs > bound * (1 + 1e-9))[0]
        return ("violated", int(Ts[bad[0]])) if len(bad) else ("holds", None)
    over = np.nonzero(lo > bound)[0]
    under = bool(np.all(hi <= bound))
    return ("violated" if len(over) else ("holds" if under else "inconclusive")), (
        int(Ts[over[0]]) if len(over) else None
    )


def t_quantile(n: int, m: int, confidence: float = CONFIDENCE) -> float:
    """Student's t quantile with n - 1 degrees of freedom at the two-sided Bonferroni level over m intervals:
    each holds at 1 - alpha/m, all of them at 1 - alpha (inf with one seed: no interval)."""
    if n < 2:
        return math.inf
    return float(stats.t.ppf(1 - (1 - confidence) / (2 * max(m, 1)), n - 1))


def lhs_series(kind: str, g: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The left-hand side at T = 1..T from per-seed series g[seed, t] of ||grad f(x^t)||^2, with its standard
    error (None with one row). The ``min`` kind is the running minimum of the means (biased low as an estimate:
    :func:`lhs_interval` gives the honest interval). ``kind`` reduces as :func:`sfltheory.experiments.lhs_reduction`
    says (``min_server`` as ``min``: its rows are the server part)."""
    kind = lhs_reduction(kind)
    if kind == "min":  # min over t of the expectation (not the expectation of the min)
        mean_g = g.mean(0)
        idx = np.array([int(np.argmin(mean_g[: t + 1])) for t in range(len(mean_g))])
        se_g = g.std(0, ddof=1) / math.sqrt(g.shape[0]) if g.shape[0] > 1 else None
        return mean_g[idx], None if se_g is None else se_g[idx]
    per = per_seed(kind, g, step)
    mean = per.mean(0)
    se = per.std(0, ddof=1) / math.sqrt(per.shape[0]) if per.shape[0] > 1 else None
    return mean, se


def per_seed(kind: str, g: np.ndarray, step: float) -> np.ndarray:
    """Per-seed values whose mean is the left-hand side at each T (``avg``, ``eta_avg``: running averages), or
    g itself for ``min`` (whose left-hand side is a minimum over t of means)."""
    kind = lhs_reduction(kind)
    if kind == "min":
        return g
    per = np.cumsum(g, axis=1) / np.arange(1, g.shape[1] + 1)
    return step * per if kind == "eta_avg" else per


def lhs_interval(kind: str, g: np.ndarray, step: float, *, confidence: float = CONFIDENCE,
                 m: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The left-hand side at T = 1..T from per-seed rows ``g`` with its simultaneous interval ``(lhs, lo, hi)``
    at ``confidence`` over ``m`` values of T (default: every T); see the module docstring."""
    kind = lhs_reduction(kind)
    per = per_seed(kind, g, step)
    n = per.shape[0]
    mean = per.mean(0)
    with np.errstate(invalid="ignore"):
        se = per.std(0, ddof=1) / math.sqrt(n) if n > 1 else np.full_like(mean, np.inf)
    half = t_quantile(n, per.shape[1] if m is None else m, confidence) * se
    half = np.where(np.isfinite(mean), half, np.inf)  # a diverged seed: the curve is above every bound
    lo, hi = mean - half, mean + half
    if kind == "min":
        return np.minimum.accumulate(mean), np.minimum.accumulate(lo), np.minimum.accumulate(hi)
    return mean, lo, hi


def tightness(bound: float, lhs: float) -> float:
    """bound / measured at the last T, or NaN where that is no finite positive ratio: a bound not finite or
    negative, a measured side of 0 or not finite (a diverged run), or a quotient past the floating-point range
    (checked on logarithms first: no overflow, no NumPy warning). Reports print NaN as ``n/a`` with the reason,
    JSON as null (:func:`verify.pipeline.report.document.tightness_text`)."""
    b, m = float(bound), float(lhs)
    if not (math.isfinite(b) and math.isfinite(m)) or b < 0 or m <= 0:
        return math.nan
    if b > 0 and math.log(b) - math.log(m) >= math.log(sys.float_info.max):
        return math.nan
    return b / m


def failing_hypotheses(ev: Any) -> set[str]:
    """The statement hypotheses an evaluation finds failing (proof-only conditions are not the claim)."""
    return {h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds))}


def leg_from_series(r: Any, exp: Experiment, mode: str, step: float, g: np.ndarray, params: dict[str, Any], *,
                    T: int, exact: bool | None = None, confidence: float = CONFIDENCE) -> Leg:  # fmt: skip
    """A leg from the runs' ||grad f(x^t)||^2, ``g[seed, t]`` for t < T (one exact row, or one row per seed), and
    the bound's parameters at the theorem's step ``step``: the left-hand side, its simultaneous interval at
    ``confidence`` unless ``exact`` (None: exact when ``g`` has one row), the bound at every T, the verdict, and
    which statement hypotheses fail."""
    assert r.step is not None
    ev = st.evaluate(r, {**params, r.step: step, "T": float(T)})
    Ts = np.arange(1, T + 1)
    exact = g.shape[0] == 1 if exact is None else exact
    lhs, se = lhs_series(exp.lhs, g, step)
    lo = hi = None
    if not exact:
        lhs, lo, hi = lhs_interval(exp.lhs, g, step, confidence=confidence)
    theory = {**params, r.step: step, "T": Ts.astype(float)}
    bound = np.asarray(st.bound_value(r, theory), dtype=float) * np.ones_like(Ts, dtype=float)
    failing = tuple(h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds)))
    v, first = verdict(Ts, lhs, bound, lo, hi)
    return Leg(mode=mode, step=step, applies=not failing, failing=failing, T=Ts, lhs=lhs,
               lhs_se=None if exact else se, bound=bound, verdict=v, first_violation=first,
               tightness=tightness(bound[-1], lhs[-1]), slope_lhs=slope(Ts, lhs),
               slope_bound=slope(Ts, bound), lhs_lo=lo, lhs_hi=hi, confidence=None if exact else confidence,
               seeds=g.shape[0])  # fmt: skip


def leg_from_points(mode: str, grid: np.ndarray, lhs: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None,
                    bound: np.ndarray, step: float, failing: set[str], *, confidence: float | None = None,
                    seeds: int = 1) -> Leg:  # fmt: skip
    """A leg from one point per T of ``grid`` (a corollary's step depends on T: one run per T), with the
    simultaneous interval [lo, hi] at ``confidence`` (None: exact)."""
    v, first = verdict(grid, lhs, bound, lo, hi)
    return Leg(mode=mode, step=step, applies=not failing, failing=tuple(sorted(failing)), T=grid, lhs=lhs,
               lhs_se=None, bound=bound, verdict=v, first_violation=first,
               tightness=tightness(bound[-1], lhs[-1]),
               slope_lhs=slope(grid, lhs), slope_bound=slope(grid, bound), lhs_lo=lo, lhs_hi=hi,
               confidence=confidence, seeds=seeds)  # fmt: skip


__all__ = [
    "CONFIDENCE",
    "exact_applies",
    "failing_hypotheses",
    "leg_from_points",
    "leg_from_series",
    "lhs_interval",
    "lhs_series",
    "per_seed",
    "slope",
    "t_quantile",
    "tightness",
    "verdict",
]
