"""Constants along a training trajectory: measured every few steps, summarised by sup and quantiles.

The theorems assume bounds that hold at every iterate, so a single measurement at initialisation is not
enough: :func:`track` trains with mini-batch SGD, calls :func:`~verify.constants.measure.measure` every
``every`` steps, adds the secant estimate of L between consecutive iterates, fits the bounded-dissimilarity
pair (B^2, G^2) over all the points, and reports for every constant the sup (inf for the most negative
eigenvalue) over the trajectory with the 10/50/90% quantiles as variants (``L[q90]``, ``sigma_c2[max,q50]``).

The run saves itself atomically after every checkpoint (``out``: the points as JSON, the model, optimiser and
random state as a torch file) and resumes from there when called again with the same settings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from sfltheory.atomic import atomic_path, write_atomic
from sfltheory.constants import Constants, Estimate, with_variant
from sfltheory.errors import ParameterError
from verify.ops.objective import LossFn, Objective, per_sample_loss

from .curvature import secant_smoothness
from .heterogeneity import Dissimilarity
from .measure import DEFAULT_WHAT, _data, measure, resolve_split

QUANTILES = (0.1, 0.5, 0.9)


@dataclass
class Trajectory:
    steps: list[int]
    points: list[Constants]
    summary: Constants

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "points": [p.to_dict() for p in self.points],
            "summary": self.summary.to_dict(),
        }


def summarise(points: list[Constants], steps: list[int] | None = None) -> Constants:
    """Sup (inf for ``L[min...]``) over the points, quantiles as variants, (B^2, G^2) fitted over all points."""
    if not points:
        raise ParameterError("points", "needs at least one measured point")
    out = Constants(meta={**points[0].meta, "points": len(points), "steps": steps})
    keys = [k for k, _ in points[0].items()]
    for key in keys:
        ests = [p.get(key) for p in points]
        if any(e is None for e in ests) or key in ("B2", "G2", "B2[zero]"):
            continue
        vals = np.array([e.value for e in ests if e is not None])
        first = ests[0]
        assert first is not None
        if key in ("F", "d", "d_c", "d_s"):
            out.set(key, first)
            continue
        low = key.startswith("L[min")
        at = int(np.argmin(vals) if low else np.argmax(vals))
        pick = ests[at]
        assert pick is not None
        where = f"{'inf' if low else 'sup'} over {len(points)} points of the trajectory"
        out.set(key, Estimate(float(vals[at]), se=pick.se, interval=pick.interval, n=pick.n, probes=pick.probes,
                method=f"{where}; {pick.method}", note=f"attained at step {steps[at] if steps else at}"))  # fmt: skip
        if len(points) > 1:
            for q in QUANTILES:
                out.set(with_variant(key, f"q{round(q * 100)}"),
                        Estimate(float(np.quantile(vals, q)), n=len(points), method=f"{q:.0%} quantile over the "
                                 f"trajectory; {first.method}"))  # fmt: skip
    g = [p.gradnorm2_f.value for p in points if p.gradnorm2_f is not None and p.G2 is not None]
    A = [p.G2.value + p.gradnorm2_f.value for p in points if p.gradnorm2_f is not None and p.G2 is not None]
    if A:
        fit = Dissimilarity(tuple(A), tuple(g))
        out.B2 = Estimate(1.0, method="B^2 = 1, with the least G^2 for which the bound holds at every point")
        out.G2 = Estimate(
            fit.G2(1.0), n=len(A), method="max over the points of (1/M) sum ||grad f_m||^2 - ||grad f||^2"
        )
        out.set("B2[zero]", Estimate(fit.B2_zero, n=len(A), method="least B^2 with G^2 = 0 at every point"))
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
    batch: int = 32,
    out: str | Path | None = None,
    seed: int = 0,
    progress: bool = False,
    **measure_kw: Any,
) -> Trajectory:
    """Train ``model`` in place with SGD (``lr``, mini-batches of ``batch`` drawn uniformly from all the data)
    for ``steps`` steps, measuring at step 0, every ``every`` steps and at the end.

    ``measure_kw`` go to :func:`measure` (``clients``, ``partition``, ``probes``, ``tol`` ...). With ``out`` a
    directory, progress is saved there after every checkpoint and a second call with the same settings
    resumes; different settings in a non-empty ``out`` raise an error instead of overwriting it.
    """
    if steps < 0:
        raise ParameterError("steps", f"must be >= 0, got {steps}")
    if every < 1:
        raise ParameterError("every", f"must be a positive number of steps, got {every}")
    if not lr > 0:
        raise ParameterError("lr", f"must be positive, got {lr}")
    if batch < 1:
        raise ParameterError("batch", f"must be a positive mini-batch size, got {batch}")
    what = tuple(what)
    X, y, _, shape = _data(data)
    sp = resolve_split(model, split, shape)
    config = {"what": what, "steps": steps, "every": every, "lr": lr, "batch": batch, "seed": seed, "n": len(X),
              "model": type(model).__name__, "split": dict(sp.parts),
              **{k: repr(v) for k, v in measure_kw.items()}}  # fmt: skip
    key = _config_hash(config)
    checkpoints = sorted({0, *range(every, steps, every), steps})
    points: list[Constants] = []
    done: list[int] = []
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    start = 0
    odir = Path(out) if out is not None else None
    if odir is not None and (odir / "trajectory.json").exists():
        saved = json.loads((odir / "trajectory.json").read_text())
        if saved.get("config_hash") != key:
            raise ParameterError("out", f"{odir} holds a run with different settings; choose another directory")
        state = torch.load(odir / "state.pt", weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        gen.set_state(state["gen"])
        start = int(state["step"])
        done = list(saved["steps"])
        points = [Constants.from_dict(p) for p in saved["points"]]
    lossfn = per_sample_loss(loss)
    n = len(X)
    for step in range(start, steps + 1):
        if step in checkpoints and step not in done:
            c = measure(model, loss, (X, y), sp, what, seed=seed, progress=progress, **measure_kw)
            points.append(c)
            done.append(step)
        if step == steps:
            break
        idx = torch.randint(0, n, (batch,), generator=gen)
        secant = step in done and points[-1].get("L[secant]") is None
        if secant:
            obj = Objective(
                model, loss, X, y, sp, device=measure_kw.get("device", "auto"), dtype=measure_kw.get("dtype")
            )
            before = {k: v.clone() for k, v in obj.params0.items()}
        model.train()
        opt.zero_grad()
        dev = next(model.parameters()).device
        lossfn(model(X[idx].to(dev)), y[idx].to(dev)).mean().backward()
        opt.step()
        if secant:
            after = {k: v.detach().to(obj.device, obj.dtype) for k, v in model.named_parameters() if k in before}
            s = secant_smoothness(obj, before, after)
            points[-1].set("L[secant]", Estimate(s, n=n, method="||grad f(x_t+1) - grad f(x_t)|| / ||x_t+1 - x_t||"
                           " over one SGD step (a lower bound on L along the step)"))  # fmt: skip
        if odir is not None and (step in done or step + 1 == steps):
            _save(odir, key, config, done, points, model, opt, gen, step + 1)
    summary = summarise(points, done)
    traj = Trajectory(done, points, summary)
    if odir is not None:
        _save(odir, key, config, done, points, model, opt, gen, steps, summary)
    return traj


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
    odir.mkdir(parents=True, exist_ok=True)
    with atomic_path(odir / "state.pt") as tmp:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "gen": gen.get_state(), "step": step}, tmp)
    doc = {"config_hash": key, "config": config, "steps": done, "points": [p.to_dict() for p in points]}
    if summary is not None:
        doc["summary"] = summary.to_dict()
    write_atomic(odir / "trajectory.json", json.dumps(doc, indent=1, default=str) + "\n")
