r"""Theorem 1 (convergence rate of HERON-SFL in the i.i.d. setting), eq. (14), and its proof's displays.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: Theorem 1
in Sec. V-A (eq. 14), its proof in App. A-B2 (eqs. 44-50).

Statement, as printed (Sec. V-A):

.. math::

    \text{Under Assumptions 1--4, if }\eta_c\le\{\tfrac{1}{3Lh},\tfrac{2}{NLh^2},\tfrac{N}{72L}\},\
    \eta_c=\mathcal O(\sqrt{NB/(dhT)}),\ \eta_s=\mathcal O(\sqrt{hB/(dNT)}),\ \mu=\mathcal O(1/(dhNBT)^{1/4}):\quad
    \min_{t\in[T]}\mathbb E\big[\|\nabla f(\theta_g^t)\|^2\big]\le\mathcal O\Big(\sqrt{\frac{d}{hNBT}}\Big)
    +\mathcal O\Big(\sqrt{\frac{1}{dhNBT}}\Big).

Proof (App. A-B2): the per-round inequality (48)

.. math::

    \|\nabla f(\theta_g^t)\|^2\le\frac{1}{\min\{\frac{\eta_ch}{4},\frac{\eta_s(2N-1)}{4}\}}\Big(f(\theta_g^t)
    -\mathbb E f(\theta_g^{t+1})+\Phi_c(\eta_c)+\frac{\eta_s}{2N}\sum_iG_s^2d_{c,i}^t+\frac L2N^2\eta_s^2G_s^2\Big),

then, summed over t at the coupling eta = eta_c h/4 = eta_s(2N-1)/4, the O-form (49). Editions: ``thm1`` (14)
and ``@proof`` (49) are O-forms (``explicit=False``); ``@round`` is (48); ``@sum`` is (48) averaged over t under
Assumption 4 -- the step the text states in words before (49) (printed for Theorem 2 as (61)).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from . import _common as c
from ._common import F, K, M, T, delta, drift_round, eta_c, eta_s

DISC_T1_MIN = Discrepancy(
    where="Theorem 1 statement, step-size condition",
    printed=r"\eta_c\leq\{\frac{1}{3Lh},\frac{2}{NLh^2},\frac{N}{72L}\}",
    expected=r"\eta_c\leq\min\{\frac{1}{3Lh},\frac{2}{NLh^2},\frac{N}{72L}\}",
    note="the statement drops 'min'; (30) "
    "and (48) print it.",
)  # fmt: skip
T1_DISC = (DISC_T1_MIN, *c.T1_DISC_SHARED)

H1_COUPLING = Hypothesis(
    name="(49) coupling eta_c h/4 = eta_s(2N-1)/4", lhs=eta_s, rel="==", rhs=eta_c * K / (2 * M - 1), kind="coupling",
    printed=r"\eta\triangleq\frac{\eta_ch}{4}=\frac{\eta_s(2N-1)}{4}", source="proof", where="App. A-B2, before (49)",
    note="(49) and the rate are derived at this coupling; eta_s defaults to it",
)  # fmt: skip
ETA_S_COUPLED = Default(name="eta_s", expr=eta_c * K / (2 * M - 1),
    rule="the coupling eta = eta_c h/4 = eta_s(2N-1)/4 the proof of Theorem 1 introduces before (49) (App. A-B2)")  # fmt: skip
RULES = (*c.H1_STMT, *c.H1_PROOF)  # (48) holds for any eta_s within (45)(a)
O_RULES = (*RULES, H1_COUPLING)  # the O-forms (14), (49) are derived at (49)'s coupling
SEE = "heron_sfl/thm1@sum"


def _edition(
    edition: str, title: str, equation: str, section: str, label: str = "Theorem 1, proof", **kw: Any
) -> Result:
    """An edition of Theorem 1: the assumptions, step, coupling default and discrepancies they all share."""
    return Result(paper=c.KEY, label="thm1", kind="theorem", title=title, edition=edition, assumptions=c.A_T1,
                  provenance=c.provenance(label=label, equation=equation, section=section), step="eta_c",
                  defaults=(ETA_S_COUPLED,), discrepancies=T1_DISC, **kw)  # fmt: skip


def _terms(descent: sp.Expr, drift: sp.Expr) -> tuple[Term, ...]:
    """(48) term by term: the one-round decrease (or F/T once summed) and the drift, over eta_min."""
    return c.descent_terms(descent, drift, phi=c.PHI_C, eta_min=c.ETA_MIN1,
                           eta_min_text="min{eta_c h/4, eta_s(2N-1)/4}",
                           phi_text="Phi_c of Lemma 4", drift_text=": client-output drift seen by the server")  # fmt: skip


THM1 = _edition(
    "", "HERON-SFL convergence rate (i.i.d. setting)", "(14)", "Sec. V-A; proof in App. A-B", label="Theorem 1",
    lhs=c.LHS, terms=(), hypotheses=O_RULES, explicit=False, see=SEE,
    statement=r"\min_{t\in[T]}\mathbb{E}\big[\|\nabla f(\bm{\theta}^{t}_{\text{g}})\|^{2}\big]\leq\mathcal{O}\big(\sqrt{\frac{d}{hNBT}}\big)+\mathcal{O}\big(\sqrt{\frac{1}{dhNBT}}\big)",
    rate=r"\mathcal{O}\big(\sqrt{\frac{d}{hNBT}}\big)+\mathcal{O}\big(\sqrt{\frac{1}{dhNBT}}\big)",
    notes=(
        r"Choices printed only in O-form: \eta_c=\mathcal O(\sqrt{NB/(dhT)}), \eta_s=\mathcal O(\sqrt{hB/(dNT)}), "
        r"\mu=\mathcal O((dhNBT)^{-1/4}); they agree with the coupling eta_s = eta_c h/(2N-1) up to constants.",
        "(50) restates (14) as O(sqrt(d/(hNBT))) + O(1/sqrt(dhNBT)): the same rate, not a separate edition.", c.D_NOTE),
)  # fmt: skip

THM1_PROOF = _edition(
    "proof", "HERON-SFL Theorem 1: the bound before the O step, eq. (49)", "(49)", "App. A-B2", lhs=c.LHS, terms=(),
    hypotheses=O_RULES, explicit=False, see=SEE,
    statement=r"\min_{t\in[T]}\mathbb{E}\big[\|\nabla f(\bm{\theta}^{t}_{\text{g}})\|^{2}\big]\leq\frac{f(\bm{\theta}_{\text{g}}^{1})-f^{*}}{\eta T}+\mathcal{C}^{\prime}_{1}\eta+C_{2}\mu^{2}+\frac{C_{3}}{N^{2}}",
    rate=r"\frac{f(\theta_g^1)-f^*}{\eta T}+\mathcal C_1'\eta+C_2\mu^2+\frac{C_3}{N^2},\ \mathcal C_1'=\mathcal O\big(\frac{LG_s^2}{N}+\frac{LdG_c^2}{hNB}+\frac{L\sigma_c^2}{hN}\big),\ C_2=\mathcal O\big(\frac{d^2L^2}{B}\big)",
    notes=("eta = eta_c h/4 = eta_s(2N-1)/4; C_3 'groups the residual drift terms' and is not given.",
           "heron_sfl/thm1@sum is (48) averaged over t, i.e. (49) with its constants written out.", c.D_NOTE),
)  # fmt: skip

THM1_ROUND = _edition(
    "round", "HERON-SFL Theorem 1: per-round inequality, eq. (48)", "(48)", "App. A-B2",
    lhs=c.LHS_ROUND, terms=_terms(c.F_ROUND, drift_round), hypotheses=RULES,
    statement=r"\|\nabla f(\bm{\theta}^{t}_{\text{g}})\|^{2}\leq\frac{1}{\min\{\frac{\eta_{c}h}{4},\frac{\eta_{s}(2N-1)}{4}\}}\big(f(\bm{\theta}_{\text{g}}^{t})-\mathbb{E}\big[f(\bm{\theta}_{\text{g}}^{t+1})\big]+\Phi_{c}(\eta_{c})+\frac{\eta_{s}}{2N}\sum\nolimits_{i=1}^{N}G_{s}^{2}d_{c,i}^{t}+\frac{L}{2}N^{2}\eta_{s}^{2}G_{s}^{2}\big)",
    notes=(
        r"\Phi_c(\eta_c)=\eta_c^2(\frac{6hLdG_c^2}{NB}+\frac{18hL\sigma_c^2}{N})+\eta_c(\frac{d^2L^2h\mu^2}{48B}+\frac{13hL^2\mu^2}{12}) (Lemma 4).",
        "f(theta_g^t) - E f(theta_g^{t+1}) = gap_round - gap_next (may be negative); drift_round = sum_i d_{c,i}^t.",
        "eta_s defaults to the coupling eta_s = eta_c h/(2N-1) of (49); (48) itself holds for any eta_s <= 1/(NL).",
        c.D_NOTE,
    ),
)  # fmt: skip

THM1_SUM = _edition(
    "sum", "HERON-SFL Theorem 1: eq. (48) averaged over t = 1..T (explicit bound behind (49))",
    "(48), summed as stated before (49)", "App. A-B2", lhs=c.LHS, terms=_terms(F / T, delta), hypotheses=RULES,
    statement=r"\frac{f(\theta_g^1)-f^*}{\eta_{\min}T}+\frac{\Phi_c(\eta_c)}{\eta_{\min}}+\frac{\eta_sG_s^2\delta}{2N\eta_{\min}}+\frac{LN^2\eta_s^2G_s^2}{2\eta_{\min}},\ \eta_{\min}=\min\{\frac{\eta_ch}{4},\frac{\eta_s(2N-1)}{4}\}",
    notes=(
        "Not displayed for Theorem 1: App. A-B2 says 'taking the full expectation, summing over t = 1..T' and "
        "jumps to the O-form (49); the same summed display is printed for Theorem 2 as (61). Assumption 4 turns "
        "(1/T) sum_t sum_i d_{c,i}^t into delta.",
        "eta_s defaults to the coupling eta_s = eta_c h/(2N-1) of (49); then eta_min = eta_c h/4.", c.D_NOTE,
    ),
)  # fmt: skip

RESULTS = (THM1, THM1_PROOF, THM1_ROUND, THM1_SUM)
