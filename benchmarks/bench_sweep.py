"""Sweeps (issue 17): the speedup of the process pool and of local Ray over serial, and the per-task overhead of each.

* **Speedup**: one sweep of ``--configs`` small training runs (MU-SplitFed on an exact quadratic, each a few
  tenths of a second) run serially, on the process pool and on a local Ray instance, each into a fresh folder;
  wall time from the call to the table, *including* each executor's start-up (spawning the pool's workers and
  importing torch there; starting Ray). The tables must be identical (clock columns aside). Ideal: the number of
  cores.
* **Start-up**: the process pool's first trivial task (spawn + torch import in the worker initialiser) and
  ``ray.init`` of a local instance, separately.
* **Per-task overhead**: ``--trivial`` tasks that do nothing, through the same driver loop (:func:`drive`) the
  sweeps use, on a warm executor: the cost of a task beyond its work. Plus what storing one result costs
  (:meth:`Store.save`, an atomic JSON write).

All ratios come from the same run. Run: python benchmarks/bench_sweep.py [--configs 12] [--T 300] [--trivial 400]
[--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as `sfltheory sweep` sets it, before torch starts its threads

import torch

from verify.sweep import Sweep, run_sweep
from verify.sweep.entries import init_worker, run_config
from verify.sweep.executors import cpu_count, make_executor
from verify.sweep.runner import drive
from verify.sweep.store import Store

CLOCK = ("seconds", "wall_time")
CPU: dict[str, float] = {}  # CPU seconds the configurations took, summed, per executor (measured in the workers)


def noop(task: Any) -> Any:
    """A trivial task: the executor's overhead alone."""
    return task


def workload(n: int, T: int) -> Sweep:
    """``n`` MU-SplitFed runs on a d = 20 quadratic with 4 clients: tau and seeds vary."""
    taus = [1, 2, 4]
    seeds = list(range(max(1, -(-n // len(taus)))))
    base = {"algorithm": "mu_splitfed", "problem": "quadratic", "d": 20, "M": 4, "T": T, "batch": 8, "P": 2,
            "eta_c": 0.01, "eta_s": 0.01, "device": "cpu"}  # fmt: skip
    return Sweep(name="bench", base=base, grid={"seed": seeds, "tau": taus}, series=("gradnorm2",))


def timed_sweep(sweep: Sweep, executor: str, out: Path, parallel: int) -> tuple[float, list[dict[str, Any]]]:
    t = time.perf_counter()
    s = run_sweep(sweep, executor=executor, out=out, max_parallel=None if executor == "serial" else parallel)
    wall = time.perf_counter() - t
    CPU[str(out.name)] = sum(float(r["cpu_seconds"]) for r in s.table.records if r)
    assert s.failed == 0, [r["error"] for r in s.table.rows if r["status"] == "failed"]
    return wall, [{k: v for k, v in r.items() if k not in CLOCK} for r in s.table.rows]


def overhead(executor: str, n: int, parallel: int) -> dict[str, float]:
    """Start-up (first trivial task, or ray.init) and per-task overhead on the warm executor."""
    t = time.perf_counter()
    ex = make_executor(executor, noop, max_parallel=parallel, initializer=init_worker, tasks=parallel)
    with ex:
        got: list[Any] = []
        drive(ex, list(range(parallel)), lambda x: x, lambda i, r, e: got.append(r), poll=0.05)  # warm every worker
        startup = time.perf_counter() - t
        t = time.perf_counter()
        drive(ex, list(range(n)), lambda x: x, lambda i, r, e: got.append(r), poll=0.05)
        per_task = (time.perf_counter() - t) / n
    assert len(got) == n + parallel
    return {"startup_s": startup, "per_task_ms": 1e3 * per_task}


def store_cost(n: int) -> float:
    """Milliseconds to store one result (atomic JSON write of a train record with a 121-point series)."""
    rec = {"key": "", "kind": "train", "params": {"algorithm": "sl", "T": 120}, "series": ["gradnorm2"],
           "status": "ok", "result": {"last": {"gradnorm2": 0.1}, "series": {"gradnorm2": [0.1] * 121}}}  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        store = Store(d)
        t = time.perf_counter()
        for i in range(n):
            store.save({**rec, "key": f"k{i:05d}"})
        return 1e3 * (time.perf_counter() - t) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", type=int, default=12)
    ap.add_argument("--T", type=int, default=300)
    ap.add_argument("--trivial", type=int, default=400)
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args()
    cores = cpu_count()
    try:
        import ray  # noqa: F401

        executors = ["serial", "process", "ray"]
    except ImportError:
        executors = ["serial", "process"]
        print("ray not installed (pip install sfltheory[ray]): process pool only")
    sweep = workload(a.configs, a.T)
    n = len(sweep.expand())
    print(f"{platform.processor() or platform.machine()}, {cores} cores, load {os.getloadavg()[0]:.1f}; "
          f"{n} configurations (mu_splitfed, d = 20, M = 4, T = {a.T})")  # fmt: skip
    res: dict[str, Any] = {"cores": cores, "configs": n, "T": a.T, "load_before": os.getloadavg()[0]}
    # this process imports torch and the trainer once, as `sfltheory sweep --executor serial` would before its first
    # configuration; the pool's workers and Ray's pay their own imports inside their timings (their start-up)
    run_config("train", {**dict(sweep.base), "T": 1})
    walls: dict[str, float] = {}
    tables = {}
    threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory() as d:
        # serial twice: with torch's default threads (what --executor serial does), and with one thread like each
        # worker of the pool (the baseline of the speedups: the same work per core)
        walls["serial, default threads"], tables["serial"] = timed_sweep(sweep, "serial", Path(d) / "s0", cores)
        print(f"  sweep on serial, {threads} threads {walls['serial, default threads']:7.2f} s")
        torch.set_num_threads(1)
        walls["serial"], _ = timed_sweep(sweep, "serial", Path(d) / "s1", cores)
        torch.set_num_threads(threads)
        print(f"  sweep on serial, 1 thread   {walls['serial']:7.2f} s")
        for ex in executors[1:]:
            walls[ex], tables[ex] = timed_sweep(sweep, ex, Path(d) / ex, cores)
            print(f"  sweep on {ex:17s} {walls[ex]:7.2f} s")
    for ex in executors[1:]:
        assert tables[ex] == tables["serial"], f"{ex} differs from serial"
    res["torch_threads"] = threads
    res["sweep_wall_s"] = walls
    res["speedup"] = {ex: walls["serial"] / walls[ex] for ex in executors[1:]}
    res["speedup_over_default_threads"] = {ex: walls["serial, default threads"] / walls[ex] for ex in executors[1:]}
    res["per_config_serial_s"] = walls["serial"] / n
    res["overhead"] = {ex: overhead(ex, a.trivial, cores) for ex in executors}
    res["store_ms"] = store_cost(200)
    # the work per configuration, in CPU seconds, against serial's: 1 when a worker does the same work (no hidden
    # cost per task); a speedup below the cores with this near 1 means the cores were busy with other work
    res["cpu_ratio"] = {ex: CPU[ex] / CPU["s1"] for ex in executors[1:]}
    res["load_after"] = os.getloadavg()[0]
    print(f"serial, 1 thread: {res['per_config_serial_s']:.2f} s per configuration")
    for ex in executors[1:]:
        print(f"speedup of {ex} over serial with one torch thread (start-up included): {res['speedup'][ex]:.2f}x "
              f"(ideal {cores}x); over serial with torch's {threads} threads: "
              f"{res['speedup_over_default_threads'][ex]:.2f}x")  # fmt: skip
    for ex, o in res["overhead"].items():
        print(f"{ex:8s} start-up {o['startup_s']:6.2f} s, per trivial task {o['per_task_ms']:7.3f} ms")
    for ex in executors[1:]:
        print(f"CPU time of the configurations on {ex} / on serial: {res['cpu_ratio'][ex]:.2f}")
    print(f"storing one result: {res['store_ms']:.3f} ms; load average after: {res['load_after']:.1f}")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
