r"""Zeroth-order lemmas by Monte Carlo: MU-SplitFed's estimator (3) on quadratics.

On :math:`F(y;\xi)=\tfrac12(y-b)^\top H(y-b)+\xi^\top y` (the trainer's quadratic with its noise in the loss) the
central difference of (3) is exact in :math:`\lambda`: :math:`\frac{F(y+\lambda u;\xi)-F(y-\lambda u;\xi)}{2\lambda}
=(\nabla f(y)+\xi)^\top u`, so the P-perturbation estimator of App. C.2 is
:math:`G(y)=\frac1P\sum_p((\nabla f(y)+\xi_p)^\top u_p)\,u_p` with :math:`u_p` uniform on
:math:`\sqrt d\,\mathbb S^{d-1}`, and the smoothed gradient is the gradient (:math:`f_\lambda=f+` a constant). The
noise is Rademacher, :math:`\|\xi\|^2=\sigma^2` surely (the bounded variance is assumed for every sample); the
perturbations share one mini-batch (:math:`\xi_p=\xi^t`, as :math:`G(x;\xi^t)` and Algorithm 1 write it) or draw one
each (what the proof's first equality in (26) needs: it drops the cross terms between perturbations); the server's
:math:`\tau` steps use the same mini-batch (Algorithm 1, lines 8-11) or a fresh one each (what Lemma C.4's
"martingale difference sequence" (31) needs). These expectations are estimated from ``n`` sampled runs.

Reference: Liang et al., MU-SplitFed (seed ``000_0fb66116fc20c956.txt``): eq. (3); Lemma B.1 (14); Lemma C.2 (25)
and its proof (26)-(27); Lemma C.3 (28); Lemma C.4 (30)-(31); Lemma D.3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .affine import Runs, Sampled
from .algorithms import Expectation
from .instance import Instance


@dataclass(frozen=True, kw_only=True)
class Sharing:
    """How the estimator's samples are shared: across the P perturbations of a step, across the tau steps."""

    perturbations: bool
    steps: bool


def sphere(pool: Sampled, P: int) -> np.ndarray:
    """P directions per run, uniform on the sphere of radius :math:`\\sqrt d`: shape (n, P, d)."""
    u = pool.rng.standard_normal((pool.n, P, pool.d))
    return np.asarray(u * (np.sqrt(pool.d) / np.linalg.norm(u, axis=2, keepdims=True)))


def estimator(pool: Sampled, inst: Instance, y: np.ndarray, b: np.ndarray, P: int, xi: np.ndarray) -> np.ndarray:
    """:math:`G(y)` per run (shape (n, d)) on the objective with minimiser ``b``; ``xi`` the noise, (n, 1, d) shared
    by the perturbations or (n, P, d) one each."""
    a = (inst.h * (y - b))[:, None, :] + xi
    u = sphere(pool, P)
    return np.asarray(np.einsum("np,npd->nd", np.einsum("npd,npd->np", a, u), u) / P)


def noise(pool: Sampled, inst: Instance, P: int, share: Sharing) -> np.ndarray:
    r"""One step's noise: shared by the perturbations or one draw each; Rademacher (``inst.noise_law``) keeps
    :math:`\|\xi\|^2=\sigma^2` surely, as MU-SplitFed's Assumption 4.2 (for every xi) asks."""
    k = 1 if share.perturbations else P
    shape = (pool.n, k, pool.d)
    z = pool.rng.choice([-1.0, 1.0], size=shape) if inst.noise_law == "rademacher" else pool.rng.standard_normal(shape)
    return np.asarray(z * np.sqrt(inst.noise))


def point(inst: Instance) -> np.ndarray:
    """The point the pointwise lemmas evaluate at: :math:`x_s^{t,i}=x_s^t+\\delta` (``inst.y``, else the start)."""
    return inst.x0 if inst.y is None else inst.y


def second_moment(pool: Sampled, inst: Instance) -> list[Expectation]:
    """Lemma B.1 (14): :math:`\\mathbb E_u\\|g_\\lambda(x)\\|^2` at ``x0``, one perturbation, no sample noise."""
    g = estimator(pool, inst, np.broadcast_to(inst.x0, (pool.n, pool.d)), inst.bbar, 1, np.zeros((pool.n, 1, pool.d)))
    return [Expectation(parts=((1.0, Runs(g), None),))]


def variance(pool: Sampled, inst: Instance, share: Sharing) -> list[Expectation]:
    """Lemma C.2 (25): :math:`\\mathbb E\\|G(y)-\\nabla f_\\lambda(y)\\|^2` at :func:`point`."""
    P, y = int(inst.settings["P"]), np.broadcast_to(point(inst), (pool.n, pool.d))
    g = estimator(pool, inst, y, inst.bbar, P, noise(pool, inst, P, share))
    return [Expectation(parts=((1.0, Runs(g - inst.h * (point(inst) - inst.bbar)), None),))]


def second(pool: Sampled, inst: Instance, share: Sharing) -> list[Expectation]:
    """Lemma C.3 (28): :math:`\\mathbb E\\|G(y)\\|^2` at :func:`point`."""
    P, y = int(inst.settings["P"]), np.broadcast_to(point(inst), (pool.n, pool.d))
    return [
        Expectation(parts=((1.0, Runs(estimator(pool, inst, y, inst.bbar, P, noise(pool, inst, P, share))), None),))
    ]


def server_drift(pool: Sampled, inst: Instance, share: Sharing, client: int | None = None) -> list[Expectation]:
    """Lemma C.4 (30) (``client`` None: the global objective) or D.3 (client ``client``'s objective):
    :math:`\\sum_{i=0}^{\\tau-1}\\mathbb E\\|x_s^{t,i}-x_s^t\\|^2` over the server's tau ZO steps."""
    P, tau, eta = int(inst.settings["P"]), int(inst.settings["tau"]), inst.settings["eta_s"]
    b = inst.bbar if client is None else inst.b[client]
    y = np.broadcast_to(inst.x0, (pool.n, pool.d)).copy()
    xi = noise(pool, inst, P, share)
    parts = []
    for i in range(tau):
        parts.append((1.0, Runs(y - inst.x0), None))
        if i and not share.steps:
            xi = noise(pool, inst, P, share)
        y = y - eta * estimator(pool, inst, y, b, P, xi)
    return [Expectation(parts=tuple(parts))]
