r"""The impact of cut layer selection in SFL (seed ``003_60e24e21677c19f3.txt``): SFL-V1 and SFL-V2.

Dachille, Huang and Liu analyse SFL-V1 (one server-side model per client, aggregated every round) and
show that its convergence bound does not depend on the cut layer :math:`L_c`. Results:

* ``prop1``: Proposition 1, eq. (6) (Sec. 4), SFL-V1 for any cut layer; restated term for term as the
  last display of App. B, eq. (28), so (28) is not a separate edition.
  ``@proof``: the per-round descent inequality eq. (26) (App. B.4), the last inequality the proof
  derives before rearranging.
* ``lem1``: Lemma 1, eq. (7) (App. B.1), local drift of the model over tau local iterations.
* ``lem2``: Lemma 2, eq. (11) (App. B.1), drift of the stochastic gradients over tau local iterations.
* ``tau_def``: the definition :math:`\tau\triangleq\lceil ED_k/B_k\rceil` printed under Proposition 1.
* ``sfl_v2``: a catalogue entry saying that the paper gives **no** convergence result for SFL-V2
  (Sec. 4, after Proposition 1: "left to future work"; Sec. 6.1 and 7 repeat it).

Notation (paper -> canonical): smoothness :math:`S` -> ``L``; clients :math:`K` -> ``M``; local
iterations per round :math:`\tau` -> ``K``; mini-batch :math:`B_k` -> ``batch``; step :math:`\eta^t` ->
``eta``. Beware: the paper's ``K`` (clients) is the canonical ``M`` and the paper's ``tau`` is the
canonical ``K`` (canonical ``tau`` counts server steps and is not used here).

Conventions:

* losses are means (:math:`F_k(\theta)=\mathbb E_{B_k}F_k(\theta,B_k)`), :math:`f=\sum_k\alpha_kF_k`
  with :math:`\alpha_k=D_k/\sum_{k'}D_{k'}` (Algorithm 1, line 34), so :math:`\sum_k\alpha_k=1` and
  ``sum_alpha2`` :math:`=\sum_k\alpha_k^2\in[1/M,1]`; it defaults to ``1/M`` (equal dataset sizes).
* ``F`` is :math:`f(\theta(0))-f(\theta^*)` exactly as printed.
* the paper allows a time-varying step :math:`\eta^t`; we encode a constant one (:math:`\eta^t=\eta`),
  so :math:`\frac1T\sum_t(\eta^t)^2=\eta^2`. The left-hand side of (6) is then
  :math:`\eta\cdot\frac1T\sum_t\mathbb E\|\nabla f(\theta(t))\|^2` -- *eta times* the average squared
  gradient norm, as printed (divide by ``eta`` for the average itself).
* the per-client variances enter as :math:`\sum_k\alpha_k^2\sigma_k^2`; ``sigma2`` here is their
  :math:`\alpha_k^2`-weighted mean :math:`\sum_k\alpha_k^2\sigma_k^2/\sum_k\alpha_k^2` (any common
  upper bound on the :math:`\sigma_k^2` also works), so the printed term is exact. In the lemmas, which
  concern one client ``k``, ``sigma2`` is that client's :math:`\sigma_k^2`.
* the lemmas' bounds depend on the state of the round: ``gradnorm2_f`` is
  :math:`\|\nabla_\theta f(\theta^t)\|^2` and ``gradnorm2_Fk`` is :math:`\|\nabla_\theta F_k(\theta^t)\|^2`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .. import variants as var
from ..assumptions import BOUNDED_HETEROGENEITY, Assumption, Pick
from ..defaults import Default
from ..result import Discrepancy, Hypothesis, Provenance, Result, Term, step_branch
from ..vocabulary import Param, symbols

SEED = "003_60e24e21677c19f3.txt"
PAPER = "cut_layer"

# the paper's own names, added to the vocabulary by the registry (no registration at import)
PARAMS: tuple[Param, ...] = (
    Param(
        "sum_alpha2",
        r"\sum_k\alpha_k^2",
        "sum over clients of the squared aggregation weights (1/M for equal weights)",
        "fraction",
    ),
    Param(
        "gradnorm2_Fk",
        r"\|\nabla F_k(\theta^t)\|^2",
        "squared local gradient norm of one client at the start of the round",
        "nonneg",
    ),
)

L, F, T, M, K, eta, sigma2, eps2, batch = symbols("L F T M K eta sigma2 eps2 batch")
alpha2, g_f, g_k, E_ep, D_k = symbols("sum_alpha2 gradnorm2_f gradnorm2_Fk E_epochs D_k")

ONE = sp.Integer(1)
R = sp.Rational
_TAU_DEF = sp.ceiling(E_ep * D_k / batch)  # tau := ceil(E D_k / B_k), printed under Proposition 1
# sum_alpha2 = 1/M for equal weights; K = ceil(E D_k / B_k) when E, D_k and the batch are given instead.
DEFAULTS = (
    Default(name="sum_alpha2", expr=ONE / M, rule="TODO(rule)"),
    Default(name="K", expr=_TAU_DEF, rule="TODO(rule)"),
)
NOTATION = {
    "sum_alpha2": r"\sum_{k=1}^K\alpha_k^2",
    "gradnorm2_f": r"\|\nabla_\theta f(\theta^t)\|^2",
    "gradnorm2_Fk": r"\|\nabla_\theta F_k(\theta^t)\|^2",
    "E_epochs": "E",
    "D_k": "D_k",
}

# ---------------------------------------------------------------------------------------------------
# Assumptions 1-4 (Sec. 4). Assumption 4 is the shared BOUNDED_HETEROGENEITY; 2 and 3 are variants.
NONCONVEX = Assumption(
    key="nonconvex_cut_layer",
    name="non-convex local losses (Assumption 1)",
    statement=r"\text{each } F_k \text{ is non-convex}",
    introduces=(),
    note="states that no convexity is assumed; it introduces no constant",
)
SMOOTHNESS_UPPER_QUADRATIC = Assumption(
    key="smoothness_upper_quadratic_per_client",
    name="S-smoothness of every local loss, as a quadratic upper bound (Assumption 2)",
    statement=r"F_k(\theta)\le F_k(\phi)+\langle\nabla F_k(\phi),\theta-\phi\rangle+\frac S2\|\theta-\phi\|^2\ \forall\theta,\phi",
    introduces=("L",),
    note="eq. (2) is one-sided; the proofs use the Lipschitz-gradient form ||grad F_k(x) - grad F_k(y)|| <= S||x - y||, "
    "which (2) alone does not imply for non-convex F_k (see the discrepancies)",
    picks=(
        Pick(
            name="L",
            keys=(var.key("L", var.CLIENTS), "L"),
            why="max over clients of the top eigenvalue of F_k (else that of f)",
        ),
    ),
)
BOUNDED_VARIANCE_PER_CLIENT = Assumption(
    key="bounded_variance_per_client",
    name="unbiased stochastic gradients with per-client variance sigma_k^2 (Assumption 3)",
    statement=r"\mathbb E_{B_k}[g_k(\theta,B_k)]=\nabla F_k(\theta),\ \mathbb E_{B_k}\|g_k(\theta,B_k)-\nabla F_k(\theta)\|^2\le\sigma_k^2",
    introduces=("sigma2",),
    note="sigma_k^2 is the variance of a mini-batch gradient (batch B_k), per client; in Proposition 1 sigma2 is "
    "sum_k alpha_k^2 sigma_k^2 / sum_k alpha_k^2",
    picks=(
        Pick(
            name="sigma2",
            keys=(var.key("sigma2", var.BATCH), "sigma2"),
            why="a mini-batch gradient's variance (measure with batch=)",
        ),
    ),
)
LIPSCHITZ_STOCHASTIC_GRADIENTS = Assumption(
    key="lipschitz_stochastic_gradients_implicit",
    name="S-Lipschitz stochastic gradients across mini-batches (used by Lemma 2's proof, never assumed)",
    statement=r"\|g_k^{t,i}-g_k^{t,i-1}\|\le S\|\theta_k^{t,i}-\theta_k^{t,i-1}\|",
    introduces=("L",),
    note="implicit: (12) bounds the difference of two stochastic gradients on different mini-batches by S times the "
    "parameter difference; Assumptions 2-3 do not give this (the two noises do not cancel)",
    picks=(Pick(name="L", keys=("L",), why="top Hessian eigenvalue of f (a lower bound)"),),
)
ASSUMPTIONS = (NONCONVEX, SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, BOUNDED_HETEROGENEITY)


def _step(*args: Any, **kw: Any) -> Hypothesis:
    return step_branch(*args, **{"group": "eta<=min{...}", **kw})


# ---------------------------------------------------------------------------------------------------
# Proposition 1 (SFL-V1), eq. (6)
_B1 = ONE / (16 * L * K)
_B2 = ONE / (8 * L * M * K * alpha2)


def _prop1_branches(where: str) -> tuple[Hypothesis, ...]:
    return (
        _step("eta<=1/(16 S tau)", eta, _B1, r"\eta^t\le\frac{1}{16S\tau}", where=where),
        _step(
            "eta<=1/(8 S K tau sum alpha_k^2)",
            eta,
            _B2,
            r"\eta^t\le\frac{1}{8SK\tau\sum_{k=1}^K\alpha_k^2}",
            where=where,
        ),
    )


_PROP1_PROOF_CONDITIONS = (
    _step(
        "Lemma 1: eta<=1/(sqrt(8) S tau)",
        eta,
        ONE / (sp.sqrt(8) * L * K),
        r"\eta^t\le\frac{1}{\sqrt8S\tau}",
        source="proof",
        where="App. B.2, before (19) ('By Lemma 1 with ...')",
        group="lemmas",
        note="implied by eta <= 1/(16 S tau)",
    ),
    _step(
        "Lemma 2: eta<=1/(2 S tau)",
        eta,
        ONE / (2 * L * K),
        r"\eta^t\le\frac{1}{2S\tau}",
        source="proof",
        where="App. B.2, before (22), and App. B.3, before (25)",
        group="lemmas",
        note="implied by eta <= 1/(16 S tau)",
    ),
    _step(
        "(26) noise and coefficient: 8 eta S tau + 8 (eta S tau)^2 <= 1",
        8 * eta * L * K + 8 * eta**2 * L**2 * K**2,
        ONE,
        r"8\eta^tS\tau+8(\eta^t)^2S^2\tau^2\le1",
        source="implicit",
        where="App. B.4, (26): bounding S K eta^2 tau^2 (1 + 8 eta S tau + 8 eta^2 S^2 tau^2) sum alpha_k^2 by 2 S K eta^2 tau^2 sum alpha_k^2",
        group="",
        note="what the step needs (for the gradient coefficient and the eps^2 term); implied by eta <= 1/(16 S tau), "
        "which gives 1/2 + 1/32 <= 1",
    ),
    _step(
        "(21) with ||a+b||^2<=2||a||^2+2||b||^2: eta<=4/(41 S K tau sum alpha_k^2)",
        eta,
        4 / (41 * L * M * K * alpha2),
        r"\eta^t\le\frac{4}{41SK\tau\sum_{k=1}^K\alpha_k^2}",
        source="implicit",
        where="App. B.2, (21) (fourth '<=') and App. B.4, (26)",
        group="",
        note="(21) drops the factor 2 of ||a+b||^2 <= 2||a||^2 + 2||b||^2 (also in (25)); with it, the coefficient of "
        "||grad f||^2 in (26) is -eta tau/2 + S K eta^2 tau^2 sum alpha^2 (2 + 8 eta S tau + 16 eta^2 S^2 tau^2). Bounding "
        "the bracket by 2 + 1/2 + 1/16 = 41/16 with eta S tau <= 1/16, as the proof does for its own bracket, it is "
        "<= -eta tau/4 when eta <= 4/(41 S K tau sum alpha^2), stricter than the printed 1/(8 S K tau sum alpha^2). "
        "Derived with the proof's other steps as printed.",
    ),
)

_ALPHA_DOMAIN = Hypothesis(
    name="sum_alpha2 >= 1/M (paper: sum alpha_k^2 >= 1/K)",
    lhs=M * alpha2,
    rel=">=",
    rhs=ONE,
    kind="domain",
    printed=r"\sum_{k=1}^K\alpha_k^2\ge\frac1K",
    source="implicit",
    where="Sec. 3 after (1) and Algorithm 1, line 34: alpha_k = D_k / sum_k' D_k', so sum_k alpha_k = 1",
    note="weights that sum to 1 have sum alpha_k^2 >= 1/K (Cauchy-Schwarz); a smaller value describes no weighting",
)

_PROP1_DISC = (
    Discrepancy(
        where="Proposition 1, eq. (6), first term",
        printed=r"\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*))\right)",
        expected=r"\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*)\right)",
        note="unbalanced parenthesis (typo); the discussion below repeats it as (f(theta(0)))-f(theta^*)).",
    ),
    Discrepancy(
        where="Proposition 1, definition of tau",
        printed=r"\tau\triangleq\lceil ED_k/B_k\rceil",
        expected=r"\text{one }\tau\text{ for all clients: }\lceil ED_k/B_k\rceil\text{ equal across }k",
        note="tau depends on k through D_k and B_k, but the bound and the proof use a single tau for every client; "
        "implicitly all clients make the same number of updates per round. Encoded as cut_layer/tau_def.",
    ),
    Discrepancy(
        where="Algorithm 1 (App. A.2) and Sec. 3 vs the analysed algorithm",
        printed=r"\text{one mini-batch, one server update, then }E\text{ client updates reusing }\nabla a_k(t)",
        expected=r"\tau=\lceil ED_k/B_k\rceil\text{ local SGD steps on both sides per round (FedAvg)}",
        note="the algorithm as printed takes one server-side step and E client-side steps with the same cut-layer gradient per "
        "round; the proof (App. B) analyses tau local SGD iterations of the whole model per round.",
    ),
    Discrepancy(
        where="Assumption 2, eq. (2), vs its use in Lemma 1, (18) and (21)",
        printed=r"F_k(\theta)\le F_k(\phi)+\langle\nabla F_k(\phi),\theta-\phi\rangle+\frac S2\|\theta-\phi\|^2",
        expected=r"\|\nabla F_k(\theta)-\nabla F_k(\phi)\|\le S\|\theta-\phi\|",
        note="the one-sided quadratic bound does not imply a Lipschitz gradient for non-convex F_k; the proofs use the latter.",
    ),
    Discrepancy(
        where="Assumption 3, eqs. (3)-(4)",
        printed=r"\mathbb E_{B_k\sim\mathcal D_n}",
        expected=r"\mathbb E_{B_k\sim\mathcal D_k}",
        note="index typo (n for k).",
    ),
    Discrepancy(
        where="App. B.2, (18)-(19), and App. B.3, (24): block-wise smoothness",
        printed=r"\|\nabla_{\theta_s}F_k(\{\theta_{c,k}^{t,i},\theta_{s,k}^{t,i}\})-\nabla_{\theta_s}F_k(\theta^t)\|^2\le S^2\|\theta_{s,k}^{t,i}-\theta_s^t\|^2"
        r";\ (19)\text{ with }\|\nabla_{\theta_s}f(\theta_s^t)\|^2",
        expected=r"S^2\|\theta_k^{t,i}-\theta^t\|^2\ \text{(both blocks)};\ \text{Lemma 1 gives }\|\nabla_\theta f(\theta^t)\|^2",
        note="the server-side gradient depends on the client block too, and Lemma 1 bounds the whole model's drift by the full "
        "gradient norm; applied block by block the proof later sums ||grad_c f||^2 + ||grad_s f||^2 = ||grad f||^2, "
        "which the lemma as stated does not license.",
    ),
    Discrepancy(
        where="App. B.2, (20)",
        printed=r"\tilde\tau,\ N,\ a_n,\ \sigma_n",
        expected=r"\tau,\ K,\ \alpha_k,\ \sigma_k",
        note="(20) switches to the notation of Han et al. (2024b); the next display returns to tau, K, alpha_k.",
    ),
    Discrepancy(
        where="App. B.2, (21), fourth inequality",
        printed=r"\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t+g_{s,k}^t\|^2\le\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t\|^2+\mathbb E\|g_{s,k}^t\|^2",
        expected=r"\le2\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t\|^2+2\mathbb E\|g_{s,k}^t\|^2",
        note="the cross term is not zero; with the factor 2 the step-size condition of (26) becomes the implicit hypothesis "
        "'(21) with ||a+b||^2<=...', stricter than the printed 1/(8 S K tau sum alpha_k^2) (same in (25)).",
    ),
    Discrepancy(
        where="App. B.2-B.4, signs of relations",
        printed=r"\mathbb E\langle\nabla_{\theta_s}f,\theta_s^{t+1}-\theta_s^t\rangle\le\dots;\ \langle f(\theta_s^t),\eta^t\tau\nabla_{\theta_s}f\rangle;\ \frac S2\mathbb E\|\theta_s^{t+1}-\theta_s^t\|^2=\frac{SK(\eta^t)^2}{2}\sum_k\dots",
        expected=r"=\dots;\ \langle\nabla_{\theta_s}f(\theta^t),\dots\rangle;\ \le\frac{SK(\eta^t)^2}{2}\sum_k\dots",
        note="typos: identities printed as '<=', a missing gradient, and Cauchy-Schwarz over clients printed as '='.",
    ),
    Discrepancy(
        where="App. B.4, (26): superposition of server and client",
        printed=r"8K\eta^tS^2\tau^3\sum_k\alpha_k^2(\eta^t)^2(\sigma_k^2+\epsilon^2)+\frac12SK(\eta^t)^2\tau(\tau+8\tau^3(\eta^t)^2S^2)\sum_k\alpha_k^2(2\epsilon^2+\sigma_k^2)",
        expected=r"\text{twice that: (20) and (24), and (23) and (25), each carry the full }\sigma_k^2,\epsilon^2",
        note="adding the server part ((20), (23)) and the client part ((24), (25)) keeps one copy of the noise terms; as printed "
        "each part has the whole sigma_k^2 and eps^2, so the sum has two copies (one copy would need sigma_k^2 and eps^2 "
        "split between the blocks).",
    ),
    Discrepancy(
        where="App. B.4, (27) vs (26)",
        printed=r"\eta^t\|\nabla f(\theta^t)\|^2\le\frac4\tau(f(\theta^t)-\mathbb E[f(\theta^{t+1}_s)])+8KS(\eta^t)^2\frac{2\tau^2}{\tau}\sum_k\alpha_k^2(\sigma_k^2+\epsilon^2)",
        expected=r"\frac4\tau(f(\theta^t)-\mathbb E[f(\theta^{t+1})])+8KS(\eta^t)^2\tau\sum_k\alpha_k^2(\sigma_k^2+\epsilon^2)",
        note="rearranging (26) (multiply by 4/tau) gives 8 K S eta^2 tau, not 16; (28) and the statement (6) inherit the 16. "
        "The extra factor 2 happens to cover the copy of the noise dropped in (26), so (6) stays the larger bound. "
        "Also f(theta_s^{t+1}) should be f(theta^{t+1}).",
    ),
)

_PROP1_NOTES = (
    "Eq. (28), the last display of App. B, restates (6) term for term (with f^* for f(theta^*)).",
    "The bound does not depend on the cut layer (no d_c, d_s): this is the paper's point ('invariant to the cut layer').",
    "The factor K (clients) comes from ||sum_k alpha_k x_k||^2 <= K sum_k alpha_k^2 ||x_k||^2; with equal weights "
    "K sum_k alpha_k^2 = 1, so the noise term has no 1/K speed-up.",
    "The left-hand side is eta times the average squared gradient norm (constant step); the rate is not stated.",
)

PROP1 = Result(
    paper=PAPER,
    label="prop1",
    kind="proposition",
    title="SFL-V1 convergence, invariant to the cut layer",
    provenance=Provenance(
        seed=SEED, label="Proposition 1", equation="(6)", section="Sec. 4; proof in App. B, restated as (28)"
    ),
    lhs=r"(1/T) sum_{t=0}^{T-1} eta^t E||grad f(theta(t))||^2, i.e. eta times the average squared gradient norm (constant step)",
    terms=(
        Term(name="initialisation", expr=4 * F / (T * K), meaning="4 (f(theta(0)) - f(theta^*)) / (T tau)"),
        Term(
            name="variance+heterogeneity",
            expr=16 * M * L * K * alpha2 * (sigma2 + eps2) * eta**2,
            meaning="(16 K S tau / T) sum_k alpha_k^2 (sigma_k^2 + eps^2) sum_t (eta^t)^2, with eta^t = eta",
        ),
    ),
    hypotheses=(
        *_prop1_branches("Proposition 1"),
        *_PROP1_PROOF_CONDITIONS,
        _ALPHA_DOMAIN,
    ),
    assumptions=(*ASSUMPTIONS, LIPSCHITZ_STOCHASTIC_GRADIENTS),
    statement=r"\frac1T\sum_{t=0}^{T-1}\eta^t\mathbb E\left[\|\nabla f(\theta(t))\|^2\right]\le\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*))\right)+\frac{16KS\tau}{T}\sum_{k=1}^K\alpha_k^2\left(\sigma_k^2+\epsilon^2\right)\sum_{t=0}^{T-1}\left(\eta^t\right)^2",
    step="eta",
    defaults=DEFAULTS,
    discrepancies=_PROP1_DISC,
    notes=_PROP1_NOTES,
    notation=NOTATION,
)

PROP1_PROOF = Result(
    paper=PAPER,
    label="prop1",
    kind="proposition",
    title="SFL-V1: one-round descent inequality derived by the proof, eq. (26)",
    provenance=Provenance(seed=SEED, label="Proposition 1, proof", equation="(26)", section="App. B.4"),
    lhs="one-round change E[f(theta^{t+1})] - f(theta^t), given theta^t",
    terms=(
        Term(name="descent", expr=-eta * K * g_f / 4, meaning="-(eta^t tau / 4) ||grad f(theta^t)||^2"),
        Term(
            name="variance+heterogeneity",
            expr=2 * M * L * eta**2 * K**2 * alpha2 * (sigma2 + eps2),
            meaning="2 K S (eta^t)^2 tau^2 sum_k alpha_k^2 (sigma_k^2 + eps^2)",
        ),
    ),
    hypotheses=(
        *_prop1_branches("App. B.4, after (26) ('where we first let ... and then let ...')"),
        *_PROP1_PROOF_CONDITIONS,
        _ALPHA_DOMAIN,
    ),
    assumptions=(*ASSUMPTIONS, LIPSCHITZ_STOCHASTIC_GRADIENTS),
    edition="proof",
    statement=r"\mathbb E[f(\theta^{t+1})]-f(\theta^t)\le-\frac{\eta^t\tau}{4}\|\nabla_\theta f(\theta^t)\|^2+2KS(\eta^t)^2\tau^2\sum_{k=1}^K\alpha_k^2(\sigma_k^2+\epsilon^2)",
    step="eta",
    defaults=DEFAULTS,
    discrepancies=_PROP1_DISC,
    notes=(
        "The second branch is printed in the proof as 1/(8 S K (tau^2/tau) sum alpha_k^2), equal to the statement's.",
        "Summing (26) over t = 0..T-1 and dividing by T tau/4 gives 4F/(T tau) + 8 K S tau sum alpha_k^2 "
        "(sigma_k^2 + eps^2) eta^2 for the left-hand side of (6): half the printed noise term (see the (27) discrepancy).",
    ),
    notation=NOTATION,
)

# ---------------------------------------------------------------------------------------------------
# Lemma 1, eq. (7)
LEM1 = Result(
    paper=PAPER,
    label="lem1",
    kind="lemma",
    title="Local model drift over tau local iterations (any cut layer)",
    provenance=Provenance(seed=SEED, label="Lemma 1", equation="(7)", section="App. B.1; proof ends at (10)"),
    lhs="sum_{i=0}^{tau-1} E||theta_k^{t,i} - theta^t||^2 for one client k in round t",
    terms=(
        Term(name="variance", expr=2 * K**2 * 8 * K * eta**2 * sigma2, meaning="2 tau^2 * 8 tau (eta^t)^2 sigma_k^2"),
        Term(name="heterogeneity", expr=2 * K**2 * 8 * K * eta**2 * eps2, meaning="2 tau^2 * 8 tau (eta^t)^2 eps^2"),
        Term(
            name="gradient",
            expr=2 * K**2 * 8 * K * eta**2 * g_f,
            meaning="2 tau^2 * 8 tau (eta^t)^2 ||grad f(theta^t)||^2",
        ),
    ),
    hypotheses=(
        _step(
            "eta<=1/(sqrt(8) S tau)",
            eta,
            ONE / (sp.sqrt(8) * L * K),
            r"\eta^t\le\frac{1}{\sqrt8S\tau}",
            where="Lemma 1; used in (8) to bound 1 + 1/tau + 8 tau (eta^t)^2 S^2 by 1 + 2/tau",
            group="lemma 1",
        ),
    ),
    assumptions=(SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, BOUNDED_HETEROGENEITY),
    statement=r"\sum_{i=0}^{\tau-1}\mathbb E\left[\|\theta_k^{t,i}-\theta^t\|^2\right]\le2\tau^2\left(8\tau(\eta^t)^2\sigma_k^2+8\tau(\eta^t)^2\epsilon^2+8\tau(\eta^t)^2\|\nabla_\theta f(\theta^t)\|^2\right)",
    step="eta",
    defaults=(Default(name="K", expr=_TAU_DEF, rule="TODO(rule)"),),
    discrepancies=(
        Discrepancy(
            where="Lemma 1 proof, (10), first relation",
            printed=r"\sum_{i=0}^{\tau-1}\mathbb E\|\theta_k^{t,i}-\theta^t\|^2=\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            expected=r"\le\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            note="(9) is an inequality, so its unrolled sum is too. The next step, sum_i sum_{j<i} C^j <= 2 tau^2, holds: "
            "it equals tau^2 (C^tau - 3)/4 <= tau^2 (e^2 - 3)/4 < 1.1 tau^2.",
        ),
        _PROP1_DISC[3],
    ),
    notes=(
        "sigma2 is client k's sigma_k^2; gradnorm2_f is ||grad f(theta^t)||^2 at the start of round t.",
        "Used by the proof of Proposition 1 block by block (App. B.2, (19); App. B.3), see the block-wise discrepancy there.",
    ),
    notation=NOTATION,
)

# ---------------------------------------------------------------------------------------------------
# Lemma 2, eq. (11)
LEM2 = Result(
    paper=PAPER,
    label="lem2",
    kind="lemma",
    title="Drift of the stochastic gradients over tau local iterations (any cut layer)",
    provenance=Provenance(seed=SEED, label="Lemma 2", equation="(11)", section="App. B.1; proof ends at (17)"),
    lhs="sum_{i=0}^{tau-1} E||g_k^{t,i} - g_k^t||^2 for one client k in round t",
    terms=(
        Term(
            name="gradient",
            expr=8 * K**3 * eta**2 * L**2 * g_k,
            meaning="8 tau^3 (eta^t)^2 S^2 ||grad F_k(theta^t)||^2",
        ),
        Term(name="variance", expr=8 * K**3 * eta**2 * L**2 * sigma2, meaning="8 tau^3 (eta^t)^2 S^2 sigma_k^2"),
    ),
    hypotheses=(
        _step(
            "eta<=1/(2 S tau)",
            eta,
            ONE / (2 * L * K),
            r"\eta^t\le\frac{1}{2S\tau}",
            where="Lemma 2",
            group="lemma 2",
        ),
        _step(
            "(12): 2(1+tau)(eta S)^2 <= 1/tau",
            eta,
            ONE / (L * sp.sqrt(2 * K * (1 + K))),
            r"2(1+\tau)(\eta^t)^2S^2\le\frac1\tau",
            source="implicit",
            where="App. B.1, (12), last '<=': (1 + 1/tau) + 2(1+tau)(eta^t)^2 S^2 <= 1 + 2/tau",
            group="",
            note="what the step needs; implied by eta <= 1/(2 S tau) for every tau >= 1",
        ),
    ),
    assumptions=(SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, LIPSCHITZ_STOCHASTIC_GRADIENTS),
    statement=r"\sum_{i=0}^{\tau-1}\mathbb E\left[\|g_k^{t,i}-g_k^t\|^2\right]\le8\tau^3(\eta^t)^2S^2\left(\|\nabla_\theta F_k(\theta^t)\|^2+\sigma_k^2\right)",
    step="eta",
    defaults=(Default(name="K", expr=_TAU_DEF, rule="TODO(rule)"),),
    discrepancies=(
        Discrepancy(
            where="Lemma 2 proof, (12), third inequality",
            printed=r"\mathbb E\|g_k^{t,i}-g_k^{t,i-1}\|^2\le S^2\mathbb E\|\theta_k^{t,i}-\theta_k^{t,i-1}\|^2",
            expected=r"\le3S^2\mathbb E\|\theta_k^{t,i}-\theta_k^{t,i-1}\|^2+6\sigma_k^2\ \text{(from Assumptions 2-3)}",
            note="g^{t,i} and g^{t,i-1} are stochastic gradients on different mini-batches; Assumptions 2-3 bound only the "
            "expected gradient's change, so the noise of both does not cancel. The step needs S-Lipschitz stochastic "
            "gradients (recorded as the implicit assumption 'lipschitz_stochastic_gradients_implicit').",
        ),
        Discrepancy(
            where="Lemma 2 proof, unrolled sum after (16)",
            printed=r"\sum_{i=0}^{\tau-1}\mathbb E\|g_k^{t,i}-g_k^t\|^2=\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            expected=r"\le\sum_{i=0}^{\tau-1}B\sum_{j=0}^{i-1}C^j",
            note="(16) is an inequality; the step 4 tau^2 (1+tau) <= 8 tau^3 holds for tau >= 1.",
        ),
        Discrepancy(
            where="Lemma 2 statement",
            printed=r"\text{Under Assumption 2-4}",
            expected=r"\text{Assumptions 2-3}",
            note="Assumption 4 (heterogeneity) is not used: the bound has no eps^2. Harmless.",
        ),
        _PROP1_DISC[3],
    ),
    notes=("sigma2 is client k's sigma_k^2; gradnorm2_Fk is ||grad F_k(theta^t)||^2 at the start of round t.",),
    notation=NOTATION,
)

# ---------------------------------------------------------------------------------------------------
# tau := ceil(E D_k / B_k), printed under Proposition 1
TAU_DEF = Result(
    paper=PAPER,
    label="tau_def",
    kind="model",
    title="Number of model updates per round",
    provenance=Provenance(
        seed=SEED, label="Proposition 1 (definition of tau)", equation=None, section="Sec. 4, below (6)"
    ),
    lhs="tau, the number of local model updates in one round (canonical K)",
    terms=(Term(name="updates per round", expr=_TAU_DEF, meaning="ceil(E D_k / B_k)"),),
    statement=r"\tau\triangleq\left\lceil\frac{ED_k}{B_k}\right\rceil",
    discrepancies=(_PROP1_DISC[1],),
    notes=(
        "Proposition 1, Lemma 1 and Lemma 2 fill K from this formula when E_epochs, D_k and batch are given instead of K.",
    ),
    notation=NOTATION,
)

# ---------------------------------------------------------------------------------------------------
# SFL-V2: no result
SFL_V2 = Result(
    paper=PAPER,
    label="sfl_v2",
    kind="model",
    title="SFL-V2 (shared server-side model): no convergence result in this paper",
    provenance=Provenance(
        seed=SEED,
        label="Sec. 4, paragraph after Proposition 1",
        equation=None,
        section="Sec. 4; also Sec. 6.1 and Sec. 7",
    ),
    lhs="nothing: the paper bounds no quantity for SFL-V2",
    terms=(),
    statement="",
    rate=None,
    explicit=False,
    notes=(
        "Sec. 4, after Proposition 1: 'Note that the convergence proof of SFL-V2 would require a significantly "
        "different approach, and is left to future work.'",
        "Sec. 6.1: 'we lack a theoretical framework explaining why SFL-V2's architecture provides advantages at certain "
        "cut layer selections ... we haven't established theoretical guarantees for the advantage of SFL-V2 over FedAvg.'",
        "Sec. 7 lists 'developing a theoretical framework explaining SFL-V2's improved performance under non-IID "
        "conditions' as future work. The paper's SFL-V2 claims (cut-layer dependence, beating FedAvg) are empirical "
        "(Tables 3-4, Sec. 5.2-5.3).",
        "Appendix B proves Proposition 1 (SFL-V1) only; Algorithm 2 (App. A.3) describes SFL-V2 without analysis.",
    ),
)

RESULTS: tuple[Result, ...] = (PROP1, PROP1_PROOF, LEM1, LEM2, TAU_DEF, SFL_V2)
