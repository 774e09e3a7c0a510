r"""Eq. (69): the per-client inequality that the proof of Theorem 3 averages over clients and rounds.

Printed in App. D.4 after the drift bound (67) is applied to (66) ("Then using :math:`D\le\frac15`
(:math:`\frac{1}{1-D}\le\frac54`) and :math:`B\ge1`, we get"), with :math:`D=4K^2L^2\eta_l^2`:

.. math::

    \frac{\mathbb E\left[f(\mathbf x_{i+1}^{(r,0)})-f(\mathbf x_i^{(r,0)})\right]}{K\eta_l}
    \le-\frac14\|\nabla f(\mathbf x_i^{(r,0)})\|^2+L\eta_l\sigma^2+G^2+\frac52KL^2\eta_l^2\sigma^2+10K^2L^2\eta_l^2G^2.

"Taking unconditional expectation, rearranging the terms and then averaging the above equation over
:math:`i=\{1,\dots,N\}, r=\{0,\dots,R-1\}`" gives (70), which restates (53) (``sl_noniid/thm3``): four times the
error terms of (69) are the last four terms of (53). It follows from the printed (68) -- whose coefficient of
:math:`\|\nabla f(\mathbf x_i^{(r,0)})\|^2` is wrong, so its :math:`-\frac14` needs :math:`D\le\frac19`, not
:math:`\frac15` (the discrepancy "App. D.4, eq. (68)").

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: App. D.4 (proof of
Theorem 3), eq. (69), from (66), (67) and (68).
"""

from __future__ import annotations

from ...result import Result, Term
from . import _common as c
from ._common import K, L, eps2, eta_l, gradnorm2_f, sigma2

EQ69 = Result(
    paper=c.KEY, label="eq69", kind="lemma",
    title="Split learning, progress of one client in one round: the per-client inequality (69) of Theorem 3's proof",
    provenance=c.provenance(label="Theorem 3, proof", equation="(69)", section="App. D.4, from (66), (67) and (68)"),
    lhs="(E[f(x_{i+1}^{(r,0)}) - f(x_i^{(r,0)})])/(K eta_l): the expected change of f over client i's K local steps "
    "in round r per unit of K eta_l, given x_i^{(r,0)} (negative when f decreases); the -||grad f(x_i^{(r,0)})||^2/4 "
    "term is its descent",
    terms=(
        Term(name="descent", expr=-gradnorm2_f / 4, meaning="-(1/4) ||grad f(x_i^{(r,0)})||^2"),
        Term(name="variance", expr=L * eta_l * sigma2, meaning="L eta_l sigma^2"),
        Term(name="heterogeneity floor", expr=eps2, meaning="G^2 (Assumption 4's, = eps2): does not vanish with eta_l"),
        Term(name="client drift (sigma^2)", expr=5 * K * L**2 * eta_l**2 * sigma2 / 2, meaning="(5/2) K L^2 eta_l^2 sigma^2"),
        Term(name="client drift (G^2)", expr=10 * K**2 * L**2 * eta_l**2 * eps2, meaning="10 K^2 L^2 eta_l^2 G^2"),
    ),
    hypotheses=c.THM3_STEPS, assumptions=c.T3_ASSUMPTIONS,
    statement=r"\frac{\mathbb E\left[f(\mathbf x_{i+1}^{(r,0)})-f(\mathbf x_i^{(r,0)})\right]}{K\eta_l}\le-\frac14\|\nabla f(\mathbf x_i^{(r,0)})\|^2+L\eta_l\sigma^2+G^2+\frac52KL^2\eta_l^2\sigma^2+10K^2L^2\eta_l^2G^2",
    step="eta_l", defaults=(c.THM3_DEFAULT_ETA_L,), discrepancies=(*c.THM3_PROOF_DISCREPANCIES, c.SIGMA_DISC),
    notation={"eps2": "G^2", "gradnorm2_f": r"\|\nabla f(\mathbf x_i^{(r,0)})\|^2"},
    notes=(
        "gradnorm2_f is ||grad f(x_i^{(r,0)})||^2, the global objective's gradient at the model client i starts from.",
        "(68) -> (69) as printed: D <= 1/5 gives 1/(1-D) <= 5/4, 2D/(1-D) <= 1/2 (hence -1/4), 2D/(1-D) G^2 <= 10 K^2 L^2 "
        "eta_l^2 G^2 and 2 K L^2 eta_l^2 sigma^2/(1-D) <= (5/2) K L^2 eta_l^2 sigma^2. With the corrected (68), "
        "-(1/2)(1 - 4D/(1-D)) is -1/4 only for D <= 1/9, where the coefficients 10 and 5/2 still hold (9 and 9/4).",
        "No global step enters: x_{i+1}^{(r,0)} - x_i^{(r,0)} = -eta_l sum_k g_i (55), read for i = N as x_N^{(r,K)} - "
        "x_N^{(r,0)}; only the telescoping of (70) needs eta_g = 1 (sl_noniid/thm3).",
        "Averaged over (i, r) and multiplied by 4, (69) is (70) = (53): 4 L eta_l sigma^2, 4 G^2, 10 K L^2 eta_l^2 "
        "sigma^2 and 40 K^2 L^2 eta_l^2 G^2.",
    ),
)  # fmt: skip
