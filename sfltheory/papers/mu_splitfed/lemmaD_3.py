r"""Lemma D.3: client :math:`m`'s server-side drift over the :math:`\tau` steps of one round (MU-SplitFed).

Statement (App. D.2): if :math:`\eta_s^t\le\frac{\sqrt P}{\tau L\sqrt{24(P+d_s/\tau)}}`,

.. math::

    \sum_{i=0}^{\tau-1}\mathbb E\|x_{s,m}^{t,i}-x_{s,m}^t\|^2\le24(\eta_s^t)^2(\tau^3+\tau^2d_s/P)
    \mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+24(\eta_s^t)^2(\tau^3+\tau^2d_s/P)\epsilon^2
    +\frac{8(\eta_s^t)^2\tau^2d_s\sigma_s^2}{P}+2(\eta_s^t)^2\tau^3L^2\lambda^2d_s^3.

The proof, (37)-(40), is Lemma C.4's with Lemma D.2 for (25) and (40) for (30); it moves the drift to the left
(coefficient :math:`1-12(\eta_s^t)^2\tau^2L^2(P+d_s/\tau)/P`) and, under the statement's condition, doubles the last
display: the statement, so there is no separate edition (two slips on the way are recorded).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma D.3 in App. D.2 (Important Lemmas); proof (37)-(40) and after. Used for
:math:`\mathcal A_1` in App. D.1.1.
"""

from __future__ import annotations

from dataclasses import replace

from ...assumptions import BOUNDED_HETEROGENEITY, BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS_PER_CLIENT
from ...result import Discrepancy, Result, Term
from ._common import (
    D_ASSUMPTION_B2,
    D_SHARED_SAMPLE_STEPS,
    KEY,
    NOTATION_ROUND,
    L,
    P,
    d_s,
    eps2,
    eta_s,
    g_s,
    lam,
    lemma_d3_branch,
    provenance,
    sigma_s2,
    tau,
)

DRIFT = 24 * eta_s**2 * (tau**3 + tau**2 * d_s / P)  # 24 (eta_s^t)^2 (tau^3 + tau^2 d_s/P), on both first terms

LEMMA_D3 = Result(
    paper=KEY, label="lemmaD.3", kind="lemma", title="Client m's server-side drift over the tau ZO steps of one round (MU-SplitFed)",
    provenance=provenance(label="Lemma D.3", section="App. D.2"),
    lhs="sum_{i=0}^{tau-1} E||x_{s,m}^{t,i} - x_{s,m}^t||^2, client m's server-side drift of round t",
    terms=(
        Term(name="gradient", expr=DRIFT * g_s, meaning="24 eta_s^2 (tau^3 + tau^2 d_s/P) E||grad_{x_s} f(x^t)||^2"),
        Term(name="heterogeneity", expr=DRIFT * eps2, meaning="24 eta_s^2 (tau^3 + tau^2 d_s/P) eps^2"),
        Term(name="variance", expr=8 * eta_s**2 * tau**2 * d_s * sigma_s2 / P, meaning="8 eta_s^2 tau^2 d_s sigma_s^2/P"),
        Term(name="ZO bias", expr=2 * eta_s**2 * tau**3 * L**2 * lam**2 * d_s**3, meaning="2 eta_s^2 tau^3 L^2 lambda^2 d_s^3"),
    ),
    hypotheses=(lemma_d3_branch(source="statement", where="Lemma D.3; the last line of its proof"),),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    statement=r"\sum_{i=0}^{\tau-1}\mathbb{E}[\|x_{s,m}^{t,i}-x_{s,m}^{t}\|^{2}]\leq 24(\eta_{s}^{t})^{2}(\tau^{3}+\tau^{2}d_{s}/P)\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]+24(\eta_{s}^{t})^{2}(\tau^{3}+\tau^{2}d_{s}/P)\epsilon^{2}+\frac{8(\eta_{s}^{t})^{2}\tau^{2}d_{s}\sigma_{s}^{2}}{P}+2(\eta_{s}^{t})^{2}\tau^{3}L^{2}\lambda^{2}d_{s}^{3}",
    step="eta_s",
    discrepancies=(
        replace(D_SHARED_SAMPLE_STEPS, where="Lemma D.3 proof, as (31): 'by the property of martingale difference sequence'"),
        Discrepancy(
            where="Lemma D.3 proof, (38)",
            printed=r"+(\eta_s^t)^2\tau\sum_{i=0}^{\tau-1}\mathbb E\|G_{s,m}^{t,i}-\nabla_{x_s}f_{m,\lambda}^{t,i}\|^2",
            expected=r"+2(\eta_s^t)^2\tau\sum_{i=0}^{\tau-1}\mathbb E\|G_{s,m}^{t,i}-\nabla_{x_s}f_{m,\lambda}^{t,i}\|^2",
            note="(37) has the factor 2 and (39) restores it (2(eta_s^t)^2 tau), so the statement is unaffected.",
        ),
        Discrepancy(
            where="Lemma D.3 proof, the display after 'Rearranging the terms'",
            printed=r"12(\eta_s^t)^2L^2(\tau^3+\tau^2d_s/P)\epsilon^2",
            expected=r"12(\eta_s^t)^2(\tau^3+\tau^2d_s/P)\epsilon^2",
            note="the line before has 12 (eta_s^t)^2 tau^3 (P + d_s/tau) eps^2/P, without L^2, and so does the "
            "statement (24 (eta_s^t)^2 (tau^3 + tau^2 d_s/P) eps^2 after doubling): a typo in one display.",
        ),
        D_ASSUMPTION_B2,
    ),
    notes=("drift over client m's copy x_{s,m} of the server model; eta_s^t is the (constant) server step eta_s.",),
    notation=NOTATION_ROUND,
)  # fmt: skip
