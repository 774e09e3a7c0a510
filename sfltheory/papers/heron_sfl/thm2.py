r"""Theorem 2 (convergence rate of HERON-SFL under a low effective rank), eq. (15), and its proof's displays.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: Theorem 2
in Sec. V-A (eq. 15), its proof in App. A-C1 (eqs. 58-65).

Statement, as printed (Sec. V-A):

.. math::

    \text{Under Assumptions 1--5, if }\eta_c\le\frac{1}{4L}\Big(1+\frac{d\kappa+d-2}{d+2}\Big),\
    \mu\le\frac{\sqrt[4]{\kappa}}{\sqrt[4]{NT}\sqrt{(d+3)^3}},\ \eta_c=\mathcal O(\sqrt{NB/(\kappa T)}),\
    \eta_s=\mathcal O(\sqrt{B/(\kappa NT)}):\\
    \min_{t\in[T]}\mathbb E\big[\|\nabla f(\theta_g^t)\|^2\big]\le\mathcal O\Big(\sqrt{\frac{\kappa}{NBT}}\Big)
    +\mathcal O\Big(\frac1T\Big)+\frac2\delta\Big[\frac{2G_s^2}{N(2N-1)}\Delta+\frac{\mu^2L^2}{2}(d+3)^3\Big].

Proof (App. A-C1): the per-round inequality (60) with eta_min = min{eta_c/4, eta_s(2N-1)/4}, its sum over t (61),
and at the coupling eta = eta_c/4 = (2N-1)eta_s/4 the display (62), then the O-form (64) with C_err of (65).
Editions: ``thm2`` (15) (O-form, ``explicit=False``); ``@round`` (60); ``@sum`` (61); ``@proof`` (62) with the
coefficients the TeX source prints (6 and 4; the rendered text prints 16 and 64); ``@floor`` C_err (15)/(65).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import D, Delta_drift, F, G_s2, L, M, T, delta, drift_round, eta, eta_c, eta_s, kappa, lam, sigma_c2

DISC_T2_COEF = Discrepancy(
    where="eq. (62): coefficients, TeX source vs rendered text (and vs (61))",
    printed=r"\eta\big[\dots+6L^4\mu^2d^3+\dots\big]+\eta^2\big[4L^2\rho^2\big]\ \text{(TeX)}",
    expected=r"\eta\big[\dots+16L^4\mu^2d^3+\dots\big]+\eta^2\big[64L^2\rho^2\big]\ \text{(rendered text; (61) at }\eta_c=4\eta)",
    note="the unicode rendering of (62) prints 16 and 64, which is what (61) gives: eta_c^2 L^4 mu^2 d^3/eta = 16 eta L^4 mu^2 d^3 "
    "and eta_c^3 L^2 rho^2/eta = 64 eta^2 L^2 rho^2. heron_sfl/thm2@proof encodes the TeX (smaller); heron_sfl/thm2@sum "
    "at the coupling gives 16 and 64.",
)  # fmt: skip
DISC_T2_FLOOR = Discrepancy(
    where="Theorem 2, eq. (15) / (65): error floor",
    printed=r"\frac{2}{\delta}\Big[\frac{2G_s^2}{N(2N-1)}\Delta+\frac{\mu^2L^2}{2}(d+3)^3\Big]",
    expected=r"\frac{2G_s^2}{N(2N-1)}\delta+\frac{\mu^2L^2}{2}(d+3)^3\ \text{(62), with Assumption 4}",
    note="(62) has no factor 2/delta; delta is Assumption 4's drift bound (and Lemma 5's Young parameter, set to 2 eta_c), "
    "so the printed floor grows without bound as the drift vanishes -- the i.i.d. case in which Remark 3 says it "
    "vanishes. Delta is never defined (encoded as Delta_drift).",
)  # fmt: skip
DISC_T2_SUM = Discrepancy(
    where="eqs. (61)-(62): drift term after summing over t",
    printed=r"\sum_{i=1}^Nd_{c,i}^t\ \text{(index t left free)}",
    expected=r"\frac1T\sum_{t=1}^T\sum_{i=1}^Nd_{c,i}^t\le\delta\ \text{(Assumption 4)}",
    note="the summed bounds keep the per-round drift; the text says "
    "'under Assumption 4', so it is encoded as delta.",
)  # fmt: skip
DISC_T2_RATE = Discrepancy(
    where="eq. (62) -> (63)-(64) and the rate (15)",
    printed=r"\mathcal O\big(\sqrt{\frac{\kappa}{NBT}}\big)+\mathcal O\big(\frac1T\big)",
    expected=r"\eta\Big[\frac{8LN^2G_s^2}{(2N-1)^2}+\frac{16L\rho}{N}(\sigma^2+G_s^2)\Big]\ \text{at }\eta\propto\sqrt{NB/(\kappa T)}",
    note="no term of (62) contains B, and its eta-coefficient is not O(kappa/(NB)) as the text asserts: the server term is "
    ">= 2 L G_s^2 and rho ~ 1 + kappa, giving Theta(L G_s^2 sqrt(NB/(kappa T))) and Theta(sqrt(kappa B/(N T))); "
    "the eta^2 term is ~ kappa N B / T, not O(1/T) uniformly in N and B.",
)  # fmt: skip
T2_DISC = (
    DISC_T2_COEF, DISC_T2_FLOOR, DISC_T2_SUM, DISC_T2_RATE, c.DISC_T2_H, c.DISC_T2_STEP, c.DISC_T2_GS, c.DISC_T2_REFS,
    c.DISC_SIGMA, c.DISC_DIM,
)  # fmt: skip

H2_STEP = step_branch(
    "eta_c<=(1/4L)(1+(d kappa+d-2)/(d+2))", eta_c, c.RHO / (4 * L),
    r"\eta_c\le\frac{1}{4L}\big(1+\frac{d\kappa+d-2}{d+2}\big)", where="Theorem 2",
    note="grows with kappa; derived nowhere in App. A-C (see discrepancies)",
)  # fmt: skip
H2_LAM = Hypothesis(
    name="mu<=kappa^(1/4)/((NT)^(1/4)(d+3)^(3/2))", lhs=lam, rel="<=",
    rhs=kappa ** c.R(1, 4) / ((M * T) ** c.R(1, 4) * (D + 3) ** c.R(3, 2)), kind="smoothing",
    printed=r"\mu\leq\frac{\sqrt[4]{\kappa}}{\sqrt[4]{NT}\,\sqrt{(d+3)^{3}}}", where="Theorem 2; restated before (64)",
    note="makes mu^2 L^2 (d+3)^3/2 <= L^2 sqrt(kappa/(NT))/2 (Remark 3)",
)  # fmt: skip
H2_45A = step_branch(
    "(45)(a) eta_s<=1/(NL)", eta_s, c.ONE / (M * L), r"\eta_s\le\frac{1}{NL}", source="proof",
    where="App. A-C1: E_t[S] bounded 'same as (45)', whose step (a) needs it",
    note="absent from the statement of Theorem 2",
)  # fmt: skip
H2_VALID = Hypothesis(
    name="floor 2/delta: delta>0", lhs=delta, rel=">", rhs=sp.Integer(0), kind="validity",
    printed=r"\frac{2}{\delta}[\dots]", where="Theorem 2, eq. (15); (65)",
    note="the printed error floor divides by delta; it is infinite (void) when the drift bound is 0",
)  # fmt: skip
H2_RULES = (H2_STEP, H2_LAM, H2_45A)


def _coupling(name: str, lhs: sp.Expr, rhs: sp.Expr, printed: str, note: str) -> Hypothesis:
    """One reading of (62)'s coupling eta = eta_c/4 = (2N-1)eta_s/4, printed in the proof only."""
    return Hypothesis(
        name=name, lhs=lhs, rel="==", rhs=rhs, kind="coupling", printed=printed, source="proof",
        where="App. A-C1, before (62)", note=note,
    )  # fmt: skip


ETA_S_COUPLED = Default(
    name="eta_s", expr=eta_c / (2 * M - 1),
    rule="the coupling eta = eta_c/4 = (2N-1)eta_s/4 the proof of Theorem 2 introduces before (62) (App. A-C1)",
)  # fmt: skip
DEF2 = (ETA_S_COUPLED,)
# (62) is written in eta alone: one rule per direction, so that eta, or eta_c, or all three may be given
ETA_OF_ETA_C = Default(name="eta", expr=eta_c / 4, rule="(62)'s coupled step eta = eta_c/4 (App. A-C1, before (62))")
ETA_C_OF_ETA = Default(name="eta_c", expr=4 * eta,
                       rule="(62)'s coupling read for eta_c: eta_c = 4 eta (App. A-C1, before (62))")  # fmt: skip
ETA_S_OF_ETA = Default(
    name="eta_s", expr=4 * eta / (2 * M - 1),
    rule="(62)'s coupling read for eta_s: (2N-1) eta_s/4 = eta, eta_s = 4 eta/(2N-1) (App. A-C1, before (62))",
)  # fmt: skip


def _terms(descent: sp.Expr, drift: sp.Expr) -> tuple[Term, ...]:
    """(60) term by term: the one-round decrease (or F/T once summed) and the drift, over eta_min."""
    return c.descent_terms(descent, drift, phi=c.PHI_C2, eta_min=c.ETA_MIN2,
                           eta_min_text="min{eta_c/4, eta_s(2N-1)/4}", phi_text="Phi_c' of (59)")  # fmt: skip


def _edition(
    edition: str, title: str, equation: str, section: str, label: str = "Theorem 2, proof", **kw: Any
) -> Result:
    """An edition of Theorem 2: the assumptions, discrepancies and notation they all share."""
    return Result(paper=c.KEY, label="thm2", kind="theorem", title=title, edition=edition, assumptions=c.A_T2,
                  provenance=c.provenance(label=label, equation=equation, section=section), discrepancies=T2_DISC,
                  notation=c.T2_NOTATION, **kw)  # fmt: skip


COUPLING = _coupling(
    "(62) coupling eta_c/4 = (2N-1)eta_s/4", eta_s, eta_c / (2 * M - 1), r"\eta\triangleq\eta_c/4=(2N-1)\eta_s/4",
    "(62)-(64) are derived at this coupling; eta_s defaults to it",
)  # fmt: skip

THM2 = _edition(
    "", "HERON-SFL convergence rate under low effective rank", "(15)", "Sec. V-A; proof in App. A-C", label="Theorem 2",
    lhs=c.LHS, terms=(), hypotheses=(*H2_RULES, COUPLING, H2_VALID), step="eta_c", defaults=DEF2, explicit=False,
    see="heron_sfl/thm2@proof",
    statement=r"\min_{t\in[T]}\mathbb{E}\big[\|\nabla f(\bm{\theta}^{t}_{\text{g}})\|^{2}\big]\leq\mathcal{O}\big(\sqrt{\frac{\kappa}{NBT}}\big)+\mathcal{O}\big(\frac{1}{T}\big)+\frac{2}{\delta}\!\big[\frac{2G_{s}^{2}}{N(2N-1)}\Delta+\frac{\mu^{2}L^{2}}{2}(d+3)^{3}\big]",
    rate=r"\mathcal{O}\big(\sqrt{\frac{\kappa}{NBT}}\big)+\mathcal{O}\big(\frac{1}{T}\big)+\frac{2}{\delta}\!\big[\frac{2G_{s}^{2}}{N(2N-1)}\Delta+\frac{\mu^{2}L^{2}}{2}(d+3)^{3}\big]",
    notes=(
        r"Choices printed only in O-form: \eta_c=\mathcal O(\sqrt{NB/(\kappa T)}), \eta_s=\mathcal O(\sqrt{B/(\kappa NT)}).",
        "The explicit part of (15), the error floor, is heron_sfl/thm2@floor; (64) restates (15) with C_err of (65).",
        c.D_NOTE,
    ),
)  # fmt: skip

THM2_ROUND = _edition(
    "round", "HERON-SFL Theorem 2: per-round inequality, eq. (60)", "(60)", "App. A-C1",
    lhs=c.LHS_ROUND, terms=_terms(c.F_ROUND, drift_round), hypotheses=H2_RULES, step="eta_c", defaults=DEF2,
    statement=r"\|\nabla f(\bm{\theta}^{t}_{\text{g}})\|^{2}\leq\frac{1}{\eta_{\min}}\big(f(\bm{\theta}_{\text{g}}^{t})-\mathbb{E}\big[f(\bm{\theta}_{\text{g}}^{t+1})\big]+\Phi_{c}^{\prime}(\eta_{c})+\frac{\eta_{s}G_{s}^{2}}{2N}\sum_{i=1}^{N}d_{c,i}^{t}+\frac{1}{2}LN^{2}\eta_{s}^{2}G_{s}^{2}\big),\ \eta_{\min}\triangleq\min\{\frac{\eta_{c}}{4},\frac{\eta_{s}(2N-1)}{4}\}",
    notes=(
        r"\Phi_c'=\frac{\eta_c\mu^2L^2}{8}(d+3)^3+\eta_c^2L^4\mu^2d^3+\eta_c^3L^2\rho^2+\frac{\eta_c^2L\rho}{N}(\sigma^2+G_s^2) (59).",
        "eta_s defaults to the coupling eta_s = eta_c/(2N-1) of (62).", c.D_NOTE,
    ),
)  # fmt: skip

THM2_SUM = _edition(
    "sum", "HERON-SFL Theorem 2: bound summed over rounds, eq. (61)", "(61)", "App. A-C1",
    lhs=c.LHS, terms=_terms(F / T, delta), hypotheses=H2_RULES, step="eta_c", defaults=DEF2,
    statement=r"\frac{f(\bm{\theta}_{\text{g}}^{1})-f(\bm{\theta}_{\text{g}}^{T+1})}{\eta_{\min}T}+\frac{\Phi_{c}^{\prime}(\eta_{c})}{\eta_{\min}}+\frac{\eta_{s}G_{s}^{2}\sum_{i=1}^{N}d_{c,i}^{t}}{2N\eta_{\min}}+\frac{LN^{2}\eta_{s}^{2}G_{s}^{2}}{2\eta_{\min}}",
    notes=(
        "The printed drift sum_i d_{c,i}^t (t left free) is encoded as delta (Assumption 4).",
        "At the default coupling eta_s = eta_c/(2N-1) this is (62) with the coefficients 16 and 64.", c.D_NOTE,
    ),
)  # fmt: skip

THM2_PROOF = _edition(
    "proof", "HERON-SFL Theorem 2: the bound before the O step, eq. (62)", "(62)", "App. A-C1", lhs=c.LHS,
    terms=(
        Term(name="initialisation", expr=F / (eta * T), meaning="(f(theta_g^1) - f(theta_g^{T+1}))/(eta T)"),
        Term(name="ZO bias", expr=lam**2 * L**2 * (D + 3) ** 3 / 2, meaning="mu^2 L^2 (d+3)^3/2"),
        Term(name="drift", expr=2 * G_s2 * delta / (M * (2 * M - 1)),
             meaning="2 G_s^2/(N(2N-1)) sum_i d_{c,i}^t, with Assumption 4's delta"),
        Term(name="server variance", expr=eta * 8 * L * M**2 * G_s2 / (2 * M - 1) ** 2,
             meaning="eta 8 L N^2 G_s^2/(2N-1)^2"),
        Term(name="ZO bias (L^4)", expr=eta * 6 * L**4 * lam**2 * D**3,
             meaning="eta 6 L^4 mu^2 d^3, as the TeX prints it (16 in the rendered text)"),
        Term(name="variance", expr=eta * 16 * L * c.RHO * (sigma_c2 + G_s2) / M,
             meaning="eta (16L/N) rho (sigma^2 + G_s^2)"),
        Term(name="Young term", expr=eta**2 * 4 * L**2 * c.RHO**2,
             meaning="eta^2 4 L^2 rho^2, as the TeX prints it (64 in the rendered text)"),
    ),
    hypotheses=(
        *H2_RULES,
        _coupling("(62) coupling eta = eta_c/4", eta_c, 4 * eta, r"\eta\triangleq\eta_c/4", "eta_c defaults to 4 eta"),
        _coupling("(62) coupling eta = (2N-1)eta_s/4", eta_s, 4 * eta / (2 * M - 1), r"\eta\triangleq(2N-1)\eta_s/4",
                  "eta_s defaults to 4 eta/(2N-1)"),
    ),
    statement=r"\frac{f(\bm{\theta}_{\text{g}}^{1})-f(\bm{\theta}_{\text{g}}^{T+1})}{\eta T}+\frac{\mu^{2}L^{2}}{2}(d+3)^{3}+\frac{2G_{s}^{2}}{N(2N-1)}\sum\nolimits_{i=1}^{N}d_{c,i}^{t}+\eta\big[\frac{8LN^{2}G_{s}^{2}}{(2N-1)^{2}}+6L^{4}\mu^{2}d^{3}+\frac{16L}{N}\big(1+\frac{d\kappa+d-2}{d+2}\big)(\sigma^{2}+G_{s}^{2})\big]+\eta^{2}\big[4L^{2}\big(1+\frac{d\kappa+d-2}{d+2}\big)^{2}\big]",
    step="eta", defaults=(ETA_OF_ETA_C, ETA_C_OF_ETA, ETA_S_OF_ETA),
    notes=(
        "eta = eta_c/4 = (2N-1) eta_s/4: give eta, or eta_c (then eta = eta_c/4), or all three.",
        "The printed drift sum_i d_{c,i}^t (t left free) is encoded as delta (Assumption 4).", c.D_NOTE,
    ),
)  # fmt: skip

# the floor divides by delta: delta = 0 evaluates to inf (a void floor) at every entry point (sfltheory.numeric)
_TWO_OVER_DELTA = 2 / delta
THM2_FLOOR = _edition(
    "floor", "HERON-SFL Theorem 2: the explicit error floor C_err of (15), eq. (65)", "(15), defined as C_err in (65)",
    "Sec. V-A; App. A-C1", label="Theorem 2",
    lhs="C_err, the constant error floor of (15) (the part of the bound that is not O-form)",
    terms=(
        Term(name="drift floor", expr=_TWO_OVER_DELTA * 2 * G_s2 * Delta_drift / (M * (2 * M - 1)),
             meaning="(2/delta) 2 G_s^2 Delta/(N(2N-1))"),
        Term(name="smoothing floor", expr=_TWO_OVER_DELTA * lam**2 * L**2 * (D + 3) ** 3 / 2,
             meaning="(2/delta) mu^2 L^2 (d+3)^3/2"),
    ),
    hypotheses=(H2_LAM, H2_VALID),
    statement=r"C_{err}\triangleq\frac{2}{\delta}\big[\frac{2G_{s}^{2}}{N(2N-1)}\Delta+\frac{\mu^{2}L^{2}}{2}(d+3)^{3}\big]",
    notes=(
        "Delta ('the drift limit') is undefined in the paper; Remark 3 sets Delta = 0 in the i.i.d. case.",
        "The step-size conditions of Theorem 2 do not enter the floor and are not repeated here.", c.D_NOTE,
    ),
)  # fmt: skip

RESULTS = (THM2, THM2_ROUND, THM2_SUM, THM2_PROOF, THM2_FLOOR)
