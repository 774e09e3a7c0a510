r"""Corollary 4.4: MU-SplitFed's rate with the split :math:`d_c=\sqrt{d/\tau}` and :math:`\eta_g=\sqrt{\tau M}`.

Statement, eq. (11) (Sec. 4.2): based on Theorem 4.3, if the network is cut such that :math:`d_c=\sqrt{d/\tau}`,
:math:`d_s=d-\sqrt{d/\tau}`; :math:`\tau\le d`; :math:`\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}`;
:math:`\eta\le\min\{\frac{1}{120L\tau(1+2d_s/\tau)},\frac{M}{12\tau Ld_c},\frac{1}{L\tau\sqrt{dT}}\}` and
:math:`\eta_g=\sqrt{\tau M}`, then

.. math::

    \frac1T\sum_{t=0}^{T}\mathbb E\|\nabla_{\mathbf x}f(\mathbf x^t)\|^2\le\frac{4L\sqrt d\mathcal F}{\sqrt{\tau TM}}
    +\frac{8\sqrt d(3\epsilon^2+2\sigma_s^2)}{\sqrt{\tau TM}}+\frac{32\sqrt d(3\epsilon^2+\sigma_s^2)}{\tau T}
    +\frac{12\epsilon^2+4\sigma_c^2}{\sqrt{TM}}+\frac{6\sqrt d}{\tau T},

at the rate :math:`\mathcal O(\sqrt{d/(\tau TM)})`.

``@proof``: the first display of App. D.1.4, (33) at :math:`\eta=1/(\tau L\sqrt{dT})`, :math:`\eta_g=\sqrt{\tau M}`
for any split.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Corollary 4.4 and (11) in Sec. 4.2 (the Discussion after it); its justification in
App. D.1.4.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...assumptions import BOUNDED_HETEROGENEITY, BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS_PER_CLIENT
from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import ONE, F, L, M, T, d, d_c, d_s, eps2, eta, eta_g, lam, sigma_c2, sigma_s2, tau

ETA_44 = ONE / (tau * L * sp.sqrt(d * T))
ETA_G_44 = sp.sqrt(tau * M)
ETA_COR44 = Default(name="eta", expr=ETA_44, rule="Corollary 4.4's step choice eta = 1/(tau L sqrt(dT)), (11); App. "
                    "D.1.4 derives it by optimising (33)")  # fmt: skip
ETA_G_COR44 = Default(name="eta_g", expr=ETA_G_44, rule="Corollary 4.4's global step eta_g = sqrt(tau M) (statement; "
                      "App. D.1.4)")  # fmt: skip
SPLIT_RULE = Default(name="d_c", expr=c.SPLIT_DC, rule="Corollary 4.4's split d_c = sqrt(d/tau), d_s = d - sqrt(d/tau) "
                     "(statement; App. D.1.4 'Let d/d_c^2 = tau'; a closed form the corollary treats as a real number: "
                     "used as derived)", rounding="none")  # fmt: skip
LAM_RULE = Default(
    name="lam", expr=sp.sqrt(c.LAM2_COR), rule="Corollary 4.4's printed smoothing radius at its bound, lambda^2 = "
    "1/(sqrt(tau T) d^{5/2} L) (Corollary 4.2's; App. D.1.4 uses another, see the discrepancies)",
)  # fmt: skip
# the corollary's eta right after eta = eta_s (a given eta_s wins), then eta_s and eta_c from eta (the firing order)
STEP_RULES = (c.ETA_FROM_ETA_S, ETA_COR44, c.ETA_S_FROM_ETA, c.ETA_C_FROM_ETA, ETA_G_COR44)
INIT = Term(
    name="initialisation", expr=4 * L * sp.sqrt(d) * F / sp.sqrt(tau * T * M), meaning="4 L sqrt(d) F / sqrt(tau T M)"
)

D_C44 = (
    Discrepancy(
        where="Corollary 4.4 smoothing radius, statement vs App. D.1.4",
        printed=r"\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}",
        expected=r"\lambda^2=\frac{1}{\tau Td^{5/2}L^2}",
        note="the statement copies Corollary 4.2's radius; the proof uses a different one. With the statement's "
        "radius the ZO terms are about 11 L sqrt(d)/sqrt(tau T), not the printed 6 sqrt(d)/(tau T).",
    ),
    Discrepancy(
        where="Corollary 4.4, eq. (11), heterogeneity terms",
        printed=r"\frac{24\sqrt d\epsilon^2}{\sqrt{\tau TM}},\ \frac{96\sqrt d\epsilon^2}{\tau T}",
        expected=r"\text{up to } \frac{72\sqrt d\epsilon^2}{\sqrt{\tau TM}},\ \frac{288\sqrt d\epsilon^2}{\tau T}",
        note="App. D.1.4 replaces the factor (tau + 2 d_s) of Theorem 4.3's server heterogeneity term by d_s; with "
        "tau <= d_s the factor is up to 3 d_s, so (11) undercounts these terms by up to 3x.",
    ),
    Discrepancy(
        where="Corollary 4.4, eq. (11), last term",
        printed=r"\frac{6\sqrt d}{\tau T}",
        expected=r"\frac{11\sqrt d}{\tau T}",
        note="App. D.1.4 bounds the ZO terms by 11 L^2 lambda^2 d^3; with lambda^2 = 1/(tau T d^{5/2} L^2) that is "
        "11 sqrt(d)/(tau T), but (11) prints 6.",
    ),
    Discrepancy(
        where="Corollary 4.4 conditions",
        printed=r"\tau\le d,\ \eta\le\min\{\dots,\frac{1}{L\tau\sqrt{dT}}\}",
        expected=r"\tau\le d_s,\ \eta=\frac{1}{\tau L\sqrt{dT}},\ L\text{ large}",
        note="the proof assumes tau <= d_s (not tau <= d), sets eta equal to 1/(tau L sqrt(dT)), and bounds "
        "(1 + 8/(dT) + 2 sqrt(tau)/(L sqrt(dTM))) by a constant because 'L is typically large'.",
    ),
    Discrepancy(
        where="Corollary 4.4 and the dropped terms of App. D.1.3",
        printed=r"\eta_g=\sqrt{\tau M}",
        expected=r"\eta_g\eta\tau L=\sqrt{\tau M/(dT)}\le 1/2",
        note="the condition eta_g eta tau L <= 1/2 that D.1.3 needs becomes 4 tau M <= d T at the corollary's choices.",
    ),
)


def eta_g_choice(where: str) -> Hypothesis:
    """eta_g = sqrt(tau M): printed by Corollary 4.4's statement, derived by App. D.1.4."""
    return Hypothesis(name="eta_g = sqrt(tau M)", lhs=eta_g, rel="==", rhs=ETA_G_44, kind="choice",
                      printed=r"\eta_g=\sqrt{\tau M}", where=where)  # fmt: skip


# App. D.1.4's own conditions (printed in the proof only), and the implicit one its dropped terms need
D14 = (
    Hypothesis(name="D.1.4 eta = 1/(tau L sqrt(dT))", lhs=eta, rel="==", rhs=ETA_44, kind="choice",
               printed=r"\eta=\frac{1}{\tau L\sqrt{dT}}", source="proof", where="App. D.1.4",
               note="(11) is derived at this eta only"),
    Hypothesis(name="D.1.4 tau<=d_s", lhs=tau, rel="<=", rhs=d_s, kind="domain", printed=r"\tau\le d_s",
               source="proof", where="App. D.1.4"),
    c.D1_IMPLICIT[0],
)  # fmt: skip

# what the two editions share
cor44 = partial(
    Result, paper=c.KEY, label="cor4.4", kind="corollary", lhs=c.LHS, step="eta", discrepancies=D_C44,
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY), choices=(c.SPLIT_COR44,),
)  # fmt: skip

COR44 = cor44(
    title="MU-SplitFed rate with the split d_c = sqrt(d/tau)", defaults=(*STEP_RULES, c.D_C_FROM_D_S, SPLIT_RULE, LAM_RULE),
    notes=("The split d_c = sqrt(d/tau) is the same in the statement and in App. D.1.4 (unlike Corollary 4.2's proof).",),
    provenance=c.provenance(label="Corollary 4.4", equation="(11)", section="Sec. 4.2; justified in App. D.1.4"),
    terms=(
        INIT,
        Term(name="server variance+heterogeneity (parallel)", expr=8 * sp.sqrt(d) * (3 * eps2 + 2 * sigma_s2) / sp.sqrt(tau * T * M),
             meaning="8 sqrt(d)(3 eps^2 + 2 sigma_s^2)/sqrt(tau T M)"),
        Term(name="server variance+heterogeneity (drift)", expr=32 * sp.sqrt(d) * (3 * eps2 + sigma_s2) / (tau * T),
             meaning="32 sqrt(d)(3 eps^2 + sigma_s^2)/(tau T)"),
        Term(name="client variance+heterogeneity", expr=(12 * eps2 + 4 * sigma_c2) / sp.sqrt(T * M), meaning="(12 eps^2 + 4 sigma_c^2)/sqrt(T M)"),
        Term(name="ZO bias", expr=6 * sp.sqrt(d) / (tau * T), meaning="6 sqrt(d)/(tau T), as printed"),
    ),
    hypotheses=(
        c.coupling("Corollary 4.4 (via Theorem 4.3)"), *c.SPLIT_HYPS, c.t43_first_branch("Corollary 4.4"),
        c.t43_client_branch("Corollary 4.4"),
        step_branch("eta<=1/(L tau sqrt(dT))", eta, ETA_44, r"\eta\le\frac{1}{L\tau\sqrt{dT}}", where="Corollary 4.4",
                    group=c.MIN_GROUP),
        eta_g_choice("Corollary 4.4"), *D14, c.lam_condition("Corollary 4.4"),
    ),
    statement=r"\frac{4L\sqrt d\mathcal F}{\sqrt{\tau TM}}+\frac{8\sqrt d(3\epsilon^2+2\sigma_s^2)}{\sqrt{\tau TM}}+\frac{32\sqrt d(3\epsilon^2+\sigma_s^2)}{\tau T}+\frac{12\epsilon^2+4\sigma_c^2}{\sqrt{TM}}+\frac{6\sqrt d}{\tau T}",
    rate=r"\mathcal O\left(\sqrt{d/(\tau TM)}\right)",
)  # fmt: skip

COR44_PROOF = cor44(
    title="MU-SplitFed at the corollary's step sizes, any split (proof's first display)", edition="proof",
    provenance=c.provenance(label="Corollary 4.4, proof", equation="first display of App. D.1.4", section="App. D.1.4"),
    terms=(
        INIT,
        Term(name="server heterogeneity", expr=24 * (4 / sp.sqrt(T) + sp.sqrt(tau) / sp.sqrt(M)) * (d_s / sp.sqrt(d)) * eps2 / (tau * sp.sqrt(T)),
             meaning="as printed, with d_s where Theorem 4.3 has tau + 2 d_s"),
        Term(name="server variance", expr=16 * (2 / sp.sqrt(T) + sp.sqrt(tau) / sp.sqrt(M)) * (d_s / sp.sqrt(d)) * sigma_s2 / (tau * sp.sqrt(T)),
             meaning="server-side variance"),
        Term(name="ZO bias server", expr=(1 + 8 / (d * T) + 2 * sp.sqrt(tau) / (L * sp.sqrt(d * T * M))) * L**2 * lam**2 * d_s**3,
             meaning="server ZO smoothing bias"),
        Term(name="client heterogeneity", expr=12 * sp.sqrt(tau) * (d_c / sp.sqrt(d)) * eps2 / sp.sqrt(T * M), meaning="client heterogeneity"),
        Term(name="client variance", expr=4 * sp.sqrt(tau) * (d_c / sp.sqrt(d)) * sigma_c2 / sp.sqrt(T * M), meaning="client variance"),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client ZO smoothing bias"),
    ),
    hypotheses=(
        c.coupling("App. D.1.4 (via Theorem 4.3)"), c.t43_first_branch("Theorem 4.3, used by App. D.1.4"),
        c.t43_client_branch("Theorem 4.3, used by App. D.1.4"),
        eta_g_choice("Corollary 4.4; derived in App. D.1.4 ('solving which gives eta_g = sqrt(tau M)')"), *D14,
    ),
    statement=r"\frac{4L\sqrt d}{\sqrt{\tau TM}}\mathcal F+\frac{24(4/\sqrt T+\sqrt\tau/\sqrt M)(d_s/\sqrt d)\epsilon^2}{\tau\sqrt T}+\frac{16(2/\sqrt T+\sqrt\tau/\sqrt M)(d_s/\sqrt d)\sigma_s^2}{\tau\sqrt T}+(1+8/dT+2\sqrt\tau/L\sqrt{dTM})L^2\lambda^2d_s^3+\frac{12\sqrt\tau(d_c/\sqrt d)\epsilon^2}{\sqrt{TM}}+\frac{4\sqrt\tau(d_c/\sqrt d)\sigma_c^2}{\sqrt{TM}}+L^2\lambda^2d_c^3",
    defaults=STEP_RULES,
    notes=("eta_g = sqrt(tau M) is printed by Corollary 4.4's statement (source 'statement'); App. D.1.4 derives it.",),
)  # fmt: skip
