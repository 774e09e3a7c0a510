r"""Non-IID SplitFed with partial participation and auxiliary networks (seed ``004_1446912755864da9.txt``).

Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker Participation and
Auxiliary Networks" (preprint, 2024). The algorithm is CSE-SFL (Algorithm 1): clients take K local steps
of size :math:`\mu_L` (``eta_l``) on a loss computed by an auxiliary network; every ``l`` rounds the server
takes one sequential step of size :math:`\mu` (``eta``) per client on its own model.

Results (main text; App. A restates each one as Theorem/Corollary A1-A4):

* Theorem 1 (client side, full participation) = Theorem A1, with Phi_1, lambda_1, lambda_2, B, A, Gamma
  written out. ``thm1``.
* Corollary 1 = Corollary A1, eq. (4) / (A1): O-only. ``cor1`` (see ``thm1``).
* Theorem 2 (client side, partial participation) = Theorem A2, with Gamma'. ``thm2``; ``@proof``: the bound
  that the proof's display (A35) gives -- every term over 1 - Gamma' lambda_2, where (A36) and the statement
  divide only the last term.
* Corollary 2 = Corollary A2, eq. (5) / (A22): O-only. ``cor2`` (see ``thm2``).
* Theorem 3 (server side, full participation), ``thm3``; ``@appendix``: Theorem A3 (another step-size
  condition, mu <= 1/(8 L m^2) instead of 1/(2L)).
* Corollary 3, O-only, ``cor3``; ``@appendix``: Corollary A3 (mu <= 1/(L m^2 sqrt T) instead of 1/(2L sqrt T)).
* Theorem 4 (server side, partial participation), ``thm4``; ``@appendix``: Theorem A4, which prints the same
  bound and condition but says "full participation" (encoded with the coupling n = M).
* Corollary 4 = Corollary A4, O-only, ``cor4`` (see ``thm4``).

Notation: m -> ``M``; n -> ``n``; l -> ``l``; K -> ``K``; :math:`\sigma_L^2` (local variance) -> ``sigma2``;
:math:`\sigma_G^2` (heterogeneity, client i vs global, in expectation) -> ``eps2``; :math:`\mu_L` (client
and auxiliary step) -> ``eta_l``; :math:`\mu` (server step) -> ``eta``. Theorems 1-2 constrain only
``eta_l``; Theorems 3-4 only ``eta`` (the two analyses never meet).

Conventions. Losses are means over clients (eq. 3: F^s = (1/m) sum_i F_i^s; the client aggregate is the
mean of the client models). ``F`` is the initial gap of the function the result is about: for Theorems
1-2 :math:`F^c(\bar x_C^0)-F^c(\bar x_C^*)`, for Theorems 3-4 :math:`F^s(x_S^0)-F^s(x_S^*)`, where the paper
defines :math:`x^*` as the iterate with the smallest expected gradient norm (not a minimiser). The
telescoping sums of the proofs give :math:`F(x^0)-\mathbb E F(x^T)`; the canonical ``F = f(x^0) - f^*``
is no smaller than that, so the bounds stay valid with it (see the discrepancy). The left-hand side is a
minimum over rounds; the proofs only bound rounds t = 0, l, 2l, ... (t = 0 mod l), a subset, so the printed
minimum over all t in [T] is still implied.

The auxiliary constants are module-level SymPy expressions (``A_CONST``, ``B_CONST``, ``LAMBDA_1``,
``LAMBDA_2``, ``GAMMA``, ``GAMMA_PRIME``): users give only primitive quantities. lambda_1 is printed as
:math:`B\sum_{j=0}^{l-1}(A^j-1)/(A-1)`; it is encoded in the equal closed form
:math:`B(\lambda_2-l)/(A-1)` so that it evaluates for symbolic ``l``.
"""

from __future__ import annotations

import sympy as sp

from .. import variants as var
from ..assumptions import Assumption, Pick
from ..defaults import Default
from ..result import Discrepancy, Hypothesis, Provenance, Relation, Result, Source, Term
from ..vocabulary import symbols

SEED = "004_1446912755864da9.txt"
PAPER = "sfl_aux"

L, F, T, M, n, K, ell = symbols("L F T M n K l")  # ell is the canonical l (server update period)
eta, eta_l, sigma2, eps2 = symbols("eta eta_l sigma2 eps2")

ONE = sp.Integer(1)
R = sp.Rational

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
_ASSUMPTIONS = (SMOOTHNESS_CS, UNBIASED, LOCAL_GLOBAL_VARIANCE)

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

_CONSTS_TEX = (
    r"\lambda_1=B\sum_{j=0}^{l-1}\frac{A^j-1}{A-1},\ \lambda_2=\frac{A^l-1}{A-1},\ "
    r"B=8L^2\mu_L^2\left((K^2+5L^2K^3\mu_L^2)\sigma_L^2+(K^2+30L^2K^4\mu_L^2)\sigma_G^2\right),\ "
    r"A=8L^2\mu_L^2(K^2+30L^2K^3\mu_L^2)+2"
)
_GAMMA_TEX = r"\Gamma=4\left(L\mu_L+\mu_L^2KL^2(l-1)\right)(K+30L^2K^2\mu_L^2)+30K^2\mu_L^2L^2"
_GAMMA_P_TEX = r"\Gamma'=4\mu_L^2L^2(K^2l+30L^2K^3l\mu_L^2)+\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)+30K^2\mu_L^2L^2"

LHS_CLIENT = (
    "min over rounds t in [T] (the proof: t = 0 mod l) of E||grad_{x_C} F^c(xbar_C^t)||^2, the client-side "
    "gradient norm at the aggregated client model"
)
LHS_SERVER = (
    "min over rounds t in [T] (the proof: t = 0 mod l) of E||grad F^s(x_S^t)||^2, the server-side gradient norm"
)
NOTATION_CLIENT = {"F": r"F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*)"}
NOTATION_SERVER = {"F": r"F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*)"}


def _step(
    name: str,
    lhs: sp.Expr,
    rhs: sp.Expr,
    printed: str,
    *,
    where: str,
    source: Source = "statement",
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


def _validity(
    name: str, lhs: sp.Expr, rel: Relation, rhs: sp.Expr, printed: str, *, where: str, source: Source, note: str
) -> Hypothesis:
    return Hypothesis(
        name=name, lhs=lhs, rel=rel, rhs=rhs, kind="validity", printed=printed, source=source, where=where, note=note
    )


# ---------------------------------------------------------------------------------------------------
# Discrepancies shared by all results
_D_SMOOTH = Discrepancy(
    where="Assumption 1 vs the proofs (steps (a_4), (a'_6), (b_4), (b_14))",
    printed=r"\|\nabla F^c(x_C)-\nabla F^c(y_C)\|\le L\|x_C-y_C\|\ (\text{global } F^c, F^s)",
    expected=r"\|\nabla F_i^c(x)-\nabla F_i^c(y)\|\le L\|x-y\|\ \forall i\ (\text{and the same for } F_i^s)",
    note="the proofs bound ||grad F_i(x_i) - grad F_i(xbar)|| by L||x_i - xbar|| for every client, which the global "
    "smoothness of Assumption 1 does not give.",
)
_D_XSTAR = Discrepancy(
    where="definition of x^* in Theorems 1-4 vs the telescoping sums (A16), (A34), (A45), (A59)",
    printed=r"F(x^0)-F(x^*),\ x^*=\operatorname{argmin}_{x^t,t\in[T]}\mathbb E\|\nabla F(x^t)\|^2",
    expected=r"F(x^0)-\mathbb E F(x^T)\ (\le F(x^0)-\inf F)",
    note="summing the per-window descent telescopes to the last iterate, not to the iterate with the smallest "
    "gradient; the encoded F = f(x^0) - f^* bounds the telescoped quantity.",
)
_COMMON_DISC = (_D_SMOOTH, _D_XSTAR)

# ---------------------------------------------------------------------------------------------------
# Client side: Theorem 1 / A1 (full participation)
_T1 = Provenance(
    seed=SEED,
    label="Theorem 1",
    equation=None,
    section="Sec. 4.1; restated as Theorem A1, App. A.1 (proof ends at (A21))",
)

_CLIENT_STEP = _step(
    "mu_L<=1/(lLK2^(1.15l+1.85))",
    eta_l,
    STEP_CLIENT,
    r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}",
    where="Theorem 1 / Theorem 2 (and A1, A2)",
    group="mu_L",
)
_REDDI = _step(
    "[13] Lemma 3: mu_L<=1/(8LK)",
    eta_l,
    ONE / (8 * L * K),
    r"\mu_L\le\frac{1}{8LK}",
    where="App. A.1, client drift bound (A11), quoted from [13] (Reddi et al., Lemma 3)",
    source="implicit",
    note="the drift bound (A11) is taken from [13], whose Lemma 3 assumes eta_l <= 1/(8LK); this paper does not "
    "print the condition. It is implied by mu_L <= 1/(lLK2^{1.15l+1.85}) for every l >= 1 (2^{3} l >= 8).",
)


def _gamma_hyps(
    gamma: sp.Expr, ascii_name: str, tag: str, where: str, source: Source, note: str, *, with_step: bool
) -> tuple[Hypothesis, ...]:
    """The denominator 1 - Gamma lambda_2 must be positive: a validity condition (the bound is void
    otherwise), and, where SymPy gives up on it quickly, also a step-size condition (Gamma lambda_2 increases
    with mu_L) so that max_step finds the largest mu_L that keeps it, by a numeric search."""
    printed = rf"{tag}\lambda_2<1"
    validity = _validity(
        f"validity: {ascii_name}*lambda_2<1", gamma * LAMBDA_2, "<", ONE, printed, where=where, source=source, note=note
    )
    if not with_step:
        return (validity,)
    step = _step(
        f"step: {ascii_name}*lambda_2<1",
        gamma * LAMBDA_2,
        ONE,
        printed,
        where=where,
        source=source,
        rel="<",
        note="the validity condition read as a condition on mu_L (Gamma, lambda_2 increase with mu_L)",
    )
    return (validity, step)


_T1_GAMMA = _gamma_hyps(
    GAMMA,
    "Gamma",
    r"\Gamma",
    "App. A.1, before (A21): 'Choosing a proper mu_L <= 1/(lLK2^{1.15l+1.85}), we have Gamma lambda_2 < 1'",
    "proof",
    "the bound divides by 1 - Gamma lambda_2. The printed step condition does NOT ensure it: with l = 1 "
    "(lambda_2 = 1) and mu_L = 1/(8LK), Gamma = 0.96875 + 0.234375/K >= 1 for K <= 7 (1.203125 at K = 1).",
    with_step=True,
)

_D_A12 = Discrepancy(
    where="(A12), constant term of the bound on A_1 (from (a_4) and (A11))",
    printed=r"\frac{5K^2\mu_L^2lL^2}{2}(\sigma_L^2+6K\sigma_G^2)",
    expected=r"\frac{5K^2\mu_L^2l^2L^2}{2}(\sigma_L^2+6K\sigma_G^2)",
    note="(a_4) carries the factor l L^2/(2m) in front of sum_i sum_j sum_k y_2, and (A11) bounds each (j, k) term, so "
    "the sum over j adds a second factor l. Carried through, Theorem 1's 5K mu_L^2 L^2 (sigma_L^2 + 6K sigma_G^2) "
    "and Theorem 2's 5K mu_L^2 L^2 sigma_L^2 and 30 K^2 mu_L^2 L^2 sigma_G^2 should each carry a factor l; the "
    "printed bounds are smaller than what the proof gives when l > 1.",
)
_D_L_TYPO = Discrepancy(
    where="(A6) step (a_3) and (A15) step (a_14)",
    printed=r"\frac{LL^2}{2m}\ \text{at } (a_3),\ \frac{4KL}{m}\ \text{at } (a_{14})",
    expected=r"\frac{l}{2m}\ \text{at } (a_3),\ \frac{lL^2}{2m}\ \text{at } (a_4),\ \frac{4Kl}{m}\ \text{at } (a_{14})",
    note="the count l of rounds per window is printed as a capital L (and L^2 appears before smoothness is used); "
    "the next lines ((a_16): 4(K^2 l^2 + ...)) use l.",
)
_D_GAMMA_EDGE = Discrepancy(
    where="Theorem 1 step condition vs 'we have Gamma lambda_2 < 1' (before (A21))",
    printed=r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}\Rightarrow\Gamma\lambda_2<1",
    expected=r"\Gamma\lambda_2=0.96875+0.234375/K\ \text{at } l=1,\ \mu_L=\frac{1}{8LK}",
    note="for l = 1 and K <= 7 the printed condition admits step sizes with Gamma lambda_2 >= 1, where 1 - Gamma "
    "lambda_2 <= 0 and the bound is void (at K = 1: Gamma = 1.203125). For l >= 2 the claim holds "
    "(Gamma lambda_2 ~ 0.43 at l = 2). Encoded as the validity condition plus a step-size branch.",
)

THM1 = Result(
    paper=PAPER,
    label="thm1",
    kind="theorem",
    title="Client-side model, full participation",
    provenance=_T1,
    lhs=LHS_CLIENT,
    terms=(
        Term(
            name="initialisation",
            expr=2 * F / (ONE_MINUS * eta_l * K * T),
            meaning="2(F^c(x^0) - F^c(x^*))/((1 - Gamma lambda_2) mu_L K T)",
        ),
        Term(
            name="drift variance (Phi_1)",
            expr=5 * K * eta_l**2 * L**2 * sigma2 / ONE_MINUS,
            meaning="5K mu_L^2 L^2 sigma_L^2/(1 - Gamma lambda_2): first part of Phi_1",
        ),
        Term(
            name="drift heterogeneity (Phi_1)",
            expr=30 * K**2 * eta_l**2 * L**2 * eps2 / ONE_MINUS,
            meaning="5K mu_L^2 L^2 * 6K sigma_G^2/(1 - Gamma lambda_2): first part of Phi_1",
        ),
        Term(
            name="update variance (Phi_1)",
            expr=4
            * (L * eta_l + eta_l**2 * K * L**2 * (ell - 1))
            * (K * ell + 5 * L**2 * K**2 * ell * eta_l**2)
            * sigma2
            / ONE_MINUS,
            meaning="(4L mu_L + 4 mu_L^2 K L^2 (l-1))(Kl + 5L^2K^2 l mu_L^2) sigma_L^2/(1 - Gamma lambda_2): second part of Phi_1",
        ),
        Term(
            name="update heterogeneity (Phi_1)",
            expr=4
            * (L * eta_l + eta_l**2 * K * L**2 * (ell - 1))
            * (K * ell + 30 * L**2 * K**3 * ell * eta_l**2)
            * eps2
            / ONE_MINUS,
            meaning="(4L mu_L + 4 mu_L^2 K L^2 (l-1))(Kl + 30L^2K^3 l mu_L^2) sigma_G^2/(1 - Gamma lambda_2): second part of Phi_1",
        ),
        Term(
            name="gradient growth",
            expr=GAMMA * LAMBDA_1 / ONE_MINUS,
            meaning="Gamma lambda_1/(1 - Gamma lambda_2): growth of the gradient within a window of l rounds",
        ),
    ),
    hypotheses=(_CLIENT_STEP, *_T1_GAMMA, _REDDI),
    assumptions=_ASSUMPTIONS,
    statement=(
        r"\min_{t\in[T]}\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\le\frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{(1-\Gamma\lambda_2)\mu_LKT}+\Phi_1+\frac{\Gamma\lambda_1}{1-\Gamma\lambda_2},\ "
        r"\Phi_1=\frac{5K\mu_L^2L^2(\sigma_L^2+6K\sigma_G^2)}{1-\Gamma\lambda_2}+\frac{4L\mu_L+4\mu_L^2KL^2(l-1)}{1-\Gamma\lambda_2}\left((Kl+5L^2K^2l\mu_L^2)\sigma_L^2+(Kl+30L^2K^3l\mu_L^2)\sigma_G^2\right),\ "
        + _CONSTS_TEX
        + r",\ "
        + _GAMMA_TEX
    ),
    step="eta_l",
    discrepancies=(_D_GAMMA_EDGE, _D_A12, _D_L_TYPO, *_COMMON_DISC),
    notes=(
        "Theorem A1 restates Theorem 1 term for term (and the proof's last display (A21) is the same bound); "
        "it is not a separate edition.",
        "'t = 0 (mod l)' in the statement fixes the rounds the proof analyses (the server updates at those rounds); "
        "it is not a numeric condition.",
        "lambda_1 is encoded as B (lambda_2 - l)/(A - 1), equal to the printed B sum_{j<l} (A^j - 1)/(A - 1); at l = 1 "
        "it is 0 and lambda_2 = 1.",
    ),
    notation=NOTATION_CLIENT,
)

# ---------------------------------------------------------------------------------------------------
# Client side: Theorem 2 / A2 (partial participation)
_T2 = Provenance(
    seed=SEED,
    label="Theorem 2",
    equation=None,
    section="Sec. 4.1; restated as Theorem A2, App. A.1 (proof ends at (A36))",
)

_T2_VAR = (
    5 * K * eta_l**2 * L**2
    + 4 * eta_l**2 * L**2 * (K**2 * ell**2 + 5 * L**2 * K**3 * ell**2 * eta_l**2)
    + L * eta_l * (1 / n + 15 * K**2 * L**2 * eta_l**2)
) * sigma2
_T2_HET = (
    30 * K**2 * eta_l**2 * L**2
    + L * eta_l * (90 * K**3 * L**2 * eta_l**2 + 3 * K)
    + 4 * eta_l**2 * L**2 * (K**2 * ell**2 + 30 * L**2 * K**4 * ell**2 * eta_l**2)
) * eps2

_T2_GAMMA = _gamma_hyps(
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

_D_A36 = Discrepancy(
    where="Theorem 2 / (A36) vs (A35)",
    printed=r"\frac{2(F^c(\bar x^0)-F^c(\bar x^*))}{\mu_LKT}+(\dots)\sigma_L^2+(\dots)\sigma_G^2+\frac{\Gamma'\lambda_1}{1-\Gamma'\lambda_2}",
    expected=r"\frac{1}{1-\Gamma'\lambda_2}\left(\frac{2(F^c(\bar x^0)-F^c(\bar x^*))}{\mu_LKT}+(\dots)\sigma_L^2+(\dots)\sigma_G^2+\Gamma'\lambda_1\right)",
    note="(A35) has Gamma' lambda_2 sum_t E||grad||^2 on the right; moving it to the left divides every term by "
    "1 - Gamma' lambda_2, but (A36) and the statement divide only the last one (Theorem 1 / (A21) divides all). "
    "The printed bound is smaller than what the proof gives. Encoded as sfl_aux/thm2@proof.",
)
_D_STRATEGY = Discrepancy(
    where="Theorems 2 and 4 (and A2, A4) wording",
    printed="partial participation of clients due to strategy one",
    expected="strategy two",
    note="Sec. 3 calls full participation the first strategy and sampling n clients with replacement the second.",
)
_D_ALG_AVG = Discrepancy(
    where="Algorithm 1 line 6 vs (A24)",
    printed=r"\bar x_C^t\leftarrow\frac1m\sum_{i\in[S_t]}x_{C,i}^t",
    expected=r"\bar x_C^t=\frac1n\sum_{i\in[S_t]}x_{C,i}^t",
    note="with n sampled clients the algorithm's 1/m shrinks the model by n/m; the proof averages with 1/n.",
)
_D_A31 = Discrepancy(
    where="(A31), (A32) and Gamma'",
    printed=r"15mLK^3L^2\mu_L^2,\ 3mLK^2\sigma_G^2,\ (90mLK^4L^2\mu_L^2+3mK^2)\textstyle\sum_j,\ \Gamma'\ni\frac{L\mu_L}{l}(90lK^3L^2\mu_L^2+3K)",
    expected=r"15mlK^3L^2\mu_L^2,\ 3mlK^2\sigma_G^2,\ (90mK^4L^2\mu_L^2+3mK^2)\textstyle\sum_j,\ \frac{L\mu_L}{l}(90K^3L^2\mu_L^2+3K)",
    note="the window length l is printed as L in (A31)/(A32); the coefficient of sum_j E||grad||^2 should carry no l "
    "(the drift term sums over j already), so Gamma' has an extra factor l in 90 l K^3 L^2 mu_L^2. This only "
    "makes Gamma' larger (conservative). Also 4mu_L^2L^2(l-1)(K^2 l + ...) is bounded by 4mu_L^2L^2(K^2l^2 + ...) "
    "in (A33), a valid upper bound.",
)
_T2_DISC = (_D_A36, _D_A12, _D_A31, _D_STRATEGY, _D_ALG_AVG, *_COMMON_DISC)

_T2_STATEMENT = (
    r"\min_{t\in[T]}\mathbb E\|\nabla F^c(\bar{\mathbf x}_C^t)\|^2\le\frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{\mu_LKT}"
    r"+\left(5K\mu_L^2L^2+4\mu_L^2L^2(K^2l^2+5L^2K^3l^2\mu_L^2)+L\mu_L\left(\frac1n+15K^2L^2\mu_L^2\right)\right)\sigma_L^2"
    r"+\left(30K^2\mu_L^2L^2+L\mu_L(90K^3L^2\mu_L^2+3K)+4\mu_L^2L^2(K^2l^2+30L^2K^4l^2\mu_L^2)\right)\sigma_G^2"
    r"+\frac{\Gamma'\lambda_1}{1-\Gamma'\lambda_2},\ "
    + _GAMMA_P_TEX
    + r",\ "
    + _CONSTS_TEX
    + r"\ (\text{from Theorem 1})"
)

THM2 = Result(
    paper=PAPER,
    label="thm2",
    kind="theorem",
    title="Client-side model, partial participation (n clients sampled with replacement)",
    provenance=_T2,
    lhs=LHS_CLIENT,
    terms=(
        Term(
            name="initialisation",
            expr=2 * F / (eta_l * K * T),
            meaning="2(F^c(x^0) - F^c(x^*))/(mu_L K T), as printed (no 1/(1 - Gamma' lambda_2))",
        ),
        Term(
            name="variance",
            expr=_T2_VAR,
            meaning="(5K mu_L^2 L^2 + 4mu_L^2L^2(K^2l^2 + 5L^2K^3l^2mu_L^2) + L mu_L(1/n + 15K^2L^2mu_L^2)) sigma_L^2",
        ),
        Term(
            name="heterogeneity",
            expr=_T2_HET,
            meaning="(30K^2mu_L^2L^2 + L mu_L(90K^3L^2mu_L^2 + 3K) + 4mu_L^2L^2(K^2l^2 + 30L^2K^4l^2mu_L^2)) sigma_G^2",
        ),
        Term(
            name="gradient growth",
            expr=GAMMA_PRIME * LAMBDA_1 / ONE_MINUS_P,
            meaning="Gamma' lambda_1/(1 - Gamma' lambda_2)",
        ),
    ),
    hypotheses=(_CLIENT_STEP, *_T2_GAMMA, _REDDI),
    assumptions=_ASSUMPTIONS,
    statement=_T2_STATEMENT,
    step="eta_l",
    discrepancies=_T2_DISC,
    notes=(
        "Theorem A2 restates Theorem 2 term for term and (A36) is the same bound; the @proof edition is what (A35) gives.",
        "lambda_1, lambda_2 (and A, B) are Theorem 1's; the statement does not redefine them.",
    ),
    notation=NOTATION_CLIENT,
)

THM2_PROOF = Result(
    paper=PAPER,
    label="thm2",
    kind="theorem",
    title="Client-side model, partial participation: the bound that (A35) gives",
    provenance=Provenance(
        seed=SEED,
        label="Theorem A2, proof",
        equation="(A35)",
        section="App. A.1 (A35), divided by (1 - Gamma' lambda_2) T/l",
    ),
    lhs=LHS_CLIENT,
    terms=(
        Term(
            name="initialisation",
            expr=2 * F / (ONE_MINUS_P * eta_l * K * T),
            meaning="2(F^c(x^0) - F^c(x^*))/((1 - Gamma' lambda_2) mu_L K T)",
        ),
        Term(
            name="variance", expr=_T2_VAR / ONE_MINUS_P, meaning="Theorem 2's sigma_L^2 term over (1 - Gamma' lambda_2)"
        ),
        Term(
            name="heterogeneity",
            expr=_T2_HET / ONE_MINUS_P,
            meaning="Theorem 2's sigma_G^2 term over (1 - Gamma' lambda_2)",
        ),
        Term(
            name="gradient growth",
            expr=GAMMA_PRIME * LAMBDA_1 / ONE_MINUS_P,
            meaning="Gamma' lambda_1/(1 - Gamma' lambda_2)",
        ),
    ),
    hypotheses=(_CLIENT_STEP, *_T2_GAMMA, _REDDI),
    assumptions=_ASSUMPTIONS,
    edition="proof",
    statement=(
        r"\frac{1}{1-\Gamma'\lambda_2}\Big(\frac{2(F^c(\bar{\mathbf x}_C^0)-F^c(\bar{\mathbf x}_C^*))}{\mu_LKT}"
        r"+\left(5K\mu_L^2L^2+4\mu_L^2L^2(K^2l^2+5L^2K^3l^2\mu_L^2)+L\mu_L\left(\frac1n+15K^2L^2\mu_L^2\right)\right)\sigma_L^2"
        r"+\left(30K^2\mu_L^2L^2+L\mu_L(90K^3L^2\mu_L^2+3K)+4\mu_L^2L^2(K^2l^2+30L^2K^4l^2\mu_L^2)\right)\sigma_G^2+\Gamma'\lambda_1\Big)"
    ),
    step="eta_l",
    discrepancies=_T2_DISC,
    notes=(
        "Derived by us from the printed display (A35): move Gamma' lambda_2 sum_t E||grad||^2 to the left and divide "
        "by (1 - Gamma' lambda_2) T/l (the number of windows), exactly as the proof of Theorem 1 does from (A20) to (A21).",
    ),
    notation=NOTATION_CLIENT,
)

# ---------------------------------------------------------------------------------------------------
# Client-side corollaries (O-only)
_STEP_CLIENT_COR = STEP_CLIENT / sp.sqrt(T)
_RATE_CLIENT = r"\mathcal{O}\left(\frac{l}{\sqrt{T}}+\frac{1}{T\sqrt{T}}\right)"


def _client_cor_hyps(theorem: str, gamma_hyps: tuple[Hypothesis, ...]) -> tuple[Hypothesis, ...]:
    return (
        _step(
            "mu_L<=1/(lLK2^(1.15l+1.85)sqrt(T))",
            eta_l,
            _STEP_CLIENT_COR,
            r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}\sqrt{T}}",
            where=f"Corollary {theorem[-1]} (and A{theorem[-1]})",
            group="mu_L",
        ),
        _step(
            "mu_L<=1/(lLK2^(1.15l+1.85))",
            eta_l,
            STEP_CLIENT,
            r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}",
            where=f"{theorem}, which the corollary applies",
            source="implicit",
            note=f"inherited from {theorem}; implied by the corollary's branch since T >= 1",
        ),
        *gamma_hyps[1:],
    )


_D_COR_CLIENT = (
    Discrepancy(
        where="Corollaries 1, 2 (eqs. (4), (5), (A1), (A22)): the rate",
        printed=r"\mathcal O\left(\frac{l}{\sqrt T}+\frac{1}{T\sqrt T}\right)",
        expected=r"\frac{2^{1.15l+2.85}\,lLF}{(1-\Gamma\lambda_2)\sqrt T}+\dots",
        note="at mu_L = 1/(lLK2^{1.15l+1.85}sqrt T) the initialisation term of the theorem is "
        "2^{1.15l+2.85} l L F/((1 - Gamma lambda_2) sqrt T): the O shows l but hides a factor exponential in l. "
        "No proof of the corollaries is printed.",
    ),
    Discrepancy(
        where="Corollaries 1, 2: step size",
        printed=r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}\sqrt T}",
        expected=r"\mu_L=\Theta\left(\frac{1}{lLK2^{1.15l+1.85}\sqrt T}\right)",
        note="the term 2F/(mu_L K T) grows as mu_L shrinks, so the rate follows only for mu_L of that order, not for "
        "every smaller mu_L.",
    ),
    Discrepancy(
        where="Corollaries 1, 2: notation",
        printed=r"\min_t\mathbb E\|\nabla f^c(\bar x_C^t)\|^2",
        expected=r"\min_t\mathbb E\|\nabla F^c(\bar x_C^t)\|^2",
        note="lower-case f^c is defined nowhere; the theorems bound F^c.",
    ),
)

COR1 = Result(
    paper=PAPER,
    label="cor1",
    kind="corollary",
    title="Client-side rate, full participation",
    provenance=Provenance(
        seed=SEED, label="Corollary 1", equation="(4)", section="Sec. 4.1; restated as Corollary A1, eq. (A1)"
    ),
    lhs=LHS_CLIENT,
    terms=(),
    hypotheses=_client_cor_hyps("Theorem 1", _T1_GAMMA),
    assumptions=_ASSUMPTIONS,
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla f^c(\bar{\mathbf x}_C^t)\|^2\le" + _RATE_CLIENT,
    rate=_RATE_CLIENT,
    step="eta_l",
    explicit=False,
    see="sfl_aux/thm1",
    discrepancies=(*_D_COR_CLIENT, _D_GAMMA_EDGE),
    notes=(
        "Theorem 1's bound at the corollary's step size is the explicit form; its validity condition carries over.",
    ),
    notation=NOTATION_CLIENT,
)

COR2 = Result(
    paper=PAPER,
    label="cor2",
    kind="corollary",
    title="Client-side rate, partial participation",
    provenance=Provenance(
        seed=SEED, label="Corollary 2", equation="(5)", section="Sec. 4.1; restated as Corollary A2, eq. (A22)"
    ),
    lhs=LHS_CLIENT,
    terms=(),
    hypotheses=_client_cor_hyps("Theorem 2", _T2_GAMMA),
    assumptions=_ASSUMPTIONS,
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla f^c(\bar{\mathbf x}_C^t)\|^2\le" + _RATE_CLIENT,
    rate=_RATE_CLIENT,
    step="eta_l",
    explicit=False,
    see="sfl_aux/thm2",
    discrepancies=(*_D_COR_CLIENT, _D_A36),
    notes=("Theorem 2's bound (or its @proof edition) at the corollary's step size is the explicit form.",),
    notation=NOTATION_CLIENT,
)

# ---------------------------------------------------------------------------------------------------
# Server side: Theorem 3 / A3 (full participation)
_T3_TERMS = (
    Term(
        name="initialisation",
        expr=2 * ell * F / (eta * (2 * M - 3) * T),
        meaning="2l(F^s(x^0) - F^s(x^*))/(mu (2m - 3) T)",
    ),
    Term(
        name="variance",
        expr=L * eta * M**2 * R(46, 5) * sigma2 / (2 * M - 3),
        meaning="L mu m^2 * 9.2 sigma_L^2/(2m - 3)",
    ),
    Term(
        name="heterogeneity",
        expr=L * eta * M**2 * R(66, 5) * eps2 / (2 * M - 3),
        meaning="L mu m^2 * 13.2 sigma_G^2/(2m - 3)",
    ),
)
_T3_STATEMENT = r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le\frac{2l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(2m-3)T}+\frac{L\mu m^2}{2m-3}(9.2\sigma_L^2+13.2\sigma_G^2)"

_DRIFT_SERVER = _step(
    "mu<=1/(2L(2m+1))",
    eta,
    ONE / (2 * L * (2 * M + 1)),
    r"\mu\le\frac{1}{2L(2m+1)}",
    where="App. A.2, proof of A3 before (A44) and proof of A4 before (A56): 'Given mu <= 1/(2L(2m+1))'",
    source="proof",
    note="used to absorb 4(1+2m) mu^2 L^2 into 1 + 1/(m-1) in the server drift recursion",
)
_T3_VALIDITY = _validity(
    "validity: 2m-3>0",
    2 * M - 3,
    ">",
    sp.Integer(0),
    r"2m-3>0",
    where="Theorem 3 / A3 (denominator 2m - 3); the proof's remark 'for m > 1' after (A44)",
    source="implicit",
    note="with one client (m = 1) the denominator is negative and the bound is void; the drift lemma also needs m > 1",
)
# (b_15) of the proof of A3: the display before it has coefficients that (b_15) bounds by constants.
_T3_B15 = (
    _step(
        "(b_15) gradient coefficient <= 2",
        sp.Min(
            6 * L * M**2 * eta + 16 * L**2 * M**3 * (1 + 2 * M) * eta**2 + 96 * L**3 * M**3 * (1 + 2 * M) * eta**3, 3
        ),
        sp.Integer(2),
        r"6Lm^2\mu+16L^2m^3(1+2m)\mu^2+96L^3m^3(1+2m)\mu^3\le2",
        where="App. A.2, proof of A3, step (b_15)",
        source="implicit",
        note="(b_15) turns (1/2)(-2 mu m + 6L m^2 mu^2 + mu + 96L^3 mu^4 m^3(1+2m) + 16L^2 mu^3 m^3(1+2m)) into "
        "mu(3 - 2m)/2, which needs the extra terms <= 2 mu. No condition is printed there. Encoded as "
        "min(., 3) <= 2 (equivalent) so that max_step searches numerically: the cubic's closed-form roots are "
        "NaN in real arithmetic.",
    ),
    _step(
        "(b_15) variance coefficients <= 7.2",
        16 * L * M * (1 + 2 * M) * eta + 96 * L**2 * M * (1 + 2 * M) * eta**2,
        R(36, 5),
        r"16Lm(1+2m)\mu+96L^2m(1+2m)\mu^2\le7.2",
        where="App. A.2, proof of A3, step (b_15)",
        source="implicit",
        note="(b_15) bounds (1/2)(16L^2mu^3m^3(1+2m) + 2L mu^2 m^2 + 96L^3mu^4m^3(1+2m)) by (L mu^2 m^2/2) 9.2 and the "
        "sigma_G^2 coefficient (6L mu^2 m^2 instead of 2) by (L mu^2 m^2/2) 13.2: both need exactly this.",
    ),
)

_D_T3_STEP = Discrepancy(
    where="Theorem 3 vs Theorem A3 (step-size condition)",
    printed=r"\mu\le\frac{1}{2L}",
    expected=r"\mu\le\frac{1}{8Lm^2}\ (\text{Theorem A3})",
    note="main text and appendix differ. mu <= 1/(2L) gives neither the proof's mu <= 1/(2L(2m+1)) nor step (b_15) "
    "(at mu = 1/(2L) the gradient coefficient has 6L m^2 mu = 3m^2 > 2); mu <= 1/(8Lm^2) gives both for m >= 2. "
    "Encoded as sfl_aux/thm3@appendix.",
)
_D_ALG_SERVER = Discrepancy(
    where="Algorithm 1 line 16 vs (A38), (A48)",
    printed=r"\mathbf x_S\leftarrow\mathbf x_S-\frac{\mu}{m}\nabla F_i^s",
    expected=r"\mathbf x_{S,i+1}^t=\mathbf x_{S,i}^t-\mu\tilde\nabla F_i^s(\mathbf x_{S,i}^t)",
    note="the algorithm's server step is mu/m, the proofs' is mu; the encoded eta is the proofs' mu.",
)
_D_T3_B15 = Discrepancy(
    where="proof of A3, step (b_15)",
    printed=r"\le F^s+\frac{\mu(3-2m)}{2}\mathbb E\|\nabla F^s\|^2+\frac{L\mu^2m^2}{2}(9.2\sigma_L^2+13.2\sigma_G^2)",
    expected=r"\text{needs } 6Lm^2\mu+16L^2m^3(1+2m)\mu^2+96L^3m^3(1+2m)\mu^3\le2,\ 16Lm(1+2m)\mu+96L^2m(1+2m)\mu^2\le7.2",
    note="no step-size condition is printed at (b_15) in the proof of A3; encoded as implicit branches.",
)
_T3_DISC = (_D_T3_STEP, _D_T3_B15, _D_ALG_SERVER, *_COMMON_DISC)

THM3 = Result(
    paper=PAPER,
    label="thm3",
    kind="theorem",
    title="Server-side model, full participation",
    provenance=Provenance(seed=SEED, label="Theorem 3", equation=None, section="Sec. 4.2"),
    lhs=LHS_SERVER,
    terms=_T3_TERMS,
    hypotheses=(
        _step("mu<=1/(2L)", eta, ONE / (2 * L), r"\mu\le\frac{1}{2L}", where="Theorem 3", group="mu"),
        _T3_VALIDITY,
        _DRIFT_SERVER,
        *_T3_B15,
    ),
    assumptions=_ASSUMPTIONS,
    statement=_T3_STATEMENT,
    step="eta",
    discrepancies=_T3_DISC,
    notation=NOTATION_SERVER,
)

THM3_APPENDIX = Result(
    paper=PAPER,
    label="thm3",
    kind="theorem",
    title="Server-side model, full participation, as restated in the appendix (Theorem A3)",
    provenance=Provenance(seed=SEED, label="Theorem A3", equation="(A46)", section="App. A.2"),
    lhs=LHS_SERVER,
    terms=_T3_TERMS,
    hypotheses=(
        _step("mu<=1/(8Lm^2)", eta, ONE / (8 * L * M**2), r"\mu\le\frac{1}{8Lm^2}", where="Theorem A3", group="mu"),
        _T3_VALIDITY,
        _DRIFT_SERVER,
        *_T3_B15,
    ),
    assumptions=_ASSUMPTIONS,
    edition="appendix",
    statement=_T3_STATEMENT,
    step="eta",
    discrepancies=_T3_DISC,
    notes=(
        "The bound of A3 (and the proof's last display (A46)) equals Theorem 3's term for term; only the step-size condition differs.",
    ),
    notation=NOTATION_SERVER,
)

# ---------------------------------------------------------------------------------------------------
# Server side: Theorem 4 / A4 (partial participation)
_T4_TERMS = (
    Term(name="initialisation", expr=ell * F / (eta * (M - 2) * T), meaning="l(F^s(x^0) - F^s(x^*))/(mu (m - 2) T)"),
    Term(name="variance", expr=7 * L * eta * M**2 * sigma2 / (M - 2), meaning="L mu m^2 * 7 sigma_L^2/(m - 2)"),
    Term(name="heterogeneity", expr=7 * L * eta * M**2 * eps2 / (M - 2), meaning="L mu m^2 * 7 sigma_G^2/(m - 2)"),
)
_T4_STATEMENT = r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le\frac{l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(m-2)T}+\frac{L\mu m^2}{m-2}(7\sigma_L^2+7\sigma_G^2)"

_T4_VALIDITY = _validity(
    "validity: m-2>0",
    M - 2,
    ">",
    sp.Integer(0),
    r"m-2>0",
    where="Theorem 4 / A4 (denominator m - 2)",
    source="implicit",
    note="with m <= 2 clients the denominator is zero or negative and the bound is void",
)
_T4_B15 = (
    _step(
        "(b_15) gradient coefficient <= 3-2(m-n)",
        sp.Min(
            16 * L**4 * (n**3 + 2 * n**4) * eta**2 + 3 * L * n**2 * eta + 48 * L**3 * n**2 * (M + 2 * M**2) * eta**3, 4
        ),
        3 - 2 * (M - n),
        r"16L^4(n^3+2n^4)\mu^2+3Ln^2\mu+48L^3n^2(m+2m^2)\mu^3\le3-2(m-n)",
        where="App. A.2, proof of A4, step (b_15) ('holds as mu <= 1/(8L^2m^2)')",
        source="implicit",
        note="(b_15) turns (1/2)(mu - 2n mu + 16L^4(n^3+2n^4)mu^3 + 3L mu^2 n^2 + 48L^3n^2mu^4(m+2m^2)) into "
        "mu(4 - 2m)/2: the extra terms must be <= mu(3 - 2(m - n)), impossible for n <= m - 2 (then max_step "
        "reports 0). Encoded as min(., 4) <= rhs (equivalent, rhs <= 3) so that max_step searches numerically.",
    ),
    _step(
        "(b_15) sigma_L^2 coefficient <= 14 m^2",
        16 * L**3 * (n**3 + 2 * n**4) * eta + n + 48 * L**2 * n**2 * (M + 2 * M**2) * eta**2,
        14 * M**2,
        r"16L^3(n^3+2n^4)\mu+n+48L^2n^2(m+2m^2)\mu^2\le14m^2",
        where="App. A.2, proof of A4, step (b_15)",
        source="implicit",
        note="(1/2)(16L^4(n^3+2n^4)mu^3 + L n mu^2 + 48L^3n^2mu^4(m+2m^2)) <= (L mu^2 m^2/2) 14, reading (b_15)'s "
        "L mu m^2/2 as L mu^2 m^2/2 (the reading (A59)-(A60) use)",
    ),
    _step(
        "(b_15) sigma_G^2 coefficient <= 14 m^2",
        16 * L**3 * (n**3 + 2 * n**4) * eta + 3 * n**2 + 48 * L**2 * n**2 * (M + 2 * M**2) * eta**2,
        14 * M**2,
        r"16L^3(n^3+2n^4)\mu+3n^2+48L^2n^2(m+2m^2)\mu^2\le14m^2",
        where="App. A.2, proof of A4, step (b_15)",
        source="implicit",
        note="(1/2)(16L^4(n^3+2n^4)mu^3 + 3L mu^2 n^2 + 48L^3n^2mu^4(m+2m^2)) <= (L mu^2 m^2/2) 14",
    ),
)

_D_T4 = (
    Discrepancy(
        where="proof of A4, step (b_15): the descent coefficient",
        printed=r"\frac12(\mu-2n\mu+\dots)\le\frac{\mu(4-2m)}{2}",
        expected=r"\frac{\mu(4-2n)}{2}\ (\text{at best})",
        note="B_2 = -n mu E||grad||^2 (A52), but (b_15) continues with -m mu: valid only if the remaining terms are "
        "<= mu(3 - 2(m - n)), impossible when n <= m - 2. With n the bound would read l F/(mu(n-2)T) + ... .",
    ),
    Discrepancy(
        where="(A58), contribution of B_1",
        printed=r"\frac12\,16L^4(n^3+2n^4)\mu^3",
        expected=r"\frac12\,16L^2n^2(m+2m^2)\mu^3\ (\text{from (A51) with (A57)})",
        note="L^4 where the full-participation analogue (A44 into A40) has L^2 (the power of L does not match the "
        "dimension of the other terms), and n + 2n^2 where the drift bound (A57) has m + 2m^2.",
    ),
    Discrepancy(
        where="(A58) step (b_15) vs (A59)-(A60)",
        printed=r"\frac{L\mu m^2}{2}(14\sigma_L^2+14\sigma_G^2)",
        expected=r"\frac{L\mu^2m^2}{2}(14\sigma_L^2+14\sigma_G^2)",
        note="dividing the printed L mu m^2/2 by mu(m-2) would give 7 L m^2/(m-2) without mu; (A59)-(A60) print "
        "L mu m^2/(m-2), i.e. they divide L mu^2 m^2/2 (as in the proof of A3).",
    ),
    Discrepancy(
        where="Theorem 4 step-size condition",
        printed=r"\mu\le\frac{1}{8L^2m^2}",
        expected=r"\mu\le\frac{1}{8Lm^2}\ (\text{as in Theorem A3})",
        note="L^2 makes the condition scale-inconsistent: for L < 1 it allows mu > 1/(8Lm^2), and then 3L n^2 mu in the "
        "gradient coefficient is not controlled (e.g. L = 0.01: 3 L m^2 mu up to 37.5 > 3).",
    ),
    Discrepancy(
        where="(A49) and the drift bound (A56)-(A57) in the proof of A4",
        printed=r"\mathbf x_S^{t+l}-\mathbf x_S^t=-\mu\sum_{i=0}^{m-1}\tilde\nabla F_i^s,\ 16(m+2m^2)\mu^2(\dots)",
        expected=r"-\mu\sum_{i\in[S_t]}\tilde\nabla F_i^s,\ n\text{ sequential server steps}",
        note="copied from the full-participation proof: with partial participation the server takes n steps per "
        "update, as (A50) sums over S_t.",
    ),
    Discrepancy(
        where="Theorem 4 vs Theorem A4 (participation)",
        printed=r"\text{A4: 'full participation of clients'}",
        expected=r"\text{Theorem 4: 'partial participation of clients'}",
        note="A4 restates Theorem 4's bound and condition but calls the setting full participation, while its proof "
        "samples S_t. Encoded as sfl_aux/thm4@appendix with the coupling n = M.",
    ),
)
_T4_DISC = (*_D_T4, _D_STRATEGY, _D_ALG_SERVER, *_COMMON_DISC)


def _t4_hyps(where: str) -> tuple[Hypothesis, ...]:
    return (
        _step("mu<=1/(8L^2m^2)", eta, ONE / (8 * L**2 * M**2), r"\mu\le\frac{1}{8L^2m^2}", where=where, group="mu"),
        _T4_VALIDITY,
        _DRIFT_SERVER,
        *_T4_B15,
    )


THM4 = Result(
    paper=PAPER,
    label="thm4",
    kind="theorem",
    title="Server-side model, partial participation",
    provenance=Provenance(
        seed=SEED, label="Theorem 4", equation=None, section="Sec. 4.2; restated as Theorem A4 (proof ends at (A60))"
    ),
    lhs=LHS_SERVER,
    terms=_T4_TERMS,
    hypotheses=_t4_hyps("Theorem 4"),
    assumptions=_ASSUMPTIONS,
    statement=_T4_STATEMENT,
    step="eta",
    discrepancies=_T4_DISC,
    notes=("n does not appear in the bound; the conditions the proof's step (b_15) needs depend on it.",),
    notation=NOTATION_SERVER,
)

THM4_APPENDIX = Result(
    paper=PAPER,
    label="thm4",
    kind="theorem",
    title="Server-side model as restated in the appendix (Theorem A4, 'full participation')",
    provenance=Provenance(seed=SEED, label="Theorem A4", equation="(A60)", section="App. A.2"),
    lhs=LHS_SERVER,
    terms=_T4_TERMS,
    hypotheses=(
        Hypothesis(
            name="full participation: n = m",
            lhs=n,
            rel="==",
            rhs=M,
            kind="coupling",
            printed=r"\text{full participation of clients}",
            where="Theorem A4",
            note="A4 says full participation; n defaults to M",
        ),
        *_t4_hyps("Theorem A4"),
    ),
    assumptions=_ASSUMPTIONS,
    edition="appendix",
    statement=_T4_STATEMENT,
    step="eta",
    defaults=(Default(name="n", expr=M, rule="TODO(rule)"),),
    discrepancies=_T4_DISC,
    notes=("Bound and step-size condition equal Theorem 4's; only the participation wording differs.",),
    notation=NOTATION_SERVER,
)

# ---------------------------------------------------------------------------------------------------
# Server-side corollaries (O-only)
_RATE_SERVER = r"\mathcal{O}\left(\frac{l}{\sqrt{T}}\right)"
_D_COR_SERVER = (
    Discrepancy(
        where="Corollaries 3, 4 vs Sec. 5.1 ('Key Results')",
        printed=r"\mathcal O\left(\frac{l}{\sqrt T}\right)",
        expected=r"\mathcal O\left(\frac{1}{\sqrt T}\right)\ (\text{Sec. 5.1})",
        note="the conclusions state the server-side rate without l.",
    ),
    Discrepancy(
        where="Corollaries 3, 4: constants hidden in the O",
        printed=r"\mathcal O\left(\frac{l}{\sqrt T}\right)",
        expected=r"\frac{4lLF}{(2m-3)\sqrt T}+\frac{m^2}{2(2m-3)\sqrt T}(9.2\sigma_L^2+13.2\sigma_G^2)\ (\text{Cor. 3 at }\mu=\frac{1}{2L\sqrt T})",
        note="the variance term grows linearly in m, which the O hides (Sec. 5.1 reads the result as 'the number of "
        "clients is not effective'); as with the client side, the rate needs mu of that order, not any smaller mu.",
    ),
)

_COR3_HYPS_MAIN = (
    _step(
        "mu<=1/(2L sqrt(T))",
        eta,
        ONE / (2 * L * sp.sqrt(T)),
        r"\mu\le\frac{1}{2L\sqrt T}",
        where="Corollary 3",
        group="mu",
    ),
    _step(
        "mu<=1/(2L)",
        eta,
        ONE / (2 * L),
        r"\mu\le\frac{1}{2L}",
        where="Theorem 3, which the corollary applies",
        source="implicit",
        note="inherited from Theorem 3; implied since T >= 1",
    ),
)
_COR3_HYPS_APP = (
    _step(
        "mu<=1/(Lm^2 sqrt(T))",
        eta,
        ONE / (L * M**2 * sp.sqrt(T)),
        r"\mu\le\frac{1}{Lm^2\sqrt T}",
        where="Corollary A3",
        group="mu",
    ),
    _step(
        "mu<=1/(8Lm^2)",
        eta,
        ONE / (8 * L * M**2),
        r"\mu\le\frac{1}{8Lm^2}",
        where="Theorem A3, which the corollary applies",
        source="implicit",
        note="inherited from Theorem A3; binds when T < 64",
    ),
)
_D_COR3 = Discrepancy(
    where="Corollary 3 vs Corollary A3 (step size)",
    printed=r"\mu\le\frac{1}{2L\sqrt T}",
    expected=r"\mu\le\frac{1}{Lm^2\sqrt T}\ (\text{Corollary A3})",
    note="main text and appendix differ, following Theorems 3 and A3; A3's corollary step exceeds A3's own "
    "condition 1/(8Lm^2) when T < 64. Encoded as sfl_aux/cor3@appendix.",
)

COR3 = Result(
    paper=PAPER,
    label="cor3",
    kind="corollary",
    title="Server-side rate, full participation",
    provenance=Provenance(seed=SEED, label="Corollary 3", equation=None, section="Sec. 4.2"),
    lhs=LHS_SERVER,
    terms=(),
    hypotheses=_COR3_HYPS_MAIN,
    assumptions=_ASSUMPTIONS,
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le" + _RATE_SERVER,
    rate=_RATE_SERVER,
    step="eta",
    explicit=False,
    see="sfl_aux/thm3",
    discrepancies=(_D_COR3, *_D_COR_SERVER, _D_T3_STEP),
    notes=(
        "Theorem 3's bound at the corollary's step size is the explicit form; its validity condition 2m - 3 > 0 carries over.",
    ),
    notation=NOTATION_SERVER,
)

COR3_APPENDIX = Result(
    paper=PAPER,
    label="cor3",
    kind="corollary",
    title="Server-side rate, full participation, as restated in the appendix (Corollary A3)",
    provenance=Provenance(seed=SEED, label="Corollary A3", equation=None, section="App. A.2"),
    lhs=LHS_SERVER,
    terms=(),
    hypotheses=_COR3_HYPS_APP,
    assumptions=_ASSUMPTIONS,
    edition="appendix",
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le" + _RATE_SERVER,
    rate=_RATE_SERVER,
    step="eta",
    explicit=False,
    see="sfl_aux/thm3@appendix",
    discrepancies=(_D_COR3, *_D_COR_SERVER),
    notation=NOTATION_SERVER,
)

COR4 = Result(
    paper=PAPER,
    label="cor4",
    kind="corollary",
    title="Server-side rate, partial participation",
    provenance=Provenance(seed=SEED, label="Corollary 4", equation=None, section="Sec. 4.2; restated as Corollary A4"),
    lhs=LHS_SERVER,
    terms=(),
    hypotheses=(
        _step(
            "mu<=1/(L^2m^2 sqrt(T))",
            eta,
            ONE / (L**2 * M**2 * sp.sqrt(T)),
            r"\mu\le\frac{1}{L^2m^2\sqrt T}",
            where="Corollary 4 (and A4)",
            group="mu",
        ),
        _step(
            "mu<=1/(8L^2m^2)",
            eta,
            ONE / (8 * L**2 * M**2),
            r"\mu\le\frac{1}{8L^2m^2}",
            where="Theorem 4, which the corollary applies",
            source="implicit",
            note="inherited from Theorem 4; binds when T < 64",
        ),
    ),
    assumptions=_ASSUMPTIONS,
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le" + _RATE_SERVER,
    rate=_RATE_SERVER,
    step="eta",
    explicit=False,
    see="sfl_aux/thm4",
    discrepancies=(
        Discrepancy(
            where="Corollary 4 vs Theorem 4 (step size)",
            printed=r"\mu\le\frac{1}{L^2m^2\sqrt T}",
            expected=r"\mu\le\min\left\{\frac{1}{8L^2m^2},\frac{1}{L^2m^2\sqrt T}\right\}",
            note="for T < 64 the corollary's step exceeds the theorem's condition, which the corollary relies on.",
        ),
        *_D_COR_SERVER,
    ),
    notes=("Corollary A4 restates Corollary 4 identically.",),
    notation=NOTATION_SERVER,
)

RESULTS: tuple[Result, ...] = (
    THM1,
    COR1,
    THM2,
    THM2_PROOF,
    COR2,
    THM3,
    THM3_APPENDIX,
    COR3,
    COR3_APPENDIX,
    THM4,
    THM4_APPENDIX,
    COR4,
)
