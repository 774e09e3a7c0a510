"""Constants measured along a run on a model: at chosen rounds of the seed-0 trajectory, summarised by their sup.

The theorems assume bounds that hold at every iterate; the sup over the iterates a run visits is the smallest
value consistent with that run (:func:`verify.constants.track.summarise`, quantiles as variants). Each point is
the problem's own measurement (:meth:`verify.problems.Problem.constants`) of the variants the result needs.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp
import torch

from sfltheory.constants import Constants, needed_keys
from sfltheory.errors import ParameterError
from sfltheory.experiments import Experiment
from verify.constants.track import summarise
from verify.problems import ModelProblem

DEFAULT_POINTS = 3  # rounds where the constants are measured: x^0, x^{T/2}, x^T


class TrajectoryMeter:
    """Measures constants at chosen rounds of a run (an ``observe`` hook of :func:`verify.train.run`)."""

    def __init__(self, result: str, problem: ModelProblem, rounds: set[int], *, lam: float | None, batch: int,
                 seed: int = 0) -> None:  # fmt: skip
        self.problem = problem
        self.rounds = rounds
        self.needed = needed_keys(result)
        self.lam, self.batch, self.seed = lam, batch, seed
        self.points: list[Constants] = []
        self.steps: list[int] = []
        self.notes: list[str] = []

    def at(self, pc: Mapping[str, torch.Tensor], ps: Mapping[str, torch.Tensor], t: int = 0) -> Constants:
        """The constants the result needs, measured at the client and server parameters ``pc``, ``ps`` of round ``t`` (a
        kappa the problem could not measure there is noted in ``notes``)."""
        c = self.problem.constants(at={"client": pc, "server": ps}, needed=self.needed, batch=self.batch,
                                   lam=self.lam, seed=self.seed)  # fmt: skip
        why = c.meta.get("unmeasured", {}).get("kappa")
        if why is not None:
            self.notes.append(f"kappa not measured at round {t} ({why}); that point sets no kappa")
        return c

    def __call__(self, t: int, pc: Mapping[str, torch.Tensor], ps: Mapping[str, torch.Tensor]) -> None:
        if t in self.rounds and t not in self.steps:
            self.points.append(self.at(pc, ps, t))
            self.steps.append(t)

    def summary(self) -> Constants:
        """The points measured so far summarised by their sup, quantiles as variants
        (:func:`verify.constants.track.summarise`)."""
        return summarise(self.points, self.steps)


def measured_rounds(T: int, points: int) -> set[int]:
    """``points`` rounds evenly spread over 0..T (0 and T always among them)."""
    if points < 1:
        raise ParameterError("points", f"must be at least 1 (got {points})")
    return {round(i * T / max(points - 1, 1)) for i in range(points)} if points > 1 else {0}


def derive(exp: Experiment, params: Mapping[str, float]) -> dict[str, float]:
    """The parameters an experiment sets from the measured constants (``Experiment.derive``: SymPy rules)."""
    out = {}
    for name, expr in exp.derive.items():
        e = sp.sympify(expr)
        missing = {s.name for s in e.free_symbols} - set(params)
        if missing:
            raise ParameterError(name, f"its rule {expr} needs {', '.join(sorted(missing))}, which was not measured")
        out[name] = float(e.subs({sp.Symbol(k): v for k, v in params.items()}))
    return out


__all__ = ["DEFAULT_POINTS", "TrajectoryMeter", "derive", "measured_rounds"]
