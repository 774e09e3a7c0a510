r"""The server-side contribution to the one-round descent, eq. (45), in the proof of Theorem 1.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: App. A-B2,
eq. (45) and the line under it.

As printed (App. A-B2), "following the same steps as in [38]" with Assumption 4:

.. math::

    \mathbb E_t[\mathcal S]\le\eta_sG_s^2\sum_{i=1}^Nd_{c,i}^t-\frac{\eta_s(2N-1)}{4}\|\nabla f_s(\theta_s^t)\|^2
    +\frac L2N^2\eta_s^2G_s^2,\qquad\text{step (a) holding iff }\eta_s\le\frac{1}{NL},

with :math:`\mathcal S=\nabla f(\theta_s^t)^T(\theta_s^{t+1}-\theta_s^t)+\frac L2\|\theta_s^{t+1}-\theta_s^t\|^2`.
(46)-(48) use it with the drift divided by 2N (see the discrepancy).
"""

from __future__ import annotations

from ...assumptions import BOUNDED_GRADIENTS_PER_PART, SMOOTHNESS_PER_CLIENT
from ...result import Result, Term, step_branch
from . import _common as c
from ._common import G_s2, L, M, drift_round, eta_s, gs2_round

EQ45 = Result(
    paper=c.KEY, label="eq45", kind="lemma",
    title="HERON-SFL server-side contribution to the one-round descent, eq. (45)",
    provenance=c.provenance(label="Theorem 1, proof", equation="(45)", section="App. A-B2"),
    lhs="E_t[S], S = grad f(theta_s^t)^T (theta_s^{t+1} - theta_s^t) + (L/2)||theta_s^{t+1} - theta_s^t||^2",
    terms=(
        Term(name="drift", expr=eta_s * G_s2 * drift_round,
             meaning="eta_s G_s^2 sum_i d_{c,i}^t (as printed in (45); (46) has /(2N))"),
        Term(name="descent", expr=-eta_s * (2 * M - 1) * gs2_round / 4,
             meaning="-eta_s(2N-1)/4 ||grad f_s(theta_s^t)||^2"),
        Term(name="server variance", expr=L * M**2 * eta_s**2 * G_s2 / 2, meaning="(L/2) N^2 eta_s^2 G_s^2"),
    ),
    hypotheses=(
        step_branch("(45)(a) eta_s<=1/(NL)", eta_s, c.ONE / (M * L), r"\eta_s\le\frac{1}{NL}",
                    where="App. A-B2, under (45)"),
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_GRADIENTS_PER_PART, c.OUTPUT_DRIFT), step="eta_s",
    statement=r"\eta_{s}G_{s}^{2}\sum\nolimits_{i=1}^{N}d_{c,i}^{t}-\frac{\eta_{s}(2N-1)}{4}\|\nabla f_{s}(\bm{\theta}_{s}^{t})\|^{2}+\frac{L}{2}N^{2}\eta_{s}^{2}G_{s}^{2}",
    discrepancies=(c.DISC_T1_45,),
    notes=("The paper derives (45) by 'following the same steps as in [38]'; no derivation is printed.",),
)  # fmt: skip

RESULTS = (EQ45,)
