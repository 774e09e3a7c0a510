r"""Theorem 4.1: MU-Split (one client, ``M = 1``) converges with :math:`\tau` server steps per round.

Statement, eq. (8) (Sec. 4.1; restated term for term as Theorem C.1, eq. (18), App. C.1): under Assumptions 4.1
and 4.2, if :math:`\eta_c/\tau=\eta_s=\eta\le\min\{\frac{1}{64L(\tau+2d_s)},\frac{1}{16L\tau d_c}\}`,

.. math::

    \frac1T\sum_{t=0}^{T}\mathbb E\|\nabla_{\mathbf x}f(\mathbf x^t)\|^2\le\frac{4\mathcal F}{\eta\tau T}
    +16\eta L(\eta\tau L+1)d_s\sigma_s^2+8\eta\tau Ld_c\sigma_c^2+4L^2(\eta^2\tau^2L^2+1/4)\lambda^2d_s^3
    +L^2\lambda^2d_c^3,

with :math:`\mathcal F=\mathbb E[f(\mathbf x^0)-f(\mathbf x^T)]`.

``@proof``: the last display of App. C.1.3 (after (24)), for any number :math:`P` of perturbations, under the
conditions the proof prints: a factor 2 on :math:`\eta\tau L` in both server terms that the statement drops.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Theorem 4.1 and (8) in Sec. 4.1; Theorem C.1 and (18) in App. C.1; the proof in
App. C.1.1-C.1.3, (19)-(24) and the display after it.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import ONE, F, L, P, R, T, d_c, d_s, eta, lam, sigma_c2, sigma_s2, tau

D_T41 = Discrepancy(
    where="Theorem 4.1 eq. (8) vs App. C.1.3 last display",
    printed=r"16\eta L(\eta\tau L+1)d_s\sigma_s^2 \text{ and } 4L^2(\eta^2\tau^2L^2+1/4)\lambda^2 d_s^3",
    expected=r"16\eta L(2\eta\tau L+1)d_s\sigma_s^2/P \text{ and } 4L^2(2\eta^2\tau^2L^2+1/4)\lambda^2 d_s^3",
    note="the proof's last display (set P = 1) has a factor 2 on eta*tau*L in both server terms that the "
    "statement (and its restatement C.1, eq. 18) drops; the statement is the smaller bound. Encoded as "
    "mu_splitfed/thm4.1@proof.",
)


def terms(k: int, p: sp.Expr) -> tuple[Term, ...]:
    """(8) with k = 1, p = 1; the proof's display with k = 2 (the factor on eta tau L) and p = P."""
    return (
        Term(name="initialisation", expr=4 * F / (eta * tau * T), meaning="4F/(eta tau T): optimisation error"),
        Term(name="server variance", expr=16 * eta * L * (k * eta * tau * L + 1) * d_s * sigma_s2 / p,
             meaning="server-side stochastic ZO variance"),
        Term(name="client variance", expr=8 * eta * tau * L * d_c * sigma_c2 / p, meaning="client-side stochastic ZO variance"),
        Term(name="ZO bias server", expr=4 * L**2 * (k * eta**2 * tau**2 * L**2 + R(1, 4)) * lam**2 * d_s**3,
             meaning="server zeroth-order smoothing bias"),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client zeroth-order smoothing bias"),
    )  # fmt: skip


# what the two editions share
thm41 = partial(
    Result, paper=c.KEY, label="thm4.1", kind="theorem", lhs=c.LHS, assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    step="eta", defaults=(*c.UNIFIED, c.ONE_PERTURBATION),
)  # fmt: skip

THM41 = thm41(
    title="MU-Split (one client): convergence with tau server steps", terms=terms(1, ONE),
    provenance=c.provenance(label="Theorem 4.1", equation="(8)", section="Sec. 4.1; restated as Theorem C.1, eq. (18), App. C.1"),
    hypotheses=(c.coupling("Theorem 4.1"), *c.t41_branches("Theorem 4.1"), *c.C1_PROOF),
    statement=r"\frac1T\sum_{t=0}^{T}\mathbb E\|\nabla f(x^t)\|^2\le\frac{4\mathcal F}{\eta\tau T}+16\eta L(\eta\tau L+1)d_s\sigma_s^2+8\eta\tau Ld_c\sigma_c^2+4L^2(\eta^2\tau^2L^2+1/4)\lambda^2d_s^3+L^2\lambda^2d_c^3",
    discrepancies=(D_T41,), choices=(c.SPLIT_COR42, c.SPLIT_COR42_PROOF),
    notes=("Theorem C.1 (eq. 18) restates Theorem 4.1 term for term; it is not a separate edition.",),
)  # fmt: skip

THM41_PROOF = thm41(
    title="MU-Split: bound derived by the proof (general P)", terms=terms(2, P), edition="proof",
    provenance=c.provenance(label="Theorem C.1, proof", equation="last display of App. C.1.3 (after (24))", section="App. C.1.3"),
    hypotheses=(c.coupling("App. C.1.3"), *c.C1_STEP_III, *c.C1_PROOF),
    statement=r"\frac{4}{\eta\tau T}\mathcal F+\frac{16\eta L(2\eta\tau L+1)d_s\sigma_s^2}{P}+4L^2(2\eta^2\tau^2L^2+1/4)\lambda^2d_s^3+L^2\lambda^2d_c^3+\frac{8\eta\tau Ld_c\sigma_c^2}{P}",
    discrepancies=(D_T41, *c.D_C1_STEPS), choices=(c.SPLIT_COR42_PROOF, c.SPLIT_COR42),
    notes=(
        "Step (iii)'s two conditions are printed in the proof only (source 'proof'); at P = 1 they are the "
        "statement's two branches. The statement's coupling eta_c/tau = eta_s = eta is its own.",
        "The one-round inequality this display sums is mu_splitfed/eq24.",
    ),
)  # fmt: skip
