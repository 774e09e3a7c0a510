r"""Corollary 4.2: MU-Split's rate with the split :math:`d_c=\sqrt{d/\tau}`.

Statement, eq. (9) (Sec. 4.1): based on Theorem 4.1, let the model split satisfy :math:`d_c=\sqrt{d/\tau}`,
:math:`d_s=d-\sqrt{d/\tau}`; let :math:`\tau\le d`, the smoothing parameter satisfy
:math:`\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}`, and choose
:math:`\eta\le\min\{\frac{1}{64L(\tau+2d_s)},\frac{1}{16L\tau d_c},\frac{1}{\sqrt{d\tau T}}\}`. Then

.. math::

    \frac1T\sum_{t=0}^{T}\mathbb E\|\nabla_{\mathbf x}f(\mathbf x^t)\|^2\le\frac{4\sqrt d\mathcal F}{\sqrt{\tau T}}
    +\frac{48L\sqrt d\sigma_s^2}{\sqrt{\tau T}}+\frac{9\sqrt d}{\sqrt{\tau T}}+\frac{8L\sigma_c^2}{\sqrt T},

at the rate :math:`\mathcal O(\sqrt{d/(\tau T)})`.

``@proof``: the first display of App. C.1.4, Theorem 4.1's proof bound at :math:`\eta=1/\sqrt{d\tau T}` for any
split (before the substitution, which App. C.1.4 makes with :math:`d_c=d/\sqrt\tau`, not the statement's split).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Corollary 4.2 and (9) in Sec. 4.1 (the Discussion after it); its justification in
App. C.1.4.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...assumptions import BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS
from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import ONE, F, L, T, d, d_c, d_s, eta, lam, sigma_c2, sigma_s2, tau

ETA_42 = ONE / sp.sqrt(d * tau * T)
ETA_COR42 = Default(name="eta", expr=ETA_42, rule="Corollary 4.2's step choice eta = 1/sqrt(d tau T), (9); App. C.1.4 "
                    "'Let eta = 1/sqrt(d tau T)'")  # fmt: skip
SPLIT_RULE = Default(
    name="d_c",
    expr=c.SPLIT_DC,
    rule="Corollary 4.2's split d_c = sqrt(d/tau), d_s = d - sqrt(d/tau) "
    "(a closed form the corollary treats as a real number: used as derived)",
    rounding="none",
)
LAM_RULE = Default(
    name="lam", expr=sp.sqrt(c.LAM2_COR), rule="Corollary 4.2's smoothing radius at its bound, lambda^2 = "
    "1/(sqrt(tau T) d^{5/2} L) (App. C.1.4 takes the equality)",
)  # fmt: skip
# the corollary's eta right after eta = eta_s (a given eta_s wins), then eta_s and eta_c from eta: the order the rules
# fire in, and so the order of the derived names a re-check command lists
STEP_RULES = (c.ETA_FROM_ETA_S, ETA_COR42, c.ETA_S_FROM_ETA, c.ETA_C_FROM_ETA)
INIT = Term(name="initialisation", expr=4 * sp.sqrt(d) * F / sp.sqrt(tau * T), meaning="4 sqrt(d) F / sqrt(tau T)")

D_C42 = (
    Discrepancy(
        where="Corollary 4.2 statement vs App. C.1.4",
        printed=r"d_c=\sqrt{d/\tau}",
        expected=r"d_c=d/\sqrt{\tau}\text{ (App. C.1.4)}",
        note="the proof substitutes d_c = d/sqrt(tau), d_s = d - d/sqrt(tau); only the statement's sqrt(d/tau) "
        "turns 8 sqrt(tau) L d_c sigma_c^2/sqrt(dT) into the printed 8 L sigma_c^2/sqrt(T). The Discussion "
        "after (9) says d_c = O(d/sqrt(tau)), matching the proof, not the statement.",
    ),
    Discrepancy(
        where="Corollary 4.2, eq. (9), third term",
        printed=r"\frac{9\sqrt d}{\sqrt{\tau T}}",
        expected=r"\frac{9L\,d_s^3}{d^{5/2}\sqrt{\tau T}}+\frac{L\,d_c^3}{d^{5/2}\sqrt{\tau T}}\ (\le \frac{9L\sqrt d}{\sqrt{\tau T}}+\dots)",
        note="substituting lambda^2 = 1/(sqrt(tau T) d^{5/2} L) into 9 L^2 lambda^2 d_s^3 + L^2 lambda^2 d_c^3 leaves "
        "a factor L that (9) drops, and the client ZO term L^2 lambda^2 d_c^3 disappears without comment.",
    ),
    Discrepancy(
        where="Corollary 4.2 step size",
        printed=r"\eta\le\min\{\dots,\frac{1}{\sqrt{d\tau T}}\}",
        expected=r"\eta=\frac{1}{\sqrt{d\tau T}}",
        note="App. C.1.4 derives (9) by setting eta = 1/sqrt(d tau T); for a smaller eta the term 4F/(eta tau T) "
        "grows, so (9) does not follow from the printed '<='. It also assumes eta <= 1/(tau L) again.",
    ),
    Discrepancy(
        where="Corollary 4.2 smoothing radius",
        printed=r"\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}",
        expected=r"\lambda^2=\frac{1}{\sqrt{\tau T}d^{5/2}L}",
        note="the proof uses equality; '<=' only makes the ZO terms smaller, so this one is harmless.",
    ),
)

# App. C.1.4's own conditions: printed in the proof only
C14 = (
    step_branch("C.1.4 eta<=1/(tau L)", eta, ONE / (tau * L), r"\eta\le\frac{1}{\tau L}", source="proof",
                where="App. C.1.4 ('again, we assume')", group=c.MIN_GROUP),
    Hypothesis(name="C.1.4 eta = 1/sqrt(d tau T)", lhs=eta, rel="==", rhs=ETA_42, kind="choice",
               printed=r"\eta=\frac{1}{\sqrt{d\tau T}}", source="proof", where="App. C.1.4",
               note="(9) is derived at this eta only", rtol=1e-9),
)  # fmt: skip

# what the two editions share
cor42 = partial(
    Result, paper=c.KEY, label="cor4.2", kind="corollary", lhs=c.LHS, assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    step="eta", discrepancies=D_C42,
)  # fmt: skip

COR42 = cor42(
    title="MU-Split rate with the split d_c = sqrt(d/tau)",
    provenance=c.provenance(label="Corollary 4.2", equation="(9)", section="Sec. 4.1; justified in App. C.1.4"),
    terms=(
        INIT,
        Term(name="server variance", expr=48 * L * sp.sqrt(d) * sigma_s2 / sp.sqrt(tau * T), meaning="48 L sqrt(d) sigma_s^2 / sqrt(tau T)"),
        Term(name="ZO bias", expr=9 * sp.sqrt(d) / sp.sqrt(tau * T), meaning="9 sqrt(d)/sqrt(tau T), as printed (no L)"),
        Term(name="client variance", expr=8 * L * sigma_c2 / sp.sqrt(T), meaning="8 L sigma_c^2 / sqrt(T)"),
    ),
    hypotheses=(
        c.coupling("Corollary 4.2 (via Theorem 4.1)"), *c.SPLIT_HYPS, c.lam_condition("Corollary 4.2"),
        *c.t41_branches("Corollary 4.2"),
        step_branch("eta<=1/sqrt(d tau T)", eta, ETA_42, r"\eta\le\frac{1}{\sqrt{d\tau T}}", where="Corollary 4.2",
                    group=c.MIN_GROUP),
        *C14,
    ),
    statement=r"\frac{4\sqrt d\mathcal F}{\sqrt{\tau T}}+\frac{48L\sqrt d\sigma_s^2}{\sqrt{\tau T}}+\frac{9\sqrt d}{\sqrt{\tau T}}+\frac{8L\sigma_c^2}{\sqrt T}",
    rate=r"\mathcal O\left(\sqrt{d/(\tau T)}\right)",
    defaults=(*STEP_RULES, c.D_C_FROM_D_S, SPLIT_RULE, LAM_RULE), choices=(c.SPLIT_COR42,),
)  # fmt: skip

COR42_PROOF = cor42(
    title="MU-Split at eta = 1/sqrt(d tau T), any split (proof's first display)", edition="proof",
    provenance=c.provenance(label="Corollary 4.2, proof", equation="first display of App. C.1.4", section="App. C.1.4"),
    terms=(
        INIT, Term(name="server variance", expr=48 * L * d_s * sigma_s2 / sp.sqrt(d * tau * T), meaning="48 L d_s sigma_s^2 / sqrt(d tau T)"),
        Term(name="ZO bias server", expr=9 * L**2 * lam**2 * d_s**3, meaning="9 L^2 lambda^2 d_s^3"),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="L^2 lambda^2 d_c^3"),
        Term(name="client variance", expr=8 * sp.sqrt(tau) * L * d_c * sigma_c2 / sp.sqrt(d * T), meaning="8 sqrt(tau) L d_c sigma_c^2 / sqrt(d T)"),
    ),
    hypotheses=(c.coupling("App. C.1.4 (via Theorem 4.1)"), *c.t41_branches("Theorem 4.1, used by App. C.1.4"), *C14),
    statement=r"\frac{4\sqrt d}{\sqrt{\tau T}}\mathcal F+\frac{48Ld_s\sigma_s^2}{\sqrt{d\tau T}}+9L^2\lambda^2d_s^3+L^2\lambda^2d_c^3+\frac{8\sqrt\tau Ld_c\sigma_c^2}{\sqrt{dT}}",
    defaults=STEP_RULES, choices=(c.SPLIT_COR42_PROOF,),
)  # fmt: skip
