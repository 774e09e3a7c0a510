r"""The eigenvalue density of a Hessian block by stochastic Lanczos quadrature (SLQ), from Hessian-vector products.

References: B. Ghorbani, S. Krishnan, Y. Xiao, "An investigation into neural net optimization via Hessian eigenvalue
density", ICML 2019, pp. 2232-2241 (Sec. 2 and App. A: the method; their code, ``google/spectral-density``,
``jax/density.py``: the smoothing); S. Ubaru, J. Chen, Y. Saad, "Fast estimation of tr(f(A)) via stochastic Lanczos
quadrature", SIAM J. Matrix Anal. Appl. 38(4), 2017; G. H. Golub and J. H. Welsch, "Calculation of Gauss quadrature
rules", Math. Comp. 23(106), 1969 (the nodes and weights from the tridiagonal matrix). HERON-SFL (seed
``001_e8dcbf2a405221d7.txt``, App. B, line 601) cites the last as [13] and Ghorbani et al. as [12] for its Fig. 7.

The spectral density of a symmetric :math:`H \in \mathbb{R}^{d\times d}` with eigenvalues :math:`\lambda_i` is
:math:`\phi(t) = \frac1d\sum_i \delta(t-\lambda_i)`. For a probe :math:`v` with :math:`\mathbb{E}[vv^\top/\|v\|^2] =
I/d` (Rademacher or Gaussian), :math:`\mathbb{E}[v^\top f(H) v/\|v\|^2] = \operatorname{tr} f(H)/d = \int f\,\phi`.
``steps`` = m Lanczos iterations from :math:`v/\|v\|` give the tridiagonal :math:`T_m` with eigenpairs
:math:`(\theta_j, s_j)`; the Gauss quadrature with nodes :math:`\theta_j` and weights :math:`w_j = (e_1^\top
s_j)^2` (summing to 1) is exact for polynomials of degree at most :math:`2m-1`:
:math:`\sum_j w_j\theta_j^k = v^\top H^k v/\|v\|^2`, :math:`k \le 2m-1` (Golub and Welsch). Averaged over probes,
the weighted nodes estimate :math:`\phi`; convolved with a Gaussian of variance :math:`\sigma^2` they give a
smooth density on a grid, as Ghorbani et al. draw it (their default: :math:`\sigma^2 = 10^{-5}\max(1,
\lambda_{\max}-\lambda_{\min})`, 10,000 grid points from the smallest node minus 0.01 to the largest plus 0.01,
the density renormalised to integrate to 1 on the grid).

The Lanczos run here is plain (no restart) with full reorthogonalisation, each new vector orthogonalised twice
against the whole basis (:func:`verify.constants.lanczos.orthonormalise`): Ghorbani et al. do the same, since
without it the lost orthogonality duplicates the extreme Ritz values ("ghost" eigenvalues) and shifts the weights.
A residual of (numerically) zero before ``steps`` means the Krylov space is invariant: the run stops there and its
nodes are exact eigenvalues (a full-dimension run, ``steps`` = d, gives every eigenvalue in the probe's span).

* :func:`lanczos_tridiagonal` -- the tridiagonal matrix of one probe;
* :func:`gauss_quadrature` -- its nodes and weights;
* :func:`smoothed_density` -- the Gaussian-smoothed density of weighted nodes on a grid;
* :func:`slq` -- all of it over several probes of a matrix-vector product; :func:`hessian_density` on a
  :class:`~verify.ops.hvp.HessianOperator`;
* :func:`mass_near_zero` -- the share of spectral mass within a fraction of the largest modulus.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.hvp import HessianOperator

from .lanczos import basis_dtype, orthonormalise

PROBES = ("rademacher", "gaussian")
SIGMA2 = 1e-5  # Ghorbani et al.'s smoothing variance, times max(1, the nodes' range) (google/spectral-density)
GRID = 10_000  # their grid's number of points
EXPAND = 1e-2  # their grid's margin beyond the extreme nodes


@dataclass(frozen=True, kw_only=True, eq=False)
class Density:
    r"""An SLQ estimate of a Hessian block's eigenvalue density.

    ``nodes`` and ``weights``: one row per probe (``probes`` x ``steps``; a probe whose Krylov space became
    invariant early has its last weights 0 and its last nodes repeated), each row's weights summing to 1;
    ``grid`` and ``density``: the Gaussian-smoothed average over probes (variance ``sigma2``), integrating to 1 on the
    grid; ``dim``: d; ``matvecs``: the Hessian-vector products spent; ``method``: in words."""

    nodes: np.ndarray
    weights: np.ndarray
    grid: np.ndarray
    density: np.ndarray
    sigma2: float
    dim: int
    matvecs: int
    method: str

    @property
    def moments(self) -> np.ndarray:
        r"""Each probe's first moment :math:`\sum_j w_j\theta_j = v^\top Hv/\|v\|^2`; its mean over probes
        estimates :math:`\operatorname{tr}(H)/d`."""
        return np.asarray(np.sum(self.weights * self.nodes, axis=1))

    @property
    def largest_modulus(self) -> float:
        r"""The largest :math:`|\theta_j|` over every probe: Lanczos's extreme Ritz values converge first, so this
        is an estimate (from below) of :math:`\|H\|_2`."""
        return float(np.max(np.abs(self.nodes)))


def check_slq(probes: int, steps: int, dim: int, probe: str) -> None:
    """The arguments of :func:`slq`, each refused with its name."""
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < 1:
        raise ParameterError("probes", f"must be an integer >= 1, got {probes!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ParameterError("steps", f"must be an integer >= 1, got {steps!r}")
    if steps > dim:
        raise ParameterError("steps", f"must be at most the dimension {dim}, got {steps}")
    if probe not in PROBES:
        raise ParameterError("probe", f"must be one of {', '.join(PROBES)}, got {probe!r}")


def lanczos_tridiagonal(mv: Callable[[Tensor], Tensor], v0: Tensor, steps: int) -> tuple[np.ndarray, np.ndarray]:
    r"""The diagonal :math:`\alpha` (length k) and off-diagonal :math:`\beta` (length k - 1) of the Lanczos
    tridiagonal matrix :math:`T_k` of ``mv`` from ``v0`` (normalised here), :math:`k \le` ``steps``: fewer when a
    residual vanishes (an invariant Krylov space, whose Ritz values are then exact). Full reorthogonalisation:
    each new vector is orthogonalised twice against the whole basis (float64 coefficients)."""
    v = v0 / torch.linalg.vector_norm(v0)
    V = torch.zeros(steps, v.shape[0], dtype=v.dtype, device=v.device)
    V[0] = v
    alpha: list[float] = []
    beta: list[float] = []
    scale = 0.0
    eps = float(torch.finfo(v.dtype).eps)
    for k in range(steps):
        w = mv(V[k]).to(v.dtype)
        h, w = orthonormalise(V[: k + 1], w)
        # alpha_k = v_k^T H v_k: the coefficient on v_k (the one on v_{k-1} is beta_{k-1}, up to rounding)
        alpha.append(float(h[k]))
        b = float(torch.linalg.vector_norm(w))
        scale = max(scale, abs(alpha[-1]), b)
        if k == steps - 1:
            break
        # an invariant Krylov space (the residual at rounding level of ||H||): T_k holds exact eigenvalues
        if b <= 10 * eps * max(scale, 1e-300) * math.sqrt(k + 1):
            break
        beta.append(b)
        V[k + 1] = w / b
    return np.asarray(alpha), np.asarray(beta)


def gauss_quadrature(alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Golub and Welsch (1969): the nodes :math:`\theta_j` (ascending) and weights :math:`w_j = (e_1^\top s_j)^2` of
    the Gauss quadrature of the tridiagonal :math:`T` with diagonal ``alpha`` and off-diagonal ``beta``."""
    T = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    theta, S = np.linalg.eigh(T)
    return theta, S[0, :] ** 2


def smoothed_density(
    nodes: np.ndarray, weights: np.ndarray, *, sigma2: float = SIGMA2, grid: int = GRID, expand: float = EXPAND
) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Ghorbani et al.'s smoothing (``google/spectral-density``, ``eigv_to_density``): per probe (row) the weighted
    sum of Gaussians of variance :math:`s = \texttt{sigma2}\cdot\max(1, \lambda_{\max}-\lambda_{\min})` at the
    nodes, averaged over probes, on ``grid`` points from the mean smallest node minus ``expand`` to the mean largest
    plus ``expand`` (the range :math:`\lambda_{\max}-\lambda_{\min}` is that grid's), renormalised to integrate to 1
    on the grid. Returns the grid, the density and the variance :math:`s` used."""
    lo = float(np.mean(np.min(nodes, axis=1))) - expand
    hi = float(np.mean(np.max(nodes, axis=1))) + expand
    s2 = sigma2 * max(1.0, hi - lo)
    t = np.linspace(lo, hi, grid)
    dens = np.zeros(grid)
    # one probe at a time: (grid x steps) at most 10,000 x a few hundred values in memory
    for th, w in zip(nodes, weights, strict=True):
        dens += np.exp(-((t[:, None] - th[None, :]) ** 2) / (2 * s2)) @ w / math.sqrt(2 * math.pi * s2)
    dens /= len(nodes)
    total = float(np.sum(dens) * (t[1] - t[0]))
    if total > 0:
        dens /= total
    return t, dens, s2


def probe_vector(dim: int, probe: str, rng: np.random.Generator) -> np.ndarray:
    """One probe: independent signs (Rademacher) or standard normal entries."""
    if probe == "rademacher":
        return rng.choice(np.array([-1.0, 1.0]), size=dim)
    return rng.standard_normal(dim)


def slq(
    mv: Callable[[Tensor], Tensor],
    dim: int,
    *,
    probes: int = 10,
    steps: int = 80,
    seed: int = 0,
    probe: str = "rademacher",
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
    sigma2: float = SIGMA2,
    grid: int = GRID,
) -> Density:
    r"""The SLQ estimate of the eigenvalue density of the symmetric operator ``mv`` (flat tensors of length
    ``dim``, in ``dtype`` on ``device``): ``probes`` seeded probes (``probe``: Rademacher or Gaussian, drawn in
    float64 by NumPy from ``seed``), ``steps`` Lanczos iterations each (:func:`lanczos_tridiagonal`), the Gauss
    quadrature of each (:func:`gauss_quadrature`) and the smoothed density (:func:`smoothed_density`). Costs
    ``probes`` x ``steps`` products at most (fewer when a Krylov space is invariant)."""
    check_slq(probes, steps, dim, probe)
    rng = np.random.default_rng(seed)
    nodes = np.zeros((probes, steps))
    weights = np.zeros((probes, steps))
    spent = 0
    for i in range(probes):
        v = torch.from_numpy(probe_vector(dim, probe, rng)).to(device, dtype)
        alpha, beta = lanczos_tridiagonal(mv, v, steps)
        spent += len(alpha)
        theta, w = gauss_quadrature(alpha, beta)
        k = len(theta)
        nodes[i, :k], weights[i, :k] = theta, w
        nodes[i, k:] = theta[-1]  # an early stop: padding at zero weight, which moves no moment and no density
    if not (np.all(np.isfinite(nodes)) and np.all(np.isfinite(weights))):
        raise ParameterError("mv", "gave a non-finite Lanczos coefficient (a non-finite Hessian-vector product)")
    t, dens, s2 = smoothed_density(nodes, weights, sigma2=sigma2, grid=grid)
    how = (f"stochastic Lanczos quadrature ({probes} {probe} probes x {steps} steps, full reorthogonalisation; "
           f"Gaussian smoothing of variance {s2:.3g})")  # fmt: skip
    return Density(nodes=nodes, weights=weights, grid=t, density=dens, sigma2=s2, dim=dim, matvecs=spent, method=how)


def hessian_density(
    op: HessianOperator,
    *,
    probes: int = 10,
    steps: int = 80,
    seed: int = 0,
    probe: str = "rademacher",
    sigma2: float = SIGMA2,
    grid: int = GRID,
) -> Density:
    """:func:`slq` of the Hessian block ``op`` at its point (products in the objective's dtype, the Lanczos basis
    in :func:`verify.constants.lanczos.basis_dtype` of it, on the objective's device)."""
    dev, bdt = op.obj.device, basis_dtype(op.obj.dtype)
    return slq(op.mv, int(op.shape[0]), probes=probes, steps=steps, seed=seed, probe=probe, dtype=bdt, device=dev,
               sigma2=sigma2, grid=grid)  # fmt: skip


def mass_near_zero(d: Density, fraction: float = 0.01) -> np.ndarray:
    r"""Per probe, the quadrature weight on nodes with :math:`|\theta_j| \le` ``fraction`` times the largest
    :math:`|\theta|` over every probe (:attr:`Density.largest_modulus`): each is an estimate of the share of
    eigenvalues (counted with multiplicity, :math:`\frac1d\#\{i: |\lambda_i| \le c\}`) within that band, resolved
    only as finely as ``steps`` nodes allow."""
    if not (0 < fraction < 1):
        raise ParameterError("fraction", f"must lie in (0, 1), got {fraction}")
    band = fraction * d.largest_modulus
    return np.asarray(np.sum(np.where(np.abs(d.nodes) <= band, d.weights, 0.0), axis=1))


__all__ = ["EXPAND", "GRID", "PROBES", "SIGMA2", "Density", "check_slq", "gauss_quadrature", "hessian_density",
           "lanczos_tridiagonal", "mass_near_zero", "probe_vector", "slq", "smoothed_density"]  # fmt: skip
