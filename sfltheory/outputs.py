"""Where a command writes: every output option checked before any work (:func:`check_file`, :func:`check_dir`), and
a result kept when its write still fails during the run (:func:`keep`, :func:`write_text`).

A destination is accepted when it exists or can be created (its nearest existing folder is a folder), is writable
(``os.access`` and a probe file created and removed there, which also catches a read-only or special file system,
and root, whom ``os.access`` always answers yes), and is a file where a file is meant, a folder where a folder is.
A write that still fails (a full disk, a permission changed during the run) goes to a fallback in the system temp
folder, and the one-line error names it: nothing computed is lost.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TypeVar

from .atomic import write_atomic
from .errors import ParameterError

T = TypeVar("T")

PROBE_PREFIX = ".sfltheory-probe-"


class WriteFailed(ParameterError):
    """A write that failed after the work was done: ``path`` could not be written for ``reason``; ``fallback`` is
    where the result was saved instead (None when that failed too)."""

    def __init__(self, name: str, path: Path, reason: str, fallback: Path | None, *, also: str = "") -> None:
        kept = f"the result is saved in {fallback}" if fallback is not None else f"nor could a copy be saved: {also}"
        super().__init__(name, f"cannot write {path}: {reason}; {kept}")
        self.path = path
        self.reason = reason
        self.fallback = fallback


def check_file(name: str, path: str | Path, *, suffixes: Sequence[str] = (), need: int = 0) -> Path:
    """``path`` as the file option ``name`` (``--out``, ``--markdown``, ``--plot``) writes, or a
    :class:`~sfltheory.errors.ParameterError` naming the option and the rule: its folder must exist (a file is not
    a folder), it must not be a folder, and it must be writable. ``suffixes``: the endings accepted (any when
    empty). ``need``: the bytes the output is expected to take; refused when the file system has less free."""
    p = Path(path)
    if suffixes and p.suffix.lower() not in suffixes:
        raise ParameterError(name, f"the file must end in {', '.join(suffixes)} (got {p.name})")
    parent = p.parent
    if not parent.exists():
        above = _existing_above(parent)
        if not above.is_dir():
            raise ParameterError(name, f"{above} is a file, not a directory")
        raise ParameterError(name, f"no such directory: {parent}")
    if not parent.is_dir():
        raise ParameterError(name, f"{parent} is a file, not a directory")
    if p.is_dir():
        raise ParameterError(name, f"{p} is a directory: give a file name")
    if p.exists() and not os.access(p, os.W_OK):
        raise ParameterError(name, f"cannot write {p}: the file is read-only (permission denied)")
    _probe(name, parent, p)
    _room(name, parent, p, need)
    return p


def check_dir(name: str, path: str | Path, *, need: int = 0) -> Path:
    """``path`` as the folder option ``name`` (``--out DIR``) writes into, or a ParameterError naming the option
    and the rule: not a file, and an existing folder or one that can be created (its nearest existing folder is a
    folder), writable, and with ``need`` bytes free (the output's expected size; 0: not checked)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ParameterError(name, f"{p} is a file, not a directory")
    above = _existing_above(p)
    if not above.is_dir():
        raise ParameterError(name, f"{above} is a file, not a directory")
    _probe(name, above, p)
    _room(name, above, p, need)
    return p


def check_outputs(a: argparse.Namespace, *, files: Sequence[str] = (), dirs: Sequence[str] = ()) -> None:
    """A command's output options, by their attribute on ``a`` (``run_dir`` is ``--run-dir``), checked before any
    work: ``files`` with :func:`check_file`, ``dirs`` with :func:`check_dir`; an option not given is skipped."""
    for attrs, check in ((files, check_file), (dirs, check_dir)):
        for attr in attrs:
            value = getattr(a, attr, None)
            if value is not None:
                check(f"--{attr.replace('_', '-')}", value)


def keep(name: str, path: str | Path, write: Callable[[Path], T], *, folder: bool = False) -> T:
    """``write(path)``; when it fails with an OSError (or a :class:`WriteFailed` of a write inside it), ``write``
    again into a fallback in the system temp folder (a folder when ``folder``, else a file with ``path``'s suffix)
    and raise :class:`WriteFailed` naming ``name``, the reason and the fallback: the result is not lost."""
    p = Path(path)
    try:
        return write(p)
    except WriteFailed as e:  # a part of the result (a figure of a report) kept on its own: keep the whole instead
        reason = e.reason
        if e.fallback is not None:
            _remove(e.fallback)
    except OSError as e:
        reason = e.strerror or str(e)
    failed(name, p, reason, write, folder=folder)


def failed(
    name: str, path: str | Path, reason: str, write: Callable[[Path], object], *, folder: bool = False
) -> NoReturn:
    """A write of ``path`` that failed for ``reason`` (already tried, or :func:`write_reason` of what the caller
    caught): ``write`` into a fallback in the system temp folder (a folder when ``folder``) and raise
    :class:`WriteFailed` naming ``name``, the reason and the fallback (or why that failed too)."""
    p = Path(path)
    fallback: Path | None = None
    try:
        fallback = _fallback(name, p, folder=folder)
        write(fallback)
    except (OSError, WriteFailed) as e2:
        also = e2.reason if isinstance(e2, WriteFailed) else e2.strerror or str(e2)
        if fallback is not None:
            _remove(fallback)
        raise WriteFailed(name, p, reason, None, also=f"{fallback or tempfile.gettempdir()}: {also}") from None
    raise WriteFailed(name, p, reason, fallback)


def write_text(name: str, path: str | Path, text: str) -> Path:
    """``text`` written atomically to ``path`` (the option ``name``), kept in a fallback file when that fails
    (:func:`keep`)."""

    def write(q: Path) -> Path:
        write_atomic(q, text)
        return q

    return keep(name, path, write)


def write_reason(e: BaseException, where: Path) -> str:
    """Why a write failed, in words: the OS's reason, or for another error (torch.save's RuntimeError) the full
    disk it means when ``where`` has under 1 MiB left (its message, "unexpected pos ...", says nothing to a user)."""
    if isinstance(e, OSError):
        return e.strerror or str(e)
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        free = None
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    return "No space left on device" if free is not None and free < 1 << 20 else f"torch.save failed ({first})"


def _existing_above(p: Path) -> Path:
    """``p``, or its nearest ancestor that exists (the current folder's for a relative path)."""
    q = Path(os.path.abspath(p))
    while not q.exists() and q.parent != q:
        q = q.parent
    return q


def _probe(name: str, folder: Path, shown: Path) -> None:
    """Refuse ``folder`` unless a file can be created and removed there."""
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ParameterError(name, f"cannot write {shown}: {folder} is not writable (permission denied)")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=PROBE_PREFIX)
    except OSError as e:
        raise ParameterError(name, f"cannot write {shown}: {e.strerror or e}") from None
    os.close(fd)
    os.unlink(probe)


def _room(name: str, folder: Path, shown: Path, need: int) -> None:
    """Refuse ``folder`` when its file system has fewer than ``need`` bytes free (a run that would fill the disk
    half-way is refused before it starts, not when its checkpoint write fails)."""
    if need <= 0:
        return
    try:
        free = shutil.disk_usage(folder).free
    except OSError:  # no figure for this file system: the write itself will tell
        return
    if free < need:
        raise ParameterError(
            name, f"cannot write {shown}: the output needs about {_size(need)}, {folder} has {_size(free)} free"
        )


def _size(n: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} TB"


def _remove(p: Path) -> None:
    if p.is_dir():
        shutil.rmtree(p, ignore_errors=True)
    else:
        p.unlink(missing_ok=True)


def _fallback(name: str, p: Path, *, folder: bool) -> Path:
    prefix = f"sfltheory-{name.lstrip('-').replace('.', '-')}-{p.stem or 'out'}-"
    if folder:
        return Path(tempfile.mkdtemp(prefix=prefix))
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=p.suffix)
    os.close(fd)
    return Path(tmp)


__all__ = [
    "PROBE_PREFIX",
    "WriteFailed",
    "check_dir",
    "check_file",
    "check_outputs",
    "failed",
    "keep",
    "write_reason",
    "write_text",
]
