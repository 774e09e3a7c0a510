"""Constants along a training trajectory: measured every few steps, summarised by sup and quantiles.

The theorems assume bounds that hold at every iterate, so a single measurement at initialisation is not
enough: :func:`track` trains with mini-batch SGD, calls :func:`~verify.constants.measure.measure` every
``every`` steps, adds the secant estimate of L between consecutive iterates, fits the bounded-dissimilarity
pair (B^2, G^2) over all the points, and reports for every constant the sup (inf for the most negative
eigenvalue) over the trajectory with the 10/50/90% quantiles as variants (``L[q90]``, ``sigma_c2[max,q50]``).

The run saves itself after every checkpoint to one file, ``out/run.pt`` (written atomically: the measured
points, the model, optimiser and random state together, so a run killed at any moment resumes from a
consistent state), and resumes from there when called again with the same settings; ``out/trajectory.json``
is a readable copy of the points (and of the summary at the end), never read back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from sfltheory import variants as var
from sfltheory.atomic import atomic_path, write_atomic
from sfltheory.constants import Constants, Estimate
from sfltheory.errors import ParameterError
from sfltheory.outputs import failed, write_reason
from sfltheory.variants import with_variant
from verify.ops.objective import LossFn, Objective, per_sample_loss

from .curvature import secant_smoothness
from .heterogeneity import Dissimilarity
from .measure import DEFAULT_WHAT, measure, resolve_split, unpack_data

QUANTILES = (0.1, 0.5, 0.9)
SECANT = "||grad f(x_t+1) - grad f(x_t)|| / ||x_t+1 - x_t|| over one SGD step (a lower bound on L along the step)"
RUN_FILE = "run.pt"  # everything a resume reads, written atomically


@dataclass
class Trajectory:
    """What :func:`track` returns: the SGD steps at which the constants were measured, the constants measured at
    each, and their summary over the trajectory (:func:`summarise`)."""

    steps: list[int]
    points: list[Constants]
    summary: Constants

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the steps, each point's constants and the summary (each a ``Constants.to_dict()``)."""
        return {
            "steps": self.steps,
            "points": [p.to_dict() for p in self.points],
            "summary": self.summary.to_dict(),
        }


def summarise(points: list[Constants], steps: list[int] | None = None) -> Constants:
    """Sup (inf for ``L[min...]``) over the points, quantiles as variants, (B^2, G^2) fitted over all points.

    A constant measured at only some of the points (``L[secant]`` is measured over the step after each point,
    so never at the last one) is summarised over the points that have it, and its method says how many."""
    if not points:
        raise ParameterError("points", "needs at least one measured point")
    out = Constants(meta={**points[0].meta, "points": len(points), "steps": steps})
    keys: dict[str, None] = {}  # every key of every point, in first-seen order
    for p in points:
        keys.update(dict.fromkeys(k for k, _ in p.items()))
    for key in keys:
        if key in ("B2", "G2", var.key("B2", var.ZERO)):
            continue
        at_steps = [(steps[i] if steps else i, e) for i, p in enumerate(points) if (e := p.get(key)) is not None]
        vals = np.array([e.value for _, e in at_steps])
        first = at_steps[0][1]
        if key in ("F", "d", "d_c", "d_s"):
            out.set(key, first)  # F is the gap at the start; the counts do not change
            continue
        low = var.bounded_below(key)
        at = int(np.argmin(vals) if low else np.argmax(vals))
        step, pick = at_steps[at]
        k = len(at_steps)
        where = f"{'inf' if low else 'sup'} over {k} points of the trajectory"
        if k < len(points):
            where += f" (the {k} of {len(points)} where it is measured)"
        out.set(key, Estimate(float(vals[at]), se=pick.se, interval=pick.interval, n=pick.n, probes=pick.probes,
                method=f"{where}; {pick.method}", note=f"attained at step {step}"))  # fmt: skip
        if k > 1:
            for q in QUANTILES:
                out.set(with_variant(key, var.quantile(q)),
                        Estimate(float(np.quantile(vals, q)), n=k, method=f"{q:.0%} quantile over {k} points of "
                                 f"the trajectory; {first.method}"))  # fmt: skip
    g = [p.gradnorm2_f.value for p in points if p.gradnorm2_f is not None and p.G2 is not None]
    A = [p.G2.value + p.gradnorm2_f.value for p in points if p.gradnorm2_f is not None and p.G2 is not None]
    if A:
        fit = Dissimilarity(tuple(A), tuple(g))
        out.B2 = Estimate(1.0, method="B^2 = 1, with the least G^2 for which the bound holds at every point")
        out.G2 = Estimate(
            fit.G2(1.0), n=len(A), method="max over the points of (1/M) sum ||grad f_m||^2 - ||grad f||^2"
        )
        out.set(
            var.key("B2", var.ZERO), Estimate(fit.B2_zero, n=len(A), method="least B^2 with G^2 = 0 at every point")
        )
        out.meta["dissimilarity_frontier"] = [list(v) for v in fit.frontier()]
    return out


def _config_hash(config: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def track(
    model: nn.Module,
    loss: nn.Module | LossFn,
    data: Any,
    split: Any = None,
    what: Iterable[str] = DEFAULT_WHAT,
    *,
    steps: int = 200,
    every: int = 50,
    lr: float = 0.05,
    train_batch: int = 32,
    out: str | Path | None = None,
    seed: int = 0,
    progress: bool = False,
    **measure_kw: Any,
) -> Trajectory:
    """Train ``model`` in place with SGD (``lr``, mini-batches of ``train_batch`` drawn uniformly from all the
    data) for ``steps`` steps, measuring at step 0, every ``every`` steps and at the end.

    ``measure_kw`` go to :func:`measure` (``clients``, ``partition``, ``batch`` -- the mini-batch of
    ``sigma2[batch]``, not the SGD batch --, ``probes``, ``tol`` ...). With ``out`` a directory, the run is saved
    there (``run.pt``, one atomic file) after every checkpoint and a second call with the same settings resumes;
    different settings in a non-empty ``out`` raise an error instead of overwriting it.
    """
    _check_schedule(steps, every, lr, train_batch)
    what = tuple(what)
    X, y, _, shape = unpack_data(data)
    sp = resolve_split(model, split, shape, X)
    config = {"what": what, "steps": steps, "every": every, "lr": lr, "train_batch": train_batch, "seed": seed,
              "n": len(X), "model": type(model).__name__, "split": dict(sp.parts),
              **{k: repr(v) for k, v in measure_kw.items()}}  # fmt: skip
    key = _config_hash(config)
    checkpoints = sorted({0, *range(every, steps, every), steps})
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    odir = Path(out) if out is not None else None
    start, done, points = _resume(odir, key, model, opt, gen)
    lossfn = per_sample_loss(loss)
    n = len(X)
    for step in range(start, steps + 1):
        if step in checkpoints and step not in done:
            c = measure(model, loss, (X, y), sp, what, seed=seed, progress=progress, **measure_kw)
            points.append(c)
            done.append(step)
        if step == steps:
            break
        idx = torch.randint(0, n, (train_batch,), generator=gen)
        sgd_step = partial(_sgd_step, model, opt, lossfn, X[idx], y[idx])
        if step in done and points[-1].get(var.key("L", var.SECANT)) is None:
            # the secant of the step after a checkpoint, measured on the objective of that checkpoint
            obj = Objective(
                model, loss, X, y, sp, device=measure_kw.get("device", "auto"), dtype=measure_kw.get("dtype")
            )
            points[-1].set(var.key("L", var.SECANT), Estimate(_secant_over(obj, model, sgd_step), n=n, method=SECANT))
        else:
            sgd_step()
        if odir is not None and (step in done or step + 1 == steps):
            _save(odir, key, config, done, points, model, opt, gen, step + 1)
    summary = summarise(points, done)
    traj = Trajectory(done, points, summary)
    if odir is not None:
        _save(odir, key, config, done, points, model, opt, gen, steps, summary)
    return traj


def _sgd_step(model: nn.Module, opt: torch.optim.Optimizer, lossfn: LossFn, X: torch.Tensor, y: torch.Tensor) -> None:
    """One SGD step on the mini-batch ``(X, y)`` (train mode)."""
    model.train()
    opt.zero_grad()
    dev = next(model.parameters()).device
    lossfn(model(X.to(dev)), y.to(dev)).mean().backward()
    opt.step()


def _check_schedule(steps: int, every: int, lr: float, train_batch: int) -> None:
    """The SGD schedule of :func:`track`, each setting refused with its name."""
    if steps < 0:
        raise ParameterError("steps", f"must be >= 0, got {steps}")
    if every < 1:
        raise ParameterError("every", f"must be a positive number of steps, got {every}")
    if not lr > 0:
        raise ParameterError("lr", f"must be positive, got {lr}")
    if isinstance(train_batch, bool) or not isinstance(train_batch, int) or train_batch < 1:
        raise ParameterError("train_batch", f"must be a positive mini-batch size, got {train_batch!r}")


def _resume(
    odir: Path | None, key: str, model: nn.Module, opt: torch.optim.Optimizer, gen: torch.Generator
) -> tuple[int, list[int], list[Constants]]:
    """Where a saved run with the same settings stopped: the model, optimiser and generator restored in place,
    and the step to go on from, the checkpoints done and their points (a fresh start without one)."""
    if odir is not None and (odir / RUN_FILE).exists():
        state = torch.load(odir / RUN_FILE, weights_only=False)
        if state.get("config_hash") != key:
            raise ParameterError("out", f"{odir} holds a run with different settings; choose another directory")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        gen.set_state(state["gen"])
        return int(state["step"]), list(state["steps"]), [Constants.from_dict(p) for p in state["points"]]
    if odir is not None and (odir / "trajectory.json").exists():
        raise ParameterError("out", f"{odir} holds a run in an older format (no {RUN_FILE}); choose another directory")
    return 0, [], []


def _secant_over(obj: Objective, model: nn.Module, step: Callable[[], None]) -> float:
    """The secant smoothness of ``obj`` between the model's parameters before and after ``step``."""
    before = {k: v.clone() for k, v in obj.params0.items()}
    step()
    after = {k: v.detach().to(obj.device, obj.dtype) for k, v in model.named_parameters() if k in before}
    return secant_smoothness(obj, before, after)


def _save(
    odir: Path,
    key: str,
    config: Mapping[str, Any],
    done: list[int],
    points: list[Constants],
    model: nn.Module,
    opt: torch.optim.Optimizer,
    gen: torch.Generator,
    step: int,
    summary: Constants | None = None,
) -> None:
    """One atomic file holds everything a resume reads (issue 11: with the points in a second file, a run killed
    between the two writes resumed past a checkpoint it had not recorded); the JSON copy is for reading."""
    doc = {"config_hash": key, "config": config, "steps": done, "points": [p.to_dict() for p in points]}
    if summary is not None:
        doc["summary"] = summary.to_dict()
    try:
        odir.mkdir(parents=True, exist_ok=True)
        with atomic_path(odir / RUN_FILE) as tmp:
            torch.save({**doc, "model": model.state_dict(), "opt": opt.state_dict(), "gen": gen.get_state(),
                        "step": step}, tmp)  # fmt: skip
        write_atomic(odir / "trajectory.json", json.dumps(doc, indent=1, default=str) + "\n")
    except (OSError, RuntimeError) as e:  # a full disk (torch.save's RuntimeError): the points measured are kept
        reason = f"{write_reason(e, odir)} (at step {step}; the last checkpoint there is intact)"
        text = json.dumps(doc, indent=1, default=str) + "\n"
        failed("measure.run_dir", odir, reason, lambda q: write_atomic(q / "trajectory.json", text), folder=True)
