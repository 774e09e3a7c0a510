"""The same small sweep with every executor -- serial, a spawned process pool (through `python -m verify.sweep`, as a
user runs it) and Ray started locally inside the test -- gives identical results, equal to the trainer run by hand;
a pool whose worker dies records the failure and goes on; Ray's resource sizing."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("torch")

from sfltheory.errors import ParameterError
from verify.sweep import load_table, run_sweep
from verify.sweep.executors import ProcessExecutor, RayExecutor

SWEEP = """
[sweep]
name = "same"
series = ["gradnorm2_avg"]

[base]
algorithm = "fedavg"
problem = "quadratic"
sigma2 = 0.5
d = 6
M = 3
T = 5
batch = 4
K = 2

[grid]
eta_l = [0.05, 0.2]
seed = [0, 1, 2]
"""
CLOCK = ("seconds", "wall_time")


def values(rows) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in CLOCK} for r in rows]


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial")
    (d / "same.toml").write_text(SWEEP)
    return run_sweep(d / "same.toml", executor="serial").table


def test_serial_is_the_trainer_run_by_hand(serial) -> None:
    from verify.problems import QuadraticProblem
    from verify.train import get, run

    assert len(serial) == 6 and serial.counts["ok"] == 6
    for row, avg in zip(serial.rows, serial.series("gradnorm2_avg"), strict=True):
        p = QuadraticProblem.from_targets(sigma2=0.5, d=6, M=3, seed=row["seed"])
        ref = run(get("fedavg")(eta_l=row["eta_l"], K=2), p, T=5, batch=4, seed=row["seed"], progress=False)
        assert row["gradnorm2"] == ref.records[-1].gradnorm2 and avg == ref.series("gradnorm2_avg").tolist()


def test_process_pool_from_the_command_line_gives_identical_results(serial, tmp_path) -> None:
    f = tmp_path / "same.toml"
    f.write_text(SWEEP)
    cmd = [sys.executable, "-m", "verify.sweep", str(f), "--executor", "process", "--max-parallel", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[3])
    assert done.returncode == 0, done.stderr
    assert "6 finished and 0 failed now" in done.stdout and "(process, 2 at a time)" in done.stdout
    assert "6/6 finished, 0 running, 0 failed" in done.stderr  # the progress line
    t = load_table(f)
    assert values(t.rows) == values(serial.rows) and t.series("gradnorm2_avg") == serial.series("gradnorm2_avg")
    hosts = {rec["host"] for rec in t.records if rec}
    assert 1 <= len(hosts) <= 2  # worker processes did the work (which one took which depends on the machine's load)


def test_ray_started_locally_gives_identical_results(serial, tmp_path) -> None:
    ray = pytest.importorskip("ray")
    f = tmp_path / "same.toml"
    f.write_text(SWEEP.replace('name = "same"', 'name = "same"\nnum_cpus = 1'))
    assert not ray.is_initialized()
    try:
        s = run_sweep(f, executor="ray", max_parallel=2)
    finally:
        if ray.is_initialized():  # the executor shuts down what it started; make sure, whatever happened
            ray.shutdown()
    assert not ray.is_initialized()
    assert s.executor == "ray (local), 2 at a time" and (s.finished, s.failed) == (6, 0)
    assert values(s.table.rows) == values(serial.rows)
    assert s.table.series("gradnorm2_avg") == serial.series("gradnorm2_avg")


def test_a_dead_worker_is_recorded_and_a_new_pool_takes_the_rest() -> None:
    # eval is picklable by reference, so the spawned workers need no test module; the second task kills its worker
    with ProcessExecutor(eval, max_parallel=1) as ex:
        got = []
        for task in ("1 + 1", "__import__('os')._exit(3)", "2 * 3"):
            h = ex.submit(task)
            [(_, result, err)] = ex.wait([h], timeout=120)
            got.append(result if err is None else type(err).__name__)
    assert got == [2, "BrokenProcessPool", 6]


def test_an_interrupted_pool_stops_its_workers_at_once() -> None:
    import time

    t = time.perf_counter()
    with pytest.raises(KeyboardInterrupt), ProcessExecutor(time.sleep, max_parallel=1) as ex:
        h = ex.submit(60)  # a configuration that would run for a minute
        assert ex.wait([h], timeout=1.0) == []
        raise KeyboardInterrupt  # Ctrl-C in the driver
    assert time.perf_counter() - t < 20  # not the minute: the worker was terminated


class FakeRay(types.SimpleNamespace):
    """Enough of ray's API for the executor's sizing: a cluster with 4 CPUs and 1 GPU."""

    def __init__(self) -> None:
        super().__init__(inits=[], shut=0, up=False, cancelled=[])

    def is_initialized(self) -> bool:
        return self.up

    def init(self, **kw) -> None:
        self.inits.append(kw)
        self.up = True

    def shutdown(self) -> None:
        self.shut += 1
        self.up = False

    def cluster_resources(self) -> dict:
        return {"CPU": 4.0, "GPU": 1.0}

    def remote(self, **kw):
        return lambda fn: types.SimpleNamespace(options=kw, remote=lambda *args: ("ref", len(self.inits), args[1]))

    def cancel(self, ref, force: bool) -> None:
        self.cancelled.append((ref, force))


def test_ray_executor_sizes_by_resources_and_joins_a_cluster(monkeypatch) -> None:
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    ex = RayExecutor(eval, num_cpus=1, num_gpus=0.25)  # fractional GPUs: 4 share the one GPU
    assert ex.slots == 4 and fake.inits[0]["include_dashboard"] is False
    assert ex.resources == {"num_cpus": 1, "num_gpus": 0.25}
    ex.close()
    assert fake.shut == 1
    ex = RayExecutor(eval, address="10.0.0.1:6379", num_cpus=2, max_parallel=8)
    assert fake.inits[-1]["address"] == "10.0.0.1:6379" and ex.slots == 2 and ex.describe().startswith("ray (10.0")
    ex.close()
    with pytest.raises(ParameterError, match="asks for 2 GPU per task; the cluster has 1"):
        RayExecutor(eval, num_gpus=2)
    assert not fake.up  # what it started, it shut down
    fake.up = True  # an instance the caller started is used and left running
    RayExecutor(eval).close()
    assert fake.up
    # interrupted: what is in flight is cancelled (on a cluster it would run on without the driver)
    with pytest.raises(KeyboardInterrupt), RayExecutor(eval, address="auto") as ex:
        refs = [ex.submit("1"), ex.submit("2")]
        raise KeyboardInterrupt
    assert fake.cancelled == [(r, True) for r in refs] or sorted(fake.cancelled) == sorted((r, True) for r in refs)


# --- one device per pool worker (issue 23) ----------------------------------------------------------------------


def test_pool_workers_spread_over_the_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    # three GPUs (patched): workers 0..4 take cuda:0, 1, 2, 0, 1 (slot mod 3); one GPU or none: nothing is set
    import torch

    from verify.sweep.entries import worker_device

    taken: list[int] = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(torch.cuda, "set_device", taken.append)
    assert [worker_device(i) for i in range(5)] == ["cuda:0", "cuda:1", "cuda:2", "cuda:0", "cuda:1"]
    assert taken == [0, 1, 2, 0, 1]
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert worker_device(7) is None and taken == [0, 1, 2, 0, 1]


def test_init_worker_numbers_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    import torch

    import verify.sweep.entries as entries

    seen: list[int] = []
    monkeypatch.setattr(entries, "worker_device", seen.append)
    for var in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # restored after the test
        monkeypatch.setenv(var, "")
    threads = torch.get_num_threads()
    slots = multiprocessing.get_context("spawn").Value("i", 0)
    try:
        for _ in range(3):
            entries.init_worker(slots)
    finally:
        torch.set_num_threads(threads)
    assert seen == [0, 1, 2] and slots.value == 3
