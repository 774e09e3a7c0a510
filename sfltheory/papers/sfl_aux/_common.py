r"""What several results of sfl_aux share: the paper's symbols and notation, its assumptions (Sec. 4), the
auxiliary constants of Theorems 1-2, the hypotheses and discrepancies used by more than one result, and the
``provenance`` helper that stamps every result with the seed and the full reference.

The auxiliary constants are SymPy expressions in primitive quantities (users give only those). lambda_1 is
printed as :math:`B\sum_{j=0}^{l-1}(A^j-1)/(A-1)`; it is encoded in the equal closed form
:math:`B(\lambda_2-l)/(A-1)` so that it evaluates for symbolic ``l``.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ... import variants as var
from ...assumptions import Assumption, Pick
from ...result import Discrepancy, Hypothesis, Provenance, Result, Source, Term, step_branch
from ...vocabulary import Param, symbols

KEY = "sfl_aux"
SEED = "004_1446912755864da9.txt"
TITLE = "Non-IID SplitFed with partial participation and auxiliary networks"
REFERENCE = (
    'Amirreza Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker '
    'Participation and Auxiliary Networks", Preprints.org, 4 September 2024, doi:10.20944/preprints202409.0335.v1 '
    "(not peer-reviewed)"
)
# every quantity of the paper has a canonical name (m -> M, sigma_L^2 -> sigma2, sigma_G^2 -> eps2, mu_L -> eta_l,
# mu -> eta; see PAPER_NOTATION in __init__): the paper declares no names of its own
PARAMS: tuple[Param, ...] = ()

L, F, T, M, n, K, ell = symbols("L F T M n K l")  # ell is the canonical l (server update period)
eta, eta_l, sigma2, eps2, g_f = symbols("eta eta_l sigma2 eps2 gradnorm2_f")

ONE = sp.Integer(1)
R = sp.Rational


def provenance(*, label: str, equation: str | None = None, section: str) -> Provenance:
    """Where a result of this paper is printed, with the seed and the paper's full reference."""
    return Provenance(seed=SEED, label=label, equation=equation, section=section, reference=REFERENCE)


# ---------------------------------------------------------------------------------------------------
# Assumptions as the paper states them (Sec. 4).
SMOOTHNESS_CS = Assumption(
    key="sfl_aux_smoothness",
    name="L-smoothness of the client-side and server-side losses (Assumption 1)",
    statement=r"\|\nabla F^c(x_C)-\nabla F^c(y_C)\|\le L\|x_C-y_C\|,\ \|\nabla F^s(x_S)-\nabla F^s(y_S)\|\le L\|x_S-y_S\|",
    introduces=("L",),
    note="stated for the global F^c and F^s; the proofs apply it to every F_i^c and F_i^s (see discrepancy)",
    picks=(
        Pick(
            name="L",
            keys=(var.either(var.key("L", var.CLIENT), var.key("L", var.SERVER)), "L"),
            why="max of the client- and server-block top eigenvalues",
        ),
    ),
)
UNBIASED = Assumption(
    key="sfl_aux_unbiased",
    name="unbiased local gradient estimators (Assumption 2)",
    statement=r"\mathbb E_{\xi\in D_i}[\nabla F_i^c(x_C;\xi)]=\nabla F_i^c(x_C),\ "
    r"\mathbb E_{\xi\in D_i}[\nabla F_i^s(x_S;z_{f,i}(x_C;\xi))]=\nabla F_i^s(x_S)",
)
LOCAL_GLOBAL_VARIANCE = Assumption(
    key="sfl_aux_local_global_variance",
    name="bounded local and global variance, client and server side (Assumption 3)",
    statement=r"\mathbb E\|\nabla F_i^c(x_C;\xi)-\nabla F_i^c(x_C)\|^2\le\sigma_L^2,\ "
    r"\mathbb E\|\nabla F_i^c(x_C)-\nabla F^c(x_C)\|^2\le\sigma_G^2,\ "
    r"\mathbb E\|\nabla F_i^s(x_S;\xi)-\nabla F_i^s(x_S)\|^2\le\sigma_L^2,\ "
    r"\mathbb E\|\nabla F_i^s(x_S)-\nabla F^s(x_S)\|^2\le\sigma_G^2",
    introduces=("sigma2", "eps2"),
    note="sigma_L^2 -> sigma2 (per-sample variance of each client), sigma_G^2 -> eps2 (heterogeneity, in expectation)",
    picks=(
        Pick(
            name="sigma2",
            keys=(var.either("sigma_c2", "sigma_s2"), "sigma2"),
            why="sigma_L^2: per part, in expectation; max of the parts",
        ),
        Pick(
            name="eps2",
            keys=(
                var.either(var.key("eps2", var.MEAN, var.CLIENT), var.key("eps2", var.MEAN, var.SERVER)),
                var.key("eps2", var.MEAN),
            ),
            why="sigma_G^2: in expectation over clients",
        ),
    ),
)
ASSUMPTIONS = (SMOOTHNESS_CS, UNBIASED, LOCAL_GLOBAL_VARIANCE)

# ---------------------------------------------------------------------------------------------------
# Auxiliary constants of Theorems 1 and 2 (Sec. 4.1; App. A.1, (A16), (A18), (A19), (A33)).
STEP_EXP = 2 ** (R(23, 20) * ell + R(37, 20))  # 2^{1.15 l + 1.85}
STEP_CLIENT = ONE / (ell * L * K * STEP_EXP)  # mu_L <= 1/(l L K 2^{1.15l+1.85})
A_CONST = 8 * L**2 * eta_l**2 * (K**2 + 30 * L**2 * K**3 * eta_l**2) + 2
B_CONST = (
    8 * L**2 * eta_l**2 * ((K**2 + 5 * L**2 * K**3 * eta_l**2) * sigma2 + (K**2 + 30 * L**2 * K**4 * eta_l**2) * eps2)
)
LAMBDA_2 = (A_CONST**ell - 1) / (A_CONST - 1)
LAMBDA_1 = B_CONST * (LAMBDA_2 - ell) / (A_CONST - 1)  # = B sum_{j=0}^{l-1} (A^j - 1)/(A - 1)
GAMMA = (
    4 * (L * eta_l + eta_l**2 * K * L**2 * (ell - 1)) * (K + 30 * L**2 * K**2 * eta_l**2) + 30 * K**2 * eta_l**2 * L**2
)
GAMMA_PRIME = (
    4 * eta_l**2 * L**2 * (K**2 * ell + 30 * L**2 * K**3 * ell * eta_l**2)
    + (L * eta_l / ell) * (90 * ell * K**3 * L**2 * eta_l**2 + 3 * K)
    + 30 * K**2 * eta_l**2 * L**2
)
ONE_MINUS = 1 - GAMMA * LAMBDA_2
ONE_MINUS_P = 1 - GAMMA_PRIME * LAMBDA_2

CONSTS_TEX = (
    r"\lambda_1=B\sum_{j=0}^{l-1}\frac{A^j-1}{A-1},\ \lambda_2=\frac{A^l-1}{A-1},\ "
    r"B=8L^2\mu_L^2\left((K^2+5L^2K^3\mu_L^2)\sigma_L^2+(K^2+30L^2K^4\mu_L^2)\sigma_G^2\right),\ "
    r"A=8L^2\mu_L^2(K^2+30L^2K^3\mu_L^2)+2"
)

# ---------------------------------------------------------------------------------------------------
# What the results bound, and the paper's notation for F.
LHS_CLIENT = (
    "min over rounds t in [T] (the proof: t = 0 mod l) of E||grad_{x_C} F^c(xbar_C^t)||^2, the client-side "
    "gradient norm at the aggregated client model"
)
LHS_SERVER = (
    "min over rounds t in [T] (the proof: t = 0 mod l) of E||grad F^s(x_S^t)||^2, the server-side gradient norm"
)
NOTATION_CLIENT = {"F": r"F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*)"}
NOTATION_SERVER = {"F": r"F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*)"}

# ---------------------------------------------------------------------------------------------------
# Hypotheses shared by several results.
CLIENT_STEP = step_branch(
    "mu_L<=1/(lLK2^(1.15l+1.85))", eta_l, STEP_CLIENT, r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}",
    where="Theorem 1 / Theorem 2 (and A1, A2)", group="mu_L",
)  # fmt: skip
REDDI = step_branch(
    "[13] Lemma 3: mu_L<=1/(8LK)", eta_l, ONE / (8 * L * K), r"\mu_L\le\frac{1}{8LK}", source="implicit",
    where="App. A.1, client drift bound (A11), quoted from [13] (Reddi et al., Lemma 3)",
    note="the drift bound (A11) is taken from [13], whose Lemma 3 assumes eta_l <= 1/(8LK); this paper does not "
    "print the condition. It is implied by mu_L <= 1/(lLK2^{1.15l+1.85}) for every l >= 1 (2^{3} l >= 8).",
)  # fmt: skip
DRIFT_SERVER = step_branch(
    "mu<=1/(2L(2m+1))", eta, ONE / (2 * L * (2 * M + 1)), r"\mu\le\frac{1}{2L(2m+1)}", source="proof",
    where="App. A.2, proof of A3 before (A44) and proof of A4 before (A56): 'Given mu <= 1/(2L(2m+1))'",
    note="used to absorb 4(1+2m) mu^2 L^2 into 1 + 1/(m-1) in the server drift recursion",
)  # fmt: skip


def _gamma_hyps(
    gamma: sp.Expr, ascii_name: str, tag: str, where: str, source: Source, note: str, *, with_step: bool
) -> tuple[Hypothesis, ...]:
    """The denominator 1 - Gamma lambda_2 must be positive: a validity condition (the bound is void
    otherwise), and, where SymPy gives up on it quickly, also a step-size condition (Gamma lambda_2 increases
    with mu_L) so that max_step finds the largest mu_L that keeps it, by a numeric search."""
    lhs, printed = gamma * LAMBDA_2, rf"{tag}\lambda_2<1"
    validity = Hypothesis(
        name=f"validity: {ascii_name}*lambda_2<1", lhs=lhs, rel="<", rhs=ONE, kind="validity", printed=printed,
        source=source, where=where, note=note,
    )  # fmt: skip
    if not with_step:
        return (validity,)
    step = Hypothesis(
        name=f"step: {ascii_name}*lambda_2<1", lhs=lhs, rel="<", rhs=ONE, kind="step_size", printed=printed,
        source=source, where=where,
        note="the validity condition read as a condition on mu_L (Gamma, lambda_2 increase with mu_L)",
    )  # fmt: skip
    return (validity, step)


T1_GAMMA = _gamma_hyps(
    GAMMA,
    "Gamma",
    r"\Gamma",
    "App. A.1, before (A21): 'Choosing a proper mu_L <= 1/(lLK2^{1.15l+1.85}), we have Gamma lambda_2 < 1'",
    "proof",
    "the bound divides by 1 - Gamma lambda_2. The printed step condition does NOT ensure it: with l = 1 "
    "(lambda_2 = 1) and mu_L = 1/(8LK), Gamma = 0.96875 + 0.234375/K >= 1 for K <= 7 (1.203125 at K = 1).",
    with_step=True,
)
T2_GAMMA = _gamma_hyps(
    GAMMA_PRIME,
    "Gamma'",
    r"\Gamma'",
    "Theorem 2's last term divides by 1 - Gamma' lambda_2; the proof (before (A36)) only says 'We let mu_L <= ...'",
    "implicit",
    "the denominator 1 - Gamma' lambda_2 must be positive, but neither the statement nor the proof of A2 says so "
    "(the proof of A1 does, for Gamma). With l = 1 and mu_L = 1/(8LK), Gamma' = 1.08203 + 0.0293/K > 1 for every "
    "K (1.111328125 at K = 1), so the printed step condition does not ensure it. Not also given as a step-size "
    "branch: SymPy spends 10-30 s before giving up on solving it for mu_L (the term 3KL mu_L/l with the symbolic "
    "power A^l), which max_step would pay on every first call.",
    with_step=False,
)

# ---------------------------------------------------------------------------------------------------
# Discrepancies shared by several results.
D_SMOOTH = Discrepancy(
    where="Assumption 1 vs the proofs (steps (a_4), (a'_6), (b_4), (b_14))",
    printed=r"\|\nabla F^c(x_C)-\nabla F^c(y_C)\|\le L\|x_C-y_C\|\ (\text{global } F^c, F^s)",
    expected=r"\|\nabla F_i^c(x)-\nabla F_i^c(y)\|\le L\|x-y\|\ \forall i\ (\text{and the same for } F_i^s)",
    note="the proofs bound ||grad F_i(x_i) - grad F_i(xbar)|| by L||x_i - xbar|| for every client, which the global "
    "smoothness of Assumption 1 does not give.",
)
D_XSTAR = Discrepancy(
    where="definition of x^* in Theorems 1-4 vs the telescoping sums (A16), (A34), (A45), (A59)",
    printed=r"F(x^0)-F(x^*),\ x^*=\operatorname{argmin}_{x^t,t\in[T]}\mathbb E\|\nabla F(x^t)\|^2",
    expected=r"F(x^0)-\mathbb E F(x^T)\ (\le F(x^0)-\inf F)",
    note="summing the per-window descent telescopes to the last iterate, not to the iterate with the smallest "
    "gradient; the encoded F = f(x^0) - f^* bounds the telescoped quantity.",
)
COMMON_DISC = (D_SMOOTH, D_XSTAR)

D_A12 = Discrepancy(
    where="(A12), constant term of the bound on A_1 (from (a_4) and (A11))",
    printed=r"\frac{5K^2\mu_L^2lL^2}{2}(\sigma_L^2+6K\sigma_G^2)",
    expected=r"\frac{5K^2\mu_L^2l^2L^2}{2}(\sigma_L^2+6K\sigma_G^2)",
    note="(a_4) carries the factor l L^2/(2m) in front of sum_i sum_j sum_k y_2, and (A11) bounds each (j, k) term, so "
    "the sum over j adds a second factor l. Carried through, Theorem 1's 5K mu_L^2 L^2 (sigma_L^2 + 6K sigma_G^2) "
    "and Theorem 2's 5K mu_L^2 L^2 sigma_L^2 and 30 K^2 mu_L^2 L^2 sigma_G^2 should each carry a factor l; the "
    "printed bounds are smaller than what the proof gives when l > 1.",
)
D_GAMMA_EDGE = Discrepancy(
    where="Theorem 1 step condition vs 'we have Gamma lambda_2 < 1' (before (A21))",
    printed=r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}\Rightarrow\Gamma\lambda_2<1",
    expected=r"\Gamma\lambda_2=0.96875+0.234375/K\ \text{at } l=1,\ \mu_L=\frac{1}{8LK}",
    note="for l = 1 and K <= 7 the printed condition admits step sizes with Gamma lambda_2 >= 1, where 1 - Gamma "
    "lambda_2 <= 0 and the bound is void (at K = 1: Gamma = 1.203125). For l >= 2 the claim holds "
    "(Gamma lambda_2 ~ 0.43 at l = 2). Encoded as the validity condition plus a step-size branch.",
)
D_A36 = Discrepancy(
    where="Theorem 2 / (A36) vs (A35)",
    printed=r"\frac{2(F^c(\bar x^0)-F^c(\bar x^*))}{\mu_LKT}+(\dots)\sigma_L^2+(\dots)\sigma_G^2+\frac{\Gamma'\lambda_1}{1-\Gamma'\lambda_2}",
    expected=r"\frac{1}{1-\Gamma'\lambda_2}\left(\frac{2(F^c(\bar x^0)-F^c(\bar x^*))}{\mu_LKT}+(\dots)\sigma_L^2+(\dots)\sigma_G^2+\Gamma'\lambda_1\right)",
    note="(A35) has Gamma' lambda_2 sum_t E||grad||^2 on the right; moving it to the left divides every term by "
    "1 - Gamma' lambda_2, but (A36) and the statement divide only the last one (Theorem 1 / (A21) divides all). "
    "The printed bound is smaller than what the proof gives. Encoded as sfl_aux/thm2@proof.",
)
D_STRATEGY = Discrepancy(
    where="Theorems 2 and 4 (and A2, A4) wording", expected="strategy two",
    printed="partial participation of clients due to strategy one",
    note="Sec. 3 calls full participation the first strategy and sampling n clients with replacement the second.",
)  # fmt: skip
D_ALG_SERVER = Discrepancy(
    where="Algorithm 1 line 16 vs (A38), (A48)", printed=r"\mathbf x_S\leftarrow\mathbf x_S-\frac{\mu}{m}\nabla F_i^s",
    expected=r"\mathbf x_{S,i+1}^t=\mathbf x_{S,i}^t-\mu\tilde\nabla F_i^s(\mathbf x_{S,i}^t)",
    note="the algorithm's server step is mu/m, the proofs' is mu; the encoded eta is the proofs' mu.",
)  # fmt: skip
D_T3_STEP = Discrepancy(
    where="Theorem 3 vs Theorem A3 (step-size condition)", printed=r"\mu\le\frac{1}{2L}",
    expected=r"\mu\le\frac{1}{8Lm^2}\ (\text{Theorem A3})",
    note="main text and appendix differ. mu <= 1/(2L) gives neither the proof's mu <= 1/(2L(2m+1)) nor step (b_15) "
    "(at mu = 1/(2L) the gradient coefficient has 6L m^2 mu = 3m^2 > 2); mu <= 1/(8Lm^2) gives both for m >= 2. "
    "Encoded as sfl_aux/thm3@appendix.",
)  # fmt: skip
# the proof of A4 (partial participation) copies the server drift of the proof of A3: thm4 and eqA57
D_PARTIAL_DRIFT = Discrepancy(
    where="(A49) and the drift bound (A56)-(A57) in the proof of A4",
    printed=r"\mathbf x_S^{t+l}-\mathbf x_S^t=-\mu\sum_{i=0}^{m-1}\tilde\nabla F_i^s,\ 16(m+2m^2)\mu^2(\dots)",
    expected=r"-\mu\sum_{i\in[S_t]}\tilde\nabla F_i^s,\ n\text{ sequential server steps}", note="copied from the "
    "full-participation proof: with partial participation the server takes n steps per update, as (A50) sums over S_t.",
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------
# The server drift bounds (A44) (proof of A3) and (A57) (proof of A4) print the same display, under the same
# 'Given mu <= 1/(2L(2m+1))' and followed by the same 'for m > 1': those are the displays' own conditions.
_SERVER_DRIFT_HYPS = (
    replace(DRIFT_SERVER, source="statement"),
    Hypothesis(
        name="m>1", lhs=M, rel=">", rhs=ONE, kind="domain", printed=r"m>1",
        where="App. A.2, after (A44) and after (A57): '(1 + 1/(m-1))^m - 1 <= 4 for m > 1'",
        note="the recursion's factor 1 + 1/(m-1) needs two clients at least (with one the drift is 0)",
    ),
)  # fmt: skip
_DRIFT = 16 * (M + 2 * M**2) * eta**2  # 16(m + 2m^2) mu^2
D_UNROLL = Discrepancy(
    where="(A44), (A57): 'Unrolling the recursion' from the averaged display before each",
    printed=r"\frac1m\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{S,i}^t-\mathbf x_S^t\|^2\le\left(1+\frac{1}{m-1}\right)"
    r"\frac1m\sum_{i=1}^{m-1}\mathbb E\|\mathbf x_{S,i-1}^t-\mathbf x_S^t\|^2+c\ \Rightarrow\ "
    r"\le\sum_{j=0}^{m-1}\left(1+\frac{1}{m-1}\right)^jc",
    expected=r"D_i\le aD_{i-1}+c,\ D_0=0\ \Rightarrow\ D_i\le c\sum_{p=0}^{i-1}a^p\ \text{for each } i,"
    r"\ \text{then the average}",
    note="the averaged display is no recursion in one quantity (its right side averages the same distances shifted "
    "by one step), so it cannot be unrolled as written; unrolling the per-step recursion (b_14) and averaging gives "
    "the printed sum, so the bound holds. The last step uses (m-1)((1+1/(m-1))^m - 1) <= 4(m-1) <= 4m (the bracket "
    "is at most 3, at m = 2).",
)


def server_drift(
    *, label: str, title: str, provenance: Provenance, discrepancies: tuple[Discrepancy, ...], notes: tuple[str, ...]
) -> Result:
    """The server drift display (A44) / (A57): the m sequential server steps of one round move the server model from
    x_S^t by at most 16(m + 2m^2) mu^2 (sigma_L^2 + sigma_G^2 + E||grad F^s(x_S^t)||^2), on average over the steps."""
    return Result(
        paper=KEY, label=label, kind="lemma", title=title, provenance=provenance,
        lhs="(1/m) sum_{i=0}^{m-1} E||x_{S,i}^t - x_S^t||^2: the distance of the server model after i sequential "
        "client steps of round t from x_S^t, averaged over the m steps",
        terms=(
            Term(name="variance", expr=_DRIFT * sigma2, meaning="16(m + 2m^2) mu^2 sigma_L^2"),
            Term(name="heterogeneity", expr=_DRIFT * eps2, meaning="16(m + 2m^2) mu^2 sigma_G^2"),
            Term(name="gradient", expr=_DRIFT * g_f, meaning="16(m + 2m^2) mu^2 E||grad F^s(x_S^t)||^2"),
        ),
        hypotheses=_SERVER_DRIFT_HYPS, assumptions=(SMOOTHNESS_CS, LOCAL_GLOBAL_VARIANCE), step="eta",
        statement=r"\frac{1}{m}\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{S,i}^t-\mathbf x_S^t\|^2\le16(m+2m^2)\mu^2"
        r"(\sigma_L^2+\sigma_G^2)+16(m+2m^2)\mu^2\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2",
        discrepancies=discrepancies, notes=notes, notation={"gradnorm2_f": r"\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2"},
    )  # fmt: skip
