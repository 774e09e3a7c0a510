r"""Curvature of the objective from Hessian-vector products: extreme eigenvalues, trace, effective rank, secants.

Everything here sees the Hessian only through Hessian-vector products (:class:`HessianOperator`), so nothing
of size :math:`d^2` is ever formed except by :func:`dense_hessian`, which is meant for small models and tests.
A *part* (``"client"``, ``"server"``, ``"aux"``, ...) restricts the Hessian to its diagonal block
:math:`H_{pp} = P_p^\top \nabla^2 f\, P_p`, :math:`P_p` the embedding of the part's coordinates: the tangent is
zero outside the part and only the part's rows of :math:`\nabla^2 f\, v` are kept. The Hessian is that of the
:class:`~verify.ops.objective.Objective`: with clients, of f = (1/M) sum_m f_m.

* :func:`lanczos` -- :math:`\lambda_{\max}` and :math:`\lambda_{\min}` of a block from one thick-restart Lanczos
  run (full reorthogonalisation, a convergence test after every product), with honest residual intervals and the
  Krylov basis, which :func:`hessian_trace` reuses to deflate its trace estimate.
* :func:`extreme_eigenvalue` -- one end (or the eigenvalue of largest modulus) from :func:`lanczos`.
* :func:`hessian_trace` -- :math:`\operatorname{tr} H` by Hutch++, Hutchinson, or Hutchinson deflated by a Lanczos
  basis.
* :func:`effective_rank` -- :math:`\kappa = \operatorname{tr}H/\|H\|_2`, HERON-SFL's Assumption 5.
* :func:`secant_smoothness` -- :math:`\|\nabla f(x_1)-\nabla f(x_0)\|/\|x_1-x_0\|`, a lower bound on :math:`L`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.sparse.linalg import LinearOperator
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective, Params

_WHICH = ("largest", "smallest", "magnitude")
# Products in a row on which an end must pass the convergence test (see lanczos). On the shared test models
# (tests/constants_cases.py: 34 cases in float32/64 with more than 20 parameters, whole and per-client objectives,
# 8 seeds, tol 1e-3, 1,088 lambda_max runs from the gradient start), 2 let 4 runs stop with an interval that
# missed the eigenvalue, 3 let 2 (8.9 and 10.0 products on average; 9 and 10 on the benchmark CNN).
PATIENCE = 3


class HessianOperator(LinearOperator):
    r"""The block :math:`H_{pp}` of the Hessian of the objective as a SciPy ``LinearOperator`` (and, through
    :meth:`mv`, on torch tensors).

    ``part=None`` is the whole model. :meth:`mv` takes and returns flat tensors on ``obj.device``; the SciPy
    interface takes and returns float64 NumPy. The product runs in ``obj.dtype``, so in float32 it carries
    float32 rounding (relative :math:`\sim 10^{-7}` of :math:`\|H\|\,\|v\|`), which bounds any accuracy asked of
    the methods below. ``matvecs`` counts Hessian-vector products. Attention runs under the math kernel
    (:meth:`Objective.second_order`): the fused kernels have no double backward.

    By default a product is a double backward (Pearlmutter 1994) one chunk at a time, rebuilding each chunk's
    first-order graph :math:`\nabla_p \ell` with ``create_graph``: memory of one chunk. Only the part's
    parameters are leaves, so the other parts' gradients are never formed (a server block never backpropagates
    into the client). ``retain=True`` builds every chunk's first-order graph once and keeps it, so that each
    product is a single double-backward pass (PyHessian's way for one batch): about 0.7x the time of a product on
    the benchmark CNN, at the memory of every chunk's graph at once (it grows with the data). ``retain="auto"``
    keeps the graphs when their tensors (counted on the first chunk as autograd saves them, times the number of
    chunks) fit in ``budget`` bytes, and otherwise rebuilds them per product; ``retained`` says which.
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
            self._graphs = self._build(self._leaves, budget if retain == "auto" else math.inf)
            if self._graphs is None:
                self._leaves = {}

    @property
    def retained(self) -> bool:
        """Whether products run on kept first-order graphs."""
        return self._graphs is not None

    def _build(self, leaves: dict[str, Tensor], budget: float) -> list[dict[str, Tensor]] | None:
        """Every chunk's first-order graph: name -> gradient (with ``create_graph``); a gradient that is constant
        in the parameters has no graph and is left out (its rows of H are zero). ``None`` when the graphs would
        not fit in ``budget`` bytes."""
        q = {**self._base, **leaves}
        names = list(leaves)
        graphs: list[dict[str, Tensor]] = []
        it, _ = self.obj.terms(self.idx)
        chunks = math.ceil(self.obj.support_size(self.idx) / self.obj.chunk)
        saved = [0]

        def pack(t: Tensor) -> Tensor:
            saved[0] += t.numel() * t.element_size()
            return t

        for i, (X, y, w) in enumerate(it):
            hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t) if i == 0 else contextlib.nullcontext()
            with torch.enable_grad(), self.obj.second_order(), hooks:
                total = self.obj.weighted_sum(q, X, y, w)
                g = torch.autograd.grad(total, [leaves[k] for k in names], create_graph=True, allow_unused=True)
            graphs.append({k: t for k, t in zip(names, g, strict=True) if t is not None and t.requires_grad})
            if i == 0:
                self.graph_bytes = float(saved[0]) * chunks
                if self.graph_bytes > budget:
                    return None
        return graphs

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
            leaves = [self._leaves[k] for k in self.names]
            out = [torch.zeros_like(t) for t in leaves]
            for graph in self._graphs:
                ks = [k for k in self.names if k in graph]
                if not ks:
                    continue
                hvs = torch.autograd.grad(
                    [graph[k] for k in ks], leaves, [vs[k] for k in ks], retain_graph=True, allow_unused=True
                )
                for o, h in zip(out, hvs, strict=True):
                    if h is not None:
                        o += h
        else:
            out = self._fresh(vs)
        return torch.cat([o.reshape(-1) for o in out]) * self._scale

    def _fresh(self, vs: Params) -> list[Tensor]:
        """Unscaled product, rebuilding each chunk's graph with the part's parameters as the only leaves."""
        obj = self.obj
        out = [torch.zeros_like(self._base[k]) for k in self.names]
        it, _ = obj.terms(self.idx)
        for X, y, w in it:
            leaves = {k: self._base[k].clone().requires_grad_() for k in self.names}
            q = {**self._base, **leaves}
            with torch.enable_grad(), obj.second_order():
                total = obj.weighted_sum(q, X, y, w)
                gs = torch.autograd.grad(total, list(leaves.values()), create_graph=True, allow_unused=True)
                keep = [(g, vs[k]) for k, g in zip(self.names, gs, strict=True) if g is not None and g.requires_grad]
                if not keep:
                    continue
                hv = torch.autograd.grad(
                    [g for g, _ in keep], list(leaves.values()), [u for _, u in keep], allow_unused=True
                )
            for o, h in zip(out, hv, strict=True):
                if h is not None:
                    o += h
        return out

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        v = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64).reshape(-1))
        return self.mv(v).to("cpu", torch.float64).numpy().reshape(np.shape(x))

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)  # a Hessian block is symmetric

    def _adjoint(self) -> HessianOperator:
        return self


@dataclass(frozen=True)
class Eigen:
    r"""An eigenvalue estimate :math:`\lambda` with its uncertainty.

    ``residual`` bounds :math:`\|Hv-\lambda v\|_2` for the unit Ritz vector :math:`v` (the Lanczos residual plus
    the measured asymmetry of the products, see :func:`lanczos`). For symmetric :math:`H` some eigenvalue lies in
    :math:`[\lambda-r, \lambda+r]` (Parlett, *The Symmetric Eigenvalue Problem*, SIAM 1998, Ch. 4), so it is the
    uncertainty to report. It does not certify that this eigenvalue is the extreme one: Lanczos from a random
    start misses an extreme eigenvector only with probability zero in exact arithmetic, but a nearly orthogonal
    start converges late. ``error`` is the estimated error of :math:`\lambda` itself, :math:`\min(r, r^2/\delta)`
    with :math:`\delta` the gap to the next Ritz value (Kato-Temple, with the Ritz gap standing in for the
    unknown eigenvalue gap); ``matvecs`` counts the Hessian-vector products of the run that found it.
    """

    value: float
    residual: float
    matvecs: int
    method: str
    converged: bool = True
    error: float = math.nan


@dataclass(frozen=True)
class Spectrum:
    r"""What one :func:`lanczos` run learned about a block :math:`H_{pp}`: its extreme eigenvalues, and an
    orthonormal basis :math:`V` (``basis``, rows, on the objective's device) with the projection
    :math:`T = VHV^\top` (``projected``, symmetrised) and the Lanczos residual :math:`r` (``residual``), so that
    :math:`HV^\top = V^\top T + r e_k^\top` with no further product: this deflates trace estimates for free."""

    top: Eigen
    bottom: Eigen
    basis: Tensor = field(repr=False)
    projected: np.ndarray = field(repr=False)
    residual: Tensor = field(repr=False)
    matvecs: int = 0
    part: str | None = None

    @property
    def norm(self) -> Eigen:
        r"""The end of larger modulus: :math:`\|H_{pp}\|_2 = \max(|\lambda_{\max}|, |\lambda_{\min}|)`."""
        return self.top if abs(self.top.value) >= abs(self.bottom.value) else self.bottom


@dataclass(frozen=True)
class Trace:
    """A stochastic estimate of tr(H): ``se`` is its standard error, ``probes`` the Hessian-vector products used."""

    value: float
    se: float
    probes: int
    method: str


@dataclass(frozen=True)
class Ratio:
    r"""A ratio of two estimates, :math:`\kappa = \operatorname{tr}H/\|H\|_2`, with its propagated uncertainty.

    ``norm`` is the eigenvalue whose modulus is :math:`\|H\|_2`; ``probes`` counts the Hessian-vector products
    that the ratio rests on (the trace's and those of the eigenvalue runs, given ones included)."""

    value: float
    se: float
    trace: Trace
    norm: Eigen
    probes: int
    method: str


# ---- dense ---------------------------------------------------------------------------------------------------


def dense_hessian(
    obj: Objective,
    part: str | None = None,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
) -> Tensor:
    r"""The block :math:`H_{pp}` as a dense ``(d_p, d_p)`` tensor, column :math:`j` being :math:`H_{pp} e_j`.

    Costs :math:`d_p` Hessian-vector products and :math:`d_p^2` memory: for small models and tests. Returned
    in ``obj.dtype`` on ``obj.device``; not symmetrised, so the asymmetry shows the products' rounding.
    """
    op = HessianOperator(obj, part, params, idx)
    return _dense(op).to(obj.device, obj.dtype)


def _dense(op: HessianOperator) -> Tensor:
    n = op.shape[0]
    cols = [op.matvec(np.eye(1, n, j).ravel()) for j in range(n)]
    return torch.from_numpy(np.stack(cols, axis=1))


# ---- extreme eigenvalues -------------------------------------------------------------------------------------


def _basis_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def _orthonormalise(V: Tensor, w: Tensor) -> tuple[Tensor, Tensor]:
    """w minus its projection on the rows of V, by classical Gram-Schmidt twice ("twice is enough", Giraud et
    al. 2005); returns (the coefficients, the remainder)."""
    h = V @ w
    w = w - V.T @ h
    h2 = V @ w
    return h + h2, w - V.T @ h2


def lanczos(
    obj: Objective | HessianOperator,
    part: str | None = None,
    tol: float = 1e-4,
    maxiter: int = 100,
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    which: Sequence[str] = ("largest", "smallest"),
    ncv: int = 20,
    retain: bool | str = False,
    start: str = "gradient",
) -> Spectrum:
    r"""The largest and smallest eigenvalues of :math:`H_{pp}` from one thick-restart Lanczos run.

    Lanczos with full reorthogonalisation (each new vector orthogonalised twice against the whole basis) from a
    seeded Gaussian start, thick-restarted (Wu and Simon, SIAM J. Matrix Anal. Appl. 22(2), 2000) when the basis
    reaches ``ncv`` vectors, keeping the Ritz vectors nearest the wanted ends. The Krylov space is the same for
    :math:`H` and :math:`\sigma I-H`, so one run finds both ends: :math:`\lambda_{\min}` is found as the largest
    eigenvalue of :math:`\lambda_{\max} I - H` would be, and no test is relative to :math:`|\lambda_{\min}|`
    (which may be 0: softmax regression's Hessian is singular).

    After every product the projection :math:`T=VHV^\top` is diagonalised. For the Ritz pair :math:`(\theta,
    Vs)` at an end, the residual bound is :math:`r=\beta|s_k| + \|(C-C^\top)/2\|_2`, :math:`\beta` the norm of
    the last Lanczos residual and :math:`C` the computed (unsymmetrised) projection: the second term is the
    measured asymmetry of the products, i.e. their rounding, so that in float32 :math:`r` does not claim more
    than the products carry (Parlett 1998, Ch. 4 and 13). The eigenvalue error is estimated at the top by
    :math:`\min(r, r^2/\delta)`, :math:`\delta` the gap to the neighbouring Ritz value (Kato-Temple), when that
    neighbour is resolved (its own residual at most :math:`\delta/2`), and otherwise, and at the bottom, by
    :math:`r` itself. Lanczos can settle for a while on the second eigenvalue of a close pair or a cluster before
    the first enters the Krylov space, with a Ritz gap that makes :math:`r^2/\delta` look converged; the bottom of
    a network's spectrum usually is such a cluster. On the shared test models (``tests/constants_cases.py``, the
    34 float32/64 cases with more than 20 parameters, whole and per-client objectives, 8 seeds, tol 1e-3), the
    plain Kato-Temple estimate let 7 of 1,088 lambda_max runs stop with an interval that missed the eigenvalue,
    this one 2 (both on one model whose top pair is 2% of ||H|| apart), the residual 0 but for 40% more products
    on the benchmark CNN; at the bottom the plain estimate let 2 of 1,088 miss and :math:`r` none.

    An end has converged when its estimate, and the change of
    :math:`\theta` over the last product, are both at most ``tol`` :math:`\cdot\|H\|` (the larger modulus of the
    two ends; where the products' rounding puts ``tol`` out of reach, twice the measured asymmetry for a residual
    and ten units of rounding of :math:`\|H\|` for the change) on
    :data:`PATIENCE` products in a row: an absolute test on the scale of the block, so that
    :math:`\lambda_{\min}=0` converges. The error falls like :math:`e^{-4m\sqrt\gamma}` after :math:`m` products,
    :math:`\gamma=(\lambda_1-\lambda_2)/(\lambda_2-\lambda_n)` (Kaniel-Paige-Saad; Saad, *Numerical Methods for
    Large Eigenvalue Problems*, 2nd ed., SIAM 2011, Sec. 6.6), against :math:`(\lambda_2/\lambda_1)^{2m}` for power
    iteration (PyHessian's method). A Lanczos residual of (numerically) zero means the Krylov space is invariant:
    its Ritz values are exact. No stopping rule certifies that the Ritz value is the extreme eigenvalue (a start
    nearly orthogonal to its eigenvector converges late); the interval :math:`\theta\pm r` holds *an* eigenvalue.

    The start vector is a seeded Gaussian direction plus, with ``start="gradient"`` (the default), the block's
    gradient :math:`\nabla_p f`, both normalised: the gradient of a network lies mostly in the top eigenspace of
    its Hessian (Gur-Ari, Roberts, Dyer, "Gradient descent happens in a tiny subspace", 2018), so the top end
    converges sooner (on the benchmark CNN, 1e-3 relative after 7 products instead of 10), while the Gaussian
    part keeps a generic component along every eigenvector, as large as a Gaussian start alone would (within
    :math:`1/\sqrt2`). The gradient is free with kept graphs and one gradient pass otherwise.

    ``which`` names the ends that must converge (both are always reported). ``maxiter`` bounds the restart
    cycles; if it is reached, the Ritz values are returned with ``converged=False`` and their (wider) intervals,
    never an exception. When :math:`d_p \le` ``ncv`` the block is formed densely (:math:`d_p` products) and
    ``numpy.linalg.eigh`` is exact. ``obj`` may be a :class:`HessianOperator` (e.g. one sharing a kept graph,
    :meth:`HessianOperator.restrict`); then ``part``, ``params``, ``idx`` and ``retain`` are its own.
    """
    if not which:
        raise ParameterError("which", "name at least one end: 'largest', 'smallest' or both")
    for end in which:
        if end not in ("largest", "smallest"):
            raise ParameterError("which", f"must be 'largest' or 'smallest', got '{end}'")
    if not (tol > 0 and math.isfinite(tol)):
        raise ParameterError("tol", f"must be a positive number, got {tol}")
    if maxiter < 1:
        raise ParameterError("maxiter", f"must be at least 1, got {maxiter}")
    if ncv < 4:
        raise ParameterError("ncv", f"must be at least 4, got {ncv}")
    if start not in ("gradient", "random"):
        raise ParameterError("start", f"must be 'gradient' or 'random', got '{start}'")
    op = obj if isinstance(obj, HessianOperator) else HessianOperator(obj, part, params, idx, retain=retain)
    n = op.shape[0]
    dev, bdt = op.obj.device, _basis_dtype(op.obj.dtype)
    if n <= ncv:
        H = _dense(op).numpy()
        w_, V_ = np.linalg.eigh((H + H.T) / 2)
        how = f"dense ({n} columns) + eigh"
        ends = []
        for j in (-1, 0):
            r = float(np.linalg.norm(H @ V_[:, j] - w_[j] * V_[:, j]))
            ends.append(Eigen(float(w_[j]), r, op.matvecs, how, True, r))
        basis = torch.from_numpy(V_.T.copy()).to(dev, bdt)
        zero = torch.zeros(n, dtype=bdt, device=dev)
        return Spectrum(ends[0], ends[1], basis, np.diag(w_), zero, op.matvecs, op.part)

    rng = np.random.default_rng(seed)
    V = torch.zeros(ncv + 1, n, dtype=bdt, device=dev)
    v = torch.from_numpy(rng.standard_normal(n)).to(dev, bdt)
    v = v / torch.linalg.vector_norm(v)
    if start == "gradient":
        g = op.gradient().to(dev, bdt)
        gn = float(torch.linalg.vector_norm(g))
        if math.isfinite(gn) and gn > 0:
            v = v + g / gn
    V[0] = v / torch.linalg.vector_norm(v)
    C = np.zeros((ncv + 1, ncv + 1))  # C[:k, :k] the computed projection, column j from the product H v_j
    k = 0
    # Ritz vectors kept at a restart: half the basis, split between the ends that must converge (one for the other)
    half = ncv // 2
    if len(set(which)) == 2:
        keep = {"largest": half // 2, "smallest": half - half // 2}
    else:
        keep = {e: half - 1 if e in which else 1 for e in ("largest", "smallest")}
    asym = 0.0  # largest measured asymmetry ||(C - C^T)/2||_2 so far
    last: dict[str, float] = {}
    change: dict[str, float] = {}
    streak = {"largest": 0, "smallest": 0}
    cycles = 0
    unit = float(torch.finfo(op.obj.dtype).eps)
    method = f"Lanczos (thick restart, ncv={ncv}, tol={tol:g} of ||H||, {start} start)"
    while True:
        w = op.mv(V[k]).to(bdt)
        h, w = _orthonormalise(V[: k + 1], w)
        C[: k + 1, k] = h.double().cpu().numpy()
        beta = float(torch.linalg.vector_norm(w))
        k += 1
        Ck = C[:k, :k]
        asym = max(asym, float(np.linalg.norm((Ck - Ck.T) / 2, 2)) if k > 1 else 0.0)
        theta, S = np.linalg.eigh((Ck + Ck.T) / 2)
        scale = float(max(abs(theta[0]), abs(theta[-1])))
        ritz_res = beta * np.abs(S[-1, :]) + asym  # residual bound of every Ritz pair
        res = {"largest": float(ritz_res[-1]), "smallest": float(ritz_res[0])}
        err: dict[str, float] = {}
        for e, j, nb in (("largest", -1, -2), ("smallest", 0, 1)):
            gap = float(abs(theta[j] - theta[nb])) if k > 1 else math.inf
            # Kato-Temple at the top when the neighbouring Ritz pair is resolved (its residual at most half the
            # gap, so that the gap is to an eigenvalue); otherwise, and at the bottom, the residual itself
            trusted = e == "largest" and 0 < gap < math.inf and ritz_res[nb] <= gap / 2
            err[e] = min(res[e], res[e] ** 2 / gap) if trusted else res[e]
            # the products' rounding (asym) is a floor under a residual that no number of products goes below,
            # and the Ritz values jitter by a few units of rounding: a tol under either is met there
            bar_err = tol * scale if trusted else max(tol * scale, 2 * asym)
            bar_change = max(tol * scale, 10 * unit * scale)
            change[e] = float(abs(theta[j] - last[e])) if e in last else math.inf
            last[e] = float(theta[j])
            streak[e] = streak[e] + 1 if err[e] <= bar_err and change[e] <= bar_change else 0
        invariant = beta <= 10 * unit * max(scale, 1e-300) * math.sqrt(k)
        done = invariant or all(streak[e] >= PATIENCE for e in which)
        if invariant:
            # an invariant Krylov space: its Ritz values are eigenvalues (up to the products' rounding)
            err = dict(res)
        if done or (k == ncv and cycles >= maxiter):
            ok = {e: bool(invariant or streak[e] >= PATIENCE) for e in res}
            top = Eigen(float(theta[-1]), res["largest"], op.matvecs, method, ok["largest"], err["largest"])
            low = Eigen(float(theta[0]), res["smallest"], op.matvecs, method, ok["smallest"], err["smallest"])
            return Spectrum(top, low, V[:k].clone(), (Ck + Ck.T) / 2, w, op.matvecs, op.part)
        if k == ncv:
            # thick restart: keep the Ritz vectors at both ends, plus the new residual direction
            cycles += 1
            sel = sorted({*range(keep["smallest"]), *range(k - keep["largest"], k)})
            Y = torch.from_numpy(S[:, sel]).to(dev, bdt)
            V[: len(sel)] = Y.T @ V[:k]
            V[len(sel) :] = 0
            C = np.zeros_like(C)
            C[: len(sel), : len(sel)] = np.diag(theta[sel])
            C[len(sel), : len(sel)] = beta * S[-1, sel]
            k = len(sel)
            # re-orthogonalise the residual against the new basis (it is already, up to rounding)
            _, w = _orthonormalise(V[:k], w)
            beta = float(torch.linalg.vector_norm(w))
        else:
            C[k, k - 1] = beta
        V[k] = w / beta


def extreme_eigenvalue(
    obj: Objective,
    part: str | None = None,
    which: str = "largest",
    tol: float = 1e-4,
    maxiter: int = 100,
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    ncv: int = 20,
    retain: bool | str = False,
    start: str = "gradient",
) -> Eigen:
    r"""The largest or smallest eigenvalue of :math:`H_{pp}` (or, ``which="magnitude"``, the one of largest
    modulus, :math:`\pm\|H_{pp}\|_2`), by :func:`lanczos` (see there for the method, ``tol``, ``maxiter``, ``ncv``
    and ``start``)."""
    if which not in _WHICH:
        raise ParameterError("which", f"must be one of {', '.join(_WHICH)}, got '{which}'")
    ends = ("largest", "smallest") if which == "magnitude" else (which,)
    s = lanczos(obj, part, tol, maxiter, seed, params, idx, which=ends, ncv=ncv, retain=retain, start=start)
    return {"largest": s.top, "smallest": s.bottom, "magnitude": s.norm}[which]


# ---- trace ---------------------------------------------------------------------------------------------------


def _rademacher(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    return rng.integers(0, 2, size=(n, m)).astype(np.float64) * 2.0 - 1.0


def _apply(op: HessianOperator, M: np.ndarray) -> np.ndarray:
    return np.stack([op.matvec(M[:, j]) for j in range(M.shape[1])], axis=1)


def hessian_trace(
    obj: Objective | HessianOperator,
    part: str | None = None,
    probes: int = 30,
    method: str = "hutch++",
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    retain: bool | str = False,
    basis: Spectrum | None = None,
) -> Trace:
    r"""A stochastic estimate of :math:`\operatorname{tr} H_{pp}` from ``probes`` Hessian-vector products.

    ``"hutchinson"`` (Hutchinson 1989; Avron and Toledo, J. ACM 58(2), 2011): with Rademacher :math:`z_j`,
    :math:`\hat t = \frac1m\sum_j z_j^\top H z_j`, unbiased, variance :math:`\frac2m(\|H\|_F^2-\sum_i H_{ii}^2)`;
    ``se`` is the sample standard deviation over :math:`\sqrt m`.

    ``"hutch++"`` (Meyer, Musco, Musco, Woodruff, "Hutch++: Optimal Stochastic Trace Estimation", SOSA 2021,
    Alg. 1): with :math:`k=\lfloor m/3\rfloor` Rademacher columns :math:`S`, :math:`Q=\operatorname{orth}(HS)`,
    and :math:`g=m-2k` Rademacher columns :math:`G`,

    .. math:: \hat t = \operatorname{tr}(Q^\top H Q)
              + \tfrac1g \operatorname{tr}\big(G^\top (I-QQ^\top) H (I-QQ^\top) G\big),

    i.e. the top of the spectrum exactly and Hutchinson on the deflated rest: relative error
    :math:`O(1/m)` instead of :math:`O(1/\sqrt m)` for PSD :math:`H`, and exact (``se`` 0) once :math:`k\ge`
    rank :math:`H`. ``se`` is that of the Hutchinson term (the deflated part is the only random term given
    :math:`Q`). Any orthonormal :math:`Q` keeps the estimator unbiased, so a rank-deficient :math:`HS` is fine.

    ``basis`` (the :class:`Spectrum` of a :func:`lanczos` run on this block and point, ``method`` then
    ``"deflated"``): the same estimator with :math:`Q` the run's Krylov basis, whose :math:`Q^\top HQ` the run
    already computed, so all ``probes`` products go to the Hutchinson term. A Krylov basis holds the extreme
    eigenvectors -- those of largest modulus -- at least as well as Hutch++'s sketch of the same size, and it is
    independent of the Hutchinson probes, so the estimator stays unbiased.
    """
    if basis is not None:
        method = "deflated"
    if method not in ("hutch++", "hutchinson", "deflated"):
        raise ParameterError("method", f"must be 'hutch++' or 'hutchinson', got '{method}'")
    if method == "deflated" and basis is None:
        raise ParameterError("basis", "the deflated estimator needs the Spectrum of a lanczos run")
    least = 4 if method == "hutch++" else 2  # two Hutchinson samples at least, for a standard error
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < least:
        raise ParameterError("probes", f"must be an integer >= {least} for {method}, got {probes!r}")
    op = obj if isinstance(obj, HessianOperator) else HessianOperator(obj, part, params, idx, retain=retain)
    n = op.shape[0]
    rng = np.random.default_rng(seed)
    if basis is not None:
        return block_traces(op, basis, [None], probes, seed)[None]
    if method == "hutchinson":
        Z = _rademacher(rng, n, probes)
        q = np.einsum("ij,ij->j", Z, _apply(op, Z))
        return Trace(float(q.mean()), float(q.std(ddof=1) / math.sqrt(probes)), op.matvecs, method)
    k = probes // 3
    g = probes - 2 * k
    S = _rademacher(rng, n, k)
    Q_, _ = np.linalg.qr(_apply(op, S))
    top = float(np.einsum("ij,ij->", Q_, _apply(op, Q_)))
    G = _rademacher(rng, n, g)
    G -= Q_ @ (Q_.T @ G)
    q = np.einsum("ij,ij->j", G, _apply(op, G))
    return Trace(top + float(q.mean()), float(q.std(ddof=1) / math.sqrt(g)), op.matvecs, method)


def block_traces(
    op: HessianOperator,
    spectrum: Spectrum,
    parts: Sequence[str | None],
    probes: int = 30,
    seed: int = 0,
) -> dict[str | None, Trace]:
    r""":math:`\operatorname{tr} H_{pp}` of several diagonal blocks (``None``: the whole of ``op``'s block) from
    one set of products with the whole operator ``op``, deflated by the :class:`Spectrum` of a :func:`lanczos`
    run on ``op``.

    With :math:`D_p` the diagonal projector on part :math:`p`'s coordinates, :math:`\operatorname{tr}H_{pp} =
    \operatorname{tr}(D_pH)`, and for any orthonormal :math:`V` (rows) with :math:`\Pi = I - V^\top V`,
    :math:`\operatorname{tr}(D_pH) = \operatorname{tr}(VD_pHV^\top) + \operatorname{tr}(\Pi D_p H \Pi)`. The first
    term needs no product: :math:`HV^\top = V^\top T + r e_k^\top` (the Lanczos relation), so it is
    :math:`\langle VD_pV^\top, T\rangle + (VD_pr)_k`. The second is estimated by Hutchinson: with Rademacher
    :math:`z` and :math:`\tilde z = \Pi z`, :math:`\mathbb E[(D_p\tilde z)^\top H\tilde z] = \operatorname{tr}(\Pi
    D_pH\Pi)`, unbiased for every part at once from the same ``probes`` products :math:`H\tilde z` (the off-block
    rows add variance, not bias). ``se`` is the sample standard deviation over :math:`\sqrt{\text{probes}}`;
    ``probes`` counts the products (shared by the parts). That added variance can be large: on the README example
    (FedAvg CNN, digits, cut conv2) the part traces had 3-4x the standard error of :func:`hessian_trace` with the
    part's own products and Lanczos basis, at the same number of probes, so ``measure`` uses the latter; this
    pays where part products cost as much as whole ones and only the whole model's trace needs to be tight.
    """
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < 2:
        raise ParameterError("probes", f"must be an integer >= 2, got {probes!r}")
    obj = op.obj
    Q, T, r = spectrum.basis, spectrum.projected, spectrum.residual
    n = op.shape[0]
    if Q.shape[1] != n:
        raise ParameterError("spectrum", f"has vectors of size {Q.shape[1]}, the block has {n}")
    offsets: dict[str | None, slice] = {None: slice(0, n)}
    if op.part is None or op.part == "all":
        start = 0
        for name in obj.split.names:
            size = obj.size(name)
            offsets[name] = slice(start, start + size)
            start += size
    for p in parts:
        if p not in offsets:
            raise ParameterError("part", f"must be one of {', '.join(map(str, offsets))} for this operator, got {p!r}")
    k = Q.shape[0]
    exact: dict[str | None, float] = {}
    for p in parts:
        Qp = Q[:, offsets[p]].double()
        G = (Qp @ Qp.T).cpu().numpy()
        exact[p] = float(np.sum(G * T)) + (float(Qp[k - 1] @ r[offsets[p]].double()) if k else 0.0)
    samples: dict[str | None, list[float]] = {p: [] for p in parts}
    before = op.matvecs
    if k < n:
        rng = np.random.default_rng(seed)
        for _ in range(probes):
            z = torch.from_numpy(_rademacher(rng, n, 1)[:, 0]).to(Q.device, Q.dtype)
            z = z - Q.T @ (Q @ z)
            hz = op.mv(z).to(Q.dtype)
            for p in parts:
                sl = offsets[p]
                samples[p].append(float(z[sl].double() @ hz[sl].double()))
    used = op.matvecs - before
    out: dict[str | None, Trace] = {}
    for p in parts:
        if not samples[p]:
            out[p] = Trace(exact[p], 0.0, 0, f"exact over a complete Lanczos basis ({k} vectors)")
            continue
        q = np.array(samples[p])
        how = (
            f"Hutchinson ({used} probes of the whole block, shared by its parts) deflated by the Lanczos basis "
            f"({k} vectors)"
        )
        out[p] = Trace(exact[p] + float(q.mean()), float(q.std(ddof=1) / math.sqrt(len(q))), used, how)
    return out


# ---- effective rank ------------------------------------------------------------------------------------------


def effective_rank(
    obj: Objective | HessianOperator,
    part: str | None = None,
    probes: int = 30,
    method: str = "hutch++",
    tol: float = 1e-4,
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    top: Eigen | None = None,
    bottom: Eigen | None = None,
    spectrum: Spectrum | None = None,
    retain: bool | str = False,
) -> Ratio:
    r"""The effective rank :math:`\kappa = \operatorname{tr}(H_{pp})/\|H_{pp}\|_2` at the objective's point.

    :math:`\|H\|_2 = \max(|\lambda_{\max}|, |\lambda_{\min}|)`: from ``spectrum`` (a :func:`lanczos` run on this
    block and point, whose basis then also deflates the trace: ``probes`` Hutchinson products on top of it), or
    from ``top`` and ``bottom`` when both are given (:func:`extreme_eigenvalue` results for this block and point),
    otherwise from one :func:`lanczos` run. The trace by :func:`hessian_trace`.
    Uncertainty by first-order propagation, treating the eigenvalue's residual as its standard error (it is a
    bound, so this is conservative): :math:`\mathrm{se}_\kappa = \kappa\sqrt{(\mathrm{se}_t/t)^2+(r/\|H\|)^2}`.

    HERON-SFL (seed 001, Assumption 5) states :math:`\kappa` for a PSD matrix :math:`H_l \preceq L I` that bounds
    :math:`\nabla^2 l_l \preceq H_l` on a ball around the iterate, not for :math:`\nabla^2 f` itself. Where
    :math:`\nabla^2 f \succeq 0` the Hessian is the least such bound at the point. At an indefinite point it is
    not one: negative eigenvalues cancel positive ones in :math:`\operatorname{tr}(\nabla^2 f)`, whereas the least
    PSD bound at the point, the positive part :math:`[\nabla^2 f]_+`, has trace :math:`\sum_i\max(\lambda_i,0)`
    and norm :math:`\lambda_{\max}`; so there this ratio is only a proxy for the assumption's :math:`\kappa`.
    """
    if (top is None) != (bottom is None):
        raise ParameterError("top" if top is None else "bottom", "give top and bottom together, or neither")
    op = obj if isinstance(obj, HessianOperator) else HessianOperator(obj, part, params, idx, retain=retain)
    if spectrum is not None:
        tr = hessian_trace(op, probes=probes, seed=seed, basis=spectrum)
        lam = spectrum.norm
        spent = spectrum.matvecs
        how = f"max(|lambda_max|, |lambda_min|) by {lam.method}"
    elif top is not None and bottom is not None:
        tr = hessian_trace(op, probes=probes, method=method, seed=seed)
        lam = top if abs(top.value) >= abs(bottom.value) else bottom
        spent = top.matvecs + bottom.matvecs
        how = f"max(|lambda_max|, |lambda_min|) by {lam.method}"
    else:
        tr = hessian_trace(op, probes=probes, method=method, seed=seed)
        lam = extreme_eigenvalue(op.obj, op.part, "magnitude", tol, seed=seed + 1, params=params, idx=idx,
                                 retain=retain)  # fmt: skip
        spent = lam.matvecs
        how = f"|lambda| largest by {lam.method}"
    norm = abs(lam.value)
    if norm == 0:
        raise ParameterError("part", "has a zero Hessian block at this point: the effective rank is undefined")
    kappa = tr.value / norm
    rel_t = tr.se / abs(tr.value) if tr.value else 0.0
    se = abs(kappa) * math.hypot(rel_t, lam.residual / norm)
    return Ratio(kappa, se, tr, lam, tr.probes + spent, f"tr(H) by {tr.method} ({tr.probes} probes) / ||H||_2 as {how}")


# ---- secant --------------------------------------------------------------------------------------------------


def secant_smoothness(
    obj: Objective,
    x0: Mapping[str, Tensor],
    x1: Mapping[str, Tensor],
    part: str | None = None,
    idx: Tensor | None = None,
) -> float:
    r""":math:`\|\nabla_p f(x_1)-\nabla_p f(x_0)\|/\|P_p^\top(x_1-x_0)\|`, the part's rows of the gradient.

    By the mean value theorem the numerator is :math:`\|\int_0^1 [\nabla^2 f(x_t)]_{p\cdot}\,dt\,(x_1-x_0)\|`, so
    when :math:`x_1-x_0` lies in the part it is a lower bound on the smoothness constant :math:`L` of the part
    along the step (and on :math:`\sup\|\nabla^2 f\|_2` on the segment); for a quadratic it is exactly
    :math:`\|H_{pp}d\|/\|d\|`. Parameters missing from ``x0``/``x1`` are taken from the objective's point.
    """
    names = obj.part_names(part)
    p0: Params = {**obj.params0, **x0}
    p1: Params = {**obj.params0, **x1}
    step = torch.cat([(p1[n] - p0[n]).reshape(-1) for n in names]).double()
    den = float(torch.linalg.vector_norm(step))
    if den == 0:
        raise ParameterError("x1", f"equals x0 on part '{part or 'all'}': the secant is undefined")
    g0, g1 = obj.grad(p0, idx), obj.grad(p1, idx)
    num = float(torch.linalg.vector_norm(torch.cat([(g1[n] - g0[n]).reshape(-1) for n in names]).double()))
    return num / den
