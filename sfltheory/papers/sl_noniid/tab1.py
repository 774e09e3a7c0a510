r"""Table 1 (Sec. 4.3): FL (Wang et al., 2020; Theorem 2) against SL (Theorem 1), up to constants.

Caption: "The convergence guarantee of FL is given in the 1-st (upper bound) and 2-th (constraints on
:math:`\eta_l`) rows. The effective learning rate versions are shown in the 3-rd (FL) and 5-th (SL) row. The
number of rounds required to reach :math:`\epsilon` accuracy is given in the 4-th (FL) and 6-th (SL) rows.
[...] Constants (including L) are omitted. :math:`\eta_g` is set to :math:`\eta_g=1`." The rows:

.. math::

    \text{1-2 (FL)}\quad&\mathcal O\left(\frac{F}{\eta_lKR}\right)+\mathcal O\left(\eta_l^2K^2G^2+\eta_l^2K\sigma^2\right)
        +\mathcal O\left(\frac{\eta_l\sigma^2}{N}\right),\quad
        \eta_l\le\frac{1}{2KL}\min\left\{\frac{1}{\sqrt{2B^2+1}},\frac{1}{\eta_g}\right\}\\
    \text{3 (FL)}\quad&\mathcal O\left(\frac{F}{\tilde\eta_{FL}R}\right)+\mathcal O\left(\tilde\eta_{FL}^2G^2
        +\frac{\tilde\eta_{FL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{FL}\sigma^2}{NK}\right)\\
    \text{4 (FL)}\quad&R_\epsilon=\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{N^2K^2\epsilon^2}
        +\frac{KG^2+\sigma^2}{K\epsilon}\right)\\
    \text{5 (SL)}\quad&\mathcal O\left(\frac{F}{\tilde\eta_{SL}R}\right)+\mathcal O\left(\tilde\eta_{SL}^2G^2
        +\frac{\tilde\eta_{SL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{SL}\sigma^2}{K}\right)\\
    \text{6 (SL)}\quad&R_\epsilon=\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{K^2\epsilon^2}
        +\frac{KG^2+\sigma^2}{K\epsilon}\right)

with :math:`\tilde\eta_{FL}:=K\eta_g\eta_l` and :math:`\tilde\eta_{SL}:=NK\eta_g\eta_l` (Sec. 4.3). As models with
unit constants: ``tab1.fl`` (rows 1-2), ``tab1.fl_eff`` (row 3), ``tab1.fl_reps`` (row 4), ``tab1.sl_eff`` (row 5),
``tab1.sl_reps`` (row 6).

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Table 1, Sec. 4.3.
"""

from __future__ import annotations

import sympy as sp

from ...defaults import Default
from ...result import Hypothesis, Result, Term
from . import _common as c
from ._common import G2, F, K, M, T, eps_target, eta_g, eta_l, eta_tilde, sigma2

SECTION = "Sec. 4.3, Table 1"
ROWS_1_2 = r"\mathcal O\left(\frac{F}{\eta_lKR}\right)+\mathcal O\left(\eta_l^2K^2G^2+\eta_l^2K\sigma^2\right)+\mathcal O\left(\frac{\eta_l\sigma^2}{N}\right)"


TAB1_FL = Result(
    paper=c.KEY, label="tab1.fl", kind="model", title="Table 1 rows 1-2: FedAvg bound and step-size constraint (up to constants)",
    provenance=c.provenance(label="Table 1, rows 1-2", section=SECTION), lhs="E||grad f(xbar^R)||^2 for FedAvg, up to constants",
    terms=(
        Term(name="initialisation", expr=F / (eta_l * K * T), meaning="F/(eta_l K R)"),
        Term(name="client drift (G^2)", expr=eta_l**2 * K**2 * G2, meaning="eta_l^2 K^2 G^2"),
        Term(name="client drift (sigma^2)", expr=eta_l**2 * K * sigma2, meaning="eta_l^2 K sigma^2"),
        Term(name="global variance", expr=eta_l * sigma2 / M, meaning="eta_l sigma^2/N"),
    ),
    hypotheses=(*c.thm2_steps("Table 1, row 2"), c.ETA_G_1), assumptions=c.T1_ASSUMPTIONS,
    statement=ROWS_1_2, rate=ROWS_1_2,
    step="eta_l", defaults=(c.TABLE1_ETA_G,), notes=(c.TAB1_NOTE, "The explicit version is sl_noniid/thm2 at eta_g = 1."),
)  # fmt: skip


def _eff(label: str, row: str, who: str, coupling: sp.Expr, shown: str, var_term: Term, rate: str) -> Result:
    """Rows 3 and 5: the bound in the effective learning rate eta_tilde = ``coupling``."""
    return Result(
        paper=c.KEY, label=label, kind="model", title=f"Table 1 row {row}: {who} bound in its effective learning rate (up to constants)",
        provenance=c.provenance(label=f"Table 1, row {row}", section=SECTION), lhs=f"E||grad f(xbar^R)||^2 for {who}, up to constants",
        terms=(
            Term(name="initialisation", expr=F / (eta_tilde * T), meaning="F/(eta_tilde R)"),
            Term(name="client drift (G^2)", expr=eta_tilde**2 * G2, meaning="eta_tilde^2 G^2"),
            Term(name="client drift (sigma^2)", expr=eta_tilde**2 * sigma2 / K, meaning="eta_tilde^2 sigma^2/K"),
            var_term,
        ),
        hypotheses=(
            Hypothesis(
                name=f"eta_tilde = {shown}", lhs=eta_tilde, rel="==", rhs=coupling, kind="coupling", printed=rf"\tilde\eta:={shown}",
                where="Sec. 4.3 ('we define the effective learning rate')",
            ),
            c.ETA_G_1,
            *c.eff_steps(f"Sec. 4.3 (Table 1, row {row})"),
        ),
        assumptions=c.T1_ASSUMPTIONS, statement=rate, rate=rate, step="eta_tilde",
        defaults=(
            c.TABLE1_ETA_G,
            Default(name="eta_tilde", expr=coupling, rule=f"{who}'s effective learning rate eta_tilde := {shown} (Sec. 4.3)"),
            Default(name="eta_l", expr=eta_tilde / sp.cancel(coupling / eta_l), rule=f"eta_tilde := {shown} (Sec. 4.3) solved for eta_l"),
        ),
        notes=(c.TAB1_NOTE,),
    )  # fmt: skip


def _reps(label: str, row: str, who: str, var_term: Term, rate: str) -> Result:
    """Rows 4 and 6: the rounds to reach epsilon."""
    return Result(
        paper=c.KEY, label=label, kind="model", title=f"Table 1 row {row}: rounds for {who} to reach epsilon (up to constants)",
        provenance=c.provenance(label=f"Table 1, row {row}", section=SECTION),
        lhs=f"R_epsilon, rounds for {who} to reach E||grad f(xbar^R)||^2 <= epsilon, up to constants",
        terms=(
            Term(name="initialisation", expr=F**2 / eps_target**2, meaning="F^2/epsilon^2"),
            var_term,
            Term(name="client drift", expr=(K * G2 + sigma2) / (K * eps_target), meaning="(K G^2 + sigma^2)/(K epsilon)"),
        ),
        assumptions=c.T1_ASSUMPTIONS, statement=rf"R_\epsilon={rate}", rate=rate,
        notes=(
            c.TAB1_NOTE,
            "Obtained at eta_tilde = 1/sqrt(R) (Sec. 4.3), each term of the bound at most epsilon; the FL/SL difference is the second term.",
        ),
    )  # fmt: skip


TAB1_FL_EFF = _eff(
    "tab1.fl_eff", "3", "FedAvg", K * eta_g * eta_l, "K eta_g eta_l",
    Term(name="global variance", expr=eta_tilde * sigma2 / (M * K), meaning="eta_tilde sigma^2/(N K)"),
    r"\mathcal O\left(\frac{F}{\tilde\eta_{FL}R}\right)+\mathcal O\left(\tilde\eta_{FL}^2G^2+\frac{\tilde\eta_{FL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{FL}\sigma^2}{NK}\right)",
)  # fmt: skip
TAB1_FL_REPS = _reps(
    "tab1.fl_reps", "4", "FedAvg",
    Term(name="variance", expr=sigma2**2 / (M**2 * K**2 * eps_target**2), meaning="sigma^4/(N^2 K^2 epsilon^2)"),
    r"\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{N^2K^2\epsilon^2}+\frac{KG^2+\sigma^2}{K\epsilon}\right)",
)  # fmt: skip
TAB1_SL_EFF = _eff(
    "tab1.sl_eff", "5", "split learning", M * K * eta_g * eta_l, "N K eta_g eta_l",
    Term(name="global variance", expr=eta_tilde * sigma2 / K, meaning="eta_tilde sigma^2/K: N times FedAvg's"),
    r"\mathcal O\left(\frac{F}{\tilde\eta_{SL}R}\right)+\mathcal O\left(\tilde\eta_{SL}^2G^2+\frac{\tilde\eta_{SL}^2\sigma^2}{K}\right)+\mathcal O\left(\frac{\tilde\eta_{SL}\sigma^2}{K}\right)",
)  # fmt: skip
TAB1_SL_REPS = _reps(
    "tab1.sl_reps", "6", "split learning",
    Term(name="variance", expr=sigma2**2 / (K**2 * eps_target**2), meaning="sigma^4/(K^2 epsilon^2): N^2 times FedAvg's"),
    r"\mathcal O\left(\frac{F^2}{\epsilon^2}+\frac{\sigma^4}{K^2\epsilon^2}+\frac{KG^2+\sigma^2}{K\epsilon}\right)",
)  # fmt: skip
