r"""Convergence analysis of split learning on non-IID data (seed ``002_56e5daea794305d7.txt``): SL vs FL.

Split learning (Algorithm 1): in each of R rounds the N clients train *in sequence*, K local SGD steps
each on the complete model (client and server side updated together, step :math:`\eta_l`), then a global
step :math:`\mathbf x^{r+1}=\mathbf x^r+\eta_g(\mathbf x^{(r,K)}_N-\mathbf x^r)`. Every result is for
**non-convex** objectives only (footnote 1: "similar methods can be used" for convex and strongly convex
objectives, but none is stated), so labels carry no convexity suffix. Results and editions:

* ``thm1`` -- Theorem 1 (SL), eq. (5), Sec. 4.2. ``thm1@proof``: eq. (44) of App. D.2, the same terms for
  the average over rounds of :math:`\mathbb E\|\nabla f(\mathbf x^r)\|^2` (the statement's left-hand side at
  the averaged model does not follow for non-convex f), under the constraints (45)-(47).
* ``lem4`` -- Lemma 4 (bounded client drift), eq. (16), App. D.1 (denominator :math:`1-4N^2K^2\eta_l^2L^2`).
* ``cor1`` -- Corollary 1, eq. (6), O-form; ``cor1@explicit``: eq. (5) at the corollary's choice.
* ``cor2`` -- Corollary 2, eq. (49), O-form; ``cor2@explicit``: eq. (5) at the corollary's choice.
* ``cor3`` -- Corollary 3, eq. (50), O-form; ``cor3@explicit``: eq. (44) through Lemma 2 of Karimireddy
  et al. (2020), which the one-line proof cites (constants worked out by us).
* ``thm2`` -- Theorem 2 (FedAvg with a global step, for comparison), eq. (51), App. D.3.
* ``sec4.3.speedup`` -- Sec. 4.3: Theorem 2 at :math:`\eta_l=\sqrt N/(L\sqrt T)` gives
  :math:`O(1/\sqrt{NT})`; ``@explicit``: eq. (51) at that choice.
* ``thm3`` -- Theorem 3 (progress of one client in one round), eq. (53), App. D.4.
* Table 1 (Sec. 4.3), as models with unit constants: ``tab1.fl`` (rows 1-2), ``tab1.fl_eff`` (row 3),
  ``tab1.fl_reps`` (row 4), ``tab1.sl_eff`` (row 5), ``tab1.sl_reps`` (row 6); and the two displays of Sec. 4.3
  at :math:`\tilde\eta=1/\sqrt R`: ``sec4.3.fl`` and ``sec4.3.sl``.
* Table 4 (App. A), communication per client and per round: ``tab4.fl_client``, ``tab4.fl_round``,
  ``tab4.sl_p2p_client``, ``tab4.sl_p2p_round``, ``tab4.sl_central_client``, ``tab4.sl_central_round``,
  ``tab4.slg_p2p_round``, ``tab4.slg_central_round``.

Conventions. Canonical ``T`` is the paper's number of rounds R and ``M`` its number of clients N. The paper
*also* writes T for "the total number of iterations (i.e., NKR in SL)" (Corollary 1, abstract); those T are
written ``M*K*T`` here. The analysis uses the unweighted objective :math:`f=\frac1N\sum_i f_i` (Sec. 4.2),
not the weighted eq. (1). :math:`F:=f(\mathbf x^0)-f(\mathbf x^*)` is the canonical ``F``. :math:`\sigma^2`
bounds the variance of the stochastic gradient :math:`\mathbf g_i` the algorithm uses (a mini-batch gradient
in Sec. 2; "a data sample" in Assumption 2 and Table 5): a single-sample :math:`\sigma^2` gives a valid,
looser bound. :math:`B^2, G^2` are Assumption 3's (``B2``, ``G2``, with :math:`B\ge1`); in Theorem 3 the
paper's :math:`G^2` is Assumption 4's heterogeneity bound :math:`\|\nabla f_i-\nabla f\|^2\le G^2`, encoded
as the canonical ``eps2``. ``eta_g`` defaults to 1 (vanilla SL; Table 1 sets :math:`\eta_g=1`); the
effective learning rate ``eta_tilde`` (:math:`NK\eta_g\eta_l` for SL, :math:`K\eta_g\eta_l` for FL) may be
given instead of ``eta_l``. Table 1 hides constants (including L): its models evaluate the formulas inside
:math:`\mathcal O(\cdot)` with unit constants, for comparing FL with SL only. Table 4 counts floats; the
paper's n (dataset size) is ``n_data`` (canonical ``n`` is clients per round), n_i is ``D_k``, q is
``q_smash``, E is ``E_epochs``; the model sizes :math:`\mathbf x, \mathbf x_c` are ``d`` and ``d_c``.
Table 6 (summary of theories) and Figure 1 are images, absent from the seed.
"""

from __future__ import annotations

import sympy as sp

from ..assumptions import BOUNDED_DISSIMILARITY, BOUNDED_HETEROGENEITY, SMOOTHNESS_PER_CLIENT, Assumption, Pick
from ..defaults import Default
from ..result import Discrepancy, Hypothesis, Provenance, Relation, Result, Source, Term
from ..vocabulary import Param, symbols

# the paper's own names, added to the vocabulary by the registry (no registration at import)
PARAMS: tuple[Param, ...] = (
    Param(
        "eta_tilde",
        r"\tilde\eta",
        "effective learning rate (sl_noniid Sec. 4.3): N K eta_g eta_l for SL, K eta_g eta_l for FedAvg",
        "positive",
        "step",
    ),
    Param(
        "eps_target",
        r"\epsilon",
        "target accuracy: rounds to reach E||grad f||^2 <= epsilon (sl_noniid Table 1)",
        "positive",
    ),
    Param(
        "n_data", "n", "size of the overall training set, all clients together (sl_noniid Table 4)", "count", "count"
    ),
)

SEED = "002_56e5daea794305d7.txt"
PAPER = "sl_noniid"

L, F, T, M, K = symbols("L F T M K")
sigma2, B2, G2, eps2 = symbols("sigma2 B2 G2 eps2")
eta_l, eta_g, eta_tilde = symbols("eta_l eta_g eta_tilde")
eps_target, gradnorm2_f = symbols("eps_target gradnorm2_f")
d, d_c, n_data, D_k, q_smash, E_epochs = symbols("d d_c n_data D_k q_smash E_epochs")

ONE = sp.Integer(1)
T_IT = M * K * T  # the paper's "T, the total number of iterations (i.e., NKR in SL)"
SQ3 = sp.sqrt(2 * B2 + 1)

LHS_AVG_MODEL = (
    "E||grad f(xbar^R)||^2 at the averaged global model xbar^R = (1/R) sum_{r=0}^{R-1} x^r, as printed "
    "(the proof bounds (1/R) sum_r E||grad f(x^r)||^2; see the @proof edition)"
)
LHS_AVG_ROUNDS = "(1/R) sum_{r=0}^{R-1} E||grad f(x^r)||^2: average over the rounds' global models"

# --- assumptions ---------------------------------------------------------------------------------------
ASM2 = Assumption(
    key="unbiased_bounded_variance_per_client",
    name="unbiased stochastic gradients with bounded variance, per client (Assumption 2)",
    statement=r"\forall i:\ \mathbb E[\mathbf g_i(\mathbf x)]=\nabla f_i(\mathbf x),\ \mathbb E_{\xi_i}\|\mathbf g_i(\mathbf x)-\nabla f_i(\mathbf x)\|^2\le\sigma^2",
    introduces=("sigma2",),
    note="g_i is the gradient the algorithm uses: a mini-batch gradient in Sec. 2, one sample in Assumption 2 / Table 5",
    picks=(Pick(name="sigma2", keys=("sigma2",), why="one-sample gradient, mean over samples, max over clients"),),
)
ASM4 = Assumption(
    key="bounded_gradient_dissimilarity_avg",
    name="bounded gradient dissimilarity on average over clients (Assumption 4)",
    statement=r"\mathbb E_{i\sim\mathcal U([N])}\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|^2\le G^2",
    introduces=("eps2",),
    note="printed with the norm not squared (eq. 52); the proof of Theorem 3 uses it for every client i "
    "(eqs. 65, 68), i.e. bounded_heterogeneity with eps^2 = G^2",
    picks=(Pick(name="eps2", keys=("eps2",), why="the proof uses it for every client: the max over clients"),),
)


def _step(
    name: str,
    lhs: sp.Expr,
    rhs: sp.Expr,
    printed: str,
    *,
    source: Source = "statement",
    where: str,
    group: str = "",
    note: str = "",
    rel: Relation = "<=",
) -> Hypothesis:
    return Hypothesis(
        name=name,
        lhs=lhs,
        rel=rel,
        rhs=rhs,
        kind="step_size",
        printed=printed,
        source=source,
        where=where,
        group=group,
        note=note,
    )


def _b_ge_1(where: str) -> Hypothesis:
    return Hypothesis(
        name="B^2>=1",
        lhs=B2,
        rel=">=",
        rhs=ONE,
        kind="domain",
        printed=r"B\ge 1",
        source="statement",
        where=where,
        note="Assumption 3 requires B >= 1; the proof uses it to bound 1 + 1/(2B^2) by 3/2",
    )


def _thm1_steps(where: str, source: Source = "statement") -> tuple[Hypothesis, ...]:
    g = r"eta_l<=1/(2NKL)min{...}"
    return (
        _step(
            "eta_l<=1/(2NKL sqrt(2B^2+1))",
            eta_l,
            ONE / (2 * M * K * L * SQ3),
            r"\eta_l\le\frac{1}{2NKL}\cdot\frac{1}{\sqrt{2B^2+1}}",
            source=source,
            where=where,
            group=g,
        ),
        _step(
            "eta_l<=1/(2NKL eta_g)",
            eta_l,
            ONE / (2 * M * K * L * eta_g),
            r"\eta_l\le\frac{1}{2NKL}\cdot\frac{1}{\eta_g}",
            source=source,
            where=where,
            group=g,
        ),
    )


_EQ47 = _step(
    "eq.(47) 2NKL eta_l<=1",
    eta_l,
    ONE / (2 * M * K * L),
    r"2NKL\eta_l\le 1",
    source="proof",
    where="App. D.2, eq. (47) (from Lemma 4)",
    group="proof",
    note="implied by the first branch since 2B^2+1 >= 1",
)

# ---------------------------------------------------------------------------------------------------
# Theorem 1 (SL), eq. (5)
_XBAR_DISC = Discrepancy(
    where="left-hand side of eqs. (5), (6), (49), (50), (51) vs the proofs (after (44) and (70))",
    printed=r"\mathbb E\|\nabla f(\bar{\mathbf x}^R)\|^2,\ \bar{\mathbf x}^R=\frac1R\sum_{r=0}^{R-1}\mathbf x^r",
    expected=r"\frac1R\sum_{r=0}^{R-1}\mathbb E\|\nabla f(\mathbf x^r)\|^2",
    note="the proofs bound the average of the gradient norms and pass to the averaged model by 'the fact' "
    "E||grad f(xbar^R)||^2 <= (1/R) sum_r E||grad f(x^r)||^2, which is Jensen for a convex x -> ||grad f(x)||^2 "
    "and fails for non-convex f in general; encoded as the @proof edition with the average as left-hand side.",
)
_SIGMA_DISC = Discrepancy(
    where="Assumption 2 and Sec. 2 vs Table 3 / Algorithm 1",
    printed=r"\xi_i\text{ is 'a data sample' (Sec. 2, Assumption 2, Table 5)}",
    expected=r"\mathbf g_i\text{ is 'the stochastic gradient over the mini-batch' (Sec. 2, Table 3)}",
    note="the scale of sigma^2 (one sample or one mini-batch of b) is not fixed; a single-sample sigma^2 gives a valid, looser bound.",
)
_T1_DISC = (
    _XBAR_DISC,
    _SIGMA_DISC,
    Discrepancy(
        where="Sec. 4.2 'Convergence rate' and App. D.5 vs eq. (5)",
        printed=r"\text{recovers SGD when }N=K=1\text{ (i.e., without the client drift error)}",
        expected=r"T_2=12\eta_l^2L^2G^2+6\eta_l^2L^2\sigma^2\ne0\text{ at }N=K=1",
        note="eq. (5) keeps its client-drift term at N = K = 1; the paper concedes 'it is true but not shown in Theorem 1 directly'.",
    ),
)
_T1_PROV = Provenance(
    seed=SEED, label="Theorem 1", equation="(5)", section="Sec. 4.2; proof in App. D.2, eqs. (30)-(48)"
)


def _t1_terms() -> tuple[Term, ...]:
    return (
        Term(
            name="initialisation",
            expr=4 * F / (M * K * eta_g * eta_l * T),
            meaning="T_1: initialization error 4F/(N K eta_g eta_l R)",
        ),
        Term(
            name="client drift (G^2)",
            expr=12 * M**2 * K**2 * eta_l**2 * L**2 * G2,
            meaning="T_2: client drift error, heterogeneity part 12 N^2 K^2 eta_l^2 L^2 G^2",
        ),
        Term(
            name="client drift (sigma^2)",
            expr=6 * M**2 * K * eta_l**2 * L**2 * sigma2,
            meaning="T_2: client drift error, variance part 6 N^2 K eta_l^2 L^2 sigma^2",
        ),
        Term(
            name="global variance",
            expr=4 * M * eta_g * eta_l * L * sigma2,
            meaning="T_3: global variance 4 N eta_g eta_l L sigma^2",
        ),
    )


_T1_DEFAULTS = (
    Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
    Default(name="eta_l", expr=eta_tilde / (M * K * eta_g), rule="TODO(rule)"),
)
_T1_STATEMENT = r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{NK\eta_g\eta_lR}+12N^2K^2\eta_l^2L^2G^2+6N^2K\eta_l^2L^2\sigma^2+4N\eta_g\eta_lL\sigma^2"
_T1_ASSUMPTIONS = (SMOOTHNESS_PER_CLIENT, ASM2, BOUNDED_DISSIMILARITY)

THM1 = Result(
    paper=PAPER,
    label="thm1",
    kind="theorem",
    title="Split learning (sequential clients, global step eta_g): non-convex convergence",
    provenance=_T1_PROV,
    lhs=LHS_AVG_MODEL,
    terms=_t1_terms(),
    hypotheses=(*_thm1_steps("Theorem 1"), _b_ge_1("Assumption 3; used after eq. (42)"), _EQ47),
    assumptions=_T1_ASSUMPTIONS,
    statement=_T1_STATEMENT,
    step="eta_l",
    defaults=_T1_DEFAULTS,
    discrepancies=_T1_DISC,
    notes=(
        "eta_g defaults to 1 (vanilla SL, Algorithm 1 without steps 13-14); eta_tilde = N K eta_g eta_l may be given instead of eta_l.",
        "The analysis takes f = (1/N) sum_i f_i with all N clients per round (|S| = N); the weighted eq. (1) is 'readily extended', not proven.",
    ),
)

THM1_PROOF = Result(
    paper=PAPER,
    label="thm1",
    kind="theorem",
    title="Split learning: the bound the proof derives, eq. (44), under (45)-(47)",
    provenance=Provenance(
        seed=SEED, label="Theorem 1, proof", equation="(44)", section="App. D.2; constraints (45)-(48)"
    ),
    lhs=LHS_AVG_ROUNDS,
    terms=_t1_terms(),
    hypotheses=(
        _step(
            "eq.(45) D=4N^2K^2L^2eta_l^2<=1/(2B^2+1)",
            eta_l,
            ONE / (2 * M * K * L * SQ3),
            r"D=4N^2K^2L^2\eta_l^2\le\frac{1}{2B^2+1}",
            where="App. D.2, eq. (45)",
            group="(45)-(47)",
        ),
        _step(
            "eq.(46) 2NK eta_g eta_l L<=1",
            eta_l,
            ONE / (2 * M * K * L * eta_g),
            r"2NK\eta_g\eta_lL\le 1",
            where="App. D.2, eq. (46)",
            group="(45)-(47)",
        ),
        _step(
            "eq.(47) 2NKL eta_l<=1",
            eta_l,
            ONE / (2 * M * K * L),
            r"2NKL\eta_l\le 1",
            where="App. D.2, eq. (47) (from Lemma 4)",
            group="(45)-(47)",
        ),
        _b_ge_1("App. D.2, after eq. (42) ('and B >= 1')"),
    ),
    assumptions=_T1_ASSUMPTIONS,
    edition="proof",
    statement=r"\frac1R\sum_{r=0}^{R-1}\mathbb E\|\nabla f(\mathbf x^r)\|^2\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{NK\eta_g\eta_lR}+12N^2K^2\eta_l^2L^2G^2+6N^2K\eta_l^2L^2\sigma^2+4N\eta_g\eta_lL\sigma^2",
    step="eta_l",
    defaults=_T1_DEFAULTS,
    discrepancies=_T1_DISC,
    notes=(
        "The terms equal eq. (5) term for term; we re-derived (41)-(44) from (38)-(40) and Lemma 4 and found them consistent.",
        "(45) and (46) are the two branches of (48); (47) is implied by (45).",
    ),
)

# ---------------------------------------------------------------------------------------------------
# Lemma 4, eq. (16)
_D_L4 = 4 * M**2 * K**2 * eta_l**2 * L**2
LEM4 = Result(
    paper=PAPER,
    label="lem4",
    kind="lemma",
    title="Bounded client drift of sequential local updates in one round",
    provenance=Provenance(seed=SEED, label="Lemma 4", equation="(16)", section="App. D.1; proof eqs. (17)-(29)"),
    lhs="client drift in round r: sum_{i=1}^{N} sum_{k=0}^{K-1} E||x_i^{(r,k)} - x^r||^2",
    terms=(
        Term(
            name="variance",
            expr=2 * M**3 * K**2 * eta_l**2 * sigma2 / (1 - _D_L4),
            meaning="2 N^3 K^2 eta_l^2 sigma^2 / (1 - 4N^2K^2eta_l^2L^2)",
        ),
        Term(
            name="gradient",
            expr=4 * M**3 * K**3 * eta_l**2 * B2 * gradnorm2_f / (1 - _D_L4),
            meaning="4 N^3 K^3 eta_l^2 B^2 ||grad f(x^r)||^2 / (1 - 4N^2K^2eta_l^2L^2)",
        ),
        Term(
            name="heterogeneity",
            expr=4 * M**3 * K**3 * eta_l**2 * G2 / (1 - _D_L4),
            meaning="4 N^3 K^3 eta_l^2 G^2 / (1 - 4N^2K^2eta_l^2L^2)",
        ),
    ),
    hypotheses=(
        _step("eta_l<=1/(2NKL)", eta_l, ONE / (2 * M * K * L), r"\eta_l\le\frac{1}{2NKL}", where="Lemma 4"),
        Hypothesis(
            name="1-4N^2K^2eta_l^2L^2>0",
            lhs=1 - _D_L4,
            rel=">",
            rhs=sp.Integer(0),
            kind="validity",
            printed=r"4N^2K^2\eta_l^2L^2<1",
            source="proof",
            where="App. D.1, after eq. (29) ('Using 4N^2K^2eta_l^2L^2 < 1 and dividing')",
            note="the denominator of (16); the statement's eta_l <= 1/(2NKL) allows it to vanish",
        ),
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, ASM2, BOUNDED_DISSIMILARITY),
    statement=r"\sum_{i=1}^N\sum_{k=0}^{K-1}\mathbb E\|\mathbf x_i^{(r,k)}-\mathbf x^r\|^2\le\frac{2N^3K^2\eta_l^2\sigma^2+4N^3K^3\eta_l^2(B^2\|\nabla f(\mathbf x^r)\|^2+G^2)}{1-4N^2K^2\eta_l^2L^2}",
    step="eta_l",
    discrepancies=(
        Discrepancy(
            where="Lemma 4 condition vs its proof",
            printed=r"\eta_l\le\frac{1}{2NKL}",
            expected=r"\eta_l<\frac{1}{2NKL}",
            note="at eta_l = 1/(2NKL) the denominator 1 - 4N^2K^2eta_l^2L^2 of (16) is 0; the proof divides by it "
            "'using 4N^2K^2eta_l^2L^2 < 1'. Theorem 1's branches keep eta_l strictly below (B >= 1).",
        ),
        _SIGMA_DISC,
    ),
    notes=("We re-derived (20)-(29) (sum_i i^2 <= N^3, sum_i i <= N^2) and found them consistent.",),
)

# ---------------------------------------------------------------------------------------------------
# Corollary 1, eq. (6)
_C1_PROV = Provenance(seed=SEED, label="Corollary 1", equation="(6)", section="Sec. 4.2 (no proof printed)")
_eta_l_c1 = ONE / (eta_g * L * sp.sqrt(T_IT))
_C1_HYPS = (
    Hypothesis(
        name="choice eta_g eta_l = 1/(L sqrt(T)), T = NKR",
        lhs=eta_g * eta_l,
        rel="==",
        rhs=ONE / (L * sp.sqrt(T_IT)),
        kind="choice",
        printed=r"\eta_g\eta_l=\frac{1}{L\sqrt T},\ T=NKR",
        where="Corollary 1",
    ),
    Hypothesis(
        name="T=NKR>=4N^2K^2(2B^2+1)/eta_g^2",
        lhs=T_IT,
        rel=">=",
        rhs=4 * M**2 * K**2 * (2 * B2 + 1) / eta_g**2,
        kind="domain",
        printed=r"T\ge4N^2K^2\frac{2B^2+1}{\eta_g^2}",
        where="Corollary 1",
        group="T>=4N^2K^2 max{...}",
        note="equivalent to Theorem 1's first branch at the corollary's eta_l",
    ),
    Hypothesis(
        name="T=NKR>=4N^2K^2",
        lhs=T_IT,
        rel=">=",
        rhs=4 * M**2 * K**2,
        kind="domain",
        printed=r"T\ge4N^2K^2",
        where="Corollary 1",
        group="T>=4N^2K^2 max{...}",
        note="equivalent to Theorem 1's second branch at the corollary's eta_l",
    ),
    _b_ge_1("Assumption 3 (via Theorem 1)"),
)
_C1_DISC = (
    Discrepancy(
        where="Corollary 1, eq. (6), T_3",
        printed=r"\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right)",
        expected=r"\frac{4N\sigma^2}{\sqrt T}",
        note="Theorem 1's 4N eta_g eta_l L sigma^2 at eta_g eta_l = 1/(L sqrt T) is 4N sigma^2/sqrt(T); (6) drops N while "
        "keeping N^2 in T_2. The rates of 'Effect of eta_g' (Sec. 4.2) inherit the missing N.",
    ),
    Discrepancy(
        where="Corollary 1 condition",
        printed=r"\max\left\{\frac{2B^2+1}{\eta_q^2},1\right\}",
        expected=r"\max\left\{\frac{2B^2+1}{\eta_g^2},1\right\}",
        note="typo: eta_q for eta_g (the condition is exactly Theorem 1's branches at the corollary's step).",
    ),
    _XBAR_DISC,
)

COR1 = Result(
    paper=PAPER,
    label="cor1",
    kind="corollary",
    title="Split learning rate at eta_g eta_l = 1/(L sqrt T), T = NKR iterations",
    provenance=_C1_PROV,
    lhs=LHS_AVG_MODEL,
    terms=(),
    hypotheses=_C1_HYPS,
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}\right)+\mathcal O\left(\frac{N^2K^2G^2+N^2K\sigma^2}{\eta_g^2T}\right)+\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right)",
    rate=r"\mathcal O\left(\frac{L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}\right)+\mathcal O\left(\frac{N^2K^2G^2+N^2K\sigma^2}{\eta_g^2T}\right)+\mathcal O\left(\frac{\sigma^2}{\sqrt T}\right)",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_c1, rule="TODO(rule)"),
    ),
    explicit=False,
    see="sl_noniid/cor1@explicit",
    discrepancies=_C1_DISC,
    notes=(
        "T in (6) is the total number of iterations N K R (canonical M*K*T).",
        "Sec. 4.2 ('Effect of eta_g') reads off O((LF+sigma^2)/sqrt(T) + (N^2K^2G^2+N^2K sigma^2)/T) at eta_g = 1 and "
        "O((LF+sigma^2)/sqrt(T) + (K^2G^2+K sigma^2)/T) at eta_g = N.",
    ),
)

COR1_EXPLICIT = Result(
    paper=PAPER,
    label="cor1",
    kind="corollary",
    title="Corollary 1 before the O-step: eq. (5) at eta_g eta_l = 1/(L sqrt T)",
    provenance=Provenance(
        seed=SEED,
        label="Corollary 1 (Theorem 1 at the corollary's choice)",
        equation="(5) with eta_g eta_l = 1/(L sqrt(NKR))",
        section="Sec. 4.2; the substitution is ours, no proof is printed",
    ),
    lhs=LHS_AVG_MODEL,
    terms=(
        Term(name="initialisation", expr=4 * L * F / sp.sqrt(T_IT), meaning="T_1: 4 L F / sqrt(T), T = NKR"),
        Term(
            name="client drift (G^2)",
            expr=12 * M**2 * K**2 * G2 / (eta_g**2 * T_IT),
            meaning="T_2: 12 N^2 K^2 G^2 / (eta_g^2 T)",
        ),
        Term(
            name="client drift (sigma^2)",
            expr=6 * M**2 * K * sigma2 / (eta_g**2 * T_IT),
            meaning="T_2: 6 N^2 K sigma^2 / (eta_g^2 T)",
        ),
        Term(
            name="global variance",
            expr=4 * M * sigma2 / sp.sqrt(T_IT),
            meaning="T_3: 4 N sigma^2 / sqrt(T) (printed without N)",
        ),
    ),
    hypotheses=(*_C1_HYPS, *_thm1_steps("Theorem 1, applied by Corollary 1")),
    assumptions=_T1_ASSUMPTIONS,
    edition="explicit",
    statement=r"\frac{4L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt T}+\frac{12N^2K^2G^2+6N^2K\sigma^2}{\eta_g^2T}+\frac{4N\sigma^2}{\sqrt T},\quad T=NKR",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_c1, rule="TODO(rule)"),
    ),
    discrepancies=_C1_DISC,
    notes=(
        "eta_l defaults to the corollary's 1/(eta_g L sqrt(NKR)); the value then equals Theorem 1's bound at that eta_l.",
    ),
)

# ---------------------------------------------------------------------------------------------------
# Corollary 2, eq. (49)
_C2_PROV = Provenance(
    seed=SEED, label="Corollary 2", equation="(49)", section="App. D.2 (after the proof of Theorem 1; no proof printed)"
)
_eta_l_c2 = ONE / (M * K * eta_g * sp.sqrt(T))
_C2_HYPS = (
    Hypothesis(
        name="choice NK eta_g eta_l = 1/sqrt(R)",
        lhs=M * K * eta_g * eta_l,
        rel="==",
        rhs=ONE / sp.sqrt(T),
        kind="choice",
        printed=r"NK\eta_g\eta_l=\frac{1}{\sqrt R}",
        where="Corollary 2",
    ),
    Hypothesis(
        name="R>=4L^2(2B^2+1)/eta_g^2",
        lhs=T,
        rel=">=",
        rhs=4 * L**2 * (2 * B2 + 1) / eta_g**2,
        kind="domain",
        printed=r"R\ge4L^2\frac{2B^2+1}{\eta_g^2}",
        source="implicit",
        where="Corollary 2 ('for sufficiently large R')",
        group="R large",
        note="Theorem 1's first branch at eta_l = 1/(NK eta_g sqrt(R)); the corollary only says 'sufficiently large R'",
    ),
    Hypothesis(
        name="R>=4L^2",
        lhs=T,
        rel=">=",
        rhs=4 * L**2,
        kind="domain",
        printed=r"R\ge4L^2",
        source="implicit",
        where="Corollary 2 ('for sufficiently large R')",
        group="R large",
        note="Theorem 1's second branch at eta_l = 1/(NK eta_g sqrt(R))",
    ),
    _b_ge_1("Assumption 3 (via Theorem 1)"),
)
_C2_DISC = (
    Discrepancy(
        where="Corollary 2, eq. (49), second term",
        printed=r"\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)",
        expected=r"\frac{12L^2G^2}{\eta_g^2R}+\frac{6L^2\sigma^2}{\eta_g^2KR}=\mathcal O\left(\frac{KG^2+\sigma^2}{KR}\right)",
        note="Theorem 1's T_2 at NK eta_g eta_l = 1/sqrt(R) decays as 1/R; Sec. 4.3's display (ii) for the same choice prints (KG^2+sigma^2)/(KR).",
    ),
    _XBAR_DISC,
)

COR2 = Result(
    paper=PAPER,
    label="cor2",
    kind="corollary",
    title="Split learning rate in rounds at the effective step N K eta_g eta_l = 1/sqrt(R)",
    provenance=_C2_PROV,
    lhs=LHS_AVG_MODEL,
    terms=(),
    hypotheses=_C2_HYPS,
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{F}{\sqrt R}\right)+\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)+\mathcal O\left(\frac{\sigma^2}{K\sqrt R}\right)",
    rate=r"\mathcal O\left(\frac{F}{\sqrt R}\right)+\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)+\mathcal O\left(\frac{\sigma^2}{K\sqrt R}\right)",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_c2, rule="TODO(rule)"),
    ),
    explicit=False,
    see="sl_noniid/cor2@explicit",
    discrepancies=_C2_DISC,
)

COR2_EXPLICIT = Result(
    paper=PAPER,
    label="cor2",
    kind="corollary",
    title="Corollary 2 before the O-step: eq. (5) at N K eta_g eta_l = 1/sqrt(R)",
    provenance=Provenance(
        seed=SEED,
        label="Corollary 2 (Theorem 1 at the corollary's choice)",
        equation="(5) with NK eta_g eta_l = 1/sqrt(R)",
        section="App. D.2; the substitution is ours, no proof is printed",
    ),
    lhs=LHS_AVG_MODEL,
    terms=(
        Term(name="initialisation", expr=4 * F / sp.sqrt(T), meaning="4F/sqrt(R)"),
        Term(name="client drift (G^2)", expr=12 * L**2 * G2 / (eta_g**2 * T), meaning="12 L^2 G^2/(eta_g^2 R)"),
        Term(
            name="client drift (sigma^2)",
            expr=6 * L**2 * sigma2 / (eta_g**2 * K * T),
            meaning="6 L^2 sigma^2/(eta_g^2 K R)",
        ),
        Term(name="global variance", expr=4 * L * sigma2 / (K * sp.sqrt(T)), meaning="4 L sigma^2/(K sqrt(R))"),
    ),
    hypotheses=(*_C2_HYPS, *_thm1_steps("Theorem 1, applied by Corollary 2")),
    assumptions=_T1_ASSUMPTIONS,
    edition="explicit",
    statement=r"\frac{4F}{\sqrt R}+\frac{12L^2G^2}{\eta_g^2R}+\frac{6L^2\sigma^2}{\eta_g^2KR}+\frac{4L\sigma^2}{K\sqrt R}",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_c2, rule="TODO(rule)"),
    ),
    discrepancies=_C2_DISC,
)

# ---------------------------------------------------------------------------------------------------
# Corollary 3, eq. (50): Lemma 2 of Karimireddy et al. (2020) applied to (44).
# (44) in gamma = N K eta_g eta_l:  r0/(gamma R) + b gamma + e gamma^2 with gamma <= 1/dd.
_r0 = 4 * F
_b = 4 * L * sigma2 / K
_e = L**2 * (12 * G2 + 6 * sigma2 / K) / eta_g**2
_dd = 2 * L * sp.Max(SQ3 / eta_g, ONE)
_gamma_star = sp.Min(1 / _dd, sp.sqrt(_r0 / (_b * T)), (_r0 / (_e * T)) ** sp.Rational(1, 3))
_C3_PROV = Provenance(
    seed=SEED,
    label="Corollary 3",
    equation="(50)",
    section="App. D.2 (proof: Lemma 2 of Karimireddy et al. (2020) applied to eq. (44))",
)
_C3_DISC = (
    Discrepancy(
        where="Corollary 3, eq. (50), third term",
        printed=r"\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right)",
        expected=r"\mathcal O\left(\frac{\sqrt{F\sigma^2}}{\sqrt{K(R+1)}}\right)",
        note="Lemma 2 gives 2 sqrt(c r_0/(R+1)) with c = 4 L sigma^2/K and r_0 = 4F, i.e. 8 sqrt(L F sigma^2/(K R)); F sigma^2 "
        "without the root does not even have the units of ||grad f||^2.",
    ),
    Discrepancy(
        where="Corollary 3, eq. (50), R + 1",
        printed=r"R+1",
        expected=r"R",
        note="(44) averages the R rounds r = 0..R-1; Lemma 2 of Karimireddy et al. averages R+1 terms, which here are R.",
    ),
    _XBAR_DISC,
)

COR3 = Result(
    paper=PAPER,
    label="cor3",
    kind="corollary",
    title="Split learning: tuned step size (there exists eta_l)",
    provenance=_C3_PROV,
    lhs=LHS_AVG_MODEL,
    terms=(),
    hypotheses=(_b_ge_1("Assumption 3 (via Theorem 1)"),),
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{F\sqrt{(2B^2+1)}}{R+1}\right)+\mathcal O\left(\frac{F^{\frac23}(G^2+\frac{\sigma^2}{K})^{\frac13}}{(R+1)^{\frac23}}\right)+\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right)",
    rate=r"\mathcal O\left(\frac{F\sqrt{(2B^2+1)}}{R+1}\right)+\mathcal O\left(\frac{F^{\frac23}(G^2+\frac{\sigma^2}{K})^{\frac13}}{(R+1)^{\frac23}}\right)+\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right)",
    explicit=False,
    see="sl_noniid/cor3@explicit",
    discrepancies=_C3_DISC,
)

COR3_EXPLICIT = Result(
    paper=PAPER,
    label="cor3",
    kind="corollary",
    title="Corollary 3 before the O-step: Lemma 2 of Karimireddy et al. applied to eq. (44)",
    provenance=Provenance(
        seed=SEED,
        label="Corollary 3, proof",
        equation="(44) with Lemma 2 of Karimireddy et al. (2020)",
        section="App. D.2; constants worked out by us",
    ),
    lhs=LHS_AVG_MODEL,
    terms=(
        Term(
            name="step-size limit",
            expr=_dd * _r0 / T,
            meaning="d r_0/R = 8 L max{sqrt(2B^2+1)/eta_g, 1} F/R (printed O(F sqrt(2B^2+1)/(R+1)))",
        ),
        Term(
            name="variance",
            expr=2 * sp.sqrt(_b * _r0 / T),
            meaning="2 sqrt(c r_0/R) = 8 sqrt(L F sigma^2/(K R)) (printed O(F sigma^2/sqrt(K(R+1))))",
        ),
        Term(
            name="client drift",
            expr=2 * _e ** sp.Rational(1, 3) * (_r0 / T) ** sp.Rational(2, 3),
            meaning="2 e^{1/3} (r_0/R)^{2/3}, e = L^2(12G^2 + 6 sigma^2/K)/eta_g^2",
        ),
    ),
    hypotheses=(
        Hypothesis(
            name="choice eta_l = gamma*/(NK eta_g) (Lemma 2)",
            lhs=eta_l,
            rel="==",
            rhs=_gamma_star / (M * K * eta_g),
            kind="choice",
            printed=r"\eta_l=\frac{1}{NK\eta_g}\min\left\{\frac1d,\sqrt{\frac{r_0}{cR}},\left(\frac{r_0}{eR}\right)^{1/3}\right\}",
            source="implicit",
            where="Corollary 3 ('there exists eta_l'); the step of Lemma 2's proof",
            note="the explicit bound holds at this eta_l, not at every admissible one",
        ),
        *_thm1_steps("Theorem 1, applied by Corollary 3"),
        _b_ge_1("Assumption 3 (via Theorem 1)"),
    ),
    assumptions=_T1_ASSUMPTIONS,
    edition="explicit",
    statement=r"\frac{8L\max\{\sqrt{2B^2+1}/\eta_g,1\}F}{R}+8\sqrt{\frac{LF\sigma^2}{KR}}+2\left(\frac{L^2(12G^2+6\sigma^2/K)}{\eta_g^2}\right)^{1/3}\left(\frac{4F}{R}\right)^{2/3}",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_gamma_star / (M * K * eta_g), rule="TODO(rule)"),
    ),
    discrepancies=_C3_DISC,
    notes=(
        "Not printed: (44) reads r_0/(gamma R) + c gamma + e gamma^2 in gamma = N K eta_g eta_l with r_0 = 4F, c = 4L sigma^2/K, "
        "e = L^2(12G^2 + 6 sigma^2/K)/eta_g^2 and gamma <= 1/d, d = 2L max{sqrt(2B^2+1)/eta_g, 1} (Theorem 1's branches); "
        "gamma = min{1/d, sqrt(r_0/(cR)), (r_0/(eR))^{1/3}} bounds it by d r_0/R + 2 sqrt(c r_0/R) + 2 e^{1/3}(r_0/R)^{2/3}.",
        "At eta_g = 1 (Table 6) and B >= 1, d = 2L sqrt(2B^2+1): the printed first term.",
        "When 1/d is the minimum, the default eta_l lies on Theorem 1's first branch, where rounding may tip the '<=' check.",
    ),
)

# ---------------------------------------------------------------------------------------------------
# Theorem 2 (FedAvg), eq. (51)
_T2_PROV = Provenance(
    seed=SEED,
    label="Theorem 2",
    equation="(51)",
    section="App. D.3 (restating Theorem 1 of Wang et al. (2020); proof not printed)",
)


def _thm2_steps(where: str) -> tuple[Hypothesis, ...]:
    g = r"eta_l<=1/(2KL)min{...}"
    return (
        _step(
            "eta_l<=1/(2KL sqrt(2B^2+1))",
            eta_l,
            ONE / (2 * K * L * SQ3),
            r"\eta_l\le\frac{1}{2KL}\cdot\frac{1}{\sqrt{2B^2+1}}",
            where=where,
            group=g,
        ),
        _step(
            "eta_l<=1/(2KL eta_g)",
            eta_l,
            ONE / (2 * K * L * eta_g),
            r"\eta_l\le\frac{1}{2KL}\cdot\frac{1}{\eta_g}",
            where=where,
            group=g,
        ),
    )


_T2_DISC = (
    Discrepancy(
        where="Theorem 2 text",
        printed=r"\text{For Algorithm 1, it holds that}",
        expected=r"\text{for FedAvg with a global step }\eta_g",
        note="Algorithm 1 is split learning; FedAvg (local SGD with global step eta_g) is never written out (Table 5 gives it without eta_g).",
    ),
    Discrepancy(
        where="Theorem 2 proof",
        printed=r"\text{This is almost the same as Theorem 1 of Wang et al. (2020) [...] The proof is similar to that of Theorem 1.}",
        expected=r"\text{a proof}",
        note="no derivation is printed, so neither the constants nor the step-size condition can be checked against the seed.",
    ),
    _XBAR_DISC,
)
_T2_TERMS = (
    Term(name="initialisation", expr=4 * F / (K * eta_g * eta_l * T), meaning="T_1: 4F/(K eta_g eta_l R)"),
    Term(
        name="client drift (G^2)",
        expr=12 * K * (K - 1) * eta_l**2 * L**2 * G2,
        meaning="T_2: 12 K(K-1) eta_l^2 L^2 G^2",
    ),
    Term(
        name="client drift (sigma^2)",
        expr=6 * (K - 1) * eta_l**2 * L**2 * sigma2,
        meaning="T_2: 6 (K-1) eta_l^2 L^2 sigma^2",
    ),
    Term(name="global variance", expr=4 * eta_g * eta_l * L * sigma2 / M, meaning="T_3: 4 eta_g eta_l L sigma^2/N"),
)

THM2 = Result(
    paper=PAPER,
    label="thm2",
    kind="theorem",
    title="FedAvg with a global step (for comparison with split learning): non-convex convergence",
    provenance=_T2_PROV,
    lhs="E||grad f(xbar^R)||^2 at the averaged global model of FedAvg, as printed",
    terms=_T2_TERMS,
    hypotheses=(*_thm2_steps("Theorem 2"), _b_ge_1("Assumption 3")),
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{K\eta_g\eta_lR}+12K(K-1)\eta_l^2L^2G^2+6(K-1)\eta_l^2L^2\sigma^2+\frac{4\eta_g\eta_lL\sigma^2}{N}",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=eta_tilde / (K * eta_g), rule="TODO(rule)"),
    ),
    discrepancies=_T2_DISC,
    notes=(
        "eta_g defaults to 1; eta_tilde = K eta_g eta_l (FedAvg's effective learning rate) may be given instead of eta_l.",
    ),
)

# Sec. 4.3: "Choosing eta_l = sqrt(N)/(L sqrt(T)) for Theorem 2 provides the O(1/sqrt(NT)) convergence rate"
_SPEED_PROV = Provenance(
    seed=SEED,
    label="Sec. 4.3 (after Table 1)",
    equation=None,
    section="Sec. 4.3, 'Choosing eta_l = sqrt(N)/(L sqrt(T)) for Theorem 2'",
)
_eta_l_speed = sp.sqrt(M) / (L * sp.sqrt(K * T))
_SPEED_DISC = (
    Discrepancy(
        where="Sec. 4.3, the meaning of T",
        printed=r"\eta_l=\frac{\sqrt N}{L\sqrt T}\ \Rightarrow\ \mathcal O(1/\sqrt{NT})",
        expected=r"T=KR\text{ here, whereas Corollary 1 defines }T=NKR",
        note="only with T = KR (iterations per client) does Theorem 2 give 4LF/sqrt(NT) + 4 sigma^2/sqrt(NT); T is overloaded.",
    ),
    _XBAR_DISC,
)
_SPEED_HYPS = (
    Hypothesis(
        name="choice eta_l = sqrt(N)/(L sqrt(KR))",
        lhs=eta_l,
        rel="==",
        rhs=_eta_l_speed,
        kind="choice",
        printed=r"\eta_l=\frac{\sqrt N}{L\sqrt T},\ T=KR",
        where="Sec. 4.3",
    ),
    Hypothesis(
        name="eta_g = 1",
        lhs=eta_g,
        rel="==",
        rhs=ONE,
        kind="choice",
        printed=r"\eta_g=1",
        source="implicit",
        where="Sec. 4.3 / Table 1 caption ('eta_g is set to eta_g = 1')",
        note="the rate O(1/sqrt(NT)) needs eta_g = 1 with this eta_l",
    ),
    *_thm2_steps("Theorem 2, applied in Sec. 4.3"),
    _b_ge_1("Assumption 3 (via Theorem 2)"),
)
SPEEDUP = Result(
    paper=PAPER,
    label="sec4.3.speedup",
    kind="corollary",
    title="FedAvg's linear speedup: Theorem 2 at eta_l = sqrt(N)/(L sqrt(T))",
    provenance=_SPEED_PROV,
    lhs="E||grad f(xbar^R)||^2 for FedAvg (Theorem 2)",
    terms=(),
    hypotheses=_SPEED_HYPS,
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathcal O(1/\sqrt{NT})",
    rate=r"\mathcal O(1/\sqrt{NT})",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_speed, rule="TODO(rule)"),
    ),
    explicit=False,
    see="sl_noniid/sec4.3.speedup@explicit",
    discrepancies=_SPEED_DISC,
)
SPEEDUP_EXPLICIT = Result(
    paper=PAPER,
    label="sec4.3.speedup",
    kind="corollary",
    title="Theorem 2 at eta_g = 1, eta_l = sqrt(N)/(L sqrt(KR)) before the O-step",
    provenance=Provenance(
        seed=SEED,
        label="Sec. 4.3 (Theorem 2 at the printed choice)",
        equation="(51) with eta_l = sqrt(N)/(L sqrt(KR))",
        section="Sec. 4.3; the substitution is ours",
    ),
    lhs="E||grad f(xbar^R)||^2 for FedAvg (Theorem 2)",
    terms=(
        Term(name="initialisation", expr=4 * L * F / sp.sqrt(M * K * T), meaning="4 L F/sqrt(N K R)"),
        Term(
            name="client drift (G^2)",
            expr=12 * (K - 1) * M * G2 / T,
            meaning="12 (K-1) N G^2/R: not O(1/sqrt(NT)) until R is large",
        ),
        Term(name="client drift (sigma^2)", expr=6 * (K - 1) * M * sigma2 / (K * T), meaning="6 (K-1) N sigma^2/(K R)"),
        Term(name="global variance", expr=4 * sigma2 / sp.sqrt(M * K * T), meaning="4 sigma^2/sqrt(N K R)"),
    ),
    hypotheses=_SPEED_HYPS,
    assumptions=_T1_ASSUMPTIONS,
    edition="explicit",
    statement=r"\frac{4L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt{NT}}+\frac{12K(K-1)NG^2+6(K-1)N\sigma^2}{T}+\frac{4\sigma^2}{\sqrt{NT}},\quad T=KR",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=_eta_l_speed, rule="TODO(rule)"),
    ),
    discrepancies=_SPEED_DISC,
)

# ---------------------------------------------------------------------------------------------------
# Theorem 3 (progress of one client in one round), eq. (53)
_T3_PROV = Provenance(seed=SEED, label="Theorem 3", equation="(53)", section="App. D.4; proof eqs. (54)-(73)")
_D_T3 = 4 * K**2 * L**2 * eta_l**2
THM3 = Result(
    paper=PAPER,
    label="thm3",
    kind="theorem",
    title="Split learning, progress of one client in one round: convergence to a neighbourhood",
    provenance=_T3_PROV,
    lhs="(1/(NR)) sum_{r=0}^{R-1} sum_{i=1}^{N} E||grad f(x_i^{(r,0)})||^2: average over every client's starting model in every round",
    terms=(
        Term(name="initialisation", expr=4 * F / (M * K * eta_l * T), meaning="4F/(N K eta_l R)"),
        Term(
            name="client drift (G^2)",
            expr=40 * K**2 * L**2 * eta_l**2 * eps2,
            meaning="40 K^2 L^2 eta_l^2 G^2 (G^2 of Assumption 4 = eps2)",
        ),
        Term(name="client drift (sigma^2)", expr=10 * K * L**2 * eta_l**2 * sigma2, meaning="10 K L^2 eta_l^2 sigma^2"),
        Term(name="variance", expr=4 * L * eta_l * sigma2, meaning="4 L eta_l sigma^2"),
        Term(
            name="heterogeneity floor",
            expr=4 * eps2,
            meaning="4 G^2: does not vanish (convergence to a neighbourhood, App. C)",
        ),
    ),
    hypotheses=(
        _step(
            "eta_l<=1/(2 sqrt5 KL)",
            eta_l,
            ONE / (2 * sp.sqrt(5) * K * L),
            r"\eta_l\le\frac{1}{2\sqrt5KL}",
            where="Theorem 3; eq. (73)",
        ),
        _step(
            "eq.(71) D=4K^2L^2eta_l^2<=1/5",
            eta_l,
            ONE / (2 * sp.sqrt(5) * K * L),
            r"D=4K^2L^2\eta_l^2\le\frac15",
            source="proof",
            where="App. D.4, eq. (71)",
            group="proof",
        ),
        _step(
            "eq.(72) 2K eta_l L<=1",
            eta_l,
            ONE / (2 * K * L),
            r"2K\eta_lL\le1",
            source="proof",
            where="App. D.4, eq. (72)",
            group="proof",
        ),
        _step(
            "(68) with Young's factor 2: eta_l<=1/(6KL)",
            eta_l,
            ONE / (6 * K * L),
            r"4D/(1-D)\le1/2,\ \text{i.e. }D\le\frac19",
            source="implicit",
            where="App. D.4, eqs. (68)-(69)",
            group="implicit",
            note="bounding ||grad f_i||^2 <= 2||grad f||^2 + 2G^2 (as done for G^2) gives -(1/2)(1 - 4D/(1-D)); the -1/4 of (69) then needs D <= 1/9. Under it the printed coefficients 40 and 10 still hold (they become 36 and 9)",
        ),
        Hypothesis(
            name="eta_g = 1",
            lhs=eta_g,
            rel="==",
            rhs=ONE,
            kind="choice",
            printed=r"\eta_g=1",
            source="implicit",
            where="App. D.4, eq. (70) (telescoping over i and r)",
            note="summing f(x_{i+1}^{(r,0)}) - f(x_i^{(r,0)}) over i, r telescopes to f(x^R) - f(x^0) only if x^{r+1} = x_N^{(r,K)}, i.e. eta_g = 1",
        ),
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, ASM2, ASM4, BOUNDED_HETEROGENEITY),
    statement=r"\frac{1}{NR}\sum_{r=0}^{R-1}\sum_{i=1}^N\mathbb E\|\nabla f(\mathbf x_i^{(r,0)})\|^2\le\frac{4[f(\mathbf x^0)-f(\mathbf x^*)]}{NK\eta_lR}+40K^2L^2\eta_l^2G^2+10KL^2\eta_l^2\sigma^2+4L\eta_l\sigma^2+4G^2",
    step="eta_l",
    defaults=(
        Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
        Default(name="eta_l", expr=eta_tilde / K, rule="TODO(rule)"),
    ),
    discrepancies=(
        Discrepancy(
            where="Theorem 3 statement vs App. D.4",
            printed=r"\text{Let Assumptions 1, 2 and 3 hold.}",
            expected=r"\text{Assumptions 1, 2 and 4}",
            note="App. D.4 opens 'we use Assumption 4 to replace Assumption 3'; the G^2 of (65), (68) and (53) is Assumption 4's (encoded as eps2).",
        ),
        Discrepancy(
            where="Assumption 4, eq. (52)",
            printed=r"\mathbb E_{i\sim\mathcal U([N])}\left[\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|\right]\le G^2",
            expected=r"\|\nabla f_i(\mathbf x)-\nabla f(\mathbf x)\|^2\le G^2\ \forall i",
            note="the norm is not squared; and (65), (68) use the bound for each client i at its own point x_i^{(r,0)}, not on average over i.",
        ),
        Discrepancy(
            where="App. D.4, eq. (68)",
            printed=r"-\frac12\left(1-\frac{2D}{1-D}\right)\|\nabla f(\mathbf x_i^{(r,0)})\|^2",
            expected=r"-\frac12\left(1-\frac{4D}{1-D}\right)\|\nabla f(\mathbf x_i^{(r,0)})\|^2",
            note="(67) brings D/(1-D) ||grad f_i||^2 and ||grad f_i||^2 <= 2||grad f||^2 + 2G^2 (the factor 2 is kept on G^2: 2D/(1-D) G^2); "
            "with D <= 1/5 the corrected coefficient is 0, so (69)'s -1/4 needs D <= 1/9 (eta_l <= 1/(6KL)), recorded as an implicit condition.",
        ),
        Discrepancy(
            where="App. D.4, eq. (64)",
            printed=r"\mathbb E\|\nabla f_i(\mathbf x_i^{(r,k)})-\nabla f(\mathbf x_i^{(r,0)})\|^2=2\mathbb E\|\cdot\|^2+2\mathbb E\|\cdot\|^2",
            expected=r"\le",
            note="an inequality (Young) printed as an equality.",
        ),
        Discrepancy(
            where="Theorem 3 and App. D.4 leftovers",
            printed=r"\text{'where }\bar{\mathbf x}^R=\dots\text{ is the averaged global model'; 'and }B\ge1\text{' (69); 'we get Eq. (53)' via }\bar{\mathbf x}^R",
            expected=r"\text{no }\bar{\mathbf x}^R\text{ and no }B\text{ in Theorem 3}",
            note="copied from Theorem 1: (53) bounds the average over (i, r) directly and Assumption 4 has no B.",
        ),
        Discrepancy(
            where="Theorem 3 and the global step",
            printed=r"\text{For Algorithm 1 (with }\eta_g)",
            expected=r"\eta_g=1",
            note="the telescoping of (70) needs x^{r+1} = x_N^{(r,K)}, i.e. eta_g = 1, which the statement does not say (implicit condition).",
        ),
        _SIGMA_DISC,
    ),
    notation={"eps2": "G^2"},
    notes=(
        "eta_tilde = K eta_l (Table 6: the effective rate of 'progress of one client in one round') may be given instead of eta_l.",
        "Under the implicit eta_l <= 1/(6KL) the corrected derivation gives 36 K^2 L^2 eta_l^2 G^2 + 9 K L^2 eta_l^2 sigma^2, below the printed 40 and 10.",
    ),
)

# ---------------------------------------------------------------------------------------------------
# Table 1 (Sec. 4.3): constants (including L) omitted; eta_g = 1.
_TAB1_PROV_SEC = "Sec. 4.3, Table 1"
_TAB1_NOTE = "Constants (including L) are omitted in Table 1: the value is the formula inside O(.) with unit constants, for comparing FL with SL only."
_ETA_G_1 = Hypothesis(
    name="eta_g = 1",
    lhs=eta_g,
    rel="==",
    rhs=ONE,
    kind="choice",
    printed=r"\eta_g=1",
    where="Table 1 caption ('eta_g is set to eta_g = 1')",
)


def _eff_steps(where: str) -> tuple[Hypothesis, ...]:
    note = "Sec. 4.3: 'eta_tilde_FL and eta_tilde_SL has the same constraints' (in words): Table 1 row 2 / Theorem 1 times K eta_g / N K eta_g at eta_g = 1"
    return (
        _step(
            "eta_tilde<=1/(2L sqrt(2B^2+1))",
            eta_tilde,
            ONE / (2 * L * SQ3),
            r"\tilde\eta\le\frac{1}{2L\sqrt{2B^2+1}}",
            source="implicit",
            where=where,
            group="eta_tilde<=min{...}",
            note=note,
        ),
        _step(
            "eta_tilde<=1/(2L)",
            eta_tilde,
            ONE / (2 * L),
            r"\tilde\eta\le\frac{1}{2L}",
            source="implicit",
            where=where,
            group="eta_tilde<=min{...}",
            note=note,
        ),
    )


TAB1_FL = Result(
    paper=PAPER,
    label="tab1.fl",
    kind="model",
    title="Table 1 rows 1-2: FedAvg bound and step-size constraint (up to constants)",
    provenance=Provenance(seed=SEED, label="Table 1, rows 1-2", equation=None, section=_TAB1_PROV_SEC),
    lhs="E||grad f(xbar^R)||^2 for FedAvg, up to constants",
    terms=(
        Term(name="initialisation", expr=F / (eta_l * K * T), meaning="F/(eta_l K R)"),
        Term(name="client drift (G^2)", expr=eta_l**2 * K**2 * G2, meaning="eta_l^2 K^2 G^2"),
        Term(name="client drift (sigma^2)", expr=eta_l**2 * K * sigma2, meaning="eta_l^2 K sigma^2"),
        Term(name="global variance", expr=eta_l * sigma2 / M, meaning="eta_l sigma^2/N"),
    ),
    hypotheses=(*_thm2_steps("Table 1, row 2"), _ETA_G_1),
    assumptions=_T1_ASSUMPTIONS,
    statement=r"\mathcal O\left(\frac{F}{\eta_lKR}\right)+\mathcal O\left(\eta_l^2K^2G^2+\eta_l^2K\sigma^2\right)+\mathcal O\left(\frac{\eta_l\sigma^2}{N}\right)",
    rate=r"\mathcal O\left(\frac{F}{\eta_lKR}\right)+\mathcal O\left(\eta_l^2K^2G^2+\eta_l^2K\sigma^2\right)+\mathcal O\left(\frac{\eta_l\sigma^2}{N}\right)",
    step="eta_l",
    defaults=(Default(name="eta_g", expr=ONE, rule="TODO(rule)"),),
    notes=(_TAB1_NOTE, "The explicit version is sl_noniid/thm2 at eta_g = 1."),
)


def _eff_result(
    label: str, row: str, who: str, coupling: sp.Expr, coupling_printed: str, var_term: Term, rate: str
) -> Result:
    return Result(
        paper=PAPER,
        label=label,
        kind="model",
        title=f"Table 1 row {row}: {who} bound in its effective learning rate (up to constants)",
        provenance=Provenance(seed=SEED, label=f"Table 1, row {row}", equation=None, section=_TAB1_PROV_SEC),
        lhs=f"E||grad f(xbar^R)||^2 for {who}, up to constants",
        terms=(
            Term(name="initialisation", expr=F / (eta_tilde * T), meaning="F/(eta_tilde R)"),
            Term(name="client drift (G^2)", expr=eta_tilde**2 * G2, meaning="eta_tilde^2 G^2"),
            Term(name="client drift (sigma^2)", expr=eta_tilde**2 * sigma2 / K, meaning="eta_tilde^2 sigma^2/K"),
            var_term,
        ),
        hypotheses=(
            Hypothesis(
                name=f"eta_tilde = {coupling_printed}",
                lhs=eta_tilde,
                rel="==",
                rhs=coupling,
                kind="coupling",
                printed=rf"\tilde\eta:={coupling_printed}",
                where="Sec. 4.3 ('we define the effective learning rate')",
            ),
            _ETA_G_1,
            *_eff_steps(f"Sec. 4.3 (Table 1, row {row})"),
        ),
        assumptions=_T1_ASSUMPTIONS,
        statement=rate,
        rate=rate,
        step="eta_tilde",
        defaults=(
            Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
            Default(name="eta_tilde", expr=coupling, rule="TODO(rule)"),
            Default(name="eta_l", expr=eta_tilde / sp.cancel(coupling / eta_l), rule="TODO(rule)"),
        ),
        notes=(_TAB1_NOTE,),
    )


TAB1_FL_EFF = _eff_result(
    "tab1.fl_eff",
    "3",
    "FedAvg",
    K * eta_g * eta_l,
    "K eta_g eta_l",
    Term(name="global variance", expr=eta_tilde * sigma2 / (M * K), meaning="eta_tilde sigma^2/(N K)"),
    r"\mathcal O\left(\frac{F}{\tilde\eta_{FL}R}\right)+\mathcal O\left(\tilde\eta_{FL}^2G^2+\frac{\tilde\eta_{FL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{FL}\sigma^2}{NK}\right)",
)
TAB1_SL_EFF = _eff_result(
    "tab1.sl_eff",
    "5",
    "split learning",
    M * K * eta_g * eta_l,
    "N K eta_g eta_l",
    Term(name="global variance", expr=eta_tilde * sigma2 / K, meaning="eta_tilde sigma^2/K: N times FedAvg's"),
    r"\mathcal O\left(\frac{F}{\tilde\eta_{SL}R}\right)+\mathcal O\left(\tilde\eta_{SL}^2G^2+\frac{\tilde\eta_{SL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{SL}\sigma^2}{K}\right)",
)


def _reps_result(label: str, row: str, who: str, var_term: Term, rate: str) -> Result:
    return Result(
        paper=PAPER,
        label=label,
        kind="model",
        title=f"Table 1 row {row}: rounds for {who} to reach epsilon (up to constants)",
        provenance=Provenance(seed=SEED, label=f"Table 1, row {row}", equation=None, section=_TAB1_PROV_SEC),
        lhs=f"R_epsilon, rounds for {who} to reach E||grad f(xbar^R)||^2 <= epsilon, up to constants",
        terms=(
            Term(name="initialisation", expr=F**2 / eps_target**2, meaning="F^2/epsilon^2"),
            var_term,
            Term(
                name="client drift", expr=(K * G2 + sigma2) / (K * eps_target), meaning="(K G^2 + sigma^2)/(K epsilon)"
            ),
        ),
        assumptions=_T1_ASSUMPTIONS,
        statement=rf"R_\epsilon={rate}",
        rate=rate,
        notes=(
            _TAB1_NOTE,
            "Obtained at eta_tilde = 1/sqrt(R) (Sec. 4.3), each term of the bound at most epsilon; the FL/SL difference is the second term.",
        ),
    )


TAB1_FL_REPS = _reps_result(
    "tab1.fl_reps",
    "4",
    "FedAvg",
    Term(name="variance", expr=sigma2**2 / (M**2 * K**2 * eps_target**2), meaning="sigma^4/(N^2 K^2 epsilon^2)"),
    r"\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{N^2K^2\epsilon^2}+\frac{KG^2+\sigma^2}{K\epsilon}\right)",
)
TAB1_SL_REPS = _reps_result(
    "tab1.sl_reps",
    "6",
    "split learning",
    Term(
        name="variance", expr=sigma2**2 / (K**2 * eps_target**2), meaning="sigma^4/(K^2 epsilon^2): N^2 times FedAvg's"
    ),
    r"\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{K^2\epsilon^2}+\frac{KG^2+\sigma^2}{K\epsilon}\right)",
)


def _sec43_result(label: str, item: str, who: str, var_term: Term, rate: str) -> Result:
    return Result(
        paper=PAPER,
        label=label,
        kind="model",
        title=f"Sec. 4.3 display ({item}): {who} after R rounds at eta_tilde = 1/sqrt(R) (up to constants)",
        provenance=Provenance(
            seed=SEED,
            label=f"Sec. 4.3, display ({item})",
            equation=None,
            section="Sec. 4.3, 'The guarantee of SL is worse than FL in terms of training rounds'",
        ),
        lhs=f"E||grad f(xbar^R)||^2 for {who} after R rounds, up to constants",
        terms=(
            Term(name="initialisation", expr=F / sp.sqrt(T), meaning="F/sqrt(R)"),
            Term(name="client drift", expr=(K * G2 + sigma2) / (K * T), meaning="(K G^2 + sigma^2)/(K R)"),
            var_term,
        ),
        hypotheses=(
            Hypothesis(
                name="choice eta_tilde = 1/sqrt(R)",
                lhs=eta_tilde,
                rel="==",
                rhs=ONE / sp.sqrt(T),
                kind="choice",
                printed=r"\tilde\eta_{FL}=\tilde\eta_{SL}=1/\sqrt R",
                where="Sec. 4.3",
            ),
            _ETA_G_1,
            *_eff_steps("Sec. 4.3, at eta_tilde = 1/sqrt(R)"),
        ),
        assumptions=_T1_ASSUMPTIONS,
        statement=rate,
        rate=rate,
        step="eta_tilde",
        defaults=(
            Default(name="eta_g", expr=ONE, rule="TODO(rule)"),
            Default(name="eta_tilde", expr=ONE / sp.sqrt(T), rule="TODO(rule)"),
        ),
        notes=(_TAB1_NOTE,),
    )


SEC43_FL = _sec43_result(
    "sec4.3.fl",
    "i",
    "FedAvg",
    Term(name="global variance", expr=sigma2 / (M * K * sp.sqrt(T)), meaning="sigma^2/(N K sqrt(R))"),
    r"\mathcal O\left(\frac{F}{\sqrt R}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{NK\sqrt R}\right)",
)
SEC43_SL = _sec43_result(
    "sec4.3.sl",
    "ii",
    "split learning",
    Term(name="global variance", expr=sigma2 / (K * sp.sqrt(T)), meaning="sigma^2/(K sqrt(R))"),
    r"\mathcal O\left(\frac{F}{\sqrt R}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{K\sqrt R}\right)",
)

# ---------------------------------------------------------------------------------------------------
# Table 4 (App. A): communication, in floats.
_TAB4_PROV = Provenance(
    seed=SEED,
    label="Table 4",
    equation=None,
    section="App. A ('Implementation of SL with eta_g', based on Singh et al. (2019))",
)
_Q_DISC = Discrepancy(
    where="Table 4, 'Total communication each round' of SL",
    printed=r"2En+N\mathbf x_c\ \text{(centralized: }2En+2N\mathbf x_c)",
    expected=r"2Enq+N\mathbf x_c\ \text{(centralized: }2Enq+2N\mathbf x_c)",
    note="summing the per-client column E n_i q + E n_i q + x_c over the N clients gives 2Enq + N x_c: the smashed-layer size q is missing.",
)
_CENTRAL_DISC = Discrepancy(
    where="Table 4 last row vs App. A text",
    printed=r"\text{SL with global update: Comm. of vanilla SL}+\mathbf x_c",
    expected=r"+\mathbf x_c\text{ in the peer-to-peer mode only}",
    note="App. A: in the centralized mode the global update causes only 'additional storage cost of the server'; the extra communication is the peer-to-peer mode's.",
)


def _comm(
    label: str,
    title: str,
    lhs: str,
    terms: tuple[Term, ...],
    statement: str,
    discrepancies: tuple[Discrepancy, ...] = (),
) -> Result:
    return Result(
        paper=PAPER,
        label=label,
        kind="model",
        title=title,
        provenance=_TAB4_PROV,
        lhs=lhs,
        terms=terms,
        statement=statement,
        discrepancies=discrepancies,
        notes=(
            "Sizes in floats: d = |x| (complete model), d_c = |x_c| (client-side model), q floats of smashed data per sample.",
        ),
    )


_PER_CLIENT = "floats one client communicates per round"
_PER_ROUND = "floats communicated per round, all N clients"
_SL_CLIENT = (
    Term(name="activations", expr=E_epochs * D_k * q_smash, meaning="E n_i q"),
    Term(name="gradients", expr=E_epochs * D_k * q_smash, meaning="E n_i q"),
)
_SL_ROUND = (Term(name="activations and gradients", expr=2 * E_epochs * n_data, meaning="2En, as printed (no q)"),)

TAB4 = (
    _comm(
        "tab4.fl_client",
        "Table 4: FedAvg communication of one client",
        _PER_CLIENT,
        (Term(name="complete model", expr=2 * d, meaning="2 x: download and upload of the complete model"),),
        r"2\times\text{complete model}",
    ),
    _comm(
        "tab4.fl_round",
        "Table 4: FedAvg communication per round",
        _PER_ROUND,
        (Term(name="complete models", expr=2 * M * d, meaning="2 N x"),),
        r"2N\mathbf x",
    ),
    _comm(
        "tab4.sl_p2p_client",
        "Table 4: split learning (peer-to-peer mode), one client",
        _PER_CLIENT,
        (*_SL_CLIENT, Term(name="client-side model", expr=d_c, meaning="x_c")),
        r"En_iq+En_iq+\mathbf x_c",
    ),
    _comm(
        "tab4.sl_p2p_round",
        "Table 4: split learning (peer-to-peer mode), per round",
        _PER_ROUND,
        (*_SL_ROUND, Term(name="client-side models", expr=M * d_c, meaning="N x_c")),
        r"2En+N\mathbf x_c",
        (_Q_DISC,),
    ),
    _comm(
        "tab4.sl_central_client",
        "Table 4: split learning (centralized mode), one client",
        _PER_CLIENT,
        (*_SL_CLIENT, Term(name="client-side model", expr=2 * d_c, meaning="2 x_c")),
        r"En_iq+En_iq+2\mathbf x_c",
    ),
    _comm(
        "tab4.sl_central_round",
        "Table 4: split learning (centralized mode), per round",
        _PER_ROUND,
        (*_SL_ROUND, Term(name="client-side models", expr=2 * M * d_c, meaning="2 N x_c")),
        r"2En+2N\mathbf x_c",
        (_Q_DISC,),
    ),
    _comm(
        "tab4.slg_p2p_round",
        "Table 4: split learning with global update (peer-to-peer mode), per round",
        _PER_ROUND,
        (
            *_SL_ROUND,
            Term(name="client-side models", expr=M * d_c, meaning="N x_c"),
            Term(
                name="global update", expr=d_c, meaning="x_c: the initial client-side model fetched by the last client"
            ),
        ),
        r"2En+N\mathbf x_c+\mathbf x_c",
        (_Q_DISC,),
    ),
    _comm(
        "tab4.slg_central_round",
        "Table 4: split learning with global update (centralized mode), per round",
        _PER_ROUND,
        (
            *_SL_ROUND,
            Term(name="client-side models", expr=2 * M * d_c, meaning="2 N x_c"),
            Term(name="global update", expr=d_c, meaning="x_c, as Table 4 prints"),
        ),
        r"2En+2N\mathbf x_c+\mathbf x_c",
        (_Q_DISC, _CENTRAL_DISC),
    ),
)

RESULTS: tuple[Result, ...] = (
    THM1,
    THM1_PROOF,
    LEM4,
    COR1,
    COR1_EXPLICIT,
    COR2,
    COR2_EXPLICIT,
    COR3,
    COR3_EXPLICIT,
    THM2,
    SPEEDUP,
    SPEEDUP_EXPLICIT,
    THM3,
    TAB1_FL,
    TAB1_FL_EFF,
    TAB1_FL_REPS,
    TAB1_SL_EFF,
    TAB1_SL_REPS,
    SEC43_FL,
    SEC43_SL,
    *TAB4,
)
