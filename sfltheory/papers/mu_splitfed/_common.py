r"""What the MU-SplitFed results share: symbols, the paper's own names, the step-size rules, the step-size branches
and proof conditions several results use, the paper's closed-form split choices and the discrepancies recorded on
more than one result.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``shared/seeds/000_0fb66116fc20c956.txt``.

The paper declares no assumption of its own beyond the shared ones: Assumptions 4.1/B.1 (``SMOOTHNESS``, per client
``SMOOTHNESS_PER_CLIENT``), 4.2/B.2 (``BOUNDED_VARIANCE_PER_PART_AS``: printed "for every xi") and 4.3/B.3
(``BOUNDED_HETEROGENEITY``) are :mod:`sfltheory.assumptions`' objects, whose picks say what serves each constant.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, PaperChoice, Provenance, Source, Term, step_branch
from ...vocabulary import Param, symbols

KEY = "mu_splitfed"
SEED = "000_0fb66116fc20c956.txt"
TITLE = "MU-SplitFed: straggler-resilient SFL with unbalanced updates"
# The seed prints the authors, their affiliations (Rochester Institute of Technology; Purdue University) and the
# title, but no venue, year or arXiv id. The arXiv id is that of the arXiv abstract page (mirrored at
# h5.bingheai.cn/abs/2510.21155, submitted 24 Oct 2025); the venue that of openreview.net/forum?id=MOAmJKj2Uc
# ("NeurIPS 2025 poster") and paperjam.ai/neurips25/papers/118472.
REFERENCE = (
    'Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split '
    'Federated Learning: An Unbalanced Update Approach", NeurIPS 2025 (poster), arXiv:2510.21155 (2025)'
)
# provenance(label=..., equation=..., section=...): where a result of this paper is printed, with the seed and the
# full reference filled in (so every result's Provenance carries the citation)
provenance = partial(Provenance, seed=SEED, reference=REFERENCE)


# the paper's own names, added to the vocabulary by the registry (no registration at import): the state of one
# round that the lemmas of App. C-D and the one-round inequality (24) are stated in
PARAMS: tuple[Param, ...] = (
    Param(
        "gradnorm2_xs", r"\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2",
        "squared server-side gradient norm at the start of round t (MU-SplitFed App. C-D lemmas)", "nonneg", "derived", dimension="loss**2/param**2"),
    Param(
        "drift_xs", r"\mathbb E\|x_s^{t,i}-x_s^t\|^2",
        "server-side model drift after i of the tau server steps of round t (MU-SplitFed Lemmas C.2, C.3, D.2)",
        "nonneg", "derived", dimension="param**2"),
    Param(
        "gradnorm2_lam_xs", r"\mathbb E\|\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2",
        "squared server-side gradient of the smoothed loss at server step i of round t (MU-SplitFed (25), (34))",
        "nonneg", "derived", dimension="loss**2/param**2"),
    Param(
        "descent_round", r"\mathbb E[f(\mathbf x^t)-f(\mathbf x^{t+1})]",
        "expected decrease of f over round t (MU-SplitFed (24)); a round may increase f", "real", "derived", dimension="loss"),
)  # fmt: skip

L, F, T, tau, d, d_c, d_s, lam = symbols("L F T tau d d_c d_s lam")
eta, eta_s, eta_c, eta_g = symbols("eta eta_s eta_c eta_g")
sigma_c2, sigma_s2, eps2, M, P, K = symbols("sigma_c2 sigma_s2 eps2 M P K")
T0, t_straggler, t_server, eps_target = symbols("T0 t_straggler t_server eps_target")
g_f, g_s, drift, g_lam, descent = symbols("gradnorm2_f gradnorm2_xs drift_xs gradnorm2_lam_xs descent_round")
ONE = sp.Integer(1)
R = sp.Rational

LHS = r"average over rounds of E||grad f(x^t)||^2, printed (1/T) sum_{t=0}^{T} E||grad_x f(x^t)||^2"
# the paper's symbols for names the vocabulary's table of MU-SplitFed notation does not hold
NOTATION_ROUND = {
    "gradnorm2_xs": r"\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2",
    "drift_xs": r"\mathbb E\|x_s^{t,i}-x_s^t\|^2",
    "gradnorm2_lam_xs": r"\mathbb E\|\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2",
}
NOTATION_EPS = {"eps_target": r"\varepsilon"}  # the accuracy of footnote 3 and Table 2 (eps2 is heterogeneity)

# ---------------------------------------------------------------------------------------------------
# Defaults. Two rules for one target keep their order (the first to fire wins): ETA_FROM_ETA_S comes before a
# corollary's step choice, D_C_FROM_D_S before a corollary's split, so a given eta_s or d_s is honoured. (A corollary
# whose bound is derived at its own eta, the choice restated by a proof condition, refuses a given eta and the eta_s
# that would replace it: sfltheory.evaluate's rule for values an edition fixes, issue 24.)
ETA_FROM_ETA_S = Default(
    name="eta", expr=eta_s, rule="the unified step is the server step, eta = eta_s (Theorems 4.1, 4.3: "
    "eta_c/tau = eta_s = eta; App. C.1.3 'we define the universal step size eta := eta_s')",
)  # fmt: skip
ETA_S_FROM_ETA = Default(
    name="eta_s", expr=eta, rule="eta_s = eta, the unified step (Theorems 4.1 and 4.3, eqs. (8) and (10))"
)
ETA_C_FROM_ETA = Default(
    name="eta_c", expr=tau * eta, rule="the client step is tau times the unified one, eta_c/tau = eta (Theorems 4.1 "
    "and 4.3; App. C.1.3 and D.1.3 'let eta_c = eta tau')",
)  # fmt: skip
UNIFIED = (ETA_FROM_ETA_S, ETA_S_FROM_ETA, ETA_C_FROM_ETA)
ONE_PERTURBATION = Default(
    name="P", expr=ONE, rule="the statements are printed at one perturbation per estimate: App. C.1.3 and D.1.3 end "
    "'Let P = 1, and we complete the proof'",
)  # fmt: skip
D_C_FROM_D_S = Default(
    name="d_c", expr=d - d_s, rule="d = d_c + d_s (Sec. 4.1, after (8)): a given d_s fixes d_c before the "
    "corollary's split rule d_c = sqrt(d/tau) is tried", rounding="none",
)  # fmt: skip

SUBTRACTED_DROPPED = Default(
    name="gradnorm2_lam_xs", expr=sp.Integer(0), rule="when E||grad_{x_s} f_lambda||^2 is not given, the subtracted "
    "term -(1/P) E||grad_{x_s} f_lambda||^2 of (25) and (34) is dropped, as App. C.1.2 drops it for the client (K4, "
    "second line): it is <= 0, so the bound only loosens",
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------
# The paper's closed-form choices of the split (the planner shows them next to the bound-optimal choice)
SPLIT_DC = sp.sqrt(d / tau)  # d_c = sqrt(d/tau), Corollaries 4.2 and 4.4
SPLIT_COR42 = PaperChoice(
    name="Corollary 4.2 split",
    where=f"{SEED}, Corollary 4.2 (9) and the Discussion after it",
    tau_of_split=d / d_c**2,
    dc_of_tau=SPLIT_DC,
    printed=r"d_c=\sqrt{d/\tau}\iff\tau=d/d_c^2",
)
SPLIT_COR42_PROOF = PaperChoice(
    name="Corollary 4.2 split, as App. C.1.4 substitutes it",
    where=f"{SEED}, App. C.1.4 (first display)",
    tau_of_split=d**2 / d_c**2,
    dc_of_tau=d / sp.sqrt(tau),
    printed=r"d_c=d/\sqrt{\tau}\iff\tau=(d/d_c)^2",
    note="the proof's split differs from the statement's (recorded in the errata)",
)
# Corollary 4.4 prints the same split as Corollary 4.2's statement (and App. D.1.4 keeps it)
SPLIT_COR44 = replace(SPLIT_COR42, name="Corollary 4.4 split", where=f"{SEED}, Corollary 4.4 (11) and App. D.1.4")

# ---------------------------------------------------------------------------------------------------
# Hypotheses several results share
MIN_GROUP = "eta<=min{...}"  # the branches of one printed min{...} on the step


def coupling(where: str) -> Hypothesis:
    """eta_c/tau = eta_s = eta, as Theorems 4.1 and 4.3 print it (and every result built on them)."""
    return Hypothesis(
        name="coupling eta_c = tau*eta_s", lhs=eta_c, rel="==", rhs=tau * eta_s, kind="coupling",
        printed=r"\eta_c/\tau=\eta_s=\eta", where=where, note="eta is defined as eta_s; give eta, or eta_s and eta_c",
    )  # fmt: skip


def t41_branches(where: str) -> tuple[Hypothesis, Hypothesis]:
    """Theorem 4.1's min{...}, printed again by Corollary 4.2 and used by App. C.1.4."""
    return (
        step_branch(
            "eta<=1/(64L(tau+2d_s))", eta, ONE / (64 * L * (tau + 2 * d_s)), r"\eta\le\frac{1}{64L(\tau+2d_s)}",
            where=where, group=MIN_GROUP,
        ),
        step_branch(
            "eta<=1/(16L tau d_c)", eta, ONE / (16 * L * tau * d_c), r"\eta\le\frac{1}{16L\tau d_c}", where=where,
            group=MIN_GROUP,
        ),
    )  # fmt: skip


def t43_first_branch(where: str) -> Hypothesis:
    """Theorem 4.3's first branch as the main text prints it (Theorem D.1 prints another)."""
    return step_branch(
        "eta<=1/(120L tau(1+2d_s/tau))", eta, ONE / (120 * L * tau * (1 + 2 * d_s / tau)),
        r"\eta\le\frac{1}{120L\tau(1+2d_s/\tau)}", where=where, group=MIN_GROUP,
    )  # fmt: skip


def t43_client_branch(where: str) -> Hypothesis:
    """Theorem 4.3's second branch, printed identically by D.1 and Corollary 4.4."""
    return step_branch(
        "eta<=M/(12 tau L d_c)", eta, M / (12 * tau * L * d_c), r"\eta\le\frac{M}{12\tau Ld_c}", where=where,
        group=MIN_GROUP,
    )  # fmt: skip


def lemma_c4_branch(*, source: Source, where: str) -> Hypothesis:
    """Lemma C.4's condition (its statement, and the last line of its proof in an equal form)."""
    return step_branch(
        "Lemma C.4 eta_s<=1/(4L sqrt(tau^2+tau d_s/P))", eta_s, ONE / (4 * L * sp.sqrt(tau**2 + tau * d_s / P)),
        r"\eta_s\le\frac{\sqrt P}{4\tau L\sqrt{P+d_s/\tau}}", source=source, where=where, group=MIN_GROUP,
    )  # fmt: skip


def lemma_d3_branch(*, source: Source, where: str) -> Hypothesis:
    """Lemma D.3's condition (its statement, and the last line of its proof)."""
    return step_branch(
        "Lemma D.3 eta_s<=sqrt(P)/(tau L sqrt(24(P+d_s/tau)))", eta_s, sp.sqrt(P) / (tau * L * sp.sqrt(24 * (P + d_s / tau))),
        r"\eta_s\le\frac{\sqrt P}{\tau L\sqrt{24(P+d_s/\tau)}}", source=source, where=where, group=MIN_GROUP,
    )  # fmt: skip


# Conditions App. C.1 uses on the way that the statement does not print. With P = 1 each is implied by
# the statement's two branches (tests check this), but they are part of what the proof needs.
C1_PROOF = (
    step_branch("C.1(ii) eta_s<=1/(tau L)", eta_s, ONE / (tau * L), r"\eta_s\le\frac{1}{\tau L}", source="proof",
                where="App. C.1.3, step (ii)", group=MIN_GROUP),
    step_branch("C.1(ii) eta_s<=1/(4 tau L)", eta_s, ONE / (4 * tau * L), r"\eta_s\le\frac{1}{4\tau L}", source="proof",
                where="App. C.1.3, step (ii)", group=MIN_GROUP),
    step_branch("C.1(ii) eta_c<=1/(2L)", eta_c, ONE / (2 * L), r"\eta_c\le\frac{1}{2L}", source="proof",
                where="App. C.1.3, step (ii)", group=MIN_GROUP),
    step_branch("eq.(20) eta_s<=1/(4L sqrt(tau d_s/P))", eta_s, ONE / (4 * L * sp.sqrt(tau * d_s / P)),
                r"\eta_s\le\frac{1}{4L\sqrt{\tau d_s/P}}", source="proof", where="App. C.1.1, before eq. (20)",
                group=MIN_GROUP),
    step_branch("eq.(22) eta_c<=1/(L sqrt(8 d_c/P))", eta_c, ONE / (L * sp.sqrt(8 * d_c / P)),
                r"\eta_c\le\frac{1}{L\sqrt{8d_c/P}}", source="proof", where="App. C.1.2, before eq. (22)",
                group=MIN_GROUP),
    lemma_c4_branch(source="proof", where="Lemma C.4 (statement and last line of its proof, equal forms)"),
)  # fmt: skip
# Step (iii) of App. C.1.3, printed in the proof only: the general-P form of Theorem 4.1's two branches
C1_STEP_III = (
    step_branch("eta_s<=P/(64L(tau P+2d_s))", eta_s, P / (64 * L * (tau * P + 2 * d_s)),
                r"\eta_s\le\frac{P}{64L(\tau P+2d_s)}", source="proof", where="App. C.1.3, step (iii)", group=MIN_GROUP),
    step_branch("eta_c<=P/(16L d_c)", eta_c, P / (16 * L * d_c), r"\eta_c\le\frac{P}{16Ld_c}", source="proof",
                where="App. C.1.3, step (iii)", group=MIN_GROUP),
)  # fmt: skip

# Printed in App. D.1 on the way, absent from both statements.
D1_PROOF = (
    step_branch("D.1.1 eta_s<=sqrt(P)/(L sqrt(24 tau d_s))", eta_s, sp.sqrt(P) / (L * sp.sqrt(24 * tau * d_s)),
                r"\eta_s\le\frac{\sqrt P}{L\sqrt{24\tau d_s}}", source="proof", where="App. D.1.1 (bound on K2)",
                group=MIN_GROUP),
    lemma_d3_branch(source="proof", where="Lemma D.3"),
)  # fmt: skip
# Needed by steps of App. D.1.3 but printed nowhere (see Theorem 4.3's discrepancies).
D1_IMPLICIT = (
    step_branch(
        "D.1.3 drop server ||sum grad f_lambda||^2: eta_g eta_s tau L<=1/2", eta_g * eta_s * tau * L, R(1, 2),
        r"\eta_g\eta_s\tau L\le\tfrac12", source="implicit", where="App. D.1.3, first '<=' after 'Putting together'",
        note="the term eta_g^2 eta_s^2 L/M^2 ||sum||^2 is dropped against -eta_g eta_s/(2 M^2 tau) ||sum||^2",
    ),
    step_branch(
        "D.1.3 drop client ||sum grad f_lambda||^2: eta_g eta_c L<=1", eta_g * eta_c * L, ONE, r"\eta_g\eta_c L\le 1",
        source="implicit", where="App. D.1.3",
        note="eta_g^2 eta_c^2 L/(2M^2) ||sum||^2 is dropped against -eta_g eta_c/(2M^2) ||sum||^2",
    ),
    step_branch(
        "D.1.3 server coefficient <= -eta_g eta_s tau/4",
        6 * eta_s * (4 * eta_s * tau * L + eta_g / M) * L * (tau**2 + 2 * tau * d_s / P), tau / 4,
        r"6\eta_s(4\eta_s\tau L+\eta_g/M)L(\tau^2+2\tau d_s/P)\le\tau/4", source="implicit",
        where="App. D.1.3, last '<='",
        note="what the step really needs; the printed eta_s <= 1/sqrt(120 L^2 (tau^2 + 2 tau d_s/P)) does not control the eta_g/M part",
    ),
    step_branch(
        "D.1.3 client coefficient: eta_c<=MP/(12 eta_g L d_c)", eta_c, M * P / (12 * eta_g * L * d_c),
        r"\eta_c\le\frac{MP}{12\eta_g Ld_c}", source="implicit", where="App. D.1.3, last '<='",
        note="3 eta_g^2 eta_c^2 L d_c/(MP) - eta_g eta_c/2 <= -eta_g eta_c/4; the printed eta_c <= MP/(12 L d_c) lacks the 1/eta_g",
    ),
)  # fmt: skip

# Corollaries 4.2 and 4.4: the split and the smoothing radius they print
LAM2_COR = ONE / (sp.sqrt(tau * T) * d ** R(5, 2) * L)  # lambda^2 <= 1/(sqrt(tau T) d^{5/2} L)
SPLIT_HYPS = (
    Hypothesis(
        name="split d_c = sqrt(d/tau)", lhs=d_c, rel="==", rhs=SPLIT_DC, kind="coupling",
        printed=r"d_c=\sqrt{d/\tau},\ d_s=d-\sqrt{d/\tau}", where="statement", atol=1.0, rtol=0.0,
        note="holds when d_c is within 1 of sqrt(d/tau): a real cut has an integer d_c",
    ),
    Hypothesis(name="tau<=d", lhs=tau, rel="<=", rhs=d, kind="domain", printed=r"\tau\le d", where="statement"),
)  # fmt: skip


def lam_condition(where: str) -> Hypothesis:
    """The smoothing radius Corollaries 4.2 and 4.4 print."""
    return Hypothesis(
        name="lam^2<=1/(sqrt(tau T) d^(5/2) L)", lhs=lam**2, rel="<=", rhs=LAM2_COR, kind="smoothing",
        printed=r"\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}", where=where,
    )  # fmt: skip


def variance_terms(c: int, *, heterogeneity: bool = False) -> tuple[Term, ...]:
    """The variance bound of the server's P-perturbation estimator: Lemma C.2's (25) with c = 4; Lemma D.2's (34)
    with c = 6 and the heterogeneity term. Each term as printed, over P."""
    het = (Term(name="heterogeneity", expr=c * d_s * eps2 / P, meaning=f"{c} d_s eps^2/P"),) if heterogeneity else ()
    return (
        Term(name="gradient", expr=c * d_s * g_s / P, meaning=f"({c} d_s/P) E||grad_{{x_s}} f(x^t)||^2"),
        Term(name="drift", expr=c * L**2 * d_s * drift / P, meaning=f"({c} L^2 d_s/P) E||x_s^{{t,i}} - x_s^t||^2"),
        *het,
        Term(name="variance", expr=2 * d_s * sigma_s2 / P, meaning="2 d_s sigma_s^2/P"),
        Term(name="ZO bias", expr=L**2 * lam**2 * d_s**3 / (2 * P), meaning="L^2 lambda^2 d_s^3/(2P)"),
        Term(name="smoothed gradient (subtracted)", expr=-g_lam / P,
             meaning="-(1/P) E||grad_{x_s} f_lambda^t(x^{t,i})||^2 (<= 0)"),
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------------
# Discrepancies recorded on more than one result
D_ASSUMPTION_B2 = Discrepancy(
    where="Assumption B.2 vs Assumption 4.2",
    printed=r"\|\nabla_{x_c}F_m(x;\xi)-\nabla f_m(x)\|^2\le\sigma_c^2",
    expected=r"\|\nabla_{x_c}F_m(x;\xi)-\nabla_{x_c}f_m(x)\|^2\le\sigma_c^2",
    note="the appendix subtracts the full gradient from the client part (dimension mismatch); 4.2 has the part.",
)
# One mini-batch xi^t shared by the P perturbations (Lemma C.2's (26), reused by C.3 through (29)) and by the tau
# server steps (Lemma C.4's (31), reused by D.3): the proofs drop the cross terms it leaves (verify.pipeline.lemmas)
D_SHARED_SAMPLE_PERTURBATIONS = Discrepancy(
    where="Lemma C.2 proof, (26), first equality",
    printed=r"\mathbb E\|G_s^{t,i}-\nabla f_\lambda\|^2=\frac1{P^2}\sum_{p=1}^P\mathbb E\|g_{s,p}^{t,i}-\nabla f_\lambda\|^2",
    expected=r"\frac1{P^2}\sum_{p}\mathbb E\|g_{s,p}^{t,i}-\nabla f_\lambda\|^2+\frac1{P^2}\sum_{p\ne q}"
    r"\mathbb E\langle g_{s,p}^{t,i}-\nabla f_\lambda,g_{s,q}^{t,i}-\nabla f_\lambda\rangle",
    note="the cross terms vanish only if each perturbation draws its own sample; G_s^{t,i}(x; xi^t) shares one "
    "mini-batch xi^t, and each cross term is then E||grad F(x; xi^t) - grad f(x)||^2, up to sigma_s^2, so the "
    "variance keeps sigma_s^2 undivided by P. On a quadratic with P > d_s + 1 the lemma's bound is exceeded "
    "(the lemma check, docs/evidence: 9.8x for C.2, 4.2x for C.3); it holds with P = 1, as the main text sets "
    "at the end of App. C.1.3, or with a sample per perturbation.",
)
D_SHARED_SAMPLE_STEPS = Discrepancy(
    where="Lemma C.4 proof, (31): 'by the property of martingale difference sequence'",
    printed=r"\mathbb E\|\sum_{j<i}(G_s^{t,j}-\nabla f_\lambda^{t,j})\|^2=\sum_{j<i}\mathbb E\|G_s^{t,j}-\nabla f_\lambda^{t,j}\|^2",
    expected=r"\text{the same plus the cross terms }\sum_{j\ne k}\mathbb E\langle G_s^{t,j}-\nabla f_\lambda^{t,j},"
    r"G_s^{t,k}-\nabla f_\lambda^{t,k}\rangle",
    note="the steps' errors are a martingale difference sequence only with a fresh mini-batch per server step; "
    "Algorithm 1 (lines 8-11) and G_s(x^{t,i}; xi^t) use the one embedding of xi^t for all tau steps, which "
    "correlates them. On a quadratic the drift then exceeds the bound (the lemma check, docs/evidence: 3.3x "
    "for C.4, 3.1x for D.3); with a fresh sample per step (the trainer's server_batch=fresh) it holds.",
)
# The steps of App. C.1.1-C.1.3 that lead to the one-round inequality (24), and so to Theorem 4.1's proof edition
D_C1_STEPS = (
    Discrepancy(
        where="App. C.1.1 (K2, before (20)) and C.1.2 (K4, before (22)): substituting (30)",
        printed=r"-\frac1P\sum_i\mathbb E\|\nabla_{x_s}f_\lambda^{t,i}\|^2\le-\frac1P\sum_i\left(4\mathbb E\|\nabla_{x_s}f(\mathbf x^t)\|^2+4L^2\mathbb E\|x_s^{t,i}-x_s^t\|^2+\frac{L^2}{2}\lambda^2d_s^3\right)",
        expected=r"-\frac1P\sum_i\mathbb E\|\nabla_{x_s}f_\lambda^{t,i}\|^2\le0,\ \text{keeping}\ +\frac{\tau L^2\lambda^2d_s^3}{2P}\ (\text{client: }+\frac{L^2\lambda^2d_c^3}{2P})",
        note="(30) is an upper bound on E||grad f_lambda||^2, so it cannot replace it inside a negative term; the "
        "substitution cancels Lemma C.2's +L^2 lambda^2 d^3/(2P). Kept, the ZO terms of (24) grow by "
        "eta^2 tau L^3 lambda^2 d_s^3/P + eta^2 tau^2 L^3 lambda^2 d_c^3/(2P) (Theorem 4.1's proof bound by "
        "4 eta L^3 lambda^2 d_s^3/P + 2 eta tau L^3 lambda^2 d_c^3/P).",
    ),
    Discrepancy(
        where="App. C.1.1 (K2), the line before (20)",
        printed=r"\left(1-\frac{8\eta_s^2\tau L^2d_s}{P}\right)\mathbb E\|x_s^{t+1}-x_s^t\|^2\le\dots",
        expected=r"\sum_{i=0}^{\tau-1}\mathbb E\|x_s^{t,i}-x_s^t\|^2\ \text{bounded by Lemma C.4, not moved to the left}",
        note="the previous line bounds E||x_s^{t+1} - x_s^t||^2 by 8 eta_s^2 tau L^2 d_s/P sum_i E||x_s^{t,i} - "
        "x_s^t||^2 + ...; the sum of the tau intermediate drifts is not E||x_s^{t+1} - x_s^t||^2, so it cannot be "
        "moved to the left. Bounded by Lemma C.4 it adds terms of order eta_s^4 to (20).",
    ),
    Discrepancy(
        where="App. C.1.3, (23) step (ii): coefficient of E||grad_{x_s} f(x^t)||^2",
        printed=r"16\eta_s^2\tau L(\tau+d_s/P)-\frac{\eta_s\tau}{2}",
        expected=r"16\eta_s^2\tau L(\tau+d_s/P)+\frac{8\eta_s^2L\tau d_s}{P}-\frac{\eta_s\tau}{2}",
        note="K2's 8 eta_s^2 L tau d_s/P E||grad_{x_s} f||^2 (line (i)) is dropped. Harmless: step (iii)'s eta_s <= "
        "P/(64 L (tau P + 2 d_s)) still makes the full coefficient <= -eta_s tau/4, so (23) and (24) hold.",
    ),
)
