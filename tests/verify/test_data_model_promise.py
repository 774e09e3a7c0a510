"""Issue 24, data and model checks: bad data or a model that does not fit the data is refused in one line
naming the option (``--data``, ``--model``, ``--input-shape``, ``--state``, ``--partition``) before any
training or measuring -- through ``train``, ``measure`` and ``verify`` alike, since the check sits where the
data loads (``verify.data``) and where model and data meet (``verify.problems.build``, ``verify.models``).

The expected lines are written out from the rules (a NaN at sample 3 is "sample 3", ten labels 100..109 are
"10 classes" to be mapped to 0..9), not read back from the code.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from sfltheory.errors import ParameterError
from tests.refusal import refused
from verify.app import main
from verify.data import load_tensors, partition
from verify.models import check_outputs, load_state, model_cuts
from verify.models.forward import CUT, INPUT_SHAPE, MODEL
from verify.models.state import STATE
from verify.problems import default_cut, model_problem
from verify.spec import FLAGS

N, FEATURES = 40, 64  # samples, features per sample: tiny, so each refused command costs a load and no more
MODS = "promise_data_model_mods"  # a module of model factories written to a temporary folder on sys.path

_FACTORIES = """
import torch.nn as nn


def three():  # 3 outputs, for data with 10 classes
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 3))


class Boom(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(64, 16)

    def forward(self, x):
        raise RuntimeError("boom")


def boom():
    return nn.Sequential(nn.Flatten(), Boom(), nn.Linear(10, 10))


def two():  # two blocks: one cut, between them
    return nn.Sequential(nn.Linear(64, 16), nn.Linear(16, 10))


def narrow():  # takes 32 features: a genuine shape mismatch on 64
    return nn.Sequential(nn.Linear(32, 16), nn.Linear(16, 10))


def single():  # one block with parameters: no cut
    return nn.Linear(64, 10)


def one_out():  # one output, for regression targets
    return nn.Sequential(nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 1))
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The factories' module, importable as ``promise_data_model_mods`` for the whole module's tests."""
    folder = tmp_path_factory.mktemp("mods")
    (folder / f"{MODS}.py").write_text(textwrap.dedent(_FACTORIES))
    sys.path.insert(0, str(folder))
    yield MODS
    sys.path.remove(str(folder))
    sys.modules.pop(MODS, None)


def _ok_arrays(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, FEATURES)).astype(np.float32)
    y = np.arange(N) % 10  # labels 0..9, four samples each
    return X, y


def _npz(path: Path, X: np.ndarray, y: np.ndarray) -> str:
    np.savez(path, X=X, y=y)
    return str(path)


def _train(data: str, *extra: str, model: str = "mlp") -> list[str]:
    return ["train", "fedavg", "--model", model, "--data", data, *extra, "T=2"]


def _measure(data: str, *extra: str, model: str = "mlp") -> list[str]:
    return ["measure", "--model", model, "--data", data, "--what", "F", "--quiet", *extra]


def _verify(data: str, *extra: str, model: str = "mlp") -> list[str]:
    return ["verify", "cut_layer/prop1", "--model", model, "--data", data, *extra, "--T", "2", "--seeds", "1"]


def _line(flag: str, rule: str) -> str:
    return f"sfltheory: error: parameter '{flag}': {rule}"


# --- 1. NaN / inf in the data: refused as it loads ----------------------------------------------------------


def test_nan_and_inf_inputs_refused_at_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: train ran and reported "diverged in round 0 ... reduce the step size" (exit 1); verify said
    # "parameter 'value': an estimate must be finite"
    X, y = _ok_arrays()
    X[3, 5] = np.nan
    nan = _npz(tmp_path / "nan.npz", X, y)
    want = _line("--data", f"{nan}: X has 1 non-finite entry (NaN at sample 3); clean the data")
    for argv in (_train(nan), _measure(nan), _verify(nan)):
        assert refused(main, capsys, *argv) == want
    X, y = _ok_arrays()
    X[7, 0], X[9, 1] = np.inf, -np.inf  # two entries, the first at sample 7
    inf = _npz(tmp_path / "inf.npz", X, y)
    want = _line("--data", f"{inf}: X has 2 non-finite entries (first: inf at sample 7); clean the data")
    assert refused(main, capsys, *_train(inf)) == want


def test_non_finite_targets_and_pt_files_refused(tmp_path: Path) -> None:
    # every reader: .pt as .npz, and float (regression) targets as inputs
    X = torch.randn(6, 2, 3)
    y = torch.randn(6, 1)
    y[4, 0] = float("nan")
    torch.save({"X": X, "y": y}, tmp_path / "r.pt")
    with pytest.raises(ParameterError) as e:
        load_tensors(tmp_path / "r.pt")
    assert e.value.name == "problem.data" and "y has 1 non-finite entry (NaN at sample 4)" in e.value.rule
    X[2, 1, 0] = float("-inf")  # sample 2 of (2, 3)-shaped samples: flat index 2*6 + 3 = 15
    torch.save({"X": X, "y": torch.arange(6) % 2}, tmp_path / "x.pt")
    with pytest.raises(ParameterError, match=r"X has 1 non-finite entry \(-inf at sample 2\)"):
        load_tensors(tmp_path / "x.pt")
    # float64 values beyond float32's range would turn into infinities when the inputs become float32
    torch.save({"X": torch.full((4, 2), 1e300, dtype=torch.float64), "y": torch.arange(4) % 2}, tmp_path / "big.pt")
    with pytest.raises(ParameterError, match="beyond float32's range"):
        load_tensors(tmp_path / "big.pt")


# --- 2. labels must be 0..C-1 -------------------------------------------------------------------------------


def test_offset_labels_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: train built a 110-class model (exit 0), measure failed with IndexError
    X, y = _ok_arrays()
    lab = _npz(tmp_path / "lab100.npz", X, y + 100)
    want = _line(
        "--data", f"{lab}: labels take the values 100..109 (10 classes); classes must be numbered 0..C-1: map them "
        "to 0..9"
    )  # fmt: skip
    for argv in (_train(lab), _measure(lab), _verify(lab)):
        assert refused(main, capsys, *argv) == want


def test_labels_with_a_gap_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the rule: every value 0..max occurs; {3, 8} is two classes to be numbered 0, 1
    X, _ = _ok_arrays()
    gap = _npz(tmp_path / "gap.npz", X, np.where(np.arange(N) % 2 == 0, 3, 8))
    want = _line("--data", f"{gap}: labels take the values 3, 8 (2 classes); classes must be numbered 0..C-1: map "
                 "them to 0..1")  # fmt: skip
    assert refused(main, capsys, *_train(gap)) == want
    # 0..9 without 7: nine classes, a phantom output for class 7
    y = np.arange(N) % 10
    y[y == 7] = 6
    hole = _npz(tmp_path / "hole.npz", X, y)
    line = refused(main, capsys, *_measure(hole))
    assert "labels take the values 0, 1, 2, 3, 4, 5, ... (9 classes)" in line and line.endswith("map them to 0..8")


def test_negative_labels_still_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    X, y = _ok_arrays()
    neg = _npz(tmp_path / "neg.npz", X, y - 5)
    assert refused(main, capsys, *_train(neg)) == _line("--data", f"{neg}: integer labels must be >= 0, got -5")


# --- 3. the model's outputs against the labels or targets ---------------------------------------------------


def test_too_few_outputs_refused_before_any_work(tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]) -> None:
    # before: train said "--cut: the model has a single block", measure failed with "IndexError: Target 6 is out
    # of bounds"
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    want = _line("--model", "gives 3 outputs per sample, the labels need 10 (classes 0..9)")
    for argv in (_train(ok, model=f"{mods}:three"), _measure(ok, model=f"{mods}:three")):
        assert refused(main, capsys, *argv) == want
    assert refused(main, capsys, *_verify(ok, model=f"{mods}:three")) == want


def test_regression_target_width(tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]) -> None:
    X, _ = _ok_arrays()
    two = _npz(tmp_path / "reg2.npz", X, X[:, :2].copy())  # two targets per sample, a model of one output
    want = _line("--model", "gives 1 output per sample, the targets hold 2 per sample (shape (2,))")
    assert refused(main, capsys, *_train(two, model=f"{mods}:one_out")) == want
    # targets (n,) for outputs (n, 1): the same width, so accepted -- in the output's shape, or the element-wise
    # loss would broadcast (n, 1) against (n,) to (n, n)
    one = _npz(tmp_path / "reg1.npz", X, X[:, 0].copy())
    p = model_problem(model=f"{mods}:one_out", data=one, clients=2)
    batch = p.sample(0, 5, torch.Generator().manual_seed(0))
    x0 = p.init()
    assert p.server_loss(x0["server"], p.client_forward(x0["client"], batch.x), batch.y).shape == (5,)


def test_check_outputs_rules() -> None:
    net = nn.Sequential(nn.Linear(4, 3))
    assert check_outputs(net, (4,), classes=3) == (3,)
    with pytest.raises(ParameterError) as e:
        check_outputs(net, (4,), classes=5)  # more classes than outputs
    assert e.value.name == MODEL and e.value.rule == "gives 3 outputs per sample, the labels need 5 (classes 0..4)"
    with pytest.raises(ParameterError, match="the labels need 2"):
        check_outputs(net, (4,), classes=2)  # more outputs than classes: outputs no sample trains
    with pytest.raises(ParameterError, match="not one tensor"):
        check_outputs(_Pair(), (4,), classes=3)


class _Pair(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.a(x), x


# --- 4. what counts as a block; cut errors name the field -----------------------------------------------------


def test_two_block_model_splits_between_its_blocks(
    tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: "--cut: the model has a single block: there is nothing to split" for Linear, Linear
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    assert main(_train(ok, model=f"{mods}:two")) == 0
    capsys.readouterr()
    two = nn.Sequential(nn.Linear(64, 16), nn.Linear(16, 10))
    three = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 3))
    assert default_cut(two, (64,)) == "0"  # blocks "0" and "1": the one cut is after "0"
    assert default_cut(three, (64,)) == "1"  # Flatten joins nothing before it; blocks "1" (+ ReLU) and "3"


def test_single_block_model_says_what_a_block_is(tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]) -> None:
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    line = refused(main, capsys, *_train(ok, model=f"{mods}:single"))
    assert line.startswith(_line("--model", "Linear has no cut: its only block with parameters is 'Linear' (Linear)"))
    assert "a block is a child module with parameters" in line.lower() and "nn.Sequential" in line


def test_cut_errors_name_fields_the_cli_knows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ParameterError) as e:
        model_problem(model="mlp", data="synthetic:n=20,shape=8,classes=2", cut="nope", clients=2)
    assert e.value.name == CUT
    for field in (MODEL, INPUT_SHAPE, CUT, STATE, "problem.data", "problem.partition", "problem.clients"):
        assert field in FLAGS, field  # each is shown as its flag on the command line
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    line = refused(main, capsys, *_train(ok, "--cut", "nope"))
    assert line.startswith(_line("--cut", "'nope' is not a cut of this model"))


# --- 5. a forward that raises names the model, a shape mismatch the input shape --------------------------------


def test_forward_that_raises_names_the_model(tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]) -> None:
    # before: "parameter '--input-shape': (64,) does not fit Sequential: boom"
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    want = _line("--model", "the model's forward raised RuntimeError: boom on one sample of shape (64,)")
    for argv in (
        _train(ok, model=f"{mods}:boom"),
        _measure(ok, model=f"{mods}:boom"),
        _verify(ok, model=f"{mods}:boom"),
    ):
        assert refused(main, capsys, *argv) == want
    with pytest.raises(ParameterError) as e:
        model_cuts(f"{mods}:boom", (64,))
    assert e.value.name == MODEL


def test_shape_mismatch_names_the_data_when_no_input_shape_was_given(
    tmp_path: Path, mods: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the user gave no --input-shape: the samples' own shape does not fit, so the data is named, with the way out
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    line = refused(main, capsys, *_train(ok, model=f"{mods}:narrow"))
    assert line.startswith(_line("--data", "samples of shape (64,) do not fit "))
    assert line.endswith("; give --input-shape to reshape them")
    assert "mat1 and mat2 shapes cannot be multiplied (1x64 and 32x16)" in line


# --- 6. --state that is not a checkpoint ---------------------------------------------------------------------


def test_load_state_refuses_what_is_not_a_checkpoint(tmp_path: Path) -> None:
    model = nn.Sequential(nn.Linear(4, 2))
    text = tmp_path / "notckpt.pt"
    text.write_text("this is not a checkpoint")
    with pytest.raises(ParameterError) as e:
        load_state(model, text)
    assert e.value.name == STATE and e.value.rule.startswith(f"{text}: not a PyTorch checkpoint (torch.load: ")
    torch.save({"a": 1}, tmp_path / "dict.pt")
    with pytest.raises(ParameterError, match="not a state_dict"):
        load_state(model, tmp_path / "dict.pt")
    torch.save({"0.weight": torch.zeros(3, 3)}, tmp_path / "other.pt")
    with pytest.raises(ParameterError, match="does not fit the model"):
        load_state(model, tmp_path / "other.pt")
    with pytest.raises(ParameterError, match="no such file"):
        load_state(model, tmp_path / "missing.pt")
    saved = {k: torch.full_like(v, 0.5) for k, v in model.state_dict().items()}
    torch.save({"model": saved}, tmp_path / "ckpt.pt")  # a checkpoint's "model" entry is a state_dict too
    load_state(model, tmp_path / "ckpt.pt")
    assert all(bool((v == 0.5).all()) for v in model.state_dict().values())


def test_measure_state_not_a_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: a KeyError / UnpicklingError traceback
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    text = tmp_path / "notckpt.pt"
    text.write_text("this is not a checkpoint")
    line = refused(main, capsys, *_measure(ok, "--state", str(text)))
    assert line.startswith(_line("--state", f"{text}: not a PyTorch checkpoint (torch.load: "))


# --- 7. partition errors name problem.partition ----------------------------------------------------------------


def test_partition_errors_name_the_partition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: parameter 'scheme'
    ok = _npz(tmp_path / "ok.npz", *_ok_arrays())
    want = _line("--partition", "dirichlet alpha must be a finite number > 0, got -1")
    assert refused(main, capsys, *_train(ok, "--partition", "dirichlet:-1")) == want
    assert refused(main, capsys, *_measure(ok, "--clients", "2", "--partition", "dirichlet:-1")) == want
    with pytest.raises(ParameterError) as e:
        partition(torch.rand(5), 2, "sorted")  # a label scheme on regression targets
    assert e.value.name == "problem.partition"


def test_generator_options_name_the_data(capsys: pytest.CaptureFixture[str]) -> None:
    # before: parameter 'classes' (the generator's argument), a name the command line does not have
    want = _line("--data", "'synthetic:n=20,shape=8,classes=0': classes must be an integer >= 1, got 0")
    assert refused(main, capsys, *_train("synthetic:n=20,shape=8,classes=0")) == want


def test_a_single_class_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # every label 0: softmax over one output is 1, so the cross-entropy and its gradient are 0 at any weights
    X, y = _ok_arrays()
    one = _npz(tmp_path / "one.npz", X, np.zeros_like(y))
    line = refused(main, capsys, *_train(one))
    assert line.startswith(_line("--data", "")) and "one.npz: every label is 0 (one class)" in line
