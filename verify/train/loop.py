"""The generic training loop: rounds, recording, checkpoints, counters and simulated time.

It knows no algorithm by name. Each round it hands the algorithm a :class:`~verify.train.base.Context`,
times the round, and records at the new global model the full-objective gradient (one pass over the training
set: the cost of one full-batch gradient), the loss, test accuracy, the counters and the simulated wall-clock
time under the planner's straggler model (:class:`sfltheory.plan.timemodel.TimeModel`).

Checkpoints hold the algorithm's state *and* the records in one file written atomically (temporary file,
then rename), so a run killed at any moment resumes from a consistent point; since every random draw is
derived from (seed, round, keys), the resumed curve equals the uninterrupted one. A configuration that differs
from the checkpoint's is refused, except for ``T``: a finished run can be extended. A run is never cut short in
place: a ``T`` below what the directory holds is refused, or (``truncate``) the first ``T`` rounds are written to
``OUT/truncated-T<T>/run.json`` and the run in ``OUT`` is left as it was.
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
    """A run: its full configuration, the records t = 0..T, and how it ended.

    ``status``: ``"complete"``, ``"diverged"`` (stopped at the first non-finite or overflowing record; the
    records before it are kept) or ``"running"`` (a checkpoint of an unfinished run)."""

    config: dict[str, Any]
    records: tuple[RoundRecord, ...]
    status: str
    message: str = ""
    format: str = RUN_FORMAT
    out: str | None = field(default=None, compare=False)  # the folder its run.json was written to, if any

    def series(self, name: str) -> np.ndarray:
        """One recorded quantity over t as an array (NaN where it was not recorded)."""
        vals = []
        for r in self.records:
            v = getattr(r, name) if name in RECORD_FIELDS else r.extra.get(name)
            vals.append(np.nan if v is None else float(v))
        return np.asarray(vals, dtype=float)

    def to_dict(self) -> dict[str, Any]:
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
        write_atomic(Path(path), self.to_text())

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Run:
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


def config_hash(config: Mapping[str, Any]) -> str:
    """A hash of the configuration without ``T`` (so a run can be extended) and without run-time options."""
    keep = {k: v for k, v in config.items() if k not in ("T", "progress", "checkpoint_every")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=_jsonable).encode()).hexdigest()[:16]


@dataclass
class _Recorder:
    """Builds the records: the gradient at the global model, running average and minimum, counters, time."""

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
) -> Run:
    """Run ``algorithm`` on ``problem`` for ``T`` rounds; with ``out``, checkpoint there and resume.

    ``batched``: use the algorithm's batched path (clients vmapped) where it has one; the per-client loop is
    the reference. Records t = 0..T are taken at the global model before the first round and after each.
    ``observe(t, client_params, server_params)`` is called at each global model recorded in this call (t = 0 on
    a fresh start, then after every round), e.g. to measure constants along the trajectory; it must not modify
    them. On a resumed run it sees only the rounds run now.

    A ``T`` below the rounds ``out`` already holds is refused (nothing saved is overwritten), or with ``truncate``
    rounds 0..T of the saved run are written to :func:`truncated_dir` and returned; the run in ``out`` is kept.
    """
    for name, v, low in (
        ("T", T, 1),
        ("seed", seed, 0),
        ("batch", batch, 1),
        ("checkpoint_every", checkpoint_every, 1),
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

    recorder = _Recorder(problem)
    counters = Counters()
    sim = wall = 0.0
    if ckpt is not None and ckpt.exists():
        saved = _load_checkpoint(ckpt, key)
        state = saved["state"]
        recorder.records = [RoundRecord(**r) for r in saved["records"]]
        counters = Counters(**saved["counters"])
        sim, wall = saved["sim"], saved["wall"]
        if saved["status"] == "diverged":
            return Run(config=config, records=tuple(recorder.records), status="diverged", message=saved["message"])
        if len(recorder.records) > T + 1:
            return _cut_short(config, recorder.records, saved["status"], ckpt.parent, T, truncate)
        if truncate:  # nothing to cut: the run would be extended or resumed while --truncate says keep it as it is
            raise ParameterError("truncate", f"cuts a longer run short, but the run in {outdir} holds "
                                 f"{len(recorder.records) - 1} rounds and T = {T}: drop --truncate")  # fmt: skip
    elif truncate:
        raise ParameterError("truncate", f"cuts a saved run short, but {outdir or 'no --out'} holds none: drop it")
    else:
        state = algorithm.init_state(problem, problem.init())
        pc, ps = algorithm.global_params(state)
        recorder.record(0, pc, ps, counters, sim, wall, {})
        if observe is not None:
            observe(0, pc, ps)
    t0 = len(recorder.records) - 1
    last_ckpt: int | None = t0 if ckpt is not None and ckpt.exists() else None  # the round the checkpoint holds

    status, message = "complete", ""
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
            took = time.perf_counter() - start
            wall += took
            sim += round_time
            pc, ps = algorithm.global_params(state)
            finite = tree.all_finite(pc) and tree.all_finite(ps)
            rec = recorder.record(t + 1, pc, ps, counters, sim, wall, metrics) if finite else None
            if rec is None or not math.isfinite(rec.gradnorm2) or rec.gradnorm2 > DIVERGED:
                if rec is not None:
                    recorder.records.pop()
                status = "diverged"
                what = "the model has NaN/inf entries" if rec is None else f"||grad f||^2 = {rec.gradnorm2:.3g}"
                message = (
                    f"diverged in round {t}: {what}; records 0..{t} are kept. "
                    "Reduce the step size (check-lr gives the theorem's largest admissible one)"
                )
                break
            if observe is not None:
                observe(t + 1, pc, ps)
            if t == t0 and T - t0 > 1:  # the first round of this call, timed with its record: the rest, estimated
                check_budget(T - t0, time.perf_counter() - start, T=T, took=f"round {t0 + 1}")
            if t == t0:
                bar = _progress(progress, T, t0, f"{algorithm.name}")
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"|grad f|^2={rec.gradnorm2:.3g} loss={rec.loss:.3g}", refresh=False)
            if ckpt is not None and ((t + 1) % checkpoint_every == 0 or t + 1 == T):
                try:
                    _save_checkpoint(ckpt, key, state, recorder.records, counters, sim, wall, "running", "")
                except (OSError, RuntimeError) as e:  # a full disk: torch.save raises RuntimeError
                    kept(
                        ckpt.parent, e, Run(config=config, records=tuple(recorder.records), status="running"), last_ckpt
                    )
                last_ckpt = t + 1
    finally:
        if bar is not None:
            bar.close()
    result = Run(config=config, records=tuple(recorder.records), status=status, message=message,
                 out=None if outdir is None else str(outdir))  # fmt: skip
    if outdir is not None:
        assert ckpt is not None
        try:
            _save_checkpoint(ckpt, key, state, recorder.records, counters, sim, wall, status, message)
            result.to_json(outdir / "run.json")
        except (OSError, RuntimeError) as e:
            kept(outdir, e, result, last_ckpt)
    return result


def kept(outdir: Path, e: BaseException, partial: Run, saved: int | None) -> NoReturn:
    """Stop a run whose checkpoint or run.json could not be written (``e``): its records so far are written to a
    fallback folder (:func:`sfltheory.outputs.failed`) and the one-line error names ``--out``, the reason, the round
    reached, the last checkpoint (written atomically: intact) and the fallback. Raises WriteFailed."""
    t = len(partial.records) - 1
    last = f"the checkpoint there holds t = {saved}, intact" if saved is not None else "no checkpoint was written"
    how = "stopped" if partial.status == "running" else f"ended ({partial.status})"
    reason = f"{write_reason(e, outdir)} (the run {how} at t = {t}; {last})"

    r = dataclasses.replace(partial, message=f"{outdir} could not be written: {reason}")
    failed("--out", outdir, reason, lambda q: r.to_json(q / "run.json"), folder=True)


def truncated_dir(out: str | Path, T: int) -> Path:
    """Where ``truncate`` writes the first ``T`` rounds of the run in ``out``: ``out/truncated-T<T>``."""
    return Path(out) / f"truncated-T{T}"


def _cut_short(
    config: dict[str, Any], records: list[RoundRecord], status: str, outdir: Path, T: int, truncate: bool
) -> Run:
    """A ``T`` below the saved run's rounds: refused, or its first ``T`` rounds written beside it (``truncate``)."""
    done = len(records) - 1
    dest = truncated_dir(outdir, T)
    if not truncate:
        raise ParameterError(
            "T",
            f"{outdir} holds this run at t = {done} ({status}); T = {T} would cut it short. To keep it, give a new "
            f"--out DIR, or --truncate to write rounds 0..{T} to {dest}",
        )
    r = Run(config=config, records=tuple(records[: T + 1]), status="complete",
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
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "key": key,
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
