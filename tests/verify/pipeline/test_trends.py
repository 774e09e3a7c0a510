"""Trend checks (issue 14): each verdict rule on series built to agree and built to disagree, the exact
decomposition behind sl_vs_fedavg, every check run for real at tiny settings, its figure, the report section and
the CLI (`sfltheory verify --trend`)."""

from __future__ import annotations

import functools
import io
import json
import math
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from verify.app import main
from verify.pipeline import report, trends
from verify.pipeline.report import document, figures, markdown
from verify.pipeline.report import html as report_html
from verify.pipeline.trends.record import VERDICTS, TrendCheck
from verify.pipeline.trends.runs import exact_params
from verify.pipeline.trends.series import loglog_slope, max_relative_spread, rank_correlation
from verify.pipeline.trends.sl_vs_fedavg import split_moments
from verify.pipeline.trends.verdicts import (
    best_verdict,
    combine,
    growth_verdict,
    invariance_verdict,
    speedup_verdict,
    tied_with_best,
)

# --- the verdict rules on planted series ---------------------------------------------------------------------------


def test_sweep_rule_agrees_within_one_grid_step_or_when_tied() -> None:
    mean = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    exact = np.zeros(5)
    assert best_verdict(mean, exact, 4)[0] == "agrees"  # the same grid point
    assert best_verdict(mean, exact, 3)[0] == "agrees"  # one grid step away
    # two steps away but within 2 combined standard errors of the best: tied, agrees
    noisy = np.array([5.0, 4.0, 1.05, 2.0, 1.0])
    verdict, why = best_verdict(noisy, np.full(5, 0.05), 2)
    assert verdict == "agrees" and "tied" in why
    assert 2 in tied_with_best(noisy, np.full(5, 0.05)) and 1 not in tied_with_best(noisy, np.full(5, 0.05))


def test_sweep_rule_disagrees_when_far_and_resolved_and_is_inconclusive_when_all_tied() -> None:
    mean = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    verdict, why = best_verdict(mean, np.full(5, 0.01), 4)
    assert verdict == "disagrees" and "4 grid steps" in why
    assert best_verdict(mean, np.full(5, 10.0), 4)[0] == "inconclusive"  # the seeds cannot tell them apart
    assert best_verdict(np.array([np.inf, 1.0, 2.0]), None, 1)[0] == "agrees"  # a diverged run is never best


def test_invariance_rule() -> None:
    assert invariance_verdict([1e-16, 2e-16], 0.09, 1e-6, 1e-3) == "agrees"
    assert invariance_verdict([1e-16, 3e-4], 0.09, 1e-6, 1e-3) == "disagrees"  # V1 depends on the cut
    assert invariance_verdict([1e-16, 1e-16], 1e-9, 1e-6, 1e-3) == "disagrees"  # V2 does not
    assert invariance_verdict([1e-16, 1e-16], 1e-4, 1e-6, 1e-3) == "inconclusive"
    assert invariance_verdict([math.nan], 0.1, 1e-6, 1e-3) == "disagrees"


def test_growth_rule_and_combination() -> None:
    assert growth_verdict(np.array([1.02, 1.01, 1.2])) == "agrees"
    assert growth_verdict(np.array([1.02, 1.0, 0.98])) == "disagrees"  # falls
    assert growth_verdict(np.array([1.0, 1.02])) == "inconclusive"  # grows by less than 5 %
    assert growth_verdict(np.array([0.5, 0.9])) == "inconclusive"  # grows, but SL is not behind
    assert combine(["agrees", "agrees"]) == "agrees"
    assert combine(["disagrees", "inconclusive"]) == "disagrees"
    assert combine(["agrees", "disagrees"]) == "inconclusive"
    assert combine([]) == "inconclusive"


def test_speedup_rule_on_planted_power_laws() -> None:
    M = np.array([1.0, 2.0, 4.0, 8.0])
    assert loglog_slope(M, 3 * M**-0.5) == pytest.approx(-0.5)
    assert speedup_verdict(loglog_slope(M, M**-0.5), -0.5) == "agrees"
    assert speedup_verdict(-0.9, -0.5) == "agrees"  # faster than promised is consistent with an upper bound
    assert speedup_verdict(-0.3, -0.5) == "inconclusive"
    assert speedup_verdict(-0.1, -0.5) == "disagrees"
    assert speedup_verdict(loglog_slope(M, M**0.1), -0.5) == "disagrees"  # no speedup at all
    assert speedup_verdict(math.nan, -0.5) == "inconclusive"


def test_helpers() -> None:
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert max_relative_spread([np.array([1.0, 2.0]), np.array([1.0, 2.0]), np.array([1.1, 2.0])]) == pytest.approx(0.1)
    assert max_relative_spread([np.ones(3), np.ones(2)]) == math.inf  # a run that stopped early
    with pytest.raises(Exception, match="verdict"):
        TrendCheck(name="x", title="x", claim="", rule="", verdict="holds", x_label="", x=np.ones(1), measured={},
                   predicted={})  # fmt: skip


# --- the exact decomposition behind sl_vs_fedavg --------------------------------------------------------------------


def test_mean_plus_shared_noise_part_is_the_exact_moment() -> None:
    from verify.pipeline.exact import exact_moments
    from verify.problems import QuadraticProblem
    from verify.train import get

    probs = [QuadraticProblem.from_targets(L=1.0, sigma2=1.0, eps2=e, d=4, M=3, seed=0) for e in (0.0, 9.0)]
    alg = get("sl")(eta_l=0.05, K=2, eta_g=1.0, order="fixed")
    got, noise = split_moments(alg, probs, 6, 1)
    want = exact_moments(alg, probs[1], T=6, batch=1).gradnorm2[:6]
    assert got.shape == (2, 6) and noise.shape == (6,)
    np.testing.assert_allclose(got[1], want, rtol=1e-10, atol=1e-14)


# --- every check for real, at tiny settings --------------------------------------------------------------------------

TINY: dict[str, dict[str, Any]] = {
    "tau_sweep": {"taus": (1, 4), "T": 4, "seeds": 2, "batch": 2, "d": 4, "d_c": 2, "M": 2, "client_time": (1.0, 2.0)},
    "cut_sweep": {"d": 6, "d_cs": (1, 3, 5), "tau": 2, "T": 4, "seeds": 2, "batch": 2, "M": 2},
    "cut_invariance": {"cuts": ("fc1", "fc2"), "hidden": (8, 8), "T": 2, "batch": 8, "eval_samples": 16},
    "sl_vs_fedavg": {"eps2s": (0.0, 16.0), "T": 6, "K": 2, "M": 3, "d": 4},
    "client_speedup": {"Ms": (1, 2), "R": 12, "d": 4},
}


@pytest.fixture(scope="module")
def checks() -> dict[str, TrendCheck]:
    return {n: trends.CHECKS[n](**kw) for n, kw in TINY.items()}


def test_every_check_runs_and_serialises(checks) -> None:
    assert list(checks) == list(trends.CHECKS)
    for name, c in checks.items():
        assert c.name == name and c.verdict in VERDICTS and c.summary and c.note and c.rule
        assert "seed 00" in c.claim  # the seed location
        assert name in c.line() and c.verdict in c.line()
        raw = json.loads(json.dumps(c.to_dict(), allow_nan=False))
        assert raw["verdict"] == c.verdict and raw["x"] == [float(v) for v in c.x]
        for k, y in c.measured.items():
            assert len(y) == len(c.x), (name, k)


def test_tau_sweep_follows_the_planner_and_the_time_model(checks) -> None:
    import sfltheory as st
    from sfltheory.plan import TimeModel

    c = checks["tau_sweep"]
    n = c.numbers
    # the wall-clock budget: tau = 4 waits for 4 server steps of 0.5 s (client share 1/2) > straggler 2 * 1/2
    tm = TimeModel(server_step=1.0, client_time=(1.0, 2.0))
    assert n["eq12_tau"] == pytest.approx(float(tm.eq12_tau(0.5, 2)))
    assert list(n["rounds_within_budget"]) == [4, 2] and n["budget_s"] == pytest.approx(4.0)
    # the steps are Theorem 4.3's largest at each tau, and the planner's best tau minimises the bound
    assert n["steps"][0] > n["steps"][1] > 0
    assert n["planner_tau_rounds"] == c.x[int(np.argmin(c.predicted["rounds budget"]))]
    p = st.bound_value("mu_splitfed/thm4.3", {**_params(c), "tau": 4.0, "eta": n["steps"][1], "T": 2.0})
    assert c.predicted["wall-clock budget"][1] == pytest.approx(float(p))


def _params(c: TrendCheck) -> dict[str, float]:
    from verify.problems import QuadraticProblem

    s = c.setting
    p = QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=1.0, eps2=1.0, d=s["d"], d_c=s["d_c"], M=s["M"], F=1.0,
                                      noise="rademacher")  # fmt: skip
    return exact_params("mu_splitfed/thm4.3", p, s["batch"], {"P": s["P"], "lam": s["lam"], "eta_g": 1.0})


def test_cut_invariance_v1_coincides_across_cuts(checks) -> None:
    c = checks["cut_invariance"]
    spread = c.numbers["spread"]
    assert spread["sfl_v1_analysed"] <= 1e-6 and spread["sfl_v1"] <= 1e-6
    a, b = c.measured["sfl_v1_analysed @ fc1"], c.measured["sfl_v1_analysed @ fc2"]
    np.testing.assert_allclose(a, b, rtol=1e-6)
    assert spread["sfl_v2"] > 0


def test_sl_vs_fedavg_and_speedup_numbers(checks) -> None:
    c = checks["sl_vs_fedavg"]
    assert set(c.numbers["steps"]) == {"paper's step", "largest admissible step"}
    assert c.numbers["steps"]["paper's step"] == pytest.approx(1 / math.sqrt(6))
    rates = c.predicted["rates (Sec. 4.3 (ii)/(i))"]
    assert np.all(rates > 1)  # the rates' sigma^2 term: SL's is M times FedAvg's
    s = checks["client_speedup"]
    assert s.numbers["slope_bound"] == pytest.approx(-0.5, abs=1e-9)  # K = 1: (4FL + 4 sigma^2)/sqrt(MKR)
    assert s.numbers["slope_measured"] < 0


def test_figures_and_the_report_section(checks, tmp_path) -> None:
    from sfltheory.plotting import style

    for c in checks.values():
        with style() as plt:
            fig = c.figure()
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            plt.close(fig)
        assert buf.getvalue()[:4] == b"\x89PNG"
    cs = list(checks.values())
    md = markdown.trends_section(document.build(trends=cs).trends or ())
    assert md.startswith("## Trends") and all(f"### `{c.name}`" in md for c in cs)
    for row in (ln for ln in md.splitlines() if ln.startswith("| `")):
        assert row.replace("\\|", "").count("|") == 4, row  # pipes in the numbers are escaped
    drawn, _ = figures.draw(document.build(trends=cs[:1]), [], cs[:1], None)  # the figure embedded, no file
    page = report_html.trends_section(drawn.trends or ())
    assert "data:image/png;base64," in page and "id='trend-tau_sweep'" in page
    written = report.write([], tmp_path, trends=cs[-2:])
    assert (tmp_path / "trend_client_speedup.png").exists() and written[0].name == "report.html"
    raw = json.loads((tmp_path / "report.json").read_text())
    assert [t["name"] for t in raw["trends"]] == ["sl_vs_fedavg", "client_speedup"]


# --- the command line ---------------------------------------------------------------------------------------------


def test_cli_trend_is_a_section_of_the_report(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(
        trends.CHECKS, "client_speedup", functools.partial(trends.client_speedup.check, **TINY["client_speedup"])
    )
    out = tmp_path / "rep"
    assert main(["verify", "sl_noniid/thm1@proof", "--T", "4", "--trend", "client_speedup", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "client_speedup" in text and any(v in text for v in VERDICTS)
    md = (out / "report.md").read_text()
    assert md.index("## `sl_noniid/thm1@proof`") < md.index("## Trends")
    html = (out / "report.html").read_text()
    assert html.rstrip().endswith("</body></html>") and html.count("</body>") == 1 and "trend-client_speedup" in html
    raw = json.loads((out / "report.json").read_text())
    assert raw["results"] and raw["trends"][0]["name"] == "client_speedup"
    assert list(raw) == ["format", "results", "trends"]  # no worst-case key unless the search was asked for
    assert (out / "trend_client_speedup.png").exists()
    # trends alone, as JSON
    assert main(["verify", "--trend", "client_speedup", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["results"] == [] and printed["trends"][0]["verdict"] in VERDICTS


def test_cli_report_is_one_document_with_results_worst_cases_and_trends(tmp_path, capsys, monkeypatch) -> None:
    # one call writes every format from one document: the sections in the same order in each, one <body>
    monkeypatch.setitem(
        trends.CHECKS, "client_speedup", functools.partial(trends.client_speedup.check, **TINY["client_speedup"])
    )
    out = tmp_path / "rep"
    argv = ["verify", "sl_noniid/thm1@proof", "--T", "4", "--worst-case", "2", "--trend", "client_speedup"]
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    md = (out / "report.md").read_text()
    assert md.index("## `sl_noniid/thm1@proof`") < md.index("## Worst cases") < md.index("## Trends")
    assert "| `sl_noniid/thm1@proof` | 2 |" in md
    page = (out / "report.html").read_text()
    assert page.count("<body>") == 1 and page.count("</body>") == 1 and page.rstrip().endswith("</body></html>")
    assert page.index("id='sl_noniid/thm1@proof'") < page.index("id='worst-cases'") < page.index("id='trends'")
    raw = json.loads((out / "report.json").read_text())
    assert list(raw) == ["format", "results", "worst_case", "trends"]
    assert raw["worst_case"][0]["result"] == "sl_noniid/thm1@proof" and raw["worst_case"][0]["instances"] == 2
    assert (out / "counterexamples.json").exists()
    # the same document as JSON on stdout
    assert main([*argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert list(printed) == list(raw) and printed["worst_case"][0]["worst_ratio"] == raw["worst_case"][0]["worst_ratio"]


def test_cli_bad_trend_is_one_line(capsys) -> None:
    assert main(["verify", "--trend", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown trend check 'nope'" in err and "tau_sweep" in err and len(err.strip().splitlines()) == 1
