"""`sfltheory train`: listing, a run on the exact quadratic, JSON output, resume, divergence and bad input."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from verify.app import main


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_algorithm_with_its_paper(capsys) -> None:
    code, out, _ = run_cli(capsys, "train", "--list")
    assert code == 0
    for name, paper in [("mu_splitfed", "mu_splitfed"), ("sl", "sl_noniid"), ("fedavg", "sl_noniid")]:
        assert any(line.split()[:2] == [name, paper] for line in out.splitlines()), name
    code, out, _ = run_cli(capsys, "train", "--list", "--json")
    assert {"name", "paper", "source", "results", "params"} <= set(json.loads(out)[0])


def test_quadratic_run_json(capsys) -> None:
    # FedAvg, M = 2 (targets), K = 1, batch 1: bytes per round = 2 clients * 10 float64 = 160 each way
    code, out, _ = run_cli(capsys, "train", "fedavg", "--problem", "quadratic", "T=3", "d=10", "M=2",
                           "sigma2=0.5", "eta_l=0.1", "batch=1", "--json")  # fmt: skip
    assert code == 0
    run = json.loads(out)
    assert run["format"] == "sfltheory.run/1" and run["status"] == "complete"
    assert run["config"]["algorithm"] == "fedavg" and run["config"]["params"]["eta_l"] == 0.1
    recs = run["records"]
    assert [r["t"] for r in recs] == [0, 1, 2, 3]
    assert {"gradnorm2", "loss", "bytes_up", "bytes_down", "gradnorm2_avg", "sim_time"} <= set(recs[0])
    assert recs[3]["bytes_up"] == 3 * 160 and recs[3]["bytes_down"] == 3 * 160


def test_problem_file_out_and_resume(tmp_path, capsys) -> None:
    f = tmp_path / "q.json"
    f.write_text(json.dumps({"kind": "quadratic", "H": [1.0, 2.0], "shifts": [[1, 0], [0, 1]], "x0": [0, 0],
                             "d_c": 1, "sigma2": 0.1}))  # fmt: skip
    out = tmp_path / "run"
    args = ["train", "sl", "--problem", str(f), "eta_l=0.1", "--order", "fixed", "--out", str(out), "--quiet"]
    code, text, _ = run_cli(capsys, *args, "T=4")
    assert code == 0 and "status: complete" in text and (out / "run.json").exists()
    code, _, _ = run_cli(capsys, *args, "T=8")  # extends the saved run from t = 4
    assert code == 0
    extended = json.loads((out / "run.json").read_text())
    code, text, _ = run_cli(capsys, "train", "sl", "--problem", str(f), "eta_l=0.1", "--order", "fixed", "T=8",
                            "--json")  # fmt: skip
    fresh = json.loads(text)
    assert [r["gradnorm2"] for r in extended["records"]] == [r["gradnorm2"] for r in fresh["records"]]


def test_divergence_exits_1_and_keeps_the_run(tmp_path, capsys) -> None:
    code, _, err = run_cli(capsys, "train", "fedavg", "--problem", "quadratic", "L=1", "eta_l=10", "T=300",
                           "--out", str(tmp_path), "--quiet")  # fmt: skip
    assert code == 1 and "diverged in round" in err
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "diverged"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["train", "nope"], "'algorithm': unknown algorithm 'nope'"),
        (["train", "mu_splitfed", "--problem", "quadratic", "tau=0"], "'tau'"),
        (["train", "fedavg", "--problem", "quadratic", "M=3", "n=5"], "'n'"),
        (["train", "fedavg", "--problem", "quadratic", "eta_l=-0.1"], "'eta_l': must be a positive number"),
        (["train", "fedavg", "--problem", "quadratic", "eta_l=x"], "'eta_l'"),
        (["train", "fedavg", "--problem", "quadratic", "tau=2"], "'tau': algorithm 'fedavg' does not take it"),
        (["train", "fedavg", "--problem", "quadratic", "T=0"], "'T'"),
        (["train", "fedavg", "--problem", "quadratic", "T=2.5"], "'T'"),
        (["train", "fedavg", "--problem", "quadratic", "tau=1,2"], "one value per parameter"),
        (["train", "fedavg", "--problem", "/nonexistent.json"], "no such file"),
        (["train", "fedavg", "--model", "mlp", "--data", "digits", "--cut", "zz", "T=1"], "'--cut'"),
        (["train", "fedavg", "--data", "/nonexistent.pt", "T=1"], "'--data'"),
        (["train", "fedavg", "--problem", "quadratic", "--cut", "fc1"], "'--cut'"),
        (["train"], "'algorithm'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sfltheory: error: "), err
    assert needle in lines[0]


def test_malformed_problem_file(tmp_path, capsys) -> None:
    f = tmp_path / "bad.json"
    f.write_text('{"kind": "quadratic", "H": [1, 2], "shifts": [[1, 0]], "x0": [0, 0], "d_c": 1}')
    code, _, err = run_cli(capsys, "train", "fedavg", "--problem", str(f))
    assert code == 2 and "field 'sigma2' is missing" in err


def test_model_run_on_digits_text(capsys) -> None:
    code, out, _ = run_cli(capsys, "train", "fedavg", "--model", "mlp", "--input-shape", "64", "--cut", "fc1",
                           "--clients", "3", "T=3", "eta_l=0.1", "--quiet")  # fmt: skip
    assert code == 0
    assert "fedavg (sl_noniid" in out and "test acc" in out and "status: complete" in out
