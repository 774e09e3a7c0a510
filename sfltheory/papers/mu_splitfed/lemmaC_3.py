r"""Lemma C.3: second moment of the server's zeroth-order estimator (MU-Split, one client).

Statement, eq. (28) (App. C.2):

.. math::

    \mathbb E\|G_s^{t,i}(x_c^t,x_s^{t,i})\|^2\le\frac{4(d_s+P-1)}{P}\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2
    +\frac{4L^2(d_s+P-1)}{P}\mathbb E\|x_s^{t,i}-x_s^t\|^2+\frac{2d_s\sigma_s^2}{P}+\frac{L^2\lambda^2d_s^3}{2}.

The proof, (29)-(30), ends with the statement (no separate edition): :math:`\mathbb E\|G\|^2=\mathbb E\|G-\nabla
f_\lambda\|^2+\mathbb E\|\nabla f_\lambda\|^2`, Lemma C.2 for the first part, and (30),
:math:`\mathbb E\|\nabla_{x_s}f_\lambda^t\|^2\le4\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+4L^2\mathbb E\|x_s^{t,i}-
x_s^t\|^2+\frac{L^2}{2}\lambda^2d_s^3`, for what is left, :math:`(1-1/P)\mathbb E\|\nabla f_\lambda\|^2`; the
coefficients add up exactly to (28).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma C.3 and (28) in App. C.2 (Important Lemmas); proof (29)-(30).
"""

from __future__ import annotations

from dataclasses import replace

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...result import Result, Term
from ._common import (
    D_SHARED_SAMPLE_PERTURBATIONS,
    KEY,
    NOTATION_ROUND,
    L,
    P,
    d_s,
    drift,
    g_s,
    lam,
    provenance,
    sigma_s2,
)

LEMMA_C3 = Result(
    paper=KEY, label="lemmaC.3", kind="lemma", title="Second moment of the server's P-perturbation ZO estimator (MU-Split)",
    provenance=provenance(label="Lemma C.3", equation="(28)", section="App. C.2"),
    lhs="E||G_s^{t,i}(x_c^t, x_s^{t,i})||^2 at server step i of round t",
    terms=(
        Term(name="gradient", expr=4 * (d_s + P - 1) / P * g_s, meaning="(4(d_s + P - 1)/P) E||grad_{x_s} f(x^t)||^2"),
        Term(name="drift", expr=4 * L**2 * (d_s + P - 1) / P * drift, meaning="(4 L^2 (d_s + P - 1)/P) E||x_s^{t,i} - x_s^t||^2"),
        Term(name="variance", expr=2 * d_s * sigma_s2 / P, meaning="2 d_s sigma_s^2/P"),
        Term(name="ZO bias", expr=L**2 * lam**2 * d_s**3 / 2, meaning="L^2 lambda^2 d_s^3/2 (not over P)"),
    ),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    statement=r"\mathbb{E}[\|G_{s}^{t,i}(x_{c}^{t},x_{s}^{t,i})\|^{2}]\leq\frac{4(d_{s}+P-1)}{P}\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]+\frac{4L^{2}(d_{s}+P-1)}{P}\mathbb{E}[\|x_{s}^{t,i}-x_{s}^{t}\|^{2}]+\frac{2d_{s}\sigma_{s}^{2}}{P}+\frac{L^{2}\lambda^{2}d_{s}^{3}}{2}",
    discrepancies=(
        replace(D_SHARED_SAMPLE_PERTURBATIONS, where="Lemma C.3 proof, (29) with (26): Lemma C.2's first equality"),
    ),
    notation=NOTATION_ROUND,
)  # fmt: skip
