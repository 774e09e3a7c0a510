"""Readable tables and JSON-ready dicts for cut tables and comparisons, and JSON-ready dicts for plans (a plan's
table is its ``str``: :func:`sfltheory.plan.records.plan_text`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..report import count_text, jsonable, num, text_table
from .compare import Row
from .cuts import CutTable
from .records import Choice, Plan


# ---------------------------------------------------------------------------------------------------
def cuts_text(t: CutTable) -> str:
    """The cut table as ``sfltheory cuts`` prints it: per cut its index, the block it follows, d_c, d_s, the
    client's share of parameters, the activation per sample and the client's share of FLOPs."""
    shape = f", input {'x'.join(map(str, t.input_shape))}" if t.input_shape else ""
    layers = {b.name: b.layer for b in t.blocks if b.layer}

    def after(name: str) -> str:  # an nn.Sequential's blocks are named 0, 1, ...: say which layer that is
        return f"{name} ({layers[name]})" if name.isdigit() and name in layers else name

    rows = [
        [
            str(c.index),
            after(c.name),
            f"{c.d_c:,}",
            f"{c.d_s:,}",
            f"{c.d_c / t.d:.2%}",
            count_text(c.activation),
            "-" if c.flops_c is None else f"{c.client_fraction:.1%}",
        ]
        for c in t.cuts
    ]
    head = f"{t.model}: d = {t.d:,} parameters, {len(t.cuts)} cuts{shape}"
    return (
        head + "\n" + text_table(rows, ["L_c", "cut after", "d_c", "d_s", "d_c/d", "activation/sample", "client FLOPs"])
    )


def cuts_dict(t: CutTable) -> dict[str, Any]:
    """The cut table as JSON-ready data (``sfltheory cuts --json``)."""
    return jsonable(t.to_dict())


# ---------------------------------------------------------------------------------------------------
def choice_dict(c: Choice | None) -> dict[str, Any] | None:
    """A plan's point as JSON-ready data, its cut as a dict (None for no point)."""
    if c is None:
        return None
    out = asdict(c)
    out["cut"] = None if c.cut is None else asdict(c.cut)
    return jsonable(out)


def plan_dict(p: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data (``sfltheory plan --json``): the inputs, whether it is feasible and why not, the
    best point, per cut its best points, the paper's rule points and the time model's eq. (12) tau, the notes and
    the cut that does best under the paper's rule."""
    best = p.best
    out: dict[str, Any] = {
        "result": p.result,
        "over": p.over,
        "grid": [float(p.grid[0]), float(p.grid[-1]), int(p.grid.size)],
        "step_mode": p.step_mode,
        "objective": p.objective,
        "eps": p.eps,
        "params": p.params,
        "per_cut": p.per_cut,
        "model": p.model,
        "d": p.d,
        "feasible": p.feasible,
        "reason": p.reason,
        "best": None
        if best is None
        else {"cut": best.cut.name if best.cut else None, **(choice_dict(best.best) or {})},
        "cuts": [
            {
                "cut": None if c.cut is None else asdict(c.cut),
                "best": choice_dict(c.best),
                "best_rounds": choice_dict(c.best_rounds),
                "eq12_tau": c.eq12_tau,
                "reason": c.reason,
                "paper_rules": [
                    {
                        "name": rp.choice.name,
                        "printed": rp.choice.printed,
                        "where": rp.choice.where,
                        "tau_exact": rp.exact,
                        "at": choice_dict(rp.point),
                        "why_not": rp.why_not,
                    }
                    for rp in c.rules
                ],
            }
            for c in p.cuts
        ],
        "notes": p.notes,
        "time_model": None if p.time_model is None else p.time_model.describe(),
    }
    rb = p.rule_best()
    out["paper_rule_best"] = (
        None if rb is None else {"cut": rb[0].cut.name if rb[0].cut else None, **(choice_dict(rb[1].point) or {})}
    )
    return jsonable(out)


# ---------------------------------------------------------------------------------------------------
def compare_dict(rows: list[Row]) -> list[dict[str, Any]]:
    """The compared rows as JSON-ready data (``sfltheory compare --json``)."""
    return jsonable([asdict(r) for r in rows])


def compare_text(rows: list[Row]) -> str:
    """The compared rows as ``sfltheory compare`` prints them: entry, bound, rounds to eps (with ``eps``), step and
    how it was chosen, binding branch and verdict, then why an entry never reaches eps."""
    with_rounds = any(r.rounds is not None for r in rows)
    head = ["entry", "bound", "step", "binding", "verdict"]
    if with_rounds:
        head.insert(2, "rounds to eps")
    body = []
    for r in rows:
        row = [
            r.entry,
            num(r.bound),
            num(r.step) + (f" ({r.step_mode})" if r.step is not None else ""),
            r.binding or "-",
            r.verdict,
        ]
        if with_rounds:
            row.insert(2, count_text(r.rounds))
        body.append(row)
    out = text_table(body, head)
    for r in rows:
        if r.why_not:
            out += f"\n{r.entry}: {r.why_not}"
    return out
