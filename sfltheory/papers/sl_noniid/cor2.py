r"""Corollary 2: the split-learning rate in rounds at the effective step :math:`NK\eta_g\eta_l=1/\sqrt R`.

Statement, eq. (49) (App. D.2, after the proof of Theorem 1): choose :math:`NK\eta_g\eta_l=\frac{1}{\sqrt R}` and
apply Theorem 1. For sufficiently large R,

.. math::

    \mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{F}{\sqrt R}\right)
    +\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)+\mathcal O\left(\frac{\sigma^2}{K\sqrt R}\right),

with :math:`F:=f(\mathbf x^0)-f(\mathbf x^*)`. No proof is printed.

Editions:

* ``cor2`` -- the O-form (49), not evaluable;
* ``cor2@explicit`` -- eq. (5) at the corollary's choice (the substitution is ours); "sufficiently large R" is
  Theorem 1's condition at that step, recorded as implicit.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Corollary 2, eq. (49),
App. D.2.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from . import _common as c
from ._common import B2, G2, ONE, F, K, L, M, T, eta_g, eta_l, sigma2

RATE = r"\mathcal O\left(\frac{F}{\sqrt R}\right)+\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)+\mathcal O\left(\frac{\sigma^2}{K\sqrt R}\right)"
SECOND_TERM = Discrepancy(where="Corollary 2, eq. (49), second term", printed=r"\mathcal O\left(\frac{KG^2+\sigma^2}{\sqrt{KR}}\right)",
    expected=r"\frac{12L^2G^2}{\eta_g^2R}+\frac{6L^2\sigma^2}{\eta_g^2KR}=\mathcal O\left(\frac{KG^2+\sigma^2}{KR}\right)", note="Theorem 1's T_2 at NK eta_g eta_l = 1/sqrt(R) decays as 1/R; Sec. 4.3's display (ii) for the same choice prints (KG^2+sigma^2)/(KR).")  # fmt: skip
COR2_ETA_L = Default(name="eta_l", expr=ONE / (M * K * eta_g * sp.sqrt(T)), rule="Corollary 2's choice N K eta_g eta_l = 1/sqrt(R) (App. D.2, before (49))")  # fmt: skip
LARGE_R = "Corollary 2 ('for sufficiently large R')"
HYPOTHESES = (
    Hypothesis(
        name="choice NK eta_g eta_l = 1/sqrt(R)", lhs=M * K * eta_g * eta_l, rel="==", rhs=ONE / sp.sqrt(T), kind="choice",
        printed=r"NK\eta_g\eta_l=\frac{1}{\sqrt R}", where="Corollary 2",
    ),
    Hypothesis(
        name="R>=4L^2(2B^2+1)/eta_g^2", lhs=T, rel=">=", rhs=4 * L**2 * (2 * B2 + 1) / eta_g**2, kind="domain",
        printed=r"R\ge4L^2\frac{2B^2+1}{\eta_g^2}", source="implicit", where=LARGE_R, group="R large",
        note="Theorem 1's first branch at eta_l = 1/(NK eta_g sqrt(R)); the corollary only says 'sufficiently large R'",
    ),
    Hypothesis(
        name="R>=4L^2", lhs=T, rel=">=", rhs=4 * L**2, kind="domain", printed=r"R\ge4L^2", source="implicit", where=LARGE_R,
        group="R large", note="Theorem 1's second branch at eta_l = 1/(NK eta_g sqrt(R))",
    ),
    c.b_ge_1("Assumption 3 (via Theorem 1)"),
)  # fmt: skip
# what both editions share
edition = partial(
    Result, paper=c.KEY, label="cor2", kind="corollary", lhs=c.LHS_AVG_MODEL, assumptions=c.T1_ASSUMPTIONS, step="eta_l",
    defaults=(c.VANILLA_SL, COR2_ETA_L), discrepancies=(SECOND_TERM, c.XBAR_DISC),
)  # fmt: skip

COR2 = edition(
    title="Split learning rate in rounds at the effective step N K eta_g eta_l = 1/sqrt(R)",
    provenance=c.provenance(label="Corollary 2", equation="(49)", section="App. D.2 (after the proof of Theorem 1; no proof printed)"),
    terms=(), hypotheses=HYPOTHESES, statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le" + RATE, rate=RATE,
    explicit=False, see="sl_noniid/cor2@explicit",
)  # fmt: skip

COR2_EXPLICIT = edition(
    title="Corollary 2 before the O-step: eq. (5) at N K eta_g eta_l = 1/sqrt(R)", edition="explicit",
    provenance=c.provenance(label="Corollary 2 (Theorem 1 at the corollary's choice)", equation="(5) with NK eta_g eta_l = 1/sqrt(R)", section="App. D.2; the substitution is ours, no proof is printed"),
    terms=(
        Term(name="initialisation", expr=4 * F / sp.sqrt(T), meaning="4F/sqrt(R)"),
        Term(name="client drift (G^2)", expr=12 * L**2 * G2 / (eta_g**2 * T), meaning="12 L^2 G^2/(eta_g^2 R)"),
        Term(name="client drift (sigma^2)", expr=6 * L**2 * sigma2 / (eta_g**2 * K * T), meaning="6 L^2 sigma^2/(eta_g^2 K R)"),
        Term(name="global variance", expr=4 * L * sigma2 / (K * sp.sqrt(T)), meaning="4 L sigma^2/(K sqrt(R))"),
    ),
    hypotheses=(*HYPOTHESES, *c.thm1_steps("Theorem 1, applied by Corollary 2")),
    statement=r"\frac{4F}{\sqrt R}+\frac{12L^2G^2}{\eta_g^2R}+\frac{6L^2\sigma^2}{\eta_g^2KR}+\frac{4L\sigma^2}{K\sqrt R}",
)  # fmt: skip
