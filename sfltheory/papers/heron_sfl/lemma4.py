r"""Lemma 4 (bound on the client-side contribution), eqs. (30)-(31), proved as (43).

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: App. A-B1,
Lemma 4 (eqs. 30-31) and its proof (eqs. 32-43).

Statement, as printed (App. A-B1):

.. math::

    \text{Under Assumptions 1--3, for }\eta_c\le\min\Big\{\frac{1}{3Lh},\frac{2}{NLh^2},\frac{N}{72L}\Big\}\ (30):\quad
    \mathbb E_t[\mathcal C]\le-\frac{\eta_ch}{4}\|\nabla f_c(\theta_c^t)\|^2+\Phi_c(\eta_c),\\
    \Phi_c(\eta_c)=\eta_c^2\Big(\frac{6hLdG_c^2}{N|\xi_i|}+\frac{18hL\sigma_c^2}{N}\Big)
    +\eta_c\Big(\frac{d^2L^2h\mu^2}{48|\xi_i|}+\frac{13hL^2\mu^2}{12}\Big),

with :math:`\mathcal C=\nabla f(\theta_c^t)^T(\theta_c^{t+1}-\theta_c^t)+\frac L2\|\theta_c^{t+1}-\theta_c^t\|^2`.
The proof, (32)-(43), adds the conditions eta_c <= 1/(2hL) (step (a) of (40)) and (6Lh/N + 3 alpha) eta_c^2 <=
eta_c h/4 (after (42)); collecting (42) into (43) needs alpha <= 4hL/N, printed nowhere.
"""

from __future__ import annotations

from ...result import Result, Term
from . import _common as c
from ._common import K, eta_c, gc2_round

LEMMA4 = Result(
    paper=c.KEY, label="lemma4", kind="lemma",
    title="HERON-SFL Lemma 4: client-side contribution to the one-round descent",
    provenance=c.provenance(label="Lemma 4", equation="(31), proved as (43)", section="App. A-B1"),
    lhs="E_t[C], C = grad f(theta_c^t)^T (theta_c^{t+1} - theta_c^t) + (L/2)||theta_c^{t+1} - theta_c^t||^2",
    terms=(Term(name="descent", expr=-eta_c * K * gc2_round / 4, meaning="-(eta_c h/4)||grad f_c(theta_c^t)||^2"),
           *c.PHI_C),
    hypotheses=(*c.H1_STMT, c.H_40A, c.H_GRAD, c.H_ALPHA), assumptions=c.A_CLIENT, step="eta_c",
    statement=r"-\frac{\eta_{c}h}{4}\|\nabla f_{c}(\bm{\theta}_{c}^{t})\|^{2}+\eta_{c}^{2}\big(\frac{6hLdG_{c}^{2}}{N|\xi_{i}|}+\frac{18hL\sigma_{c}^{2}}{N}\big)+\eta_{c}\big(\frac{d^{2}L^{2}h\mu^{2}}{48|\xi_{i}|}+\frac{13hL^{2}\mu^{2}}{12}\big)",
    discrepancies=(c.DISC_T1_SIGMA, c.DISC_L3_SUMS, c.DISC_L4_TYPO, c.DISC_SIGMA, c.DISC_DIM),
    notes=("(31) (statement, |xi_i|) and (43) (end of proof, B) print the same Phi_c.", c.D_NOTE),
)  # fmt: skip

RESULTS = (LEMMA4,)
