r"""Exact moments of iterates that are affine in Gaussian noise, on quadratics with a diagonal Hessian.

On :math:`f_i(x)=\tfrac12(x-b_i)^\top H(x-b_i)` with :math:`H=\operatorname{diag}(h)` and stochastic gradients
:math:`g_i(x)=H(x-b_i)+\xi`, :math:`\xi\sim\mathcal N(0,\operatorname{diag}(s))` drawn afresh at every step, every
iterate of a first-order method (local steps, sequential relays, weighted averages, global steps) is

.. math:: q = m + \sum_l c_l\odot\xi_l,

a deterministic vector plus a coordinate-wise combination of the draws so far. Coordinates never mix (every map
is diagonal), so :math:`\mathbb E\|q\|^2=\|m\|^2+\sum_{j,l}c_{jl}^2 s_{lj}` and
:math:`\mathbb E[q^\top Hq]=\sum_j h_j(m_j^2+\sum_l c_{jl}^2 s_{lj})` hold exactly -- no sampling, only float64
rounding. The lemma checks (:mod:`verify.pipeline.lemmas.quantities`) write each algorithm plainly on these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


class Draws:
    """The pool of independent noise draws of one round: draw ``l`` has coordinate variances ``var[l]``."""

    def __init__(self, d: int, capacity: int) -> None:
        self.d = d
        self.var = np.zeros((capacity, d))
        self.used = 0

    def const(self, x: np.ndarray) -> Affine:
        """A deterministic vector."""
        return Affine.const(x, self)

    def new(self, variances: np.ndarray) -> Affine:
        """A fresh draw :math:`\\xi_l\\sim\\mathcal N(0,\\operatorname{diag}(variances))` as an affine value."""
        if self.used >= len(self.var):
            raise RuntimeError(f"noise pool of {len(self.var)} draws exhausted")  # a sizing bug, not user input
        self.var[self.used] = variances
        coef = np.zeros((self.d, len(self.var)))
        coef[:, self.used] = 1.0
        self.used += 1
        return Affine(mean=np.zeros(self.d), coef=coef, draws=self)


@dataclass(frozen=True, kw_only=True, eq=False)
class Affine:
    """:math:`m + \\sum_l c_l\\odot\\xi_l`: ``mean`` (d,) and ``coef`` (d, draws of the pool)."""

    mean: np.ndarray
    coef: np.ndarray
    draws: Draws

    @classmethod
    def const(cls, x: np.ndarray, draws: Draws) -> Affine:
        """A deterministic vector."""
        return cls(mean=np.asarray(x, dtype=float).copy(), coef=np.zeros((draws.d, len(draws.var))), draws=draws)

    def __add__(self, o: Affine | np.ndarray) -> Affine:
        if isinstance(o, Affine):
            return Affine(mean=self.mean + o.mean, coef=self.coef + o.coef, draws=self.draws)
        return Affine(mean=self.mean + o, coef=self.coef, draws=self.draws)

    def __sub__(self, o: Affine | np.ndarray) -> Affine:
        if isinstance(o, Affine):
            return Affine(mean=self.mean - o.mean, coef=self.coef - o.coef, draws=self.draws)
        return Affine(mean=self.mean - o, coef=self.coef, draws=self.draws)

    def scale(self, a: float | np.ndarray) -> Affine:
        """``a * q`` for a scalar, or coordinate-wise for a vector ``a`` (a diagonal matrix)."""
        a = np.asarray(a, dtype=float)
        return Affine(mean=a * self.mean, coef=(a[:, None] if a.ndim else a) * self.coef, draws=self.draws)

    def sq_norm(self) -> float:
        """:math:`\\mathbb E\\|q\\|^2`, exactly."""
        return float(self.mean @ self.mean + np.einsum("jl,lj->", self.coef**2, self.draws.var))

    def quad(self, h: np.ndarray) -> float:
        """:math:`\\mathbb E[q^\\top\\operatorname{diag}(h)q]`, exactly."""
        second = self.mean**2 + np.einsum("jl,lj->j", self.coef**2, self.draws.var)
        return float(h @ second)


def average(values: list[Any], weights: np.ndarray | None = None) -> Any:
    """The weighted average :math:`\\sum_k\\alpha_k q_k` (uniform weights by default)."""
    w = np.full(len(values), 1.0 / len(values)) if weights is None else np.asarray(weights, dtype=float)
    out = values[0].scale(float(w[0]))
    for a, q in zip(w[1:], values[1:], strict=True):
        out = out + q.scale(float(a))
    return out


class Sampled:
    """The same algorithms sampled instead (a Monte-Carlo replay of the exact values): each value holds ``n``
    independent runs, shape (n, d); :meth:`new` draws real Gaussian noise."""

    def __init__(self, d: int, n: int, seed: int) -> None:
        self.d, self.n = d, n
        self.rng = np.random.default_rng(seed)

    def const(self, x: np.ndarray) -> Runs:
        """A deterministic vector, repeated over the runs."""
        return Runs(np.broadcast_to(np.asarray(x, dtype=float), (self.n, self.d)).copy())

    def new(self, variances: np.ndarray) -> Runs:
        """Fresh noise, one draw per run."""
        return Runs(self.rng.standard_normal((self.n, self.d)) * np.sqrt(variances))


@dataclass(frozen=True, eq=False)
class Runs:
    """``n`` sampled runs of one iterate, shape (n, d); the estimates come with a 95% normal half-width."""

    x: np.ndarray

    def __add__(self, o: Runs | np.ndarray) -> Runs:
        return Runs(self.x + (o.x if isinstance(o, Runs) else o))

    def __sub__(self, o: Runs | np.ndarray) -> Runs:
        return Runs(self.x - (o.x if isinstance(o, Runs) else o))

    def scale(self, a: float | np.ndarray) -> Runs:
        """``a * q`` (coordinate-wise for a vector)."""
        return Runs(np.asarray(a, dtype=float) * self.x)

    def sq_norm_samples(self) -> np.ndarray:
        r""":math:`\|q\|^2` per run."""
        return np.einsum("nj,nj->n", self.x, self.x)

    def quad_samples(self, h: np.ndarray) -> np.ndarray:
        r""":math:`q^\top\operatorname{diag}(h)q` per run."""
        return np.einsum("nj,j,nj->n", self.x, h, self.x)
