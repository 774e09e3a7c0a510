r"""Stochastic traces of a Hessian block from Hessian-vector products: Hutchinson, Hutch++, and Hutchinson deflated
by the Krylov basis of a Lanczos run (:class:`~verify.constants.lanczos.Spectrum`).

* :func:`hessian_trace` -- :math:`\operatorname{tr} H_{pp}` by Hutch++ (Meyer, Musco, Musco, Woodruff, SOSA 2021),
  Hutchinson (Hutchinson 1989; Avron and Toledo, J. ACM 58(2), 2011), or Hutchinson deflated by a Lanczos basis;
* :func:`block_traces` -- the traces of several diagonal blocks from one set of products with the whole operator.

The operator is :class:`~verify.ops.hvp.HessianOperator`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.hvp import HessianOperator
from verify.ops.objective import Objective

from .lanczos import Spectrum

METHODS = ("hutch++", "hutchinson", "deflated")


@dataclass(frozen=True)
class Trace:
    """A stochastic estimate of tr(H): ``se`` is its standard error, ``probes`` the Hessian-vector products used."""

    value: float
    se: float
    probes: int
    method: str


def _rademacher(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    return rng.integers(0, 2, size=(n, m)).astype(np.float64) * 2.0 - 1.0


def _apply(op: HessianOperator, M: np.ndarray) -> np.ndarray:
    return np.stack([op.matvec(M[:, j]) for j in range(M.shape[1])], axis=1)


def hutchinson(op: HessianOperator, probes: int, rng: np.random.Generator) -> Trace:
    r"""Hutchinson's :math:`\frac1m\sum_j z_j^\top H z_j` over ``probes`` Rademacher columns."""
    Z = _rademacher(rng, op.shape[0], probes)
    q = np.einsum("ij,ij->j", Z, _apply(op, Z))
    return Trace(float(q.mean()), float(q.std(ddof=1) / math.sqrt(probes)), op.matvecs, "hutchinson")


def hutch_plus_plus(op: HessianOperator, probes: int, rng: np.random.Generator) -> Trace:
    r"""Hutch++ (Alg. 1): the trace on :math:`Q = \operatorname{orth}(HS)` exactly, Hutchinson on the rest."""
    n = op.shape[0]
    k = probes // 3
    g = probes - 2 * k
    S = _rademacher(rng, n, k)
    Q_, _ = np.linalg.qr(_apply(op, S))
    top = float(np.einsum("ij,ij->", Q_, _apply(op, Q_)))
    G = _rademacher(rng, n, g)
    G -= Q_ @ (Q_.T @ G)
    q = np.einsum("ij,ij->j", G, _apply(op, G))
    return Trace(top + float(q.mean()), float(q.std(ddof=1) / math.sqrt(g)), op.matvecs, "hutch++")


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
    if method not in METHODS:
        raise ParameterError("method", f"must be 'hutch++' or 'hutchinson', got '{method}'")
    if method == "deflated" and basis is None:
        raise ParameterError("basis", "the deflated estimator needs the Spectrum of a lanczos run")
    least = 4 if method == "hutch++" else 2  # two Hutchinson samples at least, for a standard error
    if isinstance(probes, bool) or not isinstance(probes, int) or probes < least:
        raise ParameterError("probes", f"must be an integer >= {least} for {method}, got {probes!r}")
    op = obj if isinstance(obj, HessianOperator) else HessianOperator(obj, part, params, idx, retain=retain)
    if basis is not None:
        return block_traces(op, basis, [None], probes, seed)[None]
    rng = np.random.default_rng(seed)
    return hutchinson(op, probes, rng) if method == "hutchinson" else hutch_plus_plus(op, probes, rng)


def part_offsets(op: HessianOperator, parts: Sequence[str | None]) -> dict[str | None, slice]:
    """Where each part's coordinates lie in ``op``'s vectors (``None``: all of them); parts are addressable on a
    whole-model operator only."""
    obj, n = op.obj, op.shape[0]
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
    return offsets


def deflated_exact(
    spectrum: Spectrum, offsets: Mapping[str | None, slice], parts: Sequence[str | None]
) -> dict[str | None, float]:
    r"""The term :math:`\operatorname{tr}(VD_pHV^\top) = \langle VD_pV^\top, T\rangle + (VD_pr)_k` of each part,
    from the Lanczos relation (no product)."""
    Q, T, r = spectrum.basis, spectrum.projected, spectrum.residual
    k = Q.shape[0]
    exact: dict[str | None, float] = {}
    for p in parts:
        Qp = Q[:, offsets[p]].double()
        G = (Qp @ Qp.T).cpu().numpy()
        exact[p] = float(np.sum(G * T)) + (float(Qp[k - 1] @ r[offsets[p]].double()) if k else 0.0)
    return exact


def deflated_samples(
    op: HessianOperator,
    Q: Tensor,
    offsets: Mapping[str | None, slice],
    parts: Sequence[str | None],
    probes: int,
    seed: int,
) -> dict[str | None, list[float]]:
    r"""Hutchinson samples :math:`(D_p\tilde z)^\top H\tilde z` of every part from the same ``probes`` products,
    :math:`\tilde z = (I - Q^\top Q)z` for Rademacher z."""
    samples: dict[str | None, list[float]] = {p: [] for p in parts}
    rng = np.random.default_rng(seed)
    for _ in range(probes):
        z = torch.from_numpy(_rademacher(rng, op.shape[0], 1)[:, 0]).to(Q.device, Q.dtype)
        z = z - Q.T @ (Q @ z)
        hz = op.mv(z).to(Q.dtype)
        for p in parts:
            sl = offsets[p]
            samples[p].append(float(z[sl].double() @ hz[sl].double()))
    return samples


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
    Q = spectrum.basis
    n = op.shape[0]
    if Q.shape[1] != n:
        raise ParameterError("spectrum", f"has vectors of size {Q.shape[1]}, the block has {n}")
    offsets = part_offsets(op, parts)
    k = Q.shape[0]
    exact = deflated_exact(spectrum, offsets, parts)
    before = op.matvecs
    # a complete basis (k = n) leaves nothing to estimate
    samples = deflated_samples(op, Q, offsets, parts, probes, seed) if k < n else {p: [] for p in parts}
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
