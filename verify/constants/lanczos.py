r"""Extreme eigenvalues of a Hessian block by thick-restart Lanczos on Hessian-vector products.

* :func:`lanczos` -- :math:`\lambda_{\max}` and :math:`\lambda_{\min}` of a block :math:`H_{pp}` from one run
  (full reorthogonalisation, a convergence test after every product), with honest residual intervals
  (:class:`Eigen`) and the Krylov basis with its projection (:class:`Spectrum`), which the trace estimators of
  :mod:`verify.constants.trace` reuse to deflate.

The run is a sequence of named steps: :func:`check_arguments`, :func:`dense_spectrum` (a block of at most ``ncv``
columns), :func:`start_vector`, then :meth:`KrylovBasis.expand` (one product), :meth:`EndTest.update` (the Ritz
pairs and the convergence test of both ends) and :meth:`KrylovBasis.restart` (thick restart) until
:func:`spectrum_of` reports the result. The operator is :class:`~verify.ops.hvp.HessianOperator`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.hvp import LABELS, HessianOperator
from verify.ops.objective import Objective

ENDS = ("largest", "smallest")

# Products in a row on which an end must pass the convergence test (see lanczos). On the shared test models
# (tests/verify/constants/constants_cases.py: 34 cases in float32/64 with more than 20 parameters, whole and
# per-client objectives, 8 seeds, tol 1e-3, 1,088 lambda_max runs from the gradient start), 2 let 4 runs stop with
# an interval that missed the eigenvalue, 3 let 2 (8.9 and 10.0 products on average; 9 and 10 on the benchmark CNN).
PATIENCE = 3


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


def basis_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype of the Lanczos basis: float64 for a float64 objective, float32 otherwise."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def orthonormalise(V: Tensor, w: Tensor) -> tuple[Tensor, Tensor]:
    """w minus its projection on the rows of V, by classical Gram-Schmidt twice ("twice is enough", Giraud et
    al. 2005); returns (the coefficients, the remainder)."""
    h = V @ w
    w = w - V.T @ h
    h2 = V @ w
    return h + h2, w - V.T @ h2


def check_arguments(which: Sequence[str], tol: float, maxiter: int, ncv: int, start: str) -> None:
    """The arguments of :func:`lanczos`, each refused with its name."""
    if not which:
        raise ParameterError("which", "name at least one end: 'largest', 'smallest' or both")
    for end in which:
        if end not in ENDS:
            raise ParameterError("which", f"must be 'largest' or 'smallest', got '{end}'")
    if not (tol > 0 and math.isfinite(tol)):
        raise ParameterError("tol", f"must be a positive number, got {tol}")
    if maxiter < 1:
        raise ParameterError("maxiter", f"must be at least 1, got {maxiter}")
    if ncv < 4:
        raise ParameterError("ncv", f"must be at least 4, got {ncv}")
    if start not in ("gradient", "random"):
        raise ParameterError("start", f"must be 'gradient' or 'random', got '{start}'")


def dense_spectrum(op: HessianOperator) -> Spectrum:
    """A block small enough to form: its :math:`d_p` columns, then ``numpy.linalg.eigh`` (exact)."""
    n = op.shape[0]
    dev, bdt = op.obj.device, basis_dtype(op.obj.dtype)
    H = op.dense().numpy()
    w_, V_ = np.linalg.eigh((H + H.T) / 2)
    how = f"dense ({n} columns by {LABELS[op.method]}) + eigh"
    ends = []
    for j in (-1, 0):
        r = float(np.linalg.norm(H @ V_[:, j] - w_[j] * V_[:, j]))
        ends.append(Eigen(float(w_[j]), r, op.matvecs, how, True, r))
    basis = torch.from_numpy(V_.T.copy()).to(dev, bdt)
    zero = torch.zeros(n, dtype=bdt, device=dev)
    return Spectrum(ends[0], ends[1], basis, np.diag(w_), zero, op.matvecs, op.part)


def start_vector(op: HessianOperator, seed: int, start: str) -> Tensor:
    r"""The unit start vector: a seeded Gaussian direction plus, with ``start="gradient"``, the block's gradient
    (both normalised; see :func:`lanczos`)."""
    dev, bdt = op.obj.device, basis_dtype(op.obj.dtype)
    rng = np.random.default_rng(seed)
    v = torch.from_numpy(rng.standard_normal(op.shape[0])).to(dev, bdt)
    v = v / torch.linalg.vector_norm(v)
    if start == "gradient":
        g = op.gradient().to(dev, bdt)
        gn = float(torch.linalg.vector_norm(g))
        if math.isfinite(gn) and gn > 0:
            v = v + g / gn
    return v / torch.linalg.vector_norm(v)


def restart_keep(ncv: int, which: Sequence[str]) -> dict[str, int]:
    """Ritz vectors kept at a restart: half the basis, split between the ends that must converge (one for the
    other)."""
    half = ncv // 2
    if len(set(which)) == 2:
        return {"largest": half // 2, "smallest": half - half // 2}
    return {e: half - 1 if e in which else 1 for e in ENDS}


@dataclass
class KrylovBasis:
    """The state of a run: the basis ``V`` (rows; ``ncv + 1`` slots), the computed projection ``C`` (``C[:k, :k]``,
    column j from the product :math:`Hv_j`), its size ``k``, and the last Lanczos residual ``w`` of norm
    ``beta``."""

    V: Tensor
    C: np.ndarray
    k: int = 0
    w: Tensor = field(default_factory=lambda: torch.zeros(0))
    beta: float = 0.0

    @classmethod
    def started(cls, v0: Tensor, ncv: int) -> KrylovBasis:
        """An empty run: ``v0`` (of unit norm) in the first of the ``ncv + 1`` basis slots, no product yet (k = 0)."""
        V = torch.zeros(ncv + 1, v0.shape[0], dtype=v0.dtype, device=v0.device)
        V[0] = v0
        return cls(V, np.zeros((ncv + 1, ncv + 1)), w=torch.zeros_like(v0))

    @property
    def projection(self) -> np.ndarray:
        r"""The computed (unsymmetrised) projection :math:`C = VHV^\top` of the current basis."""
        return self.C[: self.k, : self.k]

    def expand(self, op: HessianOperator) -> None:
        """One product :math:`Hv_k`, orthogonalised against the basis: its coefficients are column k of C."""
        w = op.mv(self.V[self.k]).to(self.V.dtype)
        h, w = orthonormalise(self.V[: self.k + 1], w)
        self.C[: self.k + 1, self.k] = h.double().cpu().numpy()
        self.w, self.beta = w, float(torch.linalg.vector_norm(w))
        self.k += 1

    def restart(self, theta: np.ndarray, S: np.ndarray, keep: Mapping[str, int]) -> None:
        """Thick restart (Wu and Simon 2000): keep the Ritz vectors at both ends, plus the residual direction."""
        k = self.k
        sel = sorted({*range(keep["smallest"]), *range(k - keep["largest"], k)})
        Y = torch.from_numpy(S[:, sel]).to(self.V.device, self.V.dtype)
        self.V[: len(sel)] = Y.T @ self.V[:k]
        self.V[len(sel) :] = 0
        C = np.zeros_like(self.C)
        C[: len(sel), : len(sel)] = np.diag(theta[sel])
        C[len(sel), : len(sel)] = self.beta * S[-1, sel]
        self.C = C
        self.k = len(sel)
        # re-orthogonalise the residual against the new basis (it is already, up to rounding)
        _, self.w = orthonormalise(self.V[: self.k], self.w)
        self.beta = float(torch.linalg.vector_norm(self.w))

    def extend(self) -> None:
        r"""The Lanczos recurrence: :math:`\beta` enters the projection and :math:`w/\beta` the basis."""
        self.C[self.k, self.k - 1] = self.beta
        self.next_vector()

    def next_vector(self) -> None:
        r"""The normalised residual :math:`w/\beta` as basis vector k (after :meth:`extend`, or after a
        :meth:`restart`)."""
        self.V[self.k] = self.w / self.beta


@dataclass
class EndTest:
    """The convergence test of both ends, product after product (see :func:`lanczos`): residual bounds, error
    estimates, and how many products in a row each end has passed."""

    tol: float
    unit: float  # unit rounding of the products' dtype
    asym: float = 0.0  # largest measured asymmetry ||(C - C^T)/2||_2 so far
    last: dict[str, float] = field(default_factory=dict)
    streak: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDS, 0))

    def update(
        self, Ck: np.ndarray, theta: np.ndarray, S: np.ndarray, beta: float
    ) -> tuple[dict[str, float], dict[str, float], bool]:
        """After a product: the residual bound and the error estimate of each end, and whether the Krylov space
        is invariant. ``theta``, ``S``: the eigenpairs of the symmetrised projection ``Ck``."""
        k = Ck.shape[0]
        self.asym = max(self.asym, float(np.linalg.norm((Ck - Ck.T) / 2, 2)) if k > 1 else 0.0)
        scale = float(max(abs(theta[0]), abs(theta[-1])))
        ritz_res = beta * np.abs(S[-1, :]) + self.asym  # residual bound of every Ritz pair
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
            bar_err = self.tol * scale if trusted else max(self.tol * scale, 2 * self.asym)
            bar_change = max(self.tol * scale, 10 * self.unit * scale)
            change = float(abs(theta[j] - self.last[e])) if e in self.last else math.inf
            self.last[e] = float(theta[j])
            self.streak[e] = self.streak[e] + 1 if err[e] <= bar_err and change <= bar_change else 0
        invariant = beta <= 10 * self.unit * max(scale, 1e-300) * math.sqrt(k)
        if invariant:
            # an invariant Krylov space: its Ritz values are eigenvalues (up to the products' rounding)
            err = dict(res)
        return res, err, invariant

    def passed(self, end: str) -> bool:
        """Whether ``end`` has passed the test on :data:`PATIENCE` products in a row."""
        return self.streak[end] >= PATIENCE


def spectrum_of(
    op: HessianOperator,
    basis: KrylovBasis,
    theta: np.ndarray,
    ends: tuple[dict[str, float], dict[str, float], bool],
    test: EndTest,
    method: str,
) -> Spectrum:
    """The result of a run that stops: both ends with their residual bounds, error estimates and whether each
    converged, and the basis with its symmetrised projection and last residual."""
    res, err, invariant = ends
    ok = {e: bool(invariant or test.passed(e)) for e in res}
    top = Eigen(float(theta[-1]), res["largest"], op.matvecs, method, ok["largest"], err["largest"])
    low = Eigen(float(theta[0]), res["smallest"], op.matvecs, method, ok["smallest"], err["smallest"])
    Ck = basis.projection
    return Spectrum(top, low, basis.V[: basis.k].clone(), (Ck + Ck.T) / 2, basis.w, op.matvecs, op.part)


def lanczos(
    obj: Objective | HessianOperator,
    part: str | None = None,
    tol: float = 1e-4,
    maxiter: int = 100,
    seed: int = 0,
    params: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    which: Sequence[str] = ENDS,
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
    the first enters the Krylov space, with a Ritz gap that makes :math:`r^2/\delta` look converged; the bottom of a
    network's spectrum usually is such a cluster. On the shared test models
    (``tests/verify/constants/constants_cases.py``, the 34 float32/64 cases with more than 20 parameters, whole and
    per-client objectives, 8 seeds, tol 1e-3), the plain Kato-Temple estimate let 7 of 1,088 lambda_max runs stop
    with an interval that missed the eigenvalue, this one 2 (both on one model whose top pair is 2% of ||H|| apart),
    the residual 0 but for 40% more products on the benchmark CNN; at the bottom the plain estimate let 2 of 1,088
    miss and :math:`r` none.

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
    check_arguments(which, tol, maxiter, ncv, start)
    op = obj if isinstance(obj, HessianOperator) else HessianOperator(obj, part, params, idx, retain=retain)
    if op.shape[0] <= ncv:
        return dense_spectrum(op)
    basis = KrylovBasis.started(start_vector(op, seed, start), ncv)
    test = EndTest(tol, float(torch.finfo(op.obj.dtype).eps))
    keep = restart_keep(ncv, which)
    method = f"Lanczos (thick restart, ncv={ncv}, tol={tol:g} of ||H||, {start} start; products by {LABELS[op.method]})"
    cycles = 0
    while True:
        basis.expand(op)
        Ck = basis.projection
        theta, S = np.linalg.eigh((Ck + Ck.T) / 2)
        ends = test.update(Ck, theta, S, basis.beta)
        done = ends[2] or all(test.passed(e) for e in which)
        if done or (basis.k == ncv and cycles >= maxiter):
            return spectrum_of(op, basis, theta, ends, test, method)
        if basis.k == ncv:
            cycles += 1
            basis.restart(theta, S, keep)
            basis.next_vector()
        else:
            basis.extend()
