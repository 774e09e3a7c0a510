"""The planner's objective: what is minimised at each point of the (cuts x values) grid.

Three objectives, by what the user gives:

* ``"bound"``: the bound at the given ``T``;
* ``"rounds"`` (with ``eps``): the fewest rounds ``T`` with ``bound <= eps``;
* ``"time"`` (with ``eps`` and a :class:`~sfltheory.plan.timemodel.TimeModel`): the wall-clock time to
  ``eps``, rounds x the time of one round at the cut and value.

Every objective is one vectorised evaluation of the whole grid; a point where the required hypotheses
fail (or ``eps`` is never reached) holds ``inf``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..evaluate import ArrayLike, Evaluation, HypothesisCheck
from ..result import Result
from .grid import CutColumns
from .search import GridEval, Require, Rounds, rounds_to, solve
from .timemodel import TimeModel


def check_objective(
    given: Mapping[str, Any], over: str, eps: float | None, time_model: TimeModel | None, cuts_given: bool
) -> None:
    """Refuse an objective that cannot be computed: a time model without ``eps`` or without the model's
    cuts, or with ``eps`` a given ``T`` or a search over ``T`` (the rounds are what is solved for)."""
    if eps is None and time_model is not None:
        raise ParameterError("eps", "the wall-clock time is the time to reach bound <= eps: give eps")
    if eps is not None:
        if "T" in given:
            raise ParameterError("T", "with eps the planner finds the rounds T: leave T out")
        if over == "T":
            raise ParameterError("over", "with eps, T is what is solved for; search another parameter")
    if time_model is not None and not cuts_given:
        raise ParameterError("model", "the time model needs the model's cuts (client share of work, activation size)")


@dataclass
class ObjectiveGrid:
    """The objective on the (cuts x values) grid and what it was computed from.

    ``evaluation`` is the result solved at every point (at the rounds found, with ``eps``, where they are
    reached); ``objective`` is ``inf`` wherever ``feasible`` is false.
    """

    over: str  # the searched parameter
    values: np.ndarray  # its values (the grid's columns)
    kind: str  # "bound", "rounds" or "time"
    objective: np.ndarray  # cuts x values
    bound: np.ndarray  # cuts x values
    feasible: np.ndarray  # cuts x values
    evaluation: GridEval
    require: Require
    eps: float | None = None
    rounds: Rounds | None = None  # with eps
    round_time: np.ndarray | None = None  # with a time model: seconds per round, cuts x values
    time_model: TimeModel | None = None
    columns: CutColumns | None = None  # the cut axis (client share of work, activation size)

    @property
    def shape(self) -> tuple[int, int]:
        """The grid's shape, (cuts, values)."""
        return (self.objective.shape[0], self.values.size)

    @property
    def curves(self) -> dict[str, np.ndarray]:
        """The arrays a plan keeps: ``objective``, ``bound`` and ``feasible`` (cuts x values)."""
        return {"objective": self.objective, "bound": np.asarray(self.bound), "feasible": self.feasible}

    def rounds_grid(self) -> np.ndarray:
        """The rounds to ``eps`` at every point (cuts x values); only with ``eps``."""
        assert self.rounds is not None
        return np.broadcast_to(np.asarray(self.rounds.T, dtype=float), self.shape)

    def balance_tau(self, ci: int) -> float | None:
        """The time model's tau = t_straggler / t_server at cut ``ci`` (its eq. (12)), with a time model."""
        if self.time_model is None:
            return None
        cols = self.columns
        assert cols is not None and cols.fraction is not None and cols.activation is not None
        return float(self.time_model.eq12_tau(cols.fraction[ci, 0], cols.activation[ci, 0]))

    def cut_eval(self, ci: int) -> GridEval:
        """The grid evaluation restricted to cut ``ci`` (one row of values)."""
        g, shape = self.evaluation, self.shape

        def pick(x: Any) -> Any:
            a = np.asarray(x)
            return np.broadcast_to(a, shape)[ci] if a.ndim else x

        ev = g.evaluation
        hs = [
            HypothesisCheck(h.name, h.kind, h.source, h.printed, pick(h.holds), pick(h.slack), pick(h.lhs), pick(h.rhs))
            for h in ev.hypotheses
        ]
        sub = Evaluation(ev.id, pick(ev.value), {}, hs, {})
        return GridEval(
            g.step_mode,
            None if g.step is None else pick(g.step),
            None if g.max_step is None else pick(g.max_step),
            None if g.binding is None else pick(g.binding),
            sub,
            pick(g.feasible),
        )


def wall_clock(rounds: np.ndarray, round_time: np.ndarray, feasible: np.ndarray) -> np.ndarray:
    """The time to ``eps``: ``rounds x round_time``, refused where it overflows at a feasible point."""
    with np.errstate(over="ignore"):
        time = rounds * round_time
    if np.any(np.isinf(time) & np.isfinite(rounds) & feasible):
        raise ParameterError(
            "client_time",
            "the time to eps (rounds x round time) overflows the float range: give realistic times",
        )
    return time


def objective_grid(
    r: Result,
    params: Mapping[str, ArrayLike],
    columns: CutColumns,
    *,
    over: str,
    values: np.ndarray,
    step: str,
    require: Require,
    eps: float | None = None,
    time_model: TimeModel | None = None,
) -> ObjectiveGrid:
    """Evaluate the objective of ``r`` on the grid ``params`` spans (the cuts' columns x ``values``)."""
    shape = (len(columns.cuts), values.size)
    rounds: Rounds | None = None
    round_time = None
    if eps is None:
        g = solve(r, params, step, require)
        feasible = np.broadcast_to(np.asarray(g.feasible), shape).copy()
        bound = np.broadcast_to(np.asarray(g.bound, dtype=float), shape)
        objective, kind = bound, "bound"
    else:
        rounds = rounds_to(r, eps, params, step, require)
        T = np.broadcast_to(np.asarray(rounds.T, dtype=float), shape)
        # the bound and its verdict at the rounds found (where reached)
        g = solve(r, {**params, "T": np.where(np.isfinite(T), T, 1.0)}, step, require)
        feasible = np.broadcast_to(np.asarray(g.feasible), shape) & np.isfinite(T)
        bound = np.broadcast_to(np.asarray(g.bound, dtype=float), shape)
        objective, kind = T, "rounds"
        if time_model is not None:
            round_time = np.broadcast_to(
                time_model.round_time(values[None, :], columns.fraction, columns.activation), shape
            )
            objective, kind = wall_clock(T, round_time, feasible), "time"
    return ObjectiveGrid(
        over,
        values,
        kind,
        np.where(feasible, objective, np.inf),
        bound,
        feasible,
        g,
        require,
        eps,
        rounds,
        round_time,
        time_model,
        columns,
    )
