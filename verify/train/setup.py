"""Build a problem from a description (what ``sfltheory train`` and ``verify`` take): a quadratic from a file
or from target constants, or a model on a dataset split at a cut among partitioned clients."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from sfltheory.errors import ParameterError

from .problems import ModelProblem, Problem, QuadraticProblem

# name=value parameters that describe the default quadratic (from_targets), not the algorithm
QUADRATIC_TARGETS = ("L", "mu", "sigma2", "eps2", "d", "d_c", "M", "F")


def quadratic_from_targets(
    targets: Mapping[str, Any], *, seed: int = 0, dtype: torch.dtype = torch.float64, device: str | torch.device = "cpu"
) -> QuadraticProblem:
    kw: dict[str, Any] = {}
    for k, v in targets.items():
        if k in ("d", "d_c", "M"):
            if isinstance(v, bool) or not float(v).is_integer():
                raise ParameterError(k, f"must be an integer (got {v!r})")
            kw[k] = int(v)
        else:
            kw[k] = float(v)
    return QuadraticProblem.from_targets(**kw, seed=seed, dtype=dtype, device=device)


def default_cut(model: nn.Module, input_shape: tuple[int, ...]) -> str:
    """The middle cut of a model (the client holds about half the blocks)."""
    from verify.models import model_cuts

    cuts = model_cuts(model, input_shape, flops=False).cuts
    if len(cuts) < 2:
        raise ParameterError("--cut", "the model has a single block: there is nothing to split")
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
    ``clients`` clients partitioned by ``partition``."""
    from verify.constants.cli import loss_for, model_for
    from verify.data import partition as split_clients
    from verify.data import train_test

    train, test = train_test(data, seed=seed)
    shape = tuple(train.input_shape)
    X, Xt = train.X, test.X
    if input_shape is not None:
        if math.prod(input_shape) != math.prod(shape):
            raise ParameterError("--input-shape", f"{input_shape} does not hold a sample of shape {shape}")
        shape = tuple(input_shape)
        X, Xt = X.reshape(len(X), *shape), Xt.reshape(len(Xt), *shape)
    torch.manual_seed(seed)  # the model's initialisation
    net = model_for(model, shape, train.classes) if isinstance(model, str) else model
    lossf = loss_for(loss, train.y)
    where = cut if cut is not None else default_cut(net, shape)
    idx = split_clients(train.y, clients, partition, seed=seed)
    return ModelProblem.at_cut(
        net, where, lossf, X, train.y, idx, X_test=Xt, y_test=test.y, input_shape=shape,
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
