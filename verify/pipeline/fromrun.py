r"""A run that already exists, against a theorem: ``sfltheory verify ID --run PATH``.

The run (a ``train --out`` record, a user's CSV / JSON Lines log, TensorBoard scalars: :mod:`verify.runs`) gives
||grad f(x^t)||^2 for t = 0..n-1 and its settings; the constants come from ``sfltheory measure`` records (their
sup when several), a quadratic run's exact values, or ``name=value``. At every T = 1..n the left-hand side the
result bounds (:func:`verify.pipeline.verdicts.lhs_series`: the running average of ||grad f(x^t)||^2 over t < T,
its minimum, or eta times the average, as the experiment says) is set against the bound at the run's own settings
(its step, K, tau, M ...), and the record is a :class:`Verification` with one leg of mode ``"run"``: the
hypotheses that fail at the run's settings, and the first T where the measured value exceeds the bound.

A single run has no Monte-Carlo band: the theorems bound an expectation, and one run is one sample of it, so a
measured value above the bound is a violation by that sample, not a statistical verdict on the expectation.
"""

from __future__ import annotations

import numpy as np

import sfltheory as st
from sfltheory.constants import Constants
from sfltheory.errors import ParameterError
from sfltheory.experiments import LHS_KINDS, experiment, lhs_quantity
from verify.runs import RunLog, read_run, run_constants, run_theory
from verify.spec import CheckSpec

from .records import Leg, Verification
from .report.document import tightness_text
from .verdicts import leg_from_series

SINGLE_RUN = ("a single run read from disk: no Monte-Carlo band (the theorem bounds an expectation; the measured "
              "value is one sample of it)")  # fmt: skip


def check_run(spec: CheckSpec, log: RunLog, constants: Constants | None) -> Verification:
    """``spec.result`` against ``log``, the bound evaluated with ``constants`` (and ``spec.overrides``) at the
    run's settings (``log.settings`` with ``spec.params`` added): see the module docstring."""
    exp = experiment(spec.result)
    if lhs_quantity(exp.lhs) != "gradnorm2":
        raise ParameterError(spec.result, f"bounds {LHS_KINDS[exp.lhs]}; a run log holds ||grad f(x^t)||^2 only")
    r = st.get(spec.result)
    theory = run_theory(spec.result, exp, log, constants, settings=spec.params, given=spec.overrides)
    g = np.asarray(log.gradnorm2, dtype=float)[None, :]
    leg = leg_from_series(r, exp, "run", theory.step, g, theory.params, T=log.rounds)
    notes = list(theory.notes)
    if log.status != "complete":
        notes.append(f"the run's status is '{log.status}': its records stop at t = {int(log.t[-1])}")
    if log.unread:
        notes.append(f"not read from the log: {', '.join(log.unread)}")
    return Verification(
        result=spec.result, algorithm=exp.algorithm, method=SINGLE_RUN, lhs=LHS_KINDS[exp.lhs], note=exp.note,
        constants=theory.constants, constant_notes=notes, params={k: v for k, v in theory.params.items()},
        legs=(leg,), problem=f"{log.source}: rounds t = 0..{int(log.t[-1])}",
    )  # fmt: skip


def verify_run(spec: CheckSpec) -> Verification:
    """Read ``spec.run`` (and its constants files) and check it: :func:`check_run`."""
    assert spec.run is not None
    log = read_run(spec.run, tags=spec.tags)
    return check_run(spec, log, run_constants(spec.constants, log))


def answer(v: Verification) -> str:
    """The verdict on a run in one line: holds, violated at T = ..., or the hypotheses that fail."""
    leg: Leg = v.legs[0]
    n = int(leg.T[-1])
    if leg.verdict == "void":
        said = "the bound is negative or not finite at these settings: no verdict"
    elif leg.verdict == "violated":
        i = int(np.nonzero(leg.T == leg.first_violation)[0][0])
        said = (f"violated at T = {leg.first_violation} (measured {leg.lhs[i]:.4g} > bound {leg.bound[i]:.4g}; a "
                "single run, no Monte-Carlo band)")  # fmt: skip
    else:
        ratio = tightness_text(leg.tightness, leg.bound[-1], leg.lhs[-1])
        said = f"holds at every T = 1..{n} (bound/measured {ratio} at T = {n}; a single run)"
    if not leg.applies:
        return (f"{v.result}: hypotheses fail ({', '.join(leg.failing)}): the theorem does not cover this run "
                f"(its bound {said.replace('holds', 'would hold').replace('violated', 'is exceeded')})")  # fmt: skip
    return f"{v.result}: {said}"


__all__ = ["SINGLE_RUN", "answer", "check_run", "verify_run"]
