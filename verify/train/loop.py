"""The generic training loop: rounds, recording, checkpoints, counters and simulated time.

It knows no algorithm by name. Each round it hands the algorithm a :class:`~verify.train.base.Context`, times
the round, checks that the new global model is finite, and at the rounds of its recording schedule
(:class:`Schedule`; by default every round) records there the full-objective gradient (one pass over the training
set: the cost of one full-batch gradient), the loss, test accuracy, the counters and the simulated wall-clock time
under the planner's straggler model (:class:`sfltheory.plan.timemodel.TimeModel`). ``record_every="auto"`` keeps
recording within a quarter of the run (issue 23: on Fashion-MNIST a record, 60,000 training and 10,000 test
images, took 46 s on the 2-core CPU, a round 1 s).

Checkpoints hold the algorithm's state *and* the records in one file written atomically (temporary file,
then rename), so a run killed at any moment resumes from a consistent point; since every random draw is
derived from (seed, round, keys), the resumed curve equals the uninterrupted one. A configuration that differs
from the checkpoint's is refused, except for ``T`` (a finished run can be extended) and the recording schedule
(it does not change the iterates). A run is never cut short in place: a ``T`` below what the directory holds is
refused, or (``truncate``) the first ``T`` rounds are written to ``OUT/truncated-T<T>/run.json`` and the run in
``OUT`` is left as it was.
"""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import torch

from sfltheory.atomic import atomic_path, write_atomic
from sfltheory.errors import ParameterError
from sfltheory.outputs import failed, write_reason
from sfltheory.plan.timemodel import TimeModel
from verify.ops import tree
from verify.ops.tree import Params
from verify.problems import Problem
from verify.spec import rounds

from .base import RECORD_FIELDS, Context, Counters, RoundRecord, SplitAlgorithm

RUN_FORMAT = "sfltheory.run/1"
DIVERGED = 1e150  # a squared gradient norm past this is overflow on its way (float32 overflows at 3.4e38)
MAX_HOURS = 24.0  # a run (or a check's runs) estimated to take longer is stopped after its first round
BUDGET: contextvars.ContextVar[float] = contextvars.ContextVar("budget_seconds", default=MAX_HOURS * 3600)
RECORD_SHARE = 0.25  # record_every="auto": recording at most this share of a run's wall time (issue 23)
# "auto" records every round when all T + 1 records cost at most this: sparse ones save about what starting the
# command costs (~2 s), and exact quadratics (< 1 ms a record) keep every t, which `verify --run` averages over
CHEAP_RECORDING_S = 5.0


class TooLong(ParameterError):
    """A run whose first round says it would take longer than the time budget (:func:`time_budget`): refused
    after that round, before the second, with nothing written; a job stops at it (it is bad input, not a
    failure of the check)."""


@contextmanager
def time_budget(hours: float) -> Iterator[None]:
    """Runs inside take at most about ``hours`` each (``--max-hours``; default :data:`MAX_HOURS`)."""
    token = BUDGET.set(hours * 3600)
    try:
        yield
    finally:
        BUDGET.reset(token)


def duration(seconds: float) -> str:
    """``seconds`` in words: 40 seconds, 12 minutes, 5.2 hours, 31 days, 4.1 years."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.2g} {unit}" if seconds < 10 * size else f"{seconds / size:.0f} {unit}"
    return f"{seconds:.2g} seconds"


def check_budget(rounds: int, per_round: float, *, name: str = "T", T: int | None = None, what: str = "rounds",
                 took: str = "round 1") -> None:  # fmt: skip
    """Refuse ``rounds`` more rounds of ``per_round`` seconds each (as ``took`` measured) when they would take
    longer than the time budget: :class:`TooLong` naming ``name`` (the size that sets the count)."""
    seconds = rounds * per_round
    if seconds > BUDGET.get():
        hours = BUDGET.get() / 3600
        count = T if T is not None else rounds
        raise TooLong(name, f"{name} = {count} {what} would take about {duration(seconds)} ({took} took "
                      f"{per_round:.2g} s; the limit is {hours:g} h): raise --max-hours or lower {name}")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Run:
    """A run: its full configuration, its records (at every t = 0..T, or at the t of its recording schedule:
    ``config["record_every"]``, ``config["recording"]``), and how it ended.

    ``status``: ``"complete"``, ``"diverged"`` (stopped at the first non-finite model or overflowing record; the
    records before it are kept) or ``"running"`` (a checkpoint of an unfinished run)."""

    config: dict[str, Any]
    records: tuple[RoundRecord, ...]
    status: str
    message: str = ""
    format: str = RUN_FORMAT
    out: str | None = field(default=None, compare=False)  # the folder its run.json was written to, if any

    def series(self, name: str) -> np.ndarray:
        """One recorded quantity over t = 0..(the last recorded t) as an array, indexed by t: NaN where it was not
        recorded (a round the schedule skipped, or a quantity the record lacks). Every round recorded: one entry
        per record."""
        out = np.full(self.records[-1].t + 1 if self.records else 0, np.nan)
        for r in self.records:
            v = getattr(r, name) if name in RECORD_FIELDS else r.extra.get(name)
            if v is not None:
                out[r.t] = float(v)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The run as JSON-ready data: format, status, message, configuration and every record (flat dicts)."""
        return {
            "format": self.format,
            "status": self.status,
            "message": self.message,
            "config": self.config,
            "records": [r.to_dict() for r in self.records],
        }

    def to_text(self) -> str:
        """The run as its run.json holds it."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False, default=_jsonable) + "\n"

    def to_json(self, path: str | Path) -> None:
        """Write the run to ``path`` (a run.json) atomically."""
        write_atomic(Path(path), self.to_text())

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Run:
        """The run a run.json holds; a record's keys beyond the fields go to its ``extra``."""
        if raw.get("format") != RUN_FORMAT:
            raise ParameterError("run", f"not a run record (format {raw.get('format')!r}, expected {RUN_FORMAT})")
        recs = []
        for r in raw["records"]:
            known = {k: r[k] for k in RECORD_FIELDS if k in r}
            extra = {k: v for k, v in r.items() if k not in RECORD_FIELDS}
            recs.append(RoundRecord(**known, extra=extra))
        return cls(config=raw["config"], records=tuple(recs), status=raw["status"], message=raw.get("message", ""))

    @classmethod
    def load(cls, path: str | Path) -> Run:
        """The run in the run.json at ``path``; an unreadable file is a ``ParameterError`` naming ``run``."""
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ParameterError("run", f"cannot read {path} ({type(e).__name__})") from None
        return cls.from_dict(raw)


def _jsonable(o: Any) -> Any:
    if isinstance(o, torch.Tensor | np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, torch.dtype | torch.device):
        return str(o)
    raise TypeError(f"not JSON-serialisable: {type(o).__name__}")


SCHEDULE_KEYS = ("record_every", "recording")  # where a run's configuration states its recording schedule


def config_hash(config: Mapping[str, Any]) -> str:
    """A hash of the configuration without ``T`` (so a run can be extended) and without run-time options (the
    recording schedule among them: it does not change the iterates)."""
    keep = {k: v for k, v in config.items() if k not in ("T", "progress", "checkpoint_every", *SCHEDULE_KEYS)}
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=_jsonable).encode()).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True)
class Schedule:
    r"""When a run records (:math:`\|\nabla f(x^t)\|^2` on the whole training set, the loss, the test accuracy):
    at t = 0, at every t that is a multiple of ``k`` and at t = T (``k = 1``: every round). ``auto``: chosen by
    :func:`auto_schedule` from ``record_s`` (one record's seconds, timed at t = 0) and ``round_s`` (the first
    round's); ``since``: the round from which it holds (a resumed run given another ``k``; the records before
    follow the saved schedule)."""

    k: int
    auto: bool = False
    since: int = 0
    record_s: float | None = None
    round_s: float | None = None

    def records(self, t: int, T: int) -> bool:
        """Whether the global model after round t - 1 (x^t) is recorded."""
        return t == 0 or t % self.k == 0 or t == T

    def to_dict(self) -> dict[str, Any]:
        """The schedule as data (saved in checkpoints and read back by :meth:`saved`)."""
        return dataclasses.asdict(self)

    @classmethod
    def saved(cls, raw: Mapping[str, Any] | None) -> Schedule:
        """The schedule a checkpoint holds; one written before schedules existed recorded every round."""
        return cls(**raw) if raw is not None else cls(k=1)


def fits(k: int, T: int, record_s: float, round_s: float) -> bool:
    """Whether a schedule of ``k`` keeps recording within :data:`RECORD_SHARE` of a run of ``T`` rounds: its
    n = 1 + ceil(T / k) records (t = 0, the multiples of k, T) take n rec / (T round + n rec) <= 1/4 of it."""
    n = 1 + -(-T // k)
    return n * record_s <= RECORD_SHARE * (T * round_s + n * record_s)


def auto_schedule(record_s: float, round_s: float, T: int) -> Schedule:
    """The smallest ``k`` that :func:`fits` (one record's seconds ``record_s``, one round's ``round_s``); k = T (t = 0
    and t = T only) when none does; k = 1 when recording all T + 1 costs at most :data:`CHEAP_RECORDING_S`. In the
    steady state one record per k rounds takes rec / (k round + rec) <= 1/4 <=> k >= 3 rec / round; counting t = 0
    and t = T, which are always recorded, is exact at any T (T = 100, a record 10 s, a round 1 s: k = 50, 30 s of
    130; k = 3 rec / round = 30 would take 50 s of 150, 33%)."""
    lo, k = 1, T  # fits(k) holds from some k on (the records fall as k grows): the smallest, by bisection
    if (T + 1) * record_s <= CHEAP_RECORDING_S:
        k = 1
    while lo < k:
        mid = (lo + k) // 2
        lo, k = (lo, mid) if fits(mid, T, record_s, round_s) else (mid + 1, k)
    return Schedule(k=k, auto=True, record_s=record_s, round_s=round_s)


def _seconds(x: float) -> str:
    return f"{x:.1f} s" if x >= 1 else f"{x:.2g} s"


def recording_text(problem: Mapping[str, Any], s: Schedule, T: int) -> str:
    """The run header's line saying what is recorded when (``problem``: the problem's ``describe()``), e.g.
    ``recording ||grad f||^2 and the loss on all 60000 training samples and the test accuracy on 10000 at t = 0,
    every 25 rounds and t = 100 (auto: one record 46.2 s, one round 1.0 s; recording <= 25% of the run)``."""
    on = problem.get("gradient_on")
    if on == "all training samples" and isinstance(problem.get("client_sizes"), list):
        on = f"all {sum(problem['client_sizes'])} training samples"
    what = "||grad f||^2 and the loss " + (f"on {on}" if on else "(exact)")
    if problem.get("test_samples"):
        what += f" and the test accuracy on {problem['test_samples']}"
    if s.k == 1 or T == 1:
        when = f"at every t = 0..{T}"
    elif s.k >= T:
        when = f"at t = 0 and t = {T} only (k = {s.k} >= T)"
    else:
        when = f"at t = 0, every {s.k} rounds and t = {T}"
    if s.since:
        when += f" (this schedule from t = {s.since}; the saved records before it kept)"
    how = f"record_every = {s.k}"
    if s.auto:
        rec, rnd = s.record_s or 0.0, s.round_s or 0.0
        if s.k == 1 and (T + 1) * rec <= CHEAP_RECORDING_S:
            share = f"recording every round costs at most {CHEAP_RECORDING_S:g} s in all"
        elif fits(s.k, T, rec, rnd):
            share = f"recording <= {RECORD_SHARE:.0%} of the run"
        else:
            share = f"recording > {RECORD_SHARE:.0%} even so: t = 0 and t = T are always recorded"
        how = f"auto: one record {_seconds(rec)}, one round {_seconds(rnd)}; {share}"
    avg = "" if s.k == 1 else "; gradnorm2_avg/min are over the recorded t only, the theorems' over every t < T"
    return f"recording {what} {when} ({how}){avg}"


@dataclass
class _Recorder:
    """Builds the records: the gradient at the global model, average and minimum over the records, counters, time."""

    problem: Problem
    records: list[RoundRecord] = field(default_factory=list)

    def record(
        self, t: int, pc: Any, ps: Any, counters: Counters, sim: float, wall: float, metrics: Mapping[str, float]
    ) -> RoundRecord:
        g = self.problem.full_gradient(pc, ps)
        gc, gs = g.sqnorm_client, g.sqnorm_server
        g2 = gc + gs
        prev = [r.gradnorm2 for r in self.records]
        metrics = dict(metrics)
        drift = metrics.pop("drift", None)
        ev = self.problem.evaluate(pc, ps) if math.isfinite(g2) else {}
        rec = RoundRecord(
            t=t,
            gradnorm2=g2,
            gradnorm2_client=gc,
            gradnorm2_server=gs,
            gradnorm2_avg=(sum(prev) + g2) / (len(prev) + 1),
            gradnorm2_min=min([*prev, g2]),
            loss=g.loss,
            test_acc=ev.get("test_acc"),
            drift=drift,
            sim_time=sim,
            wall_time=wall,
            extra={k: float(v) for k, v in metrics.items()},
            **counters.as_dict(),
        )
        self.records.append(rec)
        return rec


def default_time_model(M: int) -> TimeModel:
    """Equal clients (1 s per round on the whole model), a server step of 0.01 s on the whole model, free
    links: a stated default so every run reports a simulated time; give your own for stragglers."""
    return TimeModel(server_step=0.01, client_time=(1.0,) * M)


def run(
    algorithm: SplitAlgorithm,
    problem: Problem,
    *,
    T: int,
    seed: int = 0,
    batch: int = 32,
    batched: bool = True,
    out: str | Path | None = None,
    checkpoint_every: int = 10,
    time_model: TimeModel | None = None,
    progress: bool = True,
    extra_config: Mapping[str, Any] | None = None,
    observe: Callable[[int, Params, Params], None] | None = None,
    truncate: bool = False,
    record_every: int | str = 1,
    announce: Callable[[str], None] | None = None,
) -> Run:
    """Run ``algorithm`` on ``problem`` for ``T`` rounds; with ``out``, checkpoint there and resume.

    ``batched``: use the algorithm's batched path (clients vmapped) where it has one; the per-client loop is
    the reference. Records are taken at the global model before the first round and after the rounds of the
    schedule (:class:`Schedule`): ``record_every`` k records t = 0, the multiples of k and t = T (1: every t =
    0..T); ``"auto"`` times the record at t = 0 and the first round and takes :func:`auto_schedule`'s k. A resumed
    run keeps its saved schedule under ``"auto"``, and takes a given k from the resume point on. Every round checks
    that the model is finite (a NaN/inf stops the run as diverged at once); the threshold :data:`DIVERGED` on
    ||grad f||^2 is checked where it is recorded. The schedule is stated in the configuration (``record_every``
    and the sentence ``recording``, :func:`recording_text`), which ``announce`` receives after the first round of
    this call (once ``"auto"`` has chosen, and the time estimate has accepted the run: a refused run says nothing
    else), before the second.
    ``observe(t, client_params, server_params)`` is called at each global model recorded in this call (t = 0 on
    a fresh start, then at the recorded rounds), e.g. to measure constants along the trajectory; it must not modify
    them. On a resumed run it sees only the rounds run now.

    A ``T`` below the rounds ``out`` already holds is refused (nothing saved is overwritten), or with ``truncate``
    the saved records at t <= T are written to :func:`truncated_dir` and returned; the run in ``out`` is kept.
    """
    for name, v, low in (
        ("T", T, 1),
        ("seed", seed, 0),
        ("batch", batch, 1),
        ("checkpoint_every", checkpoint_every, 1),
        ("record_every", 1 if record_every == "auto" else record_every, 1),  # or "auto"
    ):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ParameterError(name, f"must be an integer >= {low} (got {v!r})")
    rounds("T", T)
    tm = time_model or default_time_model(problem.M)
    if tm.clients != problem.M:
        raise ParameterError("client_time", f"the time model has {tm.clients} clients, the problem {problem.M}")
    tm = dataclasses.replace(tm, batch=batch, messages=algorithm.messages())
    round_time = float(tm.round_time(algorithm.server_steps(problem.M), problem.client_fraction, problem.activation))
    config: dict[str, Any] = {
        "algorithm": algorithm.name,
        "paper": algorithm.paper,
        "source": algorithm.source,
        "results": list(algorithm.results),
        "params": algorithm.config(),
        "T": T,
        "seed": seed,
        "batch": batch,
        "batched": bool(batched and algorithm.batchable),
        "problem": problem.describe(),
        "time_model": tm.describe(),
        "device": str(problem.device),
        "torch": torch.__version__,
        **(extra_config or {}),
    }
    key = config_hash(config)
    outdir = Path(out) if out is not None else None
    ckpt = outdir / "state.pt" if outdir else None

    def scheduled(s: Schedule) -> Schedule:  # stated in the configuration (announced after the first round)
        config.update(record_every=s.to_dict(), recording=recording_text(config["problem"], s, T))
        return s

    recorder = _Recorder(problem)
    counters = Counters()
    sim = wall = 0.0
    sched: Schedule | None = None if record_every == "auto" else Schedule(k=int(record_every))
    record_s = 0.0  # the last record's seconds, for the time estimate after the first round
    if ckpt is not None and ckpt.exists():
        saved = _load_checkpoint(ckpt, key)
        state = saved["state"]
        recorder.records = [RoundRecord(**r) for r in saved["records"]]
        counters = Counters(**saved["counters"])
        sim, wall = saved["sim"], saved["wall"]
        t0 = int(saved.get("t", recorder.records[-1].t))  # a checkpoint without it recorded every round
        old = Schedule.saved(saved.get("schedule"))
        record_s = old.record_s or 0.0
        if sched is None or sched.k == old.k:
            sched = old
        else:
            sched = Schedule(k=sched.k, since=t0)
        scheduled(sched)
        if saved["status"] == "diverged":
            return Run(config=config, records=tuple(recorder.records), status="diverged", message=saved["message"])
        if t0 > T:
            return _cut_short(config, recorder.records, saved["status"], ckpt.parent, T, truncate, t0)
        if truncate:  # nothing to cut: the run would be extended or resumed while --truncate says keep it as it is
            raise ParameterError("truncate", f"cuts a longer run short, but the run in {outdir} holds "
                                 f"{t0} rounds and T = {T}: drop --truncate")  # fmt: skip
    elif truncate:
        raise ParameterError("truncate", f"cuts a saved run short, but {outdir or 'no --out'} holds none: drop it")
    else:
        state = algorithm.init_state(problem, problem.init())
        pc, ps = algorithm.global_params(state)
        if sched is not None:
            scheduled(sched)
        start = time.perf_counter()
        recorder.record(0, pc, ps, counters, sim, wall, {})
        record_s = time.perf_counter() - start  # "auto" chooses k from it (and the first round's time, below)
        if observe is not None:
            observe(0, pc, ps)
        t0 = 0
    last_ckpt: int | None = t0 if ckpt is not None and ckpt.exists() else None  # the round the checkpoint holds

    status, message = "complete", ""
    done = t0  # the round the state is at
    rec: RoundRecord | None = None
    bar = None  # shown from round 2: a run refused after round 1 (check_budget) prints nothing but its one line
    try:
        for t in range(t0, T):
            ctx = Context(
                problem=problem,
                t=t,
                seed=seed,
                batch_size=batch,
                batched=bool(batched and algorithm.batchable),
                counters=counters,
            )
            start = time.perf_counter()
            metrics = algorithm.round(t, state, ctx)
            after = time.perf_counter()
            took = after - start
            wall += took
            sim += round_time
            done = t + 1
            if sched is None:  # "auto" on a fresh run: the record at t = 0 and this first round give k
                sched = scheduled(auto_schedule(record_s, took, T))
            pc, ps = algorithm.global_params(state)
            finite = tree.all_finite(pc) and tree.all_finite(ps)
            recorded = finite and sched.records(t + 1, T)
            new = recorder.record(t + 1, pc, ps, counters, sim, wall, metrics) if recorded else None
            if not finite or (new is not None and (not math.isfinite(new.gradnorm2) or new.gradnorm2 > DIVERGED)):
                if new is not None:
                    recorder.records.pop()
                status = "diverged"
                what = "the model has NaN/inf entries" if new is None else f"||grad f||^2 = {new.gradnorm2:.3g}"
                kept_to = recorder.records[-1].t
                message = (
                    f"diverged in round {t}: {what}; records {'0..' if sched.k == 1 else 'at t <= '}{kept_to} are "
                    "kept. Reduce the step size (check-lr gives the theorem's largest admissible one)"
                )
                break
            if new is not None:
                rec = new
                record_s = time.perf_counter() - after
                if observe is not None:
                    observe(t + 1, pc, ps)
            if t == t0 and T - t0 > 1:  # this call's first round, timed with its record (or 1/k of one): rest estimated
                took_text = f"round {t0 + 1}" if sched.k == 1 else f"round {t0 + 1} and 1/{sched.k} of a record"
                check_budget(T - t0, took + record_s / sched.k, T=T, took=took_text)
            if t == t0:  # announced now: "auto" is known, and a run refused above has printed nothing but its error
                if announce is not None:
                    announce(config["recording"])
                bar = _progress(progress, T, t0, f"{algorithm.name}")
            if bar is not None:
                bar.update(1)
                if rec is not None:
                    bar.set_postfix_str(f"|grad f|^2={rec.gradnorm2:.3g} loss={rec.loss:.3g}", refresh=False)
            if ckpt is not None and ((t + 1) % checkpoint_every == 0 or t + 1 == T):
                try:
                    _save_checkpoint(ckpt, key, state, recorder.records, counters, sim, wall, "running", "", done,
                                     sched)  # fmt: skip
                except (OSError, RuntimeError) as e:  # a full disk: torch.save raises RuntimeError
                    partial = Run(config=config, records=tuple(recorder.records), status="running")
                    kept(ckpt.parent, e, partial, last_ckpt, at=done)
                last_ckpt = t + 1
    finally:
        if bar is not None:
            bar.close()
    result = Run(config=config, records=tuple(recorder.records), status=status, message=message,
                 out=None if outdir is None else str(outdir))  # fmt: skip
    if outdir is not None:
        assert ckpt is not None
        try:
            _save_checkpoint(ckpt, key, state, recorder.records, counters, sim, wall, status, message, done, sched)
            result.to_json(outdir / "run.json")
        except (OSError, RuntimeError) as e:  # complete: its last record is at T; diverged: the last good one
            kept(outdir, e, result, last_ckpt)
    return result


def kept(outdir: Path, e: BaseException, partial: Run, saved: int | None, *, at: int | None = None) -> NoReturn:
    """Stop a run whose checkpoint or run.json could not be written (``e``): its records so far are written to a
    fallback folder (:func:`sfltheory.outputs.failed`) and the one-line error names ``--out``, the reason, the round
    reached (``at``; default: the last record's), the last checkpoint (written atomically: intact) and the fallback.
    Raises WriteFailed."""
    t = partial.records[-1].t if at is None else at
    last = f"the checkpoint there holds t = {saved}, intact" if saved is not None else "no checkpoint was written"
    how = "stopped" if partial.status == "running" else f"ended ({partial.status})"
    reason = f"{write_reason(e, outdir)} (the run {how} at t = {t}; {last})"

    r = dataclasses.replace(partial, message=f"{outdir} could not be written: {reason}")
    failed("--out", outdir, reason, lambda q: r.to_json(q / "run.json"), folder=True)


def truncated_dir(out: str | Path, T: int) -> Path:
    """Where ``truncate`` writes the first ``T`` rounds of the run in ``out``: ``out/truncated-T<T>``."""
    return Path(out) / f"truncated-T{T}"


def _cut_short(
    config: dict[str, Any], records: list[RoundRecord], status: str, outdir: Path, T: int, truncate: bool, done: int
) -> Run:
    """A ``T`` below the saved run's ``done`` rounds: refused, or its records at t <= ``T`` written beside it
    (``truncate``; on a schedule that skipped t = T, the last of them is before T: it was never recorded)."""
    dest = truncated_dir(outdir, T)
    if not truncate:
        raise ParameterError(
            "T",
            f"{outdir} holds this run at t = {done} ({status}); T = {T} would cut it short. To keep it, give a new "
            f"--out DIR, or --truncate to write rounds 0..{T} to {dest}",
        )
    r = Run(config=config, records=tuple(x for x in records if x.t <= T), status="complete",
            message=f"rounds 0..{T} of the run in {outdir} (t = {done}, kept)", out=str(dest))  # fmt: skip
    path = dest / "run.json"
    if path.exists() and path.read_text(encoding="utf-8") != r.to_text():
        raise ParameterError("truncate", f"{path} exists and holds another run: move it away or give a new --out")
    r.to_json(path)
    return r


def _progress(enabled: bool, total: int, initial: int, desc: str) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="round", leave=False, dynamic_ncols=True)


def _save_checkpoint(
    path: Path,
    key: str,
    state: Any,
    records: list[RoundRecord],
    counters: Counters,
    sim: float,
    wall: float,
    status: str,
    message: str,
    t: int,
    schedule: Schedule | None,
) -> None:
    """The state (at round ``t``), the records, the counters and the recording ``schedule``, written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "key": key,
        "t": t,  # the records may stop before it (a schedule's skipped rounds)
        "schedule": None if schedule is None else schedule.to_dict(),
        "state": state,
        "records": [dict(r.__dict__) for r in records],
        "counters": counters.as_dict(),
        "sim": sim,
        "wall": wall,
        "status": status,
        "message": message,
    }
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def _load_checkpoint(path: Path, key: str) -> dict[str, Any]:
    try:
        saved = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # a truncated or foreign file: say so in one line
        raise ParameterError("--out", f"{path} is not a readable checkpoint ({type(e).__name__})") from None
    if not isinstance(saved, dict) or saved.get("key") != key:
        raise ParameterError(
            "--out",
            f"{path.parent} holds a run with a different configuration; use another directory "
            "(only T may change between a run and its resumption)",
        )
    return saved


def remove_checkpoint(out: str | Path) -> None:
    """Forget a run directory's checkpoint (``--fresh``)."""
    p = Path(out) / "state.pt"
    if p.exists():
        os.remove(p)
