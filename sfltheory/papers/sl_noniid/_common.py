r"""What the results of the split-learning paper share: symbols, notation, the paper's own assumptions, the
default rules, the step-size branches of Theorems 1-3 and the discrepancies several results record.

Conventions (the whole paper). Canonical ``T`` is the paper's number of rounds R and ``M`` its number of
clients N. The paper *also* writes T for "the total number of iterations (i.e., NKR in SL)" (Corollary 1,
abstract); those T are written ``M*K*T`` (:data:`T_IT`). The analysis uses the unweighted objective
:math:`f=\frac1N\sum_i f_i` (Sec. 4.2), not the weighted eq. (1). :math:`F:=f(\mathbf x^0)-f(\mathbf x^*)` is
the canonical ``F``. :math:`B^2, G^2` are Assumption 3's (``B2``, ``G2``, with :math:`B\ge1`); in Theorem 3
the paper's :math:`G^2` is Assumption 4's heterogeneity bound, encoded as the canonical ``eps2``.

Reference and seed: see :data:`REFERENCE` and :data:`SEED`.
"""

from __future__ import annotations

import sympy as sp

from ...assumptions import BOUNDED_DISSIMILARITY, BOUNDED_HETEROGENEITY, SMOOTHNESS_PER_CLIENT, Assumption, Pick
from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Provenance, Source, Term, step_branch
from ...vocabulary import Param, symbols

KEY = "sl_noniid"
SEED = "002_56e5daea794305d7.txt"
TITLE = "Convergence analysis of split learning on non-IID data (SL vs FL)"
# The seed prints no authors, venue, year or arXiv id. Its text is the ICLR 2023 submission SNONkz5zEUF (the
# ICLR 2023 OpenReview text corpus, www.cl.cam.ac.uk/~ecc73/pub/datasets/iclr/iclr_2023.tar.gz, holds the same
# pages; openreview.net/forum?id=SNONkz5zEUF: "Submitted to ICLR 2023"). A revised version under the same title
# is arXiv:2302.01633 by Yipeng Li and Xinchen Lyu (deepai.org, 3 February 2023; later retitled "Convergence
# Analysis of Sequential Split Learning on Heterogeneous Data"); its abstract differs from the seed's.
REFERENCE = (
    'Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", paper under double-blind review, '
    "submitted to ICLR 2023 (OpenReview SNONkz5zEUF; the seed prints no venue or year; revised as arXiv:2302.01633 "
    "by Yipeng Li and Xinchen Lyu)"
)


def provenance(*, label: str, equation: str | None = None, section: str = "") -> Provenance:
    """Where a result of this paper is printed, with the seed and the full reference filled in."""
    return Provenance(seed=SEED, label=label, equation=equation, section=section, reference=REFERENCE)


# the paper's own names, added to the vocabulary by the registry (no registration at import)
PARAMS: tuple[Param, ...] = (
    Param(
        "eta_tilde",
        r"\tilde\eta",
        "effective learning rate (sl_noniid Sec. 4.3): N K eta_g eta_l for SL, K eta_g eta_l for FedAvg",
        "positive",
        "step",
        dimension="param**2/loss",
    ),
    Param(
        "n_data",
        "n",
        "size of the overall training set, all clients together (sl_noniid Table 4)",
        "count",
        "count",
        dimension="1",
    ),
)

L, F, T, M, K = symbols("L F T M K")
sigma2, B2, G2, eps2 = symbols("sigma2 B2 G2 eps2")
eta_l, eta_g, eta_tilde = symbols("eta_l eta_g eta_tilde")
eps_target, gradnorm2_f = symbols("eps_target gradnorm2_f")
# ||grad f_i||^2 at the model client i starts from: cut_layer's name for a client's local gradient norm
(gradnorm2_fi,) = symbols("gradnorm2_Fk")
d, d_c, n_data, D_k, q_smash, E_epochs = symbols("d d_c n_data D_k q_smash E_epochs")

ONE = sp.Integer(1)
T_IT = M * K * T  # the paper's "T, the total number of iterations (i.e., NKR in SL)"
SQ3 = sp.sqrt(2 * B2 + 1)

# --- what the bounds of Theorems 1 and 2 and their corollaries bound -----------------------------------------
LHS_AVG_MODEL = (
    "E||grad f(xbar^R)||^2 at the averaged global model xbar^R = (1/R) sum_{r=0}^{R-1} x^r, as printed "
    "(the proof bounds (1/R) sum_r E||grad f(x^r)||^2; see the @proof edition)"
)
LHS_AVG_ROUNDS = "(1/R) sum_{r=0}^{R-1} E||grad f(x^r)||^2: average over the rounds' global models"
XBAR_DISC = Discrepancy(where="left-hand side of eqs. (5), (6), (49), (50), (51) vs the proofs (after (44) and (70))", printed=r"\mathbb E\|\nabla f(\bar{\mathbf x}^R)\|^2,\ \bar{\mathbf x}^R=\frac1R\sum_{r=0}^{R-1}\mathbf x^r",
    expected=r"\frac1R\sum_{r=0}^{R-1}\mathbb E\|\nabla f(\mathbf x^r)\|^2", note="the proofs bound the average of the gradient norms and pass to the averaged model by 'the fact' E||grad f(xbar^R)||^2 <= (1/R) sum_r E||grad f(x^r)||^2, which is Jensen for a convex x -> ||grad f(x)||^2 and fails for non-convex f in general; encoded as the @proof edition with the average as left-hand side.")  # fmt: skip

# --- assumptions ---------------------------------------------------------------------------------------
ASM2 = Assumption(
    key="unbiased_bounded_variance_per_client", name="unbiased stochastic gradients with bounded variance, per client (Assumption 2)",
    statement=r"\forall i:\ \mathbb E[\mathbf g_i(\mathbf x)]=\nabla f_i(\mathbf x),\ \mathbb E_{\xi_i}\|\mathbf g_i(\mathbf x)-\nabla f_i(\mathbf x)\|^2\le\sigma^2",
    note="g_i is the gradient the algorithm uses: a mini-batch gradient in Sec. 2, one sample in Assumption 2 / Table 5",
    introduces=("sigma2",), picks=(Pick(name="sigma2", keys=("sigma2",), why="one-sample gradient, mean over samples, max over clients"),),
)  # fmt: skip
ASM4 = Assumption(
    key="bounded_gradient_dissimilarity_avg",
    name="bounded gradient dissimilarity on average over clients (Assumption 4)",
    statement=r"\mathbb E_{i\sim\mathcal U([N])}\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|^2\le G^2",
    introduces=("eps2",),
    note="printed with the norm not squared (eq. 52); the proof of Theorem 3 uses it for every client i "
    "(eqs. 65, 68), i.e. bounded_heterogeneity with eps^2 = G^2",
    picks=(Pick(name="eps2", keys=("eps2",), why="the proof uses it for every client: the max over clients"),),
)
T1_ASSUMPTIONS = (SMOOTHNESS_PER_CLIENT, ASM2, BOUNDED_DISSIMILARITY)  # Theorems 1, 2 and what follows from them
T3_ASSUMPTIONS = (SMOOTHNESS_PER_CLIENT, ASM2, ASM4, BOUNDED_HETEROGENEITY)  # Theorem 3 and its proof
SIGMA_DISC = Discrepancy(where="Assumption 2 and Sec. 2 vs Table 3 / Algorithm 1", printed=r"\xi_i\text{ is 'a data sample' (Sec. 2, Assumption 2, Table 5)}",
    expected=r"\mathbf g_i\text{ is 'the stochastic gradient over the mini-batch' (Sec. 2, Table 3)}", note="the scale of sigma^2 (one sample or one mini-batch of b) is not fixed; a single-sample sigma^2 gives a valid, looser bound.")  # fmt: skip

# --- default rules shared by several results (a result never lists two rules for one target) -----------------
VANILLA_SL = Default(name="eta_g", expr=ONE, rule="vanilla SL: Algorithm 1 without steps 13-14 (Sec. 2) is eta_g = 1, the setting of Table 1 and Table 6")  # fmt: skip
TABLE1_ETA_G = Default(name="eta_g", expr=ONE, rule="Table 1 caption (Sec. 4.3): 'eta_g is set to eta_g = 1'")
SL_EFFECTIVE_ETA_L = Default(name="eta_l", expr=eta_tilde / (M * K * eta_g), rule="SL's effective learning rate eta_tilde_SL := N K eta_g eta_l (Sec. 4.3, 'Effective learning rate') solved for eta_l")  # fmt: skip
FL_EFFECTIVE_ETA_L = Default(name="eta_l", expr=eta_tilde / (K * eta_g), rule="FedAvg's effective learning rate eta_tilde_FL := K eta_g eta_l (Sec. 4.3, 'Effective learning rate') solved for eta_l")  # fmt: skip
COR1_ETA_L = Default(name="eta_l", expr=ONE / (eta_g * L * sp.sqrt(T_IT)), rule="Corollary 1's step choice eta_g eta_l = 1/(L sqrt(T)), T = NKR (Sec. 4.2, before (6))")  # fmt: skip
THM3_DEFAULT_ETA_L = Default(name="eta_l", expr=eta_tilde / K, rule="Table 6 (App. C): eta_tilde := K eta_l for 'progress of one client in one round', solved for eta_l")  # fmt: skip


# --- Theorems 1 and 2: their conditions ------------------------------------------------------------------
def b_ge_1(where: str) -> Hypothesis:
    """Assumption 3's B >= 1, which the proof of Theorem 1 uses after (42)."""
    return Hypothesis(
        name="B^2>=1", lhs=B2, rel=">=", rhs=ONE, kind="domain", printed=r"B\ge 1", where=where,
        note="Assumption 3 requires B >= 1; the proof uses it to bound 1 + 1/(2B^2) by 3/2",
    )  # fmt: skip


def min_branches(tag: str, n: sp.Expr, where: str, source: Source = "statement") -> tuple[Hypothesis, ...]:
    r"""The two branches of :math:`\eta_l\le\frac{1}{2nKL}\min\{\frac{1}{\sqrt{2B^2+1}},\frac{1}{\eta_g}\}`: Theorem 1's
    condition with ``n`` = N clients (``tag`` "N"), Theorem 2's with ``n`` = 1 (``tag`` "")."""
    g, den = rf"eta_l<=1/(2{tag}KL)min{{...}}", 2 * n * K * L
    return (
        step_branch(f"eta_l<=1/(2{tag}KL sqrt(2B^2+1))", eta_l, ONE / (den * SQ3), rf"\eta_l\le\frac{{1}}{{2{tag}KL}}\cdot\frac{{1}}{{\sqrt{{2B^2+1}}}}", source=source, where=where, group=g),
        step_branch(f"eta_l<=1/(2{tag}KL eta_g)", eta_l, ONE / (den * eta_g), rf"\eta_l\le\frac{{1}}{{2{tag}KL}}\cdot\frac{{1}}{{\eta_g}}", source=source, where=where, group=g),
    )  # fmt: skip


def thm1_steps(where: str, source: Source = "statement") -> tuple[Hypothesis, ...]:
    """Theorem 1's condition, the two branches of :math:`\\eta_l\\le\\frac{1}{2NKL}\\min\\{\\dots\\}`."""
    return min_branches("N", M, where, source)


def thm2_steps(where: str) -> tuple[Hypothesis, ...]:
    """Theorem 2's condition, the two branches of :math:`\\eta_l\\le\\frac{1}{2KL}\\min\\{\\dots\\}`."""
    return min_branches("", ONE, where)


EQ47 = step_branch(
    "eq.(47) 2NKL eta_l<=1", eta_l, ONE / (2 * M * K * L), r"2NKL\eta_l\le 1", source="proof",
    where="App. D.2, eq. (47) (from Lemma 4)", group="proof", note="implied by the first branch since 2B^2+1 >= 1",
)  # fmt: skip
# the constraints (45)-(47) the proof of Theorem 1 summarises; (45) and (46) are the two branches of (48), the
# condition Theorem 1 prints, so they are the statement's; (47) comes from Lemma 4 and is printed in the proof only
THM1_PROOF_HYPOTHESES = (
    step_branch("eq.(45) D=4N^2K^2L^2eta_l^2<=1/(2B^2+1)", eta_l, ONE / (2 * M * K * L * SQ3), r"D=4N^2K^2L^2\eta_l^2\le\frac{1}{2B^2+1}", where="App. D.2, eq. (45)", group="(45)-(46)"),
    step_branch("eq.(46) 2NK eta_g eta_l L<=1", eta_l, ONE / (2 * M * K * L * eta_g), r"2NK\eta_g\eta_lL\le 1", where="App. D.2, eq. (46)", group="(45)-(46)"),
    EQ47,
    b_ge_1("App. D.2, after eq. (42) ('and B >= 1')"),
)  # fmt: skip


# --- Corollary 1, read again by Sec. 4.2's "Effect of eta_g" ---------------------------------------------------
def cor1_hypotheses() -> tuple[Hypothesis, ...]:
    """Corollary 1's step choice and horizon condition (Sec. 4.2), with Assumption 3's B >= 1."""
    g = "T>=4N^2K^2 max{...}"
    return (
        Hypothesis(
            name="choice eta_g eta_l = 1/(L sqrt(T)), T = NKR", lhs=eta_g * eta_l, rel="==", rhs=ONE / (L * sp.sqrt(T_IT)),
            kind="choice", printed=r"\eta_g\eta_l=\frac{1}{L\sqrt T},\ T=NKR", where="Corollary 1",
        ),
        Hypothesis(
            name="T=NKR>=4N^2K^2(2B^2+1)/eta_g^2", lhs=T_IT, rel=">=", rhs=4 * M**2 * K**2 * (2 * B2 + 1) / eta_g**2,
            kind="domain", printed=r"T\ge4N^2K^2\frac{2B^2+1}{\eta_g^2}", where="Corollary 1", group=g,
            note="equivalent to Theorem 1's first branch at the corollary's eta_l",
        ),
        Hypothesis(
            name="T=NKR>=4N^2K^2", lhs=T_IT, rel=">=", rhs=4 * M**2 * K**2, kind="domain", printed=r"T\ge4N^2K^2",
            where="Corollary 1", group=g, note="equivalent to Theorem 1's second branch at the corollary's eta_l",
        ),
        b_ge_1("Assumption 3 (via Theorem 1)"),
    )  # fmt: skip


def cor1_terms(at: dict[sp.Symbol, sp.Expr] | None = None, where: str = "") -> tuple[Term, ...]:
    """Theorem 1's four terms at Corollary 1's choice :math:`\\eta_g\\eta_l=1/(L\\sqrt T)`, T = NKR; ``at`` fixes
    eta_g as well (Sec. 4.2's 'Effect of eta_g' reads the rate at eta_g = 1 and eta_g = N)."""
    at = at or {}
    tail = f" {where}" if where else ""
    return tuple(
        Term(name=name, expr=sp.sympify(expr).subs(at), meaning=meaning + tail)
        for name, expr, meaning in (
            ("initialisation", 4 * L * F / sp.sqrt(T_IT), "T_1: 4 L F / sqrt(T), T = NKR"),
            ("client drift (G^2)", 12 * M**2 * K**2 * G2 / (eta_g**2 * T_IT), "T_2: 12 N^2 K^2 G^2 / (eta_g^2 T)"),
            ("client drift (sigma^2)", 6 * M**2 * K * sigma2 / (eta_g**2 * T_IT), "T_2: 6 N^2 K sigma^2 / (eta_g^2 T)"),
            ("global variance", 4 * M * sigma2 / sp.sqrt(T_IT), "T_3: 4 N sigma^2 / sqrt(T) (printed without N)"),
        )
    )


COR1_T3_DISC = Discrepancy(where="Corollary 1, eq. (6), T_3", printed=r"\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right)",
    expected=r"\frac{4N\sigma^2}{\sqrt T}", note="Theorem 1's 4N eta_g eta_l L sigma^2 at eta_g eta_l = 1/(L sqrt T) is 4N sigma^2/sqrt(T); (6) drops N while keeping N^2 in T_2. The rates of 'Effect of eta_g' (Sec. 4.2) inherit the missing N.")  # fmt: skip


# --- Table 1 and Sec. 4.3: the effective learning rate -------------------------------------------------------
def eff_steps(where: str) -> tuple[Hypothesis, ...]:
    """The constraint on the effective learning rate, 'the same' for FL and SL (Sec. 4.3, in words only)."""
    note = (
        "Sec. 4.3: 'eta_tilde_FL and eta_tilde_SL has the same constraints' (in words): Table 1 row 2 / Theorem 1 "
        "times K eta_g / N K eta_g at eta_g = 1"
    )
    g = "eta_tilde<=min{...}"
    return (
        step_branch("eta_tilde<=1/(2L sqrt(2B^2+1))", eta_tilde, ONE / (2 * L * SQ3), r"\tilde\eta\le\frac{1}{2L\sqrt{2B^2+1}}", source="implicit", where=where, group=g, note=note),
        step_branch("eta_tilde<=1/(2L)", eta_tilde, ONE / (2 * L), r"\tilde\eta\le\frac{1}{2L}", source="implicit", where=where, group=g, note=note),
    )  # fmt: skip


ETA_G_1 = Hypothesis(name="eta_g = 1", lhs=eta_g, rel="==", rhs=ONE, kind="choice", printed=r"\eta_g=1", where="Table 1 caption ('eta_g is set to eta_g = 1')")  # fmt: skip
TAB1_NOTE = (
    "Constants (including L) are omitted in Table 1: the value is the formula inside O(.) with unit constants, for "
    "comparing FL with SL only."
)

# --- Theorem 3 (progress of one client in one round): its condition (73), the proof's (71)-(72) and the condition
# the corrected (68) needs; shared by thm3, the per-client inequality (69) and the drift bound (67)
EQ73 = step_branch("eta_l<=1/(2 sqrt5 KL)", eta_l, ONE / (2 * sp.sqrt(5) * K * L), r"\eta_l\le\frac{1}{2\sqrt5KL}", where="Theorem 3; eq. (73)")  # fmt: skip
EQ71 = step_branch("eq.(71) D=4K^2L^2eta_l^2<=1/5", eta_l, ONE / (2 * sp.sqrt(5) * K * L), r"D=4K^2L^2\eta_l^2\le\frac15", source="proof", where="App. D.4, eq. (71)", group="proof")  # fmt: skip
EQ72 = step_branch("eq.(72) 2K eta_l L<=1", eta_l, ONE / (2 * K * L), r"2K\eta_lL\le1", source="proof", where="App. D.4, eq. (72)", group="proof")  # fmt: skip
YOUNG_EQ68 = step_branch(
    "(68) with Young's factor 2: eta_l<=1/(6KL)", eta_l, ONE / (6 * K * L), r"4D/(1-D)\le1/2,\ \text{i.e. }D\le\frac19",
    source="implicit", where="App. D.4, eqs. (68)-(69)", group="implicit",
    note="bounding ||grad f_i||^2 <= 2||grad f||^2 + 2G^2 (as done for G^2) gives -(1/2)(1 - 4D/(1-D)); the -1/4 "
    "of (69) then needs D <= 1/9. Under it the printed coefficients 40 and 10 still hold (they become 36 and 9)",
)  # fmt: skip
THM3_STEPS = (EQ73, EQ71, EQ72, YOUNG_EQ68)
# what the proof of Theorem 3 gets wrong, shared by thm3 and the per-client inequality (69)
THM3_PROOF_DISCREPANCIES = (
    Discrepancy(where="Assumption 4, eq. (52)", printed=r"\mathbb E_{i\sim\mathcal U([N])}\left[\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|\right]\le G^2",
        expected=r"\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|^2\le G^2\ \forall i", note="the norm is not squared; and (65), (68) use the bound for each client i at its own point x_i^{(r,0)}, not on average over i."),
    Discrepancy(where="App. D.4, eq. (68)", printed=r"-\frac12\left(1-\frac{2D}{1-D}\right)\|\nabla f(\mathbf x_i^{(r,0)})\|^2",
        expected=r"-\frac12\left(1-\frac{4D}{1-D}\right)\|\nabla f(\mathbf x_i^{(r,0)})\|^2", note="(67) brings D/(1-D) ||grad f_i||^2 and ||grad f_i||^2 <= 2||grad f||^2 + 2G^2 (the factor 2 is kept on G^2: 2D/(1-D) G^2); with D <= 1/5 the corrected coefficient is 0, so (69)'s -1/4 needs D <= 1/9 (eta_l <= 1/(6KL)), recorded as an implicit condition."),
    Discrepancy(where="App. D.4, eq. (64)", printed=r"\mathbb E\|\nabla f_i(\mathbf x_i^{(r,k)})-\nabla f(\mathbf x_i^{(r,0)})\|^2=2\mathbb E\|\cdot\|^2+2\mathbb E\|\cdot\|^2",
        expected=r"\le", note="an inequality (Young) printed as an equality."),
    Discrepancy(where="Theorem 3 and App. D.4 leftovers", printed=r"\text{'where }\bar{\mathbf x}^R=\dots\text{ is the averaged global model'; 'and }B\ge1\text{' (69); 'we get Eq. (53)' via }\bar{\mathbf x}^R",
        expected=r"\text{no }\bar{\mathbf x}^R\text{ and no }B\text{ in Theorem 3}", note="copied from Theorem 1: (53) bounds the average over (i, r) directly and Assumption 4 has no B."),
)  # fmt: skip
