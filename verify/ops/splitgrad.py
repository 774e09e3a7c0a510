r"""First-order oracles of a split model (split backprop), as pure functions of parameter trees.

Each function takes a :class:`~verify.problems.Problem` and trees, and returns trees; none touches
module state, so the same call serves the per-client reference loop and, under ``torch.func.vmap`` over a
leading client axis, the batched path. Losses are means over the real samples of a batch (weights ``w``).

The zeroth-order estimators of the seeds are :mod:`verify.ops.zo`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import torch
from torch import Tensor
from torch.func import grad_and_value, vjp

from verify.ops.batch import Batch, weighted_mean
from verify.ops.tree import Params

if TYPE_CHECKING:
    from verify.problems import Problem


def grads(
    problem: Problem, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor], batch: Batch
) -> tuple[Tensor, Params, Params]:
    """Mean loss on the batch and its gradient in the client and server parameters (split backprop)."""

    def f(a: Params, b: Params) -> Tensor:
        return weighted_mean(problem.server_loss(b, problem.client_forward(a, batch.x), batch.y), batch.w)

    (gc, gs), loss = grad_and_value(f, argnums=(0, 1))(dict(pc), dict(ps))
    return loss, gc, gs


def grads_eager(
    problem: Problem, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor], batch: Batch
) -> tuple[Tensor, Params, Params]:
    """:func:`grads` with plain autograd, for the per-client reference paths: the same numbers without the
    ``torch.func`` transform's per-call cost (about 20% of a small model's step), and an independent code
    path for the batched-vs-loop tests. Not usable under ``vmap``."""
    a = {k: v.detach().requires_grad_(True) for k, v in pc.items()}
    b = {k: v.detach().requires_grad_(True) for k, v in ps.items()}
    loss = split_loss(problem, a, b, batch)
    g = torch.autograd.grad(loss, [*a.values(), *b.values()])
    return loss.detach(), dict(zip(a, g[: len(a)], strict=True)), dict(zip(b, g[len(a) :], strict=True))


def server_grads(problem: Problem, ps: Mapping[str, Tensor], h: Tensor, batch: Batch) -> tuple[Tensor, Params, Tensor]:
    """Server side of split backprop on uploaded smashed data ``h``: loss, server gradient and dL/dh."""

    def f(b: Params, hh: Tensor) -> Tensor:
        return weighted_mean(problem.server_loss(b, hh, batch.y), batch.w)

    (gs, gh), loss = grad_and_value(f, argnums=(0, 1))(dict(ps), h)
    return loss, gs, gh


def client_backward(problem: Problem, pc: Mapping[str, Tensor], x: Tensor, gh: Tensor) -> Params:
    """Client side of split backprop: the gradient in the client parameters given dL/dh from the server."""
    pull = vjp(lambda a: problem.client_forward(a, x), dict(pc))[1]
    (gc,) = pull(gh)
    return gc


def server_grads_eager(
    problem: Problem, ps: Mapping[str, Tensor], h: Tensor, b: Batch
) -> tuple[Tensor, Params, Tensor]:
    """:func:`server_grads` with plain autograd (not usable under ``vmap``)."""
    p = {k: v.detach().requires_grad_(True) for k, v in ps.items()}
    hh = h.detach().requires_grad_(True)
    loss = weighted_mean(problem.server_loss(p, hh, b.y), b.w)
    g = torch.autograd.grad(loss, [*p.values(), hh], materialize_grads=True)
    return loss.detach(), dict(zip(p, g[:-1], strict=True)), g[-1]


def client_backward_eager(problem: Problem, pc: Mapping[str, Tensor], x: Tensor, gh: Tensor) -> Params:
    """:func:`client_backward` with plain autograd (not usable under ``vmap``)."""
    a = {k: v.detach().requires_grad_(True) for k, v in pc.items()}
    g = torch.autograd.grad(problem.client_forward(a, x), list(a.values()), grad_outputs=gh, materialize_grads=True)
    return dict(zip(a, g, strict=True))


def aux_grads(
    problem: Problem, pc: Mapping[str, Tensor], pa: Mapping[str, Tensor], batch: Batch
) -> tuple[Tensor, Params, Params]:
    """Local loss through the auxiliary head and its gradient in the client and auxiliary parameters."""

    def f(a: Params, b: Params) -> Tensor:
        return weighted_mean(problem.aux_loss(b, problem.client_forward(a, batch.x), batch.y), batch.w)

    (gc, ga), loss = grad_and_value(f, argnums=(0, 1))(dict(pc), dict(pa))
    return loss, gc, ga


def split_loss(problem: Problem, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor], batch: Batch) -> Tensor:
    """The weighted mean loss of ``batch`` through the whole split model: the server part ``ps`` on the client part
    ``pc``'s smashed data (padding of weight 0 ignored)."""
    return weighted_mean(problem.server_loss(ps, problem.client_forward(pc, batch.x), batch.y), batch.w)
