r"""Lemma 4 (bounded drift): the client drift of the sequential local updates in one round.

Statement, eq. (16) (App. D.1): for any local learning rate :math:`\eta_l\le\frac{1}{2NKL}`,

.. math::

    \sum_{i=1}^N\sum_{k=0}^{K-1}\mathbb E\left[\|\mathbf x_i^{(r,k)}-\mathbf x^r\|^2\right]
    \le\frac{2N^3K^2\eta_l^2\sigma^2+4N^3K^3\eta_l^2\left(B^2\|\nabla f(\mathbf x^r)\|^2+G^2\right)}{1-4N^2K^2\eta_l^2L^2}.

Its proof, eqs. (17)-(29), divides by :math:`1-4N^2K^2\eta_l^2L^2` "using :math:`4N^2K^2\eta_l^2L^2<1`".

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Lemma 4 and its proof
in App. D.1, eqs. (16)-(29).
"""

from __future__ import annotations

import sympy as sp

from ...result import Discrepancy, Hypothesis, Result, Term, step_branch
from . import _common as c
from ._common import B2, G2, ONE, K, L, M, eta_l, gradnorm2_f, sigma2

D = 4 * M**2 * K**2 * eta_l**2 * L**2  # the D of (42)

LEM4 = Result(
    paper=c.KEY, label="lem4", kind="lemma", title="Bounded client drift of sequential local updates in one round",
    provenance=c.provenance(label="Lemma 4", equation="(16)", section="App. D.1; proof eqs. (17)-(29)"),
    lhs="client drift in round r: sum_{i=1}^{N} sum_{k=0}^{K-1} E||x_i^{(r,k)} - x^r||^2",
    terms=(
        Term(name="variance", expr=2 * M**3 * K**2 * eta_l**2 * sigma2 / (1 - D), meaning="2 N^3 K^2 eta_l^2 sigma^2 / (1 - 4N^2K^2eta_l^2L^2)"),
        Term(
            name="gradient", expr=4 * M**3 * K**3 * eta_l**2 * B2 * gradnorm2_f / (1 - D),
            meaning="4 N^3 K^3 eta_l^2 B^2 ||grad f(x^r)||^2 / (1 - 4N^2K^2eta_l^2L^2)",
        ),
        Term(name="heterogeneity", expr=4 * M**3 * K**3 * eta_l**2 * G2 / (1 - D), meaning="4 N^3 K^3 eta_l^2 G^2 / (1 - 4N^2K^2eta_l^2L^2)"),
    ),
    hypotheses=(
        step_branch("eta_l<=1/(2NKL)", eta_l, ONE / (2 * M * K * L), r"\eta_l\le\frac{1}{2NKL}", where="Lemma 4"),
        Hypothesis(
            name="1-4N^2K^2eta_l^2L^2>0", lhs=1 - D, rel=">", rhs=sp.Integer(0), kind="validity",
            printed=r"4N^2K^2\eta_l^2L^2<1", source="proof",
            where="App. D.1, after eq. (29) ('Using 4N^2K^2eta_l^2L^2 < 1 and dividing')",
            note="the denominator of (16); the statement's eta_l <= 1/(2NKL) allows it to vanish",
        ),
    ),
    assumptions=c.T1_ASSUMPTIONS,
    statement=r"\sum_{i=1}^N\sum_{k=0}^{K-1}\mathbb E\|\mathbf x_i^{(r,k)}-\mathbf x^r\|^2\le\frac{2N^3K^2\eta_l^2\sigma^2+4N^3K^3\eta_l^2(B^2\|\nabla f(\mathbf x^r)\|^2+G^2)}{1-4N^2K^2\eta_l^2L^2}",
    step="eta_l",
    discrepancies=(
        Discrepancy(where="Lemma 4 condition vs its proof", printed=r"\eta_l\le\frac{1}{2NKL}", expected=r"\eta_l<\frac{1}{2NKL}",
            note="at eta_l = 1/(2NKL) the denominator 1 - 4N^2K^2eta_l^2L^2 of (16) is 0; the proof divides by it " "'using 4N^2K^2eta_l^2L^2 < 1'. Theorem 1's branches keep eta_l strictly below (B >= 1)."),
        c.SIGMA_DISC,
    ),
    notes=("We re-derived (20)-(29) (sum_i i^2 <= N^3, sum_i i <= N^2) and found them consistent.",),
)  # fmt: skip
