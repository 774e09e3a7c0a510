r"""Lemma D.2: variance of client :math:`m`'s server-side zeroth-order estimator (MU-SplitFed, :math:`M` clients).

Statement, eq. (34) (App. D.2): under the same condition as Lemma B.1,

.. math::

    \mathbb E\|G_s^{t,i}(\mathbf x_m^{t,i};\xi_m^t)-\nabla_{x_s}f_\lambda^t(\mathbf x_m^{t,i})\|^2
    \le\frac{6d_s}{P}\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+\frac{6L^2d_s}{P}\mathbb E\|x_{s,m}^{t,i}-x_{s,m}^t\|^2
    +\frac{6d_s\epsilon^2}{P}+\frac{2d_s\sigma_s^2}{P}+\frac{L^2\lambda^2d_s^3}{2P}
    -\frac1P\mathbb E\|\nabla_{x_s}f_\lambda^t(\mathbf x_m^{t,i})\|^2.

The proof, (35)-(36), ends with the statement (no separate edition): as Lemma C.2, with the heterogeneity of
Assumption B.3 in :math:`\|\nabla_{x_s}f_m^{t,i}\|^2\le3L^2\|x_{s,m}^{t,i}-x_{s,m}^t\|^2+3\|\nabla_{x_s}f(\mathbf x^t)\|^2
+3\epsilon^2`.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma D.2 and (34) in App. D.2 (Important Lemmas); proof (35)-(36).
"""

from __future__ import annotations

from ...assumptions import BOUNDED_HETEROGENEITY, BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS_PER_CLIENT
from ...result import Discrepancy, Result
from ._common import D_ASSUMPTION_B2, KEY, NOTATION_ROUND, SUBTRACTED_DROPPED, provenance, variance_terms

D_MEAN = Discrepancy(
    where="Lemma D.2, (34)-(35): the subtracted term",
    printed=r"-\frac1P\mathbb E\|\nabla_{x_s}f_\lambda^t(\mathbf x_m^{t,i})\|^2",
    expected=r"-\frac1P\mathbb E\|\nabla_{x_s}f_{m,\lambda}^{t,i}\|^2",
    note="client m's estimator has mean grad_{x_s} f_{m,lambda} (its own smoothed loss, as (37)-(40) write it); "
    "the identity E||g - mean||^2 = E||g||^2 - ||mean||^2 behind (35) needs that mean, not the global f_lambda's.",
)

LEMMA_D2 = Result(
    paper=KEY, label="lemmaD.2", kind="lemma",
    title="Variance of client m's server-side P-perturbation ZO estimator (MU-SplitFed)",
    provenance=provenance(label="Lemma D.2", equation="(34)", section="App. D.2"),
    lhs="E||G_s^{t,i}(x_m^{t,i}; xi_m^t) - grad_{x_s} f_lambda^t(x_m^{t,i})||^2 at server step i of round t, client m",
    terms=variance_terms(6, heterogeneity=True),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    statement=r"\mathbb{E}[\|G_{s}^{t,i}(\mathbf{x}_{m}^{t,i};\xi^{t}_{m})-\nabla_{x_{s}}f_{\lambda}^{t}(\mathbf{x}^{t,i}_{m})\|^{2}]\leq\frac{6d_{s}}{P}\mathbb{E}[\|\nabla_{x_{s}}f(\mathbf{x}^{t})\|^{2}]+\frac{6L^{2}d_{s}}{P}\mathbb{E}[\|x_{s,m}^{t,i}-x_{s,m}^{t}\|^{2}]+\frac{6d_{s}\epsilon^{2}}{P}+\frac{2d_{s}\sigma_{s}^{2}}{P}+\frac{L^{2}\lambda^{2}d_{s}^{3}}{2P}-\frac{1}{P}\mathbb{E}[\|\nabla_{x_{s}}f_{\lambda}^{t}(\mathbf{x}_{m}^{t,i})\|^{2}]",
    defaults=(SUBTRACTED_DROPPED,), discrepancies=(D_MEAN, D_ASSUMPTION_B2), notation=NOTATION_ROUND,
    notes=("drift_xs is client m's E||x_{s,m}^{t,i} - x_{s,m}^t||^2; gradnorm2_lam_xs its smoothed-gradient term.",),
)  # fmt: skip
