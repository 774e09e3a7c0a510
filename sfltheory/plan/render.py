"""Readable tables and JSON-ready dicts for plans, comparisons and cut tables."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from ..report import jsonable, num, text_table
from .compare import Row
from .cuts import CutTable
from .records import Choice, Plan


def _int(v: float | int | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return "never" if v > 0 else "-"
    return f"{int(v):,}"


def _secs(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    for unit, s in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if v >= s:
            return f"{v / s:.3g} {unit}"
    return f"{v:.3g} s"


# ---------------------------------------------------------------------------------------------------
def cuts_text(t: CutTable) -> str:
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
            _int(c.activation),
            "-" if c.flops_c is None else f"{c.client_fraction:.1%}",
        ]
        for c in t.cuts
    ]
    head = f"{t.model}: d = {t.d:,} parameters, {len(t.cuts)} cuts{shape}"
    return (
        head + "\n" + text_table(rows, ["L_c", "cut after", "d_c", "d_s", "d_c/d", "activation/sample", "client FLOPs"])
    )


def cuts_dict(t: CutTable) -> dict[str, Any]:
    return jsonable(t.to_dict())


# ---------------------------------------------------------------------------------------------------
def choice_dict(c: Choice | None) -> dict[str, Any] | None:
    if c is None:
        return None
    out = asdict(c)
    out["cut"] = None if c.cut is None else asdict(c.cut)
    return jsonable(out)


def plan_dict(p: Plan) -> dict[str, Any]:
    best = p.best
    out: dict[str, Any] = {
        "result": p.result,
        "over": p.over,
        "grid": [float(p.grid[0]), float(p.grid[-1]), int(p.grid.size)],
        "step_mode": p.step_mode,
        "objective": p.objective,
        "eps": p.eps,
        "params": p.params,
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


def plan_text(p: Plan) -> str:
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
    rule = p.cuts[0].rules[0].choice if p.cuts and p.cuts[0].rules else None
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
            c.cut.name if c.cut else "-",
            f"{c.cut.d_c:,}" if c.cut else "-",
            _int(c.cut.activation) if c.cut else "-",
            f"{b.value:g}" if b else "infeasible",
            num(b.bound) if b else "-",
            num(b.step) if b else "-",
            (b.binding or "-") if b else "-",
        ]
        if p.objective != "bound":
            row.insert(5, _int(b.rounds) if b else "-")
        if p.objective == "time":
            row[6:6] = [_secs(b.time) if b else "-", num(c.eq12_tau)]
        if rule is not None:
            rp = c.rules[0]
            row += [
                f"{rp.exact:.3g}" + (f" -> {rp.point.value:g}" if rp.point else ""),
                num(rp.point.bound) if rp.point and not rp.why_not else ("-" if not rp.point else "infeasible"),
            ]
        rows.append(row)
    lines.append(text_table(rows, head))
    best = p.best
    if best is None or best.best is None:
        lines.append(f"\ninfeasible, because {p.reason.removeprefix('infeasible, because ')}")
    else:
        b = best.best
        where = f"cut '{best.cut.name}' (d_c = {best.cut.d_c:,}), " if best.cut else ""
        extra = ""
        if b.rounds is not None:
            extra += f", {_int(b.rounds)} rounds"
        if b.time is not None:
            extra += f", {_secs(b.time)}"
        lines.append(f"\nbest: {where}{p.over} = {b.value:g}: bound {num(b.bound)}{extra}")
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
                    + (f", {_int(pt.rounds)} rounds" if pt.rounds is not None else "")
                )
    for n in p.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
def compare_dict(rows: list[Row]) -> list[dict[str, Any]]:
    return jsonable([asdict(r) for r in rows])


def compare_text(rows: list[Row]) -> str:
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
            row.insert(2, _int(r.rounds))
        body.append(row)
    out = text_table(body, head)
    for r in rows:
        if r.why_not:
            out += f"\n{r.entry}: {r.why_not}"
    return out
