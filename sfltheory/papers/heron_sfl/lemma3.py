r"""Lemma 3 (bound on client model divergence), eq. (24).

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: App. A-B1,
Lemma 3 (eq. 24) and its proof (eqs. 25-29).

Statement, as printed (App. A-B1):

.. math::

    \text{For }\eta_c\le\frac{1}{3Lh}:\quad
    \mathbb E_t\Big[\frac1N\sum_{i=1}^N\sum_{m=1}^h\|\theta_{c,i}^{t,m}-\theta_c^t\|^2\Big]
    \le3h^3\eta_c^2\|\nabla f_c(\theta_c^t)\|^2+\frac{dG_c^2h^3\eta_c^2}{B}+\frac{d^2L^2\mu^2h^3\eta_c^2}{4B}
    +\frac{(6\sigma_c^2+2\mu^2L^2)h^3\eta_c^2}{2}.

The proof, (25)-(29), unrolls the local recursion with Lemma 2 and divides by 1 - 3L^2h^2eta_c^2 >= 2/3.
"""

from __future__ import annotations

from ...result import Result, Term, step_branch
from . import _common as c
from ._common import D, G_c2, K, L, batch, eta_c, gc2_round, lam, sigma_c2

LEMMA3 = Result(
    paper=c.KEY, label="lemma3", kind="lemma", title="HERON-SFL Lemma 3: client model divergence over h local ZO steps",
    provenance=c.provenance(label="Lemma 3", equation="(24)", section="App. A-B1"),
    lhs="E_t[(1/N) sum_i sum_{m=1}^h ||theta_{c,i}^{t,m} - theta_c^t||^2], the local drift of one round",
    terms=(
        Term(name="gradient", expr=3 * K**3 * eta_c**2 * gc2_round, meaning="3h^3 eta_c^2 ||grad f_c(theta_c^t)||^2"),
        Term(name="ZO second moment (G_c)", expr=D * G_c2 * K**3 * eta_c**2 / batch, meaning="d G_c^2 h^3 eta_c^2/B"),
        Term(name="ZO bias (d^2)", expr=D**2 * L**2 * lam**2 * K**3 * eta_c**2 / (4 * batch),
             meaning="d^2 L^2 mu^2 h^3 eta_c^2/(4B)"),
        Term(name="variance + bias", expr=(6 * sigma_c2 + 2 * lam**2 * L**2) * K**3 * eta_c**2 / 2,
             meaning="(6 sigma_c^2 + 2 mu^2 L^2) h^3 eta_c^2/2"),
    ),
    hypotheses=(step_branch("eta_c<=1/(3Lh)", eta_c, c.ONE / (3 * L * K), r"\eta_c\le\frac{1}{3Lh}",
                            where="Lemma 3; used in (29) for 1-3L^2h^2eta_c^2 >= 2/3"),),
    assumptions=c.A_T1, step="eta_c",
    statement=r"{3h^{3}\eta_{c}^{2}}\|\nabla f_{c}(\bm{\theta}_{c}^{t})\|^{2}+\frac{dG_{c}^{2}h^{3}\eta_{c}^{2}}{B}+\frac{d^{2}L^{2}\mu^{2}h^{3}\eta_{c}^{2}}{4B}+\frac{(6\sigma_{c}^{2}+2\mu^{2}L^{2})h^{3}\eta_{c}^{2}}{2}",
    discrepancies=(c.DISC_L3_SUMS, c.DISC_SIGMA, c.DISC_DIM),
    notes=("gc2_round = ||grad f_c(theta_c^t)||^2 at the round.", c.D_NOTE),
)  # fmt: skip

RESULTS = (LEMMA3,)
