r"""Hessian-vector products of an :class:`~verify.ops.objective.Objective`: the one implementation that the
objective's :meth:`~verify.ops.objective.Objective.hvp` and every curvature estimator use.

The product is Pearlmutter's double backward (B. A. Pearlmutter, "Fast exact multiplication by the Hessian",
Neural Computation 6(1), 1994): with :math:`g(x) = \nabla_w f(x)` built with ``create_graph``,

.. math:: H_{ww}\,v = \nabla_w \big(g(x)^\top v\big),

one chunk of the data at a time, :math:`f = \text{scale}\cdot\sum_{\text{chunks}}\sum_i w_i\ell_i` as
:meth:`Objective.terms` yields it. Only the parameters ``w`` (a part, or all) are leaves, so the other parameters'
gradients are never formed: a server block never backpropagates into the client. Reverse-over-reverse: on the
CPU, ``torch.func``'s forward-over-reverse (``jvp`` of ``grad``) measured 30x slower per product on small models
(forward-mode decompositions). Attention runs under the math kernel (:meth:`Objective.second_order`): the fused
kernels have no double backward.

* :func:`hessian_vector_product` -- :math:`H_{ww}v` rebuilding each chunk's first-order graph (memory of one
  chunk);
* :func:`first_order_graphs` and :func:`kept_graph_product` -- the same product from first-order graphs built once
  and kept (one double-backward pass per product, the memory of every chunk's graph);
* :class:`HessianOperator` -- a diagonal block :math:`H_{pp}` as a SciPy ``LinearOperator`` on either path.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective
from verify.ops.tree import Params


def hessian_vector_product(
    obj: Objective,
    params: Mapping[str, Tensor],
    v: Mapping[str, Tensor],
    wrt: Sequence[str] | None = None,
    idx: Tensor | None = None,
) -> Params:
    r""":math:`H_{ww}v` at ``params``: the Hessian of the objective (or of the mean loss over ``idx``) restricted
    to the parameters ``wrt`` (default: every parameter of ``params``), rows and columns, one chunk at a time.
    ``v`` may hold only some of them (the rest of the direction is zero); the product is returned for all of
    ``wrt``."""
    names = list(params) if wrt is None else list(wrt)
    out = {k: torch.zeros_like(params[k]) for k in names}
    it, scale = obj.terms(idx)
    for X, y, w in it:
        leaves = {k: params[k].detach().requires_grad_(True) for k in names}
        q = {**params, **leaves}
        with torch.enable_grad(), obj.second_order():
            total = obj.weighted_sum(q, X, y, w)
            gs = torch.autograd.grad(total, list(leaves.values()), create_graph=True, allow_unused=True)
            # a gradient without a graph is constant in the parameters: its rows of H are zero
            keep = [(g, v[k]) for k, g in zip(names, gs, strict=True) if k in v and g is not None and g.requires_grad]
            if not keep:
                continue
            hv = torch.autograd.grad(
                [g for g, _ in keep], list(leaves.values()), [u for _, u in keep], allow_unused=True
            )
        for k, h in zip(names, hv, strict=True):
            if h is not None:
                out[k] += h
    return {k: t * scale for k, t in out.items()}


def first_order_graphs(
    obj: Objective, params: Mapping[str, Tensor], leaves: Mapping[str, Tensor], idx: Tensor | None, budget: float
) -> tuple[list[dict[str, Tensor]] | None, float]:
    """Every chunk's first-order graph, name -> gradient in the ``leaves`` (built with ``create_graph``), and the
    bytes of the graphs' saved tensors (counted on the first chunk as autograd saves them, times the number of
    chunks). A gradient that is constant in the parameters has no graph and is left out (its rows of H are zero).
    The graphs are ``None`` when they would not fit in ``budget`` bytes (the build stops after the first chunk)."""
    q = {**params, **leaves}
    names = list(leaves)
    graphs: list[dict[str, Tensor]] = []
    it, _ = obj.terms(idx)
    chunks = math.ceil(obj.support_size(idx) / obj.chunk)
    saved = [0]
    nbytes = 0.0

    def pack(t: Tensor) -> Tensor:
        saved[0] += t.numel() * t.element_size()
        return t

    for i, (X, y, w) in enumerate(it):
        hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t) if i == 0 else contextlib.nullcontext()
        with torch.enable_grad(), obj.second_order(), hooks:
            total = obj.weighted_sum(q, X, y, w)
            g = torch.autograd.grad(total, [leaves[k] for k in names], create_graph=True, allow_unused=True)
        graphs.append({k: t for k, t in zip(names, g, strict=True) if t is not None and t.requires_grad})
        if i == 0:
            nbytes = float(saved[0]) * chunks
            if nbytes > budget:
                return None, nbytes
    return graphs, nbytes


def kept_graph_product(
    graphs: Sequence[Mapping[str, Tensor]], leaves: Mapping[str, Tensor], names: Sequence[str], v: Mapping[str, Tensor]
) -> list[Tensor]:
    r"""The unscaled :math:`H_{ww}v` (rows ``names``, in that order) from kept first-order graphs: one double
    backward through each chunk's graph, which is kept for the next product."""
    wrt = [leaves[k] for k in names]
    out = [torch.zeros_like(t) for t in wrt]
    for graph in graphs:
        ks = [k for k in names if k in graph]
        if not ks:
            continue
        hvs = torch.autograd.grad([graph[k] for k in ks], wrt, [v[k] for k in ks], retain_graph=True, allow_unused=True)
        for o, h in zip(out, hvs, strict=True):
            if h is not None:
                o += h
    return out


class HessianOperator(LinearOperator):
    r"""The block :math:`H_{pp}` of the Hessian of the objective as a SciPy ``LinearOperator`` (and, through
    :meth:`mv`, on torch tensors).

    ``part=None`` is the whole model. :meth:`mv` takes and returns flat tensors on ``obj.device``; the SciPy
    interface takes and returns float64 NumPy. The product runs in ``obj.dtype``, so in float32 it carries
    float32 rounding (relative :math:`\sim 10^{-7}` of :math:`\|H\|\,\|v\|`), which bounds any accuracy asked of
    the methods that use it. ``matvecs`` counts Hessian-vector products.

    By default a product is :func:`hessian_vector_product` with the part's parameters as the only leaves: memory
    of one chunk. ``retain=True`` builds every chunk's first-order graph once and keeps it
    (:func:`first_order_graphs`), so that each product is a single double-backward pass
    (:func:`kept_graph_product`, PyHessian's way for one batch): about 0.7x the time of a product on the benchmark
    CNN, at the memory of every chunk's graph at once (it grows with the data). ``retain="auto"`` keeps the graphs
    when their tensors fit in ``budget`` bytes, and otherwise rebuilds them per product; ``retained`` says which.
    :meth:`restrict` gives another part's operator on the same kept graph.
    """

    def __init__(
        self,
        obj: Objective,
        part: str | None = None,
        params: Mapping[str, Tensor] | None = None,
        idx: Tensor | None = None,
        *,
        retain: bool | str = False,
        budget: float = 2 * 2**30,
    ) -> None:
        if retain not in (True, False, "auto"):
            raise ParameterError("retain", f"must be True, False or 'auto', got {retain!r}")
        self.names = obj.part_names(part)  # raises ParameterError("part", ...) for an unknown part
        n = obj.size(part)
        super().__init__(dtype=np.dtype(np.float64), shape=(n, n))
        self.obj, self.part, self.params, self.idx = obj, part, params, idx
        self.matvecs = 0
        self._base = {k: t.detach() for k, t in (obj.params0 if params is None else params).items()}
        self._scale = obj.terms(idx)[1]
        self._leaves: dict[str, Tensor] = {}
        self._graphs: list[dict[str, Tensor]] | None = None
        self.graph_bytes = 0.0  # the kept graphs' saved tensors (estimated from the first chunk)
        if retain:
            self._leaves = {k: self._base[k].clone().requires_grad_() for k in self.names}
            limit = budget if retain == "auto" else math.inf
            self._graphs, self.graph_bytes = first_order_graphs(obj, self._base, self._leaves, idx, limit)
            if self._graphs is None:
                self._leaves = {}

    @property
    def retained(self) -> bool:
        """Whether products run on kept first-order graphs."""
        return self._graphs is not None

    def restrict(self, part: str | None) -> HessianOperator:
        """The operator of ``part`` at the same point and samples; with ``retain=True`` it shares this operator's
        kept graph when that graph's leaves cover the part (a whole-model graph covers every part)."""
        names = self.obj.part_names(part)
        if self._graphs is None or not set(names) <= set(self._leaves):
            return HessianOperator(self.obj, part, self.params, self.idx, retain=self._graphs is not None)
        op = HessianOperator(self.obj, part, self.params, self.idx)
        op._leaves, op._graphs = self._leaves, self._graphs
        return op

    def gradient(self) -> Tensor:
        r"""The part's rows of :math:`\nabla f` at the operator's point, flat: free from the kept graphs, one
        gradient pass otherwise (not counted in ``matvecs``)."""
        obj = self.obj
        if self._graphs is not None:
            out = [torch.zeros_like(self._base[k]) for k in self.names]
            for graph in self._graphs:
                for o, k in zip(out, self.names, strict=True):
                    if k in graph:
                        o += graph[k].detach()
            # a gradient without a graph is constant in the parameters and was not kept: take the exact one
            if any(k not in graph for graph in self._graphs for k in self.names):
                g = obj.grad(self._base, self.idx)
                return torch.cat([g[k].reshape(-1) for k in self.names])
            return torch.cat([o.reshape(-1) for o in out]) * self._scale
        g = obj.grad(self._base, self.idx)
        return torch.cat([g[k].reshape(-1) for k in self.names])

    def mv(self, v: Tensor) -> Tensor:
        """:math:`H_{pp} v` for a flat ``v`` of the part's size (on ``obj.device``, in ``obj.dtype``)."""
        obj = self.obj
        self.matvecs += 1
        vs = obj.unflat(v.to(obj.device, obj.dtype), self.part)
        if self._graphs is not None:
            out = kept_graph_product(self._graphs, self._leaves, self.names, vs)
            return torch.cat([o.reshape(-1) for o in out]) * self._scale
        hv = hessian_vector_product(obj, self._base, vs, self.names, self.idx)
        return torch.cat([hv[k].reshape(-1) for k in self.names])

    def dense(self) -> Tensor:
        r"""The block as a dense float64 CPU tensor, column :math:`j` being :math:`H_{pp} e_j` (:math:`d_p` products;
        not symmetrised, so the asymmetry shows the products' rounding)."""
        n = self.shape[0]
        cols = [self.matvec(np.eye(1, n, j).ravel()) for j in range(n)]
        return torch.from_numpy(np.stack(cols, axis=1))

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        v = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64).reshape(-1))
        return self.mv(v).to("cpu", torch.float64).numpy().reshape(np.shape(x))

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)  # a Hessian block is symmetric

    def _adjoint(self) -> HessianOperator:
        return self
