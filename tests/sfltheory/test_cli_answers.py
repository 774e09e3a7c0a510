"""The answer first: check-lr, bound and plan open with one line in words; check-lr sweeps tau when it is left out;
text fits 120 columns (--wide: in full); a plan figure marks an optimum at the grid's edge and states its constants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sfltheory import plotting
from sfltheory.plan import plan
from verify.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_check_lr_answer_with_factor(capsys: pytest.CaptureFixture[str]) -> None:
    # Theorem 4.1 (seed eq. (8)): eta <= 1/(64 L (tau + 2 d_s)) = 1/256 and eta <= 1/(16 L tau d_c) = 1/3200 =
    # 0.0003125 (binding) at L = 1, tau = 2, d_c = 100, d_s = 1; eta = 0.001 is 0.001 / 0.0003125 = 3.2 times that
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=0.001")
    assert rc == 1
    assert out.splitlines()[0] == (
        "eta = 0.001 is 3.2 x the largest step mu_splitfed/thm4.1 admits (0.0003125): the theorem does not cover this run"
    )
    # eta = 1e-4: 1e-4 / 0.0003125 = 0.32
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=1e-4")
    assert rc == 0
    assert (
        out.splitlines()[0]
        == "eta = 0.0001 is admissible: 0.32 x the largest step mu_splitfed/thm4.1 admits (0.0003125)"
    )


def test_check_lr_without_tau_sweeps_it(capsys: pytest.CaptureFixture[str]) -> None:
    # eta = 1e-4 <= 1/(16 tau d_c) = 1/(1600 tau) iff tau <= 6.25; <= 1/(64 (tau + 2)) iff tau <= 154.25
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "d_c=100", "d_s=1", "eta=1e-4")
    assert rc == 0
    assert out.splitlines()[0] == "eta = 0.0001 is admissible for tau in 1..6 (of 1..32); not for tau in 7..32"
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "d_c=100", "d_s=1", "eta=1", "--grid", "1:4")
    assert rc == 1 and out.startswith("eta = 1 is admissible for no tau in 1..4")
    rc, _, err = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=1", "d_s=1", "--grid", "1:4")
    assert rc == 2 and "parameter '--grid'" in err and err.count("\n") == 1


def test_bound_answer(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["L=1", "F=1", "T=10", "tau=2", "d_c=1", "d_s=1", "eta=0.001", "sigma_c2=1", "sigma_s2=1", "lam=0.1"]
    rc, out, _ = run(capsys, "bound", "mu_splitfed/thm4.1", *args)
    assert rc == 0
    assert out.splitlines()[0] == "mu_splitfed/thm4.1: the bound is 200.052; every hypothesis holds: the bound applies"


def test_plan_answer(capsys: pytest.CaptureFixture[str]) -> None:
    # tau* = sqrt(4e4 / 16) = 50, bound 1600 (tests/sfltheory/test_cli_plan.py)
    base = ["F=1", "T=1", "L=1", "sigma_c2=20000", "sigma_s2=0", "lam=1e-12", "d_c=1", "d_s=1", "eta=1e-4"]
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", *base)
    assert rc == 0 and out.splitlines()[0] == "mu_splitfed/thm4.1: best tau = 50: bound 1600"
    # on 1..20 the bound 4e4/tau + 8e-4 * tau * 20000 still falls at 20: 2000 + 320 = 2320, at the edge
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", *base, "--grid", "1:20")
    assert (
        out.splitlines()[0] == "mu_splitfed/thm4.1: best tau = 20: bound 2320 (at the grid's upper edge: widen --grid)"
    )


WIDE = ["check-lr", "mu_splitfed/thm4.3", "L=1", "d_c=100", "d_s=1", "d=101", "M=10", "eta_g=1", "eta=0.001", "tau=4"]


def test_text_fits_120_columns(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, *WIDE)
    assert rc == 0 and max(len(x) for x in out.splitlines()) <= 120
    assert "D.1.3 client coefficient" in out.replace("\n", " ")  # wrapped, not dropped
    rc, out, _ = run(capsys, *WIDE, "--wide")
    assert max(len(x) for x in out.splitlines()) > 120
    args = ["L=1", "F=1", "T=10", "tau=2", "d_c=1", "d_s=1", "d=2", "M=2", "eta=1e-3", "eta_g=1", "sigma_c2=1",
            "sigma_s2=1", "eps2=1", "lam=0.1"]  # fmt: skip
    rc, out, _ = run(capsys, "bound", "mu_splitfed/thm4.3", *args)
    assert rc == 0 and max(len(x) for x in out.splitlines()) <= 120


def test_plan_figure_marks_the_edge_and_states_constants(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def keep(fig: Any, path: Any, **_: Any) -> Path:  # save() may name the output (name=...)
        seen["texts"] = [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]
        return Path(path)

    monkeypatch.setattr(plotting, "save", keep)
    p = plan("mu_splitfed/thm4.1", {"F": 1, "T": 1, "L": 1, "sigma_c2": 20000, "sigma_s2": 0, "lam": 1e-12,
             "d_c": 1, "d_s": 1, "eta": 1e-4}, grid=range(1, 21))  # fmt: skip
    plotting.plot_plan(p, tmp_path / "p.png")
    assert any("optimum at the grid's edge (tau = 20)" in t for t in seen["texts"])
    assert any(t.startswith("assumed constants: F = 1, T = 1, L = 1, sigma_c2 = 20000") for t in seen["texts"])


def test_check_lr_without_tau_prints_one_row_per_tau(capsys: pytest.CaptureFixture[str]) -> None:
    # Theorem 4.1 at L = 1, d_c = 100, d_s = 1: the binding cap is 1/(16 L tau d_c) = 1/(1600 tau) for every tau
    # (1/(64 (tau + 2)) is larger while tau <= 154): 0.000625 at tau = 1, 0.0003125 at 2, 0.000208333 at 3.
    rc, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "d_c=100", "d_s=1", "eta=3e-4", "--grid", "1:3")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "eta = 0.0003 is admissible for tau in 1..2 (of 1..3); not for tau in 3"
    rows = [ln.split() for ln in lines[3:6]]
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert [float(r[1]) for r in rows] == pytest.approx([1 / 1600, 1 / 3200, 1 / 4800], rel=1e-5)
    assert [r[-1] for r in rows] == ["admissible", "admissible", "large"]  # "too large"
    assert all(len(ln) <= 120 for ln in lines)


def test_the_json_carries_the_same_answer(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    args = ["mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=0.001"]
    _, out, _ = run(capsys, "check-lr", *args)
    _, js, _ = run(capsys, "check-lr", *args, "--json")
    assert json.loads(js)["answer"] == out.splitlines()[0]
    bound = ["mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=1e-4", "T=100", "F=1", "sigma_c2=1",
             "sigma_s2=1", "lam=1e-3", "P=1"]  # fmt: skip
    _, out, _ = run(capsys, "bound", *bound)
    _, js, _ = run(capsys, "bound", *bound, "--json")
    assert json.loads(js)["answer"] == out.splitlines()[0]
