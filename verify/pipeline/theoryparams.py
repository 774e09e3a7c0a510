"""The parameters of a check: the algorithm's (the experiment's, the user's, and those the theorem's step sets)
and the bound's (a quadratic's exact constants, a model's measured ones, the given ones), each name used or
refused. Shared by the checks (:mod:`verify.pipeline.check`), the worst-case search and the trend checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from sfltheory.constants import Constants
from sfltheory.errors import NumericRangeError, ParameterError
from sfltheory.experiments import Experiment
from verify.problems import Problem, QuadraticProblem
from verify.train import get


def algorithm_params(exp: Experiment, ev_params: dict[str, Any], step: float) -> dict[str, Any]:
    """The algorithm's parameters: the experiment's shared ones and options, and each parameter the theorem's step
    sets at the value the theorem itself derives for it (MU-SplitFed: eta_s = eta, eta_c = tau eta)."""
    takes = {s.name for s in get(exp.algorithm).takes}
    out = {**{k: v for k, v in exp.params.items() if k in takes}, **exp.algorithm_only}
    for name in exp.step_to:
        out[name] = float(np.asarray(ev_params[name])) if name in ev_params else step
    return out


def with_user_params(exp: Experiment, r: Any, user: Mapping[str, Any]) -> Experiment:
    """``exp`` with the user's algorithm parameters: one the result names too (``K``, ``tau``, ``lam``) is a shared
    parameter, used by the run and the bound alike (and no longer derived); the others are options of the run.
    A parameter the theorem's step sets, or one the algorithm does not take, is refused."""
    takes = {s.name for s in get(exp.algorithm).takes}
    used = set(r.parameters())
    for k in user:
        if k in exp.step_to:
            raise ParameterError(k, f"the theorem's step {r.step} sets {', '.join(exp.step_to)}: give {r.step}=VALUE")
        if k not in takes:
            raise ParameterError(k, f"not a parameter of {exp.algorithm} ({', '.join(sorted(takes))})")
    shared = {k: v for k, v in user.items() if k in used or k in exp.params}
    return dataclasses.replace(
        exp,
        params={**exp.params, **shared},
        algorithm_only={**exp.algorithm_only, **{k: v for k, v in user.items() if k not in shared}},
        derive={k: v for k, v in exp.derive.items() if k not in user},
    )


def user_notes(user: Mapping[str, Any], r: Any) -> list[str]:
    """One note per algorithm parameter the user gave: where it is used."""
    used = set(r.parameters())
    return [f"{k} = {v}: given (the run{' and the bound' if k in used else ''})" for k, v in user.items()]


def theory_params(exp: Experiment, r: Any, problem: QuadraticProblem, batch: int) -> tuple[dict[str, Any], list[str]]:
    """The bound's parameters on a quadratic: its exact constants picked by the result's assumptions, the
    experiment's shared parameters, M, equal aggregation weights and the dimensions; with one note per pick."""
    measured, notes = problem.constants(batch=batch).params_for(r)
    used = set(r.parameters())
    params: dict[str, Any] = {**measured, **{k: v for k, v in exp.params.items() if k in used}}
    if "M" in used:
        params["M"] = problem.M
    if "sum_alpha2" in used:
        params["sum_alpha2"] = 1.0 / problem.M  # equal aggregation weights
    n = problem.counts()
    for name, value in {"d": n.d, "d_c": n.d_c, "d_s": n.d_s}.items():
        if name in used and name not in params:
            params[name] = float(value)
    return params, notes


def model_theory_params(exp: Experiment, r: Any, problem: Problem, constants: Constants, batch: int,
                        given: Mapping[str, float]) -> tuple[dict[str, float], list[str]]:  # fmt: skip
    """The bound's parameters on a model: the measured constants picked by the result's assumptions, the
    experiment's parameters, the problem's counts and the given constants (which replace a measured value, said
    so). A constant the result needs that is neither measured nor given raises an error naming it."""
    measured, notes = constants.params_for(r)
    used = set(r.parameters())
    params: dict[str, float] = {**measured, **{k: float(v) for k, v in exp.params.items() if k in used}}
    n = problem.counts()
    counts = {"M": n.M, "d_c": n.d_c, "d_s": n.d_s, "d": n.d, "batch": batch, "sum_alpha2": 1.0 / n.M,
              "d_aux": n.d_aux}  # fmt: skip
    for k, v in counts.items():
        if k in used:
            params[k] = float(v)
    if "eps2" in used and n.M == 1 and "eps2" not in given:
        params["eps2"] = 0.0
        notes.append("eps2 = 0: one client, no heterogeneity")
    for k, v in given.items():
        if k not in used:
            raise ParameterError(k, f"result '{r.id}' does not use it (it uses: {', '.join(sorted(used))})")
        what = "replaces the measured value" if k in measured else "not measurable from a run"
        params[k] = float(v)
        notes.append(f"{k} = {v:g}: given ({what})")
    return params, notes


def finite_at(compute: Callable[[dict[str, Any]], Any], params: dict[str, Any]) -> bool:
    """Whether ``compute(params)`` stays in the floating-point range."""
    try:
        compute(params)
    except NumericRangeError:
        return False
    return True


def at_values(compute: Callable[..., Any], r: Any, extra: Mapping[str, Any]) -> Callable[[dict[str, Any]], Any]:
    """``compute(r, params)`` with ``extra`` on top of the params (a step, T): for :func:`finite_bound`."""
    return lambda p: compute(r, {**p, **extra})


__all__ = [
    "algorithm_params",
    "at_values",
    "finite_at",
    "model_theory_params",
    "theory_params",
    "user_notes",
    "with_user_params",
]
