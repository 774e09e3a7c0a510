r"""Corollary 1: the split-learning rate in the total number of iterations T = NKR.

Statement, eq. (6) (Sec. 4.2): choose :math:`\eta_g\eta_l=\frac{1}{L\sqrt T}` and apply Theorem 1. For
sufficiently large T (:math:`T\ge4N^2K^2\max\left\{\frac{2B^2+1}{\eta_q^2},1\right\}`, :math:`\eta_q` sic),

.. math::

    \mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}\right)
    +\mathcal O\left(\frac{N^2K^2G^2+N^2K\sigma^2}{\eta_g^2T}\right)+\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right),

where T is the total number of iterations (NKR in SL). No proof is printed.

Editions:

* ``cor1`` -- the O-form (6), not evaluable;
* ``cor1@explicit`` -- eq. (5) at the corollary's choice (the substitution is ours).

The two rates of "Effect of :math:`\eta_g`" (Sec. 4.2) read off (6) at :math:`\eta_g=1` and :math:`\eta_g=N` are
``sl_noniid/sec4.2.eta_g1`` and ``sl_noniid/sec4.2.eta_gN``.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Corollary 1, eq. (6),
Sec. 4.2.
"""

from __future__ import annotations

from functools import partial

from ...result import Discrepancy, Result
from . import _common as c

RATE = r"\mathcal O\left(\frac{L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}\right)+\mathcal O\left(\frac{N^2K^2G^2+N^2K\sigma^2}{\eta_g^2T}\right)+\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right)"
ETA_Q = Discrepancy(where="Corollary 1 condition", printed=r"\max\left\{\frac{2B^2+1}{\eta_q^2},1\right\}",
    expected=r"\max\left\{\frac{2B^2+1}{\eta_g^2},1\right\}", note="typo: eta_q for eta_g (the condition is exactly Theorem 1's branches at the corollary's step).")  # fmt: skip
# what both editions share
edition = partial(
    Result, paper=c.KEY, label="cor1", kind="corollary", lhs=c.LHS_AVG_MODEL, assumptions=c.T1_ASSUMPTIONS, step="eta_l",
    defaults=(c.VANILLA_SL, c.COR1_ETA_L), discrepancies=(c.COR1_T3_DISC, ETA_Q, c.XBAR_DISC),
)  # fmt: skip

COR1 = edition(
    title="Split learning rate at eta_g eta_l = 1/(L sqrt T), T = NKR iterations",
    provenance=c.provenance(label="Corollary 1", equation="(6)", section="Sec. 4.2 (no proof printed)"),
    terms=(), hypotheses=c.cor1_hypotheses(), statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le" + RATE, rate=RATE,
    explicit=False, see="sl_noniid/cor1@explicit",
    notes=(
        "T in (6) is the total number of iterations N K R (canonical M*K*T).",
        "Sec. 4.2 ('Effect of eta_g') reads off O((LF+sigma^2)/sqrt(T) + (N^2K^2G^2+N^2K sigma^2)/T) at eta_g = 1 and "
        "O((LF+sigma^2)/sqrt(T) + (K^2G^2+K sigma^2)/T) at eta_g = N: sl_noniid/sec4.2.eta_g1 and sl_noniid/sec4.2.eta_gN.",
    ),
)  # fmt: skip

COR1_EXPLICIT = edition(
    title="Corollary 1 before the O-step: eq. (5) at eta_g eta_l = 1/(L sqrt T)", edition="explicit",
    provenance=c.provenance(label="Corollary 1 (Theorem 1 at the corollary's choice)", equation="(5) with eta_g eta_l = 1/(L sqrt(NKR))", section="Sec. 4.2; the substitution is ours, no proof is printed"),
    terms=c.cor1_terms(), hypotheses=(*c.cor1_hypotheses(), *c.thm1_steps("Theorem 1, applied by Corollary 1")),
    statement=r"\frac{4L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}+\frac{12N^2K^2G^2+6N^2K\sigma^2}{\eta_g^2T}+\frac{4N\sigma^2}{\sqrt T},\quad T=NKR",
    notes=("eta_l defaults to the corollary's 1/(eta_g L sqrt(NKR)); the value then equals Theorem 1's bound at that eta_l.",),
)  # fmt: skip
