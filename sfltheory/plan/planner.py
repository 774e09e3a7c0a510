"""The planner: for a result, a model's cuts and the user's constants, the best tau (or other integer
parameter), cut and step size, the rounds to an accuracy and the wall-clock time with stragglers.

One vectorised evaluation covers the whole (cut x tau) grid; the answers at the optimum are read off the
grid arrays, so planning over every cut of ResNet-50 and tau = 1..1000 is a handful of NumPy calls.

This module holds the plan's records and :func:`plan`, which composes the pieces: :mod:`.grid` (the values
and cuts tried), :mod:`.objective` (what is minimised), :mod:`.selection` (the best feasible points and the
papers' rule points) and :mod:`.notes` (the text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..evaluate import ArrayLike, as_result
from ..result import Result
from .choices import PaperChoice, choices_for
from .cuts import CutPoint, CutTable
from .grid import DEFAULT_GRID, canonical, canonical_params, check_search, cut_columns, grid_of
from .notes import add_notes, cut_name
from .objective import check_objective, objective_grid
from .search import Require
from .selection import cut_plan, objective_value
from .timemodel import TimeModel

__all__ = ["DEFAULT_GRID", "Choice", "CutPlan", "Plan", "RulePoint", "plan"]


@dataclass
class Choice:
    """One point of the plan: a cut (if any) and a value of the searched parameter."""

    over: str
    value: float
    cut: CutPoint | None
    bound: float
    terms: dict[str, float]
    step: float | None
    max_step: float | None
    binding: str | None  # the step-size branch that binds at this point
    verdict: str
    rounds: float | None = None  # smallest T with bound <= eps (inf: never)
    round_time: float | None = None
    time: float | None = None  # rounds * round_time
    limited_by: str = ""  # the condition that ends the feasible range next to this value


@dataclass
class RulePoint:
    """A paper's closed-form choice at one cut."""

    choice: PaperChoice
    exact: float  # the rule's value of the searched parameter (real)
    point: Choice | None  # at the nearest grid value, when the rule lands inside the grid
    why_not: str = ""


@dataclass
class CutPlan:
    """One cut's part of the plan: its best point, or why it has none, and the papers' rule points."""

    cut: CutPoint | None
    best: Choice | None  # by the plan's objective
    reason: str = ""  # why no value is feasible at this cut
    best_rounds: Choice | None = None  # fewest rounds (differs from best when the objective is time)
    rules: list[RulePoint] = field(default_factory=list)
    eq12_tau: float | None = None  # the time model's tau = t_straggler / t_server at this cut (its eq. (12))


@dataclass
class Plan:
    """A result planned over a grid of values of one integer parameter and the cuts of a model."""

    result: str
    over: str
    grid: np.ndarray
    step_mode: str
    objective: str  # "bound", "rounds" or "time"
    eps: float | None
    params: dict[str, Any]
    model: str | None
    d: int | None
    cuts: list[CutPlan]
    curves: dict[str, np.ndarray]  # "objective", "bound", "feasible": arrays (cuts x grid)
    notes: list[str] = field(default_factory=list)
    time_model: TimeModel | None = None

    @property
    def feasible(self) -> bool:
        return any(c.best is not None for c in self.cuts)

    def __str__(self) -> str:  # the CLI's table, also what a notebook prints
        from .render import plan_text

        return plan_text(self)

    @property
    def best(self) -> CutPlan | None:
        ok = [c for c in self.cuts if c.best is not None]
        return min(ok, key=lambda c: objective_value(c.best)) if ok else None

    @property
    def reason(self) -> str:
        if self.feasible:
            return ""
        reasons = {c.reason for c in self.cuts}
        return reasons.pop() if len(reasons) == 1 else "; ".join(f"{cut_name(c.cut)}: {c.reason}" for c in self.cuts)

    def rule_best(self, which: int = 0) -> tuple[CutPlan, RulePoint] | None:
        """The cut that does best when tau is set by the paper's rule (``which``: index of the rule)."""
        cands = [
            (c, c.rules[which])
            for c in self.cuts
            if len(c.rules) > which and c.rules[which].point is not None and c.rules[which].why_not == ""
        ]
        return min(cands, key=lambda x: objective_value(x[1].point)) if cands else None


def plan(
    result: Result | str,
    params: Mapping[str, ArrayLike],
    *,
    cuts: CutTable | None = None,
    over: str = "tau",
    grid: ArrayLike | None = None,
    step: str = "auto",
    require: Require = "statement",
    eps: float | None = None,
    time_model: TimeModel | None = None,
) -> Plan:
    """Plan ``result`` over the integer parameter ``over`` (on ``grid``, default 1..1000) and the cuts.

    Objective: the bound at the given ``T``; with ``eps``, the rounds to reach ``bound <= eps``; with a
    ``time_model`` as well, the wall-clock time to ``eps``. The paper's own closed-form choices of tau
    (:func:`~sfltheory.plan.choices.choices_for`, e.g. a corollary's ``tau = d / d_c^2``) are evaluated
    alongside.

    The pieces: :mod:`.grid` spans the (cuts x values) grid, :mod:`.objective` evaluates what is minimised
    on it, :mod:`.selection` picks each cut's best feasible point and the rule points, :mod:`.notes` writes
    the text.
    """
    r = as_result(result)
    check_search(r, params, cuts, over)
    p = canonical_params(r, params)
    values = grid_of(over, p.pop(over, None), grid)
    check_objective(p, over, eps, time_model, cuts_given=cuts is not None)
    columns = cut_columns(r, cuts, p)
    p.update(columns.params)
    p[over] = values[None, :]
    og = objective_grid(
        r, p, columns, over=over, values=values, step=step, require=require, eps=eps, time_model=time_model
    )
    choices = choices_for(r.id) if over == "tau" else ()
    out = Plan(
        r.id,
        over,
        values,
        og.evaluation.step_mode,
        og.kind,
        eps,
        {k: v for k, v in params.items() if canonical(r, k) != over},
        cuts.model if cuts else None,
        cuts.d if cuts else None,
        [cut_plan(og, ci, cut, choices, p) for ci, cut in enumerate(columns.cuts)],
        og.curves,
        [],
        time_model,
    )
    add_notes(out, choices, split_free=columns.split_free)
    return out
