r"""What the results of the cut-layer paper share: symbols, notation, assumptions, defaults, the step-size
branches and proof conditions of Proposition 1, and the discrepancies several results record.

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024). Seed ``shared/seeds/003_60e24e21677c19f3.txt``.

Paper -> canonical: smoothness :math:`S` -> ``L``; clients :math:`K` -> ``M``; local iterations per round
:math:`\tau` -> ``K``; mini-batch :math:`B_k` -> ``batch``; step :math:`\eta^t` -> ``eta``.
"""

from __future__ import annotations

import sympy as sp

from ... import variants as var
from ...assumptions import BOUNDED_HETEROGENEITY, Assumption, Pick
from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Provenance, step_branch
from ...vocabulary import Param, symbols

KEY = "cut_layer"
SEED = "003_60e24e21677c19f3.txt"
# the seed prints authors and title only; the arXiv id and year are those of researchtrend.ai/papers/2412.15536
# and sciencestack.ai/paper/2412.15536 (arXiv, 20 December 2024)
REFERENCE = (
    'Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated Learning", '
    "arXiv:2412.15536 (2024)"
)


def provenance(*, label: str, equation: str | None = None, section: str = "") -> Provenance:
    """Where a result of this paper is printed, with the seed and the full reference filled in."""
    return Provenance(seed=SEED, label=label, equation=equation, section=section, reference=REFERENCE)


# the paper's own names, added to the vocabulary by the registry (no registration at import)
PARAMS: tuple[Param, ...] = (
    Param("sum_alpha2", r"\sum_k\alpha_k^2", "sum over clients of the squared aggregation weights (1/M for equal weights)", "fraction", dimension="1"),
)  # fmt: skip

L, F, T, M, K, eta, sigma2, eps2, batch = symbols("L F T M K eta sigma2 eps2 batch")
alpha2, g_f, g_k, E_ep, D_k = symbols("sum_alpha2 gradnorm2_f gradnorm2_Fk E_epochs D_k")
gap_t, gap_next = symbols("gap_round gap_next")  # (27): f(theta^t) - E f(theta^{t+1}) = gap_t - gap_next
ONE = sp.Integer(1)

NOTATION = {
    "sum_alpha2": r"\sum_{k=1}^K\alpha_k^2",
    "gradnorm2_f": r"\|\nabla_\theta f(\theta^t)\|^2",
    "gradnorm2_Fk": r"\|\nabla_\theta F_k(\theta^t)\|^2",
    "E_epochs": "E",
    "D_k": "D_k",
}

# ---------------------------------------------------------------------------------------------------
# Defaults (two rules, two targets: their order does not matter)
TAU_EXPR = sp.ceiling(E_ep * D_k / batch)  # tau := ceil(E D_k / B_k), printed under Proposition 1
EQUAL_WEIGHTS = Default(
    name="sum_alpha2",
    expr=ONE / M,
    rule="equal dataset sizes: alpha_k = D_k / sum_k' D_k' (Sec. 3, after (1)) = 1/K, so sum_k alpha_k^2 = 1/K "
    "(canonical 1/M)",
)
TAU_FROM_EPOCHS = Default(
    name="K",
    expr=TAU_EXPR,
    rule="the definition tau := ceil(E D_k / B_k) printed under Proposition 1 (Sec. 4, below (6)); the paper's tau "
    "is the canonical K",
)
DEFAULTS = (EQUAL_WEIGHTS, TAU_FROM_EPOCHS)

# ---------------------------------------------------------------------------------------------------
# Assumptions 1-4 (Sec. 4). Assumption 4 is the shared BOUNDED_HETEROGENEITY; 2 and 3 are variants.
NONCONVEX = Assumption(
    key="nonconvex_cut_layer", name="non-convex local losses (Assumption 1)",
    statement=r"\text{each } F_k \text{ is non-convex}", introduces=(),
    note="states that no convexity is assumed; it introduces no constant",
)  # fmt: skip
SMOOTHNESS_UPPER_QUADRATIC = Assumption(
    key="smoothness_upper_quadratic_per_client", introduces=("L",),
    name="S-smoothness of every local loss, as a quadratic upper bound (Assumption 2)",
    statement=r"F_k(\theta)\le F_k(\phi)+\langle\nabla F_k(\phi),\theta-\phi\rangle+\frac S2\|\theta-\phi\|^2\ \forall\theta,\phi",
    note="eq. (2) is one-sided; the proofs use the Lipschitz-gradient form ||grad F_k(x) - grad F_k(y)|| <= S||x - y||, "
    "which (2) alone does not imply for non-convex F_k (see the discrepancies)",
    picks=(Pick(name="L", keys=(var.key("L", var.CLIENTS), "L"), why="max over clients of the top eigenvalue of F_k (else that of f)"),),
)  # fmt: skip
BOUNDED_VARIANCE_PER_CLIENT = Assumption(
    key="bounded_variance_per_client", name="unbiased stochastic gradients with per-client variance sigma_k^2 (Assumption 3)",
    statement=r"\mathbb E_{B_k}[g_k(\theta,B_k)]=\nabla F_k(\theta),\ \mathbb E_{B_k}\|g_k(\theta,B_k)-\nabla F_k(\theta)\|^2\le\sigma_k^2",
    introduces=("sigma2",),
    picks=(Pick(name="sigma2", keys=(var.key("sigma2", var.BATCH), "sigma2"), why="a mini-batch gradient's variance (measure with batch=)"),),
    note="sigma_k^2 is the variance of a mini-batch gradient (batch B_k), per client; in Proposition 1 sigma2 is "
    "sum_k alpha_k^2 sigma_k^2 / sum_k alpha_k^2",
)  # fmt: skip
LIPSCHITZ_STOCHASTIC_GRADIENTS = Assumption(
    key="lipschitz_stochastic_gradients_implicit",
    name="S-Lipschitz stochastic gradients across mini-batches (used by Lemma 2's proof, never assumed)",
    statement=r"\|g_k^{t,i}-g_k^{t,i-1}\|\le S\|\theta_k^{t,i}-\theta_k^{t,i-1}\|", introduces=("L",),
    picks=(Pick(name="L", keys=("L",), why="top Hessian eigenvalue of f (a lower bound)"),),
    note="implicit: (12) bounds the difference of two stochastic gradients on different mini-batches by S times the "
    "parameter difference; Assumptions 2-3 do not give this (the two noises do not cancel)",
)  # fmt: skip
ASSUMPTIONS = (NONCONVEX, SMOOTHNESS_UPPER_QUADRATIC, BOUNDED_VARIANCE_PER_CLIENT, BOUNDED_HETEROGENEITY)
PROP1_ASSUMPTIONS = (*ASSUMPTIONS, LIPSCHITZ_STOCHASTIC_GRADIENTS)  # Proposition 1 rests on Lemma 2's proof too

# ---------------------------------------------------------------------------------------------------
# Proposition 1's step-size condition, eta^t <= min{1/(16 S tau), 1/(8 S K tau sum alpha_k^2)}
STEP_GROUP = "eta<=min{...}"
WHERE_26 = "App. B.4, after (26) ('where we first let ... and then let ...')"


def prop1_branches(where: str) -> tuple[Hypothesis, ...]:
    """The two branches of Proposition 1's min{...}, printed in the statement and again after (26)."""
    return (
        step_branch("eta<=1/(16 S tau)", eta, ONE / (16 * L * K), r"\eta^t\le\frac{1}{16S\tau}", where=where, group=STEP_GROUP),
        step_branch(
            "eta<=1/(8 S K tau sum alpha_k^2)", eta, ONE / (8 * L * M * K * alpha2),
            r"\eta^t\le\frac{1}{8SK\tau\sum_{k=1}^K\alpha_k^2}", where=where, group=STEP_GROUP,
        ),
    )  # fmt: skip


# conditions of the proof of Proposition 1: the lemmas' step sizes (printed in App. B.2-B.3) and two steps that
# need more than the printed branches (printed nowhere)
PROOF_CONDITIONS = (
    step_branch(
        "Lemma 1: eta<=1/(sqrt(8) S tau)", eta, ONE / (sp.sqrt(8) * L * K), r"\eta^t\le\frac{1}{\sqrt8S\tau}",
        source="proof", where="App. B.2, before (19) ('By Lemma 1 with ...')", group="lemmas",
        note="implied by eta <= 1/(16 S tau)",
    ),
    step_branch(
        "Lemma 2: eta<=1/(2 S tau)", eta, ONE / (2 * L * K), r"\eta^t\le\frac{1}{2S\tau}", source="proof",
        where="App. B.2, before (22), and App. B.3, before (25)", group="lemmas", note="implied by eta <= 1/(16 S tau)",
    ),
    step_branch(
        "(26) noise and coefficient: 8 eta S tau + 8 (eta S tau)^2 <= 1", 8 * eta * L * K + 8 * eta**2 * L**2 * K**2,
        ONE, r"8\eta^tS\tau+8(\eta^t)^2S^2\tau^2\le1", source="implicit",
        where="App. B.4, (26): bounding S K eta^2 tau^2 (1 + 8 eta S tau + 8 eta^2 S^2 tau^2) sum alpha_k^2 by 2 S K eta^2 tau^2 sum alpha_k^2",
        note="what the step needs (for the gradient coefficient and the eps^2 term); implied by eta <= 1/(16 S tau), "
        "which gives 1/2 + 1/32 <= 1",
    ),
    step_branch(
        "(21) with ||a+b||^2<=2||a||^2+2||b||^2: eta<=4/(41 S K tau sum alpha_k^2)", eta, 4 / (41 * L * M * K * alpha2),
        r"\eta^t\le\frac{4}{41SK\tau\sum_{k=1}^K\alpha_k^2}", source="implicit",
        where="App. B.2, (21) (fourth '<=') and App. B.4, (26)",
        note="(21) drops the factor 2 of ||a+b||^2 <= 2||a||^2 + 2||b||^2 (also in (25)); with it, the coefficient of "
        "||grad f||^2 in (26) is -eta tau/2 + S K eta^2 tau^2 sum alpha^2 (2 + 8 eta S tau + 16 eta^2 S^2 tau^2). Bounding "
        "the bracket by 2 + 1/2 + 1/16 = 41/16 with eta S tau <= 1/16, as the proof does for its own bracket, it is "
        "<= -eta tau/4 when eta <= 4/(41 S K tau sum alpha^2), stricter than the printed 1/(8 S K tau sum alpha^2). "
        "Derived with the proof's other steps as printed.",
    ),
)  # fmt: skip

ALPHA_DOMAIN = Hypothesis(
    name="sum_alpha2 >= 1/M (paper: sum alpha_k^2 >= 1/K)", lhs=M * alpha2, rel=">=", rhs=ONE, kind="domain",
    printed=r"\sum_{k=1}^K\alpha_k^2\ge\frac1K", source="implicit",
    where="Sec. 3 after (1) and Algorithm 1, line 34: alpha_k = D_k / sum_k' D_k', so sum_k alpha_k = 1",
    note="weights that sum to 1 have sum alpha_k^2 >= 1/K (Cauchy-Schwarz); a smaller value describes no weighting",
)  # fmt: skip

# the per-round editions (26) and (27) are derived under the branches as the proof prints them after (26)
ROUND_HYPOTHESES = (*prop1_branches(WHERE_26), *PROOF_CONDITIONS, ALPHA_DOMAIN)

# ---------------------------------------------------------------------------------------------------
# Discrepancies recorded by more than one result (Proposition 1's editions, the lemmas, tau_def)
D_PARENTHESIS = Discrepancy(where="Proposition 1, eq. (6), first term",
    printed=r"\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*))\right)", expected=r"\frac{4}{T\tau}\left(f(\theta(0))-f(\theta^*)\right)",
    note="unbalanced parenthesis (typo); the discussion below repeats it as (f(theta(0)))-f(theta^*)).")  # fmt: skip
D_ONE_TAU = Discrepancy(where="Proposition 1, definition of tau", printed=r"\tau\triangleq\lceil ED_k/B_k\rceil",
    expected=r"\text{one }\tau\text{ for all clients: }\lceil ED_k/B_k\rceil\text{ equal across }k",
    note="tau depends on k through D_k and B_k, but the bound and the proof use a single tau for every client; "
    "implicitly all clients make the same number of updates per round. Encoded as cut_layer/tau_def.")  # fmt: skip
D_ALGORITHM = Discrepancy(
    where="Algorithm 1 (App. A.2) and Sec. 3 vs the analysed algorithm",
    printed=r"\text{one mini-batch, one server update, then }E\text{ client updates reusing }\nabla a_k(t)",
    expected=r"\tau=\lceil ED_k/B_k\rceil\text{ local SGD steps on both sides per round (FedAvg)}",
    note="the algorithm as printed takes one server-side step and E client-side steps with the same cut-layer gradient "
    "per round; the proof (App. B) analyses tau local SGD iterations of the whole model per round.",
)  # fmt: skip
D_SMOOTHNESS = Discrepancy(where="Assumption 2, eq. (2), vs its use in Lemma 1, (18) and (21)",
    printed=r"F_k(\theta)\le F_k(\phi)+\langle\nabla F_k(\phi),\theta-\phi\rangle+\frac S2\|\theta-\phi\|^2",
    expected=r"\|\nabla F_k(\theta)-\nabla F_k(\phi)\|\le S\|\theta-\phi\|", note="the one-sided quadratic bound does "
    "not imply a Lipschitz gradient for non-convex F_k; the proofs use the latter.")  # fmt: skip
D_INDEX = Discrepancy(where="Assumption 3, eqs. (3)-(4)", printed=r"\mathbb E_{B_k\sim\mathcal D_n}",
                      expected=r"\mathbb E_{B_k\sim\mathcal D_k}", note="index typo (n for k).")  # fmt: skip
D_BLOCKWISE = Discrepancy(
    where="App. B.2, (18)-(19), and App. B.3, (24): block-wise smoothness",
    printed=r"\|\nabla_{\theta_s}F_k(\{\theta_{c,k}^{t,i},\theta_{s,k}^{t,i}\})-\nabla_{\theta_s}F_k(\theta^t)\|^2\le S^2\|\theta_{s,k}^{t,i}-\theta_s^t\|^2"
    r";\ (19)\text{ with }\|\nabla_{\theta_s}f(\theta_s^t)\|^2",
    expected=r"S^2\|\theta_k^{t,i}-\theta^t\|^2\ \text{(both blocks)};\ \text{Lemma 1 gives }\|\nabla_\theta f(\theta^t)\|^2",
    note="the server-side gradient depends on the client block too, and Lemma 1 bounds the whole model's drift by the full "
    "gradient norm; applied block by block the proof later sums ||grad_c f||^2 + ||grad_s f||^2 = ||grad f||^2, "
    "which the lemma as stated does not license.",
)  # fmt: skip
D_NOTATION_20 = Discrepancy(where="App. B.2, (20)", printed=r"\tilde\tau,\ N,\ a_n,\ \sigma_n", expected=r"\tau,\ K,\ \alpha_k,\ \sigma_k",
    note="(20) switches to the notation of Han et al. (2024b); the next display returns to tau, K, alpha_k.")  # fmt: skip
D_CROSS_TERM = Discrepancy(where="App. B.2, (21), fourth inequality",
    printed=r"\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t+g_{s,k}^t\|^2\le\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t\|^2+\mathbb E\|g_{s,k}^t\|^2",
    expected=r"\le2\mathbb E\|g_{s,k}^{t,i}-g_{s,k}^t\|^2+2\mathbb E\|g_{s,k}^t\|^2",
    note="the cross term is not zero; with the factor 2 the step-size condition of (26) becomes the implicit hypothesis "
    "'(21) with ||a+b||^2<=...', stricter than the printed 1/(8 S K tau sum alpha_k^2) (same in (25)).",
)  # fmt: skip
D_SIGNS = Discrepancy(
    where="App. B.2-B.4, signs of relations",
    printed=r"\mathbb E\langle\nabla_{\theta_s}f,\theta_s^{t+1}-\theta_s^t\rangle\le\dots;\ \langle f(\theta_s^t),\eta^t\tau\nabla_{\theta_s}f\rangle;\ \frac S2\mathbb E\|\theta_s^{t+1}-\theta_s^t\|^2=\frac{SK(\eta^t)^2}{2}\sum_k\dots",
    expected=r"=\dots;\ \langle\nabla_{\theta_s}f(\theta^t),\dots\rangle;\ \le\frac{SK(\eta^t)^2}{2}\sum_k\dots",
    note="typos: identities printed as '<=', a missing gradient, and Cauchy-Schwarz over clients printed as '='.")  # fmt: skip
D_SUPERPOSITION = Discrepancy(where="App. B.4, (26): superposition of server and client",
    printed=r"8K\eta^tS^2\tau^3\sum_k\alpha_k^2(\eta^t)^2(\sigma_k^2+\epsilon^2)+\frac12SK(\eta^t)^2\tau(\tau+8\tau^3(\eta^t)^2S^2)\sum_k\alpha_k^2(2\epsilon^2+\sigma_k^2)",
    expected=r"\text{twice that: (20) and (24), and (23) and (25), each carry the full }\sigma_k^2,\epsilon^2",
    note="adding the server part ((20), (23)) and the client part ((24), (25)) keeps one copy of the noise terms; as "
    "printed each part has the whole sigma_k^2 and eps^2, so the sum has two copies (one copy would need sigma_k^2 "
    "and eps^2 split between the blocks).")  # fmt: skip
D_REARRANGE_27 = Discrepancy(where="App. B.4, (27) vs (26)",
    printed=r"\eta^t\|\nabla f(\theta^t)\|^2\le\frac4\tau(f(\theta^t)-\mathbb E[f(\theta^{t+1}_s)])+8KS(\eta^t)^2\frac{2\tau^2}{\tau}\sum_k\alpha_k^2(\sigma_k^2+\epsilon^2)",
    expected=r"\frac4\tau(f(\theta^t)-\mathbb E[f(\theta^{t+1})])+8KS(\eta^t)^2\tau\sum_k\alpha_k^2(\sigma_k^2+\epsilon^2)",
    note="rearranging (26) (multiply by 4/tau) gives 8 K S eta^2 tau, not 16; (28) and the statement (6) inherit the 16. "
    "The extra factor 2 happens to cover the copy of the noise dropped in (26), so (6) stays the larger bound. "
    "Also f(theta_s^{t+1}) should be f(theta^{t+1}).",
)  # fmt: skip
PROP1_DISCREPANCIES = (
    D_PARENTHESIS, D_ONE_TAU, D_ALGORITHM, D_SMOOTHNESS, D_INDEX, D_BLOCKWISE, D_NOTATION_20, D_CROSS_TERM, D_SIGNS,
    D_SUPERPOSITION, D_REARRANGE_27,
)  # fmt: skip
