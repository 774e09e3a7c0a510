"""A :class:`verify.spec.RunSpec` run: the problem built, the algorithm made, the time model chosen, the loop run.

The one path from *what to run* to a :class:`verify.train.loop.Run` for every front end (``sfltheory train``, a
sweep's train configuration, the trend checks, the main job).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from sfltheory.outputs import check_dir
from sfltheory.plan.timemodel import TimeModel
from verify.device import present, resolve_device
from verify.ops.tree import Params
from verify.problems import Problem, build
from verify.spec import RunSpec, TimeSpec

from .algorithms import get
from .loop import Run, default_time_model, run


def time_model(spec: TimeSpec | None, M: int) -> TimeModel:
    """The spec's straggler model for ``M`` clients, or the stated default (equal clients)."""
    if spec is None:
        return default_time_model(M)
    return TimeModel(server_step=spec.server_step, client_time=spec.times(M), bandwidth=spec.bandwidth)


# What a run writes to ``--out``, measured once (fedavg on an MLP of d = 34,434 float32 parameters, 2 clients,
# T = 100; ``ls -l``): state.pt 157,205 bytes, of which the state 140,309 (4 bytes x d, plus torch.save's framing)
# and the 101 records 17,261 (~171 bytes each); run.json 55,856 bytes (~553 per record, configuration included).
# An algorithm's state may hold more than the model's d parameters (optimiser moments, an auxiliary head, a copy
# per client), hence STATE_COPIES copies of them: an estimate to refuse a disk that surely lacks the room.
STATE_COPIES = 3
RECORD_BYTES = 750  # per round: ~553 in run.json + ~171 in the checkpoint, rounded up
TENSORBOARD_RECORD_BYTES = 240  # per round: 24,015 bytes of events for 101 rounds of 5 scalars (same run)


def output_bytes(problem: Problem, T: int) -> int:
    """About what a run of ``T`` rounds on ``problem`` writes to its ``out`` folder: its checkpoint (the model's
    parameters in the problem's precision, :data:`STATE_COPIES` times) and its records (:data:`RECORD_BYTES` per
    round, in run.json and the checkpoint)."""
    counts = problem.counts()
    itemsize = torch.empty((), dtype=problem.dtype).element_size()
    return STATE_COPIES * itemsize * counts.d + (T + 1) * RECORD_BYTES


def tensorboard_bytes(T: int) -> int:
    """About what ``--tensorboard`` writes for a run of ``T`` rounds (:data:`TENSORBOARD_RECORD_BYTES` a round)."""
    return (T + 1) * TENSORBOARD_RECORD_BYTES


def problem_of(spec: RunSpec, *, auto: str | None = None) -> Problem:
    """The problem ``spec`` runs on, in its precision on its device (refused in one line, before the problem is
    built, when this machine does not have it: checked here, on the machine that runs the spec, as a sweep's
    configurations may run on other machines than the one that reads the sweep file)."""
    present("device", spec.device)
    dtype = torch.float64 if spec.dtype == "float64" else torch.float32
    return build(spec.problem, dtype=dtype, device=resolve_device(spec.device, auto))


def launch(
    spec: RunSpec,
    *,
    progress: bool = False,
    auto: str | None = None,
    observe: Callable[[int, Params, Params], None] | None = None,
    problem: Problem | None = None,
    extra_config: dict[str, Any] | None = None,
    announce: Callable[[str], None] | None = None,
) -> Run:
    """Run ``spec``: with ``spec.out`` checkpointed there and resumed. ``problem``: one already built from
    ``spec.problem`` (a trend check reuses it across runs). ``spec.record_every`` None records on the loop's
    ``"auto"`` schedule; ``announce`` receives the line saying what is recorded when, once it is known
    (:func:`verify.train.loop.run`)."""
    algorithm = get(spec.algorithm)(**spec.params)
    prob = problem if problem is not None else problem_of(spec, auto=auto)
    if spec.out is not None:  # room for the checkpoint and records, before any round (a full disk is one line)
        check_dir("out", spec.out, need=output_bytes(prob, spec.T))
    # run.json names the spec it ran, less what a resumed run may change (T, where it is saved and how often,
    # whether a shorter T is written beside it, when it records: the loop's own configuration records T and the
    # schedule), so the run can be re-made or read with its settings
    resumable = ("T", "out", "checkpoint_every", "truncate", "record_every")
    what = {k: v for k, v in spec.to_dict().items() if k not in resumable}
    config = {"spec": what, **(extra_config or {})}
    return run(algorithm, prob, T=spec.T, seed=spec.seed, batch=spec.batch, batched=spec.batched, out=spec.out,
               checkpoint_every=spec.checkpoint_every, time_model=time_model(spec.time, prob.M), progress=progress,
               observe=observe, extra_config=config, truncate=spec.truncate, announce=announce,
               record_every="auto" if spec.record_every is None else int(spec.record_every))  # fmt: skip


__all__ = ["RECORD_BYTES", "STATE_COPIES", "TENSORBOARD_RECORD_BYTES", "launch", "output_bytes", "problem_of",
           "tensorboard_bytes", "time_model"]  # fmt: skip
