"""A :class:`verify.spec.MeasureSpec` measured: the model built for the data, the loss picked, the constants
measured at one point (:func:`verify.constants.measure`) or along SGD steps (:func:`verify.constants.track`), and
what a result needs (``--for``) checked against the options before any work. Errors name spec fields
(``measure.cut``); the command line prints their flags."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sfltheory import variants as var
from sfltheory.constants import Constants, CutConstants, cut_dependent, needed_keys
from sfltheory.errors import ParameterError
from verify.constants.measure import group_of_key, measure
from verify.constants.track import track
from verify.data import load
from verify.measurespec import MeasureSpec
from verify.models import load_state, model_cuts, resolve_cut
from verify.problems.build import loss_for, model_for
from verify.spec import named_by
from verify.split import Split


class PerSampleMSE(nn.Module):
    """MSE averaged over a sample's outputs, one value per sample (``nn.MSELoss(reduction="none")`` keeps the output
    dimension)."""

    def forward(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The mean of ``(out - y)^2`` over each sample's values (shape ``(n,)``, what ``reduction="mean"`` gives per
        sample)."""
        return (out.reshape(out.shape[0], -1) - y.reshape(y.shape[0], -1)).pow(2).mean(1)


def token_ids(model: nn.Module, ds: Any) -> Any:
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


# The arguments of verify.constants.measure / track that a MeasureSpec field gives, by the name their errors use
# (``probes``): renamed to the field (``measure.probes``), which the command line shows as its flag (``--probes``).
# ``form`` is the zeroth-order estimator's name for zo_form, ``out`` track's for run_dir, ``split`` the cut's.
ARGUMENT_FIELDS: dict[str, str] = {
    **{k: f"measure.{k}" for k in ("model", "data", "input_shape", "what", "clients", "partition", "batch", "probes",
                                   "tol", "fstar", "lam", "P", "zo_form", "steps", "every", "lr", "train_batch",
                                   "device", "chunk", "seed")},
    "form": "measure.zo_form", "out": "measure.run_dir", "split": "measure.cut",
}  # fmt: skip


def field_of(name: str) -> str:
    """The :class:`MeasureSpec` field an argument of the measurement library is given by (``probes`` ->
    ``measure.probes``), or ``name`` itself."""
    return ARGUMENT_FIELDS.get(name, name)


def measure_spec(a: MeasureSpec, *, progress: bool = True) -> Constants | CutConstants:
    """Measure ``a``; its ``threads`` hold for the measurement only. With ``cuts``, one record per cut. An error
    names the spec field that gave the value (:func:`field_of`), as every error of a spec does."""
    was = torch.get_num_threads()
    if a.threads:
        torch.set_num_threads(a.threads)
    try:
        with named_by(field_of):
            if a.cuts is not None:
                return at_each_cut(a, progress)
            return measured(a, progress)
    finally:
        torch.set_num_threads(was)


def at_each_cut(a: MeasureSpec, progress: bool) -> CutConstants:
    """``a`` measured at each of its ``cuts`` (every cut for ``("all",)``), the model built afresh from the seed
    (or ``state``) for each, so that every cut is measured at the same point."""
    model, ds = model_and_data(a)
    table = model_cuts(model, tuple(ds.input_shape), flops=False, input_dtype=ds.X.dtype)
    assert a.cuts is not None
    try:
        points = list(table.cuts) if a.cuts == ("all",) else [resolve_cut(table, c) for c in a.cuts]
    except ParameterError as e:
        raise ParameterError("measure.cuts", e.rule) from None
    names = list(dict.fromkeys(p.name for p in points))
    records = tuple(measured(dataclasses.replace(a, cut=n, cuts=None), progress) for n in names)
    meta = {"model": a.model, "data": a.data, "cuts": names}
    blocks = tuple({"name": b.name, "params": b.params, "activation": b.activation} for b in table.blocks)
    return CutConstants(records=records, meta=meta, blocks=blocks)


def model_and_data(a: MeasureSpec) -> tuple[nn.Module, Any]:
    """The model (initialised from the seed, or ``state`` loaded) and the data in its shape."""
    ds = load(a.data)
    shape = tuple(ds.input_shape)
    if a.input_shape:
        shape = a.input_shape
        if math.prod(shape) != math.prod(ds.input_shape):
            raise ParameterError("measure.input_shape", f"{shape} does not hold a sample of shape {ds.input_shape}")
        ds = type(ds)(ds.X.reshape(len(ds), *shape), ds.y, ds.name, shape, ds.classes, ds.note)
    torch.manual_seed(a.seed)  # a registered model's initialisation, so that a rerun measures the same point
    # targets: the width of float (regression) targets checked as train checks it; a shape mismatch names
    # --input-shape only when the user gave one (else the data)
    model = model_for(a.model, shape, ds.classes, targets=ds.y, shape_given=a.input_shape is not None)
    ds = token_ids(model, ds)
    if a.state:
        load_state(model, a.state)  # every failure one line naming measure.state (--state)
    if a.float64:
        model = model.double()
    return model, ds


def measured(a: MeasureSpec, progress: bool) -> Constants:
    """The constants a measure spec asks for: the model built and its loss picked, measured at one point
    (:func:`verify.constants.measure`) or, with ``steps``, along SGD (:func:`verify.constants.track`, its summary); the
    groups are those of ``--for`` and ``what`` (without either and without two clients, the groups that need no
    heterogeneity). The model and data are recorded in ``meta``."""
    model, ds = model_and_data(a)
    loss: nn.Module = loss_for(a.loss, ds.y)
    if isinstance(loss, nn.MSELoss):
        loss = PerSampleMSE()
    split: Split | str | None = a.cut
    what = list(a.what) if a.what else None
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
    for_id = a.for_id
    if for_id:
        kw["what"] = sorted({*(what or ()), *what_for(for_id, a)})
    elif what is not None:
        kw["what"] = what
    elif a.clients is None or a.clients < 2:
        kw["what"] = ["L", "sigma2", "kappa", "F", "gradnorm2_f"]
    if a.steps:
        traj = track(model, loss, ds, split, steps=a.steps, every=a.every, lr=a.lr, train_batch=a.train_batch,
                     out=Path(a.run_dir) if a.run_dir else None, progress=progress, **kw)  # fmt: skip
        c = traj.summary
    else:
        c = measure(model, loss, ds, split, progress=progress, **kw)
    c.meta.update({"model": a.model, "data": a.data, "data_note": ds.note})
    if for_id:
        c.meta["for"] = for_id
    return c


def per_part(key: str) -> bool:
    """A key that exists only for a split model: d_c, sigma_s2[max], kappa[client], eps2[mean,server] ..."""
    return cut_dependent(key)


def what_for(result_id: str, a: MeasureSpec) -> list[str]:
    """The groups ``measure`` runs for ``--for ID``: those of the keys the result's assumptions need
    (:func:`sfltheory.constants.needed_keys`, the strongest variant of each), after checking that the options
    give what those keys require (a cut for per-part constants, --clients >= 2 for heterogeneity, --lam for the
    zeroth-order error, --batch for a mini-batch variance)."""
    keys = needed_keys(result_id)
    parts = [k for k in keys if per_part(k)]
    if parts and not a.cut:
        raise ParameterError("measure.cut", f"{result_id} needs per-part constants ({parts[0]}): give the cut")
    groups = {g for k in keys if (g := group_of_key(k)) is not None}
    if "eps2" in groups and (a.clients is None or a.clients < 2):
        raise ParameterError("measure.clients", f"{result_id} needs heterogeneity across clients: give >= 2 clients")
    if "zo" in groups and a.lam is None:
        raise ParameterError("measure.lam", f"{result_id} needs the zeroth-order estimator's error: give its radius")
    batched = [k for k in keys if var.BATCH in var.split(k)[1]]
    if batched and a.batch is None:
        raise ParameterError("measure.batch", f"{result_id} needs {batched[0]}, a mini-batch variance: give --batch")
    return sorted(groups)
