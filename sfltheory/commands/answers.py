"""The answer first: the one line in words that ``check-lr``, ``plan`` and ``bound`` print before their tables --
whether the step is admissible and by what factor, the best tau and cut, the bound and whether it applies."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..evaluate import Evaluation
from ..plan.records import Plan, objective_value
from ..report import limit, num
from ..stepsize import StepCheck


def factor(num_: float, den: float) -> str:
    """``num_ / den`` (both > 0) as the answer writes it: ``2.5e+07 x``, ``0.31 x``; a ratio beyond the float range
    (1e-3 over 3e-312) from its logarithm, never ``inf``."""
    with np.errstate(over="ignore", under="ignore"):
        x = num_ / den
    if math.isfinite(x) and x > 0:
        return f"{x:.3g} x"
    e = math.log10(num_) - math.log10(den)
    k = math.floor(e)
    return f"{10 ** (e - k):.3g}e{k:+03d} x"


def step_answer(sc: StepCheck) -> str:
    """One step size (no sweep): admissible or not, and its ratio to the largest step the statement admits."""
    s, rid = sc.step, sc.id
    if np.ndim(sc.max_step) or (sc.given is not None and np.ndim(sc.given)):  # a sweep: at how many points
        mxs = np.asarray(sc.max_step, dtype=float)
        if sc.given is None:
            return f"the largest {s} {rid} admits: from {num(mxs.min())} to {num(mxs.max())} over the sweep"
        ok = np.broadcast_to(np.asarray(sc.given, dtype=float) <= mxs, np.broadcast(mxs, sc.given).shape)
        return f"{s} is admissible at {int(ok.sum())} of {ok.size} points of the sweep (per point: below)"
    mx = float(sc.max_step)
    if mx == math.inf:  # no branch bounds the step (or only beyond the float range): any float step is admissible
        given = "" if sc.given is None else f"{s} = {num(sc.given)} is admissible: "
        far = any(bool(np.any(b.beyond)) for b in sc.branches)
        why = "each branch's largest step lies beyond the float range, > 1.8e308" if far else "no branch constrains it"
        return f"{given}no condition of {rid} bounds {s} at these parameters ({why})"
    if not math.isfinite(mx) or mx <= 0:
        return f"no {s} > 0 satisfies the conditions of {rid} at these parameters: the theorem covers no such run"
    if sc.given is None:
        return f"the largest {s} {rid} admits is {num(mx)} (binding: {sc.binding})"
    g = float(sc.given)
    if g <= mx:
        return f"{s} = {num(g)} is admissible: {factor(g, mx)} the largest step {rid} admits ({num(mx)})"
    over = f"{s} = {num(g)} is {factor(g, mx)} the largest step {rid} admits ({num(mx)})"
    return f"{over}: the theorem does not cover this run"


def ranges(values: np.ndarray) -> str:
    """Sorted integers as runs: ``1..7, 9``."""
    out: list[str] = []
    vs = [int(v) for v in values]
    i = 0
    while i < len(vs):
        j = i
        while j + 1 < len(vs) and vs[j + 1] == vs[j] + 1:
            j += 1
        out.append(str(vs[i]) if i == j else f"{vs[i]}..{vs[j]}")
        i = j + 1
    return ", ".join(out)


def tau_sweep_answer(sc: StepCheck, taus: np.ndarray) -> str:
    """``check-lr`` over a grid of tau: for which tau the given step is admissible (or the largest step's range)."""
    s, rid = sc.step, sc.id
    mx = np.broadcast_to(np.asarray(sc.max_step, dtype=float), taus.shape)
    grid = f"tau in {ranges(taus)}"
    if sc.given is None:
        return f"the largest {s} {rid} admits, over {grid}: from {limit(mx.max())} down to {limit(mx.min())}"
    g = float(np.max(sc.given))
    ok = g <= mx
    if ok.all():
        return f"{s} = {num(g)} is admissible for every {grid}"
    if not ok.any():
        worst = float(mx.max())
        return (
            f"{s} = {num(g)} is admissible for no tau in {ranges(taus)}: it is at least {factor(g, worst)} the "
            f"largest step {rid} admits ({num(worst)} at tau = {int(taus[int(np.argmax(mx))])})"
        )
    some = f"{s} = {num(g)} is admissible for tau in {ranges(taus[ok])} (of {ranges(taus)})"
    return f"{some}; not for tau in {ranges(taus[~ok])}"


def tau_sweep_table(sc: StepCheck, taus: np.ndarray) -> str:
    """The sweep over tau as one row per tau: the largest step the statement admits, its binding branch and, with
    a given step, whether it is admissible there (the full branch table is ``check-lr ... tau=...``)."""
    mx = np.broadcast_to(np.asarray(sc.max_step, dtype=float), taus.shape)
    binding = np.broadcast_to(np.asarray(sc.binding, dtype=object), taus.shape)
    head = ["tau", f"max {sc.step}" + ("" if sc.basis == "statement" else f" ({sc.basis})"), "binding branch"] + (
        [f"{sc.step} = {num(sc.given)}"] if sc.given is not None else []
    )
    rows = [head]
    for i, t in enumerate(taus):
        row = [f"{int(t)}", limit(mx[i]), str(binding[i])]
        if sc.given is not None:
            row.append("admissible" if float(np.max(sc.given)) <= mx[i] else "too large")
        rows.append(row)
    w = [max(len(r[j]) for r in rows) for j in range(len(head))]
    lines = ["  ".join(c.ljust(w[j]) for j, c in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def bound_answer(ev: Evaluation) -> str:
    """The bound's value and whether its hypotheses hold (a sweep: at how many points it applies)."""
    if np.ndim(ev.value) == 0:
        if not math.isfinite(float(ev.value)):  # a void bound: no number to report (never "inf")
            return f"{ev.id}: no finite bound; {ev.verdict()}"
        return f"{ev.id}: the bound is {num(ev.value)}; {ev.verdict()}"
    a = np.asarray(ev.applies)
    return f"{ev.id}: the bound applies at {int(a.sum())} of {a.size} points"


def plan_answer(p: Plan) -> str:
    """The best value of the searched parameter and cut, what it achieves, and whether it sits at the grid's edge."""
    best = p.best
    if best is None or best.best is None:
        return f"{p.result}: no feasible plan: {p.reason.removeprefix('infeasible, because ')}"
    b = best.best
    where = f" at cut '{best.cut.name}'" if best.cut is not None else ""
    what: dict[str, Any] = {"bound": f"bound {num(b.bound)}", "rounds": f"{num(b.rounds)} rounds to eps",
                            "time": f"time to eps {num(objective_value(b))} s"}  # fmt: skip
    edge = ""
    if p.grid.size > 1 and b.value in (p.grid[0], p.grid[-1]):
        edge = f" (at the grid's {'upper' if b.value == p.grid[-1] else 'lower'} edge: widen --grid)"
    return f"{p.result}: best {p.over} = {b.value:g}{where}: {what[p.objective]}{edge}"
