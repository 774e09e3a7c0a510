r"""Lemma 5 (client-side bound with low effective rank), eq. (51).

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: App. A-C,
Lemma 5 (eq. 51) and its proof (eqs. 52-57).

Statement, as printed (App. A-C):

.. math::

    \text{Under Assumptions 1--5, drawing }u_i^t\text{ uniformly from the sphere of radius }\sqrt d:\quad
    \mathbb E[\mathcal C]\le-\frac{\eta_c}{4}\|\nabla f_c(\theta_c^t)\|^2+\frac{\eta_c\mu^2L^2}{8}(d+3)^3
    +\eta_c^2L^4\mu^2d^3+\eta_c^3L^2\rho^2+\frac{\eta_c^2L\rho}{N}(\sigma^2+G_s^2),\quad
    \rho\triangleq1+\frac{d\kappa+d-2}{d+2}.

The proof adapts eq. (69) of [26] as (52) and absorbs the linear gradient term by Young's inequality with
delta = 2 eta_c, (53)-(57); it prints no step-size condition.
"""

from __future__ import annotations

from ...result import Result, Term
from . import _common as c
from ._common import eta_c, gc2_round

LEMMA5 = Result(
    paper=c.KEY, label="lemma5", kind="lemma",
    title="HERON-SFL Lemma 5: client-side contribution under low effective rank",
    provenance=c.provenance(label="Lemma 5", equation="(51)", section="App. A-C"),
    lhs="E[C], the client-side contribution to the one-round descent", assumptions=c.A_T2, notation=c.T2_NOTATION,
    terms=(Term(name="descent", expr=-eta_c * gc2_round / 4, meaning="-(eta_c/4)||grad f_c(theta_c^t)||^2"), *c.PHI_C2),
    statement=r"-\frac{\eta_{c}}{4}\|\nabla f_{c}(\bm{\theta}_{c}^{t})\|^{2}+\frac{\eta_{c}\mu^{2}L^{2}}{8}(d+3)^{3}+\eta_{c}^{2}L^{4}\mu^{2}d^{3}+\eta_{c}^{3}L^{2}\rho^{2}+\frac{\eta_{c}^{2}L\rho}{N}(\sigma^{2}+G_{s}^{2})",
    discrepancies=(c.DISC_T2_H, c.DISC_T2_GS, c.DISC_T2_REFS, c.DISC_T2_STEP, c.DISC_DIM),
    notes=(
        "Lemma 5 prints no step-size condition (Theorem 2's eta_c condition is printed only in the theorem).",
        "rho = 1 + (d kappa + d - 2)/(d + 2); u uniform on the sphere of radius sqrt(d).", c.D_NOTE,
    ),
)  # fmt: skip

RESULTS = (LEMMA5,)
