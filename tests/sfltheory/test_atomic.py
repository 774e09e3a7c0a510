"""Issue 24, "SIGKILL leftover temp file": a write killed mid-way leaves its temporary file, and the next write of
the same target removes it; a temporary file of a writer still running is left alone."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from sfltheory.atomic import remove_leftovers, write_atomic

KILLED_MID_WRITE = """
import os, signal, sys
from pathlib import Path
from sfltheory.atomic import atomic_path
with atomic_path(Path(sys.argv[1])) as tmp:
    tmp.write_text("half a checkpoint")
    os.kill(os.getpid(), signal.SIGKILL)  # no finally, no except: the temporary file stays
"""


def test_a_killed_write_leaves_the_target_intact_and_the_next_write_removes_its_temporary(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    write_atomic(target, "the finished run")
    proc = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(target)], check=False)
    assert proc.returncode == -signal.SIGKILL
    left = [p for p in tmp_path.iterdir() if p.name != "run.json"]
    assert len(left) == 1 and left[0].name.startswith(".run.json.")  # what kill -9 leaves
    assert target.read_text() == "the finished run"  # never half-written
    write_atomic(target, "resumed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
    assert target.read_text() == "resumed"


def test_a_temporary_file_of_a_live_writer_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = tmp_path / f".report.md.{sleeper.pid}.abc123.md"
        live.write_text("being written")
        other = tmp_path / ".notes.md.1.x.md"  # another target's temporary: not this write's business
        other.write_text("x")
        assert remove_leftovers(target) == []
        assert live.exists() and other.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    assert remove_leftovers(target) == [live]  # its writer is gone now
    assert other.exists()
