"""sl_noniid: FedAvg's linear speedup in the number of clients at the printed step choice (exact moments), the
measured exponent in M against the bound's; and its figure."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.errors import ParameterError
from sfltheory.plotting import PALETTE, footnote
from verify.pipeline.exact import exact_moments
from verify.problems import QuadraticProblem
from verify.train import get

from .plots import grid_axis, plain_log_ticks
from .record import SEED_SL, TrendCheck
from .runs import Progress, exact_params, say
from .series import fmt_grid, loglog_slope
from .verdicts import speedup_verdict

NAME = "client_speedup"
RESULT = "sl_noniid/sec4.3.speedup@explicit"
CLAIM = (
    f"sl_noniid (seed {SEED_SL}): Sec. 4.3, after Table 1: 'Choosing eta_l = sqrt(N)/(L sqrt(T)) for Theorem 2 "
    "provides the O(1/sqrt(NT)) convergence rate, the linear speedup in FL' (sl_noniid/sec4.3.speedup@explicit). "
    "Tested: at that step, FedAvg's average E||grad f||^2 after R rounds falls with the number of clients M as the "
    "bound does (slope -1/2 in M on log-log axes when the drift terms vanish)."
)


@dataclass(frozen=True, kw_only=True)
class _Sweep:
    """At each M: the printed step, the bound there, whether its hypotheses hold, and the measured value."""

    steps: np.ndarray
    bound: np.ndarray
    applies: list[bool]
    measured: np.ndarray


def check(
    *,
    Ms: Sequence[int] = (1, 2, 4, 8),
    R: int = 100,
    K: int = 1,
    batch: int = 1,
    d: int = 10,
    sigma2: float = 1.0,
    progress: Progress = None,
) -> TrendCheck:
    """FedAvg at the printed step eta_l = sqrt(M)/(L sqrt(K R)), eta_g = 1, exact moments, on one quadratic (the
    same H, x^0 and optimum for every M; identical clients, eps2 = 0, so Assumption 3 holds with G^2 = 0).

    Predicted: ``sl_noniid/sec4.3.speedup@explicit`` (Theorem 2 at that step) at each M with the exact constants.
    Measured: the average E||grad f(x^t)||^2 over t < R. Both are compared by their log-log slope in M.

    Verdict: agrees when the measured slope is at most the bound's plus 0.15 (at least the promised speedup);
    disagrees when it is not negative or exceeds the bound's by more than 0.3; else inconclusive.
    """
    t0 = time.perf_counter()
    grid = np.unique(np.asarray(Ms, dtype=int))
    if grid[0] < 1:
        raise ParameterError("M", "the number of clients must be >= 1")
    sweep = _sweep(grid, R=R, K=K, batch=batch, d=d, sigma2=sigma2, progress=progress)
    setting = {"problem": "quadratic, identical clients", "d": d, "K": K, "R": R, "batch": batch, "sigma2": sigma2,
               "result": RESULT}  # fmt: skip
    return _record(grid, sweep, setting, seconds=time.perf_counter() - t0)


def _sweep(grid: np.ndarray, *, R: int, K: int, batch: int, d: int, sigma2: float, progress: Progress) -> _Sweep:
    """FedAvg at the printed step for each M (exact moments) and the bound there, on one quadratic with M identical
    clients."""

    ref = QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=sigma2, eps2=0.0, d=d, M=1, F=1.0, seed=0)
    measured = np.empty(len(grid))
    bound = np.empty(len(grid))
    steps = np.empty(len(grid))
    applies = []
    for i, M in enumerate(grid):
        p = QuadraticProblem(ref.H, ref.b.repeat(int(M), 1), ref.x0, ref.d_c, sigma2, name=f"quadratic, M = {M}")
        params = exact_params(RESULT, p, batch, {"K": K, "eta_g": 1.0})
        L = float(params["L"])
        eta = math.sqrt(M) / (L * math.sqrt(K * R))
        steps[i] = eta
        ev = st.evaluate(RESULT, {**params, "eta_l": eta, "T": float(R)})
        bound[i] = float(ev.value)
        applies.append(bool(ev.applies))
        say(progress, f"client_speedup: M = {M}")
        measured[i] = exact_moments(get("fedavg")(eta_l=eta, K=K, eta_g=1.0), p, T=R, batch=batch).avg[R - 1]
    return _Sweep(steps=steps, bound=bound, applies=applies, measured=measured)


def _record(grid: np.ndarray, w: _Sweep, setting: dict[str, Any], *, seconds: float) -> TrendCheck:
    """The slopes in M, the verdict, the summary and note, as a :class:`TrendCheck`."""
    measured = w.measured
    s_m, s_b = loglog_slope(grid, measured), loglog_slope(grid, w.bound)
    summary = (
        f"slope in M: measured {s_m:.2f}, bound {s_b:.2f}; average E||grad f||^2 {measured[0]:.3g} (M = {grid[0]}) "
        f"-> {measured[-1]:.3g} (M = {grid[-1]})"
    )
    local = np.diff(np.log(measured)) / np.diff(np.log(grid.astype(float)))
    return TrendCheck(
        name=NAME,
        title="sl_noniid: FedAvg's linear speedup in M",
        claim=CLAIM,
        rule=(
            "agrees when the measured log-log slope in M is at most the bound's + 0.15; disagrees when it is not "
            "negative or exceeds the bound's by more than 0.3; else inconclusive"
        ),
        verdict=speedup_verdict(s_m, s_b),
        x_label="clients M",
        x=grid.astype(float),
        measured={"average E||grad f||^2 at R": measured},
        predicted={"Sec. 4.3 speedup bound (Theorem 2)": w.bound},
        numbers={
            "slope_measured": s_m,
            "slope_bound": s_b,
            "steps": w.steps,
            "hypotheses_hold": w.applies,
            "local_slopes": local,
        },
        summary=summary,
        note=_note(grid, w, local, setting),
        setting=setting,
        seconds=seconds,
        draw=figure,
    )


def _note(grid: np.ndarray, w: _Sweep, local: np.ndarray, setting: dict[str, Any]) -> str:
    """Where the printed step leaves the hypotheses, the local slopes, and why both parts of the measured value
    fall like M^(-1/2) on this quadratic."""
    steps, K = w.steps, setting["K"]
    return (
        f"Exact moments. The printed step grows with M (eta_l = {steps[0]:.3g} .. {steps[-1]:.3g}); "
        + (
            "Theorem 2's step-size hypotheses hold at every M. "
            if all(w.applies)
            else f"Theorem 2's step-size hypotheses fail at M = {fmt_grid(grid[~np.asarray(w.applies)])}. "
        )
        + f"Local slopes between successive M: {', '.join(f'{s:.2f}' for s in local)}. With K = {K} the drift terms "
        "vanish (K - 1 = 0) and the bound is (4 F L + 4 sigma^2)/sqrt(M K R): slope -1/2 exactly; the measured "
        "value mixes the initialisation transient (about 1/(eta R), so M^(-1/2)) and the stationary noise (about "
        "eta sigma^2/M, so M^(-1/2) too) on a strongly convex quadratic (eigenvalues 0.1..1), which need not hold "
        f"for non-convex models. Identical clients; d = {setting['d']}, R = {setting['R']}, batch {setting['batch']}, "
        f"sigma2 = {setting['sigma2']:g}. "
        "MU-SplitFed's Corollary 4.4 promises O(sqrt(d/(tau T M))) too; zeroth-order, it is not checked here."
    )  # fmt: skip


def figure(c: TrendCheck) -> Any:
    """Measured and bound relative to the smallest M on log-log axes, next to the linear speedup M^(-1/2)."""
    import matplotlib.pyplot as plt

    s = c.setting
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    m = c.measured["average E||grad f||^2 at R"]
    b = c.predicted["Sec. 4.3 speedup bound (Theorem 2)"]
    ax.plot(c.x, (c.x / c.x[0]) ** -0.5, color="#BBBBBB", lw=5, label="linear speedup: M^(-1/2)", zorder=1)
    ax.plot(c.x, b / b[0], color=PALETTE[1], ls="--", marker="s",
            label=f"predicted (bound), slope {c.numbers['slope_bound']:.2f}")  # fmt: skip
    ax.plot(c.x, m / m[0], color=PALETTE[0], marker="o",
            label=f"measured (exact), slope {c.numbers['slope_measured']:.2f}")  # fmt: skip
    grid_axis(ax, c.x, c.x_label)
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_ylabel(f"relative to M = {c.x[0]:g}")
    ax.set_title(f"{c.title}: {c.verdict}", loc="left")
    ax.legend(fontsize=7)
    fig.tight_layout()
    footnote(
        fig,
        f"{c.summary}.\nFedAvg at the printed step eta_l = sqrt(M)/(L sqrt(K R)), eta_g = 1, K = {s['K']}, R = "
        f"{s['R']}, batch {s['batch']}; exact moments on one quadratic (d = {s['d']}) with identical clients; the "
        "bound is sl_noniid/sec4.3.speedup@explicit (Theorem 2 at that step).",
        width=115,
    )
    return fig


__all__ = ["CLAIM", "NAME", "check", "figure"]
