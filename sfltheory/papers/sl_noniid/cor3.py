r"""Corollary 3: split learning at a tuned step size (there exists :math:`\eta_l`).

Statement, eq. (50) (App. D.2): apply the result of Theorem 1. There exists :math:`\eta_l` such that

.. math::

    \mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le\mathcal O\left(\frac{F\sqrt{(2B^2+1)}}{R+1}\right)
    +\mathcal O\left(\frac{F^{\frac23}(G^2+\frac{\sigma^2}{K})^{\frac13}}{(R+1)^{\frac23}}\right)
    +\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right).

Proof (one line): "Applying Lemma 2 (sub-linear convergence rate) of Karimireddy et al. (2020) to Eq. (44)".

Editions:

* ``cor3`` -- the O-form (50), not evaluable;
* ``cor3@explicit`` -- (44) through Lemma 2 of Karimireddy et al. (2020): written in
  :math:`\gamma=NK\eta_g\eta_l`, (44) is :math:`r_0/(\gamma R)+c\gamma+e\gamma^2` with :math:`\gamma\le1/d`, and
  :math:`\gamma=\min\{1/d,\sqrt{r_0/(cR)},(r_0/(eR))^{1/3}\}` bounds it by
  :math:`dr_0/R+2\sqrt{cr_0/R}+2e^{1/3}(r_0/R)^{2/3}` (constants worked out by us).

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Corollary 3, eq. (50),
App. D.2.
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from . import _common as c
from ._common import G2, ONE, SQ3, F, K, L, M, T, eta_g, eta_l, sigma2

# (44) in gamma = N K eta_g eta_l:  r0/(gamma R) + c gamma + e gamma^2 with gamma <= 1/d (Lemma 2's r_0, c, e, d).
r0 = 4 * F
c_var = 4 * L * sigma2 / K
e_drift = L**2 * (12 * G2 + 6 * sigma2 / K) / eta_g**2
d_lim = 2 * L * sp.Max(SQ3 / eta_g, ONE)
gamma_star = sp.Min(1 / d_lim, sp.sqrt(r0 / (c_var * T)), (r0 / (e_drift * T)) ** sp.Rational(1, 3))

RATE = r"\mathcal O\left(\frac{F\sqrt{(2B^2+1)}}{R+1}\right)+\mathcal O\left(\frac{F^{\frac23}(G^2+\frac{\sigma^2}{K})^{\frac13}}{(R+1)^{\frac23}}\right)+\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right)"
THIRD_TERM = Discrepancy(where="Corollary 3, eq. (50), third term", printed=r"\mathcal O\left(\frac{F\sigma^2}{\sqrt{K(R+1)}}\right)",
    expected=r"\mathcal O\left(\frac{\sqrt{F\sigma^2}}{\sqrt{K(R+1)}}\right)", note="Lemma 2 gives 2 sqrt(c r_0/(R+1)) with c = 4 L sigma^2/K and r_0 = 4F, i.e. 8 sqrt(L F sigma^2/(K R)); F sigma^2 without the root does not even have the units of ||grad f||^2.")  # fmt: skip
R_PLUS_1 = Discrepancy(where="Corollary 3, eq. (50), R + 1", printed=r"R+1",
    expected=r"R", note="(44) averages the R rounds r = 0..R-1; Lemma 2 of Karimireddy et al. averages R+1 terms, which here are R.")  # fmt: skip
# what both editions share
edition = partial(
    Result, paper=c.KEY, label="cor3", kind="corollary", lhs=c.LHS_AVG_MODEL, assumptions=c.T1_ASSUMPTIONS,
    discrepancies=(THIRD_TERM, R_PLUS_1, c.XBAR_DISC),
)  # fmt: skip

COR3 = edition(
    title="Split learning: tuned step size (there exists eta_l)",
    provenance=c.provenance(label="Corollary 3", equation="(50)", section="App. D.2 (proof: Lemma 2 of Karimireddy et al. (2020) applied to eq. (44))"),
    terms=(), hypotheses=(c.b_ge_1("Assumption 3 (via Theorem 1)"),), statement=r"\mathbb E[\|\nabla f(\bar{\mathbf x}^R)\|^2]\le" + RATE,
    rate=RATE, explicit=False, see="sl_noniid/cor3@explicit",
)  # fmt: skip

COR3_EXPLICIT = edition(
    title="Corollary 3 before the O-step: Lemma 2 of Karimireddy et al. applied to eq. (44)", edition="explicit",
    provenance=c.provenance(label="Corollary 3, proof", equation="(44) with Lemma 2 of Karimireddy et al. (2020)", section="App. D.2; constants worked out by us"),
    terms=(
        Term(name="step-size limit", expr=d_lim * r0 / T, meaning="d r_0/R = 8 L max{sqrt(2B^2+1)/eta_g, 1} F/R (printed O(F sqrt(2B^2+1)/(R+1)))"),
        Term(name="variance", expr=2 * sp.sqrt(c_var * r0 / T), meaning="2 sqrt(c r_0/R) = 8 sqrt(L F sigma^2/(K R)) (printed O(F sigma^2/sqrt(K(R+1))))"),
        Term(
            name="client drift", expr=2 * e_drift ** sp.Rational(1, 3) * (r0 / T) ** sp.Rational(2, 3),
            meaning="2 e^{1/3} (r_0/R)^{2/3}, e = L^2(12G^2 + 6 sigma^2/K)/eta_g^2",
        ),
    ),
    hypotheses=(
        Hypothesis(
            name="choice eta_l = gamma*/(NK eta_g) (Lemma 2)", lhs=eta_l, rel="==", rhs=gamma_star / (M * K * eta_g), kind="choice",
            printed=r"\eta_l=\frac{1}{NK\eta_g}\min\left\{\frac1d,\sqrt{\frac{r_0}{cR}},\left(\frac{r_0}{eR}\right)^{1/3}\right\}",
            source="implicit", where="Corollary 3 ('there exists eta_l'); the step of Lemma 2's proof",
            note="the explicit bound holds at this eta_l, not at every admissible one",
        ),
        *c.thm1_steps("Theorem 1, applied by Corollary 3"),
        c.b_ge_1("Assumption 3 (via Theorem 1)"),
    ),
    statement=r"\frac{8L\max\{\sqrt{2B^2+1}/\eta_g,1\}F}{R}+8\sqrt{\frac{LF\sigma^2}{KR}}+2\left(\frac{L^2(12G^2+6\sigma^2/K)}{\eta_g^2}\right)^{1/3}\left(\frac{4F}{R}\right)^{2/3}",
    step="eta_l",
    defaults=(
        c.VANILLA_SL,
        Default(
            name="eta_l", expr=gamma_star / (M * K * eta_g),
            rule="the step of Lemma 2 of Karimireddy et al. (2020), which Corollary 3's proof applies to (44): "
            "gamma = N K eta_g eta_l = min{1/d, sqrt(r_0/(cR)), (r_0/(eR))^{1/3}} (App. D.2; constants ours)",
        ),
    ),
    notes=(
        "Not printed: (44) reads r_0/(gamma R) + c gamma + e gamma^2 in gamma = N K eta_g eta_l with r_0 = 4F, c = 4L sigma^2/K, "
        "e = L^2(12G^2 + 6 sigma^2/K)/eta_g^2 and gamma <= 1/d, d = 2L max{sqrt(2B^2+1)/eta_g, 1} (Theorem 1's branches); "
        "gamma = min{1/d, sqrt(r_0/(cR)), (r_0/(eR))^{1/3}} bounds it by d r_0/R + 2 sqrt(c r_0/R) + 2 e^{1/3}(r_0/R)^{2/3}.",
        "At eta_g = 1 (Table 6) and B >= 1, d = 2L sqrt(2B^2+1): the printed first term.",
        "When 1/d is the minimum, the default eta_l lies on Theorem 1's first branch, where rounding may tip the '<=' check.",
    ),
)  # fmt: skip
