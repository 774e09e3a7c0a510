r"""Theorem 4 (server side, partial participation), restated as Theorem A4 (which says "full participation").

.. math::

    \min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le
    \frac{l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(m-2)T}+\frac{L\mu m^2}{m-2}(7\sigma_L^2+7\sigma_G^2)

under Assumptions 1-3, :math:`\mu\le\frac{1}{8L^2m^2}` and :math:`t\equiv0\pmod l`.

Editions: ``thm4`` (Sec. 4.2, partial participation); ``thm4@appendix`` (Theorem A4: the same bound and
condition, but "full participation of clients", encoded with the coupling n = m; its proof ends at (A60)).

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: Sec. 4.2, Theorem 4; App. A.2, Theorem A4, proof (A47)-(A60).
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import ONE, F, L, M, T, ell, eps2, eta, n, sigma2

_T4_VALIDITY = Hypothesis(
    name="validity: m-2>0", lhs=M - 2, rel=">", rhs=sp.Integer(0), kind="validity", printed=r"m-2>0", source="implicit",
    where="Theorem 4 / A4 (denominator m - 2)", note="with m <= 2 clients the denominator is zero or negative and the bound is void",
)  # fmt: skip
_B15_GRADIENT = 16 * L**4 * (n**3 + 2 * n**4) * eta**2 + 3 * L * n**2 * eta + 48 * L**3 * n**2 * (M + 2 * M**2) * eta**3
_T4_B15 = (
    step_branch(
        "(b_15) gradient coefficient <= 3-2(m-n)", sp.Min(_B15_GRADIENT, 4), 3 - 2 * (M - n),
        r"16L^4(n^3+2n^4)\mu^2+3Ln^2\mu+48L^3n^2(m+2m^2)\mu^3\le3-2(m-n)", source="implicit",
        where="App. A.2, proof of A4, step (b_15) ('holds as mu <= 1/(8L^2m^2)')",
        note="(b_15) turns (1/2)(mu - 2n mu + 16L^4(n^3+2n^4)mu^3 + 3L mu^2 n^2 + 48L^3n^2mu^4(m+2m^2)) into "
        "mu(4 - 2m)/2: the extra terms must be <= mu(3 - 2(m - n)), impossible for n <= m - 2 (then max_step "
        "reports 0). Encoded as min(., 4) <= rhs (equivalent, rhs <= 3) so that max_step searches numerically.",
    ),
    step_branch(
        "(b_15) sigma_L^2 coefficient <= 14 m^2",
        16 * L**3 * (n**3 + 2 * n**4) * eta + n + 48 * L**2 * n**2 * (M + 2 * M**2) * eta**2, 14 * M**2,
        r"16L^3(n^3+2n^4)\mu+n+48L^2n^2(m+2m^2)\mu^2\le14m^2", source="implicit", where="App. A.2, proof of A4, step (b_15)",
        note="(1/2)(16L^4(n^3+2n^4)mu^3 + L n mu^2 + 48L^3n^2mu^4(m+2m^2)) <= (L mu^2 m^2/2) 14, reading (b_15)'s "
        "L mu m^2/2 as L mu^2 m^2/2 (the reading (A59)-(A60) use)",
    ),
    step_branch(
        "(b_15) sigma_G^2 coefficient <= 14 m^2",
        16 * L**3 * (n**3 + 2 * n**4) * eta + 3 * n**2 + 48 * L**2 * n**2 * (M + 2 * M**2) * eta**2, 14 * M**2,
        r"16L^3(n^3+2n^4)\mu+3n^2+48L^2n^2(m+2m^2)\mu^2\le14m^2", source="implicit",
        where="App. A.2, proof of A4, step (b_15)",
        note="(1/2)(16L^4(n^3+2n^4)mu^3 + 3L mu^2 n^2 + 48L^3n^2mu^4(m+2m^2)) <= (L mu^2 m^2/2) 14",
    ),
)  # fmt: skip

_D_T4 = (
    Discrepancy(
        where="proof of A4, step (b_15): the descent coefficient",
        printed=r"\frac12(\mu-2n\mu+\dots)\le\frac{\mu(4-2m)}{2}", expected=r"\frac{\mu(4-2n)}{2}\ (\text{at best})",
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
    c.D_PARTIAL_DRIFT,
    Discrepancy(
        where="Theorem 4 vs Theorem A4 (participation)",
        printed=r"\text{A4: 'full participation of clients'}",
        expected=r"\text{Theorem 4: 'partial participation of clients'}",
        note="A4 restates Theorem 4's bound and condition but calls the setting full participation, while its proof "
        "samples S_t. Encoded as sfl_aux/thm4@appendix with the coupling n = M.",
    ),
)  # fmt: skip

# Theorem A4 says "full participation of clients": every client takes part, n = m (App. A.2, Theorem A4).
FULL_PARTICIPATION = Default(
    name="n", expr=M, rule="Theorem A4 is stated for 'full participation of clients' (App. A.2): n = m"
)
_FULL = Hypothesis(
    name="full participation: n = m", lhs=n, rel="==", rhs=M, kind="coupling", printed=r"\text{full participation of clients}",
    where="Theorem A4", note="A4 says full participation; n defaults to M",
)  # fmt: skip


def _t4_hyps(where: str) -> tuple[Hypothesis, ...]:
    return (
        step_branch("mu<=1/(8L^2m^2)", eta, ONE / (8 * L**2 * M**2), r"\mu\le\frac{1}{8L^2m^2}", where=where, group="mu"),
        _T4_VALIDITY, c.DRIFT_SERVER, *_T4_B15,
    )  # fmt: skip


THM4 = Result(
    paper=c.KEY, label="thm4", kind="theorem", title="Server-side model, partial participation", lhs=c.LHS_SERVER,
    provenance=c.provenance(label="Theorem 4", section="Sec. 4.2; restated as Theorem A4 (proof ends at (A60))"),
    terms=(
        Term(name="initialisation", expr=ell * F / (eta * (M - 2) * T), meaning="l(F^s(x^0) - F^s(x^*))/(mu (m - 2) T)"),
        Term(name="variance", expr=7 * L * eta * M**2 * sigma2 / (M - 2), meaning="L mu m^2 * 7 sigma_L^2/(m - 2)"),
        Term(name="heterogeneity", expr=7 * L * eta * M**2 * eps2 / (M - 2), meaning="L mu m^2 * 7 sigma_G^2/(m - 2)"),
    ),
    hypotheses=_t4_hyps("Theorem 4"), assumptions=c.ASSUMPTIONS, step="eta",
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le\frac{l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(m-2)T}+\frac{L\mu m^2}{m-2}(7\sigma_L^2+7\sigma_G^2)",
    discrepancies=(*_D_T4, c.D_STRATEGY, c.D_ALG_SERVER, *c.COMMON_DISC), notation=c.NOTATION_SERVER,
    notes=("n does not appear in the bound; the conditions the proof's step (b_15) needs depend on it.",),
)  # fmt: skip

# Theorem A4: the same bound and condition, stated for full participation
THM4_APPENDIX = replace(
    THM4, edition="appendix", title="Server-side model as restated in the appendix (Theorem A4, 'full participation')",
    provenance=c.provenance(label="Theorem A4", equation="(A60)", section="App. A.2"),
    hypotheses=(_FULL, *_t4_hyps("Theorem A4")), defaults=(FULL_PARTICIPATION,),
    notes=("Bound and step-size condition equal Theorem 4's; only the participation wording differs.",),
)  # fmt: skip
