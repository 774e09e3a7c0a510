"""`sfltheory verify`: verdicts on exact problems, built to pass and built to fail, the report and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from sfltheory.errors import ParameterError
from sfltheory.experiments import EXPERIMENTS, NO_EXPERIMENT, experiment
from verify.app import main
from verify.pipeline.check import check, default_problem
from verify.spec import CheckSpec


def test_a_true_bound_holds_and_t1_is_the_initial_gradient() -> None:
    v = check(CheckSpec(result="sl_noniid/thm1@proof", T=8))
    leg = v.legs[0]
    assert v.method.startswith("exact") and leg.mode == "admissible" and leg.applies and leg.verdict == "holds"
    # at T = 1 the average is ||grad f(x^0)||^2, deterministic: the problem's own exact value
    g0 = default_problem(EXPERIMENTS["sl_noniid/thm1@proof"]).constants().get("gradnorm2_f").value
    assert leg.lhs[0] == pytest.approx(g0, rel=1e-12)
    assert np.all(leg.bound >= leg.lhs)


def test_an_underestimated_constant_is_caught_as_a_violation() -> None:
    # cut_layer Prop. 1 with F, sigma2 and eps2 a thousand times too small: the bound falls below the exact
    # left-hand side (the measured curve does not change, only the bound)
    v = check(CheckSpec(result="cut_layer/prop1", T=10, overrides={"F": 1e-3, "sigma2": 2.5e-4, "eps2": 1e-3}))
    assert v.legs[0].verdict == "violated" and v.legs[0].first_violation == 1
    assert any("overrides the exact value" in n for n in v.constant_notes)


def test_zeroth_order_verdict_uses_the_monte_carlo_interval() -> None:
    v = check(CheckSpec(result="mu_splitfed/thm4.1", T=6, seeds=4, practical=False))
    leg = v.legs[0]
    assert v.method == "Monte Carlo over 4 seeds" and leg.lhs_se is not None
    assert leg.verdict == "holds" and np.all(leg.lhs + 3 * leg.lhs_se <= leg.bound)


def test_every_experiment_names_an_existing_result_and_algorithm() -> None:
    import sfltheory as st
    from verify.train import ALGORITHMS

    for rid, e in EXPERIMENTS.items():
        assert rid in ALGORITHMS[e.algorithm].results, rid
        assert st.get(rid).step is not None
    for rid in NO_EXPERIMENT:
        st.get(rid)
    with pytest.raises(ParameterError, match="no experiment"):
        experiment("sl_noniid/thm3")
    with pytest.raises(ParameterError, match="explicit edition"):
        experiment("sl_noniid/cor1")
    with pytest.raises(ParameterError, match="nothing to run"):
        experiment("mu_splitfed/eq12")


def test_cli_report_and_json(tmp_path, capsys) -> None:
    assert main(["verify", "cut_layer/prop1", "--T", "6", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cut_layer/prop1" in out and "holds" in out
    for name in ("report.html", "report.md", "report.json", "cut_layer_prop1.png"):
        assert (tmp_path / name).stat().st_size > 500, name
    assert "data:image/png;base64," in (tmp_path / "report.html").read_text()
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["format"] == "sfltheory.verification/1" and rep["results"][0]["verdict"] == "holds"
    assert main(["verify", "cut_layer/prop1", "--T", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    leg = data["results"][0]["legs"][0]
    assert len(leg["measured"]) == len(leg["predicted"]) == 4


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["verify"], "'ID'"),
        (["verify", "nope/x"], "unknown result id"),
        (["verify", "sl_noniid/thm3"], "no experiment"),
        (["verify", "cut_layer/prop1", "zz=1"], "'zz'"),
        (["verify", "--all", "cut_layer/prop1"], "'--all'"),
    ],
)
def test_cli_bad_input(capsys, argv, needle) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_worst_case_search_finds_no_counterexample_for_a_true_bound() -> None:
    from verify.pipeline.worstcase import worst_case
    from verify.problems import QuadraticProblem

    w = worst_case("sl_noniid/thm1@proof", instances=3, T=6)
    assert len(w.ratios) == 3 and 0 < w.ratio == max(w.ratios) <= 1 and not w.counterexample
    QuadraticProblem.from_dict(w.problem)  # the worst instance is a loadable --problem file


def test_worst_case_search_reports_a_planted_counterexample(tmp_path, monkeypatch) -> None:
    # a "theorem" with a dropped factor: the bound divided by 1000 must be caught and its instance saved
    import sfltheory as st
    from verify.pipeline import worstcase

    real = st.bound_value
    monkeypatch.setattr(worstcase.st, "bound_value", lambda r, p: real(r, p) / 1000)
    w = worstcase.worst_case("cut_layer/prop1", instances=2, T=4)
    assert w.counterexample and w.ratio > 1
    w.save_problem(tmp_path / "c.json")
    assert main(["train", "sfl_v1_analysed", "--problem", str(tmp_path / "c.json"), "T=2", "--quiet"]) == 0


def test_cached_verification_is_reused_and_a_changed_configuration_is_not(tmp_path, monkeypatch) -> None:
    from verify.pipeline import check as checking

    first = checking.cached_check(CheckSpec(result="cut_layer/prop1", T=5), tmp_path)
    calls = []
    real = checking.check
    monkeypatch.setattr(checking, "check", lambda *a, **k: calls.append(k) or real(*a, **k))
    again = checking.cached_check(CheckSpec(result="cut_layer/prop1", T=5), tmp_path)
    assert calls == [] and np.array_equal(again.legs[0].lhs, first.legs[0].lhs)
    assert again.verdict == first.verdict and again.legs[0].step == first.legs[0].step
    checking.cached_check(CheckSpec(result="cut_layer/prop1", T=6), tmp_path)  # another T: computed, not reused
    assert len(calls) == 1


def test_main_job_pipeline_small(tmp_path) -> None:
    # plan with constants (values of the order measure gives on digits), train three algorithms, verify, report
    from sfltheory.constants import Constants, Estimate
    from verify.pipeline.main import run_pipeline

    c = Constants()
    for k, v in {
        "L": 2.0,
        "L[clients]": 2.5,
        "sigma_c2[max]": 1.0,
        "sigma_s2[max]": 3.0,
        "eps2": 0.5,
        "F": 2.3,
    }.items():
        c.set(k, Estimate(v))
    files = run_pipeline(
        tmp_path, c, T=3, verify_T=4, seeds=2, results=["cut_layer/prop1", "mu_splitfed/thm4.1", "heron_sfl/thm1@sum"]
    )
    names = {p.name for p in files}
    assert {"pipeline.txt", "plan_digits.json", "train_digits.png", "report.html"} <= names
    text = (tmp_path / "pipeline.txt").read_text()
    assert "mu_splitfed" in text and "fedavg" in text and "verification on exact problems" in text
    assert "heron_sfl/thm1@sum" in text  # the bounded-gradient result, verified on the default MLP
    assert json.loads((tmp_path / "runs" / "sl" / "run.json").read_text())["status"] == "complete"


def test_every_explicit_result_has_a_verification_or_a_reason() -> None:
    import sfltheory as st

    for r in st.results():
        if r.kind in ("theorem", "corollary", "proposition", "lemma") and r.explicit:
            assert r.id in EXPERIMENTS or r.id in NO_EXPERIMENT, r.id
    assert not set(EXPERIMENTS) & set(NO_EXPERIMENT)


def test_a_corollary_is_checked_at_its_own_step_for_every_T() -> None:
    # sl_noniid Cor. 2 sets N K eta_g eta_l = 1/sqrt(R): with N = 4, K = 2, eta_g = 1 the step at R is
    # 1/(8 sqrt(R)); each point of the grid is a separate exact run of R rounds
    v = check(CheckSpec(result="sl_noniid/cor2@explicit", T=10))
    leg = v.legs[0]
    assert leg.mode == "corollary's choice" and leg.T[0] == 2 and leg.T[-1] == 10
    assert leg.step == pytest.approx(1 / (8 * np.sqrt(10)))
    assert leg.verdict == "holds" and np.all(leg.lhs <= leg.bound)
