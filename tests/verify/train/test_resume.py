"""Resume never destroys: a shorter T is refused or written beside the run (``--truncate``), and a run killed at
random points -- during a checkpoint write too -- resumes to the uninterrupted curve without losing a record."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from sfltheory.errors import ParameterError  # noqa: E402
from verify.app import main  # noqa: E402
from verify.problems import QuadraticProblem  # noqa: E402
from verify.train import Run, get, run  # noqa: E402

QUAD = ["fedavg", "--problem", "quadratic", "d=6", "M=3", "sigma2=1", "eta_l=0.1", "K=2", "batch=2", "--quiet"]


def cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("sfltheory: error: "), err
    return lines[0]


def test_a_shorter_T_is_refused_and_nothing_is_rewritten(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run"
    assert cli(capsys, "train", *QUAD, "T=12", "--out", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    line = one_line_error(*cli(capsys, "train", *QUAD, "T=5", "--out", str(out))[::2])
    assert "'T'" in line and "t = 12" in line and "--out" in line and "--truncate" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # run.json and state.pt untouched


def test_truncate_writes_the_shorter_run_beside_the_kept_one(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run"
    assert cli(capsys, "train", *QUAD, "T=12", "--out", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, text, _ = cli(capsys, "train", *QUAD, "T=5", "--out", str(out), "--truncate")
    dest = out / "truncated-T5"
    assert code == 0 and f"run written to {dest}/run.json" in text and "status: complete" in text
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    full = json.loads((out / "run.json").read_text())
    short = json.loads((dest / "run.json").read_text())
    assert short["config"]["T"] == 5 and short["status"] == "complete"
    assert short["records"] == full["records"][:6]
    # the same again is the same file; the original still extends
    assert cli(capsys, "train", *QUAD, "T=5", "--out", str(out), "--truncate")[0] == 0
    assert cli(capsys, "train", *QUAD, "T=14", "--out", str(out))[0] == 0
    assert len(json.loads((out / "run.json").read_text())["records"]) == 15
    # --truncate with a T at or past the saved run has nothing to cut: refused (issue 24: an option is never
    # silently ignored), the run kept as it was; without it, the ordinary resume
    assert cli(capsys, "train", *QUAD, "T=15", "--out", str(out), "--truncate")[0] == 2
    assert len(json.loads((out / "run.json").read_text())["records"]) == 15
    assert cli(capsys, "train", *QUAD, "T=15", "--out", str(out))[0] == 0
    assert len(json.loads((out / "run.json").read_text())["records"]) == 16


def test_truncate_never_overwrites_another_file(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "run"
    assert cli(capsys, "train", *QUAD, "T=8", "--out", str(out))[0] == 0
    (out / "truncated-T3").mkdir()
    (out / "truncated-T3" / "run.json").write_text("mine\n")
    line = one_line_error(*cli(capsys, "train", *QUAD, "T=3", "--out", str(out), "--truncate")[::2])
    assert "'--truncate'" in line and "exists" in line
    assert (out / "truncated-T3" / "run.json").read_text() == "mine\n"


def test_truncate_needs_out_and_a_changed_configuration_is_refused(tmp_path: Path, capsys: Any) -> None:
    line = one_line_error(*cli(capsys, "train", *QUAD, "T=3", "--truncate")[::2])
    assert "'--truncate'" in line and "--out" in line
    out = tmp_path / "run"
    assert cli(capsys, "train", *QUAD, "T=4", "--out", str(out))[0] == 0
    other = [a if a != "eta_l=0.1" else "eta_l=0.2" for a in QUAD]
    line = one_line_error(*cli(capsys, "train", *other, "T=2", "--out", str(out), "--truncate")[::2])
    assert "different configuration" in line


def test_the_library_refuses_a_shorter_T_too(tmp_path: Path) -> None:
    p = QuadraticProblem.from_targets(d=4, M=2, sigma2=1.0, seed=0)
    run(get("fedavg")(eta_l=0.1), p, T=6, batch=2, out=tmp_path, progress=False)
    with pytest.raises(ParameterError, match="t = 6"):
        run(get("fedavg")(eta_l=0.1), p, T=2, batch=2, out=tmp_path, progress=False)
    short = run(get("fedavg")(eta_l=0.1), p, T=2, batch=2, out=tmp_path, progress=False, truncate=True)
    assert len(short.records) == 3 and short.out == str(tmp_path / "truncated-T2")


# --- killed at random points, resumed ------------------------------------------------------------------------------

T, EVERY = 30, 3
# A child that trains fedavg on a quadratic with checkpoints every 3 rounds. Its atomic writes are wrapped: each
# pauses 20 ms between writing the temporary file and renaming it over the target (a window for a kill from
# outside), and the KILL_AT-th write kills the process right there (SIGKILL: no clean-up, no finally).
CHILD = f"""
import contextlib, os, signal, sys, time
import sfltheory.atomic as atomic
import verify.train.loop as loop
from verify.problems import QuadraticProblem
from verify.train import get

out, kill_at = sys.argv[1], int(sys.argv[2])
real, writes = atomic.atomic_path, [0]

@contextlib.contextmanager
def slow_path(path):
    with real(path) as tmp:
        yield tmp  # the temporary file is written when the body returns; the rename follows this block
        writes[0] += 1
        if writes[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.02)

atomic.atomic_path = loop.atomic_path = slow_path  # write_atomic (run.json) looks it up in sfltheory.atomic
p = QuadraticProblem.from_targets(d=6, M=3, sigma2=1.0, seed=0)
print("ready", flush=True)
loop.run(get("fedavg")(eta_l=0.1, K=2), p, T={T}, batch=2, out=out, checkpoint_every={EVERY}, progress=False,
         observe=lambda t, pc, ps: time.sleep(0.01))
"""


def comparable(records: Any) -> list[dict[str, Any]]:
    """Records (or their checkpointed dicts) less the measured wall-clock time (the rest is a function of the seed)."""
    return [{k: v for k, v in (r if isinstance(r, dict) else r.__dict__).items() if k != "wall_time"} for r in records]


def saved_records(out: Path) -> list[dict[str, Any]]:
    ckpt = out / "state.pt"
    return torch.load(ckpt, weights_only=False)["records"] if ckpt.exists() else []


def test_killed_at_random_points_resumes_to_the_same_curve(tmp_path: Path) -> None:
    p = QuadraticProblem.from_targets(d=6, M=3, sigma2=1.0, seed=0)
    whole = comparable(run(get("fedavg")(eta_l=0.1, K=2), p, T=T, batch=2, progress=False).records)
    child, out = tmp_path / "child.py", tmp_path / "run"
    child.write_text(textwrap.dedent(CHILD))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")])}
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    kept = 0

    def launch(kill_at: int, delay: float | None) -> int:
        proc = subprocess.Popen([sys.executable, str(child), str(out), str(kill_at)], stdout=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        if delay is not None:
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)  # a no-op if it has finished
        return proc.wait(timeout=60)

    def check(after: str) -> None:
        nonlocal kept
        recs = comparable(saved_records(out))
        assert recs == whole[: len(recs)], f"{after} (seed {seed}): the saved records are not the curve's prefix"
        assert len(recs) >= kept, f"{after} (seed {seed}): saved records went from {kept} to {len(recs)}"
        kept = len(recs)
        if (out / "run.json").exists():
            on_disk = comparable(Run.load(out / "run.json").records)
            assert on_disk == whole[: len(on_disk)], f"{after} (seed {seed}): run.json is not the curve's prefix"

    # killed during the 4th checkpoint write: the temporary file holds rounds 0..12, state.pt still 0..9
    assert launch(4, None) == -signal.SIGKILL
    check("killed while writing a checkpoint")
    assert kept == 3 * EVERY + 1
    # killed from outside at random moments (rounds, writes, renames, or after it finished)
    for i in range(2):
        launch(0, rng.uniform(0.0, 0.5))
        check(f"random kill {i}")
    # killed while writing run.json at the end: its writes are the checkpoints left, the final state, then run.json
    left = sum(1 for t in range(kept, T + 1) if t % EVERY == 0 or t == T)
    assert launch(left + 2, None) == -signal.SIGKILL
    check("killed while writing run.json")
    assert kept == T + 1
    final = run(get("fedavg")(eta_l=0.1, K=2), p, T=T, batch=2, out=out, checkpoint_every=EVERY, progress=False)
    assert comparable(final.records) == whole
    assert comparable(Run.load(out / "run.json").records) == whole
