r"""Lemma 1: local model drift over :math:`\tau` local iterations, for any cut layer.

Statement, eq. (7) (App. B.1): under Assumptions 2-4, if :math:`\eta^t\le\frac{1}{\sqrt8S\tau}` and client
:math:`k` runs its local model for :math:`\tau` iterations in round :math:`t`, then for any cut layer
:math:`L_c\in\{1,\dots,L-1\}`

.. math::

    \sum_{i=0}^{\tau-1}\mathbb E\left[\|\theta_k^{t,i}-\theta^t\|^2\right]
    \le2\tau^2\left(8\tau(\eta^t)^2\sigma_k^2+8\tau(\eta^t)^2\epsilon^2+8\tau(\eta^t)^2\|\nabla_\theta f(\theta^t)\|^2\right).

The proof, (8)-(10), unrolls :math:`A_{t,i}\le CA_{t,i-1}+B` with :math:`C=1+2/\tau`; its last display is the
statement, so there is no separate edition.

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024). Seed ``003_60e24e21677c19f3.txt``: Lemma 1 in App. B.1, eq. (7); proof
(8)-(10).
"""

from __future__ import annotations

import sympy as sp

from ...assumptions import BOUNDED_HETEROGENEITY
from ...result import Discrepancy, Result, Term, step_branch
from ._common import (
    BOUNDED_VARIANCE_PER_CLIENT,
    D_SMOOTHNESS,
    KEY,
    NOTATION,
    ONE,
    SMOOTHNESS_UPPER_QUADRATIC,
    TAU_FROM_EPOCHS,
    K,
    L,
    eps2,
    eta,
    g_f,
    provenance,
    sigma2,
)

DRIFT = 2 * K**2 * 8 * K * eta**2  # 2 tau^2 * 8 tau (eta^t)^2, the factor of every term of (7)

LEM1 = Result(
    paper=KEY, label="lem1", kind="lemma", title="Local model drift over tau local iterations (any cut layer)",
    provenance=provenance(label="Lemma 1", equation="(7)", section="App. B.1; proof ends at (10)"),
    lhs="sum_{i=0}^{tau-1} E||theta_k^{t,i} - theta^t||^2 for one client k in round t",
    terms=(
        Term(name="variance", expr=DRIFT * sigma2, meaning="2 tau^2 * 8 tau (eta^t)^2 sigma_k^2"),
        Term(name="heterogeneity", expr=DRIFT * eps2, meaning="2 tau^2 * 8 tau (eta^t)^2 eps^2"),
        Term(name="gradient", expr=DRIFT * g_f, meaning="2 tau^2 * 8 tau (eta^t)^2 ||grad f(theta^t)||^2"),
    ),
    hypotheses=(
        step_branch(
            "eta<=1/(sqrt(8) S tau)", eta, ONE / (sp.sqrt(8) * L * K), r"\eta^t\le\frac{1}{\sqrt8S\tau}",
            where="Lemma 1; used in (8) to bound 1 + 1/tau + 8 tau (eta^t)^2 S^2 by 1 + 2/tau", group="lemma 1",
        ),
    ),
    assumptions=(SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, BOUNDED_HETEROGENEITY),
    step="eta", defaults=(TAU_FROM_EPOCHS,), notation=NOTATION,
    statement=r"\sum_{i=0}^{\tau-1}\mathbb E\left[\|\theta_k^{t,i}-\theta^t\|^2\right]\le2\tau^2\left(8\tau(\eta^t)^2\sigma_k^2+8\tau(\eta^t)^2\epsilon^2+8\tau(\eta^t)^2\|\nabla_\theta f(\theta^t)\|^2\right)",
    discrepancies=(
        Discrepancy(where="Lemma 1 proof, (10), first relation",
            printed=r"\sum_{i=0}^{\tau-1}\mathbb E\|\theta_k^{t,i}-\theta^t\|^2=\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            expected=r"\le\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            note="(9) is an inequality, so its unrolled sum is too. The next step, sum_i sum_{j<i} C^j <= 2 tau^2, holds: "
            "it equals tau^2 (C^tau - 3)/4 <= tau^2 (e^2 - 3)/4 < 1.1 tau^2."),
        D_SMOOTHNESS,
    ),
    notes=(
        "sigma2 is client k's sigma_k^2; gradnorm2_f is ||grad f(theta^t)||^2 at the start of round t.",
        "Used by the proof of Proposition 1 block by block (App. B.2, (19); App. B.3), see the block-wise discrepancy there.",
    ),
)  # fmt: skip
