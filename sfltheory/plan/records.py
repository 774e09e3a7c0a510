"""The planner's records: a point of the plan (:class:`Choice`), a paper's rule point, one cut's plan and the
whole :class:`Plan`, with the two small readers every piece uses (:func:`objective_value`, :func:`cut_name`), and
the plan's table (:func:`plan_text`: what ``sfltheory plan`` and ``str(plan)`` print; here, beside the record it
reads, so that the record prints itself without importing a renderer that imports it).

They live apart from :mod:`.planner` so that :mod:`.selection` and :mod:`.notes` build and read them without an
import cycle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..report import count_text, num, text_table
from .choices import PaperChoice
from .cuts import CutPoint
from .timemodel import TimeModel

__all__ = ["Choice", "CutPlan", "Plan", "RulePoint", "cut_name", "objective_value", "plan_text"]


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
    per_cut: dict[str, list[float]] = field(default_factory=dict)  # parameters that differ by cut, one per cut

    @property
    def feasible(self) -> bool:
        """Whether some cut has a feasible point."""
        return any(c.best is not None for c in self.cuts)

    def __str__(self) -> str:  # the CLI's table, also what a notebook prints
        return plan_text(self)

    @property
    def best(self) -> CutPlan | None:
        """The cut whose best point has the smallest objective (:func:`objective_value`); None if none is feasible."""
        ok = [c for c in self.cuts if c.best is not None]
        return min(ok, key=lambda c: objective_value(c.best)) if ok else None

    @property
    def reason(self) -> str:
        """Why nothing is feasible ("" when something is): the cuts' common reason, else each cut's reason by name."""
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
    return c.label if c is not None else "(no model)"


def _secs(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    for unit, s in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if v >= s:
            return f"{v / s:.3g} {unit}"
    return f"{v:.3g} s"


def plan_text(p: Plan) -> str:
    """The plan as a table and what it found: what ``sfltheory plan`` prints, and ``str(plan)``."""
    if p.objective == "bound":
        objective = f"bound at T = {num(p.params.get('T'))}"
    else:
        objective = f"{'rounds' if p.objective == 'rounds' else 'wall-clock time'} to bound <= {p.eps:g}"
    lines = [
        f"plan for {p.result}: {p.over} in {p.grid[0]:g}..{p.grid[-1]:g} ({p.grid.size} values), "
        f"step: {p.step_mode}, objective: {objective}"
    ]
    if p.model:
        lines.append(f"model {p.model}: d = {p.d:,}, {len(p.cuts)} cuts")
    if p.per_cut:
        lines.append(f"measured at each cut: {', '.join(p.per_cut)} (each cut's own value; --json: per_cut)")
    rule = p.cuts[0].rules[0].choice if p.cuts and p.cuts[0].rules else None
    lines.append(_table(p, rule))
    best = p.best
    if best is None or best.best is None:
        lines.append(f"\ninfeasible, because {p.reason.removeprefix('infeasible, because ')}")
    else:
        lines += _best_lines(p, best, best.best, rule)
    for n in p.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)


def _table(p: Plan, rule: PaperChoice | None) -> str:
    """One row per cut: its best point, and where the paper's rule lands when there is one."""
    head = ["cut", "d_c", "act.", f"best {p.over}", "bound", "step", "binding"]
    if p.objective != "bound":
        head.insert(5, "rounds")
    if p.objective == "time":
        head[6:6] = ["time", "eq.(12) tau"]
    if rule is not None:
        head += ["paper tau", "bound there"]
    rows = []
    for c in p.cuts:
        b = c.best
        row = [
            c.cut.label if c.cut else "-",
            f"{c.cut.d_c:,}" if c.cut else "-",
            count_text(c.cut.activation) if c.cut else "-",
            f"{b.value:g}" if b else "infeasible",
            num(b.bound) if b else "-",
            num(b.step) if b else "-",
            (b.binding or "-") if b else "-",
        ]
        if p.objective != "bound":
            row.insert(5, count_text(b.rounds) if b else "-")
        if p.objective == "time":
            row[6:6] = [_secs(b.time) if b else "-", num(c.eq12_tau)]
        if rule is not None:
            rp = c.rules[0]
            row += [
                f"{rp.exact:.3g}" + (f" -> {rp.point.value:g}" if rp.point else ""),
                num(rp.point.bound) if rp.point and not rp.why_not else ("-" if not rp.point else "infeasible"),
            ]
        rows.append(row)
    return text_table(rows, head)


def _best_lines(p: Plan, best: CutPlan, b: Choice, rule: PaperChoice | None) -> list[str]:
    """The best point (``b``, at cut ``best``) and, when the paper has a rule, where following it leads."""
    where = f"cut '{best.cut.name}' (d_c = {best.cut.d_c:,}), " if best.cut else ""
    extra = ""
    if b.rounds is not None:
        extra += f", {count_text(b.rounds)} rounds"
    if b.time is not None:
        extra += f", {_secs(b.time)}"
    lines = [f"\nbest: {where}{p.over} = {b.value:g}: bound {num(b.bound)}{extra}"]
    if b.step is not None:
        lines.append(f"  step {num(b.step)} (largest feasible {num(b.max_step)}, binding: {b.binding})")
    if b.limited_by:
        lines.append(f"  feasible range ends at: {b.limited_by}")
    lines.append(f"  verdict: {b.verdict}")
    if rule is not None:
        lines.append(f"paper's rule: {rule.name}, {rule.printed} ({rule.where})")
        rb = p.rule_best()
        if rb is not None and rb[1].point is not None:
            pt = rb[1].point
            at_cut = f"cut '{rb[0].cut.name}' at " if rb[0].cut else ""
            lines.append(
                f"  following it: {at_cut}tau = {pt.value:g} "
                f"(exact {rb[1].exact:.4g}): bound {num(pt.bound)}"
                + (f", {count_text(pt.rounds)} rounds" if pt.rounds is not None else "")
            )
    return lines
