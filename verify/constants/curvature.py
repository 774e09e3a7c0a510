r"""Curvature of the objective from Hessian-vector products: extreme eigenvalues, trace, effective rank, secants.

Everything here sees the Hessian only through Hessian-vector products (:class:`HessianOperator`), so nothing
of size :math:`d^2` is ever formed except by :func:`dense_hessian`, which is meant for small models and tests.
A *part* (``"client"``, ``"server"``, ``"aux"``, ...) restricts the Hessian to its diagonal block
:math:`H_{pp} = P_p^\top \nabla^2 f\, P_p`, :math:`P_p` the embedding of the part's coordinates: the tangent is
zero outside the part and only the part's rows of :math:`\nabla^2 f\, v` are kept.

* :func:`extreme_eigenvalue` -- :math:`\lambda_{\max}` or :math:`\lambda_{\min}` (or the eigenvalue of largest
  modulus) by implicitly restarted Lanczos (ARPACK, via ``scipy.sparse.linalg.eigsh``), with its residual.
* :func:`hessian_trace` -- :math:`\operatorname{tr} H` by Hutch++ or Hutchinson.
* :func:`effective_rank` -- :math:`\kappa = \operatorname{tr}H/\|H\|_2`, HERON-SFL's Assumption 5.
* :func:`secant_smoothness` -- :math:`\|\nabla f(x_1)-\nabla f(x_0)\|/\|x_1-x_0\|`, a lower bound on :math:`L`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective, Params

_WHICH = {"largest": "LA", "smallest": "SA", "magnitude": "LM"}


class HessianOperator(LinearOperator):
    r"""The block :math:`H_{pp}` of the Hessian of the mean loss as a SciPy ``LinearOperator``.

    ``part=None`` is the whole model. Vectors in and out are float64 NumPy (what ARPACK and NumPy work in); the
    product itself runs on ``obj.device`` in ``obj.dtype``, so in float32 a product carries float32 rounding
    (relative :math:`\sim 10^{-7}` of :math:`\|H\|\,\|v\|`), which bounds any accuracy asked of the methods
    below. ``matvecs`` counts Hessian-vector products.

    By default a product is :meth:`Objective.hvp`: forward-over-reverse, one chunk at a time, memory of one
    chunk. ``retain=True`` instead builds the first-order graph :math:`\nabla_p \ell` of every chunk once, with
    ``create_graph``, and keeps it, so that each product is a single double-backward pass
    :math:`\nabla_p(\nabla_p\ell^\top v)` (Pearlmutter 1994; PyHessian's way for one batch): about 0.7x the
    time of a product on the benchmark CNN, at the memory of every chunk's graph at once (it grows with the
    data). Only the part's parameters are leaves, so the other parts' gradients are never formed.
    """

    def __init__(
        self,
        obj: Objective,
        part: str | None = None,
        params: Mapping[str, Tensor] | None = None,
        idx: Tensor | None = None,
        *,
        retain: bool = False,
    ) -> None:
        self.names = obj.part_names(part)  # raises ParameterError("part", ...) for an unknown part
        n = obj.size(part)
        super().__init__(dtype=np.dtype(np.float64), shape=(n, n))
        self.obj, self.part, self.params, self.idx = obj, part, params, idx
        self.matvecs = 0
        self._graphs: list[list[tuple[int, Tensor]]] | None = None
        if retain:
            base = {k: t.detach() for k, t in (obj.params0 if params is None else params).items()}
            self._leaves = [base[k].clone().requires_grad_() for k in self.names]
            q = {**base, **dict(zip(self.names, self._leaves, strict=True))}
            self._graphs = []
            for X, y in obj.chunks(idx):
                g = torch.autograd.grad(obj.loss_sum(q, X, y), self._leaves, create_graph=True)
                # a gradient that is constant in the parameters has no graph: its rows of H are zero
                self._graphs.append([(i, t) for i, t in enumerate(g) if t.requires_grad])

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        obj = self.obj
        v = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64).reshape(-1)).to(obj.device, obj.dtype)
        self.matvecs += 1
        if self._graphs is None:
            hv = obj.hvp(obj.unflat(v, self.part), self.params, self.idx)
            return obj.flat(hv, self.part).to("cpu", torch.float64).numpy().reshape(np.shape(x))
        vs = list(obj.unflat(v, self.part).values())
        out = [torch.zeros_like(t) for t in self._leaves]
        for graph in self._graphs:
            if not graph:
                continue
            hvs = torch.autograd.grad(
                [t for _, t in graph],
                self._leaves,
                grad_outputs=[vs[i] for i, _ in graph],
                retain_graph=True,
                allow_unused=True,
            )
            for o, h in zip(out, hvs, strict=True):
                if h is not None:
                    o += h
        flat = torch.cat([o.reshape(-1) for o in out]) / obj.count(self.idx)
        return flat.to("cpu", torch.float64).numpy().reshape(np.shape(x))

    def _rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self._matvec(x)  # a Hessian block is symmetric

    def _adjoint(self) -> HessianOperator:
        return self


@dataclass(frozen=True)
class Eigen:
    r"""An eigenvalue estimate :math:`\lambda` with unit vector :math:`v`.

    ``residual`` :math:`= \|Hv-\lambda v\|_2`. For symmetric :math:`H` some eigenvalue lies in
    :math:`[\lambda-r, \lambda+r]` (Parlett, *The Symmetric Eigenvalue Problem*, SIAM 1998, Ch. 4), so it is the
    uncertainty to report. It does not certify that this eigenvalue is the extreme one: Lanczos from a random
    start misses an extreme eigenvector only with probability zero in exact arithmetic, but a nearly orthogonal
    start converges late. ``matvecs`` counts every Hessian-vector product, the residual's included.
    """

    value: float
    residual: float
    matvecs: int
    method: str
    converged: bool = True


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
    ncv: int = 12,
    retain: bool = False,
) -> Eigen:
    r"""The largest or smallest eigenvalue of :math:`H_{pp}` (or, ``which="magnitude"``, the one of largest
    modulus, :math:`\pm\|H_{pp}\|_2`), by implicitly restarted Lanczos.

    ARPACK's ``dsaupd`` (Lehoucq, Sorensen, Yang, *ARPACK Users' Guide*, SIAM 1998) through
    ``scipy.sparse.linalg.eigsh`` with ``k=1``: a Krylov basis of ``ncv`` vectors, implicitly restarted at most
    ``maxiter`` times, from a seeded Gaussian start. It stops when the Ritz estimate of the residual is below
    ``tol`` :math:`\cdot|\theta|`; one more product then measures the residual :math:`r=\|Hv-\theta v\|`, so
    some eigenvalue lies within :math:`r` of :math:`\theta`, and, if no other eigenvalue is within :math:`\delta`
    of :math:`\theta`, within :math:`r^2/\delta` (Kato-Temple): the eigenvalue is far more accurate than ``tol``
    (on the benchmark CNN, ``tol`` 1e-2 gave errors of 1e-5 to 1e-4). After :math:`m` products the Lanczos error
    in :math:`\lambda_1` falls like :math:`T_{m-1}(1+2\gamma)^{-2} \approx e^{-4m\sqrt\gamma}`,
    :math:`\gamma=(\lambda_1-\lambda_2)/(\lambda_2-\lambda_n)` (Kaniel-Paige-Saad; Saad, *Numerical Methods
    for Large Eigenvalue Problems*, 2nd ed., SIAM 2011, Sec. 6.6), against :math:`(\lambda_2/\lambda_1)^{2m}` for
    the Rayleigh quotient of power iteration (PyHessian's method, which moreover finds the eigenvalue of largest
    modulus, not :math:`\lambda_{\min}` or :math:`\lambda_{\max}` of an indefinite matrix).

    ARPACK tests convergence only at the end of a Lanczos cycle, the first after ``ncv`` products, then every
    ``ncv`` - 1 or so; it keeps ``ncv`` vectors of size :math:`d_p` (float64). Small ``ncv`` stops sooner at a loose
    ``tol``, large ``ncv`` restarts less at a tight one: on the benchmark CNN ``ncv`` 6-12 took 14 products at
    ``tol`` 1e-2 and 26 at 1e-4, SciPy's default 20 took 22 at both; 12 is the compromise. When :math:`d_p \le`
    ``ncv`` the Krylov space would be the whole space, so the block is formed densely (:math:`d_p` products) and
    ``numpy.linalg.eigh`` is exact; this also avoids ARPACK's constraint :math:`1 < \text{ncv} \le d_p`. If
    ARPACK stops at ``maxiter`` the unconverged Ritz value is returned with ``converged=False`` and its (larger)
    residual.
    """
    if which not in _WHICH:
        raise ParameterError("which", f"must be one of {', '.join(_WHICH)}, got '{which}'")
    if not (tol > 0 and math.isfinite(tol)):
        raise ParameterError("tol", f"must be a positive number, got {tol}")
    if maxiter < 1:
        raise ParameterError("maxiter", f"must be at least 1, got {maxiter}")
    if ncv < 3:
        raise ParameterError("ncv", f"must be at least 3, got {ncv}")
    op = HessianOperator(obj, part, params, idx, retain=retain)
    n = op.shape[0]
    if n <= ncv:
        H = _dense(op).numpy()
        w, V = np.linalg.eigh((H + H.T) / 2)
        j = {"largest": -1, "smallest": 0, "magnitude": int(np.argmax(np.abs(w)))}[which]
        resid = float(np.linalg.norm(H @ V[:, j] - w[j] * V[:, j]))
        return Eigen(float(w[j]), resid, op.matvecs, f"dense ({n} columns) + eigh")
    v0 = np.random.default_rng(seed).standard_normal(n)
    converged = True
    try:
        vals, vecs = eigsh(op, k=1, which=_WHICH[which], v0=v0, ncv=ncv, tol=tol, maxiter=maxiter)
    except ArpackNoConvergence as e:
        if len(e.eigenvalues) == 0:
            raise RuntimeError(
                f"ARPACK found no Ritz value of the {which} eigenvalue in {maxiter} restarts ({op.matvecs} products)"
            ) from None
        vals, vecs, converged = e.eigenvalues, e.eigenvectors, False
    lam, v = float(vals[0]), vecs[:, 0] / np.linalg.norm(vecs[:, 0])
    resid = float(np.linalg.norm(op.matvec(v) - lam * v))
    return Eigen(lam, resid, op.matvecs, f"Lanczos (ARPACK eigsh, ncv={ncv}, tol={tol:g})", converged)


# ---- trace ---------------------------------------------------------------------------------------------------


def _rademacher(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    return rng.integers(0, 2, size=(n, m)).astype(np.float64) * 2.0 - 1.0


def _apply(op: HessianOperator, M: np.ndarray) -> np.ndarray:
    return np.stack([op.matvec(M[:, j]) for j in range(M.shape[1])], axis=1)


def hessian_trace(
    obj: Objective,
    part: str | None = None,
    probes: int = 30,
    method: str = "hutch++",
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    retain: bool = False,
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
    """
    if method not in ("hutch++", "hutchinson"):
        raise ParameterError("method", f"must be 'hutch++' or 'hutchinson', got '{method}'")
    least = 4 if method == "hutch++" else 2  # two Hutchinson samples at least, for a standard error
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < least:
        raise ParameterError("probes", f"must be an integer >= {least} for {method}, got {probes!r}")
    op = HessianOperator(obj, part, params, idx, retain=retain)
    n = op.shape[0]
    rng = np.random.default_rng(seed)
    if method == "hutchinson":
        Z = _rademacher(rng, n, probes)
        q = np.einsum("ij,ij->j", Z, _apply(op, Z))
        return Trace(float(q.mean()), float(q.std(ddof=1) / math.sqrt(probes)), op.matvecs, method)
    k = probes // 3
    g = probes - 2 * k
    S = _rademacher(rng, n, k)
    Q, _ = np.linalg.qr(_apply(op, S))
    top = float(np.einsum("ij,ij->", Q, _apply(op, Q)))
    G = _rademacher(rng, n, g)
    G -= Q @ (Q.T @ G)
    q = np.einsum("ij,ij->j", G, _apply(op, G))
    return Trace(top + float(q.mean()), float(q.std(ddof=1) / math.sqrt(g)), op.matvecs, method)


# ---- effective rank ------------------------------------------------------------------------------------------


def effective_rank(
    obj: Objective,
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
    retain: bool = False,
) -> Ratio:
    r"""The effective rank :math:`\kappa = \operatorname{tr}(H_{pp})/\|H_{pp}\|_2` at the objective's point.

    :math:`\|H\|_2 = \max(|\lambda_{\max}|, |\lambda_{\min}|)`: from ``top`` and ``bottom`` when both are given
    (:func:`extreme_eigenvalue` results for this block and point, as a caller that reports them already has),
    otherwise found in one Lanczos run as the eigenvalue of largest modulus (``which="magnitude"``). The trace
    by :func:`hessian_trace`.
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
    tr = hessian_trace(obj, part, probes, method, seed, params, idx, retain=retain)
    if top is not None and bottom is not None:
        lam = top if abs(top.value) >= abs(bottom.value) else bottom
        spent = top.matvecs + bottom.matvecs
        how = f"max(|lambda_max|, |lambda_min|) by {lam.method}"
    else:
        lam = extreme_eigenvalue(obj, part, "magnitude", tol, seed=seed + 1, params=params, idx=idx, retain=retain)
        spent = lam.matvecs
        how = f"|lambda| largest by {lam.method}"
    norm = abs(lam.value)
    if norm == 0:
        raise ParameterError("part", "has a zero Hessian block at this point: the effective rank is undefined")
    kappa = tr.value / norm
    rel_t = tr.se / abs(tr.value) if tr.value else 0.0
    se = abs(kappa) * math.hypot(rel_t, lam.residual / norm)
    return Ratio(kappa, se, tr, lam, tr.probes + spent, f"tr(H) by {method} ({tr.probes} probes) / ||H||_2 as {how}")


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
