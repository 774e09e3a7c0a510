"""The audit reports the counterexamples `sfltheory verify --worst-case` found (issue 13 x issue 14)."""

from __future__ import annotations

import json

import pytest

from sfltheory.audit import falsified
from sfltheory.audit.runner import audit
from sfltheory.errors import ParameterError
from sfltheory.experiments import EXPERIMENTS
from verify.pipeline.check import default_problem
from verify.pipeline.worstcase import WorstCase, save_worst_cases


def worst(ratio: float, rid: str = "sl_noniid/thm1") -> WorstCase:
    # a record as worst_case returns it; the problem is a real default quadratic, so the replay command works
    p = default_problem(EXPERIMENTS[rid], seed=5)
    return WorstCase(result=rid, ratio=ratio, T=7, step=0.02, problem=p.to_dict(), tried=12, ratios=[ratio])


def test_a_counterexample_becomes_a_bound_invalid_finding(tmp_path, capsys) -> None:
    save_worst_cases([worst(1.5), worst(0.3, "sl_noniid/thm2")], tmp_path)
    doc = json.loads((tmp_path / "counterexamples.json").read_text())
    assert [r["counterexample"] for r in doc["results"]] == [True, False]
    assert (tmp_path / "counterexample_sl_noniid_thm1.json").exists()
    a = audit(["sl_noniid/thm1", "sl_noniid/thm2"], checks=["falsified"], counterexamples=falsified.load([tmp_path]))
    assert len(a.findings) == 1  # the ratio 0.3 of thm2 is no counterexample
    f = a.findings[0]
    assert f.result == "sl_noniid/thm1" and f.check == "falsified" and f.severity == "bound invalid"
    assert "1.5x the bound at T = 7" in f.found and f.witness == {"T": 7.0, "eta_l": 0.02}
    assert str(tmp_path / "counterexample_sl_noniid_thm1.json") in f.found
    # without --counterexamples the check finds nothing (it never trains)
    assert audit(["sl_noniid/thm1"], checks=["falsified"]).findings == ()
    from verify.app import main

    assert main(["audit", "sl_noniid/thm1", "--counterexamples", str(tmp_path)]) == 0
    assert "falsified" in capsys.readouterr().out


def test_the_replayed_problem_is_the_saved_one(tmp_path) -> None:
    from verify.problems import QuadraticProblem

    w = worst(2.0)
    save_worst_cases([w], tmp_path)
    q = QuadraticProblem.from_file(tmp_path / "counterexample_sl_noniid_thm1.json")
    assert q.to_dict() == w.problem


def test_bad_counterexample_files(tmp_path) -> None:
    with pytest.raises(ParameterError, match=r"no counterexamples\.json"):
        falsified.load([tmp_path])
    (tmp_path / "counterexamples.json").write_text('{"format": "other"}')
    with pytest.raises(ParameterError, match=r"is not a sfltheory\.counterexamples/1 record"):
        falsified.load([tmp_path])


def test_a_worst_case_search_keeps_the_other_checks_records(tmp_path) -> None:
    # an update-rule and a lemma record already in the folder (written by hand here) survive a worst-case search;
    # a second search replaces the first one's records rather than adding to them
    others = [{"result": "mu_splitfed/thm4.3", "kind": "update_rule", "counterexample": False},
              {"result": "cut_layer/lem1", "kind": "lemma", "counterexample": False}]  # fmt: skip
    (tmp_path / "counterexamples.json").write_text(json.dumps({"format": falsified.FORMAT, "results": others}))
    save_worst_cases([worst(0.3)], tmp_path)
    save_worst_cases([worst(0.4)], tmp_path)
    doc = json.loads((tmp_path / "counterexamples.json").read_text())
    assert [r.get("kind", "worst_case") for r in doc["results"]] == ["update_rule", "lemma", "worst_case"]
    assert doc["results"][-1]["worst_ratio"] == 0.4
