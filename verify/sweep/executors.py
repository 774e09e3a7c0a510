"""Where configurations run: in this process (``serial``), in a local process pool (``process``), or as Ray
tasks (``ray``) on a local instance started on demand or on an existing cluster.

An executor runs tasks of one function. The driver (:func:`verify.sweep.runner.run_sweep`) keeps at most
:attr:`Executor.slots` tasks in flight, so "running" in the progress line means running, and collects each result
as it finishes. A task that raises, or whose worker dies, comes back as an exception for the driver to record.

* ``process``: ``concurrent.futures.ProcessPoolExecutor`` with the spawn start method (no forked torch state),
  one worker per core by default, each with one torch thread; a pool whose worker died is replaced.
* ``ray``: plain ``ray.remote`` tasks (not Ray Tune) with the configuration's resource needs (``num_cpus``,
  ``num_gpus``, fractional GPUs for small models). Ray is imported only here, only when asked for
  (``pip install sfltheory[ray]``). ``address`` joins a running cluster (``ray start --head`` on the head node, or
  ``"auto"``); without it a local instance is started with ``max_parallel`` (default: all) CPUs and no dashboard,
  and shut down at the end.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import multiprocessing
import os
import socket
import sys
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from sfltheory.errors import ParameterError

EXECUTORS = ("serial", "process", "ray")
Fn = Callable[[Any], Any]
# how long to wait for a Ray head's port to answer before saying it cannot be reached (ray.init itself waits minutes)
CONNECT_TIMEOUT = 10.0
ADDRESS_FORMS = "auto, HOST:PORT (e.g. 10.0.0.1:6379, a port 1..65535) or ray://HOST:PORT"


def parse_address(address: str) -> tuple[str, int] | None:
    """The (host, port) of a Ray address, None for ``auto`` (Ray finds the cluster this machine runs); anything
    else is refused (one line naming ``--address``) before Ray is imported."""
    if not isinstance(address, str) or not address.strip():
        raise ParameterError("--address", f"must be {ADDRESS_FORMS} (got {address!r})")
    a = address.strip()
    if a == "auto":
        return None
    rest = a.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]:6379
    ok_port = port.isascii() and port.isdigit() and 1 <= int(port) <= 65535
    if not sep or not host or not ok_port or any(ch in host for ch in "/ @?#"):
        raise ParameterError("--address", f"must be {ADDRESS_FORMS} (got {address!r})")
    return host, int(port)


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """An address of the right form whose host answers on its port within ``timeout`` seconds (a plain TCP
    connection), or one line naming ``--address``: ``ray.init`` on an unreachable address waits minutes, silent."""
    where = parse_address(address)
    if where is None:
        return
    host, port = where
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as e:  # refused, timed out, no route, a host name that does not resolve
        why = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e) or type(e).__name__)
        raise ParameterError("--address", f"cannot reach {host}:{port} within {timeout:g} s ({why}): is the "
                             "cluster's head (ray start --head) running there?") from None  # fmt: skip


def check_options(name: str, *, address: str | None = None, max_parallel: int | None = None,
                  reach: bool = True) -> None:  # fmt: skip
    """An executor's options, before any work: its name, ``address`` only with ray (its form, and that it answers
    unless not ``reach``), ``max_parallel`` at least 1."""
    if name not in EXECUTORS:
        raise ParameterError("--executor", f"must be one of {', '.join(EXECUTORS)} (got {name!r})")
    if address and name != "ray":
        raise ParameterError("--address", "joins a Ray cluster: use it with --executor ray")
    if max_parallel is not None and (isinstance(max_parallel, bool) or not isinstance(max_parallel, int)
                                     or max_parallel < 1):  # fmt: skip
        raise ParameterError("--max-parallel", f"must be an integer >= 1 (got {max_parallel!r})")
    if address is not None and reach:
        check_address(address)
    elif address is not None:
        parse_address(address)


def cpu_count() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Executor(ABC):
    """Runs tasks of one function, ``slots`` at a time; a context manager that starts and stops its workers."""

    name: str = ""

    def __init__(self, fn: Fn) -> None:
        self.fn = fn

    @property
    @abstractmethod
    def slots(self) -> int:
        """How many tasks run at once."""

    @abstractmethod
    def submit(self, task: Any) -> Any:
        """Start ``task``; returns a handle."""

    @abstractmethod
    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, Any, BaseException | None]]:
        """The handles that finished within ``timeout`` seconds (at least one if any are in flight and finish):
        (handle, result, None) or (handle, None, the exception)."""

    def describe(self) -> str:
        """The executor in a few words for the summary line: its name and how many tasks run at once."""
        return f"{self.name}, {self.slots} at a time"

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.close()
        else:  # interrupted (Ctrl-C, an error in the driver): do not wait for what is running
            self.abort()

    def close(self) -> None:  # noqa: B027 - optional hook
        """Stop the workers once their tasks are done."""

    def abort(self) -> None:
        """Stop now: cancel what is queued or running, then stop the workers."""
        self.close()


class SerialExecutor(Executor):
    """Runs each task in this process when the driver waits for it (the reference, and for debugging)."""

    name = "serial"

    def __init__(self, fn: Fn) -> None:
        super().__init__(fn)
        self._pending: dict[int, Any] = {}
        self._n = 0

    @property
    def slots(self) -> int:
        """One: a task at a time."""
        return 1

    def submit(self, task: Any) -> Any:
        """Queue ``task`` (nothing runs yet); the handle is its number."""
        self._n += 1
        self._pending[self._n] = task
        return self._n

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, Any, BaseException | None]]:
        """Run the first of ``handles`` here, to the end (``timeout`` does not apply), its exception caught."""
        h = handles[0]
        task = self._pending.pop(h)
        try:
            return [(h, self.fn(task), None)]
        except Exception as e:
            return [(h, None, e)]


class ProcessExecutor(Executor):
    """A local pool of spawned worker processes, one torch thread each."""

    name = "process"

    def __init__(self, fn: Fn, *, max_parallel: int | None = None, initializer: Callable[[], None] | None = None,
                 tasks: int | None = None) -> None:  # fmt: skip
        super().__init__(fn)
        n = max_parallel or cpu_count()
        self._workers = max(1, min(n, tasks)) if tasks else n
        self._initializer = initializer
        self._pool: cf.ProcessPoolExecutor | None = None
        self._gen = 0  # which pool: one whose worker died is replaced
        self._gen_of: dict[Any, int] = {}

    @property
    def slots(self) -> int:
        """The pool's workers: ``max_parallel``, else one per usable CPU, at most ``tasks``."""
        return self._workers

    def _ensure(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            ctx = multiprocessing.get_context("spawn")
            self._pool = cf.ProcessPoolExecutor(max_workers=self._workers, mp_context=ctx,
                                                initializer=self._initializer)  # fmt: skip
        return self._pool

    def submit(self, task: Any) -> Any:
        """Send ``task`` to the pool (started on first use, spawned processes; replaced when a worker has died); the
        handle is its future."""
        try:
            f = self._ensure().submit(self.fn, task)
        except cf.process.BrokenProcessPool:  # a worker died: the pool is unusable, start a new one
            self._replace()
            f = self._ensure().submit(self.fn, task)
        self._gen_of[f] = self._gen
        return f

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, Any, BaseException | None]]:
        """The futures done within ``timeout`` seconds; a worker's death fails every task of its pool and replaces
        the pool once."""
        done, _ = cf.wait(handles, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out: list[tuple[Any, Any, BaseException | None]] = []
        for f in done:
            e = f.exception()
            out.append((f, None, e) if e is not None else (f, f.result(), None))
            # a worker died: every task of that pool fails with it; replace the pool once (not a newer one)
            if isinstance(e, cf.process.BrokenProcessPool) and self._gen_of.get(f) == self._gen:
                self._replace()
            self._gen_of.pop(f, None)
        return out

    def _replace(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._gen += 1

    def close(self) -> None:
        """Shut the pool down once its running tasks finish (queued ones are cancelled)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def abort(self) -> None:
        """Terminate the pool's workers now, running tasks included, and cancel the queued ones."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
        if terminate is not None:
            terminate()
            return
        workers = list((getattr(pool, "_processes", None) or {}).values())  # this pool's own workers, before 3.14
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()


class RayExecutor(Executor):
    """Plain Ray tasks with resource needs; a local instance on demand or a cluster by address."""

    name = "ray"

    def __init__(self, fn: Fn, *, address: str | None = None, max_parallel: int | None = None,
                 num_cpus: float = 1.0, num_gpus: float = 0.0) -> None:  # fmt: skip
        super().__init__(fn)
        if address is not None:
            parse_address(address)  # its form, before Ray is imported (run_configs also checks it answers)
        try:
            import ray
        except ImportError:
            raise ParameterError("--executor", "ray is not installed: pip install sfltheory[ray]") from None
        self._ray = ray
        self._started = False
        self._inflight: set[Any] = set()
        if not ray.is_initialized():  # else the caller's instance (e.g. a notebook already connected to a cluster)
            self._init(address, max_parallel)
        res = ray.cluster_resources()
        fits = [int(res.get("CPU", 0) / num_cpus + 1e-9)] if num_cpus > 0 else []
        if num_gpus > 0:
            if res.get("GPU", 0) < num_gpus:
                self.close()
                raise ParameterError("sweep.num_gpus", f"asks for {num_gpus:g} GPU per task; the cluster has "
                                     f"{res.get('GPU', 0):g}")  # fmt: skip
            fits.append(int(res["GPU"] / num_gpus + 1e-9))
        self._slots = max(1, min(fits)) if fits else 1
        if max_parallel:
            self._slots = min(self._slots, max_parallel)
        threads = max(1, int(num_cpus))
        self.resources = {"num_cpus": num_cpus, "num_gpus": num_gpus}  # what each task asks the scheduler for
        self._remote = ray.remote(num_cpus=num_cpus, num_gpus=num_gpus)(_with_threads)
        self._threads = threads
        self._where = address or "local"

    def _init(self, address: str | None, max_parallel: int | None) -> None:
        """Join the cluster at ``address``, or start a local instance; Ray's error becomes one line."""
        ray = self._ray
        try:
            if address:
                with _stderr_held():  # Ray's core logs a line a second while it retries a port that is not Ray's
                    ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            else:
                ray.init(num_cpus=max_parallel or cpu_count(), include_dashboard=False, log_to_driver=False,
                         logging_level=logging.ERROR)  # fmt: skip
        except Exception as e:  # ConnectionError, ValueError, RuntimeError, a timeout: Ray's, in one line
            msg = " ".join(str(e).split()) or type(e).__name__
            if address:
                raise ParameterError("--address", f"cannot join the Ray cluster at {address}: {msg}") from None
            raise ParameterError("--executor", f"cannot start a local Ray instance: {msg}") from None
        self._started = True

    @property
    def slots(self) -> int:
        """How many tasks fit the cluster's CPUs and GPUs at the per-task request, at most ``max_parallel``."""
        return self._slots

    def describe(self) -> str:
        """``ray`` with where it runs (``local`` or the cluster address) and how many tasks run at once."""
        return f"ray ({self._where}), {self._slots} at a time"

    def submit(self, task: Any) -> Any:
        """Start ``task`` as a Ray task with the per-task resources; the handle is its object reference."""
        ref = self._remote.remote(self.fn, task, self._threads)
        self._inflight.add(ref)
        return ref

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, Any, BaseException | None]]:
        """At most one finished task within ``timeout`` seconds, with its result or its error (a task error or a
        dead worker)."""
        ready, _ = self._ray.wait(handles, num_returns=1, timeout=timeout)
        out: list[tuple[Any, Any, BaseException | None]] = []
        for ref in ready:
            self._inflight.discard(ref)
            try:
                out.append((ref, self._ray.get(ref), None))
            except Exception as e:  # a task error, or its worker died
                out.append((ref, None, e))
        return out

    def close(self) -> None:
        """Shut down the Ray instance this executor started or joined (not one the caller had already)."""
        if self._started:
            self._ray.shutdown()
            self._started = False

    def abort(self) -> None:
        """Cancel every task in flight (on a cluster they would run on without the driver), then :meth:`close`."""
        for ref in list(self._inflight):  # on a cluster they would run on after the driver is gone
            try:
                self._ray.cancel(ref, force=True)
            except Exception:  # already finished, or the cluster is gone: nothing left to stop
                pass
        self._inflight.clear()
        self.close()


@contextlib.contextmanager
def _stderr_held() -> Iterator[None]:
    """The process's stderr (file descriptor 2, where Ray's C++ core writes) held in a temporary file while the body
    runs: passed on when it succeeds, dropped when it raises (its one-line error says what went wrong). Used to join
    a cluster only: a local instance's processes, started inside ray.init, would inherit the temporary file."""
    sys.stderr.flush()
    saved = os.dup(2)
    ok = False
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
            ok = True
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            if ok:
                held.seek(0)
                text = held.read()
                if text:
                    os.write(2, text)


def _with_threads(fn: Fn, task: Any, threads: int) -> Any:
    """Run ``fn(task)`` in a Ray worker with ``threads`` torch threads (the task's CPUs)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    except ImportError:  # a task that needs no torch
        pass
    return fn(task)


def make_executor(name: str, fn: Fn, *, max_parallel: int | None = None, address: str | None = None,
                  num_cpus: float = 1.0, num_gpus: float = 0.0, tasks: int | None = None,
                  initializer: Callable[[], None] | None = None) -> Executor:  # fmt: skip
    """The executor called ``name`` (one of :data:`EXECUTORS`) running ``fn`` (its options checked as
    :func:`check_options` does, but for the address's reachability: the caller checked it before any work)."""
    check_options(name, address=address, max_parallel=max_parallel, reach=False)
    if name == "serial":
        return SerialExecutor(fn)
    if name == "process":
        return ProcessExecutor(fn, max_parallel=max_parallel, initializer=initializer, tasks=tasks)
    return RayExecutor(fn, address=address, max_parallel=max_parallel, num_cpus=num_cpus, num_gpus=num_gpus)


__all__ = [
    "ADDRESS_FORMS",
    "CONNECT_TIMEOUT",
    "EXECUTORS",
    "Executor",
    "ProcessExecutor",
    "RayExecutor",
    "SerialExecutor",
    "check_address",
    "check_options",
    "cpu_count",
    "make_executor",
    "parse_address",
]
