r"""Lemma 2 (bound on the second moment of the ZO estimator), eq. (19).

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning", arXiv:2601.09076v1 (2026). Seed ``001_e8dcbf2a405221d7.txt``: App. A-B1,
Lemma 2 (eq. 19) and its proof (eqs. 20-23).

Statement, as printed (App. A-B1):

.. math::

    \text{Under Assumptions 1--3:}\quad
    \mathbb E_{t,m}\big[\|\widehat g_{c,i}^{t,m}\|^2\big]\le\frac{2dG_c^2}{B}+\frac{d^2L^2\mu^2}{2B}+2\mu^2L^2
    +6\sigma_c^2+6\|\nabla f_c(\theta_c^t)\|^2+6L^2\,\mathbb E_{t,m-1}\big[\|\theta_c^t-\theta_{c,i}^{t,m}\|^2\big].

The proof, (20)-(23), splits the second moment into the mini-batch variance (at most 1/B times the one-sample
second moment, bounded by 2dG_c^2 + d^2L^2mu^2/2 with Lemma 4.1 of [11] and Assumption 2) and the squared
smoothed gradient (2 mu^2 L^2 + 2||grad f_{c,i}||^2, then three-way Young and Assumptions 1 and 3). It prints no
step-size condition, and its last display is the statement itself; Lemma 3's proof uses it averaged over clients
as (26), Lemma 4's summed over steps as (39).
"""

from __future__ import annotations

from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import D, G_c2, L, batch, dev2_local, gc2_round, lam, sigma_c2

DISC_L2_AUX = Discrepancy(
    where="Lemma 2 proof, step (c) of (20) vs (2) and (5)",
    printed=r"\mathbb E_t^m[\widehat g_{c,i}^{t,m}]=\nabla f_{c,i}^\mu(\theta_{c,i}^{t,m})",
    expected=r"\mathbb E_u[\widehat\nabla f_{l,i}(\theta_l;\xi_i)]=\nabla f_{l,i}^\mu(\theta_l)\ \text{(5): the smoothed local loss through the auxiliary head}",
    note="the estimator (2) differentiates the client's local loss l_{l,i} of the predictor theta_a(theta_c(.)), not the "
    "global loss f whose client block (22)-(23) and Assumptions 1-3 then bound; the two gradients differ unless the "
    "auxiliary head reproduces the server's, which no assumption states. Lemmas 3-4 and Theorems 1-2 inherit the step.",
)  # fmt: skip
DISC_L1_D = Discrepancy(
    where="Sec. III-B (4) vs Lemma 1 (18), used in step (c) of (20)",
    printed=r"\nabla f^\mu(x)=\mathbb E_u\Big[\frac{f(x+\mu u)-f(x)}{\mu}u\Big]\ \text{(4)};\ \ \mathbb E_u\Big[\frac{f(x+\mu u)-f(x)}{\mu}\,du\Big]\ \text{(18)}",
    expected=r"\nabla f^\mu(x)=\frac{d}{\mu}\mathbb E_u\big[(f(x+\mu u)-f(x))u\big],\ u\sim\mathrm{Unif}(\mathbb S^{d-1}),\ f^\mu\text{ the ball-smoothed }f",
    note="(4) drops the factor d that (2) and (18) carry (E[uu^T] = I/d on the unit sphere); and the identity holds for f "
    "smoothed over the unit ball, while Definition 1 (3) smooths over the sphere. (22)'s bias ||grad f^mu - grad f||^2 "
    "<= mu^2 L^2 holds for either.",
)  # fmt: skip
DISC_L2_SHIFT = Discrepancy(
    where="Lemma 3 proof, (26): Lemma 2 averaged over clients",
    printed=r"\frac1N\sum_i\mathbb E_{t,m}\|\widehat g_{c,i}^{t,m}\|^2\le6L^2s_c^{t,m+1}+\beta",
    expected=r"6L^2s_c^{t,m}+\beta\ \text{((19) evaluates the drift at }\theta_{c,i}^{t,m}\text{, where }\widehat g^{t,m}\text{ is taken)}",
    note="(26) identifies the drift term of (19) with s_c^{t,m+1} (one local step later); (27) then sums s_c^{t,1..tau} "
    "instead of s_c^{t,0..tau-1}, which bounds the right sum only if the drift does not shrink along the local steps.",
)  # fmt: skip


LEMMA2 = Result(
    paper=c.KEY, label="lemma2", kind="lemma", title="HERON-SFL Lemma 2: second moment of the client ZO estimator",
    provenance=c.provenance(label="Lemma 2", equation="(19)", section="App. A-B1"), assumptions=c.A_CLIENT,
    lhs="E_{t,m}||g_{c,i}^{t,m}||^2, the second moment of client i's ZO estimate at local step m of round t",
    terms=(
        Term(name="ZO second moment (G_c)", expr=2 * D * G_c2 / batch,
             meaning="2dG_c^2/B: one-sample second moment over the batch"),
        Term(name="ZO bias (d^2)", expr=D**2 * L**2 * lam**2 / (2 * batch), meaning="d^2L^2mu^2/(2B)"),
        Term(name="smoothing bias", expr=2 * lam**2 * L**2,
             meaning="2mu^2L^2: ||grad f^mu - grad f||^2 <= mu^2 L^2, twice"),
        Term(name="variance", expr=6 * sigma_c2, meaning="6 sigma_c^2 (Assumption 3, as used in (23))"),
        Term(name="gradient", expr=6 * gc2_round, meaning="6||grad f_c(theta_c^t)||^2"),
        Term(name="local drift", expr=6 * L**2 * dev2_local,
             meaning="6L^2 E_{t,m-1}||theta_c^t - theta_{c,i}^{t,m}||^2"),
    ),
    statement=r"\mathbb{E}_{t,m}\big[\|\widehat{\bm{g}}_{c,i}^{t,m}\|^{2}\big]\leq\frac{2dG_{c}^{2}}{B}+\frac{d^{2}L^{2}\mu^{2}}{2B}+2\mu^{2}L^{2}+6\sigma^{2}_{c}+6\|\nabla f_{c}(\bm{\theta}_{c}^{t})\|^{2}+6L^{2}\mathbb{E}_{t,m-1}\big[\big\|\bm{\theta}_{c}^{t}-\bm{\theta}_{c,i}^{t,m}\big\|^{2}\big]",
    discrepancies=(DISC_L2_AUX, DISC_L1_D, DISC_L2_SHIFT, c.DISC_SIGMA, c.DISC_DIM),
    notes=(
        "Lemma 2 prints no step-size condition; it holds at every local step m of every round t.",
        "gc2_round = ||grad f_c(theta_c^t)||^2 at the round; dev2_local = E_{t,m-1}||theta_c^t - theta_{c,i}^{t,m}||^2.",
        "Averaged over clients at dev2_local = 0 it is the beta of (26); (24) of Lemma 3 is h^3 eta_c^2 beta/2.", c.D_NOTE,
    ),
)  # fmt: skip

RESULTS = (LEMMA2,)
