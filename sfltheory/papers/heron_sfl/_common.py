r"""HERON-SFL: what several results share -- the paper's reference and names, its symbols and notation, its own
assumptions, and the hypotheses, terms and discrepancies more than one result uses (each declared once).

Notation (paper -> canonical): N -> ``M``, h -> ``K``, mu -> ``lam``, B (:math:`= |\xi_i|`) -> ``batch``, sigma_c^2 (and
the sigma^2 of Assumption 3 / Lemma 5) -> ``sigma_c2``, delta (Assumption 4) -> ``delta``. The paper's ``d`` is
never defined; the estimator (2) perturbs theta_l = {theta_c, theta_a} and Assumption 5 writes I_{d_l}, so ``d``
is encoded as ``d_c + d_aux``.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ... import variants as var
from ...assumptions import BOUNDED_GRADIENTS_PER_PART, EFFECTIVE_RANK, SMOOTHNESS_PER_CLIENT, Assumption, Pick
from ...result import Discrepancy, Provenance, Term, step_branch
from ...vocabulary import Param, symbols

KEY = "heron_sfl"
SEED = "001_e8dcbf2a405221d7.txt"
TITLE = "HERON-SFL: zeroth-order clients, first-order server, auxiliary nets"
REFERENCE = (
    'Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and First-Order '
    'Split Federated Learning", arXiv:2601.09076v1, 14 January 2026 (University of Virginia; the seed prints no '
    "venue, year or arXiv id: id and date from arxiv.org/html/2601.09076v1, whose abstract is the seed's)"
)


# provenance(label=..., equation=..., section=...): where a result is printed, with the seed and the full reference
provenance = partial(Provenance, seed=SEED, reference=REFERENCE)


# the paper's own names, added to the vocabulary by the registry (no registration at import)
PARAMS: tuple[Param, ...] = (
    Param("d_aux", r"|\theta_a|", "number of auxiliary-network parameters (HERON-SFL client head)", "count0",
          "dimension", dimension="1"),
    Param("flops_c", "F_c", "FLOPs of one forward pass of the client-side model (HERON-SFL Table I)", "positive",
          "constant", dimension="1"),
    Param("flops_a", "F_a", "FLOPs of one forward pass of the auxiliary model (HERON-SFL Table I)", "nonneg",
          "constant", dimension="1"),
    Param("n_p", "n_p", "forward evaluations per ZO update (HERON-SFL Table I; 2 for the two-point estimator)",
          "count", "zo", dimension="1"),
    Param("Delta_drift", r"\Delta", "drift limit in the error floor of HERON-SFL Theorem 2 (undefined in the paper)",
          "nonneg", "constant", dimension="1"),
    Param("drift_round", r"\sum_i d_{c,i}^t", "client-output drift summed over clients at one round (HERON-SFL)",
          "nonneg", "derived", dimension="1"),
    Param("gc2_round", r"\|\nabla f_c(\theta_c^t)\|^2", "squared client-side gradient norm at one round (HERON-SFL)",
          "nonneg", "derived", dimension="loss**2/param**2"),
    Param("gs2_round", r"\|\nabla f_s(\theta_s^t)\|^2", "squared server-side gradient norm at one round (HERON-SFL)",
          "nonneg", "derived", dimension="loss**2/param**2"),
    Param("dev2_local", r"\mathbb E_{t,m-1}\|\theta_c^t-\theta_{c,i}^{t,m}\|^2",
          "squared distance of a client's local model at step m from the round's start (HERON-SFL Lemma 2)",
          "nonneg", "derived", dimension="param**2"),
)  # fmt: skip

L, F, T, M, K, lam, batch = symbols("L F T M K lam batch")
eta, eta_c, eta_s = symbols("eta eta_c eta_s")
G_c2, G_s2, sigma_c2, kappa, delta, d_c = symbols("G_c2 G_s2 sigma_c2 kappa delta d_c")
d_aux, q_smash, flops_c, flops_a, n_p, Delta_drift = symbols("d_aux q_smash flops_c flops_a n_p Delta_drift")
gap_round, gap_next, drift_round, gc2_round, gs2_round = symbols("gap_round gap_next drift_round gc2_round gs2_round")
dev2_local, eps_target = symbols("dev2_local eps_target")
# f(theta_g^t) - E f(theta_g^{t+1}) of (48) / (60); may be negative.
F_ROUND = gap_round - gap_next

ONE = sp.Integer(1)
R = sp.Rational

# The paper's d: dimension of the ZO-perturbed local model theta_l = {theta_c, theta_a}.
D = d_c + d_aux
# rho of Lemma 5: 1 + (d kappa + d - 2)/(d + 2).
RHO = 1 + (D * kappa + D - 2) / (D + 2)
# alpha of Lemma 4's proof (42): eta_c h^3 L^2 + 6 eta_c^2 h^3 L^3 / N.
ALPHA = eta_c * K**3 * L**2 + 6 * eta_c**2 * K**3 * L**3 / M
# eta_min of (48) and (60).
ETA_MIN1 = sp.Min(eta_c * K / 4, eta_s * (2 * M - 1) / 4)
ETA_MIN2 = sp.Min(eta_c / 4, eta_s * (2 * M - 1) / 4)

LHS = (
    "min over rounds of E||grad f(theta_g^t)||^2, printed min_{t in [T]} E||grad f(theta_g^t)||^2 "
    "(the proof bounds the average over t = 1..T)"
)
LHS_ROUND = "||grad f(theta_g^t)||^2 at one round t (eq. 48 / 60: before taking expectations and summing)"
D_NOTE = "d = d_c + d_aux (the paper's d, never defined: the ZO dimension of theta_l = {theta_c, theta_a})"
T2_NOTATION = {"sigma_c2": r"\sigma^2"}


# ---------------------------------------------------------------------------------------------------
# Assumptions of the paper (Assumptions 1, 2 and 5 are the shared SMOOTHNESS_PER_CLIENT,
# BOUNDED_GRADIENTS_PER_PART and EFFECTIVE_RANK)
ZO_VARIANCE = Assumption(
    key="zo_estimator_variance", name="bounded variance of the client ZO estimator (HERON-SFL Assumption 3)",
    statement=r"\mathbb E\|\widehat g_{c,i}^{t,m}-\nabla_{\theta_c}f_i(\theta_c,\theta_s)\|^2\le\sigma^2",
    introduces=("sigma_c2",),
    note="printed as sigma^2; Lemmas 2-4 call it sigma_c^2, and (23) also uses it to bound ||grad f_{c,i} - grad f_c||^2",
    picks=(Pick(name="sigma_c2", keys=(var.key(var.ZO_MSE, var.CLIENT), var.key(var.ZO_MSE, var.ALL)),
                why="mean squared error of the ZO estimator (measure with lam=)"),),
)  # fmt: skip
OUTPUT_DRIFT = Assumption(
    key="client_output_drift", name="uniformly bounded drift of the client sub-model output (HERON-SFL Assumption 4)",
    statement=r"\frac1T\sum_{t=1}^T\sum_{i=1}^N d_{c,i}^t\le\delta,\ d_{c,i}^t=\int|P_{c,i}^t(z)-P_{c,i}^*(z)|dz",
    introduces=("delta",),
    note="d_{c,i}^t is the L1 distance between the client output distribution at round t and a fixed reference",
    unmeasured="an assumption on the run: the L1 distance between each round's client-output distribution and that "
    "of a reference model x_c^* the paper does not specify; no estimator in verify measures it",
)  # fmt: skip
A_CLIENT = (SMOOTHNESS_PER_CLIENT, BOUNDED_GRADIENTS_PER_PART, ZO_VARIANCE)  # Lemmas 2 and 4: Assumptions 1-3
A_T1 = (*A_CLIENT, OUTPUT_DRIFT)  # Assumptions 1-4
A_T2 = (*A_T1, EFFECTIVE_RANK)  # Assumptions 1-5

# ---------------------------------------------------------------------------------------------------
# Discrepancies shared by several results
DISC_DIM = Discrepancy(
    where="Theorems 1-2, Lemmas 2-5: the dimension d",
    printed="d (never defined)",
    expected=r"d=d_l=|\theta_c|+|\theta_a|",
    note="the estimator (2) perturbs theta_l = {theta_c, theta_a} with the factor d, and Assumption 5 writes I_{d_l}; "
    "Remark 2 calls d 'model size'. Encoded as d_c + d_aux.",
)  # fmt: skip
DISC_SIGMA = Discrepancy(
    where="Assumption 3 vs Lemmas 2-4 and (23)",
    printed=r"\sigma^2\ \text{(Assumption 3)},\ \sigma_c^2\ \text{(Lemmas 2-4)};\ \|\nabla f_{c,i}(\theta_c^t)-\nabla f_c(\theta_c^t)\|^2\le\sigma_c^2\ \text{(23)}",
    expected=r"\sigma^2=\sigma_c^2\ \text{bounds only the estimator variance}",
    note="(23) cites Assumption 3 for a heterogeneity bound (client vs global gradient) that it does not give; the term "
    "vanishes only in the i.i.d. setting of Theorem 1. Both symbols are encoded as sigma_c2.",
)  # fmt: skip
DISC_T1_SERVER = Discrepancy(
    where="eq. (49) C_1' and the rate (14)/(50): server term",
    printed=r"\mathcal C_1'=\mathcal O\big(\frac{LG_s^2}{N}+\dots\big)",
    expected=r"\frac{LN^2\eta_s^2G_s^2}{2\eta}=\frac{8LN^2G_s^2}{(2N-1)^2}\eta\ \ge 2LG_s^2\eta",
    note="at the coupling eta = eta_c h/4 = eta_s(2N-1)/4 the server term of (48) has no 1/N; with "
    "eta = O(sqrt(hNB/(dT))) it is Theta(L G_s^2 sqrt(hNB/(dT))), which grows with h, N and B, so (14) does not follow.",
)  # fmt: skip
DISC_T1_ZO = Discrepancy(
    where="eq. (49)-(50), ZO bias",
    printed=r"C_2\mu^2=\mathcal O\big(\frac{1}{\sqrt{dhNBT}}\big)",
    expected=r"C_2\mu^2=\mathcal O\big(\frac{d^2L^2}{B}(dhNBT)^{-1/2}\big)=\mathcal O\big(\frac{L^2d^{3/2}}{B^{3/2}\sqrt{hNT}}\big)",
    note="with C_2 = O(d^2 L^2/B) and mu = O((dhNBT)^{-1/4}) the bias term "
    "is d/B times sqrt(d/(hNBT)), not O(1/sqrt(dhNBT)).",
)  # fmt: skip
DISC_T1_DRIFT = Discrepancy(
    where="eq. (49) vs (14)/(50): drift floor",
    printed=r"\frac{C_3}{N^2}\ \text{in (49)};\ \text{absent from (14) and (50)}",
    expected=r"\frac{2G_s^2\delta}{N(2N-1)}\ \text{(from (48) at the coupling), constant in }T",
    note="the residual drift term does not vanish as T grows, yet the "
    "rate drops it (Theorem 2 keeps a floor).",
)  # fmt: skip
DISC_T1_45 = Discrepancy(
    where="eq. (45) vs (46)-(48): drift coefficient",
    printed=r"\eta_sG_s^2\sum_{i=1}^Nd_{c,i}^t\ \text{(45)}",
    expected=r"\frac{\eta_sG_s^2}{2N}\sum_{i=1}^Nd_{c,i}^t\ \text{(46)-(48)}",
    note="the server bound (45) and its use in (46) differ by a factor 1/(2N) that no step explains. "
    "heron_sfl/eq45 encodes (45); the Theorem 1 editions encode (48).",
)  # fmt: skip
DISC_T1_SIGMA = Discrepancy(
    where="Lemma 4 proof, (33)-(34) vs (40)",
    printed=r"\eta_chL^2\mu^2\ \text{(40)}",
    expected=r"\eta_ch\sigma^2\ \text{from }\tfrac{\eta_ch}{2}\mathcal C_{1,1},\ \mathcal C_{1,1}\le2\sigma^2+\dots\ \text{(34)}",
    note="(34) bounds C_{1,1} by 2 sigma^2 + ..., so C_1 carries +eta_c h sigma^2; (40) carries eta_c h L^2 mu^2 instead. "
    "After dividing by eta_c h/4 the lost term is a 4 sigma^2 floor missing from (43) and Theorem 1.",
)  # fmt: skip
DISC_L3_SUMS = Discrepancy(
    where="Lemma 3 proof, (28)",
    printed=r"\sum_{\tau=1}^h\tau\le\frac{h(h+1)}{2}\le\frac{h^2}{2},\quad\frac{h(h+1)(2h+1)}{6}\le\frac{h^3}{3}",
    expected=r"\frac{h(h+1)}{2}>\frac{h^2}{2},\quad\frac{h(h+1)(2h+1)}{6}>\frac{h^3}{3}\ (h\ge1)",
    note="both inequalities are false for every h >= 1 (the sums exceed the bounds); (29) also sums tau = 0..h. "
    "The constants 3h^3 eta_c^2 etc. of (24) rest on them.",
)  # fmt: skip
DISC_L4_TYPO = Discrepancy(
    where="Lemma 4 proof, (40)",
    printed=r"(\eta^2L-\frac{\eta_c}{2h})\ \text{and}\ \frac{6\eta_c^2L^3}{N^2}\ \text{after (a)}",
    expected=r"(\eta_c^2L-\frac{\eta_c}{2h})\ \text{and}\ \frac{6\eta_c^2L^3}{N}",
    note="eta for eta_c; the drift coefficient is 6 eta_c^2 L^3/N before (a) and in (41) but /N^2 after (a). "
    "App. A-B2 also says E_t[C] was bounded 'in Lemma 3' (it is Lemma 4).",
)  # fmt: skip
DISC_T1_REMARK = Discrepancy(
    where="Remark 2",
    printed=r"\text{the second term is smaller by }1/\sqrt d",
    expected=r"\sqrt{\frac{1}{dhNBT}}\Big/\sqrt{\frac{d}{hNBT}}=\frac1d",
    note="the ratio of the two O-terms of (14) "
    "is 1/d, not 1/sqrt(d).",
)  # fmt: skip
# Theorem 1's discrepancies after its own "min" (thm1.DISC_T1_MIN), in the order every Theorem 1 edition lists them
T1_DISC_SHARED = (DISC_T1_SERVER, DISC_T1_ZO, DISC_T1_DRIFT, DISC_T1_45, DISC_T1_SIGMA, DISC_L3_SUMS, DISC_L4_TYPO,
                  DISC_T1_REMARK, DISC_SIGMA, DISC_DIM)  # fmt: skip
DISC_T2_H = Discrepancy(
    where="Lemma 5 vs Lemma 4: local steps",
    printed=r"-\frac{\eta_c}{4}\|\nabla f_c(\theta_c^t)\|^2\ \text{(51)}",
    expected=r"-\frac{\eta_ch}{4}\|\nabla f_c(\theta_c^t)\|^2\ \text{(31), with the drift of }h\text{ local steps}",
    note="Lemma 5 (adapted from [26], eq. 69) carries no h and no local drift: Theorem 2 does not depend on the number of "
    "local steps although the algorithm takes h of them per round.",
)  # fmt: skip
DISC_T2_STEP = Discrepancy(
    where="Theorem 2 step-size condition",
    printed=r"\eta_c\le\frac{1}{4L}\Big(1+\frac{d\kappa+d-2}{d+2}\Big)",
    expected=r"\text{(no condition is derived in App. A-C)}",
    note="the bound grows with kappa (a larger effective rank allows a larger step), and nothing in Lemma 5 or (58)-(64) "
    "uses it; Lemma 5's Young step (55)-(57) needs none. Presumably inherited from [26].",
)  # fmt: skip
DISC_T2_GS = Discrepancy(
    where="Lemma 5, (51)-(52): gradient bound in the client-side term",
    printed=r"\frac{\eta_c^2L\rho}{N}(\sigma^2+G_s^2)",
    expected=r"\frac{\eta_c^2L\rho}{N}(\sigma^2+G_c^2)\ \text{(client-side bound, Assumption 2)}",
    note="the client-side contribution uses the server "
    "gradient bound G_s^2; encoded as printed.",
)  # fmt: skip
DISC_T2_REFS = Discrepancy(
    where="App. A-C: cross-references and notation",
    printed=r"\text{'Theorem 4.1' (60); '}\rho\text{ is defined as in Lemma 3' (52); }\delta\text{ as Young's parameter (55)}",
    expected=r"\text{Theorem 1; Lemma 5; a symbol other than Assumption 4's }\delta",
    note="there is no Theorem 4.1; rho is defined in Lemma 5; Lemma 5 reuses delta (Assumption 4) for its free parameter. "
    "Lemma 5 also draws u on the sphere of radius sqrt(d), Definition 1 on the unit sphere.",
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------
# Theorem 1's step-size conditions: the statement's min{...} (30), and what the proof of Lemma 4 and (45) add
G1 = "eta_c<=min{...} (30)"
_W30 = "Theorem 1; Lemma 4, eq. (30); (48)"
H1_STMT = (
    step_branch("eta_c<=1/(3Lh)", eta_c, ONE / (3 * L * K), r"\eta_c\le\frac{1}{3Lh}", where=_W30, group=G1),
    step_branch("eta_c<=2/(NLh^2)", eta_c, 2 / (M * L * K**2), r"\eta_c\le\frac{2}{NLh^2}", where=_W30, group=G1),
    step_branch("eta_c<=N/(72L)", eta_c, M / (72 * L), r"\eta_c\le\frac{N}{72L}", where=_W30, group=G1),
)
H_40A = step_branch(
    "(40)(a) eta_c<=1/(2hL)", eta_c, ONE / (2 * K * L), r"\eta_c\le\frac{1}{2hL}", source="proof",
    where="App. A-B1, proof of Lemma 4, step (a) of (40)",
    note="makes (eta_c^2 L - eta_c/(2h)) E||...||^2 non-positive; implied by eta_c <= 1/(3Lh)",
)  # fmt: skip
H_45A = step_branch(
    "(45)(a) eta_s<=1/(NL)", eta_s, ONE / (M * L), r"\eta_s\le\frac{1}{NL}", source="proof",
    where="App. A-B2, step (a) of (45)",
    note="makes (L eta_s^2/2 - eta_s/(2N)) E||sum grad f_s||^2 non-positive; absent from both theorem statements",
)  # fmt: skip
H_GRAD = step_branch(
    "Lemma 4 (6Lh/N+3alpha)eta_c^2<=eta_c h/4",
    (6 * L * K / M + 3 * ALPHA) * eta_c / (K / 4),
    ONE,
    r"\big(\frac{6Lh}{N}+3\alpha\big)\eta_c^2\le\frac{\eta_ch}{4},\ \alpha=\eta_ch^3L^2+\frac{6\eta_c^2h^3L^3}{N}",
    source="proof",
    where="App. A-B1, proof of Lemma 4, after (42)",
    note="turns the gradient coefficient of (42) into -eta_c h/4; implied by the three branches of (30) (via alpha <= 4hL/N). "
    "Encoded as the ratio (6Lh/N + 3 alpha) eta_c/(h/4) <= 1 (a cubic in eta_c: its roots are checked at the slack, bisection where none passes)",
)
H_ALPHA = step_branch(
    "implicit alpha<=4hL/N",
    ALPHA,
    4 * K * L / M,
    r"\eta_ch^3L^2+\frac{6\eta_c^2h^3L^3}{N}\le\frac{4hL}{N}",
    source="implicit",
    where="App. A-B1, (42) -> (43)",
    note="collecting the alpha-terms of (42) into the coefficients 6 (G_c^2) and 18 (sigma_c^2) of (43) needs "
    "alpha <= 4hL/N; implied by eta_c <= 1/(3Lh) and eta_c <= 2/(NLh^2) (alpha <= 2L h/N + 2L h/(3N))",
)
H1_PROOF = (H_40A, H_45A, H_GRAD, H_ALPHA)

# ---------------------------------------------------------------------------------------------------
# Terms: Phi_c of Lemma 4 (31)/(43) and Phi_c' of Lemma 5 (51)/(59), and the per-round bounds (48)/(60) built on them
PHI_C = (
    Term(
        name="client variance (G_c)",
        expr=eta_c**2 * 6 * K * L * D * G_c2 / (M * batch),
        meaning="eta_c^2 6hLdG_c^2/(NB): ZO second moment",
    ),
    Term(name="client variance (sigma)", expr=eta_c**2 * 18 * K * L * sigma_c2 / M, meaning="eta_c^2 18hL sigma_c^2/N"),
    Term(
        name="ZO bias (d^2)", expr=eta_c * D**2 * L**2 * K * lam**2 / (48 * batch), meaning="eta_c d^2L^2h mu^2/(48B)"
    ),
    Term(name="ZO bias", expr=eta_c * 13 * K * L**2 * lam**2 / 12, meaning="eta_c 13hL^2mu^2/12"),
)
PHI_C2 = (
    Term(name="ZO bias", expr=eta_c * lam**2 * L**2 * (D + 3) ** 3 / 8, meaning="eta_c mu^2 L^2 (d+3)^3/8"),
    Term(name="ZO bias (L^4)", expr=eta_c**2 * L**4 * lam**2 * D**3, meaning="eta_c^2 L^4 mu^2 d^3"),
    Term(
        name="Young term",
        expr=eta_c**3 * L**2 * RHO**2,
        meaning="eta_c^3 L^2 rho^2, rho = 1 + (d kappa + d - 2)/(d + 2)",
    ),
    Term(name="variance", expr=eta_c**2 * L * RHO * (sigma_c2 + G_s2) / M, meaning="eta_c^2 L rho (sigma^2 + G_s^2)/N"),
)


def descent_terms(
    descent: sp.Expr, drift: sp.Expr, *, phi: tuple[Term, ...], eta_min: sp.Expr, eta_min_text: str, phi_text: str,
    drift_text: str = "",
) -> tuple[Term, ...]:  # fmt: skip
    """The right-hand side of (48) / (60) divided out: (descent + Phi + drift + server variance)/eta_min, term by
    term. ``descent`` is f(theta_g^t) - E f(theta_g^{t+1}) per round, or F/T once summed; ``drift`` likewise."""
    return (
        Term(name="initialisation", expr=descent / eta_min, meaning=f"descent / eta_min, eta_min = {eta_min_text}"),
        *(Term(name=t.name, expr=t.expr / eta_min, meaning=f"{t.meaning}, over eta_min ({phi_text})") for t in phi),
        Term(
            name="drift",
            expr=eta_s * G_s2 * drift / (2 * M * eta_min),
            meaning=f"eta_s G_s^2 (drift)/(2N eta_min){drift_text}",
        ),
        Term(
            name="server variance",
            expr=L * M**2 * eta_s**2 * G_s2 / (2 * eta_min),
            meaning="L N^2 eta_s^2 G_s^2/(2 eta_min)",
        ),
    )
