"""Every command on CUDA (issue 23, part 1): ``train`` of every algorithm, batched and per client, against the same
run on the CPU; ``measure`` of every constant on a BatchNorm model (the traceback of the first GPU run); ``train``
from the command line. Skipped, with the reason, where there is no CUDA device; ``benchmarks/gpu.sh`` runs them.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import torch
from torch import nn

from verify.app import main as cli
from verify.data import partition, synthetic_classification
from verify.problems import ModelProblem
from verify.train import ALGORITHMS, get, run

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here"),
]

# small settings every algorithm accepts (the ZO algorithms with CPU draws: the same numbers on every device)
PARAMS: dict[str, dict[str, Any]] = {
    "fedavg": {"eta_l": 0.05, "K": 2},
    "sl": {"eta_l": 0.05, "K": 2, "order": "fixed"},
    "sfl_v1": {"eta": 0.05},
    "sfl_v1_analysed": {"eta": 0.05, "K": 2},
    "sfl_v2": {"eta": 0.05, "K": 2, "order": "fixed"},
    "sfl_aux": {"eta_l": 0.05, "eta": 0.05, "K": 2, "l": 1},
    "mu_splitfed": {"eta_c": 0.01, "eta_s": 0.01, "tau": 2, "P": 3, "lam": 1e-3, "draws": "cpu"},
    "mu_split": {"eta_c": 0.01, "eta_s": 0.01, "tau": 2, "P": 3, "lam": 1e-3, "draws": "cpu"},
    "heron_sfl": {"eta_c": 0.01, "eta_s": 0.05, "K": 2, "lam": 1e-3, "P": 3, "draws": "cpu"},
}


def bn_cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(4 * 4 * 4, 16), nn.ReLU(), nn.Linear(16, 3),
    )  # fmt: skip


def problem(device: str, M: int) -> ModelProblem:
    ds = synthetic_classification(24 * M, (1, 8, 8), 3, seed=1)
    idx = partition(ds.y, M, "iid", seed=0)
    return ModelProblem.at_cut(bn_cnn(), "1", nn.CrossEntropyLoss(), ds.X, ds.y, idx, dtype=torch.float64,
                               device=device, classes=3)  # fmt: skip


def test_every_algorithm_is_listed_here() -> None:
    assert set(PARAMS) == set(ALGORITHMS)


@pytest.mark.parametrize("name", sorted(PARAMS))
@pytest.mark.parametrize("batched", [True, False])
def test_train_on_cuda_gives_the_cpu_curve(name: str, batched: bool) -> None:
    # the reference is the same run on the CPU (float64 on both: the curves agree to rounding)
    M = 1 if name == "mu_split" else 3
    curves = {}
    for dev in ("cpu", "cuda"):
        r = run(get(name)(**PARAMS[name]), problem(dev, M), T=2, batch=8, batched=batched, progress=False)
        assert r.status == "complete"
        curves[dev] = r.series("gradnorm2")
    assert all(math.isfinite(v) for v in curves["cuda"])
    assert curves["cuda"] == pytest.approx(curves["cpu"], rel=1e-6)


def test_measure_resnet18_on_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    # the first GPU run's traceback: _bn_rule read the running statistics left on the CPU (the comparison with
    # the CPU on a small BatchNorm CNN, every estimator: tests/verify/constants/test_cuda_measure.py)
    big = ["measure", "--model", "resnet18", "--data", "synthetic:n=256,shape=3x32x32,classes=10", "--cut",
           "layer2.0", "--clients", "4", "--json", "--device", "cuda"]  # fmt: skip
    assert cli(big) == 0
    vals = json.loads(capsys.readouterr().out)["constants"]
    assert {"L", "F", "sigma2", "eps2"} <= set(vals)
    assert all(math.isfinite(v["value"]) for v in vals.values() if isinstance(v, dict))


def test_train_command_on_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(["train", "fedavg", "--data", "synthetic:n=256,shape=1x8x8,classes=3", "--model", "mlp",
                "--clients", "4", "--device", "cuda", "--json", "--quiet", "T=2", "eta_l=0.05"])  # fmt: skip
    assert code == 0
    run_json = json.loads(capsys.readouterr().out)
    assert run_json["config"]["device"].startswith("cuda")
    assert len(run_json["records"]) == 3


def test_verify_on_a_model_on_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    # verify trains and measures a model problem on the device asked for
    argv = ["verify", "sl_noniid/thm1", "--model", "mlp", "--input-shape", "64", "--clients", "2", "--T", "3",
            "--seeds", "2", "--points", "1", "--order", "fixed", "eta_l=0.05", "--json"]  # fmt: skip
    assert cli([*argv, "--device", "cuda"]) == 0
    res = json.loads(capsys.readouterr().out)["results"][0]
    assert res["problem"].startswith("mlp on digits[train]: M = 2") and res["legs"]
