"""One entry for a run on disk: the path says which reader (:func:`read_run`).

* a ``run.json`` of ``sfltheory train --out`` (or the folder that holds one);
* a CSV (``.csv``) or JSON Lines (``.jsonl``, ``.ndjson``) log of the user's own;
* a TensorBoard event folder (``events.out.tfevents.*`` inside), with ``tags`` naming the scalars.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from sfltheory.errors import ParameterError

from .record import RunLog
from .runjson import read_runjson
from .table import read_csv, read_jsonl
from .tensorboard import is_event_dir, read_tensorboard

TABLES = {".csv": read_csv, ".jsonl": read_jsonl, ".ndjson": read_jsonl}


def read_run(path: str | Path, *, tags: Mapping[str, str] | None = None) -> RunLog:
    """The run at ``path`` as a :class:`RunLog` (see the module docstring); every row checked, one line per
    problem naming the file, the row and the column."""
    p = Path(path)
    if not p.exists():
        raise ParameterError("run", f"no such file or folder: {p}")
    if tags and not is_event_dir(p):
        raise ParameterError("tags", f"names TensorBoard scalars; {p} is not a TensorBoard event folder")
    if p.is_dir():
        if (p / "run.json").is_file():
            return read_runjson(p / "run.json")
        if is_event_dir(p):
            return read_tensorboard(p, tags or {})
        raise ParameterError("run", f"{p} holds neither a run.json (sfltheory train --out) nor TensorBoard events")
    suffix = p.suffix.lower()
    if suffix in TABLES:
        return TABLES[suffix](p)
    if suffix == ".json":
        return read_runjson(p)
    raise ParameterError("run", f"{p}: not a run.json, .csv, .jsonl or TensorBoard event folder")


def files_read(path: str | Path) -> list[Path]:
    """The files :func:`read_run` reads at ``path``."""
    p = Path(path)
    if p.is_dir():
        return [p / "run.json"] if (p / "run.json").is_file() else sorted(p.glob("events.out.tfevents.*"))
    return [p]


def digest(run: str | Path, constants: Sequence[str | Path] = ()) -> str:
    """The SHA-256 (16 hex digits) of the contents a run check reads: the run's files and the constants files."""
    h = hashlib.sha256()
    for f in [*files_read(run), *(Path(c) for c in constants)]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


__all__ = ["digest", "files_read", "read_run"]
