"""The reproduced experiments in ``sfltheory figs``' list and gallery: one entry each, and the verdicts read from a
summary file written by hand here (not by the runner under test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.app import main
from verify.reproduce import EXPERIMENTS
from verify.reproduce.gallery import THEORY, entries, verdicts
from verify.reproduce.summary import SUMMARY_FORMAT
from verify.reproduce.theorems import theorem_of


def test_every_experiment_is_an_entry_with_its_command() -> None:
    got = {e.name: e for e in entries() if not e.name.endswith(THEORY)}
    assert set(got) == set(EXPERIMENTS)
    # a theory entry where a result analyses one of the experiment's algorithms (HERON-SFL's have none) and the
    # experiment runs the trainer (mu_splitfed/fig4 measures one update: no run to set a bound against)
    with_theorem = {
        rid
        for rid, x in EXPERIMENTS.items()
        if any(theorem_of(a) for a in x.algorithms) and x.plan(x.scales["small"], "cpu")
    }
    assert {e.name for e in entries()} - set(got) == {rid + THEORY for rid in with_theorem}
    assert "cut_layer/tables3-4" in with_theorem and "heron_sfl/fig2" not in with_theorem
    assert "mu_splitfed/fig4" in EXPERIMENTS and "mu_splitfed/fig4" not in with_theorem
    for rid, e in got.items():
        assert e.kind == "seed experiment" and e.command.startswith(f"sfltheory reproduce {rid} ")
        assert EXPERIMENTS[rid].seed in e.seed


def test_verdicts_prefer_the_small_scale_and_ignore_foreign_files(tmp_path: Path) -> None:
    assert verdicts(tmp_path) == {}  # no summary: nothing
    (tmp_path / "reproduce").mkdir()
    (tmp_path / "reproduce" / "summary.json").write_text("not json")
    assert verdicts(tmp_path) == {}
    rid = next(iter(EXPERIMENTS))
    doc = {"format": SUMMARY_FORMAT, "experiments": [
        {"id": rid, "scale": "tiny", "verdict": "inconclusive", "sentence": "too short"},
        {"id": rid, "scale": "small", "verdict": "reproduces", "sentence": "spread 0.0 vs 9.2",
         "theory": [{"result": "cut_layer/prop1", "sentence": "vacuous: eta too large"}]}]}  # fmt: skip
    (tmp_path / "reproduce" / "summary.json").write_text(json.dumps(doc))
    assert verdicts(tmp_path) == {rid: "reproduces (scale small): spread 0.0 vs 9.2",
                                  rid + THEORY: "cut_layer/prop1: vacuous: eta too large"}  # fmt: skip


def test_figs_lists_the_experiments_through_the_console_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["figs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    kinds = {e["name"]: e["kind"] for e in doc["entries"]}
    assert all(kinds[rid] == "seed experiment" for rid in EXPERIMENTS)
    assert kinds["cut_layer/tables3-4" + THEORY] == "seed experiment"
    assert {"package figure", "seed theory figure", "seed theory table"} <= set(kinds.values())
