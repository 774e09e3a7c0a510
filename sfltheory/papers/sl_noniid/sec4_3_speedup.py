r"""Sec. 4.3: FedAvg's linear speedup, Theorem 2 at :math:`\eta_l=\frac{\sqrt N}{L\sqrt T}`.

As printed (after Table 1): "Choosing :math:`\eta_l=\frac{\sqrt{N}}{L\sqrt{T}}` for Theorem 2 provides the
:math:`\mathcal{O}(1/\sqrt{NT})` convergence rate, the linear speedup in FL." Only with T = KR (the iterations
of one client) does Theorem 2 give that rate; Corollary 1 defines T = NKR.

Editions:

* ``sec4.3.speedup`` -- the O-form, not evaluable;
* ``sec4.3.speedup@explicit`` -- eq. (51) at :math:`\eta_g=1,\ \eta_l=\sqrt N/(L\sqrt{KR})` (the substitution is
  ours).

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Sec. 4.3, the sentence
after Table 1.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from . import _common as c
from ._common import G2, ONE, F, K, L, M, T, eta_g, eta_l, sigma2

ETA_L = sp.sqrt(M) / (L * sp.sqrt(K * T))
T_IS_KR = Discrepancy(where="Sec. 4.3, the meaning of T", printed=r"\eta_l=\frac{\sqrt N}{L\sqrt T}\ \Rightarrow\ \mathcal O(1/\sqrt{NT})",
    expected=r"T=KR\text{ here, whereas Corollary 1 defines }T=NKR", note="only with T = KR (iterations per client) does Theorem 2 give 4LF/sqrt(NT) + 4 sigma^2/sqrt(NT); T is overloaded.")  # fmt: skip
# what both editions share: the choice, Theorem 2's conditions, the defaults
edition = partial(
    Result, paper=c.KEY, label="sec4.3.speedup", kind="corollary", lhs="E||grad f(xbar^R)||^2 for FedAvg (Theorem 2)",
    hypotheses=(
        Hypothesis(name="choice eta_l = sqrt(N)/(L sqrt(KR))", lhs=eta_l, rel="==", rhs=ETA_L, kind="choice", printed=r"\eta_l=\frac{\sqrt N}{L\sqrt T},\ T=KR", where="Sec. 4.3"),
        Hypothesis(
            name="eta_g = 1", lhs=eta_g, rel="==", rhs=ONE, kind="choice", printed=r"\eta_g=1", source="implicit",
            where="Sec. 4.3 / Table 1 caption ('eta_g is set to eta_g = 1')", note="the rate O(1/sqrt(NT)) needs eta_g = 1 with this eta_l",
        ),
        *c.thm2_steps("Theorem 2, applied in Sec. 4.3"),
        c.b_ge_1("Assumption 3 (via Theorem 2)"),
    ),
    assumptions=c.T1_ASSUMPTIONS, step="eta_l", discrepancies=(T_IS_KR, c.XBAR_DISC),
    defaults=(c.TABLE1_ETA_G, Default(name="eta_l", expr=ETA_L, rule="Sec. 4.3's choice eta_l = sqrt(N)/(L sqrt(T)) for Theorem 2, with T = KR")),
)  # fmt: skip

SPEEDUP = edition(
    title="FedAvg's linear speedup: Theorem 2 at eta_l = sqrt(N)/(L sqrt(T))",
    provenance=c.provenance(label="Sec. 4.3 (after Table 1)", section="Sec. 4.3, 'Choosing eta_l = sqrt(N)/(L sqrt(T)) for Theorem 2'"),
    terms=(), statement=r"\mathcal O(1/\sqrt{NT})", rate=r"\mathcal O(1/\sqrt{NT})", explicit=False, see="sl_noniid/sec4.3.speedup@explicit",
)  # fmt: skip
SPEEDUP_EXPLICIT = edition(
    title="Theorem 2 at eta_g = 1, eta_l = sqrt(N)/(L sqrt(KR)) before the O-step", edition="explicit",
    provenance=c.provenance(
        label="Sec. 4.3 (Theorem 2 at the printed choice)", equation="(51) with eta_l = sqrt(N)/(L sqrt(KR))", section="Sec. 4.3; the substitution is ours"
    ),
    terms=(
        Term(name="initialisation", expr=4 * L * F / sp.sqrt(M * K * T), meaning="4 L F/sqrt(N K R)"),
        Term(name="client drift (G^2)", expr=12 * (K - 1) * M * G2 / T, meaning="12 (K-1) N G^2/R: not O(1/sqrt(NT)) until R is large"),
        Term(name="client drift (sigma^2)", expr=6 * (K - 1) * M * sigma2 / (K * T), meaning="6 (K-1) N sigma^2/(K R)"),
        Term(name="global variance", expr=4 * sigma2 / sp.sqrt(M * K * T), meaning="4 sigma^2/sqrt(N K R)"),
    ),
    statement=r"\frac{4L[f(\mathbf x^0)-f(\mathbf x^*)]}{\sqrt{NT}}+\frac{12K(K-1)NG^2+6(K-1)N\sigma^2}{T}+\frac{4\sigma^2}{\sqrt{NT}},\quad T=KR",
)  # fmt: skip
