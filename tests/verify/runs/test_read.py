"""Reading a run from disk: CSV / JSON Lines logs with settings, run.json, TensorBoard scalars (issue 29)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from sfltheory.errors import ParameterError
from verify.app import main
from verify.runs import MissingExtraError, read_run, require_tensorboard
from verify.runs.tensorboard import parse_tags, read_tensorboard

HAS_TB = __import__("importlib").util.find_spec("tensorboard") is not None


def test_a_csv_with_header_settings(tmp_path: Path) -> None:
    p = tmp_path / "log.csv"
    p.write_text("# my run\n# M=4 K=2, eta_l=0.05 order=fixed\nt,gradnorm2,loss,lr\n0,2.0,1.0,0.1\n1,1.0,0.5,0.1\n")
    log = read_run(p)
    assert log.t.tolist() == [0, 1] and log.gradnorm2.tolist() == [2.0, 1.0] and log.loss is not None
    assert log.settings == {"M": 4.0, "K": 2.0, "eta_l": 0.05, "order": "fixed"}
    assert log.unread == ("lr",) and log.algorithm is None


def test_json_lines(tmp_path: Path) -> None:
    p = tmp_path / "log.jsonl"
    p.write_text('{"t": 0, "gradnorm2": 3}\n\n{"t": 1, "gradnorm2": 2, "test_acc": 0.5}\n')
    log = read_run(p)
    assert log.gradnorm2.tolist() == [3.0, 2.0] and log.test_acc is not None and np.isnan(log.test_acc[0])


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("t,gradnorm2\n1,1\n", "first round must be t = 0"),
        ("t,gradnorm2\n0.5,1\n", "round number"),
        ("t,gradnorm2\n0,1,2\n", "3 values for 2 columns"),
        ("t,gradnorm2\n", "has no rows"),
        ("t,gradnorm2\n0,\n", "is empty"),
    ],
)
def test_bad_rows(tmp_path: Path, content: str, says: str) -> None:
    p = tmp_path / "log.csv"
    p.write_text(content)
    with pytest.raises(ParameterError, match=says):
        read_run(p)


def test_an_unknown_kind_of_file_and_a_missing_path(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("t,gradnorm2\n0,1\n")
    with pytest.raises(ParameterError, match=r"not a run\.json, \.csv"):
        read_run(tmp_path / "log.txt")
    with pytest.raises(ParameterError, match="no such file"):
        read_run(tmp_path / "nope.csv")
    with pytest.raises(ParameterError, match="holds neither"):
        read_run(tmp_path)


def test_tags_are_quantity_equals_tag() -> None:
    assert parse_tags("gradnorm2=train/g2, loss=train/loss") == {"gradnorm2": "train/g2", "loss": "train/loss"}
    with pytest.raises(ParameterError, match="not a quantity"):
        parse_tags("grad=x")
    with pytest.raises(ParameterError, match="QUANTITY=TAG"):
        parse_tags("gradnorm2")


def test_without_the_extra_tensorboard_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(MissingExtraError, match=r"extra 'tensorboard'.*pip install"):
        require_tensorboard("--tensorboard out")
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(MissingExtraError, match="extra 'tensorboard'"):
        read_tensorboard(tmp_path, {})


@pytest.mark.skipif(
    not HAS_TB, reason="the optional extra 'tensorboard' is not installed (pip install -e .[tensorboard])"
)
def test_train_writes_tensorboard_scalars_and_verify_reads_them(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    tb = tmp_path / "tb"
    assert main(["train", "fedavg", "--problem", "quadratic", "T=6", "eta_l=0.05", "K=2", "batch=4", "--out",
                 str(tmp_path / "run"), "--tensorboard", str(tb), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    log = read_run(tb)
    ref = read_run(tmp_path / "run")
    assert log.t.tolist() == ref.t.tolist()
    assert np.allclose(log.gradnorm2, ref.gradnorm2, rtol=1e-6)  # TensorBoard stores float32
    assert "gradnorm2_avg" in log.unread
    settings = ["M=4", "K=2", "eta_l=0.05", "eta_g=1", "L=1", "sigma2=1", "G2=1", "B2=1", "F=1"]
    assert main(["verify", "sl_noniid/thm2", "--run", str(tb), "--tags", "gradnorm2=gradnorm2", *settings]) == 0
    assert capsys.readouterr().out.startswith("sl_noniid/thm2: holds at every T = 1..7")
    assert main(["verify", "sl_noniid/thm2", "--run", str(tb), "--tags", "gradnorm2=nope", *settings]) == 2
    err = capsys.readouterr().err.strip()
    assert "no scalar tag 'nope'" in err and "\n" not in err
