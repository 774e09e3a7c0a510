"""How the trend checks get their numbers: the theory's parameters on an exact quadratic, the quadratic the
MU-SplitFed sweeps train on, and the training runs themselves (in this process, or through a ``measure`` such as
``verify.sweep.trends.sweep_measure``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.experiments import Experiment
from verify.pipeline.theoryparams import theory_params
from verify.sweep.entries import measure_locally

Progress = Callable[[str], None] | None
# How the sweeps' training runs are done: given train configurations (``verify.sweep`` names) and the series to
# record, the series of each run in order. Default: one after the other in this process; ``verify.sweep.trends``
# gives one that runs them as a sweep (a process pool or Ray, resumable) and reads them from its table.
MeasureFn = Callable[[Sequence[Mapping[str, Any]], Sequence[str]], Sequence[Mapping[str, np.ndarray]]]
Measure = MeasureFn | None


def measure_runs(measure: Measure, configs: Sequence[Mapping[str, Any]], series: Sequence[str]) -> list[dict[str, Any]]:
    """The named series of each configuration's training run, in order (through ``measure`` when given)."""
    if measure is None:
        return measure_locally(configs, series)
    return [dict(x) for x in measure(configs, series)]


def say(progress: Progress, msg: str) -> None:
    """Report progress when the caller asked for it."""
    if progress is not None:
        progress(msg)


def exact_params(result: str, problem: Any, batch: int, params: Mapping[str, float]) -> dict[str, Any]:
    """The result's parameters on an exact quadratic: its exact constants picked by the result's assumptions,
    plus ``params`` (only those the result uses)."""

    r = st.get(result)
    exp = Experiment(result=result, algorithm="sl", step_to=(), params=dict(params))
    p, _ = theory_params(exp, r, problem, batch)
    return {k: v for k, v in p.items() if k in set(r.parameters())}


def quadratic_config(d: int, d_c: int, M: int) -> dict[str, Any]:
    """The MU-SplitFed sweeps' quadratic as a train configuration: L = 1, mu = 0.1, sigma2 = eps2 = F = 1, Rademacher
    noise, built from seed 0 for every run (the runs' seeds vary), on the CPU."""
    return {"algorithm": "mu_splitfed", "problem": "quadratic", "L": 1.0, "mu": 0.1, "sigma2": 1.0, "eps2": 1.0,
            "d": int(d), "d_c": int(d_c), "M": int(M), "F": 1.0, "noise": "rademacher", "problem_seed": 0,
            "device": "cpu"}  # fmt: skip


__all__ = ["Measure", "MeasureFn", "Progress", "exact_params", "measure_runs", "quadratic_config", "say"]
