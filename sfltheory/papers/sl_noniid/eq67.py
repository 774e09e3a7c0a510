r"""Eq. (67): the drift of one client's local updates in one round, "the bounded client-drift in Wang et al.
(2020)" that the proof of Theorem 3 uses.

Printed in App. D.4 without a condition or a proof of its own:

.. math::

    \sum_{k=0}^{K-1}\mathbb E\left[\|\mathbf x_i^{(r,k)}-\mathbf x_i^{(r,0)}\|^2\right]
    \le\frac{4K^3\eta_l^2\|\nabla f_i(\mathbf x_i^{(r,0)})\|^2+2K^2\eta_l^2\sigma^2}{1-4K^2L^2\eta_l^2}.

It is Lemma 4's argument (App. D.1) for one client: at N = 1, (16) reads the same with
:math:`B^2\|\nabla f(\mathbf x^r)\|^2+G^2` in place of :math:`\|\nabla f_i(\mathbf x_i^{(r,0)})\|^2`.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: App. D.4 (proof of
Theorem 3), eq. (67), citing Wang et al. (2020).
"""

from __future__ import annotations

import sympy as sp

from ...assumptions import SMOOTHNESS_PER_CLIENT
from ...result import Discrepancy, Hypothesis, Result, Term
from . import _common as c
from ._common import K, L, eta_l, gradnorm2_fi, sigma2

D = 4 * K**2 * L**2 * eta_l**2  # the D of (68)

EQ67 = Result(
    paper=c.KEY, label="eq67", kind="lemma", title="Bounded client drift of one client's K local steps (Wang et al. (2020)), eq. (67)",
    provenance=c.provenance(label="Theorem 3, proof", equation="(67)", section="App. D.4, citing Wang et al. (2020)"),
    lhs="drift of client i in round r: sum_{k=0}^{K-1} E||x_i^{(r,k)} - x_i^{(r,0)}||^2, given x_i^{(r,0)}",
    terms=(
        Term(name="gradient", expr=4 * K**3 * eta_l**2 * gradnorm2_fi / (1 - D), meaning="4 K^3 eta_l^2 ||grad f_i(x_i^{(r,0)})||^2 / (1 - 4K^2L^2eta_l^2)"),
        Term(name="variance", expr=2 * K**2 * eta_l**2 * sigma2 / (1 - D), meaning="2 K^2 eta_l^2 sigma^2 / (1 - 4K^2L^2eta_l^2)"),
    ),
    hypotheses=(
        c.EQ72,
        Hypothesis(
            name="1-4K^2L^2eta_l^2>0", lhs=1 - D, rel=">", rhs=sp.Integer(0), kind="validity", printed=r"4K^2L^2\eta_l^2<1",
            source="implicit", where="App. D.4, eq. (67): its denominator",
            note="printed nowhere: (67) is cited without a condition; Theorem 3's eta_l <= 1/(2 sqrt5 KL) keeps it positive, "
            "(72)'s 2K eta_l L <= 1 alone allows it to vanish",
        ),
    ),
    assumptions=(SMOOTHNESS_PER_CLIENT, c.ASM2),
    statement=r"\sum_{k=0}^{K-1}\mathbb E\left[\|\mathbf x_i^{(r,k)}-\mathbf x_i^{(r,0)}\|^2\right]\le\frac{4K^3\eta_l^2\|\nabla f_i(\mathbf x_i^{(r,0)})\|^2+2K^2\eta_l^2\sigma^2}{1-4K^2L^2\eta_l^2}",
    step="eta_l", defaults=(c.THM3_DEFAULT_ETA_L,),
    discrepancies=(
        Discrepancy(where="App. D.4, eq. (67)", printed=r"\text{(67), 'the bounded client-drift in Wang et al. (2020)', with no condition on }\eta_l",
            expected=r"4K^2L^2\eta_l^2<1\ (\text{e.g. Theorem 3's }\eta_l\le\tfrac{1}{2\sqrt5KL})", note="the denominator 1 - 4K^2L^2eta_l^2 of (67) must be positive for the bound to mean anything; the seed prints (67) with no condition, the proof's (72) 2K eta_l L <= 1 alone lets it vanish, and only Theorem 3's (73) keeps it >= 4/5 where (67) is used."),
        c.SIGMA_DISC,
    ),
    notation={"gradnorm2_Fk": r"\|\nabla f_i(\mathbf x_i^{(r,0)})\|^2"},
    notes=(
        "gradnorm2_Fk is ||grad f_i(x_i^{(r,0)})||^2, client i's own gradient at the model it starts its K steps from.",
        "We re-derived (67) as (17)-(29) with one client (the sum over k of k <= K, Lemma 3 for the noise, (9) and "
        "Assumption 1 for the gradients): consistent, under 4K^2L^2eta_l^2 < 1.",
        "(72) 2K eta_l L <= 1 is Lemma 4's condition at N = 1, printed where the proof of Theorem 3 applies (67).",
    ),
)  # fmt: skip
