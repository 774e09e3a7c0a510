r"""Proposition 1 (SFL-V1 converges independently of the cut layer) and the per-round inequalities of its proof.

Statement, eq. (6) (Sec. 4): let Assumptions 1-4 hold and
:math:`\eta^t\le\min\{\frac{1}{16S\tau},\frac{1}{8SK\tau\sum_{k=1}^K\alpha_k^2}\}`. Then for any cut layer
:math:`L_c\in\{1,\dots,L-1\}`

.. math::

    \frac1T\sum_{t=0}^{T-1}\eta^t\mathbb E\left[\|\nabla f(\theta(t))\|^2\right]
    \le\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*))\right)
    +\frac{16KS\tau}{T}\sum_{k=1}^K\alpha_k^2\left(\sigma_k^2+\epsilon^2\right)\sum_{t=0}^{T-1}\left(\eta^t\right)^2,

with :math:`\tau\triangleq\lceil ED_k/B_k\rceil`. The last display of App. B, eq. (28), restates (6) term for
term (with :math:`f^*`), so it is no separate edition.

Editions:

* ``prop1@proof``, eq. (26) (App. B.4), the one-round descent inequality

  .. math:: \mathbb E[f(\theta^{t+1})]-f(\theta^t)\le-\frac{\eta^t\tau}{4}\|\nabla_\theta f(\theta^t)\|^2
            +2KS(\eta^t)^2\tau^2\sum_{k=1}^K\alpha_k^2(\sigma_k^2+\epsilon^2);

* ``prop1@round``, eq. (27) (App. B.4), (26) "rearranged"

  .. math:: \eta^t\|\nabla_\theta f(\theta^t)\|^2\le\frac4\tau\left(f(\theta^t)-\mathbb E[f(\theta^{t+1}_s)]\right)
            +8KS(\eta^t)^2\frac{2\tau^2}{\tau}\sum_{k=1}^K\alpha_k^2(\sigma_k^2+\epsilon^2),

  printed with a factor 2 that rearranging (26) does not give (the discrepancy "App. B.4, (27) vs (26)").

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024). Seed ``003_60e24e21677c19f3.txt``: Proposition 1 in Sec. 4; its proof in
Appendix B, (26)-(28) in App. B.4.
"""

from __future__ import annotations

from ...result import Result, Term
from ._common import (
    ALPHA_DOMAIN,
    DEFAULTS,
    KEY,
    NOTATION,
    PROOF_CONDITIONS,
    PROP1_ASSUMPTIONS,
    PROP1_DISCREPANCIES,
    ROUND_HYPOTHESES,
    F,
    K,
    L,
    M,
    T,
    alpha2,
    eps2,
    eta,
    g_f,
    gap_next,
    gap_t,
    prop1_branches,
    provenance,
    sigma2,
)

NOISE = "variance+heterogeneity"

PROP1 = Result(
    paper=KEY, label="prop1", kind="proposition", title="SFL-V1 convergence, invariant to the cut layer",
    provenance=provenance(label="Proposition 1", equation="(6)", section="Sec. 4; proof in App. B, restated as (28)"),
    lhs=r"(1/T) sum_{t=0}^{T-1} eta^t E||grad f(theta(t))||^2, i.e. eta times the average squared gradient norm (constant step)",
    terms=(
        Term(name="initialisation", expr=4 * F / (T * K), meaning="4 (f(theta(0)) - f(theta^*)) / (T tau)"),
        Term(name=NOISE, expr=16 * M * L * K * alpha2 * (sigma2 + eps2) * eta**2,
             meaning="(16 K S tau / T) sum_k alpha_k^2 (sigma_k^2 + eps^2) sum_t (eta^t)^2, with eta^t = eta"),
    ),
    hypotheses=(*prop1_branches("Proposition 1"), *PROOF_CONDITIONS, ALPHA_DOMAIN),
    assumptions=PROP1_ASSUMPTIONS, step="eta", defaults=DEFAULTS, discrepancies=PROP1_DISCREPANCIES, notation=NOTATION,
    statement=r"\frac1T\sum_{t=0}^{T-1}\eta^t\mathbb E\left[\|\nabla f(\theta(t))\|^2\right]\le\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*))\right)+\frac{16KS\tau}{T}\sum_{k=1}^K\alpha_k^2\left(\sigma_k^2+\epsilon^2\right)\sum_{t=0}^{T-1}\left(\eta^t\right)^2",
    notes=(
        "Eq. (28), the last display of App. B, restates (6) term for term (with f^* for f(theta^*)).",
        "The bound does not depend on the cut layer (no d_c, d_s): this is the paper's point ('invariant to the cut layer').",
        "The factor K (clients) comes from ||sum_k alpha_k x_k||^2 <= K sum_k alpha_k^2 ||x_k||^2; with equal weights "
        "K sum_k alpha_k^2 = 1, so the noise term has no 1/K speed-up.",
        "The left-hand side is eta times the average squared gradient norm (constant step); the rate is not stated.",
    ),
)  # fmt: skip

PROP1_PROOF = Result(
    paper=KEY, label="prop1", edition="proof", kind="proposition",
    title="SFL-V1: one-round descent inequality derived by the proof, eq. (26)",
    provenance=provenance(label="Proposition 1, proof", equation="(26)", section="App. B.4"),
    lhs="one-round change E[f(theta^{t+1})] - f(theta^t), given theta^t",
    terms=(
        Term(name="descent", expr=-eta * K * g_f / 4, meaning="-(eta^t tau / 4) ||grad f(theta^t)||^2"),
        Term(name=NOISE, expr=2 * M * L * eta**2 * K**2 * alpha2 * (sigma2 + eps2), meaning="2 K S (eta^t)^2 tau^2 sum_k alpha_k^2 (sigma_k^2 + eps^2)"),
    ),
    statement=r"\mathbb E[f(\theta^{t+1})]-f(\theta^t)\le-\frac{\eta^t\tau}{4}\|\nabla_\theta f(\theta^t)\|^2+2KS(\eta^t)^2\tau^2\sum_{k=1}^K\alpha_k^2(\sigma_k^2+\epsilon^2)",
    hypotheses=ROUND_HYPOTHESES, assumptions=PROP1_ASSUMPTIONS, step="eta", defaults=DEFAULTS,
    discrepancies=PROP1_DISCREPANCIES, notation=NOTATION,
    notes=(
        "The second branch is printed in the proof as 1/(8 S K (tau^2/tau) sum alpha_k^2), equal to the statement's.",
        "Summing (26) over t = 0..T-1 and dividing by T tau/4 gives 4F/(T tau) + 8 K S tau sum alpha_k^2 "
        "(sigma_k^2 + eps^2) eta^2 for the left-hand side of (6): half the printed noise term (see the (27) discrepancy).",
    ),
)  # fmt: skip

# (27): the noise term as printed, 8 K S (eta^t)^2 (2 tau^2 / tau) sum_k alpha_k^2 (sigma_k^2 + eps^2)
NOISE_27 = 8 * M * L * eta**2 * (2 * K**2 / K) * alpha2 * (sigma2 + eps2)

PROP1_ROUND = Result(
    paper=KEY, label="prop1", edition="round", kind="proposition", step="eta", defaults=DEFAULTS,
    provenance=provenance(label="Proposition 1, proof", equation="(27)", section="App. B.4"),
    title="SFL-V1: one-round inequality (26) rearranged, eq. (27)", hypotheses=ROUND_HYPOTHESES,
    lhs="eta^t ||grad f(theta^t)||^2 for one round t, given theta^t (before taking expectations and averaging over t)",
    terms=(
        Term(name="decrease", expr=4 * (gap_t - gap_next) / K, meaning="(4 / tau) (f(theta^t) - E[f(theta_s^{t+1})])"),
        Term(name=NOISE, expr=NOISE_27, meaning="8 K S (eta^t)^2 (2 tau^2 / tau) sum_k alpha_k^2 (sigma_k^2 + eps^2), as printed (= 16 K S eta^2 tau ...)"),
    ),
    statement=r"\eta^t\left\|\nabla_\theta f(\theta^t)\right\|^2\le\frac{4}{\tau}\left(f(\theta^t)-\mathbb E\left[f(\theta^{t+1}_s)\right]\right)+8KS(\eta^t)^2\frac{2\tau^2}{\tau}\sum_{k=1}^K\alpha_k^2\left(\sigma_k^2+\epsilon^2\right)",
    assumptions=PROP1_ASSUMPTIONS, discrepancies=PROP1_DISCREPANCIES,
    notation={**NOTATION, "gap_round": r"f(\theta^t)-f(\theta^*)", "gap_next": r"\mathbb E[f(\theta^{t+1}_s)]-f(\theta^*)"},
    notes=(
        "The expected one-round decrease f(theta^t) - E[f(theta^{t+1})] (printed with theta_s^{t+1}, see the (27) "
        "discrepancy) is gap_round - gap_next, the difference of the optimality gaps before and after round t; it may "
        "be negative.",
        "Multiplying (26) by 4/tau gives the noise term 8 K S eta^2 tau sum alpha_k^2 (sigma_k^2 + eps^2): half of (27)'s "
        "printed 8 K S eta^2 (2 tau^2/tau) = 16 K S eta^2 tau. Averaging (27) over t = 0..T-1 (the sum of decreases "
        "telescopes to f(theta(0)) - E f(theta^T) <= f(theta(0)) - f^*) gives (28), i.e. (6).",
        "The hypotheses are those of (26), from which (27) is rearranged.",
    ),
)  # fmt: skip
