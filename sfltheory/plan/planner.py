"""The planner: for a result, a model's cuts and the user's constants, the best tau (or other integer
parameter), cut and step size, the rounds to an accuracy and the wall-clock time with stragglers.

One vectorised evaluation covers the whole (cut x tau) grid; the answers at the optimum are read off the
grid arrays, so planning over every cut of ResNet-50 and tau = 1..1000 is a handful of NumPy calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import vocabulary as vocab
from ..errors import ParameterError
from ..evaluate import ArrayLike, Evaluation, HypothesisCheck, _as_result
from ..result import Result
from .choices import PaperChoice, choices_for, d, d_c, tau
from .cuts import CutPoint, CutTable
from .search import GridEval, Require, Rounds, _failing_reason, rounds_to, solve
from .timemodel import TimeModel

DEFAULT_GRID = np.arange(1, 1001, dtype=float)
_SPLIT_NAMES = ("d", "d_c", "d_s", "q_smash")


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
    cut: CutPoint | None
    best: Choice | None  # by the plan's objective
    reason: str = ""  # why no value is feasible at this cut
    best_rounds: Choice | None = None  # fewest rounds (differs from best when the objective is time)
    rules: list[RulePoint] = field(default_factory=list)
    eq12_tau: float | None = None  # MU-SplitFed eq. (12) at this cut, with a time model


@dataclass
class Plan:
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
        return min(ok, key=lambda c: _key(c.best)) if ok else None

    @property
    def reason(self) -> str:
        if self.feasible:
            return ""
        reasons = {c.reason for c in self.cuts}
        return reasons.pop() if len(reasons) == 1 else "; ".join(f"{_cut_name(c.cut)}: {c.reason}" for c in self.cuts)

    def rule_best(self, which: int = 0) -> tuple[CutPlan, RulePoint] | None:
        """The cut that does best when tau is set by the paper's rule (``which``: index of the rule)."""
        cands = [
            (c, c.rules[which])
            for c in self.cuts
            if len(c.rules) > which and c.rules[which].point is not None and c.rules[which].why_not == ""
        ]
        return min(cands, key=lambda x: _key(x[1].point)) if cands else None


def _cut_name(c: CutPoint | None) -> str:
    return c.name if c is not None else "(no model)"


def _key(ch: Choice | None) -> float:
    if ch is None:
        return math.inf
    if ch.time is not None:
        return ch.time
    if ch.rounds is not None:
        return ch.rounds
    return ch.bound


def _canonical(r: Result, key: str) -> str:
    if vocab.is_known(key):
        return key
    return vocab.aliases_for(r.paper).get(key, key)


def _at(x: Any, idx: tuple[int, ...]) -> Any:
    a = np.asarray(x)
    return a[tuple(i if a.shape[k] > 1 else 0 for k, i in enumerate(idx[-a.ndim :]))] if a.ndim else a[()]


def _scalar(x: Any, idx: tuple[int, ...]) -> float:
    return float(_at(x, idx))


def _verdict(ev: Evaluation, idx: tuple[int, ...]) -> tuple[str, list[HypothesisCheck]]:
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


def _failing_at(ev: Evaluation, idx: tuple[int, ...], require: Require) -> list[str]:
    return [
        h.name
        for h in ev.hypotheses
        if not bool(_at(h.holds, idx)) and (require == "all" or h.source == "statement" or h.kind == "validity")
    ]


def _choice(
    g: GridEval,
    idx: tuple[int, int],
    over: str,
    value: float,
    cut: CutPoint | None,
    rounds: Rounds | None,
    round_time: Any,
    feasible: np.ndarray,
    require: Require,
) -> Choice:
    ev = g.evaluation
    verdict, _ = _verdict(ev, idx)
    step = None if g.step is None else _scalar(g.step, idx)
    m = None if g.max_step is None else _scalar(g.max_step, idx)
    binding = None if g.binding is None else str(_at(g.binding, idx))
    ch = Choice(
        over,
        value,
        cut,
        _scalar(ev.value, idx),
        {k: _scalar(v, idx) for k, v in ev.terms.items()},
        step,
        m,
        binding,
        verdict,
    )
    if rounds is not None:
        ch.rounds = _scalar(rounds.T, idx)
    if round_time is not None:
        ch.round_time = _scalar(round_time, idx)
        ch.time = (ch.rounds if ch.rounds is not None else math.nan) * ch.round_time
    c, j = idx
    limits = []
    for nb, side in ((j + 1, "above"), (j - 1, "below")):
        if 0 <= nb < feasible.shape[1] and not feasible[c, nb]:
            names = _failing_at(ev, (c, nb), require)
            if names:
                limits.append(f"{', '.join(names)} ({over} {side} {value:g})")
    ch.limited_by = "; ".join(limits)
    return ch


def _grid_of(over: str, given: Any, grid: ArrayLike | None) -> np.ndarray:
    if given is not None and grid is not None:
        raise ParameterError(over, "given as a value and as a grid; give one")
    raw = given if given is not None else (DEFAULT_GRID if grid is None else grid)
    g = np.atleast_1d(np.asarray(raw, dtype=float))
    if g.ndim != 1 or g.size == 0:
        raise ParameterError(over, "the grid must be a non-empty list of values")
    if not np.all(np.isfinite(g)) or np.any(g < 1) or np.any(g != np.round(g)):
        raise ParameterError(over, f"grid values must be integers >= 1 (got {g[(g < 1) | (g != np.round(g))][:1]})")
    return np.unique(g)


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
    ``time_model`` as well, the wall-clock time to ``eps``. The paper's own closed-form choices (e.g.
    MU-SplitFed Corollary 4.2's ``tau = d / d_c^2``) are evaluated alongside.
    """
    r = _as_result(result)
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    if cuts is not None and not isinstance(cuts, CutTable):
        raise ParameterError(
            "cuts", f"must be a CutTable, e.g. verify.models.model_cuts('resnet18') (got {type(cuts).__name__})"
        )
    rparams = set(r.parameters())
    if not vocab.is_known(over) or over not in rparams:
        ints = [n for n in r.parameters() if vocab.get(n).domain == "count"]
        raise ParameterError(
            "over", f"{r.id} has no parameter '{over}' to optimise; its integer parameters: {', '.join(ints) or 'none'}"
        )
    if vocab.get(over).domain not in ("count", "count0"):
        raise ParameterError("over", f"'{over}' is not an integer parameter (domain {vocab.get(over).domain})")
    p: dict[str, Any] = {}
    for k, v in params.items():
        name = _canonical(r, k)
        if name in p:
            raise ParameterError(k, "given twice")
        p[name] = v
    values = _grid_of(over, p.pop(over, None), grid)
    if eps is None and time_model is not None:
        raise ParameterError("eps", "the wall-clock time is the time to reach bound <= eps: give eps")
    if eps is not None:
        if "T" in p:
            raise ParameterError("T", "with eps the planner finds the rounds T: leave T out")
        if over == "T":
            raise ParameterError("over", "with eps, T is what is solved for; search another parameter")
    notes: list[str] = []

    n_cuts = 1
    cut_list: list[CutPoint | None] = [None]
    fraction = activation = None
    if cuts is not None:
        clash = [n for n in _SPLIT_NAMES if n in p and (n != "q_smash" or "q_smash" in rparams)]
        if clash:
            raise ParameterError(clash[0], "the model's cuts give the split: leave d, d_c, d_s out")
        cut_list = list(cuts.cuts)
        n_cuts = len(cut_list)
        col = lambda xs: np.asarray(xs, dtype=float)[:, None]  # noqa: E731
        p["d_c"] = col([c.d_c for c in cuts.cuts])
        p["d_s"] = col([c.d_s for c in cuts.cuts])
        if "d" in rparams:
            p["d"] = col([c.d for c in cuts.cuts])
        acts = [c.activation for c in cuts.cuts]
        if "q_smash" in rparams and "q_smash" not in p:
            if any(a is None for a in acts):
                raise ParameterError(
                    "q_smash", f"{r.id} needs the activation size at each cut; the model table lacks it"
                )
            p["q_smash"] = col(acts)
        fraction = col([c.client_fraction for c in cuts.cuts])
        activation = col([math.nan if a is None else a for a in acts])
        if not (rparams & {"d_c", "d_s", "d", "q_smash"}):
            notes.append(
                f"the bound of {r.id} does not depend on the split (no d, d_c, d_s or q_smash): every cut gives the "
                "same value"
            )
    elif time_model is not None:
        raise ParameterError("model", "the time model needs the model's cuts (client share of work, activation size)")
    p[over] = values[None, :]

    shape = (n_cuts, values.size)
    rounds: Rounds | None = None
    round_time = None
    if eps is None:
        g = solve(r, p, step, require)
        feasible = np.broadcast_to(np.asarray(g.feasible), shape).copy()
        bound = np.broadcast_to(np.asarray(g.bound, dtype=float), shape)
        objective, kind = bound, "bound"
    else:
        rounds = rounds_to(r, eps, p, step, require)
        T = np.broadcast_to(np.asarray(rounds.T, dtype=float), shape)
        # the bound and its verdict at the rounds found (where reached)
        g = solve(r, {**p, "T": np.where(np.isfinite(T), T, 1.0)}, step, require)
        feasible = np.broadcast_to(np.asarray(g.feasible), shape) & np.isfinite(T)
        bound = np.broadcast_to(np.asarray(g.bound, dtype=float), shape)
        objective, kind = T, "rounds"
        if time_model is not None:
            round_time = np.broadcast_to(time_model.round_time(values[None, :], fraction, activation), shape)
            with np.errstate(over="ignore"):
                objective, kind = T * round_time, "time"
            if np.any(np.isinf(objective) & np.isfinite(T) & feasible):
                raise ParameterError(
                    "client_time",
                    "the time to eps (rounds x round time) overflows the float range: give realistic times",
                )
    objective = np.where(feasible, objective, np.inf)

    choices = choices_for(r.id) if over == "tau" else ()
    plans: list[CutPlan] = []
    for ci, cut in enumerate(cut_list):
        row = objective[ci]
        if not np.any(np.isfinite(row)):
            unreached = rounds is not None and not np.any(np.broadcast_to(np.asarray(rounds.reached), shape)[ci])
            why = _failing_reason(_row(g, ci, shape), over, values)
            if unreached and rounds is not None:
                fl = np.broadcast_to(np.asarray(rounds.floor, dtype=float), shape)[ci]
                kf = int(np.nanargmin(np.where(np.isfinite(fl), fl, np.nan))) if np.any(np.isfinite(fl)) else 0
                why = (
                    f"the bound stays above eps = {eps:g} however many rounds: its floor here is {fl[kf]:.4g} "
                    f"(lowest at {over} = {values[kf]:g})"
                    if np.isfinite(fl[kf]) and fl[kf] > (eps or 0)
                    else rounds.reason
                )
            plans.append(CutPlan(cut, None, f"infeasible, because {why}"))
            continue
        j = int(np.argmin(row))
        best = _choice(g, (ci, j), over, float(values[j]), cut, rounds, round_time, feasible, require)
        cp = CutPlan(cut, best)
        if kind == "time":
            rr = np.where(feasible[ci], np.broadcast_to(np.asarray(rounds.T, dtype=float), shape)[ci], np.inf)  # type: ignore[union-attr]
            jr = int(np.argmin(rr))
            cp.best_rounds = _choice(g, (ci, jr), over, float(values[jr]), cut, rounds, round_time, feasible, require)
            assert time_model is not None and fraction is not None and activation is not None
            cp.eq12_tau = float(time_model.eq12_tau(fraction[ci, 0], activation[ci, 0]))
        for ch in choices:
            cp.rules.append(_rule_point(ch, g, ci, cut, p, values, over, rounds, round_time, feasible, require))
        plans.append(cp)

    out = Plan(
        r.id,
        over,
        values,
        g.step_mode,
        kind,
        eps,
        {k: v for k, v in params.items() if _canonical(r, k) != over},
        cuts.model if cuts else None,
        cuts.d if cuts else None,
        plans,
        {"objective": objective, "bound": np.asarray(bound), "feasible": feasible},
        notes,
        time_model,
    )
    _add_notes(out, choices)
    return out


def _row(g: GridEval, ci: int, shape: tuple[int, int]) -> GridEval:
    """The grid evaluation restricted to one cut (for the per-cut reason)."""

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


def _rule_point(
    ch: PaperChoice,
    g: GridEval,
    ci: int,
    cut: CutPoint | None,
    p: Mapping[str, Any],
    values: np.ndarray,
    over: str,
    rounds: Rounds | None,
    round_time: Any,
    feasible: np.ndarray,
    require: Require,
) -> RulePoint:
    if cut is not None:
        dd, dc = float(cut.d), float(cut.d_c)
    else:
        try:
            dd = float(np.asarray(p["d"])) if "d" in p else float(np.asarray(p["d_c"]) + np.asarray(p["d_s"]))
            dc = float(np.asarray(p["d_c"])) if "d_c" in p else dd - float(np.asarray(p["d_s"]))
        except (KeyError, TypeError):
            return RulePoint(ch, math.nan, None, "the split (d, d_c) is not given")
    exact = float(ch.tau_of_split.subs({d: dd, d_c: dc}))
    target = max(1.0, float(round(exact)))
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
    pt = _choice(g, (ci, j), over, float(values[j]), cut, rounds, round_time, feasible, require)
    why = "" if feasible[ci, j] else f"infeasible there: {pt.verdict}"
    return RulePoint(ch, exact, pt, why)


def _add_notes(out: Plan, choices: Sequence[PaperChoice]) -> None:
    best = out.best
    if choices and out.cuts and out.cuts[0].cut is not None:
        ch = choices[0]
        if all(c.rules and c.rules[0].point is None for c in out.cuts):
            dcs = [c.cut.d_c for c in out.cuts if c.cut is not None]
            dd = out.d or 0
            lo = float(ch.dc_of_tau.subs({d: dd, tau: out.grid[-1]}))
            hi = float(ch.dc_of_tau.subs({d: dd, tau: out.grid[0]}))
            out.notes.append(
                f"{ch.name} ({ch.printed}) asks for d_c between {lo:.4g} and {hi:.4g} for tau in "
                f"{out.grid[0]:g}..{out.grid[-1]:g}, but the cuts of {out.model} give d_c from {min(dcs):,} to "
                f"{max(dcs):,}: no cut can follow it"
            )
        if best is not None and best.best is not None and out.over == "tau" and out.d:
            want = float(ch.dc_of_tau.subs({d: out.d, tau: best.best.value}))
            near = min(
                (c for c in out.cuts if c.cut is not None),
                key=lambda c: abs(math.log(c.cut.d_c / want)),  # type: ignore[union-attr]
            )
            assert near.cut is not None
            out.notes.append(
                f"at the optimal tau = {best.best.value:g}, {ch.name} asks for d_c = {want:.4g}; the nearest cut is "
                f"'{near.cut.name}' (d_c = {near.cut.d_c:,}, {near.cut.d_c / want:.3g}x that)"
            )
        rb = out.rule_best()
        if best is not None and rb is not None and rb[0] is not best:
            out.notes.append(
                f"following {ch.name} the best cut is '{_cut_name(rb[0].cut)}' (tau = {rb[1].point.value:g}); "  # type: ignore[union-attr]
                f"the {out.objective}-optimal plan is cut '{_cut_name(best.cut)}' at tau = {best.best.value:g}"  # type: ignore[union-attr]
            )
    if best is not None and best.best is not None and out.time_model is not None:
        b = best.best
        if best.eq12_tau is not None and best.best_rounds is not None:
            e12 = best.eq12_tau
            if not math.isfinite(e12):
                out.notes.append(
                    f"at cut '{_cut_name(best.cut)}' the server does no work (t_server = 0): eq. (12)'s tau = "
                    "t_straggler/t_server gives no finite tau"
                )
            elif not (out.grid[0] <= round(e12) <= out.grid[-1]):
                out.notes.append(
                    f"at cut '{_cut_name(best.cut)}' eq. (12) gives tau = t_straggler/t_server = {e12:.4g}, outside "
                    f"the grid {out.grid[0]:g}..{out.grid[-1]:g}"
                )
            elif round(e12) != b.value or round(e12) != best.best_rounds.value:
                out.notes.append(
                    f"at cut '{_cut_name(best.cut)}' eq. (12) gives tau = t_straggler/t_server = {e12:.3g}, the "
                    f"fewest-rounds tau is {best.best_rounds.value:g} and the fastest tau is {b.value:g}: they disagree"
                )
    if best is not None and best.best is not None and out.grid.size > 1:
        if best.best.value in (out.grid[0], out.grid[-1]):
            lo, hi = out.grid[0], out.grid[-1]
            side = "largest" if best.best.value == hi else "smallest"
            out.notes.append(
                f"the optimum {out.over} = {best.best.value:g} is the {side} value searched ({lo:g}..{hi:g}): the "
                f"bound has no interior optimum in this grid; widen it with --grid FIRST:LAST to see past the edge"
            )
