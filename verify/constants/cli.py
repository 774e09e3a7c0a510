"""The torch side of ``sfltheory measure``: build the model for the data, pick the loss, measure or track."""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sfltheory.constants import Constants
from sfltheory.errors import ParameterError
from verify.split import Split

from .measure import measure


def model_for(spec: str, input_shape: tuple[int, ...], classes: int | None) -> nn.Module:
    """A registered model sized for the data (channels, side, input features, classes -- where its factory takes
    them), or ``package.module:factory``."""
    from verify.models import MODELS, build, load_model

    if spec not in MODELS:
        return load_model(spec)
    params = inspect.signature(MODELS[spec].factory).parameters
    kw: dict[str, Any] = {}
    if "in_channels" in params and len(input_shape) == 3:
        kw["in_channels"] = input_shape[0]
    if "input_size" in params and len(input_shape) == 3 and input_shape[1] == input_shape[2]:
        kw["input_size"] = input_shape[1]
    if "in_features" in params:
        kw["in_features"] = math.prod(input_shape)
    if "num_classes" in params and classes is not None:
        kw["num_classes"] = classes
    return build(spec, **kw)


def loss_for(name: str, y: torch.Tensor) -> nn.Module:
    """``ce`` (cross-entropy), ``mse``, or ``auto``: cross-entropy for integer labels, else MSE."""
    if name == "auto":
        name = "mse" if y.is_floating_point() else "ce"
    if name == "ce":
        return nn.CrossEntropyLoss(reduction="none")
    if name == "mse":
        return nn.MSELoss(reduction="none")
    raise ParameterError("--loss", f"must be auto, ce or mse, got '{name}'")


class _PerSampleMSE(nn.Module):
    """MSE summed over a sample's outputs (nn.MSELoss(reduction='none') keeps the output dimension)."""

    def forward(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (out.reshape(out.shape[0], -1) - y.reshape(y.shape[0], -1)).pow(2).mean(1)


def run(a: Any) -> Constants:
    """``a``: the parsed ``sfltheory measure`` arguments."""
    from verify.data import load

    ds = load(a.data)
    shape = tuple(ds.input_shape)
    if a.input_shape:
        from sfltheory.cli import parse_shape

        shape = parse_shape(a.input_shape) or shape
        if math.prod(shape) != math.prod(ds.input_shape):
            raise ParameterError("--input-shape", f"{shape} does not hold a sample of shape {ds.input_shape}")
        ds = type(ds)(ds.X.reshape(len(ds), *shape), ds.y, ds.name, shape, ds.classes, ds.note)
    model = model_for(a.model, shape, ds.classes)
    if a.state:
        try:
            state = torch.load(a.state, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise ParameterError("--state", f"no such file: {a.state}") from None
        try:
            model.load_state_dict(state.get("model", state) if isinstance(state, dict) else state)
        except RuntimeError as e:
            raise ParameterError("--state", f"does not fit the model: {str(e).splitlines()[0]}") from None
    if a.float64:
        model = model.double()
    loss: nn.Module = loss_for(a.loss, ds.y)
    if isinstance(loss, nn.MSELoss):
        loss = _PerSampleMSE()
    split: Split | str | None = a.cut
    what = [w for w in a.what.split(",") if w] if a.what else None
    kw: dict[str, Any] = {
        "clients": a.clients,
        "partition": a.partition,
        "batch": a.batch,
        "probes": a.probes,
        "tol": a.tol,
        "fstar": a.fstar,
        "lam": a.lam,
        "P": a.P,
        "zo_form": a.zo_form,
        "device": a.device,
        "dtype": torch.float64 if a.float64 else None,
        "chunk": a.chunk,
        "seed": a.seed,
    }
    if what is not None:
        kw["what"] = what
    elif a.clients is None or a.clients < 2:
        kw["what"] = ["L", "sigma2", "kappa", "F", "gradnorm2_f"]
    if a.steps:
        from .track import track

        traj = track(model, loss, ds, split, steps=a.steps, every=a.every, lr=a.lr, batch=a.train_batch,
                     out=Path(a.run_dir) if a.run_dir else None, progress=not a.quiet, **kw)  # fmt: skip
        c = traj.summary
    else:
        c = measure(model, loss, ds, split, progress=not a.quiet, **kw)
    c.meta.update({"model": a.model, "data": a.data, "data_note": ds.note})
    return c
