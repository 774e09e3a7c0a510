r"""Error of the zeroth-order gradient estimators the seeds use, for a smoothing radius and perturbation count.

The estimator is the one the algorithms train with, :mod:`verify.ops.zo` (its docstring states both with their
references):

* ``"spsa"`` -- MU-SplitFed (arXiv:2510.21155, seed 000, eq. (3)):
  :math:`g = \frac{f(x+\lambda u)-f(x-\lambda u)}{2\lambda}u`, u uniform on the sphere of radius
  :math:`\sqrt{d}`; averaged over P perturbations (App. C.2, "multi-perturbation").
* ``"forward"`` -- HERON-SFL (arXiv:2601.09076, seed 001, eq. (2)): :math:`g = \frac{d}{\mu}[f(x+\mu u)-f(x)]u`,
  u uniform on the unit sphere; averaged over P perturbations.

d is the size of the perturbed part. The estimator is applied to the objective of the data given (all of it,
or ``idx``), so the error measured is that of the perturbations alone; a mini-batch estimator adds the
sampling variance of the batch (``sigma_c2`` with ``batch``).
"""

from __future__ import annotations

import math

import torch

from sfltheory.constants import Estimate
from sfltheory.errors import ParameterError
from verify.ops import zo
from verify.ops.objective import Objective, Params


def zo_error(
    obj: Objective,
    lam: float,
    *,
    part: str | None = None,
    P: int = 1,
    reps: int = 32,
    form: str = "spsa",
    idx: torch.Tensor | None = None,
    params: Params | None = None,
    grad: Params | None = None,
    seed: int = 0,
) -> Estimate:
    r"""Mean squared error :math:`\mathbb E\|g - \nabla_{part} f(x)\|^2` of the estimator over ``reps`` draws,
    with its standard error (the bias from smoothing is included: it is what the theorems' variance bounds
    cover)."""
    if not (lam > 0 and math.isfinite(lam)):
        raise ParameterError("lam", f"the smoothing radius must be positive and finite, got {lam}")
    if P < 1:
        raise ParameterError("P", f"must be at least 1 perturbation, got {P}")
    if reps < 2:
        raise ParameterError("reps", f"needs at least 2 repetitions for an error bar, got {reps}")
    if form not in zo.FORMS:
        raise ParameterError("form", f"must be one of {', '.join(zo.FORMS)}, got '{form}'")
    x = dict(obj.params0 if params is None else params)
    g = obj.grad(x, idx) if grad is None else grad
    names = obj.part_names(part)
    d = obj.size(part)
    true = obj.flat(g, part).double()
    base = obj.flat(x, part)
    f0 = obj.value(x, idx) if form == zo.FORWARD else None
    gen = torch.Generator().manual_seed(seed)

    def f(p: Params) -> torch.Tensor:
        # the objective at the part's flat vector (perturbed in float64, evaluated in the objective's dtype)
        value = obj.value({**x, **obj.unflat(p["x"].to(base.dtype), part)}, idx)
        return torch.tensor(value, dtype=torch.float64, device=base.device)

    def draw(_: int) -> Params:
        return {"x": torch.randn(d, generator=gen, dtype=torch.float64)}

    errs = []
    for _ in range(reps):
        U, scale = zo.directions(zo.gaussian_draws(draw, P), zo.LAW_OF_FORM[form])
        U = {"x": U["x"].to(base.device)}
        # one party evaluates f here, so the P evaluations run one by one (obj.value is not vmappable)
        est = zo.estimate(f, {"x": base}, U, lam, form=form, scale=scale, f0=f0, vec=False)["x"]
        errs.append(float((est.cpu() - true.cpu()).pow(2).sum()))
    t = torch.tensor(errs, dtype=torch.float64)
    what = "SPSA, sqrt(d)-sphere, central" if form == "spsa" else "d/mu forward difference, unit sphere"
    return Estimate(
        float(t.mean()),
        se=float(t.std() / math.sqrt(reps)),
        n=obj.count(idx),
        probes=reps * P,
        method=f"zeroth-order estimator error ({what}), lam={lam:g}, P={P}, {reps} draws",
        note=f"part {part or 'all'} ({len(names)} tensors, d={d})",
    )
