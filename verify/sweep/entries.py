"""What one configuration of a sweep runs: a ``train`` run or a ``verify`` check, and the record it returns.

A ``train`` configuration takes what ``sfltheory train`` takes, as names: ``algorithm``; ``T``, ``batch``, ``seed``;
the algorithm's parameters; the problem (``problem = "quadratic"`` with its target constants ``L``, ``mu``,
``sigma2``, ``eps2``, ``d``, ``d_c``, ``M``, ``F`` and ``noise``, or a quadratic JSON file, or a model problem:
``model``, ``data``, ``cut``, ``clients``, ``partition``, ``loss_fn``, ``input_shape``, ``eval_samples``);
``problem_seed`` (default: ``seed``, as ``train`` does); the time model (``client_time``, ``server_step``,
``bandwidth``); ``loop``, ``float64``, ``device``. It returns the last record of the run and the named series.

A ``verify`` configuration takes ``result``, ``T``, ``seeds``, ``batch``, ``practical`` and constants that override
the bound (as ``sfltheory verify ID name=value``); it returns the whole verification.

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

# train options that are not the algorithm's parameters
RUN_KEYS = ("algorithm", "T", "batch", "seed", "problem", "problem_seed", "noise", "loop", "float64", "device",
            "client_time", "server_step", "bandwidth")  # fmt: skip
MODEL_KEYS = ("model", "data", "cut", "clients", "partition", "loss_fn", "input_shape", "eval_samples")
VERIFY_KEYS = ("result", "T", "seeds", "batch", "practical")
RESULT_VERSION = 1


def check(kind: str, params: Mapping[str, Any]) -> None:
    """Check a configuration before any work (cheap: builds the algorithm, not the problem); raises
    ParameterError naming the parameter."""
    if kind == "verify":
        _verify_args(params)
    else:
        _train_args(params)


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


# --- train -------------------------------------------------------------------------------------------------------


def _int(params: Mapping[str, Any], name: str, default: int, low: int) -> int:
    v = params.get(name, default)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise ParameterError(name, f"must be an integer >= {low} (got {v!r})")
    return v


def _bool(params: Mapping[str, Any], name: str) -> bool:
    v = params.get(name, False)
    if not isinstance(v, bool):
        raise ParameterError(name, f"must be true or false (got {v!r})")
    return v


def _train_args(params: Mapping[str, Any]) -> dict[str, Any]:
    """Split a train configuration into the run's arguments; builds the algorithm (which checks its parameters)."""
    from verify.train import get
    from verify.train.base import RECORD_FIELDS
    from verify.train.setup import QUADRATIC_TARGETS

    from .spec import TRAIN_RECORD

    p = dict(params)
    for k in p:
        if k in (*RECORD_FIELDS, *TRAIN_RECORD) and k not in RUN_KEYS:
            rule = "the loss function of a model problem is loss_fn" if k == "loss" else "a recorded quantity"
            raise ParameterError(k, f"names a column of the table, not a parameter: {rule}")
    cls = get(p.pop("algorithm"))
    out: dict[str, Any] = {
        "T": _int(p, "T", 100, 1),
        "batch": _int(p, "batch", 32, 1),
        "seed": _int(p, "seed", 0, 0),
        "loop": _bool(p, "loop"),
        "float64": _bool(p, "float64"),
    }
    out["problem_seed"] = _int(p, "problem_seed", out["seed"], 0)
    for k in ("T", "batch", "seed", "problem_seed", "loop", "float64"):
        p.pop(k, None)
    problem = p.pop("problem", None)
    if problem is not None and not isinstance(problem, str):
        raise ParameterError("problem", f"must be 'quadratic' or a quadratic problem file (got {problem!r})")
    out["problem"] = problem
    device = p.pop("device", "auto")
    if device not in ("auto", "cpu", "cuda") and not str(device).startswith("cuda:"):
        raise ParameterError("device", f"must be auto, cpu, cuda or cuda:N (got {device!r})")
    out["device"] = device
    out["noise"] = p.pop("noise", None)
    out["time"] = {k: p.pop(k) for k in ("client_time", "server_step", "bandwidth") if k in p}
    model = {k: p.pop(k) for k in MODEL_KEYS if k in p}
    targets = {k: p.pop(k) for k in QUADRATIC_TARGETS if k in p} if problem == "quadratic" else {}
    if problem is not None and model:
        raise ParameterError(next(iter(model)), "describes a model problem; not with problem = ...")
    if problem is None and out["noise"] is not None:
        raise ParameterError("noise", "is the noise law of a quadratic: add problem = 'quadratic'")
    if problem not in (None, "quadratic") and out["noise"] is not None:
        raise ParameterError("noise", "the problem file fixes its noise law")
    if "M" in p and problem is None:
        raise ParameterError("M", "the number of clients of a model problem is clients")
    out["model"], out["targets"] = model, targets
    out["algorithm"] = cls(**p)  # unknown parameters and domains are checked here
    return out


def _problem(a: Mapping[str, Any], auto: str | None) -> Any:
    import torch

    from verify.train import QuadraticProblem
    from verify.train.setup import problem_from

    device = a["device"]
    if device == "auto":
        device = auto or ("cuda" if torch.cuda.is_available() else "cpu")
    if a["problem"] == "quadratic" and a["noise"] is not None:
        kw: dict[str, Any] = {}
        for k, v in a["targets"].items():
            if k in ("d", "d_c", "M"):
                kw[k] = _int(a["targets"], k, 0, 1)
            elif isinstance(v, bool) or not isinstance(v, int | float):
                raise ParameterError(k, f"must be a number (got {v!r})")
            else:
                kw[k] = float(v)
        return QuadraticProblem.from_targets(**kw, seed=a["problem_seed"], device=device, noise=str(a["noise"]))
    m = a["model"]
    kw2: dict[str, Any] = {}
    if a["problem"] is None:
        shape = m.get("input_shape")
        if isinstance(shape, str):
            from sfltheory.cli import parse_shape

            shape = parse_shape(shape)
        kw2 = {"model": m.get("model", "cnn"), "data": m.get("data", "digits"), "cut": m.get("cut"),
               "clients": _int(m, "clients", 4, 1), "partition": m.get("partition", "iid"),
               "loss": m.get("loss_fn", "auto"), "input_shape": tuple(shape) if shape is not None else None,
               "eval_samples": m.get("eval_samples")}  # fmt: skip
        if kw2["cut"] is not None:
            kw2["cut"] = str(kw2["cut"])
    dtype = torch.float64 if (a["float64"] or a["problem"] is not None) else torch.float32
    return problem_from(a["problem"], targets=a["targets"], seed=a["problem_seed"], dtype=dtype, device=device, **kw2)


def _time_model(opts: Mapping[str, Any], M: int) -> Any:
    if not opts:
        return None
    from sfltheory.plan.timemodel import TimeModel

    ct = opts.get("client_time", 1.0)
    times = tuple(float(x) for x in (ct if isinstance(ct, list) else [ct]))
    if len(times) == 1:
        times = times * M
    bw = opts.get("bandwidth")
    return TimeModel(server_step=float(opts.get("server_step", 0.01)), client_time=times,
                     bandwidth=None if bw is None else float(bw))  # fmt: skip


def _run_train(params: Mapping[str, Any], series: Sequence[str], auto: str | None = None) -> dict[str, Any]:
    from verify.train import run

    a = _train_args(params)
    problem = _problem(a, auto)
    tm = _time_model(a["time"], problem.M)
    r = run(a["algorithm"], problem, T=a["T"], seed=a["seed"], batch=a["batch"], batched=not a["loop"],
            time_model=tm, progress=False)  # fmt: skip
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


def _verify_args(params: Mapping[str, Any]) -> dict[str, Any]:
    import sfltheory as st
    from verify.pipeline.experiments import experiment

    p = dict(params)
    rid = p.pop("result")
    experiment(rid)  # a result without an experiment is refused here
    kw: dict[str, Any] = {}  # only what is given: verify_result's own defaults for the rest
    for name, low in (("T", 2), ("seeds", 1), ("batch", 1)):
        if name in p:
            kw[name] = _int(p, name, 0, low)
    if "practical" in p:
        kw["practical"] = _bool(p, "practical")
    for k in VERIFY_KEYS:
        p.pop(k, None)
    used = set(st.get(rid).parameters())
    for k, v in p.items():
        if k not in used:
            raise ParameterError(k, f"result '{rid}' does not use it (it uses: {', '.join(sorted(used))})")
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ParameterError(k, f"must be a number (got {v!r})")
    return {"result": rid, **kw, "overrides": {k: float(v) for k, v in p.items()} or None}


def _run_verify(params: Mapping[str, Any]) -> dict[str, Any]:
    from verify.pipeline.report import clean
    from verify.pipeline.verification import verify_result

    a = _verify_args(params)
    rid = a.pop("result")
    v = verify_result(rid, **{k: v for k, v in a.items() if v is not None})
    return {"version": RESULT_VERSION, "verification": clean(v.to_dict())}


__all__ = [
    "MODEL_KEYS",
    "RUN_KEYS",
    "VERIFY_KEYS",
    "check",
    "error_line",
    "execute",
    "init_worker",
    "measure_locally",
    "run_config",
]
