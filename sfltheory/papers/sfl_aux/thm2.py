r"""Theorem 2 (client side, partial participation: n clients sampled with replacement), restated as Theorem A2.

.. math::

    \min_{t\in[T]}\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\le
    \frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{\mu_LKT}
    +\left(5K\mu_L^2L^2+4\mu_L^2L^2(K^2l^2+5L^2K^3l^2\mu_L^2)+L\mu_L\left(\frac1n+15K^2L^2\mu_L^2\right)\right)\sigma_L^2

    +\left(30K^2\mu_L^2L^2+L\mu_L(90K^3L^2\mu_L^2+3K)+4\mu_L^2L^2(K^2l^2+30L^2K^4l^2\mu_L^2)\right)\sigma_G^2
    +\frac{\Gamma'\lambda_1}{1-\Gamma'\lambda_2},

    \Gamma'=4\mu_L^2L^2(K^2l+30L^2K^3l\mu_L^2)+\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)+30K^2\mu_L^2L^2,

with Theorem 1's :math:`\lambda_1, \lambda_2`, under Assumptions 1-3, :math:`\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}` and
:math:`t\equiv0\pmod l`.

Editions: ``thm2`` as printed (the statement and (A36) agree); ``thm2@proof``, the bound that (A35) gives, every
term over :math:`1-\Gamma'\lambda_2` (the statement and (A36) divide only the last one).

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: Sec. 4.1, Theorem 2; App. A.1, Theorem A2, proof (A23)-(A36).
"""

from __future__ import annotations

from dataclasses import replace

from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import F, K, L, T, ell, eps2, eta_l, n, sigma2

GAMMA_P_TEX = r"\Gamma'=4\mu_L^2L^2(K^2l+30L^2K^3l\mu_L^2)+\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)+30K^2\mu_L^2L^2"
_INIT_TEX = r"\frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{\mu_LKT}"
_VAR_TEX = r"+\left(5K\mu_L^2L^2+4\mu_L^2L^2(K^2l^2+5L^2K^3l^2\mu_L^2)+L\mu_L\left(\frac1n+15K^2L^2\mu_L^2\right)\right)\sigma_L^2"
_HET_TEX = r"+\left(30K^2\mu_L^2L^2+L\mu_L(90K^3L^2\mu_L^2+3K)+4\mu_L^2L^2(K^2l^2+30L^2K^4l^2\mu_L^2)\right)\sigma_G^2"
_T2_STATEMENT = (
    r"\min_{t\in[T]}\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\le" + _INIT_TEX + _VAR_TEX + _HET_TEX
    + r"+\frac{\Gamma'\lambda_1}{1-\Gamma'\lambda_2},\ " + GAMMA_P_TEX + r",\ " + c.CONSTS_TEX + r"\ (\text{from Theorem 1})"
)  # fmt: skip

_T2_VAR = (
    5 * K * eta_l**2 * L**2
    + 4 * eta_l**2 * L**2 * (K**2 * ell**2 + 5 * L**2 * K**3 * ell**2 * eta_l**2)
    + L * eta_l * (1 / n + 15 * K**2 * L**2 * eta_l**2)
) * sigma2
_T2_HET = (
    30 * K**2 * eta_l**2 * L**2
    + L * eta_l * (90 * K**3 * L**2 * eta_l**2 + 3 * K)
    + 4 * eta_l**2 * L**2 * (K**2 * ell**2 + 30 * L**2 * K**4 * ell**2 * eta_l**2)
) * eps2
_GROWTH = Term(
    name="gradient growth",
    expr=c.GAMMA_PRIME * c.LAMBDA_1 / c.ONE_MINUS_P,
    meaning="Gamma' lambda_1/(1 - Gamma' lambda_2)",
)

D_ALG_AVG = Discrepancy(
    where="Algorithm 1 line 6 vs (A24)",
    printed=r"\bar x_C^t\leftarrow\frac1m\sum_{i\in[S_t]}x_{C,i}^t", expected=r"\bar x_C^t=\frac1n\sum_{i\in[S_t]}x_{C,i}^t",
    note="with n sampled clients the algorithm's 1/m shrinks the model by n/m; the proof averages with 1/n.",
)  # fmt: skip
D_A31 = Discrepancy(
    where="(A31), (A32) and Gamma'", printed=r"15mLK^3L^2\mu_L^2,\ 3mLK^2\sigma_G^2,\ (90mLK^4L^2\mu_L^2+3mK^2)\textstyle\sum_j,\ \Gamma'\ni\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)",
    expected=r"15mlK^3L^2\mu_L^2,\ 3mlK^2\sigma_G^2,\ (90mK^4L^2\mu_L^2+3mK^2)\textstyle\sum_j,\ \frac{L\mu_L}{l}(90K^3L^2\mu_L^2+3K)", note="the window length l is printed as L in (A31)/(A32); the coefficient of sum_j E||grad||^2 should carry no l "
    "(the drift term sums over j already), so Gamma' has an extra factor l in 90 l K^3 L^2 mu_L^2. This only "
    "makes Gamma' larger (conservative). Also 4mu_L^2L^2(l-1)(K^2 l + ...) is bounded by 4mu_L^2L^2(K^2l^2 + ...) "
    "in (A33), a valid upper bound.",
)  # fmt: skip

THM2 = Result(
    paper=c.KEY, label="thm2", kind="theorem", lhs=c.LHS_CLIENT,
    title="Client-side model, partial participation (n clients sampled with replacement)",
    provenance=c.provenance(label="Theorem 2", section="Sec. 4.1; restated as Theorem A2, App. A.1 (proof ends at (A36))"),
    terms=(
        Term(name="initialisation", expr=2 * F / (eta_l * K * T),
             meaning="2(F^c(x^0) - F^c(x^*))/(mu_L K T), as printed (no 1/(1 - Gamma' lambda_2))"),
        Term(name="variance", expr=_T2_VAR,
             meaning="(5K mu_L^2 L^2 + 4mu_L^2L^2(K^2l^2 + 5L^2K^3l^2mu_L^2) + L mu_L(1/n + 15K^2L^2mu_L^2)) sigma_L^2"),
        Term(name="heterogeneity", expr=_T2_HET,
             meaning="(30K^2mu_L^2L^2 + L mu_L(90K^3L^2mu_L^2 + 3K) + 4mu_L^2L^2(K^2l^2 + 30L^2K^4l^2mu_L^2)) sigma_G^2"),
        _GROWTH,
    ),
    hypotheses=(c.CLIENT_STEP, *c.T2_GAMMA, c.REDDI), assumptions=c.ASSUMPTIONS, statement=_T2_STATEMENT, step="eta_l",
    discrepancies=(c.D_A36, c.D_A12, D_A31, c.D_STRATEGY, D_ALG_AVG, *c.COMMON_DISC), notation=c.NOTATION_CLIENT,
    notes=(
        "Theorem A2 restates Theorem 2 term for term and (A36) is the same bound; the @proof edition is what (A35) gives.",
        "lambda_1, lambda_2 (and A, B) are Theorem 1's; the statement does not redefine them.",
    ),
)  # fmt: skip

# (A35) with Gamma' lambda_2 sum_t E||grad||^2 moved to the left: every term over 1 - Gamma' lambda_2
THM2_PROOF = replace(
    THM2, edition="proof", title="Client-side model, partial participation: the bound that (A35) gives",
    provenance=c.provenance(label="Theorem A2, proof", equation="(A35)", section="App. A.1 (A35), divided by (1 - Gamma' lambda_2) T/l"),
    terms=(
        Term(name="initialisation", expr=2 * F / (c.ONE_MINUS_P * eta_l * K * T),
             meaning="2(F^c(x^0) - F^c(x^*))/((1 - Gamma' lambda_2) mu_L K T)"),
        Term(name="variance", expr=_T2_VAR / c.ONE_MINUS_P, meaning="Theorem 2's sigma_L^2 term over (1 - Gamma' lambda_2)"),
        Term(name="heterogeneity", expr=_T2_HET / c.ONE_MINUS_P, meaning="Theorem 2's sigma_G^2 term over (1 - Gamma' lambda_2)"),
        _GROWTH,
    ),
    statement=r"\frac{1}{1-\Gamma'\lambda_2}\Big(" + _INIT_TEX + _VAR_TEX + _HET_TEX + r"+\Gamma'\lambda_1\Big)",
    notes=(
        "Derived by us from the printed display (A35): move Gamma' lambda_2 sum_t E||grad||^2 to the left and divide "
        "by (1 - Gamma' lambda_2) T/l (the number of windows), exactly as the proof of Theorem 1 does from (A20) to (A21).",
    ),
)  # fmt: skip
