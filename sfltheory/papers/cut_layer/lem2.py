r"""Lemma 2: drift of the stochastic gradients over :math:`\tau` local iterations, for any cut layer.

Statement, eq. (11) (App. B.1): under Assumptions 2-4, if :math:`\eta^t\le\frac{1}{2S\tau}` and client
:math:`k` runs its local model for :math:`\tau` iterations in round :math:`t`, then for any cut layer
:math:`L_c\in\{1,\dots,L-1\}`

.. math::

    \sum_{i=0}^{\tau-1}\mathbb E\left[\|g_k^{t,i}-g_k^t\|^2\right]
    \le8\tau^3(\eta^t)^2S^2\left(\|\nabla_\theta F_k(\theta^t)\|^2+\sigma_k^2\right).

The proof, (12)-(17), unrolls :math:`A_{t,i}\le CA_{t,i-1}+B` with :math:`C=1+2/\tau` (15); its last display is
the statement, so there is no separate edition.

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024).

Seed ``003_60e24e21677c19f3.txt``: Lemma 2 is printed in App. B.1 as eq. (11); its proof is (12)-(17), where the
third inequality of (12) needs S-Lipschitz stochastic gradients (an implicit assumption, recorded).
"""

from __future__ import annotations

import sympy as sp

from ...result import Discrepancy, Result, Term, step_branch
from ._common import (
    BOUNDED_VARIANCE_PER_CLIENT,
    D_SMOOTHNESS,
    KEY,
    LIPSCHITZ_STOCHASTIC_GRADIENTS,
    NOTATION,
    ONE,
    SMOOTHNESS_UPPER_QUADRATIC,
    TAU_FROM_EPOCHS,
    K,
    L,
    eta,
    g_k,
    provenance,
    sigma2,
)

GRAD_DRIFT = 8 * K**3 * eta**2 * L**2  # 8 tau^3 (eta^t)^2 S^2, the factor of both terms of (11)

LEM2 = Result(
    paper=KEY, label="lem2", kind="lemma", step="eta", defaults=(TAU_FROM_EPOCHS,),
    title="Drift of the stochastic gradients over tau local iterations (any cut layer)",
    provenance=provenance(label="Lemma 2", equation="(11)", section="App. B.1; proof ends at (17)"),
    lhs="sum_{i=0}^{tau-1} E||g_k^{t,i} - g_k^t||^2 for one client k in round t",
    terms=(
        Term(name="gradient", expr=GRAD_DRIFT * g_k, meaning="8 tau^3 (eta^t)^2 S^2 ||grad F_k(theta^t)||^2"),
        Term(name="variance", expr=GRAD_DRIFT * sigma2, meaning="8 tau^3 (eta^t)^2 S^2 sigma_k^2"),
    ),
    hypotheses=(
        step_branch("eta<=1/(2 S tau)", eta, ONE / (2 * L * K), r"\eta^t\le\frac{1}{2S\tau}", where="Lemma 2", group="lemma 2"),
        step_branch(
            "(12): 2(1+tau)(eta S)^2 <= 1/tau", eta, ONE / (L * sp.sqrt(2 * K * (1 + K))),
            r"2(1+\tau)(\eta^t)^2S^2\le\frac1\tau", source="implicit",
            where="App. B.1, (12), last '<=': (1 + 1/tau) + 2(1+tau)(eta^t)^2 S^2 <= 1 + 2/tau",
            note="what the step needs; implied by eta <= 1/(2 S tau) for every tau >= 1",
        ),
    ),
    statement=r"\sum_{i=0}^{\tau-1}\mathbb E\left[\|g_k^{t,i}-g_k^t\|^2\right]\le8\tau^3(\eta^t)^2S^2\left(\|\nabla_\theta F_k(\theta^t)\|^2+\sigma_k^2\right)",
    assumptions=(SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, LIPSCHITZ_STOCHASTIC_GRADIENTS),
    discrepancies=(
        Discrepancy(
            where="Lemma 2 proof, (12), third inequality",
            printed=r"\mathbb E\|g_k^{t,i}-g_k^{t,i-1}\|^2\le S^2\mathbb E\|\theta_k^{t,i}-\theta_k^{t,i-1}\|^2",
            expected=r"\le3S^2\mathbb E\|\theta_k^{t,i}-\theta_k^{t,i-1}\|^2+6\sigma_k^2\ \text{(from Assumptions 2-3)}",
            note="g^{t,i} and g^{t,i-1} are stochastic gradients on different mini-batches; Assumptions 2-3 bound only the "
            "expected gradient's change, so the noise of both does not cancel. The step needs S-Lipschitz stochastic "
            "gradients (recorded as the implicit assumption 'lipschitz_stochastic_gradients_implicit').",
        ),
        Discrepancy(where="Lemma 2 proof, unrolled sum after (16)",
            printed=r"\sum_{i=0}^{\tau-1}\mathbb E\|g_k^{t,i}-g_k^t\|^2=\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            expected=r"\le\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            note="(16) is an inequality; the step 4 tau^2 (1+tau) <= 8 tau^3 holds for tau >= 1."),
        Discrepancy(where="Lemma 2 statement", printed=r"\text{Under Assumption 2-4}", expected=r"\text{Assumptions 2-3}",
                    note="Assumption 4 (heterogeneity) is not used: the bound has no eps^2. Harmless."),
        D_SMOOTHNESS,
    ),
    notes=("sigma2 is client k's sigma_k^2; gradnorm2_Fk is ||grad F_k(theta^t)||^2 at the start of round t.",),
    notation=NOTATION,
)  # fmt: skip
