"""The torch side of ``sfltheory measure``: build the model for the data, pick the loss, measure or track."""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sfltheory import variants as var
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


def _token_ids(model: nn.Module, ds: Any) -> Any:
    """The data with integer inputs restored when the model takes token ids (an ``nn.Embedding`` that rejects
    floats): ``verify.data`` reads every input as float32, so a file of token ids arrives as whole floats. Only
    when the model fails on the float inputs and runs on the same values as int64 -- a model that merely holds an
    embedding (positions, say) and takes float images keeps them."""
    if not ds.X.is_floating_point() or not any(isinstance(m, nn.Embedding | nn.EmbeddingBag) for m in model.modules()):
        return ds
    head = ds.X[:2]
    if not bool((head == head.round()).all()) or not bool((ds.X == ds.X.round()).all()):
        return ds
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            try:
                model(head)
                return ds
            except (RuntimeError, TypeError, ValueError, IndexError):
                pass
            try:
                model(head.long())
            except (RuntimeError, TypeError, ValueError, IndexError):
                return ds
    finally:
        model.train(was)
    note = f"{ds.note}; inputs read as token ids (int64) for the model's nn.Embedding".lstrip("; ")
    return type(ds)(ds.X.long(), ds.y, ds.name, ds.input_shape, ds.classes, note)


def run(a: Any) -> Constants:
    """``a``: the parsed ``sfltheory measure`` arguments. ``--threads`` holds for the measurement only."""
    threads = getattr(a, "threads", None)
    was = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        return _run(a)
    finally:
        torch.set_num_threads(was)


def _run(a: Any) -> Constants:
    from verify.data import load

    ds = load(a.data)
    shape = tuple(ds.input_shape)
    if a.input_shape:
        from sfltheory.cli import parse_shape

        shape = parse_shape(a.input_shape) or shape
        if math.prod(shape) != math.prod(ds.input_shape):
            raise ParameterError("--input-shape", f"{shape} does not hold a sample of shape {ds.input_shape}")
        ds = type(ds)(ds.X.reshape(len(ds), *shape), ds.y, ds.name, shape, ds.classes, ds.note)
    torch.manual_seed(a.seed)  # a registered model's initialisation, so that a rerun measures the same point
    model = model_for(a.model, shape, ds.classes)
    ds = _token_ids(model, ds)
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
    for_id = getattr(a, "for_id", None)
    if for_id:
        kw["what"] = sorted({*(what or ()), *what_for(for_id, a)})
    elif what is not None:
        kw["what"] = what
    elif a.clients is None or a.clients < 2:
        kw["what"] = ["L", "sigma2", "kappa", "F", "gradnorm2_f"]
    if a.steps:
        from .track import track

        traj = track(model, loss, ds, split, steps=a.steps, every=a.every, lr=a.lr, train_batch=a.train_batch,
                     out=Path(a.run_dir) if a.run_dir else None, progress=not a.quiet, **kw)  # fmt: skip
        c = traj.summary
    else:
        c = measure(model, loss, ds, split, progress=not a.quiet, **kw)
    c.meta.update({"model": a.model, "data": a.data, "data_note": ds.note})
    if for_id:
        c.meta["for"] = for_id
    return c


def _per_part(key: str) -> bool:
    """A key that exists only for a split model: d_c, sigma_s2[max], kappa[client], eps2[mean,server] ..."""
    base, _, rest = key.partition("[")
    variants = rest.rstrip("]").split(",") if rest else []
    return base in ("d_c", "d_s", "sigma_c2", "sigma_s2", "G_c2", "G_s2") or bool({"client", "server"} & set(variants))


def what_for(result_id: str, a: Any) -> list[str]:
    """The groups ``measure`` runs for ``--for ID``: those of the keys the result's assumptions need
    (:func:`sfltheory.constants.needed_keys`, the strongest variant of each), after checking that the options
    give what those keys require (a cut for per-part constants, --clients >= 2 for heterogeneity, --lam for the
    zeroth-order error, --batch for a mini-batch variance)."""
    from sfltheory.constants import needed_keys

    from .measure import group_of_key

    keys = needed_keys(result_id)
    per_part = [k for k in keys if _per_part(k)]
    if per_part and not a.cut:
        raise ParameterError("--cut", f"{result_id} needs per-part constants ({per_part[0]}): give the cut")
    groups = {g for k in keys if (g := group_of_key(k)) is not None}
    if "eps2" in groups and (a.clients is None or a.clients < 2):
        raise ParameterError("--clients", f"{result_id} needs heterogeneity across clients: give --clients >= 2")
    if "zo" in groups and a.lam is None:
        raise ParameterError("--lam", f"{result_id} needs the zeroth-order estimator's error: give its radius --lam")
    batched = [k for k in keys if var.BATCH in var.split(k)[1]]
    if batched and a.batch is None:
        raise ParameterError("--batch", f"{result_id} needs {batched[0]}, a mini-batch variance: give --batch")
    return sorted(groups)
