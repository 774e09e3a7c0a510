r"""Lemma C.2: variance of the server's zeroth-order estimator (MU-Split, one client).

Statement, eq. (25) (App. C.2): under the same condition as Lemma B.1, for the stochastic estimator
:math:`G_s^{t,i}=\frac1P\sum_{p=1}^Pg_{s,p}^{t,i}` at server step :math:`i` of round :math:`t`,

.. math::

    \mathbb E\|G_s^{t,i}(x_c^t,x_s^{t,i};\xi^t)-\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2
    \le\frac{4d_s}{P}\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+\frac{4L^2d_s}{P}\mathbb E\|x_s^{t,i}-x_s^t\|^2
    +\frac{2d_s\sigma_s^2}{P}+\frac{L^2\lambda^2d_s^3}{2P}-\frac1P\mathbb E\|\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2.

The proof, (26)-(27), ends with the statement (no separate edition): (14) for each perturbation, Assumption 4.2 for
the sample, and :math:`\|\nabla_{x_s}f(x_c^t,x_s^{t,i})\|^2\le2L^2\|x_s^{t,i}-x_s^t\|^2+2\|\nabla_{x_s}f(\mathbf x^t)\|^2`.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma C.2 and (25) in App. C.2 (Important Lemmas); proof (26)-(27).
"""

from __future__ import annotations

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...result import Result
from ._common import D_SHARED_SAMPLE_PERTURBATIONS, KEY, NOTATION_ROUND, SUBTRACTED_DROPPED, provenance, variance_terms

LEMMA_C2 = Result(
    paper=KEY, label="lemmaC.2", kind="lemma", title="Variance of the server's P-perturbation ZO estimator (MU-Split)",
    provenance=provenance(label="Lemma C.2", equation="(25)", section="App. C.2"), terms=variance_terms(4),
    lhs="E||G_s^{t,i} - grad_{x_s} f_lambda^t(x_c^t, x_s^{t,i})||^2 at server step i of round t",
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS), defaults=(SUBTRACTED_DROPPED,), notation=NOTATION_ROUND,
    statement=r"\mathbb{E}[\|G_{s}^{t,i}(x_{c}^{t},x_{s}^{t,i};\xi^{t})-\nabla_{x_{s}}f_{\lambda}^{t}(x_{c}^{t},x_{s}^{t,i})\|^{2}]\leq\frac{4d_{s}}{P}\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]+\frac{4L^{2}d_{s}}{P}\mathbb{E}[\|x_{s}^{t,i}-x_{s}^{t}\|^{2}]+\frac{2d_{s}\sigma_{s}^{2}}{P}+\frac{L^{2}\lambda^{2}d_{s}^{3}}{2P}-\frac{1}{P}\mathbb{E}[\|\nabla_{x_{s}}f_{\lambda}^{t}(x_{c}^{t},x_{s}^{t,i})\|^{2}]",
    discrepancies=(
        D_SHARED_SAMPLE_PERTURBATIONS,
    ),
    notes=("The proof of Theorem 4.1 substitutes (30) into the subtracted term, which it cannot (see mu_splitfed/eq24).",),
)  # fmt: skip
