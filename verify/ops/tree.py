"""Arithmetic on parameter trees: ``dict[str, Tensor]`` (one part of a model, by parameter name).

The algorithms are written as updates of such trees (``x <- x - eta g``), and the batched paths hold the same
trees with a leading client axis (``stack``/``unstack``). Every function returns new tensors; none mutates its
arguments, so a tree saved in a checkpoint is never changed behind the caller's back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import torch
from torch import Tensor

Params = dict[str, Tensor]


def _device(a: Mapping[str, Tensor]) -> torch.device:
    """Where the tree's tensors are (the CPU for an empty tree)."""
    return next(iter(a.values())).device if a else torch.device("cpu")


def clone(a: Mapping[str, Tensor]) -> Params:
    """A detached copy of every tensor (no shared storage, no autograd history)."""
    return {k: v.detach().clone() for k, v in a.items()}


def zeros_like(a: Mapping[str, Tensor]) -> Params:
    """A tree of zeros shaped like ``a`` (same keys, shapes, dtypes and devices)."""
    return {k: torch.zeros_like(v) for k, v in a.items()}


def add(a: Mapping[str, Tensor], b: Mapping[str, Tensor], alpha: float | Tensor = 1.0) -> Params:
    """``a + alpha b``."""
    return {k: a[k] + alpha * b[k] for k in a}


def sub(a: Mapping[str, Tensor], b: Mapping[str, Tensor]) -> Params:
    """``a - b``, over the keys of ``a``."""
    return {k: a[k] - b[k] for k in a}


def scale(a: Mapping[str, Tensor], c: float | Tensor) -> Params:
    """``c a``: every tensor times the scalar (or broadcastable tensor) ``c``."""
    return {k: c * v for k, v in a.items()}


def sqnorm(a: Mapping[str, Tensor]) -> Tensor:
    """``||a||^2`` over every tensor of the tree (a 0-d tensor, in float64)."""
    return sum((v.double().pow(2).sum() for v in a.values()), torch.zeros((), dtype=torch.float64, device=_device(a)))


def sqnorm_batched(a: Mapping[str, Tensor]) -> Tensor:
    """``||a_m||^2`` for each entry ``m`` of a stacked tree (leading axis), in float64."""
    first = next(iter(a.values()))
    out = torch.zeros(first.shape[0], dtype=torch.float64, device=first.device)
    for v in a.values():
        out = out + v.double().reshape(v.shape[0], -1).pow(2).sum(1)
    return out


def dot(a: Mapping[str, Tensor], b: Mapping[str, Tensor]) -> Tensor:
    """The inner product ``<a, b>`` summed over every tensor of the tree (a 0-d tensor, in float64)."""
    start = torch.zeros((), dtype=torch.float64, device=_device(a))
    return sum(((a[k].double() * b[k].double()).sum() for k in a), start)


def mean(trees: Sequence[Mapping[str, Tensor]], weights: Sequence[float] | None = None) -> Params:
    """The (weighted) average of trees; equal weights unless given (weights are normalised)."""
    if weights is None:
        return {k: torch.stack([t[k] for t in trees]).mean(0) for k in trees[0]}
    total = float(sum(weights))
    return {k: sum(w / total * t[k] for w, t in zip(weights, trees, strict=True)) for k in trees[0]}  # type: ignore[misc]


def stack(trees: Sequence[Mapping[str, Tensor]]) -> Params:
    """Trees -> one tree with a leading axis (the client axis of the batched paths)."""
    return {k: torch.stack([t[k] for t in trees]) for k in trees[0]}


def unstack(a: Mapping[str, Tensor]) -> list[Params]:
    """A stacked tree -> one tree per entry of its leading axis (the inverse of :func:`stack`; views, not copies)."""
    n = next(iter(a.values())).shape[0]
    return [{k: v[i] for k, v in a.items()} for i in range(n)]


def flat(a: Mapping[str, Tensor], names: Iterable[str] | None = None) -> Tensor:
    """Concatenate the tree (in ``names`` order, else its own) into one vector."""
    keys = list(a) if names is None else list(names)
    return torch.cat([a[k].reshape(-1) for k in keys])


def unflat(vec: Tensor, like: Mapping[str, Tensor]) -> Params:
    """Split a vector back into a tree shaped like ``like`` (its key order)."""
    out: Params = {}
    i = 0
    for k, v in like.items():
        n = v.numel()
        out[k] = vec[i : i + n].reshape(v.shape).to(v.dtype)
        i += n
    return out


def numel(a: Mapping[str, Tensor]) -> int:
    """The number of scalars in the tree (the dimension d of the flattened vector)."""
    return sum(v.numel() for v in a.values())


def nbytes(a: Mapping[str, Tensor] | Tensor) -> int:
    """Bytes of a tensor or a tree as it would be sent (element size times count)."""
    if isinstance(a, Tensor):
        return a.numel() * a.element_size()
    return sum(v.numel() * v.element_size() for v in a.values())


def all_finite(a: Mapping[str, Tensor]) -> bool:
    """Whether no entry of any tensor is NaN or infinite (a diverged run has some)."""
    return all(bool(torch.isfinite(v).all()) for v in a.values())
