"""Running a sweep: check every configuration, skip what is done, run the rest on an executor, store each result
atomically as it finishes, show progress, and load the table.

Each configuration is checked before any work (a bad parameter stops the sweep with one line); after that a
configuration that fails is recorded with its error and the others go on. A sweep that is killed resumes: the
next run skips every configuration whose result is stored (and reruns the failed ones).
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

from sfltheory.errors import ParameterError, SflTheoryError

from .entries import check_all, check_recorded, error_line, execute, init_worker
from .executors import Executor, check_options, make_executor
from .spec import MAX_CONFIGS, MAX_TOTAL_ROUNDS, Config, Sweep, load
from .store import Store, Table, build_table

OnResult = Callable[[Config, Mapping[str, Any]], None]
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Summary:
    """What a run of a sweep did: configurations in all, done before, finished now, failed now; the table."""

    name: str
    total: int
    skipped: int
    finished: int
    failed: int
    seconds: float
    executor: str
    out: Path
    table: Table

    def line(self) -> str:
        """The summary in one line: the counts, the time taken, the executor and where the table is."""
        return (f"sweep {self.name}: {self.total} configurations, {self.skipped} done before, {self.finished} "
                f"finished and {self.failed} failed now in {_clock(self.seconds)} ({self.executor}); "
                f"table: {self.out / 'table.csv'}")  # fmt: skip


class Progress:
    """The progress line: finished / running / failed counts and the estimated time left (from this run's
    throughput). On a terminal it rewrites one line; otherwise it prints a line per finished configuration."""

    def __init__(self, name: str, total: int, done_before: int, stream: TextIO | None = None) -> None:
        self.name, self.total, self.before = name, total, done_before
        self.stream = stream
        self.t0 = time.perf_counter()
        self.finished = self.failed = self.running = 0
        self._tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self._last = ""

    def eta(self) -> float | None:
        """Seconds left: the configurations not yet finished at this run's rate so far (None before the first)."""
        n = self.finished + self.failed
        if n == 0:
            return None
        left = self.total - self.before - n
        return (time.perf_counter() - self.t0) / n * left

    def line(self) -> str:
        """The progress in one line: finished of all, running, failed, time elapsed and the estimated time left."""
        eta = self.eta()
        return (f"sweep {self.name}: {self.before + self.finished}/{self.total} finished, {self.running} running, "
                f"{self.failed} failed, elapsed {_clock(time.perf_counter() - self.t0)}, "
                f"ETA {'?' if eta is None else _clock(eta)}")  # fmt: skip

    def show(self, *, force: bool = False) -> None:
        """Show the current line: rewritten in place on a terminal; elsewhere printed only when ``force`` (a
        configuration finished)."""
        if self.stream is None:
            return
        text = self.line()
        if self._tty:
            self.stream.write("\r" + text.ljust(len(self._last)))
            self.stream.flush()
        elif force:
            print(text, file=self.stream, flush=True)
        self._last = text

    def close(self) -> None:
        """End the rewritten line on a terminal with a newline (nothing elsewhere)."""
        if self.stream is not None and self._tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(s: float) -> str:
    s = round(s)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _task(c: Config) -> dict[str, Any]:
    return {"key": c.key, "kind": c.kind, "params": c.params, "series": list(c.series)}


def drive(
    ex: Executor,
    items: Sequence[T],
    task: Callable[[T], Any],
    done: Callable[[T, Any, BaseException | None], None],
    *,
    tick: Progress | None = None,
    poll: float = 1.0,
) -> None:
    """Run ``task(item)`` for every item on ``ex``, at most ``ex.slots`` in flight, calling ``done(item, result,
    error)`` as each finishes (in the order they finish); ``tick.running`` follows the number in flight."""
    queue = deque(items)
    inflight: dict[Any, T] = {}
    while queue or inflight:
        while queue and len(inflight) < ex.slots:
            item = queue.popleft()
            inflight[ex.submit(task(item))] = item
        if tick is not None:
            tick.running = len(inflight)
        for h, result, err in ex.wait(list(inflight), timeout=poll):
            item = inflight.pop(h)
            if tick is not None:
                tick.running = len(inflight)
            done(item, result, err)
        if tick is not None:
            tick.show()


def run_configs(
    name: str,
    configs: Sequence[Config],
    out: str | Path,
    *,
    executor: str = "process",
    address: str | None = None,
    max_parallel: int | None = None,
    num_cpus: float = 1.0,
    num_gpus: float = 0.0,
    columns: Sequence[str] = (),
    sweep: Sweep | None = None,
    progress: TextIO | None = None,
    on_result: OnResult | None = None,
) -> Summary:
    """Run ``configs`` (already expanded) into the folder ``out``; see :func:`run_sweep`. Before any runs: the
    executor's options (a Ray address answers), every configuration and the files it names, and what is recorded."""
    t0 = time.perf_counter()
    configs = list({c.key: c for c in configs}.values())  # each once, in order (same key: same config)
    check_options(executor, address=address, max_parallel=max_parallel)
    check_all(configs)  # every configuration is checked before any work, naming where a bad value was declared
    if sweep is None:
        sweep = Sweep(name=name, num_cpus=num_cpus, num_gpus=num_gpus, record=tuple(columns))
    check_recorded(configs, sweep.series, sweep.record)
    store = Store(out)
    store.write_manifest(sweep, configs)
    todo = [c for c in configs if not store.done(c)]
    skipped = len(configs) - len(todo)
    bar = Progress(name, len(configs), skipped, progress)
    used = "nothing to run"
    if todo:
        try:
            used = _run(store, todo, bar, executor=executor, address=address, max_parallel=max_parallel,
                        num_cpus=num_cpus, num_gpus=num_gpus, on_result=on_result)  # fmt: skip
        except BaseException:  # interrupted, or a record could not be written: the table of what is stored so far
            with contextlib.suppress(OSError, SflTheoryError):  # the error in flight is the one to report
                build_table(name, configs, sweep.columns, store).to_csv(store.root / "table.csv")
            raise
    table = build_table(name, configs, sweep.columns, store)
    table.to_csv(store.root / "table.csv")
    return Summary(name=name, total=len(configs), skipped=skipped, finished=bar.finished, failed=bar.failed,
                   seconds=time.perf_counter() - t0, executor=used, out=store.root, table=table)  # fmt: skip


def _run(store: Store, todo: Sequence[Config], bar: Progress, *, executor: str, address: str | None,
         max_parallel: int | None, num_cpus: float, num_gpus: float, on_result: OnResult | None) -> str:  # fmt: skip
    """Run ``todo`` on the executor, storing each record as it finishes; returns what ran them. A record that
    cannot be written (a full disk) is kept in a fallback file and stops the sweep with that one line
    (:class:`sfltheory.outputs.WriteFailed`); what was stored before stays, and the next run resumes from it."""
    ex = make_executor(executor, execute, max_parallel=max_parallel, address=address, num_cpus=num_cpus,
                       num_gpus=num_gpus, tasks=len(todo),
                       initializer=functools.partial(init_worker, multiprocessing.get_context("spawn").Value("i", 0)),
                       )  # fmt: skip

    def done(c: Config, rec: Any, err: BaseException | None) -> None:
        if err is not None or not isinstance(rec, Mapping):  # the worker died, or could not run it
            why = error_line(err) if err is not None else f"no record ({rec!r})"
            rec = {**_task(c), "status": "failed", "seconds": None, "error": why}
        store.save(rec)  # a failed write raises WriteFailed (the record kept): it stops the sweep
        if rec["status"] == "ok":
            bar.finished += 1
        else:
            bar.failed += 1
        bar.show(force=True)
        if on_result is not None:
            on_result(c, rec)

    try:
        with ex:
            bar.show(force=True)
            # a Ray task given no GPU runs on the CPU even where the node has one ("auto" would take it)
            cpu = executor == "ray" and num_gpus == 0
            drive(ex, todo, (lambda c: {**_task(c), "auto": "cpu"}) if cpu else _task, done, tick=bar)
    finally:
        bar.close()
    return ex.describe()


def run_sweep(
    sweep: Sweep | str | Path,
    *,
    executor: str = "process",
    address: str | None = None,
    max_parallel: int | None = None,
    out: str | Path | None = None,
    progress: TextIO | None = None,
    on_result: OnResult | None = None,
    max_configs: int = MAX_CONFIGS,
    max_rounds: int = MAX_TOTAL_ROUNDS,
) -> Summary:
    """Run a sweep (a :class:`Sweep` or a sweep file) on ``executor`` (``serial``, ``process`` or ``ray``) into
    its folder (``out`` overrides the file's). Configurations already done are skipped; each result is stored
    atomically as it finishes; a failing one is recorded with its error. ``progress``: a stream for the progress
    line (None: silent); ``on_result(config, record)`` is called after each is stored. A sweep of more than
    ``max_configs`` configurations or ``max_rounds`` rounds in all (T summed) is refused before it is expanded
    (:meth:`Sweep.check_size`)."""
    sw = load(sweep) if isinstance(sweep, str | Path) else sweep
    if sw.trend is not None:
        raise ParameterError("sweep.trend", "a trend sweep runs with verify.sweep.trends.run_trend or sfltheory sweep")
    folder = out if out is not None else sw.out
    if folder is None:
        raise ParameterError("sweep.out", "the sweep needs a results folder (out = ... or --out)")
    sw.check_size(max_configs=max_configs, max_rounds=max_rounds)
    configs = sw.expand()
    return run_configs(sw.name, configs, folder, executor=executor, address=address, max_parallel=max_parallel,
                       num_cpus=sw.num_cpus, num_gpus=sw.num_gpus, sweep=sw, progress=progress,
                       on_result=on_result)  # fmt: skip


__all__ = ["Progress", "Summary", "drive", "run_configs", "run_sweep"]
