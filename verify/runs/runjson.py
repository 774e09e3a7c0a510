"""A run written by ``sfltheory train ... --out DIR`` (``DIR/run.json``, :class:`verify.train.loop.Run`), read back.

Its settings come from the run itself: the algorithm's parameters as it ran them (``config["params"]``, defaults
included), the number of clients and the split (``config["problem"]``), the mini-batch; the records t = 0..T give
||grad f(x^t)||^2, the loss and the test accuracy. A run recorded on a sparser schedule (``record_every`` > 1) is
refused: the theorems' left-hand sides need every t.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sfltheory.datafiles import json_file
from sfltheory.errors import ParameterError
from verify.train.loop import RUN_FORMAT

from .record import RunLog
from .table import from_rows


def run_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a run's configuration states, by canonical name: its parameters, M, d, d_c, d_s and batch."""
    out: dict[str, Any] = dict(config.get("params", {}))
    p = config.get("problem", {})
    for k in ("M", "d", "d_c", "d_s"):
        if isinstance(p.get(k), int | float):
            out[k] = p[k]
    if "d" in out and "d_c" in out and "d_s" not in out:
        out["d_s"] = out["d"] - out["d_c"]
    if isinstance(config.get("batch"), int):
        out["batch"] = config["batch"]
    return out


def read_runjson(path: Path) -> RunLog:
    """``path`` (a ``run.json``) as a :class:`RunLog`; a file of another format is refused in one line."""
    raw = json_file(path, "run")
    if not isinstance(raw, dict) or raw.get("format") != RUN_FORMAT:
        got = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
        raise ParameterError("run", f"{path} is not a run of `sfltheory train --out` (format {got!r}, expected "
                             f"{RUN_FORMAT!r}); a log of your own is a CSV or JSON Lines file")  # fmt: skip
    config, records = raw.get("config"), raw.get("records")
    if not isinstance(config, dict) or not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ParameterError("run", f"{path}: a run record needs a 'config' object and a 'records' list")
    every = config.get("record_every")
    if isinstance(every, dict) and every.get("k", 1) != 1:  # a sparse schedule (sfltheory train --record-every)
        k = every.get("k")
        raise ParameterError("run", f"{path} records ||grad f||^2 every {k} rounds, not at every t: the theorems "
                             "average or minimise it over every t < T; train with --record-every 1")  # fmt: skip
    where = [f"{path}, record {i}" for i in range(len(records))]
    log = from_rows(path, records, where, run_settings(config), "run.json")
    alg = config.get("algorithm")
    status = str(raw.get("status", "complete"))
    return dataclasses.replace(
        log, algorithm=alg if isinstance(alg, str) else None, problem=config.get("problem"), status=status,
        source=f"`sfltheory train` run of {alg} ({path}, {status})", unread=(),
    )  # fmt: skip


__all__ = ["read_runjson", "run_settings"]
