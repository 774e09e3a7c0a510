"""Problems from descriptions: :func:`build` from a typed spec (:mod:`verify.spec`), and the keyword builders the
command line and the sweeps use (a quadratic from a file or from target constants, or a model on a dataset split
at a cut among partitioned clients), with the model and loss they pick for the data."""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from sfltheory.errors import ParameterError
from verify.data import partition as split_clients
from verify.data import train_test
from verify.models import MODELS, check_outputs, load_model, model_cuts
from verify.models import build as build_model
from verify.spec import INTEGER_TARGETS, ModelSpec, ProblemSpec, QuadraticSpec

from .base import Problem
from .model import ModelProblem
from .quadratic import QuadraticProblem

__all__ = ["build", "default_cut", "loss_for", "model_for", "model_problem", "problem_from", "quadratic_from_targets"]


def build(spec: ProblemSpec, *, dtype: torch.dtype | None = None, device: str | torch.device = "cpu") -> Problem:
    """The problem a spec describes, in ``dtype`` (default: float64 for a quadratic, whose constants are exact,
    float32 for a model) on ``device``."""
    if isinstance(spec, QuadraticSpec):
        return _quadratic(spec, dtype=dtype or torch.float64, device=device)
    if isinstance(spec, ModelSpec):
        return model_problem(
            model=spec.model, data=spec.data, cut=spec.cut, clients=spec.clients, partition=spec.partition,
            loss=spec.loss, input_shape=spec.input_shape, seed=spec.seed, dtype=dtype or torch.float32,
            device=device, eval_samples=spec.eval_samples,
        )  # fmt: skip
    raise ParameterError("problem", f"not a problem spec: {type(spec).__name__}")


def _quadratic(spec: QuadraticSpec, *, dtype: torch.dtype, device: str | torch.device) -> QuadraticProblem:
    # A file or inline data states its own noise law (from_dict reads it); spec.noise is then only the default.
    law = {"noise": spec.noise} if spec.noise is not None else {}
    if spec.file is not None:
        return QuadraticProblem.from_file(spec.file, dtype=dtype, device=device, **law)
    if spec.data is not None:
        return QuadraticProblem.from_dict(dict(spec.data), dtype=dtype, device=device, **law)
    return quadratic_from_targets(spec.targets, seed=spec.seed, dtype=dtype, device=device, **law)


def quadratic_from_targets(
    targets: Mapping[str, Any],
    *,
    seed: int = 0,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
    noise: str = "gaussian",
) -> QuadraticProblem:
    """``QuadraticProblem.from_targets`` on ``name -> value`` targets (integral floats accepted for d, d_c, M)."""
    kw: dict[str, Any] = {}
    for k, v in targets.items():
        if k in INTEGER_TARGETS:
            if isinstance(v, bool) or not float(v).is_integer():
                raise ParameterError(k, f"must be an integer (got {v!r})")
            kw[k] = int(v)
        else:
            kw[k] = float(v)
    return QuadraticProblem.from_targets(**kw, seed=seed, dtype=dtype, device=device, noise=noise)


def model_for(
    spec: str,
    input_shape: tuple[int, ...],
    classes: int | None,
    *,
    targets: torch.Tensor | None = None,
    shape_given: bool = True,
) -> nn.Module:
    """A registered model sized for the data (channels, side, input features, classes -- where its factory takes
    them), or ``package.module:factory``, checked to take one sample of ``input_shape`` and to give what the
    targets need (:func:`verify.models.check_outputs`: ``classes`` outputs for integer labels, the width of
    float ``targets``) before any work. Errors name ``problem.model`` or ``problem.input_shape`` (``problem.data``
    for a shape mismatch when ``input_shape`` is the data's own, not ``shape_given`` by the user)."""
    net = _sized(spec, input_shape, classes)
    check_outputs(net, input_shape, classes=classes, targets=targets, label=spec, shape_given=shape_given)
    return net


def _sized(spec: str, input_shape: tuple[int, ...], classes: int | None) -> nn.Module:
    """The model ``spec`` names, a registered one built for the data's shape and classes (not yet run)."""
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
    return build_model(spec, **kw)


def loss_for(name: str, y: torch.Tensor) -> nn.Module:
    """``ce`` (cross-entropy), ``mse``, or ``auto``: cross-entropy for integer labels, else MSE."""
    if name == "auto":
        name = "mse" if y.is_floating_point() else "ce"
    if name == "ce":
        return nn.CrossEntropyLoss(reduction="none")
    if name == "mse":
        return nn.MSELoss(reduction="none")
    raise ParameterError("problem.loss", f"must be auto, ce or mse, got '{name}'")


def default_cut(model: nn.Module, input_shape: tuple[int, ...]) -> str:
    """The middle cut of a model (the client holds about half the blocks): of a model of two blocks, the cut
    between them. A model without a cut (one block with parameters) is refused by
    :func:`verify.models.model_cuts`, naming ``problem.model`` and saying what counts as a block."""

    cuts = model_cuts(model, input_shape, flops=False).cuts
    return cuts[(len(cuts) - 1) // 2].name


def model_problem(
    *,
    model: str | nn.Module = "cnn",
    data: str = "digits",
    cut: str | None = None,
    clients: int = 4,
    partition: str = "iid",
    loss: str = "auto",
    input_shape: tuple[int, ...] | None = None,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
    device: str | torch.device = "cpu",
    aux: bool = True,
    eval_samples: int | None = None,
) -> ModelProblem:
    """A registered model (sized to the data) or your module, on a dataset (``verify.data.load`` specs) with
    its official test split or a seeded 20% holdout, split at ``cut`` (default: the middle cut) among
    ``clients`` clients partitioned by ``partition``. The data is checked as it loads (finite values, labels
    0..C-1) and the model run once on one sample against the targets (:func:`verify.models.check_outputs`)
    before the cut is looked for; each refusal names its spec field (``problem.data``, ``problem.model``).
    Float targets holding as many numbers per sample as the output, in another shape, take its shape."""

    train, test = train_test(data, seed=seed)
    shape = tuple(train.input_shape)
    X, Xt = train.X, test.X
    if input_shape is not None:
        if math.prod(input_shape) != math.prod(shape):
            raise ParameterError("problem.input_shape", f"{input_shape} does not hold a sample of shape {shape}")
        shape = tuple(input_shape)
        X, Xt = X.reshape(len(X), *shape), Xt.reshape(len(Xt), *shape)
    torch.manual_seed(seed)  # the model's initialisation
    net = _sized(model, shape, train.classes) if isinstance(model, str) else model
    label = model if isinstance(model, str) else None
    # before any work; a shape mismatch names --input-shape only when the user gave one
    out = check_outputs(net, shape, classes=train.classes, targets=train.y, label=label,
                        shape_given=input_shape is not None)  # fmt: skip
    y, yt = train.y, test.y
    if y.is_floating_point() and tuple(y.shape[1:]) != out:
        # float targets of the output's size in another shape ((n,) for outputs (n, 1)): in the output's shape,
        # or an element-wise loss would broadcast them against each other to (n, n)
        y, yt = y.reshape(len(y), *out), yt.reshape(len(yt), *out)
    lossf = loss_for(loss, y)
    where = cut if cut is not None else default_cut(net, shape)
    idx = split_clients(y, clients, partition, seed=seed)
    return ModelProblem.at_cut(
        net, where, lossf, X, y, idx, X_test=Xt, y_test=yt, input_shape=shape,
        classes=train.classes, aux=aux, dtype=dtype, device=device, eval_samples=eval_samples,
        name=f"{model if isinstance(model, str) else type(model).__name__} on {train.name}",
    )  # fmt: skip


def problem_from(
    problem: str | None,
    *,
    targets: Mapping[str, Any] | None = None,
    seed: int = 0,
    dtype: torch.dtype | None = None,
    device: str | torch.device = "cpu",
    **model_kw: Any,
) -> Problem:
    """``problem``: a quadratic JSON file, ``"quadratic"`` (from ``targets``), or ``None`` for a model problem."""
    if problem is not None:
        qd = dtype or torch.float64
        if problem == "quadratic":
            return quadratic_from_targets(targets or {}, seed=seed, dtype=qd, device=device)
        if targets:
            raise ParameterError(next(iter(targets)), "target constants build the default quadratic; not with a file")
        return QuadraticProblem.from_file(problem, dtype=qd, device=device)
    if targets:
        raise ParameterError(next(iter(targets)), "target constants describe a quadratic: add --problem quadratic")
    return model_problem(seed=seed, dtype=dtype or torch.float32, device=device, **model_kw)
