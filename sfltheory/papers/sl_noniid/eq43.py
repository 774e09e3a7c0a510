r"""Eq. (43): the one-round inequality that the proof of Theorem 1 averages over the rounds.

Printed in App. D.2 after Lemma 4 is applied to (41) ("Then using :math:`D\le\frac{1}{2B^2+1}` and
:math:`B\ge1`, we get"), with :math:`D=4N^2K^2L^2\eta_l^2`:

.. math::

    \frac{\mathbb E[f(\mathbf x^{r+1})]-f(\mathbf x^r)}{NK\eta_g\eta_l}
    \le-\frac14\|\nabla f(\mathbf x^r)\|^2+NL\eta_g\eta_l\sigma^2+(1+\tfrac{1}{2B^2})\left(N^2KL^2\eta_l^2\sigma^2
    +2N^2K^2L^2\eta_l^2G^2\right)
    \le-\frac14\|\nabla f(\mathbf x^r)\|^2+NL\eta_g\eta_l\sigma^2+\frac32N^2KL^2\eta_l^2\sigma^2+3N^2K^2L^2\eta_l^2G^2.

The tag (43) stands on the second line, which is encoded. "Taking unconditional expectation, rearranging the
terms and then averaging the above equation over :math:`r=\{0,\dots,R-1\}`" gives (44), ``sl_noniid/thm1@proof``:
four times the error terms of (43) are the last three terms of (44), and the telescoped
:math:`f(\mathbf x^r)-\mathbb E f(\mathbf x^{r+1})` gives its first.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: App. D.2 (proof of
Theorem 1), eq. (43), from (41), (42) and Lemma 4.
"""

from __future__ import annotations

from ...result import Result, Term
from . import _common as c
from ._common import G2, K, L, M, eta_g, eta_l, gradnorm2_f, sigma2

EQ43 = Result(
    paper=c.KEY, label="eq43", kind="lemma",
    title="Split learning, progress of all clients in one round: the one-round inequality (43) of Theorem 1's proof",
    provenance=c.provenance(label="Theorem 1, proof", equation="(43)", section="App. D.2, from (41), (42) and Lemma 4"),
    lhs="(E[f(x^{r+1})] - f(x^r))/(N K eta_g eta_l): the expected change of f over round r per unit of effective "
    "step, given x^r (negative when f decreases); the -||grad f(x^r)||^2/4 term is its descent",
    terms=(
        Term(name="descent", expr=-gradnorm2_f / 4, meaning="-(1/4) ||grad f(x^r)||^2"),
        Term(name="global variance", expr=M * L * eta_g * eta_l * sigma2, meaning="N L eta_g eta_l sigma^2"),
        Term(name="client drift (sigma^2)", expr=3 * M**2 * K * L**2 * eta_l**2 * sigma2 / 2, meaning="(3/2) N^2 K L^2 eta_l^2 sigma^2"),
        Term(name="client drift (G^2)", expr=3 * M**2 * K**2 * L**2 * eta_l**2 * G2, meaning="3 N^2 K^2 L^2 eta_l^2 G^2"),
    ),
    hypotheses=c.THM1_PROOF_HYPOTHESES, assumptions=c.T1_ASSUMPTIONS,
    statement=r"\frac{\mathbb E[f(\mathbf x^{r+1})]-f(\mathbf x^r)}{NK\eta_g\eta_l}\le-\frac14\|\nabla f(\mathbf x^r)\|^2+NL\eta_g\eta_l\sigma^2+\frac32N^2KL^2\eta_l^2\sigma^2+3N^2K^2L^2\eta_l^2G^2",
    step="eta_l", defaults=(c.VANILLA_SL, c.SL_EFFECTIVE_ETA_L), discrepancies=(c.SIGMA_DISC,),
    notes=(
        "gradnorm2_f is ||grad f(x^r)||^2 at the global model x^r that starts round r.",
        "(42) -> (43): D <= 1/(2B^2+1) gives 1/(1-D) <= 1 + 1/(2B^2) and D B^2/(1-D) <= 1/2 (hence -1/4); B >= 1 "
        "gives 1 + 1/(2B^2) <= 3/2. We re-derived (41) from (38)-(40) under (46) and (42) from (41) and Lemma 4: "
        "consistent.",
        "Averaged over r = 0..R-1 and multiplied by 4, (43) is (44) (sl_noniid/thm1@proof): 4 N L eta_g eta_l sigma^2, "
        "6 N^2 K L^2 eta_l^2 sigma^2 and 12 N^2 K^2 L^2 eta_l^2 G^2.",
    ),
    notation={"gradnorm2_f": r"\|\nabla f(\mathbf x^r)\|^2"},
)  # fmt: skip
