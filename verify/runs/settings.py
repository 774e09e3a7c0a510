"""A run's settings and constants as a theorem's parameters: what the run states, what the user adds, checked.

A theorem's parameters are of two kinds. *Settings* are what the run did: the step, K, tau, M, the mini-batch,
the split d_c / d_s -- they come from the run (run.json) or, for a log of the user's own, from ``name=value``
(command line, or ``# name=value`` lines of a CSV), never from a default: a bound at another step than the run's
says nothing about the run. *Constants* are what the assumptions bound (L, sigma2, G2, F ...): from a
``sfltheory measure`` record, a quadratic run's exact values, or ``name=value``. A ``name=value`` that contradicts
the run's own setting, a setting or constant the theorem needs and nobody gave, is one line naming it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.constants import Constants
from sfltheory.errors import ParameterError
from sfltheory.experiments import Experiment
from verify.train import get

from .record import RunLog

COUNTS = ("d", "d_c", "d_s")


def constant_names(r: Any, exp: Experiment) -> set[str]:
    """The names of ``r`` its assumptions bound (measured or given), F, and the experiment's given constants."""
    used = set(r.parameters())
    picks = {p.name for a in r.assumptions for p in a.picks}
    return (picks | {"F", "gradnorm2_f"} | set(exp.given)) & used - set(COUNTS)


def setting_names(r: Any, exp: Experiment) -> set[str]:
    """The names of ``r`` the run sets (everything but its constants and T)."""
    return set(r.parameters()) - constant_names(r, exp) - {"T"}


def sort_run_names(result: str, exp: Experiment, names: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, float]]:
    """A run check's ``name=value`` pairs as the run's settings and given constants; a name neither is refused."""
    r = st.get(result)
    takes = {s.name for s in get(exp.algorithm).takes}
    settings_ok = setting_names(r, exp) | takes | set(exp.step_to) | ({r.step} if r.step else set())
    consts = constant_names(r, exp)
    settings: dict[str, Any] = {}
    given: dict[str, float] = {}
    for k, v in names.items():
        if k in consts:
            given[k] = number(k, v)
        elif k in settings_ok:
            settings[k] = v
        else:
            raise ParameterError(k, f"neither a setting of the run ({', '.join(sorted(settings_ok))}) nor a constant "
                                 f"of '{result}' ({', '.join(sorted(consts))})")  # fmt: skip
    return settings, given


def number(name: str, v: Any) -> float:
    """``v`` as a float: a finite int or float, numpy's included (a bool is refused, a ``ParameterError`` naming
    ``name``)."""
    if isinstance(v, bool) or not isinstance(v, int | float | np.floating | np.integer) or not math.isfinite(float(v)):
        raise ParameterError(name, f"must be a finite number (got {v!r})")
    return float(v)


def same(a: Any, b: Any) -> bool:
    """Whether a run's setting and a given value agree: numbers to a relative 1e-9 (a value that went through text or
    JSON), anything else by equality."""
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
    return bool(a == b)


@dataclass(frozen=True, kw_only=True)
class RunTheory:
    """The bound's parameters for a run (all but T; the theorem's step included), the step, the constants used
    (by name) and one note per choice."""

    params: dict[str, float]
    step: float
    constants: dict[str, float]
    notes: list[str] = field(default_factory=list)


def merged_settings(log: RunLog, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The run's own settings with the user's added; a user's value that contradicts the run's is refused."""
    out = dict(log.settings)
    notes = []
    for k, v in given.items():
        if k in out and not same(out[k], v):
            raise ParameterError(k, f"given as {v!r}, but the run ({log.path}) states {k} = {out[k]!r}: a run's "
                                 "settings are what it ran, they cannot be changed afterwards")  # fmt: skip
        if k not in out:
            notes.append(f"{k} = {v:g}: given (the run's setting)" if isinstance(v, int | float) else
                         f"{k} = {v}: given (the run's setting)")  # fmt: skip
        out[k] = v
    return out, notes


def run_step(r: Any, exp: Experiment, settings: Mapping[str, Any], base: Mapping[str, float], T: int) -> float:
    """The theorem's step the run took: its own name in the settings, else solved from the algorithm's step
    parameters (each is the theorem's step times a factor the theorem sets, e.g. MU-SplitFed's eta_c = tau eta);
    every such parameter must be the one the theorem derives, else the theorem does not describe the run."""
    step_name = r.step
    if step_name in settings:
        s = number(step_name, settings[step_name])
    else:
        have = [k for k in exp.step_to if k in settings]
        if not have:
            raise ParameterError(exp.step_to[0], f"the run's step: '{r.id}' needs it (its step {step_name} sets "
                                 f"{', '.join(exp.step_to)}): give {exp.step_to[0]}=VALUE")  # fmt: skip
        s0 = number(have[0], settings[have[0]])
        ev = st.evaluate(r, {**base, step_name: s0, "T": float(T)})
        factor = float(np.asarray(ev.params.get(have[0], s0))) / s0
        s = s0 / factor
    ev = st.evaluate(r, {**base, step_name: s, "T": float(T)})
    for k in exp.step_to:
        if k in settings and k != step_name:
            want = float(np.asarray(ev.params.get(k, s)))
            if not same(number(k, settings[k]), want):
                raise ParameterError(
                    k,
                    f"the run's {k} = {settings[k]:g}, but '{r.id}' ties it to its step: "
                    f"{k} = {want:g} at {step_name} = {s:g}; the theorem does not describe this run",
                )
    return s


def run_theory(result: str, exp: Experiment, log: RunLog, constants: Constants | None, *,
               settings: Mapping[str, Any], given: Mapping[str, float]) -> RunTheory:  # fmt: skip
    """The bound's parameters for ``log`` (see the module docstring); every missing or contradicting name is one
    line naming it, raised before anything is computed."""
    r = st.get(result)
    if exp.at_choice:
        raise ParameterError(result, "its step is a function of T (a corollary's choice), which a single run at "
                             "one step does not follow: verify its parent theorem against the run")  # fmt: skip
    if log.algorithm is not None and log.algorithm != exp.algorithm:
        raise ParameterError("run", f"{log.path} ran {log.algorithm}; '{result}' analyses {exp.algorithm} "
                             f"(sfltheory train --list names the results of each algorithm)")  # fmt: skip
    if log.rounds < 2:
        raise ParameterError("run", f"{log.path} has one record (t = 0): nothing to check; a run needs t = 0, 1, ...")
    merged, notes = merged_settings(log, settings)
    used = set(r.parameters())
    params: dict[str, float] = {}
    # the constants: measured (or exact), then the user's, then the experiment's stated given values
    measured: dict[str, float] = {}
    if constants is not None:
        measured, cnotes = constants.params_for(r)
        src = constants.meta.get("source")
        notes += ([f"constants {src}"] if src else []) + [n for n in cnotes if "not measured" not in n]
    consts = constant_names(r, exp)
    for k in sorted(consts):
        if k in given:
            params[k] = float(given[k])
            notes.append(f"{k} = {given[k]:g}: given" + (" (replaces the measured value)" if k in measured else ""))
        elif k in measured:
            params[k] = float(measured[k])
        elif k in exp.given:
            params[k] = float(exp.given[k])
            if exp.given_note:
                notes.append(exp.given_note)
    missing = sorted(k for k in consts if k not in params)
    if missing:
        k = missing[0]
        more = f" (and {', '.join(missing[1:])})" if len(missing) > 1 else ""
        raise ParameterError(k, f"'{result}' needs the constant {k}{more}, which no constants file gives: measure it "
                             f"(sfltheory measure --for {result} ... --out c.json, then --constants c.json) or give "
                             f"{k}=VALUE")  # fmt: skip
    # the settings: the run's, never a default
    for k in sorted(setting_names(r, exp) - set(exp.step_to) - {r.step}):
        if k in merged:
            params[k] = number(k, merged[k])
        elif k in COUNTS and constants is not None and constants.get(k) is not None:
            params[k] = float(constants.get(k).value)  # type: ignore[union-attr]
            notes.append(f"{k} = {params[k]:g}: from the constants file (the model's split)")
        elif k == "sum_alpha2" and "M" in merged and log.algorithm is not None:
            params[k] = 1.0 / number("M", merged["M"])
            notes.append("sum_alpha2 = 1/M: the trainer aggregates with equal weights")
        else:
            raise ParameterError(k, f"'{result}' needs the run's {k}, which the run does not state: give {k}=VALUE "
                                 "(on the command line, or a '# name=value' line of the CSV)")  # fmt: skip
    assert r.step is not None  # every result with an experiment names its step
    step = run_step(r, exp, merged, params, log.rounds)
    params[r.step] = step
    measured_used = {k: params[k] for k in consts if k in used}
    return RunTheory(params=params, step=step, constants=measured_used, notes=notes)


__all__ = ["RunTheory", "constant_names", "merged_settings", "run_step", "run_theory", "setting_names",
           "sort_run_names"]  # fmt: skip
