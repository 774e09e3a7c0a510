r"""Eq. (24): the one-round descent inequality of MU-Split that the proof of Theorem 4.1 sums.

Printed in App. C.1.3 after (23), with the unified step :math:`\eta:=\eta_s`, :math:`\eta_c=\eta\tau`:

.. math::

    \frac{\eta\tau}{4}\mathbb E\|\nabla_{\mathbf x}f(\mathbf x^t)\|^2\le\mathbb E[f(\mathbf x^t)-f(\mathbf x^{t+1})]
    +\frac{4\eta^2\tau L(2\eta\tau L+1)d_s\sigma_s^2}{P}+\eta\tau L^2(2\eta^2\tau^2L^2+1/4)\lambda^2d_s^3
    +\frac{\eta}{4}\tau L^2\lambda^2d_c^3+\frac{2\eta^2\tau^2Ld_c\sigma_c^2}{P},

under the conditions of (19)-(23): :math:`\eta_s\le\frac{1}{\tau L}`, :math:`\eta_s\le\frac{1}{4\tau L}`,
:math:`\eta_c\le\frac{1}{2L}` (step (ii)), :math:`\eta_s\le\frac{P}{64L(\tau P+2d_s)}`,
:math:`\eta_c\le\frac{P}{16Ld_c}` (step (iii)), those before (20) and (22), and Lemma C.4's. Averaged over the
rounds and divided by :math:`\eta\tau/4` it is ``mu_splitfed/thm4.1@proof``.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: (24) in App. C.1.3 (Server-Client Combination), from (19)-(23) of App. C.1.1-C.1.3.
"""

from __future__ import annotations

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...result import Result, Term
from ._common import (
    C1_PROOF,
    C1_STEP_III,
    D_C1_STEPS,
    KEY,
    ONE_PERTURBATION,
    UNIFIED,
    L,
    P,
    R,
    coupling,
    d_c,
    d_s,
    descent,
    eta,
    lam,
    provenance,
    sigma_c2,
    sigma_s2,
    tau,
)

EQ24 = Result(
    paper=KEY, label="eq24", kind="lemma", title="MU-Split: one-round descent inequality (24), summed by Theorem 4.1's proof",
    provenance=provenance(label="Theorem C.1, proof", equation="(24)", section="App. C.1.3"),
    lhs="(eta tau/4) E||grad_x f(x^t)||^2 at one round t",
    terms=(
        Term(name="descent", expr=descent, meaning="E[f(x^t) - f(x^{t+1})], the decrease of f over the round"),
        Term(name="server variance", expr=4 * eta**2 * tau * L * (2 * eta * tau * L + 1) * d_s * sigma_s2 / P,
             meaning="4 eta^2 tau L (2 eta tau L + 1) d_s sigma_s^2/P"),
        Term(name="ZO bias server", expr=eta * tau * L**2 * (2 * eta**2 * tau**2 * L**2 + R(1, 4)) * lam**2 * d_s**3,
             meaning="eta tau L^2 (2 eta^2 tau^2 L^2 + 1/4) lambda^2 d_s^3"),
        Term(name="ZO bias client", expr=eta / 4 * tau * L**2 * lam**2 * d_c**3, meaning="(eta/4) tau L^2 lambda^2 d_c^3"),
        Term(name="client variance", expr=2 * eta**2 * tau**2 * L * d_c * sigma_c2 / P, meaning="2 eta^2 tau^2 L d_c sigma_c^2/P"),
    ),
    hypotheses=(coupling("App. C.1.3, before (24) ('we define the universal step size eta := eta_s')"), *C1_STEP_III, *C1_PROOF),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    statement=r"\frac{\eta\tau}{4}\mathbb E\|\nabla_{\mathbf x}f(\mathbf x^t)\|^2\le\mathbb E[f(\mathbf x^t)-f(\mathbf x^{t+1})]+\frac{4\eta^2\tau L(2\eta\tau L+1)d_s\sigma_s^2}{P}+\eta\tau L^2(2\eta^2\tau^2L^2+1/4)\lambda^2d_s^3+\frac{\eta}{4}\tau L^2\lambda^2d_c^3+\frac{2\eta^2\tau^2Ld_c\sigma_c^2}{P}",
    step="eta", defaults=(*UNIFIED, ONE_PERTURBATION), discrepancies=D_C1_STEPS,
    notes=(
        "descent_round = E[f(x^t) - f(x^{t+1})] is the state of the round (it may be negative); summed over the "
        "rounds it telescopes to F = E[f(x^0) - f(x^T)].",
        "Every step-size condition is printed in the proof around (19)-(23), none in (24) itself (source 'proof'); "
        "the coupling eta_c = tau eta_s defines the eta of (24).",
    ),
    notation={"descent_round": r"\mathbb E[f(\mathbf x^t)-f(\mathbf x^{t+1})]"},
)  # fmt: skip
