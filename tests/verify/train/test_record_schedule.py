"""The recording schedule of a training run (issue 23, part 4): ``record_every`` k records t = 0, the multiples of k
and t = T; ``"auto"`` picks the smallest k keeping recording within a quarter of the run; the iterates never change;
a resumed run keeps its schedule; the command line takes ``--record-every K`` and says what is recorded when."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import verify.train.loop as loop  # noqa: E402
from sfltheory.errors import ParameterError  # noqa: E402
from verify.app import main  # noqa: E402
from verify.problems import QuadraticProblem  # noqa: E402
from verify.spec import QuadraticSpec, RunSpec, flag  # noqa: E402
from verify.train import get, run  # noqa: E402
from verify.train.loop import Schedule, auto_schedule, recording_text  # noqa: E402

torch.set_num_threads(1)
FedAvg: Any = get("fedavg")


def quad() -> QuadraticProblem:
    return QuadraticProblem.from_targets(d=6, M=3, sigma2=1.0, seed=0)


def fedavg() -> Any:
    return get("fedavg")(eta_l=0.1, K=2)


def ts(r: Any) -> list[int]:
    return [x.t for x in r.records]


def comparable(rec: Any) -> dict[str, Any]:
    """A record less what depends on the schedule (the running average and minimum) or on the clock."""
    return {k: v for k, v in rec.__dict__.items() if k not in ("wall_time", "gradnorm2_avg", "gradnorm2_min")}


# --- which t are recorded ---------------------------------------------------------------------------------------


def test_the_recorded_rounds_by_hand() -> None:
    # T = 10, k = 3: t = 0, the multiples 3, 6, 9, and T = 10
    assert [t for t in range(11) if Schedule(k=3).records(t, 10)] == [0, 3, 6, 9, 10]
    assert [t for t in range(11) if Schedule(k=1).records(t, 10)] == list(range(11))
    assert [t for t in range(11) if Schedule(k=25).records(t, 10)] == [0, 10]  # k >= T: the two ends only
    assert [t for t in range(13) if Schedule(k=4).records(t, 12)] == [0, 4, 8, 12]


def test_the_auto_rule_by_hand() -> None:
    # T = 100, a record 10 s, a round 1 s. k = 50: records t = 0, 50, 100 = 30 s of 100 + 30 = 130 s (23% <= 25%);
    # k = 49: t = 0, 49, 98, 100 = 40 s of 140 s (28.6%). The steady-state 3 rec / round = 30 would record t = 0, 30,
    # 60, 90, 100: 50 s of 150 s = 33%.
    assert auto_schedule(10.0, 1.0, 100).k == 50
    # T = 10000, 1 s each: k = 3 takes 1 + 3334 records (3335 s of 13335 s, 25.01%), k = 4 2501 (2501 of 12501, 20%)
    assert auto_schedule(1.0, 1.0, 10000).k == 4
    # a record 100 s, a round 1 s, T = 100: even t = 0 and t = 100 alone take 200 s of 300 s; k = T
    assert auto_schedule(100.0, 1.0, 100).k == 100
    # recording every round: 101 records of 1 ms = 0.101 s in all, under CHEAP_RECORDING_S = 5 s
    assert auto_schedule(0.001, 0.0001, 100).k == 1
    # 3 rec / round <= 1 with a long run: every round fits (101 records of 0.1 s = 10.1 s of 100 + 10.1 s)
    assert auto_schedule(0.1, 1.0, 100).k == 1


class FakeClock:
    """``time.perf_counter`` that only the fake problem and algorithm below advance (a record, a round)."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def timed(clock: FakeClock, record_s: float, round_s: float) -> tuple[QuadraticProblem, Any, list[int]]:
    """A quadratic whose full gradient takes ``record_s`` and fedavg whose round takes ``round_s`` on ``clock``; the
    list collects how many full gradients were computed."""
    calls: list[int] = []
    p = quad()
    exact = p.full_gradient

    def slow(pc: Any, ps: Any) -> Any:
        calls.append(1)
        clock.now += record_s
        return exact(pc, ps)

    class SlowRound(FedAvg):
        def round(self, t: int, state: Any, ctx: Any) -> Any:
            clock.now += round_s
            return super().round(t, state, ctx)

    p.full_gradient = slow  # type: ignore[method-assign]
    return p, SlowRound(eta_l=0.1, K=2), calls


def test_auto_times_the_first_record_and_round_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(loop, "time", clock)
    p, algo, calls = timed(clock, record_s=10.0, round_s=1.0)
    lines: list[str] = []
    r = run(algo, p, T=100, batch=2, progress=False, record_every="auto", announce=lines.append)
    assert ts(r) == [0, 50, 100] and len(calls) == 3  # k = 50, by hand above: one full gradient per record
    assert r.config["record_every"] == {"k": 50, "auto": True, "since": 0, "record_s": 10.0, "round_s": 1.0}
    (line,) = lines
    assert line == r.config["recording"]
    assert "at t = 0, every 50 rounds and t = 100" in line and "one record 10.0 s, one round 1.0 s" in line
    assert "recording <= 25% of the run" in line and "over the recorded t only" in line
    # the averages are over the recorded rounds: t = 0, 50, 100
    g = [x.gradnorm2 for x in r.records]
    assert r.records[-1].gradnorm2_avg == pytest.approx(np.mean(g)) and r.records[-1].gradnorm2_min == min(g)


def test_auto_says_when_only_the_ends_are_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(loop, "time", clock)
    p, algo, calls = timed(clock, record_s=100.0, round_s=1.0)
    lines: list[str] = []
    r = run(algo, p, T=10, batch=2, progress=False, record_every="auto", announce=lines.append)
    assert ts(r) == [0, 10] and len(calls) == 2
    assert "at t = 0 and t = 10 only" in lines[0] and "recording > 25% even so" in lines[0]


def test_the_schedule_is_announced_after_the_first_round_before_the_second() -> None:
    # after round 1: "auto" has chosen by then, and a run refused by its time estimate there prints only its error
    seen: list[str] = []

    class Watch(FedAvg):
        def round(self, t: int, state: Any, ctx: Any) -> Any:
            seen.append(f"round {t}")
            return super().round(t, state, ctx)

    run(Watch(eta_l=0.1, K=2), quad(), T=3, batch=2, progress=False, record_every=2, announce=seen.append)
    assert seen[0] == "round 0" and seen[2:] == ["round 1", "round 2"]
    assert seen[1].startswith("recording ||grad f||^2 and the loss (exact) at t = 0, every 2 rounds and t = 3")


def test_the_header_names_the_samples_of_a_model_problem() -> None:
    # ModelProblem.describe() of Fashion-MNIST with 10 clients: 60000 training images split, 10000 test images
    desc = {"kind": "model", "client_sizes": [6000] * 10, "gradient_on": "all training samples", "test_samples": 10000}
    s = Schedule(k=25, auto=True, record_s=46.2, round_s=1.0)
    line = recording_text(desc, s, 100)
    assert line.startswith(
        "recording ||grad f||^2 and the loss on all 60000 training samples and the test accuracy "
        "on 10000 at t = 0, every 25 rounds and t = 100 (auto: one record 46.2 s, one round 1.0 s;"
    )
    sub = {**desc, "gradient_on": "a fixed subsample of at most 500 per client", "test_samples": None}
    assert "on a fixed subsample of at most 500 per client at every t = 0..100 (record_every = 1)" in recording_text(
        sub, Schedule(k=1), 100
    )


# --- the iterates do not change -----------------------------------------------------------------------------------


def test_the_recorded_rounds_equal_those_of_an_every_round_run() -> None:
    every = run(fedavg(), quad(), T=12, batch=2, seed=3, progress=False)
    sparse = run(fedavg(), quad(), T=12, batch=2, seed=3, progress=False, record_every=5)
    assert ts(every) == list(range(13)) and ts(sparse) == [0, 5, 10, 12]
    assert [comparable(x) for x in sparse.records] == [comparable(every.records[t]) for t in (0, 5, 10, 12)]
    # the running average and minimum are over the recorded t (computed here from the every-round run's values)
    g = [every.records[t].gradnorm2 for t in (0, 5, 10, 12)]
    assert [x.gradnorm2_avg for x in sparse.records] == pytest.approx(np.cumsum(g) / np.arange(1, 5), rel=1e-12)
    assert [x.gradnorm2_min for x in sparse.records] == list(np.minimum.accumulate(g))
    # series are indexed by t, NaN where the schedule skipped
    s = sparse.series("gradnorm2")
    assert len(s) == 13 and s[5] == every.records[5].gradnorm2 and math.isnan(s[1]) and math.isnan(s[11])
    assert every.config["record_every"]["k"] == 1 and "at every t = 0..12" in every.config["recording"]


def test_divergence_is_caught_every_round_even_between_records() -> None:
    # eta_l = 10 on L = 1: |1 - 10 * h| > 1, the model overflows in float64 within a few hundred rounds; a schedule
    # that records only t = 0 and T = 400 still stops at the round the model stops being finite
    p = QuadraticProblem.from_targets(d=4, M=2, L=1.0, seed=0)
    every = run(get("fedavg")(eta_l=10.0), p, T=400, batch=2, progress=False)
    sparse = run(get("fedavg")(eta_l=10.0), p, T=400, batch=2, progress=False, record_every=400)
    assert every.status == sparse.status == "diverged"
    assert ts(sparse) == [0] and "diverged in round" in sparse.message and "records at t <= 0" in sparse.message
    # the every-round run stops at the ||grad f||^2 threshold, no later than the sparse one at the non-finite model
    assert int(every.message.split("round ")[1].split(":")[0]) <= int(sparse.message.split("round ")[1].split(":")[0])


# --- resume -----------------------------------------------------------------------------------------------------------


class Crash(Exception):
    pass


def test_a_run_killed_between_records_resumes_on_its_schedule(tmp_path: Path) -> None:
    whole = run(fedavg(), quad(), T=10, batch=2, progress=False, record_every=3)

    class Dies(FedAvg):
        def round(self, t: int, state: Any, ctx: Any) -> Any:
            if t == 8:  # after the checkpoint at t = 8, a round the schedule (0, 3, 6, 9, 10) does not record
                raise Crash
            return super().round(t, state, ctx)

    with pytest.raises(Crash):
        run(Dies(eta_l=0.1, K=2), quad(), T=10, batch=2, progress=False, out=tmp_path, checkpoint_every=4,
            record_every=3)  # fmt: skip
    saved = torch.load(tmp_path / "state.pt", weights_only=False)
    assert saved["t"] == 8 and [r["t"] for r in saved["records"]] == [0, 3, 6] and saved["schedule"]["k"] == 3
    # resumed without a schedule ("auto"): the saved one is kept, and the curve is the uninterrupted one
    lines: list[str] = []
    r = run(fedavg(), quad(), T=10, batch=2, progress=False, out=tmp_path, record_every="auto", announce=lines.append)
    assert ts(r) == [0, 3, 6, 9, 10] and r.config["record_every"]["k"] == 3
    assert [comparable(x) | {"a": x.gradnorm2_avg} for x in r.records] == [
        comparable(x) | {"a": x.gradnorm2_avg} for x in whole.records
    ]
    assert "every 3 rounds" in lines[0]


def test_an_extended_run_keeps_its_schedule_or_takes_a_given_one(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    run(fedavg(), quad(), T=10, batch=2, progress=False, out=a, record_every=3)
    kept = run(fedavg(), quad(), T=20, batch=2, progress=False, out=a, record_every="auto")
    assert ts(kept) == [0, 3, 6, 9, 10, 12, 15, 18, 20]
    run(fedavg(), quad(), T=10, batch=2, progress=False, out=b, record_every=3)
    changed = run(fedavg(), quad(), T=20, batch=2, progress=False, out=b, record_every=4)  # not refused
    assert ts(changed) == [0, 3, 6, 9, 10, 12, 16, 20]
    assert changed.config["record_every"] == {"k": 4, "auto": False, "since": 10, "record_s": None, "round_s": None}
    assert "from t = 10" in changed.config["recording"]
    on_disk = json.loads((b / "run.json").read_text())
    assert [r["t"] for r in on_disk["records"]] == [0, 3, 6, 9, 10, 12, 16, 20]


def test_a_checkpoint_from_before_schedules_resumes_every_round(tmp_path: Path) -> None:
    run(fedavg(), quad(), T=4, batch=2, progress=False, out=tmp_path)
    saved = torch.load(tmp_path / "state.pt", weights_only=False)
    for k in ("t", "schedule"):  # as a checkpoint written before them
        del saved[k]
    torch.save(saved, tmp_path / "state.pt")
    r = run(fedavg(), quad(), T=6, batch=2, progress=False, out=tmp_path, record_every="auto")
    assert ts(r) == [0, 1, 2, 3, 4, 5, 6] and r.config["record_every"]["k"] == 1


def test_truncate_keeps_the_records_up_to_T(tmp_path: Path) -> None:
    run(fedavg(), quad(), T=10, batch=2, progress=False, out=tmp_path, record_every=3)
    short = run(fedavg(), quad(), T=7, batch=2, progress=False, out=tmp_path, record_every=3, truncate=True)
    assert ts(short) == [0, 3, 6]  # t = 7 was never recorded


# --- bad values, the spec, the command line, the sweep --------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "often"])
def test_a_bad_record_every_is_refused_by_name(bad: Any) -> None:
    with pytest.raises(ParameterError) as e:
        run(fedavg(), quad(), T=2, progress=False, record_every=bad)
    assert e.value.name == "record_every"
    if not isinstance(bad, str):
        with pytest.raises(ParameterError) as e:
            RunSpec(algorithm="fedavg", problem=QuadraticSpec(), record_every=bad)
        assert e.value.name == "record_every" and flag("record_every") == "--record-every"


def test_the_spec_default_is_auto_and_keeps_its_key() -> None:
    auto = RunSpec(algorithm="fedavg", problem=QuadraticSpec())
    assert auto.record_every is None and "record_every" not in auto.to_dict()
    every = RunSpec(algorithm="fedavg", problem=QuadraticSpec(), record_every=1)
    assert every.to_dict()["record_every"] == 1 and every.key() != auto.key()


@pytest.mark.parametrize("value", ["0", "x", "2.5"])
def test_the_command_line_refuses_a_bad_value_in_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["train", "fedavg", "--problem", "quadratic", "T=2", "--record-every", value])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1
    assert err[0].startswith("sfltheory: error: parameter '--record-every': must be an integer >= 1")


def test_the_command_line_prints_the_schedule_first_and_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["train", "fedavg", "--problem", "quadratic", "d=4", "M=2", "eta_l=0.1", "T=9", "--quiet"]
    # without --quiet: the schedule is said on stderr as the run starts (--quiet keeps stderr for errors alone)
    assert main([*argv[:-1], "--record-every", "4", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr()
    said = printed.err.splitlines()[0]  # as the run starts, on stderr (stdout holds the run's table)
    assert said == ("recording ||grad f||^2 and the loss (exact) at t = 0, every 4 rounds and t = 9 (record_every "
                    "= 4); gradnorm2_avg/min are over the recorded t only, the theorems' over every t < T")  # fmt: skip
    assert said in printed.out.splitlines()  # and again in the table's header, as the schedule is sparse
    run_json = json.loads((tmp_path / "run.json").read_text())
    assert [r["t"] for r in run_json["records"]] == [0, 4, 8, 9] and run_json["config"]["recording"] == said
    assert "record_every" not in run_json["config"]["spec"]  # it is the loop's to state, not part of the run's spec
    # --json prints the run alone; the quadratic's records are cheap, so auto records every round
    assert main([*argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [r["t"] for r in printed["records"]] == list(range(10)) and printed["config"]["record_every"]["auto"]


def test_a_sweep_records_every_round_unless_given(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.sweep.entries import run_config

    # were the sweep on "auto", this schedule (k = 3) would leave gaps in its series
    monkeypatch.setattr(loop, "auto_schedule", lambda rec, rnd, T: Schedule(k=3, auto=True))
    res = run_config("train", {"algorithm": "fedavg", "problem": "quadratic", "d": 4, "M": 2, "eta_l": 0.1, "T": 6},
                     ("gradnorm2",))  # fmt: skip
    assert len(res["series"]["gradnorm2"]) == 7 and all(v is not None for v in res["series"]["gradnorm2"])


def test_verify_refuses_a_sparse_run_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the theorems' left-hand side averages ||grad f(x^t)||^2 over every t < T: a run recorded every 3 rounds is
    # refused, saying how to record every round
    argv = ["train", "fedavg", "--problem", "quadratic", "eta_l=0.05", "K=2", "T=6", "--quiet", "--out", str(tmp_path)]
    assert main([*argv, "--record-every", "3"]) == 0
    capsys.readouterr()
    assert main(["verify", "sl_noniid/thm2", "--run", str(tmp_path)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "records ||grad f||^2 every 3 rounds" in line and "--record-every 1" in line
