"""The verdict logic on hand-made numbers (no run): the spread rule of cut_layer's claim and its combination."""

from __future__ import annotations

import math

import pytest

from verify.reproduce.cut_layer_tables import SCALES, judge
from verify.reproduce.experiment import Finding
from verify.reproduce.mu_splitfed_fig2 import client_times, faster_finding, time_to
from verify.reproduce.mu_splitfed_table1 import paper_row
from verify.reproduce.sl_noniid_table2 import SCALES as SL_SCALES
from verify.reproduce.sl_noniid_table2 import judge as sl_judge
from verify.reproduce.sl_noniid_table2 import paper_cell, sl_vs_fl_finding
from verify.reproduce.verdicts import best_tau_finding, combine, cut_invariance_finding, spread


def test_spreads_point_four_and_six_point_one_reproduce() -> None:
    f = cut_invariance_finding(0.4, 6.1)
    assert f.verdict == "reproduces"
    assert "0.4 points" in f.sentence and "6.1" in f.sentence


def test_v1_beyond_two_points_does_not_reproduce() -> None:
    assert cut_invariance_finding(2.5, 9.0).verdict == "does not reproduce"


def test_v2_no_more_than_v1_does_not_reproduce() -> None:
    assert cut_invariance_finding(1.0, 0.8).verdict == "does not reproduce"


def test_small_v2_spread_or_seed_noise_is_inconclusive() -> None:
    assert cut_invariance_finding(0.5, 2.5).verdict == "inconclusive"  # 2.5 < 3 points
    # a standard error of 1.5 points: 2 combined standard errors are 2 sqrt(2) 1.5 = 4.24 > 4.0
    assert cut_invariance_finding(0.2, 4.0, noise=1.5).verdict == "inconclusive"
    assert cut_invariance_finding(0.2, 4.0, noise=1.0).verdict == "reproduces"  # 2 sqrt(2) 1.0 = 2.83 < 3 <= 4.0
    assert cut_invariance_finding(1.9, 3.5).verdict == "inconclusive"  # 3.5 < 2 x 1.9
    assert cut_invariance_finding(0.0, math.nan).verdict == "inconclusive"


def test_combine() -> None:
    yes, no, maybe = (Finding(verdict=v, sentence=v) for v in ("reproduces", "does not reproduce", "inconclusive"))
    assert combine([yes, yes]).verdict == "reproduces"
    assert combine([yes, maybe]).verdict == "inconclusive"
    assert combine([maybe, no, yes]).verdict == "does not reproduce"


def test_judge_on_hand_made_rows() -> None:
    # tiny scale: cuts fc1, fc2; partitions iid, dirichlet:0.1; one seed. SFL-V1 equal at both cuts (spread 0),
    # SFL-V2 80 and 74 (spread 6) on IID; on non-IID V2 at 50 and 51 (spread 1 < 3): inconclusive overall.
    acc = {("sfl_v1_analysed", "iid"): (70.0, 70.0), ("sfl_v2", "iid"): (80.0, 74.0),
           ("sfl_v1_analysed", "dirichlet:0.1"): (40.0, 40.0), ("sfl_v2", "dirichlet:0.1"): (50.0, 51.0)}  # fmt: skip
    rows = tuple({"algorithm": a, "partition": p, "cut": c, "seed": 0, "acc": v[i]}
                 for (a, p), v in acc.items() for i, c in enumerate(("fc1", "fc2")))  # fmt: skip
    finding, numbers = judge(SCALES["tiny"], rows)
    assert numbers["spread"]["iid"] == {"SFL-V1": 0.0, "SFL-V2": 6.0}
    assert numbers["spread"]["dirichlet:0.1"] == {"SFL-V1": 0.0, "SFL-V2": 1.0}
    assert finding.verdict == "inconclusive"
    assert numbers["paper_spread"]["iid"] == {"SFL-V1": 0.4, "SFL-V2": 6.19}  # 86.34-85.94, 92.30-86.11
    assert spread([86.34, 86.12, 85.94, 86.01]) == max(86.34, 86.12, 85.94, 86.01) - min(86.34, 85.94)


def test_best_tau_on_hand_made_numbers() -> None:
    # tau = 2 beats tau = 1 by 5 points and tau = 3, 4 are below it: reproduces
    assert best_tau_finding({1: 70.0, 2: 75.0, 3: 74.5, 4: 73.0}).verdict == "reproduces"
    # tau = 4 beats tau = 2 by 3 points (> the 1-point tie): does not reproduce
    assert best_tau_finding({1: 70.0, 2: 75.0, 3: 76.0, 4: 78.0}).verdict == "does not reproduce"
    # vanilla beats tau = 2 by 2 points: does not reproduce
    assert best_tau_finding({1: 72.0, 2: 70.0, 3: 69.0, 4: 68.0}).verdict == "does not reproduce"
    # tau = 2 only 0.5 above tau = 1: not told apart
    assert best_tau_finding({1: 70.0, 2: 70.5, 3: 70.0, 4: 69.0}).verdict == "inconclusive"
    # tau = 2 beats vanilla, but tau = 4 is 0.9 above it (within the tie): no drop seen, inconclusive
    assert best_tau_finding({1: 86.1, 2: 89.6, 3: 89.0, 4: 90.5}).verdict == "inconclusive"
    # 5 points apart but a standard error of 2 makes the tie 2 sqrt(2) 2 = 5.66 points wide
    assert best_tau_finding({1: 70.0, 2: 75.0, 3: 74.0, 4: 73.0}, noise=2.0).verdict == "inconclusive"
    assert best_tau_finding({1: 70.0, 2: 75.0, 3: 74.0, 4: 73.0}, noise=1.5).verdict == "reproduces"  # 4.24 < 5


def test_best_tau_on_the_papers_own_table1() -> None:
    # seed 000, line 201 (Fashion-MNIST): 77.50 85.45 85.28 84.47 -> gain 7.95, best tau > 2 is 85.28 < 85.45;
    # line 200 (CIFAR-10): 69.73 77.86 73.20 69.40 -> gain 8.13, 73.20 < 77.86: the paper's claim holds on its numbers
    for name in ("fashion-mnist", "cifar10"):
        _, acc = paper_row("small" if name == "fashion-mnist" else "paper")
        assert best_tau_finding(acc).verdict == "reproduces", name
    assert paper_row("small")[1] == {1: 77.50, 2: 85.45, 3: 85.28, 4: 84.47}


def test_sl_vs_fl_on_the_papers_own_table2() -> None:
    # seed 002, Table 2, Fashion-MNIST: alpha = 0.2 (line 227) SL - FL = 85.9 - 83.5 = +2.4 at E = 1 and
    # 79.0 - 80.4 = -1.4 at E = 10; C = 2 (line 229) 87.3 - 83.0 = +4.3 and 72.3 - 75.9 = -3.6: both beyond the 1 % tie
    assert sl_vs_fl_finding(2.4, -1.4).verdict == "reproduces"
    assert sl_vs_fl_finding(4.3, -3.6).verdict == "reproduces"
    assert paper_cell("dirichlet:0.2", "sl", 10) == (79.0, 0.0005)


def test_sl_vs_fl_on_hand_made_numbers() -> None:
    assert sl_vs_fl_finding(-2.0, -3.0).verdict == "does not reproduce"  # FL better with few steps
    assert sl_vs_fl_finding(3.0, 2.0).verdict == "does not reproduce"  # SL better with many steps
    assert sl_vs_fl_finding(3.0, 0.5).verdict == "inconclusive"  # a tie with many steps
    assert sl_vs_fl_finding(3.0, -3.0, noise=1.5).verdict == "inconclusive"  # tie 2 sqrt(2) 1.5 = 4.24 > 3


def test_sl_judge_calls_a_still_rising_run_inconclusive() -> None:
    # tiny grid: E = 1, 10; partitions iid, shards:2 (judged). SL wins at E = 1 by 5, FL at E = 10 by 5: reproduces,
    # unless a run still rises: FL at E = 10 goes 60 -> 80 over its second half (+20 > 2 points)
    def rows(last_half_rise: float) -> tuple[dict[str, object], ...]:
        acc = {("fedavg", 1): 80.0, ("sl", 1): 85.0, ("fedavg", 10): 85.0, ("sl", 10): 80.0}
        out: list[dict[str, object]] = []
        for p in ("iid", "shards:2"):
            for (a, E), v in acc.items():
                gain = last_half_rise if (a, E) == ("fedavg", 10) else 0.0
                out.append({"algorithm": a, "partition": p, "E": E, "seed": 0, "acc": v,
                            "test_acc_recorded": [[0, 10.0], [1, v - gain], [2, v]]})  # fmt: skip
        return tuple(out)

    finding, numbers = sl_judge(SL_SCALES["tiny"], rows(0.0))
    assert finding.verdict == "reproduces" and numbers["still_rising"] == {}
    finding, numbers = sl_judge(SL_SCALES["tiny"], rows(20.0))
    assert finding.verdict == "inconclusive" and numbers["still_rising"] == {"C = 2, FL E=10": 20.0}


def test_client_times_are_the_exponential_quantiles() -> None:
    # 1 - ln(1 - (m + 1/2)/M) for M = 2: 1 - ln(3/4) = 1.287682, 1 - ln(1/4) = 2.386294
    assert client_times(2) == [pytest.approx(1.287682, abs=1e-6), pytest.approx(2.386294, abs=1e-6)]


def test_time_to_target_and_faster_finding() -> None:
    row = {"test_acc_recorded": [[0, 10.0], [5, 70.0], [10, 82.0], [15, 79.0]],
           "sim_time_recorded": [[0, 0.0], [5, 12.5], [10, 25.0], [15, 37.5]]}  # fmt: skip
    assert time_to(row, 80.0) == 25.0  # first record at or above 80 %: t = 10, 25 s
    assert time_to(row, 90.0) is None
    # tau = 2 at 350 s against 460 s: 24 % sooner, beyond 10 % and 2 sqrt(2) x the standard error (10 / sqrt(2))
    assert faster_finding([450.0, 470.0], [340.0, 360.0], 80.0).verdict == "reproduces"
    assert faster_finding([450.0, 470.0], [430.0, 440.0], 80.0).verdict == "inconclusive"  # 6.5 % sooner
    assert faster_finding([350.0, 370.0], [400.0, 420.0], 80.0).verdict == "does not reproduce"
    assert faster_finding([350.0, 370.0], [None, None], 80.0).verdict == "does not reproduce"
    assert faster_finding([None, None], [300.0, 320.0], 80.0).verdict == "reproduces"
