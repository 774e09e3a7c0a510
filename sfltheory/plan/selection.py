"""The planner's selection: the best feasible point of each cut, and the papers' rule points.

At each cut the plan keeps the value with the smallest objective among the feasible ones (``inf`` marks
the others), read off the grid arrays as a :class:`~sfltheory.plan.planner.Choice`: the bound and its
terms, the step size, the verdict there, the rounds and time, and the conditions that end the feasible
range next to it. A paper's closed-form choice (:mod:`~sfltheory.plan.choices`) is read off the same
arrays at the grid value nearest to the tau its rule gives.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..evaluate import Evaluation, HypothesisCheck
from .choices import PaperChoice, d, d_c, tau
from .cuts import CutPoint
from .notes import infeasible_reason
from .objective import ObjectiveGrid
from .records import Choice, CutPlan, RulePoint
from .search import Require


def _at(x: Any, idx: tuple[int, ...]) -> Any:
    """``x`` at grid index ``idx``, broadcasting its length-1 (and missing leading) axes."""
    a = np.asarray(x)
    return a[tuple(i if a.shape[k] > 1 else 0 for k, i in enumerate(idx[-a.ndim :]))] if a.ndim else a[()]


def _scalar(x: Any, idx: tuple[int, ...]) -> float:
    return float(_at(x, idx))


def verdict_at(ev: Evaluation, idx: tuple[int, ...]) -> tuple[str, list[HypothesisCheck]]:
    """The verdict of a grid evaluation at one point, and its hypothesis checks there."""
    hs = [
        HypothesisCheck(
            h.name,
            h.kind,
            h.source,
            h.printed,
            bool(_at(h.holds, idx)),
            _scalar(h.slack, idx),
            _scalar(h.lhs, idx),
            _scalar(h.rhs, idx),
            h.note,
        )
        for h in ev.hypotheses
    ]
    view = Evaluation(ev.id, _scalar(ev.value, idx), {}, hs, {})
    return view.verdict(), hs


def failing_at(ev: Evaluation, idx: tuple[int, ...], require: Require) -> list[str]:
    """The required hypotheses that fail at one point (``"statement"``: stated and validity conditions)."""
    return [
        h.name
        for h in ev.hypotheses
        if not bool(_at(h.holds, idx)) and (require == "all" or h.source == "statement" or h.kind == "validity")
    ]


def _limited_by(og: ObjectiveGrid, idx: tuple[int, int]) -> str:
    """The conditions that fail at the infeasible neighbours of a point (the ends of its feasible range)."""
    c, j = idx
    value = float(og.values[j])
    limits = []
    for nb, side in ((j + 1, "above"), (j - 1, "below")):
        if 0 <= nb < og.feasible.shape[1] and not og.feasible[c, nb]:
            names = failing_at(og.evaluation.evaluation, (c, nb), og.require)
            if names:
                limits.append(f"{', '.join(names)} ({og.over} {side} {value:g})")
    return "; ".join(limits)


def choice_at(og: ObjectiveGrid, idx: tuple[int, int], cut: CutPoint | None) -> Choice:
    """The plan's record of grid point ``idx`` = (cut index, value index), read off the grid arrays."""
    g = og.evaluation
    ev = g.evaluation
    verdict, _ = verdict_at(ev, idx)
    ch = Choice(
        og.over,
        float(og.values[idx[1]]),
        cut,
        _scalar(ev.value, idx),
        {k: _scalar(v, idx) for k, v in ev.terms.items()},
        None if g.step is None else _scalar(g.step, idx),
        None if g.max_step is None else _scalar(g.max_step, idx),
        None if g.binding is None else str(_at(g.binding, idx)),
        verdict,
    )
    if og.rounds is not None:
        ch.rounds = _scalar(og.rounds.T, idx)
    if og.round_time is not None:
        ch.round_time = _scalar(og.round_time, idx)
        ch.time = (ch.rounds if ch.rounds is not None else math.nan) * ch.round_time
    ch.limited_by = _limited_by(og, idx)
    return ch


def _split_of(cut: CutPoint | None, params: Mapping[str, Any]) -> tuple[float, float] | None:
    """The split (d, d_c) at a cut, or from the user's d, d_c, d_s without a model (None if not given)."""
    if cut is not None:
        return float(cut.d), float(cut.d_c)
    try:
        dd = (
            float(np.asarray(params["d"]))
            if "d" in params
            else float(np.asarray(params["d_c"]) + np.asarray(params["d_s"]))
        )
        dc = float(np.asarray(params["d_c"])) if "d_c" in params else dd - float(np.asarray(params["d_s"]))
    except (KeyError, TypeError):
        return None
    return dd, dc


def rule_point(
    ch: PaperChoice, og: ObjectiveGrid, ci: int, cut: CutPoint | None, params: Mapping[str, Any]
) -> RulePoint:
    """A paper's closed-form tau at cut ``ci``, and the grid point nearest to it (or why there is none)."""
    split = _split_of(cut, params)
    if split is None:
        return RulePoint(ch, math.nan, None, "the split (d, d_c) is not given")
    dd, dc = split
    exact = float(ch.tau_of_split.subs({d: dd, d_c: dc}))
    target = max(1.0, float(round(exact)))
    values = og.values
    if exact < 0.5:
        dc_max = float(ch.dc_of_tau.subs({d: dd, tau: 1}))
        return RulePoint(
            ch, exact, None, f"the rule asks for tau = {exact:.3g} < 1: at tau >= 1 it needs d_c <= {dc_max:.4g}"
        )
    if target < values[0] or target > values[-1]:
        return RulePoint(
            ch, exact, None, f"the rule's tau = {exact:.4g} is outside the grid {values[0]:g}..{values[-1]:g}"
        )
    j = int(np.argmin(np.abs(values - target)))
    pt = choice_at(og, (ci, j), cut)
    why = "" if og.feasible[ci, j] else f"infeasible there: {pt.verdict}"
    return RulePoint(ch, exact, pt, why)


def cut_plan(
    og: ObjectiveGrid, ci: int, cut: CutPoint | None, choices: Sequence[PaperChoice], params: Mapping[str, Any]
) -> CutPlan:
    """Cut ``ci``'s part of the plan: its best feasible point (and, when the objective is time, its
    fewest-rounds point and the time model's balance tau), or why it has none; and the rule points."""
    row = og.objective[ci]
    if not np.any(np.isfinite(row)):
        return CutPlan(cut, None, f"infeasible, because {infeasible_reason(og, ci)}")
    cp = CutPlan(cut, choice_at(og, (ci, int(np.argmin(row))), cut))
    if og.kind == "time":
        fewest = int(np.argmin(np.where(og.feasible[ci], og.rounds_grid()[ci], np.inf)))
        cp.best_rounds = choice_at(og, (ci, fewest), cut)
        cp.eq12_tau = og.balance_tau(ci)
    cp.rules = [rule_point(ch, og, ci, cut, params) for ch in choices]
    return cp
