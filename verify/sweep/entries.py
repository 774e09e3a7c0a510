"""What one configuration of a sweep runs: a ``train`` run or a ``verify`` check, and the record it returns.

A ``train`` configuration is a run's flat form, parsed by :func:`verify.parse.run_spec` (the parser
``sfltheory train`` uses too): ``algorithm``; ``T``, ``batch``, ``seed``; the algorithm's parameters; the problem
(``problem = "quadratic"`` with its target constants ``L``, ``mu``, ``sigma2``, ``eps2``, ``d``, ``d_c``, ``M``,
``F`` and ``noise``, or a quadratic JSON file, or a model problem: ``model``, ``data``, ``cut``, ``clients``,
``partition``, ``loss_fn``, ``input_shape``, ``eval_samples``); ``problem_seed`` (default: ``seed``, as ``train``
does); the time model (``client_time``, ``server_step``, ``bandwidth``); ``loop``, ``float64``, ``device``. It returns
the last record of the run and the named series.

A ``verify`` configuration is a check's flat form (:func:`verify.parse.check_spec`, as ``sfltheory
verify`` parses): ``result``, ``T``, ``seeds``, ``batch``, ``points``, ``practical``, a problem named as above, and
``name=value``s sorted for the result; it returns the whole verification.

:func:`execute` wraps either so that a failure becomes a record with its error instead of an exception: one
failing configuration never stops a sweep.
"""

from __future__ import annotations

import math
import os
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from sfltheory.errors import ParameterError
from verify.spec import RUN_KEYS, name_of, named_by
from verify.sweep.spec import TRAIN_RECORD

# What runs a configuration (the parser, the trainer, the pipeline) is imported inside the functions that run it:
# it imports torch, and this package promises none (a sweep's parent process only reads files and stores records,
# and `sfltheory` imports the package to build its parser).

RESULT_VERSION = 1


def check(kind: str, params: Mapping[str, Any]) -> None:
    """Check a configuration before any work (cheap: builds the algorithm, not the problem); raises
    ParameterError naming the parameter."""
    if kind == "verify":
        check_spec(params)
    else:
        run_spec(params)


def run_config(kind: str, params: Mapping[str, Any], series: Sequence[str] = (), *, auto: str | None = None
               ) -> dict[str, Any]:  # fmt: skip
    """Run one configuration and return its result (plain, JSON-able data). ``auto``: the device ``device = "auto"``
    (the default) means here (None: CUDA when present; a Ray task given no GPU runs on the CPU)."""
    if kind == "verify":
        return _run_verify(params)
    return _run_train(params, series, auto)


def measure_locally(configs: Sequence[Mapping[str, Any]], series: Sequence[str]) -> list[dict[str, Any]]:
    """Train configurations one after the other in this process; the named series of each, as arrays (NaN where a
    value was not finite). An error stops here: this is the reference path of the trend checks, not a sweep."""
    import numpy as np

    out = []
    for c in configs:
        res = run_config("train", c, series)
        out.append({n: np.asarray([np.nan if x is None else x for x in res["series"][n]], dtype=float) for n in series})
    return out


def execute(task: Mapping[str, Any], threads: int | None = None) -> dict[str, Any]:
    """Run ``task`` (``key``, ``kind``, ``params``, ``series``; ``auto``, optional: see :func:`run_config`) and return
    its record: ``status`` "ok" with the ``result``, or "failed" with the ``error`` (one line) and its traceback;
    ``seconds`` and ``host`` either way. ``threads``: torch's intra-op threads in this worker (one in a pool)."""
    if threads is not None:
        _set_threads(threads)
    t0, c0 = time.perf_counter(), time.process_time()
    base = {"key": task["key"], "kind": task["kind"], "params": dict(task["params"]), "series": list(task["series"])}
    try:
        result = run_config(task["kind"], task["params"], task["series"], auto=task.get("auto"))
        out = {**base, "status": "ok", "result": result}
    except Exception as e:  # recorded, and the sweep goes on
        out = {**base, "status": "failed", "error": error_line(e), "traceback": traceback.format_exc(limit=8)}
    return {**out, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0, "host": _host()}


def error_line(e: BaseException) -> str:
    """An exception as one line: its type and message."""
    msg = " ".join(str(e).split())
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def init_worker() -> None:
    """A pool worker: one torch thread (the pool runs one configuration per core), idle threads sleep."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    _set_threads(1)


def _set_threads(n: int) -> None:
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def _host() -> str:
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


# --- train ----------------------------------------------------------------------------------------------------------


def in_sweep_names(parse: Any, params: Mapping[str, Any]) -> Any:
    """``parse(params)``, a spec's one parser, with a field in an error named as a sweep file names it."""
    with named_by(name_of):
        return parse(params)


def run_spec(params: Mapping[str, Any]) -> Any:
    """A train configuration as a :class:`verify.spec.RunSpec`; a column name of the table is refused, as are
    ``out`` and ``checkpoint_every`` (the sweep's store keeps the records)."""

    from verify.parse import run_spec as parse_run
    from verify.train.base import RECORD_FIELDS

    for k in params:
        if k in (*RECORD_FIELDS, *TRAIN_RECORD) and k not in RUN_KEYS:
            rule = "the loss function of a model problem is loss_fn" if k == "loss" else "a recorded quantity"
            raise ParameterError(k, f"names a column of the table, not a parameter: {rule}")
        if k in ("out", "checkpoint_every"):
            raise ParameterError(k, "the sweep's folder stores each configuration's record: not a setting of a run")
    return in_sweep_names(parse_run, params)


def _run_train(params: Mapping[str, Any], series: Sequence[str], auto: str | None = None) -> dict[str, Any]:

    from verify.train.launch import launch

    r = launch(run_spec(params), auto=auto)
    last = {k: _finite(v) for k, v in r.records[-1].to_dict().items()}
    return {
        "version": RESULT_VERSION,
        "run_status": r.status,
        "message": r.message,
        "last": last,
        "series": {name: [_finite(x) for x in r.series(name).tolist()] for name in series},
        "problem": r.config.get("problem", {}),
    }


def _finite(v: Any) -> Any:
    """JSON has no inf/NaN: they become None (a diverged value, or one not recorded)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


# --- verify ------------------------------------------------------------------------------------------------------


def check_spec(params: Mapping[str, Any]) -> Any:
    """A verify configuration as a :class:`verify.spec.CheckSpec` (its problem as a train configuration names it;
    by default the result's own)."""

    from verify.parse import check_spec as parse_check

    return in_sweep_names(parse_check, params)


def _run_verify(params: Mapping[str, Any]) -> dict[str, Any]:

    from verify.pipeline.check import check as check_result
    from verify.pipeline.report import clean

    v = check_result(check_spec(params))
    return {"version": RESULT_VERSION, "verification": clean(v.to_dict())}


__all__ = [
    "check",
    "check_spec",
    "error_line",
    "execute",
    "init_worker",
    "measure_locally",
    "run_config",
    "run_spec",
]
