"""A device this machine lacks and an absurd number of rounds: one line naming the option, before any work."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from sfltheory.errors import ParameterError  # noqa: E402
from verify.app import main  # noqa: E402
from verify.spec import MAX_ROUNDS, CheckSpec, QuadraticSpec, RunSpec  # noqa: E402
from verify.sweep.entries import check, run_config  # noqa: E402

QUAD = ["train", "fedavg", "--problem", "quadratic", "d=4", "M=2", "eta_l=0.1", "T=2", "--quiet"]


def one_line(capsys: Any, *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("sfltheory: error: "), (out, err)
    return lines[0]


@pytest.fixture
def no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a problem is work: a refused device must be refused before it."""

    def build(*a: Any, **k: Any) -> None:
        raise AssertionError("the problem was built")

    monkeypatch.setattr("verify.train.launch.build", build)


def gpus(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: n)


def test_train_cuda_without_cuda(capsys: Any, monkeypatch: pytest.MonkeyPatch, no_build: None) -> None:
    gpus(monkeypatch, 0)
    line = one_line(capsys, *QUAD, "--device", "cuda")
    assert "'--device'" in line and "cuda" in line and "use cpu or auto" in line


def test_train_cuda_index_beyond_the_devices(capsys: Any, monkeypatch: pytest.MonkeyPatch, no_build: None) -> None:
    gpus(monkeypatch, 2)
    line = one_line(capsys, *QUAD, "--device", "cuda:7")
    assert "'--device'" in line and "2 CUDA device(s), cuda:0 to cuda:1" in line


def test_train_unknown_device(capsys: Any, no_build: None) -> None:
    line = one_line(capsys, *QUAD, "--device", "tpu")
    assert "'--device'" in line and "'tpu'" in line


def test_train_present_devices_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from verify.device import present

    gpus(monkeypatch, 2)
    assert present("device", "cuda:1") == "cuda:1" and present("device", "cuda") == "cuda"
    assert present("device", "cpu") == "cpu" and present("device", "auto") == "auto"


def test_measure_cuda_without_cuda(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    gpus(monkeypatch, 0)

    def measure(*a: Any, **k: Any) -> None:
        raise AssertionError("measured")

    monkeypatch.setattr("verify.pipeline.measurement.measure_spec", measure)
    line = one_line(capsys, "measure", "--model", "mlp", "--data", "digits", "--device", "cuda:0")
    assert "'--device'" in line and "cuda:0" in line
    line = one_line(capsys, "measure", "--model", "mlp", "--data", "digits", "--device", "tpu")
    assert "'--device'" in line


def test_sweep_configuration_device(monkeypatch: pytest.MonkeyPatch, no_build: None) -> None:
    # a sweep's configuration is checked where it runs (a Ray worker may have the GPU the head lacks)
    gpus(monkeypatch, 1)
    config = {"algorithm": "fedavg", "problem": "quadratic", "eta_l": 0.1, "T": 2, "device": "cuda:3"}
    with pytest.raises(ParameterError, match="1 CUDA device"):
        run_config("train", config)
    with pytest.raises(ParameterError) as e:
        check("train", {**config, "device": "tpu"})
    assert e.value.name == "device"


# --- absurd sizes ----------------------------------------------------------------------------------------------------


def test_train_T_past_the_cap(capsys: Any, no_build: None) -> None:
    line = one_line(capsys, *QUAD[:-2], "T=1e20", "--quiet")
    assert "'T': at most 1e+07 rounds (got 1e+20)" in line and "GB" in line


@pytest.mark.parametrize("argv", [["--T", "100000000000000"], ["T=1e14"]])
def test_verify_T_past_the_cap(capsys: Any, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    def run_job(*a: Any, **k: Any) -> None:
        raise AssertionError("verified")

    monkeypatch.setattr("verify.pipeline.job.run_job", run_job)
    line = one_line(capsys, "verify", "sl_noniid/thm1@proof", *argv)
    assert "'T'" in line and "at most 1e+07 rounds" in line


def test_sweep_T_past_the_cap() -> None:
    with pytest.raises(ParameterError, match="at most 1e\\+07 rounds"):
        check("train", {"algorithm": "fedavg", "problem": "quadratic", "eta_l": 0.1, "T": 1e12})
    with pytest.raises(ParameterError, match="at most 1e\\+07 rounds"):
        check("verify", {"result": "sl_noniid/thm1@proof", "T": 1e12})


def test_the_cap_itself() -> None:
    assert RunSpec(algorithm="fedavg", problem=QuadraticSpec(), T=MAX_ROUNDS).T == MAX_ROUNDS
    assert CheckSpec(result="x", T=MAX_ROUNDS).T == MAX_ROUNDS
    with pytest.raises(ParameterError):
        RunSpec(algorithm="fedavg", T=MAX_ROUNDS + 1)
    from verify.problems import QuadraticProblem
    from verify.train import get, run

    with pytest.raises(ParameterError, match="at most"):
        run(get("fedavg")(eta_l=0.1), QuadraticProblem.from_targets(d=2, M=1), T=MAX_ROUNDS + 1, progress=False)
