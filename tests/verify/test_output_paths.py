"""Issue 24, cause 1, the torch commands: `measure --out/--run-dir`, `train --out/--tensorboard`, `verify --out` and
a sweep's results folder are checked before any work (one line naming the option, exit 2), and a write that fails
after the work (a full disk) keeps the result in a fallback named in the one-line error."""

from __future__ import annotations

import json
import os
import shutil
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from sfltheory import outputs
from tests import refusal
from tests.refusal import failing_under
from verify.app import main

MEASURE = ["measure", "--model", "cnn", "--data", "synthetic:n=48,shape=1x8x8,classes=10", "--cut", "conv2", "--quiet"]
TRAIN = ["train", "fedavg", "--problem", "quadratic", "T=3", "d=10", "M=2", "sigma2=0.5", "eta_l=0.1", "batch=1"]
VERIFY = ["verify", "sl_noniid/thm1@proof", "--T", "5"]
SWEEP = """
[sweep]
name = "tiny"

[base]
algorithm = "sl"
problem = "quadratic"
L = 1
sigma2 = 0.1
eps2 = 1
d = 10
M = 4
T = 3
batch = 8
K = 2
eta_l = 0.1
"""
ROOT = os.geteuid() == 0  # root writes anywhere: chmod does not make a folder unwritable


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[types.SimpleNamespace]:
    """A file, a folder, and a folder nobody may write (by chmod, or for root by ``os.access``)."""
    f = tmp_path / "afile"
    f.write_text("x")
    d = tmp_path / "adir"
    d.mkdir()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if ROOT:
        real = os.access
        monkeypatch.setattr(outputs.os, "access", lambda p, mode: real(p, mode) and Path(p) != ro)
    yield types.SimpleNamespace(file=f, dir=d, ro=ro)
    ro.chmod(0o700)


def file_cases(p: types.SimpleNamespace) -> list[tuple[str, str]]:
    return [
        (str(p.dir), "is a directory: give a file name"),
        (f"{p.file}/c.json", "is a file, not a directory"),
        (f"{p.file}/deeper/c.json", f"{p.file} is a file, not a directory"),
        (f"{p.ro}/c.json", "permission denied"),
    ]


def dir_cases(p: types.SimpleNamespace) -> list[tuple[str, str]]:
    return [
        (str(p.file), f"{p.file} is a file, not a directory"),
        (f"{p.file}/sub", f"{p.file} is a file, not a directory"),
        (str(p.ro), "permission denied"),
        (f"{p.ro}/new", "permission denied"),
    ]


def saved_in(line: str) -> Path:
    assert "No space left on device; the result is saved in " in line, line
    return Path(line.rsplit("the result is saved in ", 1)[1])


# --- checked before the work --------------------------------------------------------------------------------------
def test_measure_outputs_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify.pipeline import measurement

    monkeypatch.setattr(measurement, "measure_spec", refusal.never)
    for path, why in file_cases(places):
        line = refusal.refused(main, capsys, *MEASURE, "--out", path)
        assert "parameter '--out': " in line and why in line, (path, line)
    for path, why in dir_cases(places):
        line = refusal.refused(main, capsys, *MEASURE, "--run-dir", path)
        assert "parameter '--run-dir': " in line and why in line, (path, line)


def test_train_outputs_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify.train import launch

    monkeypatch.setattr(launch, "launch", refusal.never)
    for path, why in dir_cases(places):
        for option in ("--out", "--tensorboard"):
            line = refusal.refused(main, capsys, *TRAIN, option, path)
            assert f"parameter '{option}': " in line and why in line, (option, path, line)


def test_verify_out_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify.pipeline import job

    monkeypatch.setattr(job, "run_job", refusal.never)
    for path, why in dir_cases(places):
        line = refusal.refused(main, capsys, *VERIFY, "--out", path)
        assert "parameter '--out': " in line and why in line, (path, line)


def test_sweep_folder_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from verify.sweep import runner

    monkeypatch.setattr(runner, "run_sweep", refusal.never)
    f = tmp_path / "tiny.toml"
    for path, why in dir_cases(places):
        f.write_text(SWEEP)
        line = refusal.refused(main, capsys, "sweep", str(f), "--executor", "serial", "--out", path)
        assert "parameter '--out': " in line and why in line, (path, line)
        f.write_text(SWEEP.replace('name = "tiny"', f'name = "tiny"\nout = "{path}"'))  # the file's `out`
        line = refusal.refused(main, capsys, "sweep", str(f), "--executor", "serial")
        assert "parameter 'sweep.out': " in line and why in line, (path, line)


# --- a full disk after the work: the result is kept ---------------------------------------------------------------
def test_measure_out_on_a_full_disk_keeps_the_constants(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outputs, "write_atomic", failing_under(tmp_path, outputs.write_atomic))
    rc = main([*MEASURE, "--what", "F", "--out", str(tmp_path / "c.json")])
    out, err = capsys.readouterr()
    assert rc == 1  # EXIT_WRITE_FAILED: the work was done, its output not written (not bad input: 2)
    assert "F" in out  # the table is printed before the write
    (line,) = err.splitlines()
    assert line.startswith("sfltheory: error: parameter '--out': cannot write ")
    fallback = saved_in(line)
    assert json.loads(fallback.read_text())["constants"]["F"]["value"] > 0
    assert not (tmp_path / "c.json").exists()
    fallback.unlink()


def test_verify_out_on_a_full_disk_keeps_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify.pipeline import report

    out = tmp_path / "rep"
    monkeypatch.setattr(report, "write_atomic", failing_under(out, report.write_atomic))
    rc = main([*VERIFY, "--out", str(out)])
    _, err = capsys.readouterr()
    assert rc == 1  # EXIT_WRITE_FAILED
    (line,) = [x for x in err.splitlines() if x.startswith("sfltheory: error: ")]
    assert line.startswith("sfltheory: error: parameter '--out': cannot write ")
    fallback = saved_in(line)
    assert {"report.md", "report.json", "report.html"} <= {p.name for p in fallback.iterdir()}
    assert json.loads((fallback / "report.json").read_text())["results"]
    shutil.rmtree(fallback)
