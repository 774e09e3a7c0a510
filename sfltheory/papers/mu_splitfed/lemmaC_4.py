r"""Lemma C.4: the server's drift over the :math:`\tau` zeroth-order steps of one round (MU-Split, one client).

Statement (App. C.2): if :math:`\eta_s\le\frac{\sqrt P}{4\tau L\sqrt{P+d_s/\tau}}`,

.. math::

    \sum_{i=0}^{\tau-1}\mathbb E\|x_s^{t,i}-x_s^t\|^2\le\frac{16\eta_s^2\tau^3(P+d_s/\tau)}{P}
    \mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+\frac{8\eta_s^2\tau^2\sigma_L^2d_s}{P}+2\eta_s^2\tau^3L^2\lambda^2d_s^3.

The proof, (31) and the displays after it, substitutes (25) and (30), moves the drift to the left (coefficient
:math:`1-8\eta_s^2\tau^2L^2(P+d_s/\tau)/P`) and ends: "Let :math:`\eta_s\le\frac{1}{4L\sqrt{\tau^2+\tau d_s/P}}`"
-- the statement's condition in another form -- "the coefficient on the L.H.S [is] larger than 1/2". Doubling the
last display gives the statement, so there is no separate edition. Its :math:`\sigma_L^2` is a symbol the paper
never defines; (25), which the proof substitutes, has :math:`\sigma_s^2` there (encoded so, and recorded).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma C.4 in App. C.2 (Important Lemmas); proof (31) and after. Used for
:math:`\mathcal A_1` in (19).
"""

from __future__ import annotations

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...result import Discrepancy, Result, Term
from ._common import (
    D_SHARED_SAMPLE_STEPS,
    KEY,
    NOTATION_ROUND,
    L,
    P,
    d_s,
    eta_s,
    g_s,
    lam,
    lemma_c4_branch,
    provenance,
    sigma_s2,
    tau,
)

LEMMA_C4 = Result(
    paper=KEY, label="lemmaC.4", kind="lemma", title="Server drift over the tau ZO steps of one round (MU-Split)",
    provenance=provenance(label="Lemma C.4", section="App. C.2"),
    lhs="sum_{i=0}^{tau-1} E||x_s^{t,i} - x_s^t||^2, the server-side drift of round t",
    terms=(
        Term(name="gradient", expr=16 * eta_s**2 * tau**3 * (P + d_s / tau) / P * g_s,
             meaning="(16 eta_s^2 tau^3 (P + d_s/tau)/P) E||grad_{x_s} f(x^t)||^2"),
        Term(name="variance", expr=8 * eta_s**2 * tau**2 * sigma_s2 * d_s / P,
             meaning="8 eta_s^2 tau^2 sigma_s^2 d_s/P (printed sigma_L^2)"),
        Term(name="ZO bias", expr=2 * eta_s**2 * tau**3 * L**2 * lam**2 * d_s**3, meaning="2 eta_s^2 tau^3 L^2 lambda^2 d_s^3"),
    ),
    hypotheses=(lemma_c4_branch(source="statement", where="Lemma C.4; the last line of its proof in an equal form"),),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    statement=r"\sum_{i=0}^{\tau-1}\mathbb{E}[\|x_{s}^{t,i}-x_{s}^{t}\|^{2}]\leq\frac{16\eta_{s}^{2}\tau^{3}(P+d_{s}/\tau)}{P}\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]+\frac{8\eta_{s}^{2}\tau^{2}\sigma_{L}^{2}d_{s}}{P}+2\eta_{s}^{2}\tau^{3}L^{2}\lambda^{2}d_{s}^{3}",
    step="eta_s",
    discrepancies=(
        D_SHARED_SAMPLE_STEPS,
        Discrepancy(
            where="Lemma C.4, statement and proof: the variance",
            printed=r"\frac{8\eta_s^2\tau^2\sigma_L^2d_s}{P}",
            expected=r"\frac{8\eta_s^2\tau^2\sigma_s^2d_s}{P}",
            note="sigma_L^2 is defined nowhere in the paper; the proof substitutes (25), whose variance is sigma_s^2 "
            "(2 d_s sigma_s^2/P), so the term is read with sigma_s^2.",
        ),
    ),
    notation=NOTATION_ROUND,
)  # fmt: skip
