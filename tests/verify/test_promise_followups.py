"""Issue 24, follow-ups on the torch half: inputs the property guard (``tests/test_promise_commands.py``) found
answered with a traceback, a spec field instead of a flag, or the wrong flag, and output folders checked for room
before any round. Each expected line is written out from the rule it states, not read back from the code.
"""

from __future__ import annotations

import errno
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.refusal import never, refused
from verify.app import main
from verify.measurespec import MeasureSpec
from verify.models.forward import DATA, INPUT_SHAPE, forward_error
from verify.spec import FLAGS, flag


def _line(name: str, rule: str) -> str:
    return f"sfltheory: error: parameter '{name}': {rule}"


def _npz(path: Path, X: np.ndarray, y: np.ndarray) -> str:
    np.savez(path, X=X, y=y)
    return str(path)


def _good(tmp_path: Path) -> str:
    """24 samples of 4 features, labels 0/1 (both present)."""
    rng = np.random.default_rng(0)
    return _npz(tmp_path / "good.npz", rng.standard_normal((24, 4)).astype(np.float32), np.arange(24) % 2)


def _measure(data: str, *extra: str) -> list[str]:
    return ["measure", "--model", "mlp", "--data", data, "--cut", "1", "--what", "L", "--quiet", *extra]


def _no_room(monkeypatch: pytest.MonkeyPatch, under: Path, free: int) -> None:
    """``shutil.disk_usage`` reports ``free`` bytes for every path under ``under`` (a nearly full disk)."""
    real = shutil.disk_usage

    def usage(p: Any) -> Any:
        u = real(p)
        return type(u)(u.total, u.total - free, free) if str(Path(p).resolve()).startswith(str(under)) else u

    monkeypatch.setattr(shutil, "disk_usage", usage)


# --- 1. --state that is not a checkpoint; measure checks the targets' width ----------------------------------------


@pytest.mark.parametrize("kind", ["npz", "text"])
def test_measure_state_not_a_checkpoint_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    # before: a RuntimeError (an .npz is a zip without torch's layout) / UnpicklingError traceback
    good = _good(tmp_path)
    state = good if kind == "npz" else str(tmp_path / "notes.txt")
    if kind == "text":
        Path(state).write_text("hello\n")
    line = refused(main, capsys, *_measure(good, "--state", state))
    assert line.startswith(_line("--state", f"{state}: not a PyTorch checkpoint (torch.load: ")), line


def test_measure_checks_regression_target_width(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: measured with 10 outputs against 3-wide targets (MSE broadcast them); train refused it.
    # mlp without classes keeps its factory's 10 outputs (verify.models.zoo); the targets hold 3 numbers a sample
    rng = np.random.default_rng(1)
    data = _npz(tmp_path / "reg.npz", rng.standard_normal((24, 4)).astype(np.float32),
                rng.standard_normal((24, 3)).astype(np.float32))  # fmt: skip
    line = refused(main, capsys, *_measure(data))
    assert line == _line("--model", "gives 10 outputs per sample, the targets hold 3 per sample (shape (3,))")


# --- 2. cuts/plan/bound --model: the flag, not the spec field -------------------------------------------------------


@pytest.mark.parametrize("command", [["cuts"], ["plan", "mu_splitfed/thm4.3"]])
def test_model_cuts_name_the_model_flag(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    # before: parameter 'problem.model'
    line = refused(main, capsys, *command, "--model", "nosuch")
    assert line.startswith(_line("--model", "unknown model 'nosuch'")), line


# --- 3. every field a verify error names reaches the command line as its flag (or a name=value) ----------------------


def test_expand_and_problem_seed_have_flags(capsys: pytest.CaptureFixture[str]) -> None:
    # --expand is the cuts/plan option; a run's problem is drawn from seed= (train and verify take no problem_seed)
    line = refused(main, capsys, "cuts", "--model", "mlp", "--input-shape", "4", "--expand", "nosuch")
    assert line == _line("--expand", "no submodule named 'nosuch' in the model")
    assert flag("problem.seed") == "seed"
    line = refused(main, capsys, "train", "fedavg", "--problem", "quadratic", "T=1", "seed=-1")
    assert line == _line("seed", "must be an integer >= 0 (got -1)")


def test_every_dotted_field_raised_in_verify_has_a_flag() -> None:
    # a dotted name is a spec field (problem.x, measure.x, time.x, params.x): the CLI must rename it; the sweep's
    # own sections (sweep.*) and a sweep problem's kind are keys of the file the user wrote, named as written
    root = Path(__file__).resolve().parents[2] / "verify"
    names: set[str] = set()
    for p in root.rglob("*.py"):
        names |= set(re.findall(r'ParameterError\(\s*"([a-zA-Z_]+\.[a-zA-Z_.]+)"', p.read_text()))
    missing = sorted(n for n in names if n not in FLAGS and not n.startswith("sweep.") and n != "problem.kind")
    assert not missing


# --- 4. --tensorboard on a full disk ---------------------------------------------------------------------------------


def test_tensorboard_full_disk_refused_before_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: an OSError traceback after the run; now refused first: T = 1 writes 2 rounds of scalars, 480 bytes
    # (240 a round: 24,015 bytes for 101 rounds measured), and the disk has none free
    import verify.runs
    import verify.train.launch

    monkeypatch.setattr(verify.runs, "require_tensorboard", lambda what: None)
    monkeypatch.setattr(verify.train.launch, "launch", never)
    full = tmp_path / "full"
    full.mkdir()
    _no_room(monkeypatch, full.resolve(), 0)
    tb = full / "tb"
    line = refused(main, capsys, "train", "fedavg", "--problem", "quadratic", "T=1", "--tensorboard", str(tb))
    assert line == _line("--tensorboard", f"cannot write {tb}: the output needs about 480 bytes, {full.resolve()} "
                         "has 0 bytes free")  # fmt: skip


def test_tensorboard_write_failure_keeps_the_scalars(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the disk fills during the write: exit 1 (the work was done), one line naming --tensorboard and the fallback,
    # which holds the scalars; the run's table is on stdout
    import verify.runs

    tb = tmp_path / "tb"
    written: list[Path] = []

    def write(records: Any, out: str | Path) -> Path:
        if Path(out) == tb:
            raise OSError(errno.ENOSPC, "No space left on device")
        (Path(out) / "events.out.tfevents.0").write_text(str(len(list(records))))
        written.append(Path(out))
        return Path(out)

    monkeypatch.setattr(verify.runs, "require_tensorboard", lambda what: None)
    monkeypatch.setattr(verify.runs, "write_tensorboard", write)
    rc = main(["train", "fedavg", "--problem", "quadratic", "T=1", "--quiet", "--tensorboard", str(tb)])
    out, err = capsys.readouterr()
    assert rc == 1 and "status: complete" in out
    [fallback] = written
    try:
        assert err == _line("--tensorboard", f"cannot write {tb}: No space left on device; the result is saved in "
                            f"{fallback}") + "\n"  # fmt: skip
        assert (fallback / "events.out.tfevents.0").read_text() == "2"  # records t = 0 and 1
    finally:
        shutil.rmtree(fallback, ignore_errors=True)


# --- 5. measure's estimator settings are named by their flags -------------------------------------------------------


def test_measure_probes_named_by_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: parameter 'probes' (the estimator's argument name); the trace needs >= 3 Hessian-vector products
    line = refused(main, capsys, *_measure(_good(tmp_path), "--probes", "2"))
    assert line == _line("--probes", "needs at least 3 Hessian-vector products for the trace, got 2")


def test_every_measure_field_is_a_measure_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    options = set(re.findall(r"--[a-zA-Z0-9-]+", capsys.readouterr().out))
    fields = [f for f in MeasureSpec.__dataclass_fields__]
    assert not [f for f in fields if flag(f"measure.{f}") not in options]


# --- 6. data whose X is not one row per sample; a shape mismatch the user did not give ------------------------------


def test_one_dimensional_x_refused_at_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: parameter '--input-shape': () does not fit mlp, though no --input-shape was given
    rng = np.random.default_rng(2)
    data = _npz(tmp_path / "x_1d.npz", rng.standard_normal(24).astype(np.float32), np.arange(24) % 2)
    want = _line("--data", f"{data}: X has shape (24,): expected one row per sample (2 or more dimensions)")
    assert refused(main, capsys, "train", "fedavg", "--model", "mlp", "--data", data, "T=1", "--clients", "2") == want
    assert refused(main, capsys, *_measure(data)) == want


def test_shape_mismatch_names_the_data_unless_input_shape_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a conv net takes images (C, H, W), not rows of 4 features: the data's own shape is to blame, or the
    # --input-shape the user gave
    argv = ["train", "fedavg", "--model", "cnn", "--data", _good(tmp_path), "T=1", "--clients", "2"]
    line = refused(main, capsys, *argv)
    assert line.startswith(_line("--data", "samples of shape (4,) do not fit cnn: ")), line
    assert line.endswith("; give --input-shape to reshape them")
    line = refused(main, capsys, *argv, "--input-shape", "4")
    assert line.startswith(_line("--input-shape", "(4,) does not fit cnn: ")), line
    e = RuntimeError("mat1 and mat2 shapes cannot be multiplied")
    assert forward_error(e, (3,), "m", shape_given=False).name == DATA
    assert forward_error(e, (3,), "m").name == INPUT_SHAPE


# --- 7. --out needs room for the checkpoint and records -------------------------------------------------------------


def test_train_out_room_checked_before_any_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a quadratic of d = 10 (float64) for T = 1: 3 copies x 8 bytes x 10 + 2 records x 750 bytes = 1,740 bytes;
    # the disk has 999 free: refused before round 1, nothing written
    import verify.train.launch

    monkeypatch.setattr(verify.train.launch, "run", never)
    _no_room(monkeypatch, tmp_path.resolve(), 999)
    out = tmp_path / "run"
    line = refused(main, capsys, "train", "fedavg", "--problem", "quadratic", "d=10", "d_c=5", "T=1", "--out", str(out))
    assert line == _line("--out", f"cannot write {out}: the output needs about 1.74 kB, {tmp_path.resolve()} has "
                         "999 bytes free")  # fmt: skip
    assert not out.exists()


def test_output_bytes_by_hand() -> None:
    # independent of the CLI: a float32 problem of 100 parameters, T = 9: 3 x 4 x 100 + 10 x 750
    from verify.train.launch import output_bytes

    class Tiny:
        dtype = torch.float32

        def counts(self) -> Any:
            return type("C", (), {"d": 100, "d_aux": 7})()  # a head is not counted: STATE_COPIES covers it

    assert output_bytes(Tiny(), 9) == 1200 + 7500  # type: ignore[arg-type]


# --- found by the property guard at 1000 examples -----------------------------------------------------------------


def test_truncate_with_nothing_to_cut_is_refused_and_the_run_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --truncate means "keep the longer run, write its first T rounds beside it": with T equal to the saved run's,
    # or with no saved run, it would silently do something else (resume, or a fresh run)
    run = ["train", "fedavg", "--problem", "quadratic", "--quiet", "--out", str(tmp_path / "run")]
    assert main([*run, "T=1"]) == 0
    capsys.readouterr()
    before = (tmp_path / "run" / "run.json").read_bytes()
    line = refused(main, capsys, *run, "T=1", "--truncate")
    assert line.startswith(_line("--truncate", "cuts a longer run short, but the run in ")) and "holds 1 round" in line
    assert (tmp_path / "run" / "run.json").read_bytes() == before
    other = ["train", "fedavg", "--problem", "quadratic", "--quiet", "--out", str(tmp_path / "new"), "T=1"]
    assert "holds none" in refused(main, capsys, *other, "--truncate")
    assert not (tmp_path / "new").exists()


def test_an_empty_result_id_names_the_positional(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(main, capsys, "verify", "", "--T", "2")
    assert line == _line("ID", "must be a non-empty string (got '')")


def test_measure_run_dir_on_a_full_disk_keeps_the_trajectory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch.save on a full disk raises RuntimeError("unexpected pos ..."), not OSError: the points measured so far
    # go to a fallback folder named in the one line, exit 1 (the work was done; its output could not be written)
    import importlib

    track = importlib.import_module("verify.constants.track")  # the package exports a function of that name
    real = track.atomic_path

    def full(path: Path) -> Any:
        if "run" in str(path.parent.name):
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 128 vs 0")
        return real(path)

    monkeypatch.setattr(track, "atomic_path", full)
    rc = main(_measure(_good(tmp_path), "--steps", "1", "--every", "1", "--run-dir", str(tmp_path / "run")))
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    assert rc == 1 and line.startswith(_line("--run-dir", f"cannot write {tmp_path / 'run'}: "))
    kept = Path(line.rsplit("the result is saved in ", 1)[1])
    assert "points" in (kept / "trajectory.json").read_text()
    shutil.rmtree(kept)


def test_a_partition_the_measurement_would_not_use_is_still_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --what L needs no clients, so the partition was never parsed and dirichlet:-1 went through unseen
    line = refused(main, capsys, *_measure(_good(tmp_path), "--partition", "dirichlet:-1"))
    assert line == _line("--partition", "dirichlet alpha must be a finite number > 0, got -1")


def test_verify_at_constants_where_no_condition_bounds_the_step_names_the_constant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # thm4.1's eta <= 1/(64 L (tau + 2 d_s)) at L = 5e-324 is ~1e321, beyond the float range, and so is every other
    # branch: the check has no admissible step to run at; the user gave L, so L is named (not eta, which they did not)
    line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "--T", "2", "--seeds", "2", "L=5e-324")
    assert line.startswith(_line("L", "at these constants no condition of mu_splitfed/thm4.1 bounds eta"))


def test_with_several_constants_given_the_one_a_step_condition_reads_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # sigma_c2 is in no step-size condition of thm4.1 (eta <= 1/(64 L (tau + 2 d_s)), ...), L is: L is named, in
    # whichever order they were given (the guard at 1000 examples found 'L, sigma_c2' as one name)
    for given in (["L=5e-324", "sigma_c2=1.0"], ["sigma_c2=1.0", "L=5e-324"]):
        line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "--T", "2", "--seeds", "2", *given)
        assert line.startswith(_line("L", "at these constants (with sigma_c2 as given) no condition of"))
