r"""The zeroth-order gradient estimator of the seeds, on parameter trees: one implementation for the algorithms that
train with it and for the measurement of its error.

**MU-SplitFed** (Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient
Split Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155; seed
``000_0fb66116fc20c956.txt``), eq. (3), SPSA with a central difference, averaged over P perturbations as App. C.2
(proof of Lemma C.2, "multi-perturbation") defines it:

.. math::
    \hat\nabla f(x) = \frac1P\sum_{p=1}^P \frac{f(x+\lambda u_p)-f(x-\lambda u_p)}{2\lambda}\,u_p,
    \qquad u_p \sim \mathcal U\big(\sqrt d\,\mathbb S^{d-1}\big)\ \text{i.i.d.}

(the form ``"spsa"``, directions of the law ``"sqrt_d_sphere"``).

**HERON-SFL** (Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076; seed ``001_e8dcbf2a405221d7.txt``), eq. (2), a forward
difference, averaged over P directions:

.. math::
    \hat\nabla f(x) = \frac1P\sum_{p=1}^P \frac{s}{\mu}\big[f(x+\mu u_p)-f(x)\big]\,u_p,

(the form ``"forward"``) with, by the direction law: ``"unit_sphere"``, :math:`u_p \sim \mathcal U(\mathbb
S^{d-1})` and s = d (eq. (2) with Definition 1 (3) and Lemma 1 (18): the setting of Theorem 1);
``"sqrt_d_sphere"``, :math:`u_p \sim \mathcal U(\sqrt d\,\mathbb S^{d-1})` and s = 1 (Lemma 5, Theorem 2);
``"gaussian"``, :math:`u_p \sim \mathcal N(0, I_d)` and s = 1 (the representation (4)). Eq. (2) also averages over
the B samples of a mini-batch; here f is whatever the caller passes (the mini-batch mean loss, or the objective).
The smoothing radius (:math:`\lambda` in MU-SplitFed, :math:`\mu` in HERON-SFL) is ``lam`` throughout.

The pieces, each a pure function of trees (``dict[str, Tensor]``, :mod:`verify.ops.tree`), so that the per-client
reference loops call them per client and the batched paths ``torch.func.vmap`` them over a client axis:

* :func:`gaussian_draws` stacks the P Gaussian draws of a tree (a leading P axis), in the order p = 0..P-1, from
  whatever source the caller has (keyed draws regenerated from the seed, or a generator consumed in order);
* :func:`directions` turns them into the :math:`u_p` of a law (d is the size of one draw of the whole tree, so two
  parts perturbed jointly are one tree) and gives the scale s;
* :func:`perturb` is :math:`x + c\,u`; :func:`over_perturbations` maps a function over the P directions, batched
  (``vmap``) or looped (the reference);
* :func:`central_differences` and :func:`forward_values` evaluate f at the perturbed points;
  :func:`spsa_estimate` and :func:`forward_estimate` turn those values into the P-average above;
* :func:`estimate` is the whole estimator for an f that one party evaluates. MU-SplitFed's client splits its
  evaluation across the cut (perturbed embeddings up, loss differences down), so it calls the pieces.

Where the Gaussian draws come from (``draws``, an algorithm parameter of both algorithms, :data:`DRAWS`):

* ``"device"`` (:data:`DEVICE_DRAWS`): client m's P draws of a tree for one (purpose, step) are one call,
  ``torch.randn((P, d))`` on the parameters' device and in their dtype, from a ``torch.Generator`` of that device
  seeded from (seed, round, "randn_block", purpose, step, m) (``Context.randn_block``), the flat block split into
  the tree's tensors by :func:`split_flat`. Reproducible on one device; another device (CUDA's Philox against the
  CPU's Mersenne twister) or dtype gives other numbers. The unit is one client: CUDA assigns Philox numbers by
  thread layout, which depends on the tensor's size, so a block of every client could not be cut per client (the
  per-client loop) or per memory chunk without changing the numbers. Per client, the loop draws exactly the
  batched path's slice and any chunking of the clients (:func:`client_chunks`) draws the same numbers.
* ``"cpu"`` (:data:`CPU_DRAWS`): one CPU generator per (client, step, perturbation), float64, then cast and moved
  (``Context.randn_like``): the same numbers on every device and dtype, the curves of runs made before the
  device draws existed, at one generator and one call per client, perturbation and step
  (:func:`per_client_draws`).

Memory: a batched round holds about :data:`DRAW_COPIES` copies of P draws of the perturbed parts per client
(M P d values: 3.5 GB in float32 for M = 4, P = 100, d = 2.2M), so the algorithms run the clients in consecutive
chunks of at most ``memory_budget // per_client`` clients (:func:`client_chunks`; all M while they fit), with the
same numbers.

The arithmetic is the algorithms': :math:`u = z \cdot (r/\sqrt{\sum z^2})` with r the law's radius, coefficients
:math:`\delta_p/(2\lambda P)` and :math:`(s/\lambda)(f_p - f_0)/P`, and the average a ``tensordot`` of the
coefficients with the stacked directions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence

import torch
from torch import Tensor
from torch.func import vmap

from sfltheory.errors import ParameterError
from verify.ops import tree
from verify.ops.clients import chunk_for, memory_budget
from verify.ops.tree import Params

SPSA, FORWARD = "spsa", "forward"
FORMS = (SPSA, FORWARD)
UNIT_SPHERE, SQRT_D_SPHERE, GAUSSIAN = "unit_sphere", "sqrt_d_sphere", "gaussian"
LAWS = (UNIT_SPHERE, SQRT_D_SPHERE, GAUSSIAN)
# The law each seed pairs with its form: MU-SplitFed eq. (3) and HERON-SFL eq. (2) with Definition 1.
LAW_OF_FORM = {SPSA: SQRT_D_SPHERE, FORWARD: UNIT_SPHERE}
DEVICE_DRAWS, CPU_DRAWS = "device", "cpu"
DRAWS = (DEVICE_DRAWS, CPU_DRAWS)
# Copies of one client's P draws a batched zeroth-order step holds at once: the draws, the directions and the two
# perturbed points x +- lam u (the forward difference holds one; the estimate reuses the directions).
DRAW_COPIES = 4


def gaussian_draws(sample: Callable[[int], Mapping[str, Tensor]], P: int) -> Params:
    """The P Gaussian draws ``sample(0), ..., sample(P - 1)`` of a tree, stacked on a leading P axis (called in
    that order, so a generator-backed ``sample`` is consumed as a loop over p would consume it)."""
    return tree.stack([sample(p) for p in range(P)])


def per_client_draws(sample: Callable[[int, int], Mapping[str, Tensor]], clients: Sequence[int], P: int) -> Params:
    """The CPU draws: ``sample(m, p)`` for each client m of ``clients`` and p = 0..P-1, stacked on leading axes
    (client, perturbation)."""
    return tree.stack([gaussian_draws(functools.partial(sample, m), P) for m in clients])


def split_flat(z: Tensor, like: Mapping[str, Tensor]) -> Params:
    """A flat draw ``z`` of shape ``(..., d)``, d the size of ``like``, as a tree shaped like ``like`` with the
    leading axes of ``z``: views of consecutive pieces, in the key order of ``like``."""
    d = tree.numel(like)
    if z.shape[-1] != d:
        raise ParameterError("z", f"a flat draw of a tree of {d} values must have {d} on its last axis ({z.shape[-1]})")
    lead, out, i = z.shape[:-1], {}, 0
    for k, v in like.items():
        out[k] = z[..., i : i + v.numel()].view(*lead, *v.shape)
        i += v.numel()
    return out


def client_chunks(M: int, per_client: int, device: torch.device, budget: int | None = None) -> list[list[int]]:
    """Clients 0..M-1 in consecutive chunks of at most ``memory_budget // per_client`` (at least one) clients,
    ``per_client`` the bytes one client's draws occupy (:data:`DRAW_COPIES` times its blocks): the chunks of a
    batched round whose draws would not fit at once (``budget``: the ceiling, default
    :func:`verify.ops.clients.memory_budget`'s). The draws are per client, so the numbers do not depend on the
    chunks."""
    c = chunk_for(per_client, memory_budget(device, budget), M)
    return [list(range(s, min(s + c, M))) for s in range(0, M, c)]


def directions_batched(z: Mapping[str, Tensor], law: str) -> tuple[Params, float]:
    """:func:`directions` of stacked draws with a leading client axis (client, perturbation, ...)."""
    d = sum(math.prod(v.shape[2:]) for v in z.values())
    u: Params = vmap(lambda w: directions(w, law)[0])(dict(z))
    return u, float(d) if law == UNIT_SPHERE else 1.0


def directions(z: Mapping[str, Tensor], law: str) -> tuple[Params, float]:
    r"""Gaussian draws ``z`` of a tree (a leading P axis) -> the directions :math:`u_p` of ``law`` and the
    estimator's scale s (d for the unit sphere, else 1).

    The sphere laws normalise each draw of the whole tree jointly, so :math:`u_p` is uniform on the sphere of
    :math:`\mathbb R^d`, d the size of one draw of every tensor of the tree. Works under ``vmap``."""
    if law == GAUSSIAN:
        return dict(z), 1.0
    leaves = list(z.values())
    d = sum(math.prod(v.shape[1:]) for v in leaves)
    # the squared norms by one fused reduction per leaf (``pow(2).sum`` wrote a copy of every draw first: 4% of a
    # batched MU-SplitFed round at P = 100 on the CPU)
    sq = sum(torch.linalg.vector_norm(v.reshape(v.shape[0], -1), dim=1).square() for v in leaves)
    radius = 1.0 if law == UNIT_SPHERE else math.sqrt(d)
    f = radius / torch.sqrt(sq)
    u = {k: v * f.reshape((-1,) + (1,) * (v.ndim - 1)) for k, v in z.items()}
    return u, float(d) if law == UNIT_SPHERE else 1.0


def perturb(x: Mapping[str, Tensor], u: Mapping[str, Tensor], c: float) -> Params:
    r""":math:`x + c\,u` (one direction, no P axis)."""
    # one fused pass (x + c*u wrote c*u first: 8% of a batched MU-SplitFed round at P = 100 on the CPU)
    return {k: torch.add(x[k], u[k], alpha=c) for k in x}


def over_perturbations(fn: Callable[[Params], Tensor], U: Mapping[str, Tensor], vec: bool) -> Tensor:
    """``fn`` on each direction of the stacked tree ``U`` (leading axis P), results stacked on a new axis 0: one
    batched call (``vec``, vmap over the directions) or a loop (the reference)."""
    if vec:
        out: Tensor = vmap(fn)(dict(U))
        return out
    n = next(iter(U.values())).shape[0]
    return torch.stack([fn({k: v[p] for k, v in U.items()}) for p in range(n)])


def central_differences(
    f: Callable[[Params], Tensor], x: Mapping[str, Tensor], U: Mapping[str, Tensor], lam: float, vec: bool
) -> Tensor:
    r"""The P differences :math:`\delta_p = f(x+\lambda u_p) - f(x-\lambda u_p)` of eq. (3)."""
    return over_perturbations(lambda u: f(perturb(x, u, lam)) - f(perturb(x, u, -lam)), U, vec)


def forward_values(
    f: Callable[[Params], Tensor], x: Mapping[str, Tensor], U: Mapping[str, Tensor], lam: float, vec: bool
) -> Tensor:
    r"""The P values :math:`f(x+\mu u_p)` of eq. (2)."""
    return over_perturbations(lambda u: f(perturb(x, u, lam)), U, vec)


def combine(coef: Tensor, U: Mapping[str, Tensor]) -> Params:
    r""":math:`\sum_p c_p u_p` for the coefficients ``coef`` (shape ``(P,)``) and the stacked directions."""
    return {k: torch.tensordot(coef.to(v.dtype), v, dims=1) for k, v in U.items()}


def spsa_estimate(deltas: Tensor, U: Mapping[str, Tensor], lam: float) -> Params:
    r"""MU-SplitFed's estimate :math:`\frac1P\sum_p \frac{\delta_p}{2\lambda}u_p` (eq. (3), App. C.2) from the P
    central differences and the stacked directions."""
    return combine(deltas / (2 * lam * deltas.shape[0]), U)


def forward_estimate(values: Tensor, f0: Tensor | float, U: Mapping[str, Tensor], lam: float, scale: float) -> Params:
    r"""HERON-SFL's estimate :math:`\frac1P\sum_p \frac{s}{\mu}[f(x+\mu u_p) - f(x)]u_p` (eq. (2)) from the P
    perturbed values, the unperturbed one and the stacked directions."""
    return combine((scale / lam) * (values - f0) / values.shape[0], U)


def estimate(
    f: Callable[[Params], Tensor],
    x: Mapping[str, Tensor],
    U: Mapping[str, Tensor],
    lam: float,
    *,
    form: str = SPSA,
    scale: float = 1.0,
    f0: Tensor | float | None = None,
    vec: bool = True,
) -> Params:
    r"""The estimate of :math:`\nabla f(x)` of ``form`` along the stacked directions ``U`` (from
    :func:`directions`, whose scale goes to ``scale``): :func:`spsa_estimate` of the :func:`central_differences`,
    or :func:`forward_estimate` of the :func:`forward_values` (``f0``: f(x) when the caller has it, else one more
    evaluation). ``vec``: the P evaluations in one vmapped call, else one by one (the reference)."""
    if form == SPSA:
        return spsa_estimate(central_differences(f, x, U, lam, vec), U, lam)
    base = f(dict(x)) if f0 is None else f0
    return forward_estimate(forward_values(f, x, U, lam, vec), base, U, lam, scale)
