"""Measure the constants the theorems assume (L, sigma^2, eps^2, B^2/G^2, G^2, kappa, F) on a model and data.

``measure(model, loss, data, split="conv2", clients=4)`` returns a :class:`~sfltheory.constants.Constants`
whose fields use the canonical names (see :mod:`verify.constants.measure` for every name and variant);
``track(...)`` does it along an SGD run. The pieces -- :class:`Objective` (mean loss, gradient, Hessian-vector
products in chunks), per-sample gradient norms, Lanczos/Hutch++ curvature, the zeroth-order error -- are
usable on their own.
"""

from __future__ import annotations

from sfltheory.constants import Constants, Estimate
from verify.ops.objective import Objective
from verify.split import Split

from .measure import DEFAULT_WHAT, GROUPS, measure
from .track import Trajectory, summarise, track

__all__ = [
    "DEFAULT_WHAT",
    "GROUPS",
    "Constants",
    "Estimate",
    "Objective",
    "Split",
    "Trajectory",
    "measure",
    "summarise",
    "track",
]
