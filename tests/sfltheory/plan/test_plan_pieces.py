"""The planner's pieces one by one (grid, objective, selection, notes) against hand calculations.

Throughout: MU-SplitFed Theorem 4.1 at a fixed eta = 1e-4 with L = F = d_c = d_s = 1, sigma_s^2 = 0 and a
negligible smoothing radius, where (see test_plan) B(tau, T) = 4/(eta tau T) + 8 eta tau sigma_c^2 and the
step condition eta <= 1/(64 (tau + 2)) holds for tau <= 154.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

import sfltheory as st
from sfltheory.plan import Block, TimeModel, cuts_from_blocks
from sfltheory.plan.cuts import CutTable
from sfltheory.plan.grid import DEFAULT_GRID, canonical_params, cut_columns, grid_of
from sfltheory.plan.notes import edge_notes
from sfltheory.plan.objective import ObjectiveGrid, objective_grid, wall_clock
from sfltheory.plan.planner import Choice, plan
from sfltheory.plan.records import cut_name, objective_value
from sfltheory.plan.selection import cut_plan
from sfltheory.registry import get

T41 = "mu_splitfed/thm4.1"
FIXED = {"F": 1.0, "L": 1.0, "sigma_s2": 0.0, "lam": 1e-12, "eta": 1e-4}


def objective_on(params: dict[str, Any], grid: list[float], cuts: CutTable | None = None, **kw: Any) -> ObjectiveGrid:
    """The objective on the grid, composed from the pieces the way plan() composes them."""
    r = get(T41)
    p = canonical_params(r, params)
    values = grid_of("tau", None, grid)
    columns = cut_columns(r, cuts, p)
    p.update(columns.params)
    p["tau"] = values[None, :]
    return objective_grid(r, p, columns, over="tau", values=values, step="auto", require="statement", **kw)


# ---------------------------------------------------------------------------------------------------
def test_grid_of_a_given_list_is_sorted_and_distinct() -> None:
    assert grid_of("tau", [3, 1, 7, 3], None).tolist() == [1.0, 3.0, 7.0]
    assert grid_of("tau", 4, None).tolist() == [4.0]
    assert grid_of("tau", None, np.arange(5, 0, -1)).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    g = grid_of("tau", None, None)
    assert g is not DEFAULT_GRID and g.tolist() == list(range(1, 1001))


@pytest.mark.parametrize(
    ("given", "grid", "match"),
    [([2], [1, 2], "give one"), ([], None, "non-empty"), ([0, 1], None, "got \\[0.\\]"), (None, [2.5], "2.5")],
)
def test_grid_of_refuses(given: Any, grid: Any, match: str) -> None:
    with pytest.raises(st.ParameterError, match=match) as e:
        grid_of("tau", given, grid)
    assert e.value.name == "tau"


def test_cut_columns_one_row_per_cut() -> None:
    # blocks a (10 params), b (20), c (70): cuts after a (d_c = 10, d_s = 90) and after b (d_c = 30, d_s = 70)
    cuts = cuts_from_blocks("toy", [Block("a", 10, 4), Block("b", 20, 2), Block("c", 70)])
    cols = cut_columns(get(T41), cuts, {})
    assert [c.name for c in cols.cuts if c is not None] == ["a", "b"]
    assert cols.params["d_c"].tolist() == [[10.0], [30.0]] and cols.params["d_s"].tolist() == [[90.0], [70.0]]
    assert "d" not in cols.params  # Theorem 4.1 is written in d_c and d_s
    assert cols.activation is not None and cols.activation.tolist() == [[4.0], [2.0]]
    assert not cols.split_free
    none = cut_columns(get(T41), None, {})
    assert none.cuts == [None] and none.params == {} and none.fraction is None


# ---------------------------------------------------------------------------------------------------
def test_bound_objective_by_hand() -> None:
    # sigma_c^2 = 2e4, T = 1: B(tau) = 4e4/tau + 16 tau -> 4160 (tau 10), 1600 (50), 1626.67 (60); 800 is
    # outside the step condition (tau <= 154): inf
    og = objective_on({**FIXED, "T": 1.0, "d_c": 1.0, "d_s": 1.0, "sigma_c2": 2e4}, [10, 50, 60, 800])
    assert og.kind == "bound" and og.shape == (1, 4)
    assert og.objective[0, :3] == pytest.approx([4160.0, 1600.0, 4e4 / 60 + 960], rel=1e-9)
    assert og.feasible[0].tolist() == [True, True, True, False] and math.isinf(og.objective[0, 3])


def test_rounds_and_time_objective_by_hand() -> None:
    # sigma_c^2 = 1, eps = 1: B = 4e4/(tau T) + 8e-4 tau <= 1 -> T = ceil(4e4 / (tau (1 - 8e-4 tau))):
    # 4033 (tau 10), 834 (50), 435 (100). One cut with half the parameters on the client (no FLOPs given):
    # straggler 5 s x 1/2 = 2.5 s, server step 0.01 s x 1/2 = 0.005 s -> round time max(2.5, 0.005 tau) = 2.5 s,
    # balance tau 2.5 / 0.005 = 500
    cuts = cuts_from_blocks("toy", [Block("a", 1, 10), Block("b", 1)])
    params = {**FIXED, "sigma_c2": 1.0}
    og = objective_on({**params, "d_c": 1.0, "d_s": 1.0}, [10, 50, 100], eps=1.0)
    assert og.kind == "rounds" and og.objective[0].tolist() == [4033.0, 834.0, 435.0]
    og = objective_on(params, [10, 50, 100], cuts, eps=1.0, time_model=TimeModel(0.01, client_time=(1.0, 1.0, 5.0)))
    assert og.kind == "time" and og.objective[0] == pytest.approx([4033 * 2.5, 834 * 2.5, 435 * 2.5], rel=1e-12)
    assert og.balance_tau(0) == pytest.approx(500.0)


def test_wall_clock_refuses_an_overflow() -> None:
    feasible = np.array([True, False])
    assert wall_clock(np.array([2.0, np.inf]), np.array([3.0, 1.0]), feasible).tolist() == [6.0, np.inf]
    with pytest.raises(st.ParameterError, match="overflows"):
        wall_clock(np.array([1e200, 1.0]), np.array([1e200, 1.0]), feasible)


# ---------------------------------------------------------------------------------------------------
def test_selection_picks_the_smallest_feasible_objective() -> None:
    og = objective_on({**FIXED, "T": 1.0, "d_c": 1.0, "d_s": 1.0, "sigma_c2": 2e4}, [10, 50, 60, 800])
    best = cut_plan(og, 0, None, (), {}).best
    assert best is not None and best.value == 50 and best.bound == pytest.approx(1600.0, rel=1e-9)
    # mark tau = 50 infeasible by hand: the next smallest is tau = 60 (1626.67 < 4160)
    feasible = og.feasible.copy()
    feasible[0, 1] = False
    hand = dataclasses.replace(og, feasible=feasible, objective=np.where(feasible, og.objective, np.inf))
    best = cut_plan(hand, 0, None, (), {}).best
    assert best is not None and best.value == 60 and best.bound == pytest.approx(4e4 / 60 + 960, rel=1e-9)
    # tau = 800 fails the step condition: it ends 60's feasible range from above
    assert "eta<=1/(64L(tau+2d_s))" in best.limited_by and "above 60" in best.limited_by
    none = dataclasses.replace(og, objective=np.full_like(og.objective, np.inf))
    assert cut_plan(none, 0, None, (), {}).best is None


def test_objective_value_orders_time_then_rounds_then_bound() -> None:
    ch = Choice("tau", 1.0, None, 5.0, {}, None, None, None, "")
    assert objective_value(ch) == 5.0 and objective_value(None) == math.inf
    ch.rounds = 7.0
    assert objective_value(ch) == 7.0
    ch.time = 3.0
    assert objective_value(ch) == 3.0


# ---------------------------------------------------------------------------------------------------
def test_edge_note_and_cut_name() -> None:
    p = plan(T41, {**FIXED, "T": 1.0, "d_c": 1.0, "d_s": 1.0, "sigma_c2": 2e4}, grid=[50, 60])
    assert p.best is not None and p.best.best is not None and p.best.best.value == 50
    assert edge_notes(p) == [
        "the optimum tau = 50 is the smallest value searched (50..60): the bound has no interior optimum in this "
        "grid; widen it with --grid FIRST:LAST to see past the edge"
    ]
    assert cut_name(None) == "(no model)"
