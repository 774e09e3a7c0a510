r"""MU-SplitFed (seed ``000_0fb66116fc20c956.txt``): straggler-resilient SFL with unbalanced updates.

The server takes :math:`\tau` zeroth-order steps per round; clients take one zeroth-order step. Results:

* Theorem 4.1 (MU-Split, one client), eq. (8); restated as Theorem C.1, eq. (18), identically.
  ``@proof``: the last display of App. C.1.3 (general ``P``), which differs from the statement.
* Corollary 4.2, eq. (9); ``@proof``: the first display of App. C.1.4 (any split, before substitution).
* Theorem 4.3 (M clients), eq. (10); ``@appendix``: Theorem D.1, eq. (32), another first step-size
  branch; ``@proof``: eq. (33) with ``P`` and the conditions the proof uses.
* Corollary 4.4, eq. (11); ``@proof``: the first display of App. D.1.4.
* The straggler time model of eq. (12).

Conventions: :math:`\mathcal F = \mathbb E[f(x^0) - f(x^T)]` in the paper; the canonical ``F`` is
:math:`f(x^0) - f^*`, which is no smaller, so the bounds stay valid with it. The left-hand side is printed
as :math:`\frac1T\sum_{t=0}^{T}` (T+1 terms over T) while the proofs average t = 0..T-1.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sympy as sp

from ..assumptions import BOUNDED_HETEROGENEITY, BOUNDED_VARIANCE_PER_PART_AS, SMOOTHNESS, SMOOTHNESS_PER_CLIENT
from ..defaults import Default
from ..result import Discrepancy, Hypothesis, PaperChoice, Provenance, Result, Term, step_branch
from ..vocabulary import symbols

SEED = "000_0fb66116fc20c956.txt"
PAPER = "mu_splitfed"

L, F, T, tau, d, d_c, d_s, lam = symbols("L F T tau d d_c d_s lam")
eta, eta_s, eta_c, eta_g = symbols("eta eta_s eta_c eta_g")
sigma_c2, sigma_s2, eps2, M, P = symbols("sigma_c2 sigma_s2 eps2 M P")
T0, t_straggler, t_server = symbols("T0 t_straggler t_server")

LHS = r"average over rounds of E||grad f(x^t)||^2, printed (1/T) sum_{t=0}^{T} E||grad_x f(x^t)||^2"
ONE = sp.Integer(1)
R = sp.Rational

# eta is the unified step: eta = eta_s = eta_c / tau (Thm 4.1 / 4.3 statements).
UNIFIED = (
    Default(name="eta", expr=eta_s, rule="TODO(rule)"),
    Default(name="eta_s", expr=eta, rule="TODO(rule)"),
    Default(name="eta_c", expr=tau * eta, rule="TODO(rule)"),
)


def _couplings(where: str) -> tuple[Hypothesis, ...]:
    return (
        Hypothesis(
            name="coupling eta_c = tau*eta_s",
            lhs=eta_c,
            rel="==",
            rhs=tau * eta_s,
            kind="coupling",
            printed=r"\eta_c/\tau=\eta_s=\eta",
            where=where,
            note="eta is defined as eta_s; give eta, or eta_s and eta_c",
        ),
    )


def _step(*args: Any, **kw: Any) -> Hypothesis:
    return step_branch(*args, **{"group": "eta<=min{...}", **kw})


def _t41_branches(where: str) -> tuple[Hypothesis, Hypothesis]:
    """Theorem 4.1's min{...}, printed again by Corollary 4.2 and used by App. C.1.4."""
    return (
        _step(
            "eta<=1/(64L(tau+2d_s))",
            eta,
            ONE / (64 * L * (tau + 2 * d_s)),
            r"\eta\le\frac{1}{64L(\tau+2d_s)}",
            where=where,
        ),
        _step("eta<=1/(16L tau d_c)", eta, ONE / (16 * L * tau * d_c), r"\eta\le\frac{1}{16L\tau d_c}", where=where),
    )


def _t43_first_branch(where: str) -> Hypothesis:
    """Theorem 4.3's first branch as the main text prints it (Theorem D.1 prints another)."""
    return _step(
        "eta<=1/(120L tau(1+2d_s/tau))",
        eta,
        ONE / (120 * L * tau * (1 + 2 * d_s / tau)),
        r"\eta\le\frac{1}{120L\tau(1+2d_s/\tau)}",
        where=where,
    )


def _t43_client_branch(where: str) -> Hypothesis:
    """Theorem 4.3's second branch, printed identically by D.1 and Corollary 4.4."""
    return _step("eta<=M/(12 tau L d_c)", eta, M / (12 * tau * L * d_c), r"\eta\le\frac{M}{12\tau Ld_c}", where=where)


# ---------------------------------------------------------------------------------------------------
# The paper's closed-form choices of the split (the planner shows them next to the bound-optimal choice)
SPLIT_COR42 = PaperChoice(
    name="Corollary 4.2 split",
    where=f"{SEED}, Corollary 4.2 (9) and the Discussion after it",
    tau_of_split=d / d_c**2,
    dc_of_tau=sp.sqrt(d / tau),
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
# Theorem 4.1 (MU-Split, M = 1)
_T41 = Provenance(
    seed=SEED, label="Theorem 4.1", equation="(8)", section="Sec. 4.1; restated as Theorem C.1, eq. (18), App. C.1"
)

# Conditions App. C.1 uses on the way that the statement does not print. With P = 1 each is implied by
# the statement's two branches (tests check this), but they are part of what the proof needs.
_C1_PROOF = (
    _step(
        "C.1(ii) eta_s<=1/(tau L)",
        eta_s,
        ONE / (tau * L),
        r"\eta_s\le\frac{1}{\tau L}",
        source="proof",
        where="App. C.1.3, step (ii)",
    ),
    _step(
        "C.1(ii) eta_s<=1/(4 tau L)",
        eta_s,
        ONE / (4 * tau * L),
        r"\eta_s\le\frac{1}{4\tau L}",
        source="proof",
        where="App. C.1.3, step (ii)",
    ),
    _step(
        "C.1(ii) eta_c<=1/(2L)",
        eta_c,
        ONE / (2 * L),
        r"\eta_c\le\frac{1}{2L}",
        source="proof",
        where="App. C.1.3, step (ii)",
    ),
    _step(
        "eq.(20) eta_s<=1/(4L sqrt(tau d_s/P))",
        eta_s,
        ONE / (4 * L * sp.sqrt(tau * d_s / P)),
        r"\eta_s\le\frac{1}{4L\sqrt{\tau d_s/P}}",
        source="proof",
        where="App. C.1.1, before eq. (20)",
    ),
    _step(
        "eq.(22) eta_c<=1/(L sqrt(8 d_c/P))",
        eta_c,
        ONE / (L * sp.sqrt(8 * d_c / P)),
        r"\eta_c\le\frac{1}{L\sqrt{8d_c/P}}",
        source="proof",
        where="App. C.1.2, before eq. (22)",
    ),
    _step(
        "Lemma C.4 eta_s<=1/(4L sqrt(tau^2+tau d_s/P))",
        eta_s,
        ONE / (4 * L * sp.sqrt(tau**2 + tau * d_s / P)),
        r"\eta_s\le\frac{\sqrt P}{4\tau L\sqrt{P+d_s/\tau}}",
        source="proof",
        where="Lemma C.4 (statement and last line of its proof, equal forms)",
    ),
)

_T41_DISC = (
    Discrepancy(
        where="Theorem 4.1 eq. (8) vs App. C.1.3 last display",
        printed=r"16\eta L(\eta\tau L+1)d_s\sigma_s^2 \text{ and } 4L^2(\eta^2\tau^2L^2+1/4)\lambda^2 d_s^3",
        expected=r"16\eta L(2\eta\tau L+1)d_s\sigma_s^2/P \text{ and } 4L^2(2\eta^2\tau^2L^2+1/4)\lambda^2 d_s^3",
        note="the proof's last display (set P = 1) has a factor 2 on eta*tau*L in both server terms that the "
        "statement (and its restatement C.1, eq. 18) drops; the statement is the smaller bound. Encoded as "
        "mu_splitfed/thm4.1@proof.",
    ),
)

THM41 = Result(
    paper=PAPER,
    label="thm4.1",
    kind="theorem",
    title="MU-Split (one client): convergence with tau server steps",
    provenance=_T41,
    lhs=LHS,
    terms=(
        Term(name="initialisation", expr=4 * F / (eta * tau * T), meaning="4F/(eta tau T): optimisation error"),
        Term(
            name="server variance",
            expr=16 * eta * L * (eta * tau * L + 1) * d_s * sigma_s2,
            meaning="server-side stochastic ZO variance",
        ),
        Term(
            name="client variance",
            expr=8 * eta * tau * L * d_c * sigma_c2,
            meaning="client-side stochastic ZO variance",
        ),
        Term(
            name="ZO bias server",
            expr=4 * L**2 * (eta**2 * tau**2 * L**2 + R(1, 4)) * lam**2 * d_s**3,
            meaning="server zeroth-order smoothing bias",
        ),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client zeroth-order smoothing bias"),
    ),
    hypotheses=(
        *_couplings("Theorem 4.1"),
        *_t41_branches("Theorem 4.1"),
        *(h for h in _C1_PROOF),
    ),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    statement=r"\frac1T\sum_{t=0}^{T}\mathbb E\|\nabla f(x^t)\|^2\le\frac{4\mathcal F}{\eta\tau T}+16\eta L(\eta\tau L+1)d_s\sigma_s^2+8\eta\tau Ld_c\sigma_c^2+4L^2(\eta^2\tau^2L^2+1/4)\lambda^2d_s^3+L^2\lambda^2d_c^3",
    step="eta",
    defaults=(*UNIFIED, Default(name="P", expr=ONE, rule="TODO(rule)")),
    discrepancies=_T41_DISC,
    notes=("Theorem C.1 (eq. 18) restates Theorem 4.1 term for term; it is not a separate edition.",),
    choices=(SPLIT_COR42, SPLIT_COR42_PROOF),
)

THM41_PROOF = Result(
    paper=PAPER,
    label="thm4.1",
    kind="theorem",
    title="MU-Split: bound derived by the proof (general P)",
    provenance=Provenance(
        seed=SEED, label="Theorem C.1, proof", equation="last display of App. C.1.3 (after (24))", section="App. C.1.3"
    ),
    lhs=LHS,
    terms=(
        Term(name="initialisation", expr=4 * F / (eta * tau * T), meaning="4F/(eta tau T)"),
        Term(
            name="server variance",
            expr=16 * eta * L * (2 * eta * tau * L + 1) * d_s * sigma_s2 / P,
            meaning="server-side stochastic ZO variance",
        ),
        Term(
            name="client variance",
            expr=8 * eta * tau * L * d_c * sigma_c2 / P,
            meaning="client-side stochastic ZO variance",
        ),
        Term(
            name="ZO bias server",
            expr=4 * L**2 * (2 * eta**2 * tau**2 * L**2 + R(1, 4)) * lam**2 * d_s**3,
            meaning="server ZO smoothing bias",
        ),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client ZO smoothing bias"),
    ),
    hypotheses=(
        *_couplings("App. C.1.3"),
        _step(
            "eta_s<=P/(64L(tau P+2d_s))",
            eta_s,
            P / (64 * L * (tau * P + 2 * d_s)),
            r"\eta_s\le\frac{P}{64L(\tau P+2d_s)}",
            where="App. C.1.3, step (iii)",
        ),
        _step(
            "eta_c<=P/(16L d_c)",
            eta_c,
            P / (16 * L * d_c),
            r"\eta_c\le\frac{P}{16Ld_c}",
            where="App. C.1.3, step (iii)",
        ),
        *_C1_PROOF,
    ),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    edition="proof",
    statement=r"\frac{4}{\eta\tau T}\mathcal F+\frac{16\eta L(2\eta\tau L+1)d_s\sigma_s^2}{P}+4L^2(2\eta^2\tau^2L^2+1/4)\lambda^2d_s^3+L^2\lambda^2d_c^3+\frac{8\eta\tau Ld_c\sigma_c^2}{P}",
    step="eta",
    defaults=(*UNIFIED, Default(name="P", expr=ONE, rule="TODO(rule)")),
    discrepancies=_T41_DISC,
    choices=(SPLIT_COR42_PROOF, SPLIT_COR42),
)

# ---------------------------------------------------------------------------------------------------
# Corollary 4.2
_dc_rule = sp.sqrt(d / tau)
_lam_rule_42 = ONE / (sp.sqrt(tau * T) * d ** R(5, 2) * L)
_eta_42 = ONE / sp.sqrt(d * tau * T)

_SPLIT_HYPS = (
    Hypothesis(
        name="split d_c = sqrt(d/tau)",
        lhs=d_c,
        rel="==",
        rhs=_dc_rule,
        kind="coupling",
        printed=r"d_c=\sqrt{d/\tau},\ d_s=d-\sqrt{d/\tau}",
        where="statement",
        atol=1.0,
        rtol=0.0,
        note="holds when d_c is within 1 of sqrt(d/tau): a real cut has an integer d_c",
    ),
    Hypothesis(name="tau<=d", lhs=tau, rel="<=", rhs=d, kind="domain", printed=r"\tau\le d", where="statement"),
)

_C42_DISC = (
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

_C42_STEP = (
    *_t41_branches("Corollary 4.2"),
    _step("eta<=1/sqrt(d tau T)", eta, _eta_42, r"\eta\le\frac{1}{\sqrt{d\tau T}}", where="Corollary 4.2"),
    _step(
        "C.1.4 eta<=1/(tau L)",
        eta,
        ONE / (tau * L),
        r"\eta\le\frac{1}{\tau L}",
        source="proof",
        where="App. C.1.4 ('again, we assume')",
    ),
    Hypothesis(
        name="C.1.4 eta = 1/sqrt(d tau T)",
        lhs=eta,
        rel="==",
        rhs=_eta_42,
        kind="choice",
        printed=r"\eta=\frac{1}{\sqrt{d\tau T}}",
        source="proof",
        where="App. C.1.4",
        note="(9) is derived at this eta only",
        rtol=1e-9,
    ),
)

COR42 = Result(
    paper=PAPER,
    label="cor4.2",
    kind="corollary",
    title="MU-Split rate with the split d_c = sqrt(d/tau)",
    provenance=Provenance(
        seed=SEED, label="Corollary 4.2", equation="(9)", section="Sec. 4.1; justified in App. C.1.4"
    ),
    lhs=LHS,
    terms=(
        Term(name="initialisation", expr=4 * sp.sqrt(d) * F / sp.sqrt(tau * T), meaning="4 sqrt(d) F / sqrt(tau T)"),
        Term(
            name="server variance",
            expr=48 * L * sp.sqrt(d) * sigma_s2 / sp.sqrt(tau * T),
            meaning="48 L sqrt(d) sigma_s^2 / sqrt(tau T)",
        ),
        Term(
            name="ZO bias", expr=9 * sp.sqrt(d) / sp.sqrt(tau * T), meaning="9 sqrt(d)/sqrt(tau T), as printed (no L)"
        ),
        Term(name="client variance", expr=8 * L * sigma_c2 / sp.sqrt(T), meaning="8 L sigma_c^2 / sqrt(T)"),
    ),
    hypotheses=(
        *_couplings("Corollary 4.2 (via Theorem 4.1)"),
        *_SPLIT_HYPS,
        Hypothesis(
            name="lam^2<=1/(sqrt(tau T) d^(5/2) L)",
            lhs=lam**2,
            rel="<=",
            rhs=_lam_rule_42,
            kind="smoothing",
            printed=r"\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}",
            where="Corollary 4.2",
        ),
        *_C42_STEP,
    ),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    statement=r"\frac{4\sqrt d\mathcal F}{\sqrt{\tau T}}+\frac{48L\sqrt d\sigma_s^2}{\sqrt{\tau T}}+\frac{9\sqrt d}{\sqrt{\tau T}}+\frac{8L\sigma_c^2}{\sqrt T}",
    rate=r"\mathcal O\left(\sqrt{d/(\tau T)}\right)",
    step="eta",
    defaults=(
        UNIFIED[0],
        Default(name="eta", expr=_eta_42, rule="TODO(rule)"),
        *UNIFIED[1:],
        Default(name="d_c", expr=d - d_s, rule="TODO(rule)"),
        Default(name="d_c", expr=_dc_rule, rule="TODO(rule)"),
        Default(name="lam", expr=sp.sqrt(_lam_rule_42), rule="TODO(rule)"),
    ),
    discrepancies=_C42_DISC,
    choices=(SPLIT_COR42,),
)

COR42_PROOF = Result(
    paper=PAPER,
    label="cor4.2",
    kind="corollary",
    title="MU-Split at eta = 1/sqrt(d tau T), any split (proof's first display)",
    provenance=Provenance(
        seed=SEED, label="Corollary 4.2, proof", equation="first display of App. C.1.4", section="App. C.1.4"
    ),
    lhs=LHS,
    terms=(
        Term(name="initialisation", expr=4 * sp.sqrt(d) * F / sp.sqrt(tau * T), meaning="4 sqrt(d) F / sqrt(tau T)"),
        Term(
            name="server variance",
            expr=48 * L * d_s * sigma_s2 / sp.sqrt(d * tau * T),
            meaning="48 L d_s sigma_s^2 / sqrt(d tau T)",
        ),
        Term(name="ZO bias server", expr=9 * L**2 * lam**2 * d_s**3, meaning="9 L^2 lambda^2 d_s^3"),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="L^2 lambda^2 d_c^3"),
        Term(
            name="client variance",
            expr=8 * sp.sqrt(tau) * L * d_c * sigma_c2 / sp.sqrt(d * T),
            meaning="8 sqrt(tau) L d_c sigma_c^2 / sqrt(d T)",
        ),
    ),
    hypotheses=(
        *_couplings("App. C.1.4 (via Theorem 4.1)"),
        *_t41_branches("Theorem 4.1, used by App. C.1.4"),
        _C42_STEP[3],
        _C42_STEP[4],
    ),
    assumptions=(SMOOTHNESS, BOUNDED_VARIANCE_PER_PART_AS),
    edition="proof",
    statement=r"\frac{4\sqrt d}{\sqrt{\tau T}}\mathcal F+\frac{48Ld_s\sigma_s^2}{\sqrt{d\tau T}}+9L^2\lambda^2d_s^3+L^2\lambda^2d_c^3+\frac{8\sqrt\tau Ld_c\sigma_c^2}{\sqrt{dT}}",
    step="eta",
    defaults=(UNIFIED[0], Default(name="eta", expr=_eta_42, rule="TODO(rule)"), *UNIFIED[1:]),
    discrepancies=_C42_DISC,
    choices=(SPLIT_COR42_PROOF,),
)

# ---------------------------------------------------------------------------------------------------
# Theorem 4.3 (M clients)
_T43 = Provenance(seed=SEED, label="Theorem 4.3", equation="(10)", section="Sec. 4.2")


def _t43_terms(p: sp.Expr) -> tuple[Term, ...]:
    return (
        Term(name="initialisation", expr=4 * F / (T * eta_g * eta * tau), meaning="4F/(T eta_g eta tau)"),
        Term(
            name="server variance",
            expr=16 * eta * (2 * eta * tau * L + eta_g / M) * L * d_s * sigma_s2 / p,
            meaning="server-side stochastic ZO variance",
        ),
        Term(
            name="client variance",
            expr=4 * eta_g * eta * tau * L * d_c * sigma_c2 / (M * p),
            meaning="client-side stochastic ZO variance",
        ),
        Term(
            name="server heterogeneity",
            expr=24 * eta * (4 * eta * tau * L + eta_g / M) * L * (tau + 2 * d_s / p) * eps2,
            meaning="client drift on the server side",
        ),
        Term(
            name="client heterogeneity",
            expr=12 * eta_g * eta * tau * L * d_c * eps2 / (M * p),
            meaning="heterogeneity on the client side",
        ),
        Term(
            name="ZO bias server",
            expr=(1 / tau + 8 * eta**2 * tau * L**2 + 2 * eta_g * eta / M) * tau * L**2 * lam**2 * d_s**3,
            meaning="server ZO smoothing bias",
        ),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client ZO smoothing bias"),
    )


# Printed in App. D.1 on the way, absent from both statements.
_D1_PROOF = (
    _step(
        "D.1.1 eta_s<=sqrt(P)/(L sqrt(24 tau d_s))",
        eta_s,
        sp.sqrt(P) / (L * sp.sqrt(24 * tau * d_s)),
        r"\eta_s\le\frac{\sqrt P}{L\sqrt{24\tau d_s}}",
        source="proof",
        where="App. D.1.1 (bound on K2)",
    ),
    _step(
        "Lemma D.3 eta_s<=sqrt(P)/(tau L sqrt(24(P+d_s/tau)))",
        eta_s,
        sp.sqrt(P) / (tau * L * sp.sqrt(24 * (P + d_s / tau))),
        r"\eta_s\le\frac{\sqrt P}{\tau L\sqrt{24(P+d_s/\tau)}}",
        source="proof",
        where="Lemma D.3",
    ),
)
# Needed by steps of App. D.1.3 but printed nowhere: see the discrepancies below.
_D1_IMPLICIT = (
    _step(
        "D.1.3 drop server ||sum grad f_lambda||^2: eta_g eta_s tau L<=1/2",
        eta_g * eta_s * tau * L,
        R(1, 2),
        r"\eta_g\eta_s\tau L\le\tfrac12",
        source="implicit",
        where="App. D.1.3, first '<=' after 'Putting together'",
        group="",
        note="the term eta_g^2 eta_s^2 L/M^2 ||sum||^2 is dropped against -eta_g eta_s/(2 M^2 tau) ||sum||^2",
    ),
    _step(
        "D.1.3 drop client ||sum grad f_lambda||^2: eta_g eta_c L<=1",
        eta_g * eta_c * L,
        ONE,
        r"\eta_g\eta_c L\le 1",
        source="implicit",
        where="App. D.1.3",
        group="",
        note="eta_g^2 eta_c^2 L/(2M^2) ||sum||^2 is dropped against -eta_g eta_c/(2M^2) ||sum||^2",
    ),
    _step(
        "D.1.3 server coefficient <= -eta_g eta_s tau/4",
        6 * eta_s * (4 * eta_s * tau * L + eta_g / M) * L * (tau**2 + 2 * tau * d_s / P),
        tau / 4,
        r"6\eta_s(4\eta_s\tau L+\eta_g/M)L(\tau^2+2\tau d_s/P)\le\tau/4",
        source="implicit",
        where="App. D.1.3, last '<='",
        group="",
        note="what the step really needs; the printed eta_s <= 1/sqrt(120 L^2 (tau^2 + 2 tau d_s/P)) does not control the eta_g/M part",
    ),
    _step(
        "D.1.3 client coefficient: eta_c<=MP/(12 eta_g L d_c)",
        eta_c,
        M * P / (12 * eta_g * L * d_c),
        r"\eta_c\le\frac{MP}{12\eta_g Ld_c}",
        source="implicit",
        where="App. D.1.3, last '<='",
        group="",
        note="3 eta_g^2 eta_c^2 L d_c/(MP) - eta_g eta_c/2 <= -eta_g eta_c/4; the printed eta_c <= MP/(12 L d_c) lacks the 1/eta_g",
    ),
)

_T43_DISC = (
    Discrepancy(
        where="Theorem 4.3 vs Theorem D.1 (first step-size branch)",
        printed=r"\eta\le\frac{1}{120L\tau(1+2d_s/\tau)}=\frac{1}{120L(\tau+2d_s)}",
        expected=r"\eta\le\frac{1}{\sqrt{120L^2(\tau^2+2\tau d_s)}}",
        note="main text and appendix restatement differ; the proof (App. D.1.3) assumes the D.1 form with d_s/P. "
        "The main-text branch is the stricter one. Encoded as mu_splitfed/thm4.3@appendix.",
    ),
    Discrepancy(
        where="Theorem 4.3 second branch vs App. D.1.3",
        printed=r"\eta_c\le\frac{MP}{12Ld_c}\ (\eta\le\frac{M}{12\tau Ld_c})",
        expected=r"\eta_c\le\frac{MP}{12\eta_g Ld_c}",
        note="combining the client terms needs 3 eta_g^2 eta_c^2 L d_c/(MP) <= eta_g eta_c/4, i.e. a factor 1/eta_g the "
        "statement omits; with Corollary 4.4's eta_g = sqrt(tau M) > 1 the printed condition is not enough.",
    ),
    Discrepancy(
        where="App. D.1.3, dropped terms",
        printed="(no condition printed)",
        expected=r"\eta_g\eta\tau L\le 1/2",
        note="the proof drops +eta_g^2 eta_s^2 L/M^2 ||sum grad f_lambda||^2 against -eta_g eta_s/(2 M^2 tau) ||...||^2, "
        "which needs eta_g eta tau L <= 1/2 -- a condition on eta_g that neither statement has.",
    ),
    Discrepancy(
        where="Theorem 4.3 text",
        printed="the sequence of iterates generated by MU-Split",
        expected="MU-SplitFed",
        note="Theorems 4.3 and D.1 name the single-client algorithm; the result is about M clients.",
    ),
    Discrepancy(
        where="Assumption B.2 vs Assumption 4.2",
        printed=r"\|\nabla_{x_c}F_m(x;\xi)-\nabla f_m(x)\|^2\le\sigma_c^2",
        expected=r"\|\nabla_{x_c}F_m(x;\xi)-\nabla_{x_c}f_m(x)\|^2\le\sigma_c^2",
        note="the appendix subtracts the full gradient from the client part (dimension mismatch); 4.2 has the part.",
    ),
)

THM43 = Result(
    paper=PAPER,
    label="thm4.3",
    kind="theorem",
    title="MU-SplitFed (M clients): convergence with tau server steps",
    provenance=_T43,
    lhs=LHS,
    terms=_t43_terms(ONE),
    hypotheses=(
        *_couplings("Theorem 4.3"),
        _t43_first_branch("Theorem 4.3"),
        _t43_client_branch("Theorem 4.3"),
        *_D1_PROOF,
        *_D1_IMPLICIT,
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    statement=r"\frac{4\mathcal F}{T\eta_g\eta\tau}+16\eta(2\eta\tau L+\eta_g/M)Ld_s\sigma_s^2+\frac{4\eta_g\eta\tau Ld_c\sigma_c^2}{M}+24\eta(4\eta\tau L+\eta_g/M)L(\tau+2d_s)\epsilon^2+\frac{12\eta_g\eta\tau Ld_c\epsilon^2}{M}+(1/\tau+8\eta^2\tau L^2+2\eta_g\eta/M)\tau L^2\lambda^2d_s^3+L^2\lambda^2d_c^3",
    step="eta",
    defaults=(*UNIFIED, Default(name="P", expr=ONE, rule="TODO(rule)")),
    discrepancies=_T43_DISC,
    choices=(SPLIT_COR44,),
)

THM43_APPENDIX = Result(
    paper=PAPER,
    label="thm4.3",
    kind="theorem",
    title="MU-SplitFed as restated in the appendix (Theorem D.1)",
    provenance=Provenance(seed=SEED, label="Theorem D.1", equation="(32)", section="App. D.1"),
    lhs=LHS,
    terms=_t43_terms(ONE),
    hypotheses=(
        *_couplings("Theorem D.1"),
        _step(
            "eta<=1/sqrt(120L^2(tau^2+2 tau d_s))",
            eta,
            ONE / sp.sqrt(120 * L**2 * (tau**2 + 2 * tau * d_s)),
            r"\eta\le\frac{1}{\sqrt{120L^2(\tau^2+2\tau d_s)}}",
            where="Theorem D.1",
        ),
        _t43_client_branch("Theorem D.1"),
        *_D1_PROOF,
        *_D1_IMPLICIT,
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    edition="appendix",
    statement=THM43.statement,
    step="eta",
    defaults=(*UNIFIED, Default(name="P", expr=ONE, rule="TODO(rule)")),
    discrepancies=_T43_DISC,
    notes=("The bound (32) equals (10) term for term; only the first step-size branch differs.",),
    choices=(SPLIT_COR44,),
)

THM43_PROOF = Result(
    paper=PAPER,
    label="thm4.3",
    kind="theorem",
    title="MU-SplitFed: bound derived by the proof (general P), eq. (33)",
    provenance=Provenance(seed=SEED, label="Theorem D.1, proof", equation="(33)", section="App. D.1.3"),
    lhs=LHS,
    terms=_t43_terms(P),
    hypotheses=(
        *_couplings("App. D.1.3"),
        _step(
            "eta_s<=1/sqrt(120L^2(tau^2+2 tau d_s/P))",
            eta_s,
            ONE / sp.sqrt(120 * L**2 * (tau**2 + 2 * tau * d_s / P)),
            r"\eta_s\le\frac{1}{\sqrt{120L^2(\tau^2+2\tau d_s/P)}}",
            where="App. D.1.3 ('where we assume')",
        ),
        _step(
            "eta_c<=MP/(12L d_c)",
            eta_c,
            M * P / (12 * L * d_c),
            r"\eta_c\le\frac{MP}{12Ld_c}",
            where="App. D.1.3 ('where we assume')",
        ),
        *_D1_PROOF,
        *_D1_IMPLICIT,
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    edition="proof",
    statement=r"\frac{4\mathcal F}{T\eta_g\eta\tau}+24\eta(4\eta\tau L+\eta_g/M)L(\tau+2d_s/P)\epsilon^2+\frac{16\eta(2\eta\tau L+\eta_g/M)Ld_s\sigma_s^2}{P}+(1/\tau+8\eta^2\tau L^2+2\eta_g\eta/M)\tau L^2\lambda^2d_s^3+\frac{12\eta_g\eta\tau Ld_c\epsilon^2}{MP}+\frac{4\eta_g\eta\tau Ld_c\sigma_c^2}{MP}+L^2\lambda^2d_c^3",
    step="eta",
    defaults=(*UNIFIED, Default(name="P", expr=ONE, rule="TODO(rule)")),
    discrepancies=_T43_DISC,
    notes=("With P = 1 this is (10) term for term; the proof's step-size assumptions are those of D.1.",),
    choices=(SPLIT_COR44,),
)

# ---------------------------------------------------------------------------------------------------
# Corollary 4.4
_eta_44 = ONE / (tau * L * sp.sqrt(d * T))
_eta_g_44 = sp.sqrt(tau * M)
_lam_rule_44_proof = ONE / (tau * T * d ** R(5, 2) * L**2)

_C44_DISC = (
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

_C44_COMMON = (
    *_couplings("Corollary 4.4 (via Theorem 4.3)"),
    *_SPLIT_HYPS,
    _t43_first_branch("Corollary 4.4"),
    _t43_client_branch("Corollary 4.4"),
    _step("eta<=1/(L tau sqrt(dT))", eta, _eta_44, r"\eta\le\frac{1}{L\tau\sqrt{dT}}", where="Corollary 4.4"),
    Hypothesis(
        name="eta_g = sqrt(tau M)",
        lhs=eta_g,
        rel="==",
        rhs=_eta_g_44,
        kind="choice",
        printed=r"\eta_g=\sqrt{\tau M}",
        where="Corollary 4.4",
    ),
    Hypothesis(
        name="D.1.4 eta = 1/(tau L sqrt(dT))",
        lhs=eta,
        rel="==",
        rhs=_eta_44,
        kind="choice",
        printed=r"\eta=\frac{1}{\tau L\sqrt{dT}}",
        source="proof",
        where="App. D.1.4",
        note="(11) is derived at this eta only",
    ),
    Hypothesis(
        name="D.1.4 tau<=d_s",
        lhs=tau,
        rel="<=",
        rhs=d_s,
        kind="domain",
        printed=r"\tau\le d_s",
        source="proof",
        where="App. D.1.4",
    ),
    _D1_IMPLICIT[0],
)

COR44 = Result(
    paper=PAPER,
    label="cor4.4",
    kind="corollary",
    title="MU-SplitFed rate with the split d_c = sqrt(d/tau)",
    provenance=Provenance(
        seed=SEED, label="Corollary 4.4", equation="(11)", section="Sec. 4.2; justified in App. D.1.4"
    ),
    lhs=LHS,
    terms=(
        Term(
            name="initialisation",
            expr=4 * L * sp.sqrt(d) * F / sp.sqrt(tau * T * M),
            meaning="4 L sqrt(d) F / sqrt(tau T M)",
        ),
        Term(
            name="server variance+heterogeneity (parallel)",
            expr=8 * sp.sqrt(d) * (3 * eps2 + 2 * sigma_s2) / sp.sqrt(tau * T * M),
            meaning="8 sqrt(d)(3 eps^2 + 2 sigma_s^2)/sqrt(tau T M)",
        ),
        Term(
            name="server variance+heterogeneity (drift)",
            expr=32 * sp.sqrt(d) * (3 * eps2 + sigma_s2) / (tau * T),
            meaning="32 sqrt(d)(3 eps^2 + sigma_s^2)/(tau T)",
        ),
        Term(
            name="client variance+heterogeneity",
            expr=(12 * eps2 + 4 * sigma_c2) / sp.sqrt(T * M),
            meaning="(12 eps^2 + 4 sigma_c^2)/sqrt(T M)",
        ),
        Term(name="ZO bias", expr=6 * sp.sqrt(d) / (tau * T), meaning="6 sqrt(d)/(tau T), as printed"),
    ),
    hypotheses=(
        *_C44_COMMON,
        Hypothesis(
            name="lam^2<=1/(sqrt(tau T) d^(5/2) L)",
            lhs=lam**2,
            rel="<=",
            rhs=_lam_rule_42,
            kind="smoothing",
            printed=r"\lambda^2\le\frac{1}{\sqrt{\tau T}d^{5/2}L}",
            where="Corollary 4.4",
        ),
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    statement=r"\frac{4L\sqrt d\mathcal F}{\sqrt{\tau TM}}+\frac{8\sqrt d(3\epsilon^2+2\sigma_s^2)}{\sqrt{\tau TM}}+\frac{32\sqrt d(3\epsilon^2+\sigma_s^2)}{\tau T}+\frac{12\epsilon^2+4\sigma_c^2}{\sqrt{TM}}+\frac{6\sqrt d}{\tau T}",
    rate=r"\mathcal O\left(\sqrt{d/(\tau TM)}\right)",
    step="eta",
    defaults=(
        UNIFIED[0],
        Default(name="eta", expr=_eta_44, rule="TODO(rule)"),
        *UNIFIED[1:],
        Default(name="eta_g", expr=_eta_g_44, rule="TODO(rule)"),
        Default(name="d_c", expr=d - d_s, rule="TODO(rule)"),
        Default(name="d_c", expr=_dc_rule, rule="TODO(rule)"),
        Default(name="lam", expr=sp.sqrt(_lam_rule_42), rule="TODO(rule)"),
    ),
    discrepancies=_C44_DISC,
    notes=(
        "The split d_c = sqrt(d/tau) is the same in the statement and in App. D.1.4 (unlike Corollary 4.2's proof).",
    ),
    choices=(SPLIT_COR44,),
)

COR44_PROOF = Result(
    paper=PAPER,
    label="cor4.4",
    kind="corollary",
    title="MU-SplitFed at the corollary's step sizes, any split (proof's first display)",
    provenance=Provenance(
        seed=SEED, label="Corollary 4.4, proof", equation="first display of App. D.1.4", section="App. D.1.4"
    ),
    lhs=LHS,
    terms=(
        Term(
            name="initialisation",
            expr=4 * L * sp.sqrt(d) * F / sp.sqrt(tau * T * M),
            meaning="4 L sqrt(d) F / sqrt(tau T M)",
        ),
        Term(
            name="server heterogeneity",
            expr=24 * (4 / sp.sqrt(T) + sp.sqrt(tau) / sp.sqrt(M)) * (d_s / sp.sqrt(d)) * eps2 / (tau * sp.sqrt(T)),
            meaning="as printed, with d_s where Theorem 4.3 has tau + 2 d_s",
        ),
        Term(
            name="server variance",
            expr=16 * (2 / sp.sqrt(T) + sp.sqrt(tau) / sp.sqrt(M)) * (d_s / sp.sqrt(d)) * sigma_s2 / (tau * sp.sqrt(T)),
            meaning="server-side variance",
        ),
        Term(
            name="ZO bias server",
            expr=(1 + 8 / (d * T) + 2 * sp.sqrt(tau) / (L * sp.sqrt(d * T * M))) * L**2 * lam**2 * d_s**3,
            meaning="server ZO smoothing bias",
        ),
        Term(
            name="client heterogeneity",
            expr=12 * sp.sqrt(tau) * (d_c / sp.sqrt(d)) * eps2 / sp.sqrt(T * M),
            meaning="client heterogeneity",
        ),
        Term(
            name="client variance",
            expr=4 * sp.sqrt(tau) * (d_c / sp.sqrt(d)) * sigma_c2 / sp.sqrt(T * M),
            meaning="client variance",
        ),
        Term(name="ZO bias client", expr=L**2 * lam**2 * d_c**3, meaning="client ZO smoothing bias"),
    ),
    hypotheses=(
        *_couplings("App. D.1.4 (via Theorem 4.3)"),
        _t43_first_branch("Theorem 4.3, used by App. D.1.4"),
        _t43_client_branch("Theorem 4.3, used by App. D.1.4"),
        Hypothesis(
            name="eta_g = sqrt(tau M)",
            lhs=eta_g,
            rel="==",
            rhs=_eta_g_44,
            kind="choice",
            printed=r"\eta_g=\sqrt{\tau M}",
            source="proof",
            where="App. D.1.4",
        ),
        Hypothesis(
            name="D.1.4 eta = 1/(tau L sqrt(dT))",
            lhs=eta,
            rel="==",
            rhs=_eta_44,
            kind="choice",
            printed=r"\eta=\frac{1}{\tau L\sqrt{dT}}",
            source="proof",
            where="App. D.1.4",
        ),
        Hypothesis(
            name="D.1.4 tau<=d_s",
            lhs=tau,
            rel="<=",
            rhs=d_s,
            kind="domain",
            printed=r"\tau\le d_s",
            source="proof",
            where="App. D.1.4",
        ),
        _D1_IMPLICIT[0],
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY),
    edition="proof",
    statement=r"\frac{4L\sqrt d}{\sqrt{\tau TM}}\mathcal F+\frac{24(4/\sqrt T+\sqrt\tau/\sqrt M)(d_s/\sqrt d)\epsilon^2}{\tau\sqrt T}+\frac{16(2/\sqrt T+\sqrt\tau/\sqrt M)(d_s/\sqrt d)\sigma_s^2}{\tau\sqrt T}+(1+8/dT+2\sqrt\tau/L\sqrt{dTM})L^2\lambda^2d_s^3+\frac{12\sqrt\tau(d_c/\sqrt d)\epsilon^2}{\sqrt{TM}}+\frac{4\sqrt\tau(d_c/\sqrt d)\sigma_c^2}{\sqrt{TM}}+L^2\lambda^2d_c^3",
    step="eta",
    defaults=(
        UNIFIED[0],
        Default(name="eta", expr=_eta_44, rule="TODO(rule)"),
        *UNIFIED[1:],
        Default(name="eta_g", expr=_eta_g_44, rule="TODO(rule)"),
    ),
    discrepancies=_C44_DISC,
    choices=(SPLIT_COR44,),
)

# ---------------------------------------------------------------------------------------------------
# eq. (12): straggler time model
EQ12 = Result(
    paper=PAPER,
    label="eq12",
    kind="model",
    title="Straggler-resilient communication time",
    provenance=Provenance(
        seed=SEED, label="eq. (12)", equation="(12)", section="Sec. 4.2, 'Straggler resilient communication time'"
    ),
    lhs="total straggler-induced time T_1 t_straggler, with T_1 = T_0/tau rounds",
    terms=(Term(name="total time", expr=T0 * t_straggler / tau, meaning="T_1 t_straggler = T_0 t_straggler / tau"),),
    hypotheses=(
        Hypothesis(
            name="tau = t_straggler/t_server",
            lhs=tau,
            rel="==",
            rhs=t_straggler / t_server,
            kind="coupling",
            printed=r"\tau=t_{\mathrm{straggler}}/t_{\mathrm{server}}",
            where="Sec. 4.2",
            atol=0.5,
            rtol=0.0,
            note="holds when tau is the integer nearest the ratio; then the time is about T_0 t_server",
        ),
    ),
    statement=r"T_1t_{\mathrm{straggler}}=T_0t_{\mathrm{straggler}}/\tau=T_0t_{\mathrm{server}}",
    defaults=(Default(name="tau", expr=t_straggler / t_server, rule="TODO(rule)"),),
    notes=(
        "T_1 = T_0/tau relies on Corollary 4.4's linear speedup in tau; the bound's tau-free terms "
        "((12 eps^2 + 4 sigma_c^2)/sqrt(TM)) do not speed up, so the planner compares this with the bound-optimal tau.",
    ),
)

RESULTS: tuple[Result, ...] = (
    THM41,
    THM41_PROOF,
    COR42,
    COR42_PROOF,
    THM43,
    THM43_APPENDIX,
    THM43_PROOF,
    COR44,
    COR44_PROOF,
    EQ12,
)
