"""The tiny scale of cut_layer Tables 3-4 end to end, in this process: runs through the sweep store, a figure,
the outcome and the summary written; a second call recomputes nothing; a lost run is recomputed alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.reproduce.estimate import estimate, steps_per_run
from verify.reproduce.registry import get
from verify.reproduce.runner import Request, reproduce

ID = "cut_layer/tables3-4"


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reproduce")
    [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(out)))
    # 2 algorithms x 2 partitions x 2 cuts x 1 seed, and one theory run (SFL-V1's, for Proposition 1; SFL-V2 has no
    # theorem: seed 003 gives none)
    assert (o.runs_before, o.runs_now, o.failed) == (0, 9, 0)
    return out


def test_writes_figure_outcome_and_summary(first: Path) -> None:
    folder = first / "cut_layer__tables3-4"
    assert (folder / "tiny.png").stat().st_size > 10_000
    summary = json.loads((first / "summary.json").read_text())
    [entry] = summary["experiments"]
    assert entry["id"] == ID and entry["scale"] == "tiny"
    assert entry["verdict"] in ("reproduces", "does not reproduce", "inconclusive")
    assert "cut_layer__tables3-4/tiny.png" in entry["files"]  # relative to --out: the folder can move
    md = (first / "summary.md").read_text()
    assert ID in md and entry["verdict"] in md and "(cut_layer__tables3-4/tiny.png)" in md
    assert json.loads((folder / "tiny.json").read_text())["verdict"] == entry["verdict"]


def test_sfl_v1_is_the_same_at_every_cut(first: Path) -> None:
    # Proposition 1 (seed 003, Sec. 4): SFL-V1 as analysed is FedAvg on the whole model whatever the cut, so on the
    # same seed its final accuracy is the same at fc1 and fc2 (to float error): an outcome of the runs, not the code
    rows = json.loads((first / "cut_layer__tables3-4" / "tiny.json").read_text())["rows"]
    for p in ("iid", "dirichlet:0.1"):
        accs = [r["acc"] for r in rows if r["algorithm"] == "sfl_v1_analysed" and r["partition"] == p]
        assert len(accs) == 2 and accs[0] == pytest.approx(accs[1], abs=1e-6)


def test_second_call_recomputes_nothing_and_a_lost_run_alone(first: Path) -> None:
    results = first / "cut_layer__tables3-4" / "runs" / "results"
    stamps = {p.name: p.stat().st_mtime_ns for p in results.glob("*.json")}
    assert len(stamps) == 9
    [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(first)))
    assert (o.runs_before, o.runs_now) == (9, 0)
    assert {p.name: p.stat().st_mtime_ns for p in results.glob("*.json")} == stamps
    lost = sorted(results.glob("*.json"))[0]
    lost.unlink()  # as if killed before this run was stored
    [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(first)))
    assert (o.runs_before, o.runs_now) == (8, 1)
    assert lost.is_file()


def test_estimate_counts_the_steps() -> None:
    exp = get(ID)
    [cell, *_] = exp.plan(exp.scales["paper"], "cpu")
    assert steps_per_run(cell.params) == 200 * 100 * 40  # Table 1: 200 rounds, 100 clients; K = ceil(5*500/64) = 40
    assert steps_per_run({"T": 500, "clients": 10, "tau": 2}) == 500 * 10 * 3  # zeroth-order: tau + 1 per round
    e = estimate(exp, exp.scales["tiny"], "cpu")
    # tiny: 8 runs x T = 2 rounds x 2 clients x K = 1 step = 32
    assert (e.runs, e.steps) == (8, 32) and e.step_seconds > 0 and "32 forward-backward steps" in e.line()


def test_mu_splitfed_tiny_runs_every_tau(tmp_path: Path) -> None:
    [o] = reproduce(Request(ids=("mu_splitfed/table1",), scale="tiny", workers=1, out=str(tmp_path)))
    assert sorted(r["tau"] for r in o.rows) == [1, 2, 3, 4]  # Table 1's columns tau = 1..4, one seed at tiny
    assert (o.runs_now, o.failed) == (5, 0)  # and one theory run (tau = 2, for Theorem 4.3)
    assert (tmp_path / "mu_splitfed__table1" / "tiny.png").is_file()
    assert o.numbers["paper_accuracy"] == {"1": 77.50, "2": 85.45, "3": 85.28, "4": 84.47}  # seed 000, line 201


def test_sl_noniid_tiny_records_the_accuracy_at_half_and_end(tmp_path: Path) -> None:
    [o] = reproduce(Request(ids=("sl_noniid/table2",), scale="tiny", workers=1, out=str(tmp_path)))
    assert (o.runs_now, o.failed) == (10, 0)  # FL and SL x 2 partitions x E = 1, 10, and a theory run of each
    for r in o.rows:  # T = 2 at E = 1 (recorded at t = 0, 1, 2), T = 1 at E = 10 (t = 0, 1)
        assert [t for t, _ in r["test_acc_recorded"]] == ([0, 1, 2] if r["E"] == 1 else [0, 1])
        assert r["test_acc_recorded"][-1][1] == pytest.approx(r["acc"])


def test_mu_splitfed_fig2_tiny_records_time(tmp_path: Path) -> None:
    [o] = reproduce(Request(ids=("mu_splitfed/fig2",), scale="tiny", workers=1, out=str(tmp_path)))
    assert (o.runs_now, o.failed) == (3, 0)  # tau = 1 and 2, one seed, and a theory run (tau = 2)
    for r in o.rows:  # recorded every round (T = 2): the simulated time grows by one round's time each round
        times = [v for _, v in r["sim_time_recorded"]]
        assert len(times) == 3 and times[0] == 0.0 and times[2] == pytest.approx(2 * times[1])
