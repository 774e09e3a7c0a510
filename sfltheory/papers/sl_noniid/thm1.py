r"""Theorem 1 (split learning with a global step, non-convex objectives) and the bound its proof derives.

Statement, eq. (5) (Sec. 4.2): let Assumptions 1, 2 and 3 hold and
:math:`\eta_l\le\frac{1}{2NKL}\min\left\{\frac{1}{\sqrt{2B^2+1}},\frac{1}{\eta_g}\right\}`. For Algorithm 1,

.. math::

    \mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\underbrace{\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{NK\eta_g\eta_lR}}_{T_1}
    +\underbrace{12N^2K^2\eta_l^2L^2G^2+6N^2K\eta_l^2L^2\sigma^2}_{T_2}+\underbrace{4N\eta_g\eta_lL\sigma^2}_{T_3},

where :math:`\bar{\mathbf x}^R=\frac1R\sum_{r=0}^{R-1}\mathbf x^r`.

Editions:

* ``thm1`` -- the statement, eq. (5);
* ``thm1@proof`` -- eq. (44) of App. D.2 (its number is lost in the seed's text; Corollary 3's proof cites it),
  the same terms for :math:`\frac1R\sum_{r=0}^{R-1}\mathbb E\|\nabla f(\mathbf x^r)\|^2`, under the constraints
  (45)-(47). The one-round inequality (43) it averages is ``sl_noniid/eq43``.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Theorem 1 in Sec. 4.2;
its proof in App. D.2, eqs. (30)-(48).
"""

from __future__ import annotations

from functools import partial

from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import G2, F, K, L, M, T, eta_g, eta_l, sigma2

BOUND = r"\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{NK\eta_g\eta_lR}+12N^2K^2\eta_l^2L^2G^2+6N^2K\eta_l^2L^2\sigma^2+4N\eta_g\eta_lL\sigma^2"
SGD_AT_N_K_1 = Discrepancy(where="Sec. 4.2 'Convergence rate' and App. D.5 vs eq. (5)", printed=r"\text{recovers SGD when }N=K=1\text{ (i.e., without the client drift error)}",
    expected=r"T_2=12\eta_l^2L^2G^2+6\eta_l^2L^2\sigma^2\ne0\text{ at }N=K=1", note="eq. (5) keeps its client-drift term at N = K = 1; the paper concedes 'it is true but not shown in Theorem 1 directly'.")  # fmt: skip
# what both editions share: the four terms of (5) = (44), the defaults, the discrepancies
edition = partial(
    Result, paper=c.KEY, label="thm1", kind="theorem", assumptions=c.T1_ASSUMPTIONS, step="eta_l",
    terms=(
        Term(name="initialisation", expr=4 * F / (M * K * eta_g * eta_l * T), meaning="T_1: initialization error 4F/(N K eta_g eta_l R)"),
        Term(name="client drift (G^2)", expr=12 * M**2 * K**2 * eta_l**2 * L**2 * G2, meaning="T_2: client drift error, heterogeneity part 12 N^2 K^2 eta_l^2 L^2 G^2"),
        Term(name="client drift (sigma^2)", expr=6 * M**2 * K * eta_l**2 * L**2 * sigma2, meaning="T_2: client drift error, variance part 6 N^2 K eta_l^2 L^2 sigma^2"),
        Term(name="global variance", expr=4 * M * eta_g * eta_l * L * sigma2, meaning="T_3: global variance 4 N eta_g eta_l L sigma^2"),
    ),
    defaults=(c.VANILLA_SL, c.SL_EFFECTIVE_ETA_L), discrepancies=(c.XBAR_DISC, c.SIGMA_DISC, SGD_AT_N_K_1),
)  # fmt: skip

THM1 = edition(
    title="Split learning (sequential clients, global step eta_g): non-convex convergence",
    provenance=c.provenance(label="Theorem 1", equation="(5)", section="Sec. 4.2; proof in App. D.2, eqs. (30)-(48)"),
    lhs=c.LHS_AVG_MODEL, hypotheses=(*c.thm1_steps("Theorem 1"), c.b_ge_1("Assumption 3; used after eq. (42)"), c.EQ47),
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le" + BOUND,
    notes=(
        "eta_g defaults to 1 (vanilla SL, Algorithm 1 without steps 13-14); eta_tilde = N K eta_g eta_l may be given instead of eta_l.",
        "The analysis takes f = (1/N) sum_i f_i with all N clients per round (|S| = N); the weighted eq. (1) is 'readily extended', not proven.",
    ),
)  # fmt: skip

THM1_PROOF = edition(
    title="Split learning: the bound the proof derives, eq. (44), under (45)-(47)", edition="proof",
    provenance=c.provenance(label="Theorem 1, proof", equation="(44)", section="App. D.2; constraints (45)-(48)"),
    lhs=c.LHS_AVG_ROUNDS, hypotheses=c.THM1_PROOF_HYPOTHESES, statement=r"\frac1R\sum_{r=0}^{R-1}\mathbb E\|\nabla f(\mathbf x^r)\|^2\le" + BOUND,
    notes=(
        "The terms equal eq. (5) term for term; we re-derived (41)-(44) from (38)-(40) and Lemma 4 and found them consistent.",
        "(45) and (46) are the two branches of (48), Theorem 1's printed condition; (47), from Lemma 4, is printed in the "
        "proof only and is implied by (45).",
        "The seed's text lost the display's number; it stands between (43) and (45), and Corollary 3's proof cites it "
        "as Eq. (44).",
    ),
)  # fmt: skip
