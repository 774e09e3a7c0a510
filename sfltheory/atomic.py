"""Atomic file writes: a temporary file in the target's directory, renamed over it when complete, so an
interrupted run never leaves a half-written report or figure.

The temporary file is named ``.NAME.PID.RANDOMSUFFIX``: a write killed with SIGKILL (no ``finally`` runs) leaves it
behind, and the next write of the same target removes the ones whose process is gone, so a killed and resumed run
does not collect ``.run.json.*`` files beside its outputs (issue 24: a ``kill -9`` during a checkpoint write left
one per kill)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one owned by another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(path: Path) -> list[Path]:
    """The temporary files of earlier writes of ``path`` whose writer was killed, removed; returns them."""
    gone: list[Path] = []
    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for q in path.parent.iterdir():
            rest = q.name[len(prefix) :] if q.name.startswith(prefix) else ""
            pid, dot, _ = rest.partition(".")
            if dot and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    q.unlink()
                    gone.append(q)
    return gone


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` (with the usual umask permissions)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_path`): readers see the old file or the whole new one."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
