r"""The left-hand side of each lemma, as the algorithm its proof analyses, written once for exact moments
(:class:`~verify.pipeline.lemmas.affine.Draws`) and for a Monte-Carlo replay
(:class:`~verify.pipeline.lemmas.affine.Sampled`).

Every function takes the noise pool and the instance and returns the lemma's left-hand side as one or more
:class:`Expectation` values (a lemma stated "for any k" returns one per k; the check takes the largest). The
algorithms, with their seeds' equations:

* local SGD of client i (every paper): :math:`x^{k+1}=x^k-\eta(\nabla f_i(x^k)+\xi^k)`;
* split learning's relay (``sl_noniid``, Algorithm 1, eqs. (3)-(4)): clients 1..N in turn, each K local steps from
  the previous client's model, then :math:`x^{r+1}=x^r+\eta_g(x_N^{(r,K)}-x^r)`;
* SFL-V1 as Proposition 1's proof analyses it (``cut_layer``, App. B, (8) and B.2): every client K local steps
  from :math:`\theta^t`, then :math:`\theta^{t+1}=\sum_k\alpha_k\theta_k^{t,K}`;
* the server's sequential steps of ``sfl_aux`` ((A38), (b_11)-(b_14)): :math:`x_{S,i+1}=x_{S,i}-\mu\tilde\nabla
  F_i^s(x_{S,i})`, one client after another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .affine import average
from .instance import Instance


@dataclass(frozen=True, kw_only=True, eq=False)
class Expectation:
    """:math:`\\sum_t w_t\\,\\mathbb E[q_t^\\top D_tq_t]+c` (:math:`D_t=I` where ``h`` is None, else
    :math:`\\operatorname{diag}(h)`): a lemma's left-hand side."""

    parts: tuple[tuple[float, Any, np.ndarray | None], ...]
    constant: float = 0.0

    def exact(self) -> float:
        """The exact value (the parts are :class:`~verify.pipeline.lemmas.affine.Affine`)."""
        return self.constant + sum(w * (q.sq_norm() if h is None else q.quad(h)) for w, q, h in self.parts)

    def samples(self) -> np.ndarray:
        """One value per sampled run (the parts are :class:`~verify.pipeline.lemmas.affine.Runs`)."""
        out = sum(w * (q.sq_norm_samples() if h is None else q.quad_samples(h)) for w, q, h in self.parts)
        return np.asarray(out) + self.constant


def local_steps(pool: Any, inst: Instance, i: int, start: Any, K: int, eta: float) -> tuple[list[Any], list[Any]]:
    """Client ``i``'s K SGD steps from ``start``: the iterates :math:`x^0..x^K` and the stochastic gradients
    :math:`g^0..g^{K-1}` it used."""
    xs, gs = [start], []
    for _ in range(K):
        g = (xs[-1] - inst.b[i]).scale(inst.h) + pool.new(inst.noise)
        gs.append(g)
        xs.append(xs[-1] - g.scale(eta))
    return xs, gs


def relay(pool: Any, inst: Instance, K: int, eta_l: float) -> tuple[list[list[Any]], Any]:
    """Split learning's round: every client's iterates, and the last client's final model."""
    cur, runs = pool.const(inst.x0), []
    for i in range(inst.N):
        xs, _ = local_steps(pool, inst, i, cur, K, eta_l)
        runs.append(xs)
        cur = xs[-1]
    return runs, cur


def sl_relay_drift(pool: Any, inst: Instance) -> list[Expectation]:
    """``sl_noniid`` Lemma 4 (16): :math:`\\sum_{i=1}^N\\sum_{k=0}^{K-1}\\mathbb E\\|x_i^{(r,k)}-x^r\\|^2`."""
    K, eta = int(inst.settings["K"]), inst.settings["eta_l"]
    runs, _ = relay(pool, inst, K, eta)
    return [Expectation(parts=tuple((1.0, xs[k] - inst.x0, None) for xs in runs for k in range(K)))]


def one_client_drift(pool: Any, inst: Instance) -> list[Expectation]:
    """``sl_noniid`` (67): :math:`\\sum_{k=0}^{K-1}\\mathbb E\\|x_i^{(r,k)}-x_i^{(r,0)}\\|^2` for client 0."""
    K, eta = int(inst.settings["K"]), inst.settings["eta_l"]
    xs, _ = local_steps(pool, inst, 0, pool.const(inst.x0), K, eta)
    return [Expectation(parts=tuple((1.0, xs[k] - inst.x0, None) for k in range(K)))]


def sl_round_progress(pool: Any, inst: Instance) -> list[Expectation]:
    """``sl_noniid`` (43): :math:`(\\mathbb E f(x^{r+1})-f(x^r))/(NK\\eta_g\\eta_l)` over one relay round."""
    K, eta, eta_g = int(inst.settings["K"]), inst.settings["eta_l"], inst.settings["eta_g"]
    _, last = relay(pool, inst, K, eta)
    nxt = (last - inst.x0).scale(eta_g) + inst.x0
    den = inst.N * K * eta_g * eta
    return [Expectation(parts=((0.5 / den, nxt - inst.bbar, inst.h),), constant=-inst.f_gap(inst.x0) / den)]


def sl_client_progress(pool: Any, inst: Instance) -> list[Expectation]:
    """``sl_noniid`` (69): :math:`(\\mathbb E f(x_{i+1}^{(r,0)})-f(x_i^{(r,0)}))/(K\\eta_l)` for every client i
    starting from the same model (the proof bounds each i; one Expectation per client)."""
    K, eta = int(inst.settings["K"]), inst.settings["eta_l"]
    out = []
    for i in range(inst.N):
        xs, _ = local_steps(pool, inst, i, pool.const(inst.x0), K, eta)
        out.append(Expectation(parts=((0.5 / (K * eta), xs[-1] - inst.bbar, inst.h),),
                               constant=-inst.f_gap(inst.x0) / (K * eta)))  # fmt: skip
    return out


def parallel_drift(pool: Any, inst: Instance) -> list[Expectation]:
    """``cut_layer`` Lemma 1 (7): :math:`\\sum_{i=0}^{\\tau-1}\\mathbb E\\|\\theta_k^{t,i}-\\theta^t\\|^2`, for
    every client k (one Expectation each: the lemma holds for each)."""
    K, eta = int(inst.settings["K"]), inst.settings["eta"]
    out = []
    for i in range(inst.N):
        xs, _ = local_steps(pool, inst, i, pool.const(inst.x0), K, eta)
        out.append(Expectation(parts=tuple((1.0, xs[k] - inst.x0, None) for k in range(K))))
    return out


def gradient_drift(pool: Any, inst: Instance) -> list[Expectation]:
    """``cut_layer`` Lemma 2 (11): :math:`\\sum_{i=0}^{\\tau-1}\\mathbb E\\|g_k^{t,i}-g_k^t\\|^2` for client 0, with
    :math:`g_k^t=g_k^{t,0}` the first stochastic gradient of the round."""
    K, eta = int(inst.settings["K"]), inst.settings["eta"]
    _, gs = local_steps(pool, inst, 0, pool.const(inst.x0), K, eta)
    return [Expectation(parts=tuple((1.0, gs[i] - gs[0], None) for i in range(K)))]


def sfl_v1_progress(pool: Any, inst: Instance) -> list[Expectation]:
    """``cut_layer`` (26): :math:`\\mathbb E f(\\theta^{t+1})-f(\\theta^t)` for SFL-V1 as analysed (every client K
    steps from :math:`\\theta^t`, then the :math:`\\alpha`-weighted average)."""
    K, eta = int(inst.settings["K"]), inst.settings["eta"]
    ends = [local_steps(pool, inst, i, pool.const(inst.x0), K, eta)[0][-1] for i in range(inst.N)]
    nxt = average(ends, inst.weights)
    return [Expectation(parts=((0.5, nxt - inst.bbar, inst.h),), constant=-inst.f_gap(inst.x0))]


def fedavg_drift_per_step(pool: Any, inst: Instance) -> list[Expectation]:
    """``sfl_aux`` (A11): :math:`\\tfrac1m\\sum_i\\mathbb E\\|x_{C,i}^{k}-\\bar x_C\\|^2` after each local step
    :math:`k\\in[K]` (one Expectation per k: the bound is for any k)."""
    K, eta = int(inst.settings["K"]), inst.settings["eta_l"]
    runs = [local_steps(pool, inst, i, pool.const(inst.x0), K, eta)[0] for i in range(inst.N)]
    return [Expectation(parts=tuple((1.0 / inst.N, xs[k] - inst.x0, None) for xs in runs)) for k in range(1, K + 1)]


def server_sequential_drift(pool: Any, inst: Instance) -> list[Expectation]:
    """``sfl_aux`` (A44)/(A57): :math:`\\tfrac1m\\sum_{i=0}^{m-1}\\mathbb E\\|x_{S,i}-x_S\\|^2` over the server's m
    sequential steps, one per client."""
    eta = inst.settings["eta"]
    cur, parts = pool.const(inst.x0), []
    for i in range(inst.N):
        parts.append((1.0 / inst.N, cur - inst.x0, None))
        g = (cur - inst.b[i]).scale(inst.h) + pool.new(inst.noise)
        cur = cur - g.scale(eta)
    return [Expectation(parts=tuple(parts))]


def draws_needed(inst: Instance) -> int:
    """An upper bound on the noise draws any quantity above makes on ``inst`` (the pool's size)."""
    return inst.N * max(int(inst.settings.get("K", 1)), 1) + 1
