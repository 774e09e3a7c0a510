"""`sfltheory verify ID --run PATH`: a run that already exists, against the theorem (issue 29, items 1 and 7).

The bounds here are computed by hand from the seed, never by the code under test."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from verify.app import main
from verify.parse import check_spec
from verify.pipeline.check import check
from verify.pipeline.fromrun import answer

RESULT = "sl_noniid/thm2"  # FedAvg with a global step (verify --list: algorithm fedavg)


def thm2_bound(T: float, *, F: float, K: float, eta_g: float, eta_l: float, L: float, G2: float, sigma2: float,
               M: float) -> float:  # fmt: skip
    # Seed 002_56e5daea794305d7.txt, line 617 (App. D.3, Theorem 2, eq. (51)), R = T rounds, N = M clients:
    #   4 F/(K eta_g eta_l R) + 12 K (K-1) eta_l^2 L^2 G^2 + 6 (K-1) eta_l^2 L^2 sigma^2 + 4 eta_g eta_l L sigma^2/N
    return (4 * F / (K * eta_g * eta_l * T) + 12 * K * (K - 1) * eta_l**2 * L**2 * G2
            + 6 * (K - 1) * eta_l**2 * L**2 * sigma2 + 4 * eta_g * eta_l * L * sigma2 / M)  # fmt: skip


@pytest.fixture(scope="module")
def fedavg_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fedavg")
    rc = main(["train", "fedavg", "--problem", "quadratic", "T=20", "eta_l=0.05", "K=2", "batch=4", "--out", str(out),
               "--quiet"])  # fmt: skip
    assert rc == 0
    return out


def test_a_train_run_read_back_against_theorem_2_with_its_exact_constants(fedavg_run: Path) -> None:
    spec = check_spec({"result": RESULT, "run": str(fedavg_run)})
    assert spec.T == 21 and spec.run == str(fedavg_run) and spec.digest
    v = check(spec)
    (leg,) = v.legs
    assert leg.mode == "run" and leg.lhs_se is None and "no Monte-Carlo band" in v.method
    # The default quadratic (from_targets) hits its targets exactly: L = 1, sigma2 = 1, G2 = eps2[mean] = 1, B2 = 1,
    # F = 1; the run's settings: K = 2, eta_g = 1, eta_l = 0.05, M = 4. By hand:
    #   4*1/(2*1*0.05*T) = 40/T;  12*2*1*0.0025*1*1 = 0.06;  6*1*0.0025*1*1 = 0.015;  4*1*0.05*1*1/4 = 0.05
    #   bound(T) = 40/T + 0.125:  T = 1 -> 40.125,  T = 20 -> 2.125
    assert leg.bound[0] == pytest.approx(40.125, rel=1e-9)
    assert leg.bound[19] == pytest.approx(2.125, rel=1e-9)
    assert leg.bound[19] == pytest.approx(thm2_bound(20, F=1, K=2, eta_g=1, eta_l=0.05, L=1, G2=1, sigma2=1, M=4))
    # the left-hand side is the running average of the run's own records
    recs = json.loads((fedavg_run / "run.json").read_text())["records"]
    g = np.array([r["gradnorm2"] for r in recs])
    assert np.allclose(leg.lhs, np.cumsum(g) / np.arange(1, len(g) + 1))
    assert leg.verdict == "holds" and leg.applies
    assert answer(v).startswith(f"{RESULT}: holds at every T = 1..21")


def test_the_cli_prints_the_answer_first(fedavg_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", RESULT, "--run", str(fedavg_run / "run.json"), "--out", str(tmp_path / "rep")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{RESULT}: holds at every T = 1..21")
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert "run" in json.dumps(rep)


def test_a_run_of_another_algorithm_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "sl", "--problem", "quadratic", "T=3", "--out", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verify", RESULT, "--run", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ran sl" in err[0] and "fedavg" in err[0]


def test_a_setting_that_contradicts_the_run_is_refused(fedavg_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", RESULT, "--run", str(fedavg_run), "K=3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'K'" in err[0] and "states K = 2" in err[0]


# --- a run made with plain PyTorch, outside the package -----------------------------------------------------------


def plain_fedavg_csv(path: Path, *, T: int = 15, eta: float = 0.1, K: int = 2, M: int = 3, batch: int = 8) -> None:
    """FedAvg by hand: a linear least-squares model, M clients with shifted targets, K local SGD steps, plain
    averaging; ||grad f(x^t)||^2 of f = (1/M) sum f_m on every sample logged per round."""
    gen = torch.Generator().manual_seed(0)
    X = [torch.randn(40, 5, generator=gen) for _ in range(M)]
    y = [x @ torch.ones(5) + m + 0.1 * torch.randn(40, generator=gen) for m, x in enumerate(X)]
    model = torch.nn.Linear(5, 1)

    def gradnorm2(w: torch.nn.Module) -> tuple[float, float]:
        w.zero_grad()
        loss = sum(0.5 * ((w(x).squeeze(1) - t) ** 2).mean() for x, t in zip(X, y, strict=True)) / M
        loss.backward()
        return float(sum((p.grad**2).sum() for p in w.parameters())), float(loss.detach())

    rows = []
    for t in range(T):
        g2, loss = gradnorm2(model)
        rows.append(f"{t},{g2!r},{loss!r}")
        states = []
        for m in range(M):
            local = torch.nn.Linear(5, 1)
            local.load_state_dict(model.state_dict())
            opt = torch.optim.SGD(local.parameters(), lr=eta)
            for _ in range(K):
                idx = torch.randint(0, 40, (batch,), generator=gen)
                opt.zero_grad()
                (0.5 * ((local(X[m][idx]).squeeze(1) - y[m][idx]) ** 2).mean()).backward()
                opt.step()
            states.append(local.state_dict())
        model.load_state_dict({k: sum(s[k] for s in states) / M for k in states[0]})
    header = f"# M={M} K={K} eta_l={eta} eta_g=1 batch={batch}\n"
    path.write_text(header + "t,gradnorm2,loss\n" + "\n".join(rows) + "\n")


CONSTANTS = {"L": 4.0, "sigma2": 20.0, "G2": 3.0, "B2": 1.5, "F": 5.0}  # given: what a measurement would give


def given(**over: float) -> list[str]:
    return [f"{k}={v}" for k, v in {**CONSTANTS, **over}.items()]


def test_a_csv_from_a_plain_pytorch_loop_with_given_constants(tmp_path: Path) -> None:
    plain_fedavg_csv(tmp_path / "run.csv")
    spec = check_spec({"result": RESULT, "run": str(tmp_path / "run.csv"), **CONSTANTS})
    v = check(spec)
    (leg,) = v.legs
    # settings from the CSV header: K = 2, eta_l = 0.1, eta_g = 1, M = 3. By hand, at T = 1 and T = 15:
    #   4*5/(2*1*0.1*T) = 100/T;  12*2*1*0.01*16*3 = 11.52;  6*1*0.01*16*20 = 19.2;  4*1*0.1*4*20/3 = 10.6667
    #   T = 1 -> 141.38667,  T = 15 -> 6.6667 + 41.38667 = 48.05333
    assert leg.bound[0] == pytest.approx(100 + 11.52 + 19.2 + 32 / 3, rel=1e-9)
    assert leg.bound[14] == pytest.approx(100 / 15 + 11.52 + 19.2 + 32 / 3, rel=1e-9)
    # hypotheses: eta_l <= 1/(2 K L sqrt(2 B2 + 1)) = 1/(16*2) = 0.03125 fails at eta_l = 0.1
    assert not leg.applies and leg.failing
    assert "hypotheses fail" in answer(v) and "does not cover this run" in answer(v)


def test_a_planted_round_above_the_bound_is_a_violation_at_exactly_that_T(tmp_path: Path) -> None:
    # settings that satisfy the hypotheses: eta_l = 0.01 <= 0.03125, eta_l <= 1/(2 K L eta_g) = 0.0625
    plain_fedavg_csv(tmp_path / "run.csv", eta=0.01, T=12)
    lines = (tmp_path / "run.csv").read_text().splitlines()
    # bound(T) = 4*5/(2*0.01*T) + 12*2*1e-4*16*3 + 6*1e-4*16*20 + 4*0.01*4*20/3 = 1000/T + 0.1152 + 0.192 + 1.06667
    # at T = 8 (rows t = 0..7): 125 + 1.37387 = 126.37387; the average over t < 8 exceeds it when row t = 7 holds
    # 8 * 130 = 1040 minus what the other rows add (each below 30): plant 1040 at t = 7
    t7 = lines.index(next(ln for ln in lines if ln.startswith("7,")))
    cells = lines[t7].split(",")
    lines[t7] = ",".join([cells[0], "1040.0", cells[2]])
    (tmp_path / "run.csv").write_text("\n".join(lines) + "\n")
    v = check(check_spec({"result": RESULT, "run": str(tmp_path / "run.csv"), **CONSTANTS}))
    (leg,) = v.legs
    assert leg.applies
    assert leg.bound[7] == pytest.approx(1000 / 8 + 0.1152 + 0.192 + 0.16 / 0.15, rel=1e-9)
    assert leg.verdict == "violated" and leg.first_violation == 8
    assert answer(v).startswith(f"{RESULT}: violated at T = 8")


def test_several_constants_files_take_their_sup(tmp_path: Path) -> None:
    plain_fedavg_csv(tmp_path / "run.csv", eta=0.01, T=5)
    for name, L in (("a.json", 3.0), ("b.json", 4.0)):
        est = {k: {"value": v} for k, v in {**CONSTANTS, "L": L}.items()}
        (tmp_path / name).write_text(json.dumps({"format": "sfltheory.constants/1", "constants": est}))
    spec = check_spec({"result": RESULT, "run": str(tmp_path / "run.csv"),
                       "constants": [str(tmp_path / "a.json"), str(tmp_path / "b.json")]})  # fmt: skip
    v = check(spec)
    assert v.constants["L"] == 4.0
    assert any("sup over 2 files" in n for n in v.constant_notes)
    # bound at T = 1 with L = 4 (the sup): 1000 + 1.37387
    assert v.legs[0].bound[0] == pytest.approx(1000 + 0.1152 + 0.192 + 0.16 / 0.15, rel=1e-9)


# --- bad input: one line, exit 2, before any work ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "suffix", "names", "says"),
    [
        ("step,gradnorm2\n0,1\n", ".csv", [], "no column 't'"),
        ("t,loss\n0,1\n", ".csv", [], "no column 'gradnorm2'"),
        ("t,gradnorm2\n0,1\n1,abc\n", ".csv", [], "line 3"),
        ("t,gradnorm2\n0,1\n1,nan\n", ".csv", [], "must be finite"),
        ("t,gradnorm2\n0,1\n1,inf\n", ".csv", [], "must be finite"),
        ("t,gradnorm2\n0,1\n2,1\n1,1\n", ".csv", [], "every round must be logged"),
        ("t,gradnorm2\n0,1\n1,1\n1,1\n", ".csv", [], "repeated"),
        ("t,gradnorm2\n0,1\n1,2\n0,1\n", ".csv", [], "out of order"),
        ('{"t": 0, "gradnorm2": 1}\n{"t": 1}\n', ".jsonl", [], "line 2"),
        ('{"format": "sfltheory.constants/1"}', ".json", [], "not a run of `sfltheory train --out`"),
        ("# M=3 K=2 eta_g=1\nt,gradnorm2\n0,1\n1,1\n", ".csv", given(), "'eta_l'"),
        ("# M=3 K=2 eta_l=0.01 eta_g=1\nt,gradnorm2\n0,1\n1,1\n", ".csv", [*given(M=None), "M=4"], "states M = 3"),
        (
            "# M=3 K=2 eta_l=0.01 eta_g=1\nt,gradnorm2\n0,1\n1,1\n",
            ".csv",
            [f"{k}={v}" for k, v in CONSTANTS.items() if k != "G2"],
            "needs the constant G2",
        ),
    ],
)
def test_bad_input_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                                         suffix: str, names: list[str], says: str) -> None:  # fmt: skip
    path = tmp_path / f"log{suffix}"
    path.write_text(content)
    names = [n for n in names if not n.endswith("=None")]
    assert main(["verify", RESULT, "--run", str(path), *names]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert says in err[0] and "Traceback" not in err[0]
    if "constant G2" in says:
        assert "sfltheory measure --for" in err[0]


def test_a_missing_setting_names_how_to_give_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "log.csv").write_text("t,gradnorm2\n0,1\n1,1\n")
    assert main(["verify", RESULT, "--run", str(tmp_path / "log.csv"), *given(), "eta_l=0.01", "K=2", "eta_g=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'M'" in err and "M=VALUE" in err and "\n" not in err


def test_flags_that_run_the_algorithm_are_refused_with_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "log.csv").write_text("t,gradnorm2\n0,1\n1,1\n")
    assert main(["verify", RESULT, "--run", str(tmp_path / "log.csv"), "--seeds", "3"]) == 2
    assert "--seeds" in capsys.readouterr().err
    assert main(["verify", RESULT, "--constants", str(tmp_path / "c.json")]) == 2
    assert "--run" in capsys.readouterr().err


def test_no_nan_in_a_report(tmp_path: Path) -> None:
    plain_fedavg_csv(tmp_path / "run.csv", eta=0.01, T=4)
    v = check(check_spec({"result": RESULT, "run": str(tmp_path / "run.csv"), **CONSTANTS}))
    d = v.to_dict()
    assert all(math.isfinite(x) for x in d["legs"][0]["predicted"] + d["legs"][0]["measured"])
