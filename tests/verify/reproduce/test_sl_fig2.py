"""sl_noniid Fig. 2 (seed 002): the quotes are verbatim on their seed lines (the file read here), the three verdict
rules on hand-made numbers (expected verdicts worked out by hand from the rules' thresholds), the late means, the
judge on hand-made rows, the plan's grid against what the paper varies (line 189), and the tiny scale end to end in
this process."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sfltheory.seedtables.core import seed_lines
from verify.reproduce import registry
from verify.reproduce.experiment import VERDICTS, Quote
from verify.reproduce.runner import Request, reproduce
from verify.reproduce.sl_noniid_fig2 import (
    EXPERIMENT,
    SCALES,
    best_k_finding,
    cell_accuracy,
    diverged,
    eta_grid_finding,
    heterogeneity_finding,
    judge,
    late_mean,
    run_loss,
)

ID = "sl_noniid/fig2"


@pytest.mark.parametrize("quote", EXPERIMENT.quotes, ids=[f"{q.line}:{q.what}" for q in EXPERIMENT.quotes])
def test_quote_is_on_its_seed_line(quote: Quote) -> None:
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 002 not at hand")
    assert quote.text in lines[quote.line - 1], f"{quote.text!r} not on line {quote.line}"


def test_fig2_caption_and_claim_lines() -> None:
    # Fig. 2's caption is line 187 and its three claims lines 191, 193, 195 of seed 002 (read here)
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 002 not at hand")
    assert lines[186] == "Figure 2: Results of SL on MNIST dataset."
    for n, head in ((191, "Effect of data heterogeneity."), (193, "Effect of K."), (195, "Effect of η_g .")):
        assert lines[n - 1].startswith(head), n
    assert EXPERIMENT.lines == (187, 195)


H = ("IID", "C = 8", "C = 5", "C = 2")


@pytest.mark.parametrize(
    ("losses", "noise", "verdict"),
    [
        # t = 5 % of 0.40 = 0.02: no pair reversed, IID lowest, C = 2 highest, gap 1.00 - 0.40 = 0.60 > 0.02
        ((0.40, 0.42, 0.60, 1.00), 0.0, "reproduces"),
        # C = 5 below C = 8 by 0.01 < t = 0.02: a tie between neighbours is allowed
        ((0.40, 0.45, 0.44, 1.00), 0.0, "reproduces"),
        # IID above C = 8 by 0.50 - 0.40 = 0.10 > t = 5 % of 0.40 = 0.02: reversed
        ((0.50, 0.40, 0.60, 1.00), 0.0, "does not reproduce"),
        # no reversal, but C = 2 - IID = 0.01 < t = 0.02
        ((0.40, 0.41, 0.405, 0.41), 0.0, "inconclusive"),
        # noise 0.1: t = max(0.02, 2 sqrt(2) 0.1 = 0.283); the gap 0.55 - 0.40 = 0.15 < t
        ((0.40, 0.45, 0.50, 0.55), 0.1, "inconclusive"),
        # the same numbers without noise: 0.15 > 0.02
        ((0.40, 0.45, 0.50, 0.55), 0.0, "reproduces"),
        ((0.40, math.nan, 0.50, 0.55), 0.0, "inconclusive"),
    ],
)
def test_heterogeneity_rule_on_hand_made_numbers(losses: tuple[float, ...], noise: float, verdict: str) -> None:
    f = heterogeneity_finding(dict(zip(H, losses, strict=True)), noise=noise)
    assert f.verdict == verdict, f.sentence


@pytest.mark.parametrize(
    ("losses", "noise", "verdict"),
    [
        # t = 5 % of 0.30 = 0.015; best E = 2 (interior), E = 1 and E = 10 both 0.20 above it
        ((0.50, 0.30, 0.35, 0.45, 0.50), 0.0, "reproduces"),
        # falling all the way: t = 5 % of 0.08 = 0.004, E = 10 the lowest and E = 1 0.42 above it
        ((0.50, 0.30, 0.20, 0.10, 0.08), 0.0, "does not reproduce"),
        # rising all the way: E = 1 at 0.10 below every other by 0.10 > t = 0.005
        ((0.10, 0.20, 0.30, 0.40, 0.50), 0.0, "does not reproduce"),
        # best E = 8 but E = 10 above it by 0.001 <= t = 0.005 while E = 1 is 0.40 above: no harm seen
        ((0.50, 0.30, 0.20, 0.10, 0.101), 0.0, "does not reproduce"),
        # best E = 2 (interior), E = 10 0.20 above it, but E = 1 only 0.01 above (t = 0.015): one end tied
        ((0.31, 0.30, 0.35, 0.45, 0.50), 0.0, "inconclusive"),
        # the first case with noise 0.1: t = 0.283 > 0.20 on both sides: every E tied
        ((0.50, 0.30, 0.35, 0.45, 0.50), 0.1, "inconclusive"),
        ((0.50, 0.30, math.inf, 0.45, 0.50), 0.0, "inconclusive"),
    ],
)
def test_best_k_rule_on_hand_made_numbers(losses: tuple[float, ...], noise: float, verdict: str) -> None:
    f = best_k_finding(dict(zip((1, 2, 4, 8, 10), losses, strict=True)), noise=noise)
    assert f.verdict == verdict, f.sentence


def test_best_k_rule_needs_three_values() -> None:
    assert best_k_finding({1: 0.5, 2: 0.3}).verdict == "inconclusive"


def grid(values: list[list[float]]) -> dict[tuple[float, float], float]:
    """Rows eta_g = 1, 2, 4; columns eta_l = 0.01, 0.1, 1."""
    return {(g, lr): values[i][j] for i, g in enumerate((1.0, 2.0, 4.0)) for j, lr in enumerate((0.01, 0.1, 1.0))}


# best 90 at (1, 0.1), product 0.1; the cells at or above it by product: 0.1: 90, 0.2: 85, 0.4: 50, 1: 60, 2: 30,
# 4: 10. Ranks of the accuracy in product order: 6, 5, 3, 4, 2, 1 against 1..6: d = -5, -3, 0, 0, 3, 5,
# sum d^2 = 68, rho = 1 - 6 * 68 / (6 * 35) = -0.943 <= -0.5; drop 90 - 10 = 80 > 2: the fall-off reproduces.
# At eta_l = 0.01: eta_g = 1 gives 70, eta_g = 4 gives 88: gain 18 > 2: helpful.
FALLS = [[70.0, 90.0, 60.0], [80.0, 85.0, 30.0], [88.0, 50.0, 10.0]]
# the same cells above the best: 0.1: 90, 0.2: 80, 0.4: 70, 1: 89, 2: 88, 4: 89.5: accuracy ranks 6, 2, 1, 4, 3, 5;
# d = -5, 0, 2, 0, 2, 1, sum d^2 = 34, rho = 1 - 204 / 210 = +0.029 >= 0: no fall-off. At eta_l = 0.01: 70 at
# eta_g = 1, 60 and 50 above: gain -10 < -2: a larger eta_g hurts.
FLAT = [[70.0, 90.0, 89.0], [60.0, 80.0, 88.0], [50.0, 70.0, 89.5]]
# FALLS with eta_g = 4, eta_l = 0.01 at 20 %: product 0.04 below the best's 0.1 and 20 < 90 / 2: collapsed, so the
# accuracy is not ordered by the product (does not reproduce), whatever the fall-off above; at eta_l = 0.01 eta_g = 2
# still gives 80 against 70 (+10 > 2: helpful)
COLLAPSED = [[70.0, 90.0, 60.0], [80.0, 85.0, 30.0], [20.0, 50.0, 10.0]]
# best 95 at (4, 1), the largest product: one cell at or above it (< 4); at eta_l = 0.01 gain 71.5 - 70 = 1.5 <= 2
TOP = [[70.0, 80.0, 85.0], [71.0, 82.0, 90.0], [71.5, 84.0, 95.0]]


@pytest.mark.parametrize(
    ("values", "noise", "verdict", "said"),
    [
        (FALLS, 0.0, "reproduces", "rho = -0.94"),
        (FLAT, 0.0, "does not reproduce", "rho = +0.03"),
        (TOP, 0.0, "inconclusive", "only 1 cells"),
        (COLLAPSED, 0.0, "does not reproduce", "(product 0.04, below the best's) collapses to 20.0%"),
        # s.e. 10 in every cell: t = max(2, 2 sqrt(10^2 + 10^2) = 28.3): the drop 80 still beyond, the gain 18 not
        # -> inconclusive
        (FALLS, 10.0, "inconclusive", "a tie"),
    ],
)
def test_eta_grid_rule_on_hand_made_numbers(values: list[list[float]], noise: float, verdict: str, said: str) -> None:
    f = eta_grid_finding(grid(values), se={k: noise for k in grid(values)})
    assert f.verdict == verdict, f.sentence
    assert said in f.sentence


def test_eta_grid_ties_use_the_compared_cells_errors() -> None:
    # FALLS with s.e. 30 in the worst cell (4, 1) only: the drop 90 - 10 = 80 against t = max(2, 2 sqrt(0 + 30^2))
    # = 60 still falls off; the gain at eta_l = 0.01 compares (4, 0.01) and (1, 0.01), both s.e. 0: t = 2 < 18
    f = eta_grid_finding(grid(FALLS), se={(4.0, 1.0): 30.0})
    assert f.verdict == "reproduces", f.sentence
    assert "(tie 60.0)" in f.sentence and "tie 2.0)" in f.sentence


def test_eta_grid_rule_refuses_a_diverged_cell() -> None:
    bad = [row[:] for row in FALLS]
    bad[2][2] = math.nan
    assert eta_grid_finding(grid(bad)).verdict == "inconclusive"


def test_late_mean() -> None:
    # every round 0..30, the last third: t = 21..30, mean (21 + 30) / 2 = 25.5 (Fig. 7's last 10 of 30)
    assert late_mean([[t, float(t)] for t in range(31)], 1 / 3) == pytest.approx(25.5)
    # every 2 rounds to 40, the last quarter: t = 32, 34, 36, 38, 40 -> 36
    assert late_mean([[t, float(t)] for t in range(0, 41, 2)], 0.25) == pytest.approx(36.0)
    assert math.isnan(late_mean([], 0.25))
    assert math.isnan(late_mean([[0, 1.0], [4, math.nan]], 0.25))


def test_a_diverged_run_scores_chance_in_the_grid_and_nothing_in_the_curves() -> None:
    # the trainer stops a run at its first non-finite model: records end before T (here at t = 12 of 30)
    cut = {"status": "ok", "T": 30, "test_acc_recorded": [[t, 50.0] for t in range(13)],
           "loss_recorded": [[t, 1.0] for t in range(13)]}  # fmt: skip
    done = {"status": "ok", "T": 30, "test_acc_recorded": [[t, float(t)] for t in range(31)],
            "loss_recorded": [[t, 1.0] for t in range(0, 31, 2)]}  # fmt: skip
    assert diverged(cut) and not diverged(done)
    assert cell_accuracy(cut) == 10.0  # one class of 10 balanced ones
    assert cell_accuracy(done) == pytest.approx(25.5)  # t = 21..30, as test_late_mean
    assert math.isnan(run_loss(cut)) and run_loss(done) == pytest.approx(1.0)
    assert math.isnan(cell_accuracy({**done, "status": "failed"}))


def rows_for_judge() -> tuple[dict[str, Any], ...]:
    rows: list[dict[str, Any]] = []
    base = {"algorithm": "sl", "status": "ok", "acc": 50.0}
    loss_a = {"iid": (0.4, 0.6), "shards:8": (0.6, 0.6), "shards:5": (0.9, 0.9), "shards:2": (1.5, 1.5)}
    for p, vs in loss_a.items():
        for s, v in enumerate(vs):
            rows.append({**base, "panel": "a", "T": 4, "partition": p, "E": 1, "eta_l": 0.1, "eta_g": 1.0, "seed": s,
                         "loss_recorded": [[0, 2.3], [4, v]], "test_acc_recorded": [[0, 10.0], [4, 50.0]]})  # fmt: skip
    for E, v in ((1, 0.5), (2, 0.3), (4, 0.2)):
        for s in (0, 1):
            rows.append({**base, "panel": "b", "T": 4, "partition": "dirichlet:1.0", "E": E, "eta_l": 0.1, "eta_g": 1.0,
                         "seed": s, "loss_recorded": [[0, 2.3], [4, v]],
                         "test_acc_recorded": [[0, 10.0], [4, 50.0]]})  # fmt: skip
    for (g, lr), v in {(1.0, 0.01): 90.0, (2.0, 0.01): 80.0, (1.0, 0.1): 70.0, (2.0, 0.1): 60.0}.items():
        rows.append({**base, "panel": "c", "T": 3, "partition": "dirichlet:10.0", "E": 1, "eta_l": lr, "eta_g": g,
                     "seed": 0, "loss_recorded": [[0, 2.3], [3, 1.0]],
                     "test_acc_recorded": [[0, 10.0], [3, v]]})  # fmt: skip
    return tuple(rows)


def test_judge_on_hand_made_rows() -> None:
    # (a) IID late losses 0.4, 0.6: mean 0.5, s.e. = std(ddof=1) / sqrt 2 = 0.1414 / 1.414 = 0.1; the others 0.6, 0.9,
    # 1.5 (s.e. 0). t = max(5 % of 0.5, 2 sqrt(2) 0.1 = 0.283): IID lowest, C = 2 highest, gap 1.0 > t: reproduces.
    # (b) E = 1, 2, 4: 0.5, 0.3, 0.2, t = 0.01: E = 4 below the others by more: does not reproduce (no harm).
    # (c) products 0.01: 90, 0.02: 80, 0.1: 70, 0.2: 60, best the smallest: rho = -1, drop 30 > 2 (fall-off
    # reproduces); at eta_l = 0.01 eta_g = 2 gives 80 against 90: -10 < -2 (does not): (c) does not reproduce.
    scale = dataclasses.replace(SCALES["tiny"], grid={**SCALES["tiny"].grid, "partition": ("iid", "shards:8",
                                "shards:5", "shards:2"), "E": (1, 2, 4), "eta_g": (1.0, 2.0), "eta_l": (0.01, 0.1)})  # fmt: skip
    finding, numbers = judge(scale, rows_for_judge())
    assert finding.verdict == "does not reproduce"
    assert numbers["a"]["late_loss"] == {"IID": 0.5, "C = 8": 0.6, "C = 5": 0.9, "C = 2": 1.5}
    assert numbers["a"]["se"]["IID"] == pytest.approx(0.1, abs=1e-5)
    assert [numbers[p]["verdict"] for p in "abc"] == ["reproduces", "does not reproduce", "does not reproduce"]
    assert numbers["c"]["accuracy"] == [[90.0, 70.0], [80.0, 60.0]]  # rows eta_g = 1, 2; columns eta_l
    assert numbers["a"]["curve"]["IID"] == {"round": [0.0, 4.0], "loss": [2.3, 0.5]}


def test_plan_varies_what_the_paper_varies() -> None:
    small = SCALES["small"]
    cells = EXPERIMENT.plan(small, "cpu")
    a = [c for c in cells if c.labels["panel"] == "a"]
    b = [c for c in cells if c.labels["panel"] == "b"]
    c = [c for c in cells if c.labels["panel"] == "c"]
    # line 189: IID and C = 8, 5, 2 (as shards:C); E = 1, 2, 4, 8, 10 over Dir_10(1.0); 10 clients
    assert {x.labels["partition"] for x in a} == {"iid", "shards:8", "shards:5", "shards:2"}
    assert sorted({x.labels["E"] for x in b}) == [1, 2, 4, 8, 10]
    assert {x.params["partition"] for x in b} == {"dirichlet:1.0"}
    # line 772: the eta grid over Dir_10(10.0) with E = 1, every round recorded (the last third averaged)
    assert {x.params["partition"] for x in c} == {"dirichlet:10.0"} and {x.labels["E"] for x in c} == {1}
    assert all(x.params["record_every"] == 1 for x in c)
    assert len({(x.params["eta_g"], x.params["eta_l"]) for x in c}) == 20 and 1.0 in small.grid["eta_g"]
    assert all(x.params["clients"] == 10 and x.params["algorithm"] == "sl" for x in cells)
    # K = E n_i / b (line 189) with the steps per epoch of the scale
    k = small.params["steps_per_epoch"]
    assert all(x.params["K"] == k * x.labels["E"] for x in cells)
    assert len(a) == 4 * len(small.seeds) and len(b) == 5 * small.params["b"]["seeds"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("sl_fig2")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.EXPERIMENTS, ID, EXPERIMENT)
        [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(out)))
    n = len(EXPERIMENT.plan(SCALES["tiny"], "cpu"))
    # the plan's runs and one theory run (sl is analysed by sl_noniid's theorems)
    assert (o.runs_before, o.runs_now, o.failed) == (0, n + 1, 0)
    assert o.finding.verdict in VERDICTS
    yield out


def test_tiny_end_to_end(tiny: Path) -> None:
    folder = tiny / "sl_noniid__fig2"
    assert (folder / "tiny.png").stat().st_size > 10_000
    out = json.loads((folder / "tiny.json").read_text())
    rows = out["rows"]
    assert {r["panel"] for r in rows} == {"a", "b", "c"}
    assert all(r["status"] == "ok" and r["loss_recorded"] and r["test_acc_recorded"] for r in rows)
    assert set(out["numbers"]) >= {"a", "b", "c"}


def test_tiny_panels_share_the_start(tiny: Path) -> None:
    # the seed draws the initial model whatever the partition or step: every run's test accuracy at t = 0 is the
    # same (the test set does not depend on the partition), an outcome of the runs
    rows = json.loads((tiny / "sl_noniid__fig2" / "tiny.json").read_text())["rows"]
    assert len({tuple(r["test_acc_recorded"][0]) for r in rows}) == 1
