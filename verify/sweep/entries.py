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
``name=value`` pairs sorted for the result; it returns the whole verification.

:func:`execute` wraps either so that a failure becomes a record with its error instead of an exception: one
failing configuration never stops a sweep.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sfltheory.errors import ParameterError
from verify.spec import FLAGS, RUN_KEYS, name_of
from verify.sweep.spec import TRAIN_RECORD, Config
from verify.sweep.store import VERIFY_COLUMNS

# The per-round metrics the algorithms return beyond RoundRecord's fields (``round()`` in verify/train/algorithms;
# ``drift`` is a field): what a train configuration can record as a series. A test reads the algorithms' sources
# and keeps this in step.
ROUND_METRICS = ("drift_client", "drift_server", "batch_loss", "local_loss", "participants", "server_round")

# What runs a configuration (the parser, the trainer, the pipeline) is imported inside the functions that run it:
# it imports torch, and this package promises none (a sweep's parent process only reads files and stores records,
# and `sfltheory` imports the package to build its parser).

RESULT_VERSION = 1


def check(kind: str, params: Mapping[str, Any], seen: set[str] | None = None) -> None:
    """Check a configuration before any work (cheap: builds the algorithm, not the problem) and the files its problem
    names (:func:`check_files`; ``seen``: those already checked); raises ParameterError naming the parameter as the
    sweep file does."""

    def parse(p: Mapping[str, Any]) -> None:
        spec = check_spec(p) if kind == "verify" else run_spec(p)
        check_files(spec.problem, set() if seen is None else seen)

    in_sweep_names(parse, params)


def check_all(configs: Iterable[Config]) -> None:
    """Every configuration checked (:func:`check`) before any runs; an error names the parameter and where the
    sweep file declares it (``([base])``, ``([grid] eta_l = -1)``, ``([[configs]] entry 2)``)."""
    seen: set[str] = set()
    for c in configs:
        try:
            check(c.kind, c.params, seen)
        except ParameterError as e:
            raise ParameterError(e.name, f"{e.rule} ({c.where(e.name)})") from None


def check_files(problem: Any, seen: set[str]) -> None:
    """The files a problem names, read now (each once, ``seen`` holding those done): a quadratic problem file
    (read and checked whole), a model problem's ``.pt``/``.npz`` data (loaded), a dataset's ``root=`` folder, and a
    ``file.py:factory`` model's file. Built-in datasets and models are not loaded here: the runs do."""
    from verify.spec import ModelSpec, QuadraticSpec

    if isinstance(problem, QuadraticSpec) and problem.file is not None and f"q:{problem.file}" not in seen:
        from verify.problems import QuadraticProblem

        QuadraticProblem.from_file(problem.file)
        seen.add(f"q:{problem.file}")
    if not isinstance(problem, ModelSpec):
        return
    if f"d:{problem.data}" not in seen:
        check_data(problem.data)
        seen.add(f"d:{problem.data}")
    if f"m:{problem.model}" not in seen:
        check_model(problem.model)
        seen.add(f"m:{problem.model}")


def check_data(data: str) -> None:
    """A dataset spec's files: a ``.pt``/``.npz`` path is loaded (:func:`verify.data.load_tensors`), a ``root=``
    folder must be one."""
    if Path(data).suffix.lower() in (".pt", ".npz"):
        from verify.data import load_tensors

        load_tensors(data)
        return
    for item in data.partition(":")[2].split(","):
        key, sep, value = item.partition("=")
        if key.strip() == "root" and sep and not Path(value.strip()).is_dir():
            raise ParameterError("problem.data", f"'{data}': no such folder {value.strip()}")


def check_model(model: str) -> None:
    """A model spec's form: a registered name, ``package.module:factory``, or ``file.py:factory`` whose file
    exists (the module is imported by the runs, not here: importing runs the user's code)."""
    from verify.models import MODELS

    if model in MODELS:
        return
    module, sep, attr = model.rpartition(":")
    if not sep or not module or not attr:
        raise ParameterError("problem.model", f"unknown model '{model}'; known: {', '.join(MODELS)} (or "
                             "package.module:factory, or file.py:factory)")  # fmt: skip
    if module.endswith(".py") and not Path(module).is_file():
        raise ParameterError("problem.model", f"no such file: {module}")


def known_columns(kind: str) -> tuple[str, ...]:
    """What a configuration of ``kind`` can record: a train run's series and columns (``run_status`` too), or a
    verification's columns."""
    if kind == "verify":
        return VERIFY_COLUMNS
    from verify.train.base import RECORD_FIELDS

    return (*RECORD_FIELDS, *ROUND_METRICS)


def check_recorded(configs: Sequence[Config], series: Sequence[str], record: Sequence[str]) -> None:
    """``sweep.series`` and ``sweep.record`` name what the configurations record, or they are refused (one line,
    listing the known names) before any runs: an unknown name would record nothing and say nothing."""
    kinds = {c.kind for c in configs}
    params = {k for c in configs for k in c.params}
    if series and "train" not in kinds:
        raise ParameterError("sweep.series", "records a train run's series; a verify configuration records its "
                             "verification (its columns: sweep.record)")  # fmt: skip
    train = known_columns("train")
    for name in series:
        if name not in train:
            raise ParameterError("sweep.series", f"unknown series {name!r} (known: {', '.join(train)})")
    known: list[str] = []
    for k in sorted(kinds):
        known += [*known_columns(k), *(["run_status"] if k == "train" else [])]
    known = list(dict.fromkeys(known))
    for name in record:
        if name not in known and name not in params:
            raise ParameterError("sweep.record", f"unknown column {name!r} (known: {', '.join(known)}, or a "
                                 "parameter of the sweep)")  # fmt: skip


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


def init_worker(slots: Any = None) -> None:
    """A pool worker: one torch thread (the pool runs one configuration per core), idle threads sleep. ``slots``: a
    shared counter (``multiprocessing.Value``) numbering the workers as they start; on a machine with several
    GPUs worker i takes ``cuda:(i mod count)`` as its current device, so ``cuda`` and ``auto`` spread the pool
    over every GPU, one device per worker, rather than piling it onto the first."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    _set_threads(1)
    if slots is not None:
        with slots.get_lock():
            slot = int(slots.value)
            slots.value += 1
        worker_device(slot)


def worker_device(slot: int) -> str | None:
    """Make ``cuda:(slot mod count)`` the current CUDA device where there are several (None, and nothing done,
    with fewer than two); returns the device taken."""
    import torch  # a pool worker imports torch anyway; the sweep's driver never calls this

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count < 2:
        return None
    torch.cuda.set_device(slot % count)
    return f"cuda:{slot % count}"


def _set_threads(n: int) -> None:
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def _host() -> str:
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


# --- train ----------------------------------------------------------------------------------------------------------


# a command-line flag -> the spec field it sets (the first field of a flag: ``--model`` is ``problem.model``); the
# name=value names in FLAGS (``problem.seed`` is ``seed=``) are no flags: ``seed`` stays the run's seed
FIELD_OF_FLAG: dict[str, str] = {}
for _field, _flag in FLAGS.items():
    if _flag.startswith("--"):
        FIELD_OF_FLAG.setdefault(_flag, _field)


def sweep_name(name: str) -> str:
    """The sweep-file name of a spec field (``problem.clients`` -> ``clients``), or of a flag a library names
    (``--model`` -> ``model``): a sweep file has keys, not flags."""
    return name_of(FIELD_OF_FLAG.get(name, name))


def in_sweep_names(parse: Any, params: Mapping[str, Any]) -> Any:
    """``parse(params)``, a spec's one parser, with the parameter of an error named as a sweep file names it
    (:func:`sweep_name`, as :func:`verify.spec.named_by` renames for a front end) and a flag in the rule's text as
    the key it is in a sweep file."""
    try:
        return parse(params)
    except ParameterError as e:
        rule = re.sub(r"--[a-z][a-z0-9-]*", lambda m: sweep_name(m.group()) if m.group() in FIELD_OF_FLAG
                      else m.group(), e.rule)  # fmt: skip
        if sweep_name(e.name) == e.name and rule == e.rule:
            raise
        raise ParameterError(sweep_name(e.name), rule) from None


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

    spec = run_spec(params)
    if spec.record_every is None:  # a sweep's series are read per round (t = 0..T): every round, unless given
        spec = dataclasses.replace(spec, record_every=1)
    r = launch(spec, auto=auto)
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
    "FIELD_OF_FLAG",
    "ROUND_METRICS",
    "check",
    "check_all",
    "check_data",
    "check_files",
    "check_model",
    "check_recorded",
    "check_spec",
    "error_line",
    "execute",
    "in_sweep_names",
    "init_worker",
    "known_columns",
    "measure_locally",
    "run_config",
    "run_spec",
    "sweep_name",
    "worker_device",
]
