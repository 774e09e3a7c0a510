r"""Measured against predicted on a split torch model: the constants measured along the trajectory.

On a model nothing is exact, so each leg (one step size) is checked as follows:

1. the algorithm runs over ``seeds`` seeds (same model, data and clients; the algorithm's own draws differ), and
   the left-hand side at every T is their mean with its standard error -- the theorem bounds an expectation
   over exactly that randomness;
2. along the seed-0 run the constants the result assumes are measured (:func:`verify.constants.measure`, the
   variant each assumption needs: :func:`sfltheory.constants.needed_keys`) at ``points`` rounds from x^0 to
   x^T, and summarised by their sup (:func:`verify.constants.track.summarise`, quantiles as variants) -- the
   theorems assume bounds that hold at every iterate, and the sup over the iterates visited is the smallest
   value consistent with the run;
3. the bound is evaluated with the sup constants at every T, and the verdict is that of
   :mod:`verify.pipeline.verification` (``holds`` when mean + 3 se stays below the bound at every T).

The admissible leg runs at the largest step the hypotheses admit with the constants measured at x^0 (the
constants of the trajectory can be larger, so the record says whether the hypotheses still hold with them);
the practical leg runs at the user's step, or the algorithm's default, where the hypotheses usually fail
(which the record says). Constants no run can measure (an output drift, a constant of an assumption without an
estimator) are given as ``name=value`` or by the experiment's stated default, never silently.
"""

from __future__ import annotations

import dataclasses
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp
import torch
from torch import nn

import sfltheory as st
from sfltheory import variants as var
from sfltheory.constants import Constants, needed_keys
from sfltheory.errors import ParameterError, SflTheoryError
from verify.constants.measure import group_of_key, measure
from verify.constants.track import summarise
from verify.train import ModelProblem, get

from .experiments import LHS_KINDS, Experiment, experiment
from .verification import Leg, Verification, algorithm_params, gradnorm2_runs, leg_from_series

DEFAULT_POINTS = 3  # rounds where the constants are measured: x^0, x^{T/2}, x^T


def whole_model(problem: ModelProblem) -> nn.Module:
    """The client and server modules as one ``nn.Sequential`` (parameters ``client.*`` and ``server.*``), which
    :func:`verify.constants.measure` takes with the split ``{"client": ["client"], "server": ["server"]}``."""
    return nn.Sequential(OrderedDict(client=problem.client, server=problem.server))


SPLIT = {"client": ["client"], "server": ["server"]}


def _groups(result: str, problem: ModelProblem, lam: float | None, batch: int) -> tuple[list[str], dict[str, Any]]:
    """The measurement groups the result's assumptions need, and the options they require."""
    keys = needed_keys(result)
    groups = sorted({g for k in keys if (g := group_of_key(k)) is not None} - {"F"} | {"F", "gradnorm2_f"})
    kw: dict[str, Any] = {}
    if "eps2" in groups and problem.M < 2:
        groups.remove("eps2")  # one client: no heterogeneity (the result's eps2 is then given or 0)
    if "zo" in groups:
        if lam is None:
            raise ParameterError("lam", f"{result} needs the zeroth-order estimator's error: give its radius lam")
        kw["lam"] = float(lam)
    if any(var.BATCH in var.split(k)[1] for k in keys):
        kw["batch"] = batch
    return groups, kw


class TrajectoryMeter:
    """Measures constants at chosen rounds of a run (an ``observe`` hook of :func:`verify.train.run`)."""

    def __init__(self, result: str, problem: ModelProblem, rounds: set[int], *, lam: float | None, batch: int,
                 seed: int = 0) -> None:  # fmt: skip
        self.problem = problem
        self.rounds = rounds
        self.model = whole_model(problem)
        self.groups, self.kw = _groups(result, problem, lam, batch)
        self.seed = seed
        self.points: list[Constants] = []
        self.steps: list[int] = []
        self.notes: list[str] = []

    def at(self, pc: Mapping[str, torch.Tensor], ps: Mapping[str, torch.Tensor], t: int = 0) -> Constants:
        params = {**{f"client.{k}": v for k, v in pc.items()}, **{f"server.{k}": v for k, v in ps.items()}}
        p = self.problem

        def go(groups: list[str]) -> Constants:
            return measure(self.model, p.lossf, (p.X, p.y), SPLIT, groups, clients=p.indices, params=params,
                           device=p.device, dtype=p.dtype, seed=self.seed, **self.kw)  # fmt: skip

        try:
            return go(self.groups)
        except SflTheoryError as e:
            # kappa = tr(H)/||H|| is 0/0 where a part's Hessian block vanishes (every ReLU of the client dead):
            # the assumption tr(H) <= kappa ||H|| then holds for any kappa, so that point sets no kappa
            if "kappa" not in self.groups:
                raise
            self.notes.append(f"kappa not measured at round {t} ({e}); that point sets no kappa")
            return go([g for g in self.groups if g != "kappa"])

    def __call__(self, t: int, pc: Mapping[str, torch.Tensor], ps: Mapping[str, torch.Tensor]) -> None:
        if t in self.rounds and t not in self.steps:
            self.points.append(self.at(pc, ps, t))
            self.steps.append(t)

    def summary(self) -> Constants:
        return summarise(self.points, self.steps)


def measured_rounds(T: int, points: int) -> set[int]:
    """``points`` rounds evenly spread over 0..T (0 and T always among them)."""
    if points < 1:
        raise ParameterError("points", f"must be at least 1 (got {points})")
    return {round(i * T / max(points - 1, 1)) for i in range(points)} if points > 1 else {0}


def model_theory_params(exp: Experiment, r: Any, problem: ModelProblem, constants: Constants, batch: int,
                        given: Mapping[str, float]) -> tuple[dict[str, float], list[str]]:  # fmt: skip
    """The bound's parameters: the measured constants picked by the result's assumptions, the experiment's
    parameters, the problem's counts and the given constants (which replace a measured value, said so).
    A constant the result needs that is neither measured nor given raises an error naming it."""
    measured, notes = constants.params_for(r)
    used = set(r.parameters())
    params: dict[str, float] = {**measured, **{k: float(v) for k, v in exp.params.items() if k in used}}
    counts = {"M": problem.M, "d_c": problem.d_c, "d_s": problem.d_s, "d": problem.d_c + problem.d_s,
              "batch": batch, "sum_alpha2": 1.0 / problem.M,
              "d_aux": sum(p.numel() for p in problem.aux.parameters()) if problem.aux is not None else 0}  # fmt: skip
    for k, v in counts.items():
        if k in used:
            params[k] = float(v)
    if "eps2" in used and problem.M == 1 and "eps2" not in given:
        params["eps2"] = 0.0
        notes.append("eps2 = 0: one client, no heterogeneity")
    for k, v in given.items():
        if k not in used:
            raise ParameterError(k, f"result '{r.id}' does not use it (it uses: {', '.join(sorted(used))})")
        what = "replaces the measured value" if k in measured else "not measurable from a run"
        params[k] = float(v)
        notes.append(f"{k} = {v:g}: given ({what})")
    return params, notes


def _derive(exp: Experiment, params: Mapping[str, float]) -> dict[str, float]:
    out = {}
    for name, expr in exp.derive.items():
        e = sp.sympify(expr)
        missing = {s.name for s in e.free_symbols} - set(params)
        if missing:
            raise ParameterError(name, f"its rule {expr} needs {', '.join(sorted(missing))}, which was not measured")
        out[name] = float(e.subs({sp.Symbol(k): v for k, v in params.items()}))
    return out


def _run_leg(r: Any, exp: Experiment, problem: ModelProblem, mode: str, step: float, base: Mapping[str, float],
             c0: Constants, derived: Mapping[str, float], given: Mapping[str, float], *, T: int, seeds: int,
             batch: int, points: int, lam: float | None
             ) -> tuple[Leg, Constants, dict[str, float], list[str]]:  # fmt: skip
    """One leg at the theorem's step ``step``: the algorithm's parameters as the theorem derives them from
    ``base`` (x^0's constants, or the trajectory's on a re-run), ``seeds`` runs, the constants along the seed-0
    run (x^0's measurement reused), the bound with their sup, the verdict."""
    ev = st.evaluate(r, {**base, r.step: step, "T": float(T)})
    takes = {p.name for p in get(exp.algorithm).takes}
    algo = {**{k: v for k, v in derived.items() if k in takes}, **algorithm_params(exp, ev.params, step)}
    meter = TrajectoryMeter(r.id, problem, measured_rounds(T, points), lam=lam, batch=batch)
    meter.points, meter.steps = [c0], [0]
    g = gradnorm2_runs(exp.algorithm, problem, algo, T, seeds=seeds, batch=batch, observe=meter)
    summary = meter.summary()
    theory, notes = model_theory_params(exp, r, problem, summary, batch, given)
    notes += meter.notes
    theory.update(derived)
    return leg_from_series(r, exp, mode, step, g, theory, T=T), summary, theory, notes


def verify_on_model(
    result: str,
    problem: ModelProblem,
    *,
    T: int = 30,
    seeds: int = 3,
    batch: int = 32,
    points: int = DEFAULT_POINTS,
    step: float | None = None,
    params: Mapping[str, Any] | None = None,
    given: Mapping[str, float] | None = None,
    practical: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Verification:
    """Check ``result`` on ``problem`` (see the module docstring).

    ``step``: the theorem's step (``Result.step``) for a second leg, ``given`` (without it, a ``practical`` leg
    at the algorithm's default for the parameter the step sets runs when that is larger than the admissible
    step); ``params``: the algorithm's other parameters (``tau``, ``K``, ``order`` ...), replacing the
    experiment's; ``given``: constants of the bound (``delta``, or a measured one to override)."""
    exp = experiment(result)
    r = st.get(result)
    assert r.step is not None
    cls = get(exp.algorithm)
    takes = {s.name: s for s in cls.takes}
    user = dict(params or {})
    for k in user:
        if k in exp.step_to:
            raise ParameterError(k, f"the theorem's step {r.step} sets {', '.join(exp.step_to)}: give {r.step}=VALUE")
        if k not in takes:
            raise ParameterError(k, f"not a parameter of {exp.algorithm} ({', '.join(takes)})")
    exp = dataclasses.replace(  # the user's parameters: shared ones replace the experiment's, the rest are options
        exp,
        params={**exp.params, **{k: v for k, v in user.items() if k in exp.params}},
        algorithm_only={**exp.algorithm_only, **{k: v for k, v in user.items() if k not in exp.params}},
    )
    say = progress or (lambda s: None)
    lam = exp.params.get("lam")
    given_all = {**exp.given, **(given or {})}
    # x^0: the constants that set the admissible step (and the derived parameters)
    meter0 = TrajectoryMeter(result, problem, {0}, lam=lam, batch=batch)
    say(f"{result}: measuring the constants at x^0")
    init = problem.init()
    c0 = meter0.at(init["client"], init["server"])
    p0, _ = model_theory_params(exp, r, problem, c0, batch, given_all)
    derived = _derive(exp, p0)
    p0.update(derived)
    steps: list[tuple[str, float]] = []
    if not exp.at_choice:
        admissible = float(np.asarray(st.max_step(result, {**p0, "T": T}).max_step))
        if math.isfinite(admissible) and admissible > 0:
            steps.append(("admissible", admissible))
    practical_step = step if step is not None else float(takes[exp.step_to[0]].default)
    if step is not None:  # the user's step always runs
        steps.append(("given", step))
    elif practical:  # after the admissible leg, and only when larger than the step that leg settled on
        steps.append(("practical", practical_step))
    legs: list[Leg] = []
    notes: list[str] = []
    constants: dict[str, float] = {}
    errors: dict[str, float] = {}
    rerun = ""
    for mode, s in steps:
        if mode == "practical" and legs and s <= 1.01 * legs[0].step:
            continue
        say(f"{result}: {mode} step {s:.3g}, {seeds} seeds x {T} rounds, constants at {points} rounds")
        leg, summary, theory, leg_notes = _run_leg(r, exp, problem, mode, s, p0, c0, derived, given_all, T=T,
                                                    seeds=seeds, batch=batch, points=points, lam=lam)  # fmt: skip
        if mode == "admissible" and not leg.applies:
            # the trajectory's constants exceed those of x^0: the step is recomputed with them and the leg re-run
            # once, so the claim is tested where its hypotheses hold (when they can)
            again = float(np.asarray(st.max_step(result, {**theory, "T": T}).max_step))
            if math.isfinite(again) and 0 < again < s:
                say(f"{result}: admissible step {again:.3g} with the trajectory's constants, re-run")
                grew = ", ".join(f"{k} {p0[k]:.3g} -> {theory[k]:.3g}" for k in sorted(theory)
                                 if k in p0 and k not in given_all and theory[k] > 1.01 * p0[k])  # fmt: skip
                rerun = (f"admissible leg: the step {s:.3g} that x^0's constants admit failed "
                         f"{', '.join(leg.failing)} with the constants of its trajectory ({grew or 'no growth'}); "
                         f"re-run at {again:.3g}, the step those constants admit")  # fmt: skip
                s = again
                leg, summary, theory, leg_notes = _run_leg(r, exp, problem, mode, s, theory, c0, derived, given_all,
                                                            T=T, seeds=seeds, batch=batch, points=points,
                                                            lam=lam)  # fmt: skip
        legs.append(leg)
        if rerun:
            leg_notes.append(rerun)
            rerun = ""
        if not constants:  # the first leg's constants are the ones the report shows
            constants = {k: v for k, v in theory.items() if k not in exp.params and k not in derived}
            notes = leg_notes + [f"{k} = {v:.4g}: {exp.derive[k]} at the constants of x^0" for k, v in
                                 derived.items()]  # fmt: skip
            keys = {c.name: c.key for c in summary.choices(r) if c.key is not None}
            for k in constants:
                est = summary.get(keys.get(k, k)) if k not in given_all else None
                if est is not None and est.se is not None and math.isfinite(est.se):
                    errors[k] = float(est.se)
    if exp.given_note:
        notes.append(exp.given_note)
    desc = problem.describe()
    return Verification(
        result=result, algorithm=exp.algorithm, method=f"Monte Carlo over {seeds} seeds on {desc['name']}",
        lhs=LHS_KINDS[exp.lhs], note=exp.note, constants=constants, constant_notes=notes,
        params={**exp.params, **exp.algorithm_only, **derived}, legs=tuple(legs),
        problem=f"{desc['name']}: M = {problem.M}, d_c = {problem.d_c}, d_s = {problem.d_s}, constants measured "
        f"at {points} rounds of the seed-0 trajectory (sup)", constant_errors=errors,
    )  # fmt: skip


__all__ = ["SPLIT", "TrajectoryMeter", "measured_rounds", "model_theory_params", "verify_on_model", "whole_model"]
