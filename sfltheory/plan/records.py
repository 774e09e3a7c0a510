"""The planner's records: a point of the plan (:class:`Choice`), a paper's rule point, one cut's plan and the
whole :class:`Plan`, with the two small readers every piece uses (:func:`objective_value`, :func:`cut_name`).

They live apart from :mod:`.planner` so that :mod:`.selection` and :mod:`.notes` build and read them without an
import cycle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .choices import PaperChoice
from .cuts import CutPoint
from .timemodel import TimeModel

__all__ = ["Choice", "CutPlan", "Plan", "RulePoint", "cut_name", "objective_value"]


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


def objective_value(ch: Choice | None) -> float:
    """What the plan minimises at a point: its time, else its rounds, else its bound (``inf`` for none)."""
    if ch is None:
        return math.inf
    if ch.time is not None:
        return ch.time
    if ch.rounds is not None:
        return ch.rounds
    return ch.bound


def cut_name(c: CutPoint | None) -> str:
    """A cut's name as the notes and reasons write it."""
    return c.name if c is not None else "(no model)"
