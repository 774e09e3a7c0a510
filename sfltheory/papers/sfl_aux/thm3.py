r"""Theorem 3 (server side, full participation); restated with another step condition as Theorem A3.

.. math::

    \min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le
    \frac{2l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(2m-3)T}+\frac{L\mu m^2}{2m-3}(9.2\sigma_L^2+13.2\sigma_G^2)

under Assumptions 1-3, full participation, :math:`t\equiv0\pmod l` and :math:`\mu\le\frac{1}{2L}` (Theorem 3) or
:math:`\mu\le\frac{1}{8Lm^2}` (Theorem A3).

Editions: ``thm3`` (Sec. 4.2, :math:`\mu\le1/(2L)`); ``thm3@appendix`` (Theorem A3, :math:`\mu\le1/(8Lm^2)`),
whose proof's last display (A46) prints the same bound.

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: Sec. 4.2, Theorem 3; App. A.2, Theorem A3, proof (A37)-(A46).
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import ONE, F, L, M, R, T, ell, eps2, eta, sigma2

_T3_VALIDITY = Hypothesis(
    name="validity: 2m-3>0", lhs=2 * M - 3, rel=">", rhs=sp.Integer(0), kind="validity", printed=r"2m-3>0",
    source="implicit", where="Theorem 3 / A3 (denominator 2m - 3); the proof's remark 'for m > 1' after (A44)",
    note="with one client (m = 1) the denominator is negative and the bound is void; the drift lemma also needs m > 1",
)  # fmt: skip
# (b_15) of the proof of A3: the display before it has coefficients that (b_15) bounds by constants.
_T3_B15 = (
    step_branch(
        "(b_15) gradient coefficient <= 2",
        sp.Min(6 * L * M**2 * eta + 16 * L**2 * M**3 * (1 + 2 * M) * eta**2 + 96 * L**3 * M**3 * (1 + 2 * M) * eta**3, 3),
        sp.Integer(2), r"6Lm^2\mu+16L^2m^3(1+2m)\mu^2+96L^3m^3(1+2m)\mu^3\le2",
        source="implicit", where="App. A.2, proof of A3, step (b_15)",
        note="(b_15) turns (1/2)(-2 mu m + 6L m^2 mu^2 + mu + 96L^3 mu^4 m^3(1+2m) + 16L^2 mu^3 m^3(1+2m)) into "
        "mu(3 - 2m)/2, which needs the extra terms <= 2 mu. No condition is printed there. Encoded as "
        "min(., 3) <= 2 (equivalent) so that max_step searches numerically: the cubic's closed-form roots are "
        "NaN in real arithmetic.",
    ),
    step_branch(
        "(b_15) variance coefficients <= 7.2", 16 * L * M * (1 + 2 * M) * eta + 96 * L**2 * M * (1 + 2 * M) * eta**2,
        R(36, 5), r"16Lm(1+2m)\mu+96L^2m(1+2m)\mu^2\le7.2", source="implicit", where="App. A.2, proof of A3, step (b_15)",
        note="(b_15) bounds (1/2)(16L^2mu^3m^3(1+2m) + 2L mu^2 m^2 + 96L^3mu^4m^3(1+2m)) by (L mu^2 m^2/2) 9.2 and the "
        "sigma_G^2 coefficient (6L mu^2 m^2 instead of 2) by (L mu^2 m^2/2) 13.2: both need exactly this.",
    ),
)  # fmt: skip

D_T3_B15 = Discrepancy(
    where="proof of A3, step (b_15)", note="no step-size condition is printed at (b_15) in the proof of A3; encoded as implicit branches.",
    printed=r"\le F^s+\frac{\mu(3-2m)}{2}\mathbb E\|\nabla F^s\|^2+\frac{L\mu^2m^2}{2}(9.2\sigma_L^2+13.2\sigma_G^2)",
    expected=r"\text{needs } 6Lm^2\mu+16L^2m^3(1+2m)\mu^2+96L^3m^3(1+2m)\mu^3\le2,\ 16Lm(1+2m)\mu+96L^2m(1+2m)\mu^2\le7.2",
)  # fmt: skip

# what Theorem 3 and its appendix restatement A3 share besides their step-size condition
_T3_SHARED = (_T3_VALIDITY, c.DRIFT_SERVER, *_T3_B15)

THM3 = Result(
    paper=c.KEY, label="thm3", kind="theorem", title="Server-side model, full participation",
    provenance=c.provenance(label="Theorem 3", section="Sec. 4.2"), lhs=c.LHS_SERVER,
    terms=(
        Term(name="initialisation", expr=2 * ell * F / (eta * (2 * M - 3) * T), meaning="2l(F^s(x^0) - F^s(x^*))/(mu (2m - 3) T)"),
        Term(name="variance", expr=L * eta * M**2 * R(46, 5) * sigma2 / (2 * M - 3), meaning="L mu m^2 * 9.2 sigma_L^2/(2m - 3)"),
        Term(name="heterogeneity", expr=L * eta * M**2 * R(66, 5) * eps2 / (2 * M - 3), meaning="L mu m^2 * 13.2 sigma_G^2/(2m - 3)"),
    ),
    hypotheses=(
        step_branch("mu<=1/(2L)", eta, ONE / (2 * L), r"\mu\le\frac{1}{2L}", where="Theorem 3", group="mu"),
        *_T3_SHARED,
    ),
    assumptions=c.ASSUMPTIONS, step="eta",
    statement=r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le\frac{2l(F^s(\mathbf x_S^0)-F^s(\mathbf x_S^*))}{\mu(2m-3)T}+\frac{L\mu m^2}{2m-3}(9.2\sigma_L^2+13.2\sigma_G^2)",
    discrepancies=(c.D_T3_STEP, D_T3_B15, c.D_ALG_SERVER, *c.COMMON_DISC), notation=c.NOTATION_SERVER,
)  # fmt: skip

# Theorem A3: the same bound (and (A46), the proof's last display), another step-size condition
THM3_APPENDIX = replace(
    THM3, edition="appendix", title="Server-side model, full participation, as restated in the appendix (Theorem A3)",
    provenance=c.provenance(label="Theorem A3", equation="(A46)", section="App. A.2"),
    hypotheses=(
        step_branch("mu<=1/(8Lm^2)", eta, ONE / (8 * L * M**2), r"\mu\le\frac{1}{8Lm^2}", where="Theorem A3", group="mu"),
        *_T3_SHARED,
    ),
    notes=(
        "The bound of A3 (and the proof's last display (A46)) equals Theorem 3's term for term; only the step-size "
        "condition differs.",
    ),
)  # fmt: skip
