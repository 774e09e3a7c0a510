"""The planner's command line: plan, compare and cuts (models given as block lists: no torch needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.app import main

BASE = ["F=1", "T=1", "L=1", "sigma_c2=20000", "sigma_s2=0", "lam=1e-12"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    f = tmp_path / "toy.json"
    f.write_text(
        json.dumps(
            {"model": "toy", "blocks": [{"name": "a", "params": 1, "activation": 10}, {"name": "b", "params": 1}]}
        )
    )
    return f


def test_plan_json_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    # tau* = sqrt((4F/(eta T)) / (8 eta L d_c sigma_c^2)) = sqrt(4e4 / 16) = 50 (see tests/test_plan.py)
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "eta=1e-4", "--json")
    d = json.loads(out)
    assert rc == 0 and d["feasible"] and d["best"]["value"] == 50 and d["best"]["bound"] == pytest.approx(1600)


def test_plan_text_with_model_file_and_plot(capsys: pytest.CaptureFixture[str], toy: Path, tmp_path: Path) -> None:
    png = tmp_path / "plan.png"
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", *BASE, "eta=1e-4", "--model", str(toy), "--plot", str(png))
    assert rc == 0
    assert "best: cut 'a' (d_c = 1), tau = 50" in out
    assert png.stat().st_size > 1000


def test_plan_infeasible_exits_1_with_reason(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "eta=0.1")
    assert rc == 1 and "infeasible, because" in out and err == ""


def test_plan_time_model(capsys: pytest.CaptureFixture[str], toy: Path) -> None:
    args = ["plan", "mu_splitfed/thm4.1", "F=1", "L=1", "sigma_c2=1", "sigma_s2=0", "lam=1e-12", "eta=1e-4"]
    rc, out, _ = run(
        capsys, *args, "--model", str(toy), "--eps", "1", "--server-step", "0.01", "--client-time", "1,1,5", "--json"
    )
    d = json.loads(out)
    assert rc == 0 and d["objective"] == "time" and d["cuts"][0]["eq12_tau"] == pytest.approx(500)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "eta=1e-4", "--grid", "0:5"], "--grid"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "--over", "M"], "'over'"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "--model", "nosuch.json"], "no such file"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "--model", "x.txt"], "must end in .json or .csv"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "--eps", "-1"], "--eps"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "--eps", "1"], "leave T out"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "--plot", "x.gif"], "--plot"),
        (["plan", "mu_splitfed/thm4.1", *BASE, "d_c=1", "d_s=1", "--server-step", "1"], "give eps"),
        (["compare", "mu_splitfed/thm4.1:tau", *BASE], "expected id:name=value"),
        (["compare", "mu_splitfed/nope", *BASE], "unknown result id"),
        (["cuts", "--model", "nosuch.csv"], "no such file"),
    ],
)
def test_bad_input_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's own checks (e.g. --eps -1) exit through our one-line error()
        rc = int(e.code or 0)
    _, err = capsys.readouterr()
    assert rc == 2
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_compare_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    # at eta = 1e-4, sigma_c^2 = 0: B = 4/(1e-4 tau) = 40,000 (tau = 1) and 5,000 (tau = 8)
    common = ["F=1", "T=1", "L=1", "sigma_c2=0", "sigma_s2=0", "lam=1e-12", "d_c=1", "d_s=1", "eta=1e-4"]
    rc, out, _ = run(capsys, "compare", "mu_splitfed/thm4.1:tau=1", "mu_splitfed/thm4.1:tau=8", *common, "--json")
    rows = json.loads(out)
    assert rc == 0 and [r["bound"] for r in rows] == [pytest.approx(4e4), pytest.approx(5e3)]
    rc, out, _ = run(capsys, "compare", "mu_splitfed/thm4.1:tau=1", "mu_splitfed/thm4.1:tau=8", *common)
    assert rc == 0 and "mu_splitfed/thm4.1:tau=8" in out and "5000" in out


def test_cuts_from_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "m.csv"
    f.write_text("name,params,activation\nstem,100,64\nbody,900,32\nhead,10,\n")
    rc, out, _ = run(capsys, "cuts", "--model", str(f), "--json")
    d = json.loads(out)
    assert rc == 0 and d["d"] == 1010
    assert [(c["name"], c["d_c"], c["d_s"], c["activation"]) for c in d["cuts"]] == [
        ("stem", 100, 910, 64),
        ("body", 1000, 10, 32),
    ]


def test_check_lr_reports_the_bound_minimising_step(capsys: pytest.CaptureFixture[str]) -> None:
    # closed form (tests/test_plan.py): eta* = sqrt(4e-6/8) = 7.0711e-4, bound 2 sqrt(32e-6) = 0.0113137;
    # at the largest feasible eta = 1/192: 4e-6*192 + 8/192 = 7.68e-4 + 0.0416667 = 0.0424347
    args = ["check-lr", "mu_splitfed/thm4.1", "L=1", "tau=1", "d_c=1", "d_s=1", "eta=0.01", "F=1", "T=1e6"]
    rc, out, _ = run(capsys, *args, "sigma_c2=1", "sigma_s2=0", "lam=1e-12", "--json")
    d = json.loads(out)
    assert rc == 1  # eta = 0.01 > 1/192: the given step violates a stated branch (check-lr's exit status 1)
    assert d["bound_at"]["bound_minimising"]["step"] == pytest.approx(7.0710678e-4, rel=1e-6)
    assert d["bound_at"]["bound_minimising"]["bound"] == pytest.approx(0.0113137, rel=1e-5)
    assert d["bound_at"]["largest_feasible"]["bound"] == pytest.approx(4e-6 * 192 + 8 / 192, rel=1e-9)
    # without F, T, sigma's the step conditions are still checked, and no bound is given
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=1", "d_c=1", "d_s=1", "--json")
    assert rc == 0 and json.loads(out)["bound_at"] is None
