"""HERON-SFL Fig. 2 (seed 001): the quotes are verbatim on their seed lines (the file read here), the verdict rule
on hand-made accuracies (expected verdicts worked out by hand from the rule's thresholds), the judge's means and
standard errors on hand-made rows, and the tiny scale end to end in this process."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sfltheory.seedtables.core import seed_lines
from verify.reproduce.experiment import VERDICTS, Quote
from verify.reproduce.heron_sfl_fig2 import EXPERIMENT, SCALES, comparable_finding, judge, mean_curve
from verify.reproduce.registry import get
from verify.reproduce.runner import Request, reproduce

ID = "heron_sfl/fig2"


def test_registered_under_its_id() -> None:
    assert get(ID) is EXPERIMENT and EXPERIMENT.seed == "001_e8dcbf2a405221d7.txt"


@pytest.mark.parametrize("quote", EXPERIMENT.quotes, ids=[f"{q.line}:{q.what}" for q in EXPERIMENT.quotes])
def test_quote_is_on_its_seed_line(quote: Quote) -> None:
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 001 not at hand")
    assert quote.text in lines[quote.line - 1], f"{quote.text!r} not on line {quote.line}"


def test_fig2_caption_and_claim_lines() -> None:
    # the figure's caption is line 212 and its paragraph line 216 of seed 001 (read here, not through the module;
    # the seed writes "Fig." and "2" with a no-break space)
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 001 not at hand")
    assert lines[211].startswith("Figure 2: ResNet-18 test accuracy vs. communication rounds")
    assert lines[215].startswith("Fig.\xa02 illustrates the test accuracy of each method")
    assert EXPERIMENT.lines == (212, 216)


def acc(h: float, c: float, v: float) -> dict[str, float]:
    return {"heron_sfl": h, "sfl_aux": c, "sfl_v2": v}


@pytest.mark.parametrize(
    ("accs", "noise", "verdict"),
    [
        # t = max(3, 0) = 3: CSE-FSL gap 91 - 90 = 1 <= 3, SFLV2 gap 93 - 90 = 3 <= 2t = 6
        (acc(90, 91, 93), 0.0, "reproduces"),
        # HERON-SFL above CSE-FSL by 10: the rule is one-sided (c = -10 <= 3), SFLV2 gap 2 <= 6
        (acc(92, 82, 94), 0.0, "reproduces"),
        # CSE-FSL gap 87 - 80 = 7 > 2t = 6: clearly behind
        (acc(80, 87, 88), 0.0, "does not reproduce"),
        # CSE-FSL gap 0, SFLV2 gap 103 - 90 = 13 > 4t = 12: far behind SFLV2
        (acc(90, 90, 103), 0.0, "does not reproduce"),
        # CSE-FSL gap 4 in (3, 6]; SFLV2 gap 5 <= 12: neither
        (acc(85, 89, 90), 0.0, "inconclusive"),
        # CSE-FSL gap 0; SFLV2 gap 8 in (6, 12]: not "slightly", not far
        (acc(85, 85, 93), 0.0, "inconclusive"),
        # noise 2: t = 2 * 2 sqrt(2) = 5.657 > 3; CSE-FSL gap 5 <= 5.657, SFLV2 gap 6 <= 11.31
        (acc(85, 90, 91), 2.0, "reproduces"),
        # a missing accuracy
        (acc(math.nan, 90, 91), 0.0, "inconclusive"),
    ],
)
def test_verdict_rule_on_hand_made_numbers(accs: dict[str, float], noise: float, verdict: str) -> None:
    f = comparable_finding(accs, noise=noise, where="IID")
    assert f.verdict == verdict, f.sentence
    assert "IID" in f.sentence


def test_mean_curve_averages_record_by_record() -> None:
    # (10 + 30) / 2 = 20 at round 0, (20 + 40) / 2 = 30 at round 5; the longer run is cut to the shorter
    runs = [{"test_acc_recorded": [[0, 10.0], [5, 20.0]]}, {"test_acc_recorded": [[0, 30.0], [5, 40.0], [10, 50.0]]}]
    assert mean_curve(runs) == {"round": [0.0, 5.0], "accuracy": [20.0, 30.0]}
    assert mean_curve([{"test_acc_recorded": []}]) == {"round": [], "accuracy": []}


def test_judge_on_hand_made_rows() -> None:
    # two seeds each. IID: HERON 90, 92 -> mean 91, s.e. = std(ddof=1) / sqrt 2 = sqrt(2) / sqrt(2) = 1;
    # CSE-FSL 91, 93 -> 92; SFLV2 93, 95 -> 94 (s.e. 1 each). t = max(3, 2 sqrt(2) * 1) = 3: gaps 1 and 3 ->
    # reproduces. non-IID: HERON 70, 70 -> 70; CSE-FSL 80, 80; SFLV2 82, 82 (s.e. 0): gap 10 > 6 -> does not.
    # combined: does not reproduce.
    table = {("iid", "heron_sfl"): (90, 92), ("iid", "sfl_aux"): (91, 93), ("iid", "sfl_v2"): (93, 95),
             ("dirichlet:0.1", "heron_sfl"): (70, 70), ("dirichlet:0.1", "sfl_aux"): (80, 80),
             ("dirichlet:0.1", "sfl_v2"): (82, 82)}  # fmt: skip
    rows = tuple(
        {"algorithm": a, "partition": p, "seed": s, "acc": float(v), "test_acc_recorded": [[0, 10.0], [2, float(v)]]}
        for (p, a), vs in table.items()
        for s, v in enumerate(vs)
    )
    finding, numbers = judge(SCALES["tiny"], rows)
    assert finding.verdict == "does not reproduce"
    assert numbers["final_accuracy"]["iid"] == {"heron_sfl": 91.0, "sfl_aux": 92.0, "sfl_v2": 94.0}
    assert numbers["noise"] == {"iid": pytest.approx(1.0), "dirichlet:0.1": 0.0}
    assert numbers["mean_curve"]["iid"]["heron_sfl"]["accuracy"] == [10.0, 91.0]
    assert "comparable" in finding.sentence and "clearly behind CSE-FSL" in finding.sentence


def test_plan_gives_each_algorithm_its_steps() -> None:
    cells = EXPERIMENT.plan(SCALES["small"], "cpu")
    assert len(cells) == 3 * 2 * 5  # algorithms x partitions x seeds
    heron = next(c for c in cells if c.labels["algorithm"] == "heron_sfl")
    cse = next(c for c in cells if c.labels["algorithm"] == "sfl_aux")
    assert heron.params["P"] == 10 and heron.params["clients"] == 5  # line 203: 5 clients
    # CSE-FSL decoupled (line 183: no server-to-client gradient), all clients, the server every round
    assert (cse.params["server_round_step"], cse.params["n"], cse.params["l"]) == ("aux", 0, 1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("heron_fig2")
    [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(out)))
    # 3 algorithms x 2 partitions x 1 seed; no theory run (no result analyses heron_sfl, sfl_aux or sfl_v2 at a
    # step fixed in advance)
    assert (o.runs_before, o.runs_now, o.failed) == (0, 6, 0)
    assert o.finding.verdict in VERDICTS
    return out


def test_tiny_end_to_end(tiny: Path) -> None:
    folder = tiny / "heron_sfl__fig2"
    assert (folder / "tiny.png").stat().st_size > 10_000
    rows = json.loads((folder / "tiny.json").read_text())["rows"]
    assert len(rows) == 6 and all(r["status"] == "ok" and 0.0 <= r["acc"] <= 100.0 for r in rows)


def test_every_algorithm_starts_from_the_same_model(tiny: Path) -> None:
    # the seed draws the initialisation and the partition, whatever the algorithm: at round 0 the three runs of a
    # partition evaluate the same whole model, so their test accuracies agree (an outcome of the runs)
    rows = json.loads((tiny / "heron_sfl__fig2" / "tiny.json").read_text())["rows"]
    for p in ("iid", "dirichlet:0.1"):
        first = {r["algorithm"]: r["test_acc_recorded"][0] for r in rows if r["partition"] == p}
        assert len(first) == 3 and len({tuple(v) for v in first.values()}) == 1, first
