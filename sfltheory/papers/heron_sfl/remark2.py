r"""Remark 2: the communication rounds Theorem 1 needs to reach an epsilon-stationary point.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: Sec. V-A,
Remark 2 (after eq. 14); the choices in the statement of Theorem 1 and in App. A-B2 after (49).

As printed (Sec. V-A, after Theorem 1):

.. math::

    \text{``The bound is dominated by }\mathcal O(\sqrt{d/(hNBT)})\text{ (the second term is smaller by }1/\sqrt d).
    \text{ Equivalently, \dots\ achieving an }\varepsilon\text{-stationary point requires a total of }
    T=\mathcal O\big(d/(hNB\varepsilon^2)\big)\text{ communication rounds.''}

The count is the leading term of (14) set equal to epsilon, at Theorem 1's step choices eta_c = O(sqrt(NB/(dhT))),
eta_s = O(sqrt(hB/(dNT))) and mu = O((dhNBT)^{-1/4}). Encoded at unit O-constants (as the rounds rows of other
papers): the bound is d/(hNB eps^2); the rules derive T from eps and the choices from T, so that Theorem 1's
step-size conditions are checked at the step the count assumes.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from ...vocabulary import symbol
from . import _common as c
from ._common import D, K, M, T, batch, eps_target

ROUNDS = D / (K * M * batch * eps_target**2)

DISC_R2_RANGE = Discrepancy(
    where="Remark 2: linear speedup in N and B, h times fewer rounds",
    printed=r"T=\mathcal O\big(\frac{d}{hNB\varepsilon^2}\big)\ \text{for every }\varepsilon",
    expected=r"\eta_c=\sqrt{\frac{NB}{dhT}}=\frac{NB\varepsilon}{d}\le\frac{2}{NLh^2}\iff\varepsilon\le\frac{2d}{LN^2Bh^2}\ \text{(and }\varepsilon\le\frac{d}{3LNBh},\frac{d}{72LB}\text{)}",
    note="at T = d/(hNB eps^2) Theorem 1's choice eta_c = O(sqrt(NB/(dhT))) is NB eps/d (eta_s is hB eps/d), so the step "
    "conditions of (30) hold only for eps <= 2d/(L N^2 B h^2) up to the O-constants: for a given eps the count stops "
    "applying once N, B or h grow past that range, so neither the speedup in N B nor the factor h is unconditional.",
)  # fmt: skip

_THM1 = "the statement of Theorem 1; App. A-B2 after (49)"


def _choice(name: str, expr: sp.Expr, printed: str, what: str, where: str = _THM1) -> tuple[Default, Hypothesis]:
    """A choice the count assumes, at unit O-constant: the rule that fills it in, and the condition that holds it
    there (a value given otherwise is not the remark's, so the count does not apply to it)."""
    rule = f"{what} ({where}) at unit O-constant"
    hyp = Hypothesis(
        name=f"choice {name}", lhs=symbol(name), rel="==", rhs=expr, kind="choice", printed=printed, where=where,
        note=f"Remark 2 assumes {what}; encoded at unit O-constant",
    )  # fmt: skip
    return Default(name=name, expr=expr, rule=rule), hyp


# T from eps, then Theorem 1's choices from T (the order of the rules does not matter: each has its own target).
# The count is a number of rounds: the rule's d/(hNB eps^2) is rounded up to whole rounds (sfltheory.defaults,
# "Whole counts"), so the choice it states holds at the ceiling -- a T given otherwise is not the remark's.
T_RULE, T_CHOICE = _choice("T", ROUNDS, r"T=\mathcal O\big(d/(hNB\varepsilon^2)\big)", "the count T = d/(hNB eps^2)",
                           "Remark 2")  # fmt: skip
T_CHOICE = replace(T_CHOICE, rhs=sp.ceiling(ROUNDS),
                   note="Remark 2 assumes the count T = d/(hNB eps^2), encoded at unit O-constant; whole rounds: the "
                   "ceiling (issue 24: a count below 1 or between integers is the rounds needed, rounded up)")  # fmt: skip
ETA_C_RULE, ETA_C_CHOICE = _choice("eta_c", sp.sqrt(M * batch / (D * K * T)), r"\eta_c=\mathcal O(\sqrt{(NB)/(dhT)})",
                                   "Theorem 1's client step eta_c = O(sqrt(NB/(dhT)))")  # fmt: skip
ETA_S_RULE, ETA_S_CHOICE = _choice("eta_s", sp.sqrt(K * batch / (D * M * T)), r"\eta_s=\mathcal O(\sqrt{(hB)/(dNT)})",
                                   "Theorem 1's server step eta_s = O(sqrt(hB/(dNT)))")  # fmt: skip
LAM_RULE, LAM_CHOICE = _choice("lam", (D * K * M * batch * T) ** c.R(-1, 4), r"\mu=\mathcal O(1/(dhNBT)^{1/4})",
                               "Theorem 1's smoothing radius mu = O((dhNBT)^(-1/4))")  # fmt: skip


REMARK2 = Result(
    paper=c.KEY, label="remark2", kind="model",
    title="HERON-SFL Remark 2: communication rounds to an eps-stationary point (up to constants)",
    provenance=c.provenance(label="Remark 2", section="Sec. V-A, after Theorem 1"), assumptions=c.A_T1,
    lhs="T_eps, communication rounds until min_t E||grad f(theta_g^t)||^2 <= eps (Remark 2), up to constants",
    terms=(Term(name="rounds", expr=ROUNDS,
                meaning="d/(h N B eps^2): the leading term sqrt(d/(hNBT)) of (14) set to eps"),),
    hypotheses=(T_CHOICE, ETA_C_CHOICE, ETA_S_CHOICE, LAM_CHOICE, *c.H1_STMT, *c.H1_PROOF), step="eta_c",
    defaults=(T_RULE, ETA_C_RULE, ETA_S_RULE, LAM_RULE),
    statement=r"T=\mathcal{O}\!\big(d/(hNB\varepsilon^{2})\big)", rate=r"\mathcal{O}\!\big(d/(hNB\varepsilon^{2})\big)",
    discrepancies=(DISC_R2_RANGE, c.DISC_T1_REMARK, c.DISC_T1_SERVER, c.DISC_T1_ZO, c.DISC_T1_DRIFT, c.DISC_DIM),
    notes=(
        "eps-stationary read as min_t E||grad f(theta_g^t)||^2 <= eps: sqrt(d/(hNBT)) <= eps gives T >= d/(hNB eps^2).",
        "The O-constant is taken as 1, in the count and in Theorem 1's choices; the hypotheses are those choices (a "
        "value given otherwise is not the remark's) and Theorem 1's step conditions (statement (30), proof (40)(a), "
        "(45)(a), after (42)) checked at them.",
        "At unit O-constants the choices and the count are not homogeneous in units (the O hides L, G and the like): "
        "they hold in the units the numbers are read in, an unstated normalisation the units audit reports.",
        "Kind 'model', not 'corollary': the count bounds a number of rounds, not Theorem 1's left-hand side.",
        "T is a whole number of rounds: the derived d/(hNB eps^2) is rounded up (shown with the derived value), and "
        "Theorem 1's choices are taken at that T; the bound reports the count as derived (issue 24).",
        c.D_NOTE,
    ),
)  # fmt: skip

RESULTS = (REMARK2,)
