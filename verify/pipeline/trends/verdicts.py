"""The verdict rules of the trend checks: pure functions of the measured and predicted series (tested on planted
cases in ``tests/verify/pipeline/test_trends.py``), and the rule text the two sweeps share."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

SWEEP_RULE = (
    "agrees when the predicted best grid point is within one grid step of the measured best (mean over seeds) or "
    "within 2 combined standard errors of it; inconclusive when every grid point is within 2 standard errors of the "
    "best; else disagrees"
)


def tied_with_best(mean: np.ndarray, se: np.ndarray | None = None, z: float = 2.0) -> np.ndarray:
    """Indices whose mean is within ``z`` combined standard errors of the smallest mean (only the argmin when
    exact). Non-finite means (a diverged run) are never tied."""
    m = np.asarray(mean, dtype=float)
    s = np.zeros_like(m) if se is None else np.nan_to_num(np.asarray(se, dtype=float), nan=0.0)
    ok = np.isfinite(m)
    if not ok.any():
        return np.array([], dtype=int)
    b = int(np.nanargmin(np.where(ok, m, np.nan)))
    gap = m - m[b]
    return np.nonzero(ok & (gap <= z * np.sqrt(s**2 + s[b] ** 2)))[0]


def best_verdict(mean: np.ndarray, se: np.ndarray | None, predicted: int) -> tuple[str, str]:
    """The rule of the sweeps (tau, d_c): ``agrees`` when the predicted best grid point is within one grid step of
    the measured best, or statistically tied with it (within 2 combined standard errors); ``inconclusive`` when every
    grid point is tied (the measurement cannot tell them apart); else ``disagrees``. Returns (verdict, reason)."""
    m = np.asarray(mean, dtype=float)
    tied = tied_with_best(m, se)
    if len(tied) == 0:
        return "inconclusive", "no finite measurement"
    best = int(np.nanargmin(np.where(np.isfinite(m), m, np.nan)))
    if len(tied) == len(m) and len(m) > 1:
        return "inconclusive", "every grid point is within 2 standard errors of the best"
    if abs(best - predicted) <= 1:
        return "agrees", "within one grid step" if best != predicted else "same grid point"
    if predicted in tied:
        return "agrees", "statistically tied with the measured best"
    return "disagrees", f"{abs(best - predicted)} grid steps from the measured best and not tied with it"


def invariance_verdict(v1_spreads: Sequence[float], v2_spread: float, tol: float, min_spread: float) -> str:
    """cut_layer's rule: ``agrees`` when every SFL-V1 spread across cuts is at most ``tol`` (float error) and the
    SFL-V2 spread is at least ``min_spread``; ``disagrees`` when an SFL-V1 spread exceeds ``tol`` (V1 depends on the
    cut) or the SFL-V2 spread is at most ``tol`` (V2 does not); else ``inconclusive``."""
    if any(not (s <= tol) for s in v1_spreads) or v2_spread <= tol:
        return "disagrees"
    return "agrees" if v2_spread >= min_spread else "inconclusive"


def growth_verdict(ratio: np.ndarray, rel: float = 0.05) -> str:
    """One leg of sl_noniid's rule on the ratio SL / FedAvg over increasing heterogeneity: ``agrees`` when the
    ratio at the largest eps2 exceeds 1 and the ratio at the smallest by at least ``rel``; ``disagrees`` when it is
    not above the ratio at the smallest (no growth); else ``inconclusive``."""
    r = np.asarray(ratio, dtype=float)
    first, last = r[0], r[-1]
    if not (np.isfinite(first) and np.isfinite(last)):
        return "inconclusive"
    if last <= first:
        return "disagrees"
    return "agrees" if (last > 1.0 and last >= (1 + rel) * first) else "inconclusive"


def combine(verdicts: Sequence[str]) -> str:
    """Several verdicts in one: ``agrees`` when all agree, ``disagrees`` when one disagrees and none agrees, else
    ``inconclusive``."""
    if verdicts and all(v == "agrees" for v in verdicts):
        return "agrees"
    if any(v == "disagrees" for v in verdicts) and not any(v == "agrees" for v in verdicts):
        return "disagrees"
    return "inconclusive"


def speedup_verdict(slope_measured: float, slope_predicted: float, tol: float = 0.15) -> str:
    """The speedup rule on log-log slopes in M: ``agrees`` when the measured slope is at most the predicted one
    plus ``tol`` (at least the promised speedup, faster is consistent with an upper bound); ``disagrees`` when it
    exceeds it by more than ``2 tol`` or is not negative (no speedup); else ``inconclusive``."""
    if not (math.isfinite(slope_measured) and math.isfinite(slope_predicted)):
        return "inconclusive"
    if slope_measured >= 0 or slope_measured > slope_predicted + 2 * tol:
        return "disagrees"
    return "agrees" if slope_measured <= slope_predicted + tol else "inconclusive"


__all__ = [
    "SWEEP_RULE",
    "best_verdict",
    "combine",
    "growth_verdict",
    "invariance_verdict",
    "speedup_verdict",
    "tied_with_best",
]
