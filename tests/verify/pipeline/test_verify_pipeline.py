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


# --- sfl_aux's server theorems (left-hand side: the server part of the gradient) and MU-SplitFed's corollaries ---


def test_exact_moments_of_the_server_part_by_hand() -> None:
    """sfl_aux with one client, K = 1, l = 1, batch B: the server does not move in round 0 (Algorithm 1 line 8:
    t != 0) and makes one SGD step in round 1, x_S^2 = x_S^1 - eta (H_S (x_S^1 - b_S) + xi_S), xi_S the batch mean
    of N(0, sigma2/d I) noise (variance sigma2/(d B) per coordinate). With diagonal H:
    E||H_S (x_S^2 - b_S)||^2 = ||H_S (I - eta H_S)(x_S^1 - b_S)||^2 + eta^2 sigma2/(d B) tr(H_S^2)."""
    from verify.pipeline.exact import exact_moments
    from verify.problems import QuadraticProblem
    from verify.train.algorithms.sfl_aux import SflAux

    q = QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=2.0, eps2=0.0, d=4, d_c=2, M=1, F=1.0, seed=3)
    eta, B = 0.3, 2
    m = exact_moments(SflAux(K=1, l=1, eta=eta, eta_l=0.1), q, T=2, batch=B)
    h = np.diag(q.H.numpy())[2:]
    r0 = (q.x0 - q.b[0]).numpy()[2:]
    assert m.series("gradnorm2_server")[0] == pytest.approx(float(((h * r0) ** 2).sum()), rel=1e-12)
    assert m.series("gradnorm2_server")[1] == pytest.approx(m.series("gradnorm2_server")[0], rel=1e-12)
    want = float(((h * (1 - eta * h) * r0) ** 2).sum()) + eta**2 * 2.0 / (4 * B) * float((h**2).sum())
    assert m.series("gradnorm2_server")[2] == pytest.approx(want, rel=1e-12)
    assert np.all(m.series("gradnorm2_server") <= m.gradnorm2 + 1e-15)


def test_sfl_aux_server_theorem_reads_the_server_part_and_holds() -> None:
    """sfl_aux/thm3 on the default quadratic: exact moments, the left-hand side is min_t E||grad_{x_S} f(x^t)||^2,
    at T = 1 the server block of grad f(x^0) = H (x^0 - bbar) (diagonal H: the last 5 of d = 10 coordinates)."""
    exp = EXPERIMENTS["sfl_aux/thm3"]
    v = check(CheckSpec(result="sfl_aux/thm3", T=6))
    leg = v.legs[0]
    assert v.method.startswith("exact") and "grad_{x_S}" in v.lhs
    q = default_problem(exp)
    g = (np.diag(q.H.numpy()) * (q.x0 - q.b.mean(0)).numpy())[5:]
    assert leg.lhs[0] == pytest.approx(float(g @ g), rel=1e-12)
    assert np.all(np.diff(leg.lhs) <= 0)  # a running minimum
    assert leg.applies and leg.verdict == "holds"


def test_sfl_aux_partial_participation_is_checked_by_monte_carlo() -> None:
    """thm4 samples n = 3 of 4 clients with replacement each round: discrete randomness, so Monte Carlo."""
    v = check(CheckSpec(result="sfl_aux/thm4", T=4, seeds=4, practical=False))
    assert v.method == "Monte Carlo over 4 seeds" and v.legs[0].verdict == "holds"


def test_mu_splitfed_corollaries_run_on_their_own_split() -> None:
    """Corollaries 4.2 and 4.4 fix d_c = sqrt(d/tau): with d = 8 and tau = 2, d_c = sqrt(4) = 2, d_s = 6."""
    for rid in ("mu_splitfed/cor4.2", "mu_splitfed/cor4.4"):
        q = default_problem(EXPERIMENTS[rid])
        assert (q.d, q.d_c) == (8, 2) and EXPERIMENTS[rid].params["tau"] == 2
    v = check(CheckSpec(result="mu_splitfed/cor4.2", T=3, seeds=4))
    assert v.params["d_c"] == 2 and v.params["d"] == 8 and v.params["d_s"] == 6
    # the split holds (on the default d = 10, d_c = 5 it fails: sqrt(10/2) is no integer); the corollary's own step
    # 1/sqrt(d tau T) = 1/sqrt(48) ~ 0.144 at T = 3 exceeds its other two terms, 1/(64(2 + 12)) and 1/(16 * 2 * 2)
    assert "split d_c = sqrt(d/tau)" not in v.legs[0].failing
    assert set(v.legs[0].failing) == {"eta<=1/(64L(tau+2d_s))", "eta<=1/(16L tau d_c)"}
    assert v.legs[0].verdict == "holds"
