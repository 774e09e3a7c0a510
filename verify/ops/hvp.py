r"""Hessian-vector products of an :class:`~verify.ops.objective.Objective`: the one implementation that every
curvature estimator uses, by either of two exact methods.

* ``"reverse"``, :func:`hessian_vector_product`: Pearlmutter's double backward (B. A. Pearlmutter, "Fast exact
  multiplication by the Hessian", Neural Computation 6(1), 1994): with :math:`g(x) = \nabla_w f(x)` built with
  ``create_graph``, :math:`H_{ww}\,v = \nabla_w \big(g(x)^\top v\big)`.
* ``"forward"``, :func:`forward_over_reverse_product`: forward-over-reverse, the directional derivative of the
  gradient, :math:`H_{ww}\,v = \frac{d}{dt}\nabla_w f(x + t v)\big|_{t=0}`, by ``torch.func.jvp`` of
  ``torch.func.grad`` (the JAX autodiff cookbook's ``hvp``): one forward pass carrying a tangent and one backward
  pass, no second graph.

Both run one chunk of the data at a time, :math:`f = \text{scale}\cdot\sum_{\text{chunks}}\sum_i w_i\ell_i` as
:meth:`Objective.terms` yields it, with only the parameters ``w`` (a part, or all) as leaves, so a server block
never differentiates into the client; both agree to rounding (1e-12 relative in float64 in the tests; 5e-7 of the
largest entry in float32 on the small residual network of ``benchmarks/bench_measure.py --small``). Which is
faster depends on the machine and the model: on an H200, one product of ResNet-18 on 1024 samples took 0.877 s by
double backward and 0.445 s by forward-over-reverse (the issue's figures); on this repository's shared 2-core CPU
the two were within 1.3x of each other either way (small residual network, 256 samples: 0.179 s and 0.166 s with
one thread, 0.464 s and 0.538 s with two), and a double backward through a kept first-order graph beat both
(0.081 s against 0.146 s and 0.151 s on one chunk). No fixed rule fits all of that, so ``method="auto"``
(:class:`HessianOperator`'s default) times the paths on one chunk of the objective the first time
(:func:`product_speeds`, cached per model, device, dtype and chunk size) and takes the faster. Attention runs
under the math kernel (:meth:`Objective.second_order`): the fused kernels have no double backward; under it,
attention and batch norm in eval mode run by either method (tests/verify/ops/test_hvp.py).

* :func:`first_order_graphs` and :func:`kept_graph_product` -- the double backward from first-order graphs built
  once and kept (one double-backward pass per product, the memory of every chunk's graph);
* :class:`HessianOperator` -- a diagonal block :math:`H_{pp}` as a SciPy ``LinearOperator`` on any of the paths.

Tensors handed to a product are placed on the objective's device and dtype by ``Objective.placed`` (the one place
where that happens), so a point or a direction given on the CPU works for an objective on CUDA.
"""

from __future__ import annotations

import contextlib
import math
import time
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator
from torch import Tensor, nn
from torch.func import grad, jvp

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective
from verify.ops.tree import Params

METHODS = ("auto", "reverse", "forward")
LABELS = {"reverse": "double backward", "forward": "forward-over-reverse"}  # the methods in words

# Chunk = (inputs, targets, weights or None), as Objective.terms yields them; a ChunkProduct is the unscaled
# product of one chunk: (objective, point, rows, direction, chunk) -> rows of H v.
Chunk = tuple[Tensor, Tensor, Tensor | None]
ChunkProduct = Callable[[Objective, Mapping[str, Tensor], Sequence[str], Mapping[str, Tensor], Chunk], Params]


def reverse_chunk(
    obj: Objective, params: Mapping[str, Tensor], names: Sequence[str], v: Mapping[str, Tensor], chunk: Chunk
) -> Params:
    """One chunk's unscaled rows ``names`` of :math:`Hv` by double backward (rows whose gradient has no graph,
    being constant in the parameters, are zero and left out)."""
    X, y, w = chunk
    leaves = {k: params[k].detach().requires_grad_(True) for k in names}
    q = {**params, **leaves}
    with torch.enable_grad(), obj.second_order():
        total = obj.weighted_sum(q, X, y, w)
        gs = torch.autograd.grad(total, list(leaves.values()), create_graph=True, allow_unused=True)
        # a gradient without a graph is constant in the parameters: its rows of H are zero
        keep = [(g, v[k]) for k, g in zip(names, gs, strict=True) if k in v and g is not None and g.requires_grad]
        if not keep:
            return {}
        hv = torch.autograd.grad([g for g, _ in keep], list(leaves.values()), [u for _, u in keep], allow_unused=True)
    return {k: h for k, h in zip(names, hv, strict=True) if h is not None}


def forward_chunk(
    obj: Objective, params: Mapping[str, Tensor], names: Sequence[str], v: Mapping[str, Tensor], chunk: Chunk
) -> Params:
    r"""One chunk's unscaled rows ``names`` of :math:`Hv` by forward-over-reverse: ``jvp`` of ``grad`` with the
    tangent ``v`` on ``names`` (zero where ``v`` has no entry) and the other parameters held constant."""
    X, y, w = chunk
    leaves = {k: params[k].detach() for k in names}
    rest = {k: t.detach() for k, t in params.items() if k not in leaves}
    tangent = {k: v[k] if k in v else torch.zeros_like(t) for k, t in leaves.items()}

    def f(q: dict[str, Tensor]) -> Tensor:
        return obj.weighted_sum({**rest, **q}, X, y, w)

    with obj.second_order(), warnings.catch_warnings():
        # torch's first jvp imports its forward-AD decompositions, which call the deprecated torch.jit.script
        warnings.filterwarnings("ignore", message=".*torch.jit.script.* is deprecated", category=DeprecationWarning)
        hv = jvp(grad(f), (leaves,), (tangent,))[1]
    return dict(hv)


def _product(
    each: ChunkProduct,
    obj: Objective,
    params: Mapping[str, Tensor],
    v: Mapping[str, Tensor],
    wrt: Sequence[str] | None,
    idx: Tensor | None,
) -> Params:
    params, v = obj.placed(params), obj.placed(v)
    names = list(params) if wrt is None else list(wrt)
    out = {k: torch.zeros_like(params[k]) for k in names}
    it, scale = obj.terms(idx)
    for chunk in it:
        for k, h in each(obj, params, names, v, chunk).items():
            out[k] += h
    return {k: t * scale for k, t in out.items()}


def hessian_vector_product(
    obj: Objective,
    params: Mapping[str, Tensor],
    v: Mapping[str, Tensor],
    wrt: Sequence[str] | None = None,
    idx: Tensor | None = None,
) -> Params:
    r""":math:`H_{ww}v` at ``params`` by double backward: the Hessian of the objective (or of the mean loss over
    ``idx``) restricted to the parameters ``wrt`` (default: every parameter of ``params``), rows and columns, one
    chunk at a time. ``v`` may hold only some of them (the rest of the direction is zero); the product is returned
    for all of ``wrt``."""
    return _product(reverse_chunk, obj, params, v, wrt, idx)


def forward_over_reverse_product(
    obj: Objective,
    params: Mapping[str, Tensor],
    v: Mapping[str, Tensor],
    wrt: Sequence[str] | None = None,
    idx: Tensor | None = None,
) -> Params:
    r"""The same :math:`H_{ww}v` as :func:`hessian_vector_product`, by forward-over-reverse (``torch.func.jvp`` of
    ``torch.func.grad``), one chunk at a time."""
    return _product(forward_chunk, obj, params, v, wrt, idx)


# ---- which method is faster, measured ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Speeds:
    """Seconds of one product on one chunk of ``samples`` samples by each path (``inf`` where it failed, ``why``
    saying how): ``reverse`` double backward rebuilding the first-order graph, ``kept`` double backward through a
    kept graph, ``forward`` forward-over-reverse."""

    reverse: float
    kept: float
    forward: float
    samples: int
    device: str
    why: str = ""

    def choice(self, retain: bool | str) -> str:
        """The faster method for an operator asked to ``retain`` graphs (``"auto"``: where kept graphs beat
        forward-over-reverse; ``True``: always the double backward, which alone keeps graphs)."""
        if retain is True:
            return "reverse"
        rival = self.kept if retain == "auto" else self.reverse
        return "forward" if self.forward < rival else "reverse"

    def describe(self, method: str) -> str:
        """``method`` with the measured times that chose it, for an estimate's method text."""
        shown = ", ".join(f"{k} {getattr(self, k):.3g} s" for k in ("reverse", "kept", "forward"))
        return f"{method} (faster on one chunk of {self.samples} on {self.device}: {shown})"


# per model: (device, dtype, chunk) -> the measured speeds; weak, so that a model's entry goes with the model
_SPEEDS: weakref.WeakKeyDictionary[nn.Module, dict[tuple[str, str, int], Speeds]] = weakref.WeakKeyDictionary()
# A path whose first (cold) product took this many times the fastest one is not timed a second time: on a tiny MLP
# on this CPU forward-over-reverse took 4x the double backward (6 ms against 1.6 ms; per-operator overhead), and a
# second run would only confirm it.
CLEAR_LOSS = 3.0


def _clock(obj: Objective, f: Callable[[], object]) -> float:
    sync = torch.cuda.synchronize if obj.device.type == "cuda" else (lambda *_: None)
    sync(obj.device)
    t = time.perf_counter()
    f()
    sync(obj.device)
    return time.perf_counter() - t


def product_speeds(obj: Objective, params: Mapping[str, Tensor] | None = None) -> Speeds:
    """The time of one whole-model product on the objective's first chunk by each path (cached per model,
    device, dtype and chunk size: measured once).

    Each path runs once cold (which also warms the kernels and allocator for the next) and, unless it took more
    than :data:`CLEAR_LOSS` times the fastest, once more; a path's time is its fastest run (on CUDA between
    synchronisations). The cost: three to six products on one chunk, once per model. A forward-over-reverse
    product that fails (an operator with no forward-mode derivative, or out of memory) counts as infinitely slow.
    """
    key = (str(obj.device), str(obj.dtype), obj.chunk)
    cached = _SPEEDS.get(obj.model, {}).get(key)
    if cached is not None:
        return cached
    p = obj.placed(obj.params0 if params is None else params)
    names = list(obj.names)
    chunk = next(iter(obj.terms()[0]))
    v = {k: torch.ones_like(p[k]) for k in names}
    leaves = {k: p[k].clone().requires_grad_() for k in names}
    with torch.enable_grad(), obj.second_order():
        g = torch.autograd.grad(obj.weighted_sum({**p, **leaves}, *chunk), list(leaves.values()), create_graph=True,
                                allow_unused=True)  # fmt: skip
    graph = {k: t for k, t in zip(names, g, strict=True) if t is not None and t.requires_grad}
    runs: dict[str, Callable[[], object]] = {
        "reverse": lambda: reverse_chunk(obj, p, names, v, chunk),
        "forward": lambda: forward_chunk(obj, p, names, v, chunk),
        "kept": lambda: kept_graph_product([graph], leaves, names, v),
    }
    times: dict[str, list[float]] = {k: [] for k in runs}
    why = ""
    for rnd in range(2):
        best = min((t for ts in times.values() for t in ts), default=math.inf)
        for k, run in runs.items():
            if rnd == 1 and (not times[k] or times[k][0] > CLEAR_LOSS * best):
                continue
            try:
                times[k].append(_clock(obj, run))
            except (RuntimeError, NotImplementedError) as e:  # OutOfMemoryError is a RuntimeError
                if k != "forward":
                    raise
                why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                times[k] = []
    graph.clear()  # the chunk's kept graph: freed before any real product
    del g
    secs = {k: min(ts) if ts else math.inf for k, ts in times.items()}
    speeds = Speeds(secs["reverse"], secs["kept"], secs["forward"], int(chunk[0].shape[0]), str(obj.device), why)
    _SPEEDS.setdefault(obj.model, {})[key] = speeds
    return speeds


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

    ``method``: ``"reverse"`` (:func:`hessian_vector_product`), ``"forward"`` (:func:`forward_over_reverse_product`)
    or ``"auto"`` (the default): the faster on this objective, measured once (:func:`product_speeds`);
    ``method`` then says which was taken (``how`` with the figures). Either way the part's parameters are the only
    leaves and the memory is that of one chunk. ``retain=True`` builds every chunk's first-order graph once and
    keeps it (:func:`first_order_graphs`), so that each product is a single double-backward pass
    (:func:`kept_graph_product`, PyHessian's way for one batch): about 0.7x the time of a rebuilt product on the
    benchmark CNN, at the memory of every chunk's graph at once (it grows with the data); it is a double backward,
    so not with ``method="forward"``. ``retain="auto"`` keeps the graphs when their tensors fit in ``budget`` bytes
    and (with ``method="auto"``) a product through them is measured faster than forward-over-reverse; otherwise
    products rebuild them, or run forward-over-reverse; ``retained`` says whether graphs are kept.
    :meth:`restrict` gives another part's operator on the same kept graph and method.
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
        method: str = "auto",
    ) -> None:
        if retain not in (True, False, "auto"):
            raise ParameterError("retain", f"must be True, False or 'auto', got {retain!r}")
        if method not in METHODS:
            raise ParameterError("method", f"must be one of {', '.join(METHODS)}, got {method!r}")
        if method == "forward" and retain is True:
            raise ParameterError("retain", "keeps double-backward graphs: not with method='forward'")
        self.names = obj.part_names(part)  # raises ParameterError("part", ...) for an unknown part
        n = obj.size(part)
        super().__init__(dtype=np.dtype(np.float64), shape=(n, n))
        self.obj, self.part, self.params, self.idx = obj, part, params, idx
        self.matvecs = 0
        self._base = obj.placed(obj.params0 if params is None else params)
        self._scale = obj.terms(idx)[1]
        self._leaves: dict[str, Tensor] = {}
        self._graphs: list[dict[str, Tensor]] | None = None
        self.graph_bytes = 0.0  # the kept graphs' saved tensors (estimated from the first chunk)
        self.speeds = product_speeds(obj, self._base) if method == "auto" else None
        self.method = self.speeds.choice(retain) if self.speeds is not None else method
        if retain and self.method == "reverse":
            self._leaves = {k: self._base[k].clone().requires_grad_() for k in self.names}
            limit = budget if retain == "auto" else math.inf
            self._graphs, self.graph_bytes = first_order_graphs(obj, self._base, self._leaves, idx, limit)
            if self._graphs is None:
                self._leaves = {}
                if self.speeds is not None:  # no room for graphs: the faster of the two rebuilding paths
                    self.method = self.speeds.choice(False)

    @property
    def retained(self) -> bool:
        """Whether products run on kept first-order graphs."""
        return self._graphs is not None

    @property
    def how(self) -> str:
        """The products' method in words (with the measured speeds where ``method="auto"`` chose)."""
        kept = ", kept first-order graphs" if self.retained else ""
        return (self.speeds.describe(self.method) if self.speeds is not None else self.method) + kept

    def restrict(self, part: str | None) -> HessianOperator:
        """The operator of ``part`` at the same point and samples, by the same method; with kept graphs it shares
        this operator's graph when that graph's leaves cover the part (a whole-model graph covers every part)."""
        names = self.obj.part_names(part)
        if self._graphs is None or not set(names) <= set(self._leaves):
            op = HessianOperator(self.obj, part, self.params, self.idx, retain=self._graphs is not None,
                                 method=self.method)  # fmt: skip
        else:
            op = HessianOperator(self.obj, part, self.params, self.idx, method=self.method)
            op._leaves, op._graphs = self._leaves, self._graphs
        op.speeds = self.speeds
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
        each = forward_chunk if self.method == "forward" else reverse_chunk
        hv = _product(each, obj, self._base, vs, self.names, self.idx)
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
