"""The text a plan carries: why a cut has no feasible value, and the notes under the table.

The notes, in the order a plan lists them:

* the result does not depend on the split (every cut gives the same bound);
* the paper's closed-form choice (the first of :func:`~sfltheory.plan.choices.choices_for`): no cut can
  follow it, the cut nearest to what it asks for at the optimal tau, and the best cut when tau follows it;
* with a time model: where the time model's balance tau (t_straggler / t_server) stands against the
  fastest and the fewest-rounds tau;
* the optimum sits at an end of the grid (no interior optimum was found).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .choices import PaperChoice, d, tau
from .objective import ObjectiveGrid
from .records import Plan, cut_name
from .search import failing_reason


def split_free_note(result_id: str) -> str:
    """The note for a result whose bound does not depend on the split: every cut gives the same value."""
    return (
        f"the bound of {result_id} does not depend on the split (no d, d_c, d_s or q_smash): every cut gives the "
        "same value"
    )


def infeasible_reason(og: ObjectiveGrid, ci: int) -> str:
    """Why no value is feasible at cut ``ci``: the failing hypotheses, or the bound's floor above ``eps``."""
    why = failing_reason(og.cut_eval(ci), og.over, og.values)
    rounds = og.rounds
    if rounds is None or np.any(np.broadcast_to(np.asarray(rounds.reached), og.shape)[ci]):
        return why
    fl = np.broadcast_to(np.asarray(rounds.floor, dtype=float), og.shape)[ci]
    kf = int(np.nanargmin(np.where(np.isfinite(fl), fl, np.nan))) if np.any(np.isfinite(fl)) else 0
    if np.isfinite(fl[kf]) and fl[kf] > (og.eps or 0):
        return (
            f"the bound stays above eps = {og.eps:g} however many rounds: its floor here is {fl[kf]:.4g} "
            f"(lowest at {og.over} = {og.values[kf]:g})"
        )
    return rounds.reason


def choice_notes(out: Plan, ch: PaperChoice) -> list[str]:
    """Notes on the paper's choice ``ch`` against the model's cuts: no cut can follow it, the cut nearest
    to it at the optimal tau, and the best cut when tau follows it (when that is not the optimal cut)."""
    notes: list[str] = []
    best = out.best
    if all(c.rules and c.rules[0].point is None for c in out.cuts):
        dcs = [c.cut.d_c for c in out.cuts if c.cut is not None]
        dd = out.d or 0
        lo = float(ch.dc_of_tau.subs({d: dd, tau: out.grid[-1]}))
        hi = float(ch.dc_of_tau.subs({d: dd, tau: out.grid[0]}))
        notes.append(
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
        notes.append(
            f"at the optimal tau = {best.best.value:g}, {ch.name} asks for d_c = {want:.4g}; the nearest cut is "
            f"'{near.cut.name}' (d_c = {near.cut.d_c:,}, {near.cut.d_c / want:.3g}x that)"
        )
    rb = out.rule_best()
    if best is not None and rb is not None and rb[0] is not best:
        notes.append(
            f"following {ch.name} the best cut is '{cut_name(rb[0].cut)}' (tau = {rb[1].point.value:g}); "  # type: ignore[union-attr]
            f"the {out.objective}-optimal plan is cut '{cut_name(best.cut)}' at tau = {best.best.value:g}"  # type: ignore[union-attr]
        )
    return notes


def balance_notes(out: Plan) -> list[str]:
    """With a time model, at the best cut: the balance tau t_straggler / t_server (the time model's eq. (12))
    when it is not finite, lies outside the grid, or disagrees with the fastest or the fewest-rounds tau."""
    best = out.best
    if best is None or best.best is None or out.time_model is None:
        return []
    if best.eq12_tau is None or best.best_rounds is None:
        return []
    b, e12, where = best.best, best.eq12_tau, cut_name(best.cut)
    if not math.isfinite(e12):
        return [
            f"at cut '{where}' the server does no work (t_server = 0): eq. (12)'s tau = "
            "t_straggler/t_server gives no finite tau"
        ]
    if not (out.grid[0] <= round(e12) <= out.grid[-1]):
        return [
            f"at cut '{where}' eq. (12) gives tau = t_straggler/t_server = {e12:.4g}, outside "
            f"the grid {out.grid[0]:g}..{out.grid[-1]:g}"
        ]
    if round(e12) != b.value or round(e12) != best.best_rounds.value:
        return [
            f"at cut '{where}' eq. (12) gives tau = t_straggler/t_server = {e12:.3g}, the "
            f"fewest-rounds tau is {best.best_rounds.value:g} and the fastest tau is {b.value:g}: they disagree"
        ]
    return []


def edge_notes(out: Plan) -> list[str]:
    """The optimum is the first or last value of the grid: the bound may keep falling past it."""
    best = out.best
    if best is None or best.best is None or out.grid.size <= 1 or best.best.value not in (out.grid[0], out.grid[-1]):
        return []
    lo, hi = out.grid[0], out.grid[-1]
    side = "largest" if best.best.value == hi else "smallest"
    return [
        f"the optimum {out.over} = {best.best.value:g} is the {side} value searched ({lo:g}..{hi:g}): the "
        f"bound has no interior optimum in this grid; widen it with --grid FIRST:LAST to see past the edge"
    ]


def add_notes(out: Plan, choices: Sequence[PaperChoice], *, split_free: bool = False) -> None:
    """Append the plan's notes (see the module's docstring) to ``out.notes``."""
    if split_free:
        out.notes.append(split_free_note(out.result))
    if choices and out.cuts and out.cuts[0].cut is not None:
        out.notes += choice_notes(out, choices[0])
    out.notes += balance_notes(out)
    out.notes += edge_notes(out)
