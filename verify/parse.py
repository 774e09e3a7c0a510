"""The one parser of each spec: a front end's flat names in, a checked :mod:`verify.spec` value out.

``sfltheory train`` and a sweep's train configuration become a :class:`verify.spec.RunSpec` through
:func:`run_spec`; ``sfltheory verify`` and a sweep's verify configuration a :class:`verify.spec.CheckSpec` through
:func:`check_spec`. Everything is checked here, before any work: the algorithm's parameters by the algorithm
class, a quadratic problem file by reading it, each ``name=value`` against the result it is given for. Errors
name spec fields (``problem.clients``); :func:`verify.spec.flag` and :func:`verify.spec.name_of` turn a field into
the front end's own name. This module imports torch (through the trainer): the command line imports it when a
command runs, not when its parser is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sfltheory as st
from sfltheory.errors import ParameterError, SflTheoryError
from sfltheory.experiments import experiment
from sfltheory.registry import origin, user_experiment
from verify.problems import QuadraticProblem
from verify.runs import digest, parse_tags, read_run, run_constants, run_theory, sort_run_names
from verify.spec import (
    FIELDS,
    MODEL_KEYS,
    CheckSpec,
    ProblemSpec,
    QuadraticSpec,
    RunSpec,
    TimeSpec,
    boolean,
    device_name,
    integer,
    number,
    run_problem,
    text,
)
from verify.train import get


def run_spec(m: Mapping[str, Any]) -> RunSpec:
    """The one parser of a run's flat form (:data:`verify.spec.RUN_KEYS`, :data:`verify.spec.MODEL_KEYS`, the
    algorithm's parameters and a quadratic's target constants; ``params``, the algorithm's parameters whose names
    a run's flat form uses for something else, e.g. ``server_step``): ``problem`` is None
    (a model problem), ``"quadratic"`` (the default quadratic, from the target constants among the names) or
    a quadratic problem file; every other name is the algorithm's parameter, checked by the algorithm class
    before any work."""
    p = {k: v for k, v in m.items() if v is not None}
    if "algorithm" not in p:
        raise ParameterError("algorithm", "every train configuration names its algorithm")
    algorithm = text("algorithm", p.pop("algorithm"))
    run = {k: p.pop(k) for k in ("T", "batch", "seed", "checkpoint_every", "record_every") if k in p}
    run = {k: integer(k, v, low=0 if k == "seed" else 1) for k, v in run.items()}
    float64 = boolean("float64", p.pop("float64", False))
    batched = not boolean("loop", p.pop("loop", False))
    device = device_name("device", p.pop("device", "auto"))
    out = p.pop("out", None)
    truncate = boolean("truncate", p.pop("truncate", False))
    time = None
    if any(k in p for k in ("client_time", "server_step", "bandwidth")):
        time = TimeSpec.from_values(**{k: p.pop(k, None) for k in ("client_time", "server_step", "bandwidth")})
    own = p.pop("params", None) or {}  # the algorithm's parameters named like a run's (sfl_aux's server_step)
    problem = run_problem(p, seed=run.get("seed", 0))
    params = check_params(algorithm, {**p, **own})
    return RunSpec(algorithm=algorithm, params=params, problem=problem, float64=float64, batched=batched,
                   device=device, time=time, out=None if out is None else text("out", out), truncate=truncate,
                   **run)  # fmt: skip


def check_params(algorithm: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` checked by the algorithm class (unknown names and domains), before any work, in its types."""
    checked = get(algorithm)(**params).p
    return {k: checked[k] for k in params}  # as the algorithm reads them: K = 2.0 from name=value is the integer 2


def check_spec(m: Mapping[str, Any], *, partition: str = "dirichlet:0.5") -> CheckSpec:
    """The one parser of a check's flat form: ``result``, ``T``, ``seeds``, ``batch``, ``points``,
    ``practical``; the problem as a run's flat form names it (``problem`` None with no model names: the
    result's default problem; ``"quadratic"``: the default quadratic; a file: that quadratic, read now; model
    names, ``partition`` by default non-IID, as heterogeneity is what the bounds are about); ``order``; and
    ``name=value`` pairs, sorted for the result (:func:`sort_names`): the theorem's step sets a ``given`` leg, the
    algorithm's parameters go to the run (and the bound), the bound's other names are constants (on a quadratic
    an override of the exact value). Every name is used or refused here, before any work."""
    p = {k: v for k, v in m.items() if v is not None}
    result = text("result", p.pop("result", None))
    exp = experiment_of(result)
    if p.get("run") is not None:
        return run_check_spec(result, exp, p)
    run = {k: integer(k, p.pop(k), low=low) for k, low in (("T", 2), ("seeds", 1), ("batch", 1), ("points", 1))
           if k in p}  # fmt: skip
    practical = boolean("practical", p.pop("practical", True))
    order = p.pop("order", None)
    device = device_name("device", p.pop("device", "cpu"))
    tightest = integer("tightest", p.pop("tightest", 0), low=0)
    problem = check_problem(p, exp, partition=partition)
    on_model = problem.kind == "model" if problem is not None else exp.problem == "model"
    if device != "cpu" and not on_model:  # it would be ignored: exact moments are computed on the CPU
        raise ParameterError("device", f"runs a model problem on {device}; an exact quadratic is checked on the "
                             "CPU in float64 (drop it, or verify on a model: --model, --data)")  # fmt: skip
    if order is not None and not on_model:
        raise ParameterError("params.order", "sets the client order of a run on a model; not on a quadratic")
    if tightest and problem is not None and problem.kind == "model":  # a worst case is over a function class
        raise ParameterError("tightest", "computes the worst case over the result's function class next to an "
                             "exact quadratic; not with a model problem")  # fmt: skip
    if "points" in run and not on_model:  # it would be ignored: a quadratic's constants are exact, not measured
        raise ParameterError("points", "sets the rounds where a model's constants are measured; not on an exact "
                             "quadratic (its constants are exact)")  # fmt: skip
    plan = sort_names(result, exp, p, on_model=on_model)
    if order is not None:
        plan["params"]["order"] = order
    return CheckSpec(result=result, problem=problem, practical=practical, T=run.get("T", 40), seeds=run.get("seeds"),
               batch=run.get("batch"), points=run.get("points", 3), step=plan.get("step"),
               params=plan.get("params", {}), overrides=plan["overrides"], device=device,
               tightest=tightest)  # fmt: skip


def experiment_of(result: str) -> Any:
    """The experiment that checks ``result``; a user's result without one is refused, saying what to add."""
    if origin(result) is not None and user_experiment(result) is None:
        raise SflTheoryError(f"result '{result}' (declared in {origin(result)}) has no experiment: give it one in the "
                             "file, [results.experiment] with algorithm, step_to and params (docs/guide/"
                             "own-theorem.md)")  # fmt: skip
    return experiment(result)


def check_problem(p: dict[str, Any], exp: Any, *, partition: str) -> ProblemSpec | None:
    """Take a check's problem out of its flat names ``p``: None for the result's default problem."""
    problem = p.pop("problem", None)
    model = {k: p.pop(k) for k in MODEL_KEYS if k in p}
    if problem is not None:
        if model:
            raise ParameterError(FIELDS[next(iter(model))], "describes a model problem; not with --problem")
        if exp.problem == "model":
            raise ParameterError("problem", f"{exp.result} assumes bounded gradients, which no quadratic has: "
                                 "verify it on a model (--model, --data)")  # fmt: skip
        if problem == "quadratic":
            return None
        # the problem's content (not its path) is the check's identity: a changed file is never a stale cache hit
        return QuadraticSpec(data=QuadraticProblem.from_file(text("problem.file", problem)).to_dict())
    if not model:
        return None
    return run_problem({"partition": partition, **model}, seed=0)


def sort_names(result: str, exp: Any, names: Mapping[str, Any], *, on_model: bool) -> dict[str, Any]:
    """``name=value`` pairs of a check as ``step``/``params``/``overrides``, each used or refused here, before any work.

    The theorem's step sets a ``given`` leg (next to the admissible one); the algorithm's parameters go to the
    run (and to the bound when the result names them too, e.g. ``K``); the bound's other names are constants:
    on a quadratic an override of the exact value, on a model a given constant. A name the step sets through
    the theorem (``eta_s`` when the step is ``eta``), a step given to a corollary that chooses its own, and any
    other name are refused."""
    r = st.get(result)
    used = set(r.parameters())
    takes = {s.name for s in get(exp.algorithm).takes}
    plan: dict[str, Any] = {"step": None, "params": {}, "overrides": {}}
    for k, v in names.items():
        if isinstance(v, list | tuple) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0):
            raise ParameterError(k, "verify takes one value per name (a grid is `sfltheory sweep`)")
        if k == r.step and exp.at_choice:
            raise ParameterError(k, f"'{result}' sets its step as a function of T (the corollary's own choice): "
                                 "verify its parent theorem at a given step")  # fmt: skip
        if k == r.step:
            plan["step"] = number(k, v, positive=True)
        elif k in exp.step_to:
            raise ParameterError(k, f"the theorem's step {r.step} sets {', '.join(exp.step_to)}: give {r.step}=VALUE")
        elif k in takes:
            plan["params"][k] = v  # the algorithm checks its own domains (train passes the same floats)
        elif k in used:
            plan["overrides"][k] = number(k, v)
        else:
            known = ", ".join(sorted(takes | used))
            if on_model:
                raise ParameterError(k, f"neither a parameter of {exp.algorithm} nor a name of '{result}' ({known})")
            raise ParameterError(k, f"result '{result}' does not use it, nor does {exp.algorithm} take it ({known})")
    if plan["params"]:
        plan["params"] = check_params(exp.algorithm, plan["params"])  # its domains, before any work
    return plan


# the names of a check that run the algorithm: a check of a run read from disk takes its rounds and problem from it
NOT_WITH_RUN = ("T", "seeds", "points", "practical", "problem", *MODEL_KEYS)


def run_check_spec(result: str, exp: Any, p: dict[str, Any]) -> CheckSpec:
    """A check of a run that already exists (``run``: a run.json or its folder, a CSV / JSON Lines log, a
    TensorBoard folder with ``tags``), checked now as everything is: the log read row by row, the settings it
    states merged with the ``name=value`` pairs (a contradiction refused), the constants files read (``constants``: a
    path or a list), and every setting and constant the result needs found (:func:`verify.runs.run_theory`)."""
    run = text("run", p.pop("run"))
    files = p.pop("constants", None) or ()
    files = tuple(text("constants", f) for f in ([files] if isinstance(files, str) else files))
    tags = parse_tags(p.pop("tags", None))
    for k in NOT_WITH_RUN:
        if k in p:
            raise ParameterError(FIELDS.get(k, k), "runs the algorithm; a run read from disk (--run) fixes its "
                                 "rounds, problem and settings itself")  # fmt: skip
    settings, given = sort_run_names(result, exp, p)
    log = read_run(run, tags=tags)
    run_theory(result, exp, log, run_constants(files, log), settings=settings, given=given)  # everything checked
    return CheckSpec(result=result, T=log.rounds, run=run, constants=files, tags=tags, params=settings,
                     overrides=given, digest=digest(run, files))  # fmt: skip


__all__ = ["check_params", "check_problem", "check_spec", "experiment_of", "run_check_spec", "run_spec",
           "sort_names"]  # fmt: skip
