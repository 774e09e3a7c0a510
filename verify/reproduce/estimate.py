"""The time a scale of an experiment will take, estimated before it runs from a timed per-step cost.

Every run of the reproduced experiments costs about ``T`` rounds x ``clients`` x the work of one client's round
in steps through the whole model (client part and server part together) on ``batch`` samples: ``K`` forward-backward
passes for the first-order algorithms (K local steps), ``tau + 1`` for a zeroth-order one (MU-SplitFed: tau server
steps and one client estimate, each two forward passes, about one forward-backward). One forward-backward SGD step of
the scale's model is timed here on the device (random inputs of the model's own sample shape, after one warm-up
step), and the estimate is the steps of all runs times that cost. Evaluation (the test accuracy at t = 0 and T) and data
loading are not counted: the estimate is a lower bound of the order of the truth, printed first for the paper scale.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from verify.device import present, resolve_device
from verify.models import MODELS, build

from .experiment import Experiment, Scale

TIMED_STEPS = 3


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """The runs of a scale, the SGD steps of all of them, the seconds one step took on ``device``, their product."""

    id: str
    scale: str
    runs: int
    steps: int
    step_seconds: float
    device: str

    @property
    def seconds(self) -> float:
        """The estimated seconds of training: steps x seconds per step."""
        return self.steps * self.step_seconds

    def line(self) -> str:
        """The estimate in one line, with how it was computed."""
        return (f"estimated time of {self.id} at scale '{self.scale}': {self.runs} runs, {self.steps:,} "
                f"forward-backward steps x {self.step_seconds * 1e3:.3g} ms per step (timed on {self.device}) = about "
                f"{_clock(self.seconds)} (training steps only)")  # fmt: skip


def _clock(s: float) -> str:
    if s >= 48 * 3600:
        return f"{s / 3600:.0f} h ({s / 86400:.0f} days)"
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.0f} s"


def steps_per_run(params: Mapping[str, Any]) -> int:
    """A run's forward-backward steps from its flat train parameters: T rounds x clients x (K local steps, or
    tau + 1 for a zeroth-order round with tau server steps, or 1)."""
    per_round = int(params["K"]) if "K" in params else int(params.get("tau", 0)) + 1
    return int(params["T"]) * int(params["clients"]) * per_round


def step_seconds(model: str, batch: int, device: str, *, steps: int = TIMED_STEPS) -> float:
    """Seconds of one SGD step (forward, backward, update) of the registered ``model`` on ``batch`` random samples
    of its own input shape, on ``device``; the mean of ``steps`` steps after one warm-up step."""
    dev = resolve_device(present("device", device))
    net = build(model).to(dev)
    shape = MODELS[model].input_shape
    x = torch.randn(batch, *shape, device=dev)
    y = torch.randint(0, 10, (batch,), device=dev)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def one() -> None:
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()

    one()
    if dev.startswith("cuda"):
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        one()
    if dev.startswith("cuda"):
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def estimate(exp: Experiment, scale: Scale, device: str) -> Estimate:
    """The estimate of the runs of ``scale`` (the experiment's plan) on ``device``."""
    cells = exp.plan(scale, device)
    # an experiment with no trainer run (a measurement, e.g. mu_splitfed/fig4) has no model step to time
    cost = step_seconds(scale.model, scale.batch, device) if cells else 0.0
    return Estimate(id=exp.id, scale=scale.name, runs=len(cells), steps=sum(steps_per_run(c.params) for c in cells),
                    step_seconds=cost, device=resolve_device(device))  # fmt: skip


__all__ = ["TIMED_STEPS", "Estimate", "estimate", "step_seconds", "steps_per_run"]
