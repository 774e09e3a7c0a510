r"""Measured against predicted for one result: a :class:`verify.spec.CheckSpec` in, a :class:`Verification` out.

The algorithm the result analyses runs on the spec's problem (or the result's default one), the bound is evaluated
at every T with the problem's constants, and each leg (one step size) says whether the bound holds, how tight it
is and whether the decay matches (:mod:`verify.pipeline.verdicts`).

* **On an exact quadratic** the constants are exact (:meth:`verify.problems.QuadraticProblem.constants`); for
  first-order algorithms the left-hand side is exact too (:mod:`verify.pipeline.exact`), for zeroth-order ones a
  Monte-Carlo mean over seeds. Each result runs at the largest step its statement's hypotheses admit (the claim
  as stated) and, where that step is impractically small, at a practical step (where the hypotheses fail, which
  the record says), or at the user's ``step`` (a ``given`` leg) instead; a corollary whose step is a function
  of T runs once per T at its own choice. The user's algorithm parameters (``params``) are the run's, and the
  bound's where the result names them (``K``, ``tau``); ``overrides`` replace constants in the bound (e.g. to
  see what an underestimated sigma2 does); the run is unchanged.
* **On a split torch model** nothing is exact: the algorithm runs over ``seeds`` seeds and the left-hand side is
  their mean with its standard error; along the seed-0 run the constants the result assumes are measured at
  ``points`` rounds and summarised by their sup (:mod:`verify.pipeline.trajectory`), and the bound uses them.
  The admissible leg runs at the largest step the hypotheses admit with x^0's constants (re-run once with the
  trajectory's where those break its hypotheses); a ``given`` leg at the user's step, else a ``practical`` one at
  the algorithm's default. Constants no run can measure are given as ``name=value`` or by the experiment's stated
  default, never silently.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.atomic import write_atomic
from sfltheory.constants import Constants
from sfltheory.errors import NumericRangeError, ParameterError
from sfltheory.experiments import LHS_KINDS, Experiment, experiment, lhs_quantity
from verify.device import present, resolve_device
from verify.pipeline.report import clean, result_stem
from verify.problems import ModelProblem, Problem, QuadraticProblem, build
from verify.spec import CheckSpec, ModelSpec, ProblemSpec
from verify.train import get, run
from verify.train.loop import check_budget

from .exact import exact_moments, round_seconds
from .fromrun import verify_run
from .records import Leg, Verification
from .theoryparams import (
    algorithm_params,
    at_values,
    finite_at,
    model_theory_params,
    theory_params,
    user_notes,
    with_user_params,
)
from .tightest import tightest_of
from .trajectory import TrajectoryMeter, derive, measured_rounds
from .verdicts import (
    CONFIDENCE,
    exact_applies,
    failing_hypotheses,
    leg_from_points,
    leg_from_series,
    lhs_interval,
    lhs_series,
)

PRACTICAL_STEP = 0.05  # times 1/L: a step that trains the default quadratic in tens of rounds
# the default problem of a result no quadratic satisfies (bounded gradients): an MLP on digits, non-IID clients
DEFAULT_MODEL = ModelSpec(model="mlp", data="digits", input_shape=(64,), clients=4, partition="dirichlet:0.5")
MODEL_SEEDS = 3  # seeds on a model problem when none are given (each is a training run)
QUADRATIC_SEEDS = 24  # Monte-Carlo seeds of a zeroth-order algorithm on a quadratic: the first stage
QUADRATIC_SEEDS_CAP = 96  # ... doubled while the verdict is inconclusive (the bound within the interval), up to this
CACHE_FORMAT = "sfltheory.verification-cache/2"


# --- the problem --------------------------------------------------------------------------------------------------


def default_problem(exp: Experiment, seed: int = 0) -> QuadraticProblem:
    """The default exact problem: d = 10 (5 on the client; or the experiment's d, d_c), eigenvalues in [0.1, 1],
    sigma2 = 1, eps2 = 1, F = 1."""
    d = exp.d or 10
    d_c = exp.d_c or d // 2
    return QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=1.0, eps2=1.0 if exp.M > 1 else 0.0, d=d, d_c=d_c,
                                         M=exp.M, F=1.0, seed=seed, noise=exp.noise)  # fmt: skip


def problem_for(exp: Experiment, spec: ProblemSpec | None, seed: int = 0, device: str = "cpu") -> Problem:
    """The problem a check runs on: ``spec``, or the experiment's default (a quadratic, or :data:`DEFAULT_MODEL`);
    a model on ``device`` (a quadratic's exact moments are computed on the CPU)."""
    if spec is None:
        return build(DEFAULT_MODEL, device=device) if exp.problem == "model" else default_problem(exp, seed)
    if spec.kind == "quadratic" and exp.problem == "model":
        raise ParameterError("problem", f"{exp.result} assumes bounded gradients, which no quadratic has: verify it "
                             "on a model (--model, --data)")  # fmt: skip
    return build(spec, device=device if spec.kind == "model" else "cpu")


def quadratic_description(q: QuadraticProblem) -> str:
    """One line for the report: the quadratic's name and sizes (its constants are exact)."""
    return f"exact quadratic {q.name}: d = {q.d}, d_c = {q.d_c}, M = {q.M} (constants exact)"


# --- runs ---------------------------------------------------------------------------------------------------------


def gradnorm2_runs(algorithm: str, problem: Problem, algo_params: Mapping[str, Any], T: int, *, seeds: int,
                   batch: int, exact: bool = False, observe: Any = None,
                   first_seed: int = 0, quantity: str = "gradnorm2") -> np.ndarray:  # fmt: skip
    """||grad f(x^t)||^2 for t < T (or ``quantity``: ``gradnorm2_server``, its server part): one exact row
    (``exact``: a first-order algorithm on a quadratic), or one row per seed, seeds ``first_seed`` onwards (inf
    after a divergence: the rest of the curve is above every bound). ``observe`` is the seed-0 run's
    :func:`verify.train.run` hook (constants measured along the trajectory)."""
    if exact:
        assert isinstance(problem, QuadraticProblem)  # exact moments exist on a quadratic only
        moments = exact_moments(get(algorithm)(**algo_params), problem, T=T, batch=batch)
        return moments.series(quantity)[None, :T]
    runs = []
    for s in range(first_seed, first_seed + seeds):
        start = time.perf_counter()
        out = run(get(algorithm)(**algo_params), problem, T=T, batch=batch, seed=s, progress=False,
                  observe=observe if s == first_seed else None)  # fmt: skip
        if s == first_seed and seeds > 1:  # each run checks its own T; the first times all of them
            check_budget(seeds, time.perf_counter() - start, T=T, what=f"rounds x {seeds} seeds",
                         took=f"seed {s}'s run")  # fmt: skip
        series = out.series(quantity)
        if len(series) < T:
            series = np.concatenate([series, np.full(T + 1 - len(series), np.inf)])
        runs.append(series[:T])
    return np.asarray(runs)


# --- on an exact quadratic ----------------------------------------------------------------------------------------


def seed_stages(seeds: int | None) -> list[int]:
    """The seed counts of the sequential rule: the user's count alone, else :data:`QUADRATIC_SEEDS` doubled up
    to :data:`QUADRATIC_SEEDS_CAP`."""
    if seeds is not None:
        return [seeds]
    out = [QUADRATIC_SEEDS]
    while 2 * out[-1] <= QUADRATIC_SEEDS_CAP:
        out.append(2 * out[-1])
    return out


def quadratic_leg(exp: Experiment, r: Any, problem: QuadraticProblem, params: dict[str, Any], mode: str,
                  step: float, *, T: int, seeds: int | None, batch: int, exact: bool) -> Leg:  # fmt: skip
    r"""One leg at the theorem's step ``step``. Exact: one computation. Monte Carlo: a sequential rule, more
    seeds where the bound is near: the stages of :func:`seed_stages` run until the verdict is conclusive (the
    simultaneous interval clear of the bound) or the cap. Each stage's interval is at confidence
    :math:`1-\alpha/S` over the S stages, so by the union bound the verdict the rule stops at holds at
    :math:`1-\alpha` (:data:`verify.pipeline.verdicts.CONFIDENCE`), optional stopping included."""
    assert r.step is not None
    ev = st.evaluate(r, {**params, r.step: step, "T": float(T)})
    algo = algorithm_params(exp, ev.params, step)
    if exact:
        g = gradnorm2_runs(exp.algorithm, problem, algo, T, seeds=1, batch=batch, exact=True,
                           quantity=lhs_quantity(exp.lhs))  # fmt: skip
        return leg_from_series(r, exp, mode, step, g, params, T=T, exact=True)
    stages = seed_stages(seeds)
    level = 1 - (1 - CONFIDENCE) / len(stages)
    rows = np.zeros((0, T))
    for n in stages:
        more = gradnorm2_runs(exp.algorithm, problem, algo, T, seeds=n - len(rows), batch=batch,
                              first_seed=len(rows), quantity=lhs_quantity(exp.lhs))  # fmt: skip
        rows = np.concatenate([rows, more])
        leg = leg_from_series(r, exp, mode, step, rows, params, T=T, exact=False, confidence=level)
        if leg.verdict != "inconclusive":
            break
    return leg


def choice_leg(exp: Experiment, r: Any, problem: QuadraticProblem, params: dict[str, Any], *, T: int, seeds: int,
               batch: int, exact: bool) -> Leg:  # fmt: skip
    """A corollary's own choice of the step depends on T: one run per T on a grid, each at the step the corollary
    sets for that T, its left-hand side at T against the bound at T (Monte Carlo: intervals simultaneous over the
    grid, Bonferroni)."""
    grid = choice_grid(T)
    lhs_pts, lo_pts, hi_pts, bound_pts, steps, failing = [], [], [], [], [], set()
    assert r.step is not None
    for t in grid:
        ev = st.evaluate(r, {**params, "T": float(t)})
        step = float(np.asarray(ev.params[r.step]))
        g = gradnorm2_runs(exp.algorithm, problem, algorithm_params(exp, ev.params, step), int(t), seeds=seeds,
                           batch=batch, exact=exact, quantity=lhs_quantity(exp.lhs))  # fmt: skip
        if exact:
            lhs, _ = lhs_series(exp.lhs, g, step)
            lo = hi = lhs
        else:
            lhs, lo, hi = lhs_interval(exp.lhs, g, step, m=len(grid))
        lhs_pts.append(lhs[-1])
        lo_pts.append(lo[-1])
        hi_pts.append(hi[-1])
        bound_pts.append(float(np.asarray(ev.value)))
        steps.append(step)
        failing |= failing_hypotheses(ev)
    lo_arr = None if exact else np.asarray(lo_pts)
    hi_arr = None if exact else np.asarray(hi_pts)
    return leg_from_points("corollary's choice", grid, np.asarray(lhs_pts), lo_arr, hi_arr, np.asarray(bound_pts),
                           steps[-1], failing, confidence=None if exact else CONFIDENCE,
                           seeds=1 if exact else seeds)  # fmt: skip


@dataclasses.dataclass(frozen=True, kw_only=True)
class QuadraticSetting:
    """A check on an exact quadratic, prepared: the user's names checked and folded in, the bound's parameters,
    and the steps its legs run at, each with a finite bound at every T (checked before any run)."""

    exp: Experiment
    r: Any
    quad: QuadraticProblem
    params: dict[str, Any]
    notes: list[str]
    measured: dict[str, float]
    exact: bool
    batch: int
    steps: tuple[tuple[str, float], ...]  # (mode, step) of each leg; empty for a corollary's own choice


def choice_grid(T: int) -> np.ndarray:
    """The values of T at which a corollary whose step depends on T runs (one run each)."""
    return np.unique(np.geomspace(2, T, num=min(T - 1, 6)).round().astype(int)) if T > 2 else np.array([T])


def finite_bound(spec: CheckSpec, r: Any, compute: Callable[[dict[str, Any]], Any], params: dict[str, Any],
                 base: Mapping[str, Any]) -> Any:  # fmt: skip
    """``compute(params)`` (a bound or a step at the check's constants); a bound outside the floating-point range
    there is refused naming the user's value that puts it there (``base``: the bound's parameters before the
    user's overrides), before any run: never an inf in a report."""
    try:
        return compute(params)
    except NumericRangeError as e:
        given = {**dict(spec.overrides), **({r.step: spec.step} if spec.step is not None else {})}
        culprits = [k for k in given if not finite_at(compute, {**base, k: params.get(k, given[k])})]
        named = culprits or list(given) or [spec.result]  # one parameter named; the others said in the rule
        also = f" (with {', '.join(named[1:])} as given)" if len(named) > 1 else ""
        raise ParameterError(named[0], f"{spec.result}'s bound at these constants{also} is not finite ({e})") from None


def prepare_quadratic(spec: CheckSpec, exp: Experiment, quad: QuadraticProblem) -> QuadraticSetting:
    """Everything a check on an exact quadratic needs before its runs, checked: the user's parameters and
    overrides, the steps of its legs, and a finite bound at every T at each (a ParameterError otherwise)."""
    r = st.get(spec.result)
    assert r.step is not None
    if spec.step is not None and exp.at_choice:
        raise ParameterError(r.step, f"'{spec.result}' sets its step as a function of T (the corollary's own "
                             "choice): verify its parent theorem at a given step")  # fmt: skip
    exp = with_user_params(exp, r, spec.params)
    batch = spec.batch_size(False)
    params, notes = theory_params(exp, r, quad, batch)
    base = dict(params)
    notes += user_notes(spec.params, r)
    used = set(r.parameters())
    for k, v in spec.overrides.items():
        if k not in used or k == r.step or k == "T":
            raise ParameterError(k, f"result '{spec.result}' does not use it as a constant (its constants: "
                                 f"{', '.join(sorted(used - {r.step, 'T'}))})")  # fmt: skip
        params[k] = float(v)
        notes.append(f"{k} = {v:g}: given (overrides the exact value in the bound; the run is unchanged)")
    measured = {k: float(params[k]) for k in params if k not in exp.params}
    T = spec.T
    steps: list[tuple[str, float]] = []
    if exp.at_choice:
        for t in choice_grid(T):  # the corollary's step and bound at each T it runs at
            finite_bound(spec, r, at_values(st.evaluate, r, {"T": float(t)}), params, base)
    else:
        admissible = float(np.asarray(finite_bound(spec, r, lambda p: st.max_step(spec.result, {**p, "T": T}),
                                                   params, base).max_step))  # fmt: skip
        if not math.isfinite(admissible):  # every condition's limit beyond the float range: no step to run at
            limits = {s.name for h in r.hypotheses if h.kind == "step_size" for s in h.rhs.free_symbols}
            named = sorted(spec.overrides, key=lambda k: k not in limits) or [spec.result]  # a step limit's first
            also = f" (with {', '.join(named[1:])} as given)" if len(named) > 1 else ""
            raise ParameterError(named[0], f"at these constants{also} no condition of {spec.result} bounds "
                                 f"{r.step} (> 1.8e308): no step to run at")  # fmt: skip
        steps = [("admissible", admissible)]
        practical_step = PRACTICAL_STEP / float(params.get("L", 1.0))
        if spec.step is not None:  # the user's step always runs, in place of the practical one
            steps.append(("given", spec.step))
        elif spec.practical and practical_step > 1.01 * admissible:
            steps.append(("practical", practical_step))
        Ts = np.arange(1, T + 1, dtype=float)
        for _, at in steps:  # the bound at every T of each leg, as the leg evaluates it
            finite_bound(spec, r, at_values(st.bound_value, r, {r.step: at, "T": Ts}), params, {**base, r.step: at})
    exact = exact_applies(exp.algorithm, exp.sampled)
    return QuadraticSetting(exp=exp, r=r, quad=quad, params=params, notes=notes, measured=measured, exact=exact,
                            batch=batch, steps=tuple(steps))  # fmt: skip


def check_on_quadratic(spec: CheckSpec, exp: Experiment, quad: QuadraticProblem,
                       setting: QuadraticSetting | None = None) -> Verification:  # fmt: skip
    """``spec`` on an exact quadratic (see the module docstring); ``setting``: :func:`prepare_quadratic`'s."""
    s = setting or prepare_quadratic(spec, exp, quad)
    exp, r, params, batch, exact, T = s.exp, s.r, s.params, s.batch, s.exact, spec.T
    legs: tuple[Leg, ...]
    if exp.at_choice:
        legs = (choice_leg(exp, r, quad, params, T=T, seeds=spec.seeds or QUADRATIC_SEEDS, batch=batch,
                           exact=exact),)  # fmt: skip
    else:
        legs = tuple(quadratic_leg(exp, r, quad, params, mode, at, T=T, seeds=spec.seeds, batch=batch,
                                   exact=exact) for mode, at in s.steps)  # fmt: skip
    method = "exact moments (mean and covariance propagated)" if exact else monte_carlo_method(legs)
    return Verification(
        result=spec.result, algorithm=exp.algorithm, method=method, lhs=LHS_KINDS[exp.lhs], note=exp.note,
        constants=s.measured, constant_notes=s.notes, params={**params, **{k: v for k, v in spec.params.items()
        if k not in params}}, legs=legs, problem=quadratic_description(quad), confidence=None if exact else CONFIDENCE,
        tightest=tightest_of(spec, s, gradnorm2_runs) if spec.tightest else None,
    )  # fmt: skip


def monte_carlo_method(legs: tuple[Leg, ...]) -> str:
    """How the Monte-Carlo legs were measured, in words: the seeds each used and the intervals."""
    n = " / ".join(str(x) for x in sorted({leg.seeds for leg in legs}))
    return f"Monte Carlo over {n} seeds"  # the intervals' confidence is the record's own field (confidence)


# --- on a model ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelLeg:
    """A leg on a model with what it measured: the sup constants, the bound's parameters and the notes."""

    leg: Leg
    summary: Constants
    theory: dict[str, float]
    notes: list[str]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelSetting:
    """What every leg of a check on a model shares."""

    exp: Experiment
    r: Any
    problem: ModelProblem
    c0: Constants  # the constants at x^0
    p0: dict[str, float]  # the bound's parameters at x^0
    derived: dict[str, float]
    given: dict[str, float]
    T: int
    seeds: int
    batch: int
    points: int
    lam: float | None


def model_leg(s: ModelSetting, mode: str, step: float, base: Mapping[str, float]) -> ModelLeg:
    """One leg at the theorem's step ``step``: the algorithm's parameters as the theorem derives them from
    ``base`` (x^0's constants, or the trajectory's on a re-run), ``seeds`` runs, the constants along the seed-0
    run (x^0's measurement reused), the bound with their sup, the verdict."""
    r, exp = s.r, s.exp
    ev = st.evaluate(r, {**base, r.step: step, "T": float(s.T)})
    takes = {p.name for p in get(exp.algorithm).takes}
    algo = {**{k: v for k, v in s.derived.items() if k in takes}, **algorithm_params(exp, ev.params, step)}
    meter = TrajectoryMeter(r.id, s.problem, measured_rounds(s.T, s.points), lam=s.lam, batch=s.batch)
    meter.points, meter.steps = [s.c0], [0]
    g = gradnorm2_runs(exp.algorithm, s.problem, algo, s.T, seeds=s.seeds, batch=s.batch, observe=meter,
                       quantity=lhs_quantity(s.exp.lhs))  # fmt: skip
    summary = meter.summary()
    theory, notes = model_theory_params(exp, r, s.problem, summary, s.batch, s.given)
    notes += meter.notes
    theory.update(s.derived)
    return ModelLeg(leg=leg_from_series(r, exp, mode, step, g, theory, T=s.T, exact=False), summary=summary,
                    theory=theory,
                    notes=notes)  # fmt: skip


def admissible_rerun(s: ModelSetting, first: ModelLeg, step: float, say: Callable[[str], None]) -> ModelLeg:
    """The admissible leg again where the trajectory's constants exceed x^0's and break its hypotheses: the step
    is recomputed with them and the leg re-run once, so the claim is tested where its hypotheses hold (when they
    can). Returns ``first`` when no smaller step is admitted."""
    again = float(np.asarray(st.max_step(s.r.id, {**first.theory, "T": s.T}).max_step))
    if not (math.isfinite(again) and 0 < again < step):
        return first
    say(f"{s.r.id}: admissible step {again:.3g} with the trajectory's constants, re-run")
    grew = ", ".join(f"{k} {s.p0[k]:.3g} -> {first.theory[k]:.3g}" for k in sorted(first.theory)
                     if k in s.p0 and k not in s.given and first.theory[k] > 1.01 * s.p0[k])  # fmt: skip
    out = model_leg(s, "admissible", again, first.theory)
    out.notes.append(f"admissible leg: the step {step:.3g} that x^0's constants admit failed "
                     f"{', '.join(first.leg.failing)} with the constants of its trajectory ({grew or 'no growth'}); "
                     f"re-run at {again:.3g}, the step those constants admit")  # fmt: skip
    return out


def model_setting(spec: CheckSpec, exp: Experiment, problem: ModelProblem, say: Callable[[str], None]) -> ModelSetting:
    """The user's parameters checked and folded into the experiment, x^0's constants measured."""
    r = st.get(spec.result)
    assert r.step is not None
    exp = with_user_params(exp, r, spec.params)
    lam = exp.params.get("lam")
    given = {**exp.given, **spec.overrides}
    # 32 on a model the user names; a result's default model keeps the quadratic's 4 (as verify always ran it)
    batch = spec.batch_size(spec.on_model)
    say(f"{spec.result}: measuring the constants at x^0")
    init = problem.init()
    c0 = TrajectoryMeter(spec.result, problem, {0}, lam=lam, batch=batch).at(init["client"], init["server"])
    p0, _ = model_theory_params(exp, r, problem, c0, batch, given)
    derived = derive(exp, p0)
    p0.update(derived)
    return ModelSetting(exp=exp, r=r, problem=problem, c0=c0, p0=p0, derived=derived, given=given, T=spec.T,
                        seeds=spec.seeds or MODEL_SEEDS, batch=batch, points=spec.points, lam=lam)  # fmt: skip


def check_on_model(spec: CheckSpec, exp: Experiment, problem: ModelProblem,
                   progress: Callable[[str], None] | None = None) -> Verification:  # fmt: skip
    """``spec`` on a split model (see the module docstring)."""
    say = progress or (lambda s: None)
    s = model_setting(spec, exp, problem, say)
    takes = {p.name: p for p in get(s.exp.algorithm).takes}
    steps: list[tuple[str, float]] = []
    if not exp.at_choice:
        admissible = float(np.asarray(st.max_step(spec.result, {**s.p0, "T": s.T}).max_step))
        if math.isfinite(admissible) and admissible > 0:
            steps.append(("admissible", admissible))
    if spec.step is not None:  # the user's step always runs
        steps.append(("given", spec.step))
    elif spec.practical:  # after the admissible leg, and only when larger than the step that leg settled on
        steps.append(("practical", float(takes[s.exp.step_to[0]].default)))
    done: list[ModelLeg] = []
    for mode, at in steps:
        if mode == "practical" and done and at <= 1.01 * done[0].leg.step:
            continue
        say(f"{spec.result}: {mode} step {at:.3g}, {s.seeds} seeds x {s.T} rounds, constants at {s.points} rounds")
        one = model_leg(s, mode, at, s.p0)
        if mode == "admissible" and not one.leg.applies:
            one = admissible_rerun(s, one, at, say)
        done.append(one)
    return model_verification(spec, s, done)


def model_verification(spec: CheckSpec, s: ModelSetting, done: list[ModelLeg]) -> Verification:
    """The record of a check on a model: the first leg's constants (with their standard errors) are the ones the
    report shows."""
    constants: dict[str, float] = {}
    notes: list[str] = []
    errors: dict[str, float] = {}
    if done:
        first = done[0]
        constants = {k: v for k, v in first.theory.items() if k not in s.exp.params and k not in s.derived}
        notes = first.notes + [f"{k} = {v:.4g}: {s.exp.derive[k]} at the constants of x^0"
                               for k, v in s.derived.items()]  # fmt: skip
        keys = {c.name: c.key for c in first.summary.choices(s.r) if c.key is not None}
        for k in constants:
            est = first.summary.get(keys.get(k, k)) if k not in s.given else None
            if est is not None and est.se is not None and math.isfinite(est.se):
                errors[k] = float(est.se)
    if s.exp.given_note:
        notes.append(s.exp.given_note)
    desc = s.problem.describe()
    n = s.problem.counts()
    return Verification(
        result=spec.result, algorithm=s.exp.algorithm, confidence=CONFIDENCE,
        method=f"Monte Carlo over {s.seeds} seeds on {desc['name']}",
        lhs=LHS_KINDS[s.exp.lhs], note=s.exp.note, constants=constants, constant_notes=notes,
        params={**s.exp.params, **s.exp.algorithm_only, **s.derived}, legs=tuple(d.leg for d in done),
        problem=f"{desc['name']}: M = {n.M}, d_c = {n.d_c}, d_s = {n.d_s}, constants measured "
        f"at {s.points} rounds of the seed-0 trajectory (sup)", constant_errors=errors,
    )  # fmt: skip


# --- the one entry --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Prepared:
    """A check ready to run: its spec, experiment and problem built, and every parameter checked
    (:func:`prepare`); ``quadratic``: the setting of a check on an exact quadratic."""

    spec: CheckSpec
    exp: Experiment | None = None  # None: a check of a run read from disk (checked when its spec was parsed)
    problem: Problem | None = None
    quadratic: QuadraticSetting | None = None


def check_size(spec: CheckSpec, exp: Experiment, problem: Problem, *, legs: int, seeds: int,
               rounds: int | None = None) -> None:  # fmt: skip
    """Refuse a check whose runs would take longer than the time budget (``--max-hours``), before any run: two
    probe rounds of the algorithm on the problem time one, and ``legs`` x ``seeds`` runs of ``rounds`` (default
    T) rounds at least are needed (the sequential rule may add seeds; the runs check again as they go). Exact
    moments are not probed: their first round builds the round map the others mostly reuse, so it says little
    of them (:func:`verify.pipeline.exact.exact_moments` times its second round instead)."""
    takes = {p.name for p in get(exp.algorithm).takes}
    algo = get(exp.algorithm)(**{**{k: v for k, v in exp.params.items() if k in takes}, **exp.algorithm_only})
    start = time.perf_counter()
    run(algo, problem, T=2, batch=spec.batch_size(isinstance(problem, ModelProblem)), progress=False)
    per_round = (time.perf_counter() - start) / 2
    what = "rounds" + (f" x {seeds} seeds" if seeds > 1 else "") + (f" x {legs} step sizes" if legs > 1 else "")
    check_budget((rounds or spec.T) * seeds * legs, per_round, T=spec.T, what=what, took="a probe round")


def prepare_model(spec: CheckSpec, exp: Experiment) -> Experiment:
    """What a check on a model can check before its runs: a step chosen by the corollary, the user's
    parameters and the names of the given constants (the measured ones come from the runs); the experiment with
    the user's parameters."""
    if exp.at_choice:
        raise ParameterError(spec.result, "its step is a function of T (a corollary's choice): verify its parent "
                             "theorem on a model, or this result on an exact quadratic")  # fmt: skip
    r = st.get(spec.result)
    exp = with_user_params(exp, r, spec.params)
    used = set(r.parameters())
    for k in {**exp.given, **spec.overrides}:
        if k not in used:
            raise ParameterError(k, f"result '{r.id}' does not use it (it uses: {', '.join(sorted(used))})")
    return exp


def prepare(spec: CheckSpec) -> Prepared:
    """``spec`` made ready to run, before any run: its experiment, its problem built (a model and its data
    loaded: their errors come now), its parameters checked and, on an exact quadratic, the bound finite at every
    leg. A bad input raises a ParameterError here, so that a job refuses it before its first check runs."""
    if spec.run is not None:
        return Prepared(spec=spec)
    exp = experiment(spec.result)
    problem = problem_for(exp, spec.problem, device=resolve_device(present("device", spec.device)))
    if isinstance(problem, QuadraticProblem):
        q = prepare_quadratic(spec, exp, problem)
        grid = choice_grid(spec.T) if exp.at_choice else None
        if not q.exact:
            check_size(spec, q.exp, problem, legs=max(len(q.steps), 1), seeds=spec.seeds or QUADRATIC_SEEDS,
                       rounds=None if grid is None else int(grid.sum()))  # fmt: skip
        elif q.steps and spec.T > 2:  # exact: an estimate of the rounds after the first (their maps reused)
            ev = st.evaluate(q.r, {**q.params, q.r.step: q.steps[0][1], "T": float(spec.T)})
            algo = get(q.exp.algorithm)(**algorithm_params(q.exp, ev.params, q.steps[0][1]))
            legs = "" if len(q.steps) == 1 else f" x {len(q.steps)} step sizes"
            check_budget(spec.T * len(q.steps), round_seconds(algo, problem, batch=q.batch), T=spec.T,
                         what=f"rounds{legs}", took="an exact round")  # fmt: skip
        return Prepared(spec=spec, exp=exp, problem=problem, quadratic=q)
    assert isinstance(problem, ModelProblem)  # build() makes one of the two
    check_size(spec, prepare_model(spec, exp), problem, legs=1, seeds=spec.seeds or MODEL_SEEDS)
    return Prepared(spec=spec, exp=exp, problem=problem)


def check(spec: CheckSpec, *, progress: Callable[[str], None] | None = None,
          prepared: Prepared | None = None) -> Verification:  # fmt: skip
    """Check ``spec.result`` on ``spec.problem`` (or its default problem): see the module docstring. With
    ``spec.run``, against a run that already exists (:mod:`verify.pipeline.fromrun`). ``prepared``: the spec's
    :func:`prepare` (made here when not given)."""
    p = prepared if prepared is not None else prepare(spec)
    if p.exp is None:
        return verify_run(spec)
    if isinstance(p.problem, QuadraticProblem):
        return check_on_quadratic(spec, p.exp, p.problem, p.quadratic)
    assert isinstance(p.problem, ModelProblem)
    return check_on_model(spec, p.exp, p.problem, progress)


def cached_check(spec: CheckSpec, cache: str | Path | None, **kw: Any) -> Verification:
    """:func:`check`, read from ``cache`` when the same spec was checked before (keyed by :meth:`CheckSpec.key`
    and the package version), else computed and saved there atomically. A changed spec never reuses a stale
    result."""
    if cache is None:
        return check(spec, **kw)

    config = {"format": CACHE_FORMAT, "version": st.__version__, "spec": spec.to_dict()}
    key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]
    path = Path(cache) / f"{result_stem(spec.result)}-{key}.json"
    if path.exists():
        try:
            return Verification.from_dict(json.loads(path.read_text())["verification"])
        except (KeyError, ValueError, TypeError):
            pass  # an unreadable cache entry is recomputed
    v = check(spec, **kw)
    try:
        write_atomic(path, json.dumps(clean({"config": config, "verification": v.to_dict()}), allow_nan=False) + "\n")
    except OSError:
        pass  # a cache the disk has no room for: the verification is returned all the same (the report says more)
    return v


__all__ = [
    "DEFAULT_MODEL",
    "MODEL_SEEDS",
    "PRACTICAL_STEP",
    "QUADRATIC_SEEDS",
    "QUADRATIC_SEEDS_CAP",
    "Prepared",
    "QuadraticSetting",
    "cached_check",
    "check",
    "check_on_model",
    "check_on_quadratic",
    "check_size",
    "choice_grid",
    "default_problem",
    "gradnorm2_runs",
    "monte_carlo_method",
    "prepare",
    "prepare_model",
    "prepare_quadratic",
    "problem_for",
    "quadratic_description",
    "seed_stages",
]
