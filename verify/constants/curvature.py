r"""Curvature of the objective from Hessian-vector products: extreme eigenvalues, effective rank, secants.

Everything here sees the Hessian only through Hessian-vector products (:class:`~verify.ops.hvp.HessianOperator`),
so nothing of size :math:`d^2` is ever formed except by :func:`dense_hessian`, which is meant for small models and
tests. A *part* (``"client"``, ``"server"``, ``"aux"``, ...) restricts the Hessian to its diagonal block
:math:`H_{pp} = P_p^\top \nabla^2 f\, P_p`, :math:`P_p` the embedding of the part's coordinates: the tangent is
zero outside the part and only the part's rows of :math:`\nabla^2 f\, v` are kept. The Hessian is that of the
:class:`~verify.ops.objective.Objective`: with clients, of f = (1/M) sum_m f_m.

The methods live in their own modules: :mod:`verify.constants.lanczos` (the thick-restart Lanczos run,
:math:`\lambda_{\max}` and :math:`\lambda_{\min}` with residual intervals and the Krylov basis) and
:mod:`verify.constants.trace` (Hutch++, Hutchinson, and Hutchinson deflated by a Lanczos basis). The estimators
built on them are here:

* :func:`extreme_eigenvalue` -- one end (or the eigenvalue of largest modulus) from :func:`lanczos`.
* :func:`effective_rank` -- :math:`\kappa = \operatorname{tr} H/\|H\|_2`, HERON-SFL's Assumption 5.
* :func:`secant_smoothness` -- :math:`\|\nabla f(x_1)-\nabla f(x_0)\|/\|x_1-x_0\|`, a lower bound on :math:`L`.
* :func:`dense_hessian` -- the block itself, for small models and tests.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.hvp import HessianOperator
from verify.ops.objective import Objective, Params

from .lanczos import Eigen, Spectrum, lanczos
from .trace import Trace, hessian_trace

WHICH = ("largest", "smallest", "magnitude")


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
    return op.dense().to(obj.device, obj.dtype)


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
    if which not in WHICH:
        raise ParameterError("which", f"must be one of {', '.join(WHICH)}, got '{which}'")
    ends = ("largest", "smallest") if which == "magnitude" else (which,)
    s = lanczos(obj, part, tol, maxiter, seed, params, idx, which=ends, ncv=ncv, retain=retain, start=start)
    return {"largest": s.top, "smallest": s.bottom, "magnitude": s.norm}[which]


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
    p0: Params = {**obj.params0, **obj.placed(x0)}  # points given elsewhere (the CPU) on the objective's device
    p1: Params = {**obj.params0, **obj.placed(x1)}
    step = torch.cat([(p1[n] - p0[n]).reshape(-1) for n in names]).double()
    den = float(torch.linalg.vector_norm(step))
    if den == 0:
        raise ParameterError("x1", f"equals x0 on part '{part or 'all'}': the secant is undefined")
    g0, g1 = obj.grad(p0, idx), obj.grad(p1, idx)
    num = float(torch.linalg.vector_norm(torch.cat([(g1[n] - g0[n]).reshape(-1) for n in names]).double()))
    return num / den
