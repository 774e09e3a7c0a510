r"""Theorem 2: FedAvg with a global step, for the comparison with split learning.

Statement, eq. (51) (App. D.3): let Assumptions 1, 2 and 3 hold and
:math:`\eta_l\le\frac{1}{2KL}\min\left\{\frac{1}{\sqrt{2B^2+1}},\frac{1}{\eta_g}\right\}`. "For Algorithm 1" (sic),

.. math::

    \mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{K\eta_g\eta_lR}
    +12K(K-1)\eta_l^2L^2G^2+6(K-1)\eta_l^2L^2\sigma^2+\frac{4\eta_g\eta_lL\sigma^2}{N}.

Proof: "almost the same as Theorem 1 of Wang et al. (2020) [...] similar to that of Theorem 1" -- none is printed.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Theorem 2, eq. (51),
App. D.3 (rows 1-2 of Table 1, Sec. 4.3, summarise it).
"""

from __future__ import annotations

from ...defaults import Default
from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import G2, ONE, F, K, L, M, T, eta_g, eta_l, sigma2

PLAIN_FEDAVG = Default(name="eta_g", expr=ONE, rule="plain FedAvg has no global step: Table 5's Local SGD, and Table 1 sets eta_g = 1 (Sec. 4.3)")  # fmt: skip
ALGORITHM_1 = Discrepancy(where="Theorem 2 text", printed=r"\text{For Algorithm 1, it holds that}", expected=r"\text{for FedAvg with a global step }\eta_g",
    note="Algorithm 1 is split learning; FedAvg (local SGD with global step eta_g) is never written out (Table 5 gives it without eta_g).")  # fmt: skip
NO_PROOF = Discrepancy(where="Theorem 2 proof", printed=r"\text{This is almost the same as Theorem 1 of Wang et al. (2020) [...] The proof is similar to that of Theorem 1.}",
    expected=r"\text{a proof}", note="no derivation is printed, so neither the constants nor the step-size condition can be checked against the seed.")  # fmt: skip

THM2 = Result(
    paper=c.KEY, label="thm2", kind="theorem", title="FedAvg with a global step (for comparison with split learning): non-convex convergence",
    provenance=c.provenance(label="Theorem 2", equation="(51)", section="App. D.3 (restating Theorem 1 of Wang et al. (2020); proof not printed)"),
    lhs="E||grad f(xbar^R)||^2 at the averaged global model of FedAvg, as printed",
    terms=(
        Term(name="initialisation", expr=4 * F / (K * eta_g * eta_l * T), meaning="T_1: 4F/(K eta_g eta_l R)"),
        Term(name="client drift (G^2)", expr=12 * K * (K - 1) * eta_l**2 * L**2 * G2, meaning="T_2: 12 K(K-1) eta_l^2 L^2 G^2"),
        Term(name="client drift (sigma^2)", expr=6 * (K - 1) * eta_l**2 * L**2 * sigma2, meaning="T_2: 6 (K-1) eta_l^2 L^2 sigma^2"),
        Term(name="global variance", expr=4 * eta_g * eta_l * L * sigma2 / M, meaning="T_3: 4 eta_g eta_l L sigma^2/N"),
    ),
    hypotheses=(*c.thm2_steps("Theorem 2"), c.b_ge_1("Assumption 3")), assumptions=c.T1_ASSUMPTIONS,
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{K\eta_g\eta_lR}+12K(K-1)\eta_l^2L^2G^2+6(K-1)\eta_l^2L^2\sigma^2+\frac{4\eta_g\eta_lL\sigma^2}{N}",
    step="eta_l", defaults=(PLAIN_FEDAVG, c.FL_EFFECTIVE_ETA_L),
    discrepancies=(ALGORITHM_1, NO_PROOF, c.XBAR_DISC),
    notes=("eta_g defaults to 1; eta_tilde = K eta_g eta_l (FedAvg's effective learning rate) may be given instead of eta_l.",),
)  # fmt: skip
