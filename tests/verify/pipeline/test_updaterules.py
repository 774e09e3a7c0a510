"""The update-rule check (issue 28, item 2): a printed update that ascends is found, recorded and replayed.

The expectations are hand arguments, not the code's numbers: a global step that subtracts the clients' mean
displacement instead of adding it, :math:`x^{t+1} = x^t - \\eta_g(\\bar x - x^t)`, moves away from where the local
steps went (MU-SplitFed eq. (7) as printed; its App. D.1 adds it); the planted FedAvg below does the same.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from sfltheory.audit import falsified
from sfltheory.audit.runner import audit
from sfltheory.errors import ParameterError
from verify.app import main as cli
from verify.ops import tree
from verify.pipeline import updaterules as ur
from verify.train import ALGORITHMS
from verify.train.algorithms.sl_noniid import FedAvg
from verify.train.base import ParamSpec, State
from verify.train.loop import Run


class PlantedFedAvg(FedAvg):
    """FedAvg whose global step can be printed with its sign flipped (a planted erratum; registered under its own
    key for the test, its name and results those of FedAvg)."""

    takes: ClassVar[tuple[ParamSpec, ...]] = (
        *FedAvg.takes,
        ParamSpec(name="sign", default="analysed", kind="choice", choices=("analysed", "flipped"), help="planted"),
    )

    def global_step(self, state: State, mean_c: Any, mean_s: Any) -> None:
        if self.p["sign"] == "flipped":  # x - (mean - x) = 2x - mean: the mean mirrored through x
            mean_c = tree.add(tree.scale(state["client"], 2.0), mean_c, -1.0)
            mean_s = tree.add(tree.scale(state["server"], 2.0), mean_s, -1.0)
        super().global_step(state, mean_c, mean_s)


def test_a_flipped_sign_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ALGORITHMS, "planted", PlantedFedAvg)
    runs = ur.check_rules(["planted"], T=10, seeds=2)
    by = {(r.param, r.choice): r for r in runs}
    assert by["sign", "analysed"].verdict == "descends"
    assert by["sign", "flipped"].verdict == "ascends"
    assert [(r.choice, d.choice) for r, d in ur.ascending(runs)] == [("flipped", "analysed")]
    # FedAvg's other choices (order, mode) are not rules that ascend
    assert all(r.verdict == "descends" for r in runs if r.param != "sign")


def test_mu_splitfed_printed_aggregation_is_found_recorded_and_replays(tmp_path: Path) -> None:
    runs = ur.check_rules(["mu_splitfed"], T=10, seeds=3)
    pairs = ur.ascending(runs)
    assert [(r.param, r.choice) for r, _ in pairs] == [("aggregation", "printed")]
    # an earlier record of another kind is kept; an earlier update-rule record is replaced
    other = {"result": "sl_noniid/thm1", "kind": "tightest", "counterexample": False, "at_T": 3, "step": 0.1,
             "worst_ratio": 0.5}  # fmt: skip
    old = {"result": "x/y", "kind": "update_rule", "counterexample": True}
    (tmp_path / ur.FILE).write_text(json.dumps({"format": ur.FORMAT, "results": [other, old]}))
    ur.save(runs, tmp_path, T=10)
    doc = json.loads((tmp_path / ur.FILE).read_text())
    recs = [r for r in doc["results"] if r.get("kind") == "update_rule"]
    assert other in doc["results"] and old not in doc["results"]
    assert {r["result"] for r in recs} == set(ur.analysing("mu_splitfed")) and recs
    # the audit reports it on every result analysing MU-SplitFed, with the replay command
    a = audit(["mu_splitfed/thm4.3"], checks=["falsified"], counterexamples=falsified.load([str(tmp_path)]))
    found = [f for f in a.findings if f.check == "falsified" and "as printed (aggregation=printed)" in f.found]
    assert len(found) == 1 and found[0].severity == "bound invalid"
    # the command replays: the gradient norm grows over the run
    command = found[0].found.split("replay: ")[1]
    words = [*shlex.split(command)[1:], "--out", str(tmp_path / "run")]
    assert cli(words) == 0
    g = Run.load(tmp_path / "run" / "run.json").series("gradnorm2")
    assert g[-1] > g[0]


def test_saving_refuses_what_it_would_destroy(tmp_path: Path) -> None:
    (tmp_path / ur.FILE).write_text("not json")
    with pytest.raises(ParameterError, match="--out"):
        ur.save([], tmp_path)
    assert (tmp_path / ur.FILE).read_text() == "not json"


@pytest.mark.parametrize("argv", [["--seeds", "1"], ["--T", "0"], ["--algorithm", "nope"]])
def test_bad_input_is_one_line(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ur.main(["--out", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: parameter")


def test_interval_and_verdict() -> None:
    # four seeds at log-ratios 1, 2, 3, 4: mean 2.5, sd 1.29, t(0.975, 3) = 3.182 -> half-width 2.054
    r = ur.RuleRun(algorithm="a", param="p", choice="c", default=False, log_ratios=(1, 2, 3, 4), params={})
    lo, hi = r.interval
    assert np.isclose(lo, 2.5 - 3.182446 * np.std([1, 2, 3, 4], ddof=1) / 2, atol=1e-5) and hi > lo
    assert r.verdict == "ascends"
    assert ur.RuleRun(algorithm="a", param="p", choice="c", default=False, log_ratios=(-1, 1), params={}
                      ).verdict == "unclear"  # fmt: skip
