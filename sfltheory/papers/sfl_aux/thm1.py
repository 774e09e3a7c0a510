r"""Theorem 1 (client side, full participation), restated as Theorem A1.

.. math::

    \min_{t\in[T]}\mathbb E\left[\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\right]\le
    \frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{(1-\Gamma\lambda_2)\mu_LKT}+\Phi_1
    +\frac{\Gamma\lambda_1}{1-\Gamma\lambda_2},

    \Phi_1=\frac{5K\mu_L^2L^2(\sigma_L^2+6K\sigma_G^2)}{1-\Gamma\lambda_2}
    +\frac{4L\mu_L+4\mu_L^2KL^2(l-1)}{1-\Gamma\lambda_2}\left((Kl+5L^2K^2l\mu_L^2)\sigma_L^2
    +(Kl+30L^2K^3l\mu_L^2)\sigma_G^2\right),

    \Gamma=4\left(L\mu_L+\mu_L^2KL^2(l-1)\right)(K+30L^2K^2\mu_L^2)+30K^2\mu_L^2L^2,

with :math:`\lambda_1, \lambda_2, A, B` as in ``_common`` (printed with the theorem), under Assumptions 1-3,
full participation, :math:`\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}` and :math:`t\equiv0\pmod l`.

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: Sec. 4.1, Theorem 1; App. A.1, Theorem A1, whose proof ends at (A21) with
the same bound (so neither A1 nor (A21) is a separate edition).
"""

from __future__ import annotations

from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import F, K, L, T, ell, eps2, eta_l, sigma2

GAMMA_TEX = r"\Gamma=4\left(L\mu_L+\mu_L^2KL^2(l-1)\right)(K+30L^2K^2\mu_L^2)+30K^2\mu_L^2L^2"

D_L_TYPO = Discrepancy(
    where="(A6) step (a_3) and (A15) step (a_14)",
    printed=r"\frac{LL^2}{2m}\ \text{at } (a_3),\ \frac{4KL}{m}\ \text{at } (a_{14})",
    expected=r"\frac{l}{2m}\ \text{at } (a_3),\ \frac{lL^2}{2m}\ \text{at } (a_4),\ \frac{4Kl}{m}\ \text{at } (a_{14})",
    note="the count l of rounds per window is printed as a capital L (and L^2 appears before smoothness is used); "
    "the next lines ((a_16): 4(K^2 l^2 + ...)) use l.",
)

_UPDATE = 4 * (L * eta_l + eta_l**2 * K * L**2 * (ell - 1))  # 4L mu_L + 4 mu_L^2 K L^2 (l - 1)

THM1 = Result(
    paper=c.KEY, label="thm1", kind="theorem", title="Client-side model, full participation", lhs=c.LHS_CLIENT,
    provenance=c.provenance(label="Theorem 1", section="Sec. 4.1; restated as Theorem A1, App. A.1 (proof ends at (A21))"),
    terms=(
        Term(name="initialisation", expr=2 * F / (c.ONE_MINUS * eta_l * K * T),
             meaning="2(F^c(x^0) - F^c(x^*))/((1 - Gamma lambda_2) mu_L K T)"),
        Term(name="drift variance (Phi_1)", expr=5 * K * eta_l**2 * L**2 * sigma2 / c.ONE_MINUS,
             meaning="5K mu_L^2 L^2 sigma_L^2/(1 - Gamma lambda_2): first part of Phi_1"),
        Term(name="drift heterogeneity (Phi_1)", expr=30 * K**2 * eta_l**2 * L**2 * eps2 / c.ONE_MINUS,
             meaning="5K mu_L^2 L^2 * 6K sigma_G^2/(1 - Gamma lambda_2): first part of Phi_1"),
        Term(name="update variance (Phi_1)", expr=_UPDATE * (K * ell + 5 * L**2 * K**2 * ell * eta_l**2) * sigma2 / c.ONE_MINUS,
             meaning="(4L mu_L + 4 mu_L^2 K L^2 (l-1))(Kl + 5L^2K^2 l mu_L^2) sigma_L^2/(1 - Gamma lambda_2): second part of Phi_1"),
        Term(name="update heterogeneity (Phi_1)", expr=_UPDATE * (K * ell + 30 * L**2 * K**3 * ell * eta_l**2) * eps2 / c.ONE_MINUS,
             meaning="(4L mu_L + 4 mu_L^2 K L^2 (l-1))(Kl + 30L^2K^3 l mu_L^2) sigma_G^2/(1 - Gamma lambda_2): second part of Phi_1"),
        Term(name="gradient growth", expr=c.GAMMA * c.LAMBDA_1 / c.ONE_MINUS,
             meaning="Gamma lambda_1/(1 - Gamma lambda_2): growth of the gradient within a window of l rounds"),
    ),
    hypotheses=(c.CLIENT_STEP, *c.T1_GAMMA, c.REDDI), assumptions=c.ASSUMPTIONS, step="eta_l",
    statement=(
        r"\min_{t\in[T]}\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\le\frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{(1-\Gamma\lambda_2)\mu_LKT}+\Phi_1+\frac{\Gamma\lambda_1}{1-\Gamma\lambda_2},\ "
        r"\Phi_1=\frac{5K\mu_L^2L^2(\sigma_L^2+6K\sigma_G^2)}{1-\Gamma\lambda_2}+\frac{4L\mu_L+4\mu_L^2KL^2(l-1)}{1-\Gamma\lambda_2}\left((Kl+5L^2K^2l\mu_L^2)\sigma_L^2+(Kl+30L^2K^3l\mu_L^2)\sigma_G^2\right),\ "
        + c.CONSTS_TEX + r",\ " + GAMMA_TEX
    ),
    discrepancies=(c.D_GAMMA_EDGE, c.D_A12, D_L_TYPO, *c.COMMON_DISC),
    notes=(
        "Theorem A1 restates Theorem 1 term for term (and the proof's last display (A21) is the same bound); "
        "it is not a separate edition.",
        "'t = 0 (mod l)' in the statement fixes the rounds the proof analyses (the server updates at those rounds); "
        "it is not a numeric condition.",
        "lambda_1 is encoded as B (lambda_2 - l)/(A - 1), equal to the printed B sum_{j<l} (A^j - 1)/(A - 1); at l = 1 "
        "it is 0 and lambda_2 = 1.",
    ),
    notation=c.NOTATION_CLIENT,
)  # fmt: skip
