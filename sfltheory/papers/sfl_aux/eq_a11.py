r"""The client drift bound (A11): how far the client models move from the round's aggregate in K local steps.

.. math::

    \frac{1}{m}\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{C,i}^{t+j,k}-\bar{\mathbf x}_C^{t+j}\|^2\le
    5K\mu_L^2(\sigma_L^2+6K\sigma_G^2)+30K^2\mu_L^2\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^{t+j})\|^2

Printed in the proof of Theorem A1 as "an upper bound for the term :math:`y_2` provided by [13]" (Reddi et al.,
Adaptive Federated Optimization, Lemma 3), re-derived in (A9) and used again in the proof of Theorem A2 ((A31),
step :math:`a'_7`). The paper prints no step condition for it: [13] assumes :math:`\mu_L\le\frac{1}{8LK}`, and the
recursion's step :math:`(a_6)` needs :math:`6K\mu_L^2L^2\le\frac{1}{K-1}-\frac{1}{2K-1}` (both implicit here).

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: App. A.1, proof of Theorem A1, the recursion (A9) and the bound (A11).
"""

from __future__ import annotations

from ...result import Discrepancy, Result, Term, step_branch
from . import _common as c
from ._common import K, L, eps2, eta_l, g_f, sigma2

D_A9_SQUARE = Discrepancy(
    where="(A9), left-hand side",
    printed=r"\mathbb E\left[\|\mathbf x_{C,i}^{t+j,k}-\bar{\mathbf x}_C^{t+j}\|\right]",
    expected=r"\mathbb E\left[\|\mathbf x_{C,i}^{t+j,k}-\bar{\mathbf x}_C^{t+j}\|^2\right]",
    note="the square is missing on the left of the recursion; its right side expands a squared norm and (A11) bounds "
    "the squared distance.",
)
D_A9_STEP = Discrepancy(
    where="(A9), step (a_6) ('due to Assumption 3')",
    printed=r"\stackrel{(a_6)}{\le}\left(1+\frac{1}{K-1}\right)\mathbb E\|\mathbf x_{C,i}^{t+j,k-1}-\bar{\mathbf x}_C^{t+j}\|^2"
    r"+\mu_L^2\sigma_L^2+6K\mu_L^2\sigma_G^2+6K\mu_L^2\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^{t+j})\|^2",
    expected=r"\left(1+\frac{1}{2K-1}+6K\mu_L^2L^2\right)\mathbb E\|\cdot\|^2+\dots\le\left(1+\frac{1}{K-1}\right)"
    r"\mathbb E\|\cdot\|^2+\dots\ \text{iff}\ 6K\mu_L^2L^2\le\frac{1}{K-1}-\frac{1}{2K-1}",
    note="(a_6) drops the term 6K mu_L^2 E||grad F_i^c(x_i) - grad F_i^c(xbar)||^2 of (a_5): bounding it needs the "
    "L-smoothness of every F_i^c (neither Assumption 1 as stated nor Assumption 3) and a step condition the paper "
    "does not print ([13]'s mu_L <= 1/(8LK) gives it). At K = 1 the factor 1/(K-1) is undefined; there k ranges "
    "over [K] = {0}, the drift is 0 and (A11) holds trivially.",
)

_A6_STEP = step_branch(
    "(a_6): 6K mu_L^2 L^2 <= 1/(K-1) - 1/(2K-1)", 6 * K * eta_l**2 * L**2 * (K - 1) * (2 * K - 1), K,
    r"1+\frac{1}{2K-1}+6K\mu_L^2L^2\le1+\frac{1}{K-1}", source="implicit",
    where="App. A.1, (A9) step (a_6): 1 + 1/(2K-1) + 6K mu_L^2 L^2 becomes 1 + 1/(K-1)",
    note="written times (K-1)(2K-1) so that it reads at K = 1 too (0 <= 1); implied by [13]'s mu_L <= 1/(8LK) "
    "(6(K-1)(2K-1)/(64K) <= K)",
)  # fmt: skip

EQ_A11 = Result(
    paper=c.KEY, label="eqA11", kind="lemma", title="Client drift over the K local steps of a round ((A11), quoted from [13], Lemma 3)",
    provenance=c.provenance(label="Theorem A1, proof", equation="(A11)", section="App. A.1, recursion (A9); used again in (A31) for A2"),
    lhs="(1/m) sum_i E||x_{C,i}^{t+j,k} - xbar_C^{t+j}||^2: the distance of the client models after k local steps "
    "of round t+j from that round's aggregate, averaged over the clients (any k in [K])",
    terms=(
        Term(name="variance", expr=5 * K * eta_l**2 * sigma2, meaning="5K mu_L^2 sigma_L^2"),
        Term(name="heterogeneity", expr=30 * K**2 * eta_l**2 * eps2, meaning="5K mu_L^2 * 6K sigma_G^2"),
        Term(name="gradient", expr=30 * K**2 * eta_l**2 * g_f, meaning="30K^2 mu_L^2 E||grad F^c(xbar_C^{t+j})||^2"),
    ),
    hypotheses=(c.REDDI, _A6_STEP), assumptions=c.ASSUMPTIONS, step="eta_l",
    statement=r"\frac{1}{m}\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{C,i}^{t+j,k}-\bar{\mathbf x}_C^{t+j}\|^2\le"
    r"5K\mu_L^2(\sigma_L^2+6K\sigma_G^2)+30K^2\mu_L^2\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^{t+j})\|^2",
    discrepancies=(D_A9_STEP, D_A9_SQUARE, c.D_SMOOTH),
    notes=(
        "(A11) is Lemma 3 of [13] with eta_l -> mu_L, sigma_l -> sigma_L, sigma_g -> sigma_G; unrolling (A9) gives "
        "(K-1)((K/(K-1))^{K-1} - 1) <= (e - 1)K <= 5K, so the printed constants hold under the recursion's step.",
        "Inside Theorems 1-2 the printed mu_L <= 1/(lLK2^{1.15l+1.85}) implies both implicit conditions.",
        "(A6) writes y_2 with x_C^{t+j}, (A11) with the aggregate xbar_C^{t+j}: the proof uses x_C^t for xbar_C^t "
        "throughout (A5)-(A6).",
    ),
    notation={"gradnorm2_f": r"\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^{t+j})\|^2"},
)  # fmt: skip
