"""The planner: for a result, a model's cuts and the user's constants, the best tau (or other integer
parameter), cut and step size, the rounds to an accuracy and the wall-clock time with stragglers.

One vectorised evaluation covers the whole (cut x tau) grid; the answers at the optimum are read off the
grid arrays, so planning over every cut of ResNet-50 and tau = 1..1000 is a handful of NumPy calls.

This module holds the plan's records and :func:`plan`, which composes the pieces: :mod:`.grid` (the values
and cuts tried), :mod:`~sfltheory.plan.objective` (what is minimised), :mod:`.selection` (the best feasible
points and the papers' rule points) and :mod:`.notes` (the text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..evaluate import ArrayLike, as_result
from ..result import Result
from .choices import choices_for
from .cuts import CutTable
from .grid import DEFAULT_GRID, canonical, canonical_params, check_search, cut_columns, grid_of
from .notes import add_notes
from .objective import check_objective, objective_grid
from .records import Choice, CutPlan, Plan, RulePoint
from .search import Require
from .selection import cut_plan
from .timemodel import TimeModel

__all__ = ["DEFAULT_GRID", "Choice", "CutPlan", "Plan", "RulePoint", "plan"]


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
    per_cut: Mapping[str, Sequence[float]] | None = None,
) -> Plan:
    """Plan ``result`` over the integer parameter ``over`` (on ``grid``, default 1..1000) and the cuts.

    Objective: the bound at the given ``T``; with ``eps``, the rounds to reach ``bound <= eps``; with a
    ``time_model`` as well, the wall-clock time to ``eps``. The paper's own closed-form choices of tau
    (:func:`~sfltheory.plan.choices.choices_for`, e.g. a corollary's ``tau = d / d_c^2``) are evaluated
    alongside.

    The pieces: :mod:`.grid` spans the (cuts x values) grid, :mod:`~sfltheory.plan.objective` evaluates what is
    minimised on it, :mod:`.selection` picks each cut's best feasible point and the rule points, :mod:`.notes`
    writes the text. ``per_cut``: parameters that differ by cut (constants measured at each cut), one value per cut of
    ``cuts``.
    """
    r = as_result(result)
    check_search(r, params, cuts, over)
    p = canonical_params(r, params)
    values = grid_of(over, p.pop(over, None), grid)
    check_objective(p, over, eps, time_model, cuts_given=cuts is not None)
    columns = cut_columns(r, cuts, p, per_cut)
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
        {canonical(r, k): [float(x) for x in v] for k, v in (per_cut or {}).items()},
    )
    add_notes(out, choices, split_free=columns.split_free)
    return out
