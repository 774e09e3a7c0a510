r"""Measured against predicted for one result: run the algorithm it analyses on an exact quadratic, evaluate the
bound with the problem's exact constants at every T, and say whether the bound holds, how tight it is and whether
the decay matches.

For first-order algorithms the left-hand side is exact (:mod:`verify.pipeline.exact`): a bound below it is
violated for certain. For zeroth-order ones it is a Monte-Carlo mean over seeds with its standard error; the
verdict is ``holds`` when the mean plus 3 standard errors is below the bound at every T, ``violated`` when the
mean minus 3 standard errors is above it at some T, else ``inconclusive``.

Each result runs twice where the theorem's admissible step is impractically small: at the largest step the
statement's hypotheses admit (the claim tested as stated) and at a practical step (where the hypotheses fail,
which the record says).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.errors import ParameterError
from verify.train import QuadraticProblem, get, run

from .exact import exact_moments
from .experiments import LHS_KINDS, Experiment, experiment

FIRST_ORDER = ("sl", "fedavg", "sfl_v1", "sfl_v1_analysed", "sfl_v2", "sfl_aux")
PRACTICAL_STEP = 0.05  # times 1/L: a step that trains the default quadratic in tens of rounds


@dataclass(frozen=True, kw_only=True)
class Leg:
    """One run of an experiment at one step size: the series over T = 1..T_max and the verdict."""

    mode: str  # "admissible" or "practical"
    step: float
    applies: bool  # every statement hypothesis holds at this step (at T_max)
    failing: tuple[str, ...]  # the statement hypotheses that fail
    T: np.ndarray
    lhs: np.ndarray
    lhs_se: np.ndarray | None  # Monte Carlo standard error; None when exact
    bound: np.ndarray
    verdict: str  # "holds", "violated", "inconclusive", "void" (the bound is negative or not finite)
    first_violation: int | None
    tightness: float  # bound / lhs at T_max
    slope_lhs: float  # d log lhs / d log T over the last three quarters of T
    slope_bound: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "step": self.step,
            "applies": self.applies,
            "failing_hypotheses": list(self.failing),
            "verdict": self.verdict,
            "first_violation_T": self.first_violation,
            "tightness_at_T": self.tightness,
            "decay_exponent_measured": self.slope_lhs,
            "decay_exponent_predicted": self.slope_bound,
            "T": self.T.tolist(),
            "measured": self.lhs.tolist(),
            "measured_se": None if self.lhs_se is None else self.lhs_se.tolist(),
            "predicted": self.bound.tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Leg:
        def arr(x: Any) -> np.ndarray:
            return np.asarray([np.inf if v is None else v for v in x], dtype=float)

        return cls(
            mode=d["mode"], step=d["step"], applies=d["applies"], failing=tuple(d["failing_hypotheses"]),
            T=np.asarray(d["T"], dtype=int), lhs=arr(d["measured"]),
            lhs_se=None if d["measured_se"] is None else arr(d["measured_se"]), bound=arr(d["predicted"]),
            verdict=d["verdict"], first_violation=d["first_violation_T"],
            tightness=np.inf if d["tightness_at_T"] is None else d["tightness_at_T"],
            slope_lhs=np.nan if d["decay_exponent_measured"] is None else d["decay_exponent_measured"],
            slope_bound=np.nan if d["decay_exponent_predicted"] is None else d["decay_exponent_predicted"],
        )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Verification:
    """A result checked on an exact problem: the experiment, the constants used, and one :class:`Leg` per step."""

    result: str
    algorithm: str
    method: str  # "exact moments" or "Monte Carlo over N seeds"
    lhs: str
    note: str
    constants: dict[str, float]
    constant_notes: list[str]
    params: dict[str, Any]
    legs: tuple[Leg, ...] = field(default_factory=tuple)
    problem: str = "exact quadratic (constants exact)"
    constant_errors: dict[str, float] = field(default_factory=dict)  # standard error of a measured constant

    @property
    def verdict(self) -> str:
        """The verdict at the admissible step (the claim as stated)."""
        return self.legs[0].verdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "algorithm": self.algorithm,
            "method": self.method,
            "lhs": self.lhs,
            "note": self.note,
            "constants": self.constants,
            "constant_notes": self.constant_notes,
            "params": {k: v for k, v in self.params.items() if k != "T"},
            "problem": self.problem,
            "constant_errors": self.constant_errors,
            "verdict": self.verdict,
            "legs": [leg.to_dict() for leg in self.legs],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verification:
        return cls(
            result=d["result"], algorithm=d["algorithm"], method=d["method"], lhs=d["lhs"], note=d["note"],
            constants=d["constants"], constant_notes=d["constant_notes"], params=d["params"],
            legs=tuple(Leg.from_dict(x) for x in d["legs"]),
            problem=d.get("problem", "exact quadratic (constants exact)"), constant_errors=d.get("constant_errors", {}),
        )  # fmt: skip


CACHE_FORMAT = "sfltheory.verification-cache/1"


def cached_verify(result: str, cache: str | Path | None, **kw: Any) -> Verification:
    """:func:`verify_result`, read from ``cache`` when the same configuration was verified before (keyed by a hash
    of the result id, the options and the package version), else computed and saved there atomically. A changed
    configuration never reuses a stale result."""
    if cache is None:
        return verify_result(result, **kw)
    import hashlib
    import json

    from sfltheory import __version__
    from sfltheory.atomic import write_atomic

    config = {"format": CACHE_FORMAT, "result": result, "version": __version__, **kw}
    key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]
    path = Path(cache) / f"{result.replace('/', '_').replace('@', '_')}-{key}.json"
    if path.exists():
        try:
            return Verification.from_dict(json.loads(path.read_text())["verification"])
        except (KeyError, ValueError, TypeError):
            pass  # an unreadable cache entry is recomputed
    v = verify_result(result, **kw)
    from .report import clean

    write_atomic(path, json.dumps(clean({"config": config, "verification": v.to_dict()}), allow_nan=False) + "\n")
    return v


def theory_params(exp: Experiment, r: Any, problem: QuadraticProblem, batch: int) -> tuple[dict[str, Any], list[str]]:
    """The bound's parameters on ``problem``: its exact constants picked by the result's assumptions, the
    experiment's shared parameters, M, equal aggregation weights and the dimensions; with one note per pick."""
    measured, notes = problem.exact_constants(batch).params_for(r)
    used = set(r.parameters())
    params: dict[str, Any] = {**measured, **{k: v for k, v in exp.params.items() if k in used}}
    if "M" in used:
        params["M"] = problem.M
    if "sum_alpha2" in used:
        params["sum_alpha2"] = 1.0 / problem.M  # equal aggregation weights
    dims = {"d": problem.d, "d_c": problem.d_c, "d_s": problem.d - problem.d_c}
    for name, value in dims.items():
        if name in used and name not in params:
            params[name] = float(value)
    return params, notes


def _slope(T: np.ndarray, y: np.ndarray) -> float:
    keep = (T >= max(2, len(T) // 4)) & (y > 0) & np.isfinite(y)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(T[keep]), np.log(y[keep]), 1)[0])


def default_problem(exp: Experiment, seed: int = 0) -> QuadraticProblem:
    """The default exact problem: d = 10 (5 on the client), eigenvalues in [0.1, 1], sigma2 = 1, eps2 = 1, F = 1."""
    return QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=1.0, eps2=1.0 if exp.M > 1 else 0.0, d=10, d_c=5,
                                         M=exp.M, F=1.0, seed=seed, noise=exp.noise)  # fmt: skip


DEFAULT_MODEL: dict[str, Any] = {
    "kind": "model", "model": "mlp", "data": "digits", "input_shape": [64], "clients": 4, "partition": "dirichlet:0.5",
}  # fmt: skip
MODEL_SEEDS = 3  # seeds on a model problem when none are given (each is a training run)


def problem_for(exp: Experiment, spec: Mapping[str, Any] | None, seed: int = 0) -> Any:
    """The problem a verification runs on: ``spec`` (``{"kind": "model", <model_problem keywords>}`` or
    ``{"kind": "quadratic", <QuadraticProblem.to_dict()>}``) or the experiment's default."""
    if spec is None:
        spec = DEFAULT_MODEL if exp.problem == "model" else None
    if spec is None:
        return default_problem(exp, seed)
    kind = spec.get("kind")
    if kind == "quadratic":
        if exp.problem == "model":
            raise ParameterError("--problem", f"{exp.result} assumes bounded gradients, which no quadratic has: "
                                 "verify it on a model (--model, --data)")  # fmt: skip
        return QuadraticProblem.from_dict(dict(spec))
    if kind == "model":
        from verify.train.setup import model_problem

        kw = {k: v for k, v in spec.items() if k != "kind" and v is not None}
        if "input_shape" in kw:
            kw["input_shape"] = tuple(kw["input_shape"])
        return model_problem(**kw)
    raise ParameterError("problem", f"kind must be 'quadratic' or 'model' (got {kind!r})")


def verify_result(
    result: str,
    *,
    T: int = 40,
    seeds: int | None = None,
    batch: int = 4,
    practical: bool = True,
    overrides: dict[str, float] | None = None,
    problem: Mapping[str, Any] | None = None,
    step: float | None = None,
    params: Mapping[str, Any] | None = None,
    points: int = 3,
) -> Verification:
    """Check ``result`` on its default problem or on ``problem`` (a spec, see :func:`problem_for`).

    On an exact quadratic (see the module docstring) ``overrides`` replace constants in the bound (e.g. to see
    what an underestimated sigma2 does); the run itself is unchanged. On a model
    (:func:`verify.pipeline.onmodel.verify_on_model`) ``overrides`` are given constants (those no run measures,
    or a measured one replaced), ``step`` the practical leg's step and ``params`` the algorithm's parameters;
    the constants are measured at ``points`` rounds of the trajectory."""
    exp = experiment(result)
    prob = problem_for(exp, problem)
    if not isinstance(prob, QuadraticProblem):
        from .onmodel import verify_on_model

        if exp.at_choice:
            raise ParameterError(result, "its step is a function of T (a corollary's choice): verify its parent "
                                 "theorem on a model, or this result on an exact quadratic")  # fmt: skip
        return verify_on_model(result, prob, T=T, seeds=seeds or MODEL_SEEDS, batch=batch, points=points, step=step,
                               params=params, given=overrides, practical=practical)  # fmt: skip
    if step is not None or params:
        raise ParameterError("step" if step is not None else next(iter(params or {})),
                             "on an exact quadratic the step is the theorem's largest admissible one and the "
                             "practical one; set algorithm parameters on a model problem")  # fmt: skip
    seeds = seeds or 24
    r = st.get(result)
    quad: QuadraticProblem = prob
    params, notes = theory_params(exp, r, quad, batch)
    used = set(r.parameters())
    for k, v in (overrides or {}).items():
        if k not in used:
            raise ParameterError(k, f"result '{result}' does not use it (it uses: {', '.join(sorted(used))})")
        params[k] = float(v)
        notes.append(f"{k} = {v:g}: given (overrides the exact value)")
    measured = {k: params[k] for k in params if k not in exp.params}
    step_name = r.step
    assert step_name is not None
    exact = exp.algorithm in FIRST_ORDER
    method = "exact moments (mean and covariance propagated)" if exact else f"Monte Carlo over {seeds} seeds"
    if exp.at_choice:
        leg = _choice_leg(exp, r, quad, params, T=T, seeds=seeds, batch=batch, exact=exact)
        return Verification(
            result=result, algorithm=exp.algorithm, method=method, lhs=LHS_KINDS[exp.lhs], note=exp.note,
            constants={k: float(v) for k, v in measured.items()}, constant_notes=notes, params=params, legs=(leg,),
            problem=quadratic_description(quad),
        )  # fmt: skip
    admissible = float(np.asarray(st.max_step(result, {**params, "T": T}).max_step))
    steps = [("admissible", admissible)]
    practical_step = PRACTICAL_STEP / float(params.get("L", 1.0))
    if practical and practical_step > 1.01 * admissible:
        steps.append(("practical", practical_step))
    legs = []
    for mode, at in steps:
        legs.append(_leg(exp, r, quad, params, step_name, mode, at, T=T, seeds=seeds, batch=batch, exact=exact))
    return Verification(
        result=result, algorithm=exp.algorithm, method=method, lhs=LHS_KINDS[exp.lhs], note=exp.note,
        constants={k: float(v) for k, v in measured.items()}, constant_notes=notes, params=params, legs=tuple(legs),
        problem=quadratic_description(quad),
    )  # fmt: skip


def quadratic_description(q: QuadraticProblem) -> str:
    """One line for the report: the quadratic's name and sizes (its constants are exact)."""
    return f"exact quadratic {q.name}: d = {q.d}, d_c = {q.d_c}, M = {q.M} (constants exact)"


def algorithm_params(exp: Experiment, ev_params: dict[str, Any], step: float) -> dict[str, Any]:
    """The algorithm's parameters: the experiment's shared ones and options, and each parameter the theorem's step
    sets at the value the theorem itself derives for it (MU-SplitFed: eta_s = eta, eta_c = tau eta)."""
    takes = {s.name for s in get(exp.algorithm).takes}
    out = {**{k: v for k, v in exp.params.items() if k in takes}, **exp.algorithm_only}
    for name in exp.step_to:
        out[name] = float(np.asarray(ev_params[name])) if name in ev_params else step
    return out


def gradnorm2_runs(algorithm: str, problem: Any, algo_params: Mapping[str, Any], T: int, *, seeds: int,
                   batch: int, exact: bool = False, observe: Any = None) -> np.ndarray:  # fmt: skip
    """||grad f(x^t)||^2 for t < T: one exact row (``exact``: a first-order algorithm on a quadratic), or one row
    per seed (inf after a divergence: the rest of the curve is above every bound). ``observe`` is the seed-0
    run's :func:`verify.train.run` hook (constants measured along the trajectory)."""
    if exact:
        return exact_moments(get(algorithm)(**algo_params), problem, T=T, batch=batch).gradnorm2[None, :T]
    runs = []
    for s in range(seeds):
        out = run(get(algorithm)(**algo_params), problem, T=T, batch=batch, seed=s, progress=False,
                  observe=observe if s == 0 else None)  # fmt: skip
        series = out.series("gradnorm2")
        if len(series) < T:
            series = np.concatenate([series, np.full(T + 1 - len(series), np.inf)])
        runs.append(series[:T])
    return np.asarray(runs)


def _verdict(Ts: np.ndarray, lhs: np.ndarray, se: np.ndarray | None, bound: np.ndarray) -> tuple[str, int | None]:
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


def _leg(exp: Experiment, r: Any, problem: QuadraticProblem, params: dict[str, Any], step_name: str, mode: str,
         step: float, *, T: int, seeds: int, batch: int, exact: bool) -> Leg:  # fmt: skip
    ev = st.evaluate(r, {**params, step_name: step, "T": float(T)})
    algo_params = algorithm_params(exp, ev.params, step)
    g = gradnorm2_runs(exp.algorithm, problem, algo_params, T, seeds=seeds, batch=batch, exact=exact)
    return leg_from_series(r, exp, mode, step, g, params, T=T)


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
    verdict, first = _verdict(Ts, lhs, se, bound)
    return Leg(mode=mode, step=step, applies=not failing, failing=failing, T=Ts, lhs=lhs, lhs_se=se, bound=bound,
               verdict=verdict, first_violation=first,
               tightness=float(bound[-1] / lhs[-1]) if lhs[-1] > 0 else math.inf,
               slope_lhs=_slope(Ts, lhs), slope_bound=_slope(Ts, bound))  # fmt: skip


def _choice_leg(exp: Experiment, r: Any, problem: QuadraticProblem, params: dict[str, Any], *, T: int, seeds: int,
                batch: int, exact: bool) -> Leg:  # fmt: skip
    """A corollary's own choice of the step depends on T: one run per T on a grid, each at the step the corollary
    sets for that T, its left-hand side at T against the bound at T."""
    grid = np.unique(np.geomspace(2, T, num=min(T - 1, 6)).round().astype(int)) if T > 2 else np.array([T])
    lhs_pts, se_pts, bound_pts, steps, failing_all = [], [], [], [], set()
    assert r.step is not None
    for t in grid:
        ev = st.evaluate(r, {**params, "T": float(t)})
        step = float(np.asarray(ev.params[r.step]))
        g = gradnorm2_runs(exp.algorithm, problem, algorithm_params(exp, ev.params, step), int(t), seeds=seeds,
                           batch=batch, exact=exact)  # fmt: skip
        lhs, se = lhs_series(exp.lhs, g, step)
        lhs_pts.append(lhs[-1])
        se_pts.append(np.nan if se is None else se[-1])
        bound_pts.append(float(np.asarray(ev.value)))
        steps.append(step)
        failing_all |= {h.name for h in ev.hypotheses if h.source == "statement" and not bool(np.all(h.holds))}
    lhs_a, bound_a = np.asarray(lhs_pts), np.asarray(bound_pts)
    se_a = None if exact else np.asarray(se_pts)
    verdict, first = _verdict(grid, lhs_a, se_a, bound_a)
    return Leg(mode="corollary's choice", step=steps[-1], applies=not failing_all, failing=tuple(sorted(failing_all)),
               T=grid, lhs=lhs_a, lhs_se=se_a, bound=bound_a, verdict=verdict, first_violation=first,
               tightness=float(bound_a[-1] / lhs_a[-1]) if lhs_a[-1] > 0 else math.inf,
               slope_lhs=_slope(grid, lhs_a), slope_bound=_slope(grid, bound_a))  # fmt: skip


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
