r"""The oracle every algorithm runs on: :class:`Problem`, a split problem seen only through pure functions.

Every algorithm sees a problem only through these functions, so one algorithm code serves every problem, and
the batched paths can ``torch.func.vmap`` them over the client axis:

* ``client_forward(pc, x) -> h``: the client part (parameters ``pc``) on inputs ``x``, the smashed data;
* ``server_loss(ps, h, y) -> l``: per-sample losses of the server part on ``h``;
* ``aux_loss(pa, h, y) -> l``: per-sample losses of the client's auxiliary head (HERON-SFL, sfl_aux);
* ``sample(m, size, gen) -> Batch``: a mini-batch of client ``m`` (with per-sample weights, so ragged clients
  can be padded and masked in the batched paths);
* ``full_gradient(pc, ps) -> FullGradient``: the loss and gradient of the objective the theorems define,

.. math:: f(x) = \frac1M \sum_{m=1}^M f_m(x),\qquad f_m(x) = \frac1{n_m}\sum_{i\in\mathcal D_m} \ell(x; \xi_i),

clients weighted equally as in every seed (MU-SplitFed eq. (1), sl_noniid eq. (1), cut_layer eq. (1)).

Besides the oracle, a problem states its sizes (:meth:`Problem.counts`), its clients' weights
(:meth:`Problem.client_weights`) and the constants the theorems assume (:meth:`Problem.constants`: exact on a
quadratic, measured on a model), as the same :class:`sfltheory.constants.Constants` record either way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from sfltheory.constants import Constants
from verify.ops import tree
from verify.ops.batch import Batch, weighted_mean
from verify.ops.tree import Params

__all__ = ["Counts", "FullGradient", "Point", "Problem"]

# A point of the problem as ``Problem.init`` returns it: {"client": ..., "server": ...} (and "aux").
Point = Mapping[str, Mapping[str, Tensor]]


@dataclass(frozen=True)
class FullGradient:
    """Loss and gradient of f = (1/M) sum_m f_m at one point, by part."""

    loss: float
    client: Params
    server: Params

    @property
    def sqnorm_client(self) -> float:
        r""":math:`\|\nabla_{x_c} f\|^2`, the squared norm of the client part of the gradient."""
        return float(tree.sqnorm(self.client))

    @property
    def sqnorm_server(self) -> float:
        r""":math:`\|\nabla_{x_s} f\|^2`, the squared norm of the server part of the gradient."""
        return float(tree.sqnorm(self.server))


@dataclass(frozen=True, kw_only=True)
class Counts:
    """The sizes a bound takes: clients ``M``, parameters ``d`` = ``d_c`` + ``d_s`` (client and server parts) and
    ``d_aux`` (the client's auxiliary head; 0 without one)."""

    M: int
    d: int
    d_c: int
    d_s: int
    d_aux: int


class Problem(ABC):
    """A split problem: ``M`` clients, a client part, a server part and (optionally) an auxiliary head."""

    M: int
    name: str
    device: torch.device
    dtype: torch.dtype

    @abstractmethod
    def init(self) -> dict[str, Params]:
        """The starting point x^0: ``{"client": ..., "server": ...}`` and ``"aux"`` (the auxiliary head's)."""

    @abstractmethod
    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        """The smashed data h: the client part with parameters ``pc`` on inputs ``x`` (one row per sample)."""

    @abstractmethod
    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """Per-sample losses of the server part with parameters ``ps`` on the smashed data ``h``, targets ``y``."""

    @abstractmethod
    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """Per-sample losses of the client's auxiliary head ``pa`` on the smashed data ``h`` (HERON-SFL, sfl_aux)."""

    @abstractmethod
    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        """``size`` samples of client ``m`` drawn without replacement (all of them when it holds fewer)."""

    def sample_many(self, clients: Sequence[int], gens: Sequence[Sequence[torch.Generator]], size: int) -> Batch:
        """The mini-batches ``sample(clients[i], size, gens[i][k])`` stacked on axes (client, step, sample), padded
        and masked when ragged. A problem that can gather them in one call overrides this (same numbers)."""
        rows = zip(clients, gens, strict=True)
        return Batch.stack([Batch.stack([self.sample(m, size, g) for g in row]) for m, row in rows])

    @abstractmethod
    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        """The loss and gradient of f = (1/M) sum_m f_m at (``pc``, ``ps``), exact (every sample, no noise)."""

    def evaluate(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> dict[str, float]:
        """Held-out metrics (test accuracy); none for a synthetic problem."""
        return {}

    @property
    @abstractmethod
    def activation(self) -> int:
        """Values per sample that cross the cut (the smashed data's size)."""

    @property
    @abstractmethod
    def client_fraction(self) -> float:
        """The client's share of the per-sample work (FLOPs where known, else parameters), for the time model."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-able description that, with the seed, reproduces the problem."""

    @abstractmethod
    def constants(self, *, at: Point | None = None, needed: Iterable[str] | None = None, batch: int = 1) -> Constants:
        """The constants the theorems assume, at the point ``at`` (default: :meth:`init`), as a
        :class:`~sfltheory.constants.Constants` record (canonical names and ``name[variant]`` keys: ``eps2`` is the
        max over clients, ``eps2[mean]`` the mean). ``needed``: the keys wanted (e.g.
        :func:`sfltheory.constants.needed_keys` of a result; None: every one the problem provides) -- a problem may
        return more. ``batch``: the mini-batch size of the ``sigma2[batch]`` variants."""

    @property
    def activation_bytes(self) -> int:
        """Bytes of one sample's smashed data (and of its gradient) as sent."""
        return self.activation * (torch.finfo(self.dtype).bits // 8)

    def loss(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor], batch: Batch) -> Tensor:
        """The mini-batch mean loss of the split model (client then server)."""
        return weighted_mean(self.server_loss(ps, self.client_forward(pc, batch.x), batch.y), batch.w)

    def counts(self) -> Counts:
        """Clients and parameter counts, read off the starting point (so they are the trainer's own sizes)."""
        x0 = self.init()
        d_c, d_s = tree.numel(x0["client"]), tree.numel(x0["server"])
        return Counts(M=self.M, d=d_c + d_s, d_c=d_c, d_s=d_s, d_aux=tree.numel(x0["aux"]) if "aux" in x0 else 0)

    def client_sizes(self) -> tuple[int, ...] | None:
        """How many samples each client holds, for an algorithm that weighs clients by their data; ``None`` where
        the clients draw from distributions instead of holding finite datasets (a synthetic problem)."""
        return None

    def client_weights(self) -> tuple[float, ...]:
        """The clients' weights in f = sum_m alpha_m f_m: 1/M each, as in every seed."""
        return (1.0 / self.M,) * self.M
