r"""Sec. 4.3, "The guarantee of SL is worse than FL in terms of training rounds on non-IID data": the two
displays at the effective learning rate :math:`\tilde\eta_{FL}=\tilde\eta_{SL}=1/\sqrt R`.

As printed: "we can choose :math:`\tilde{\eta}_{FL}=\tilde{\eta}_{SL}=1/\sqrt{R}` for both bounds (see the 3-rd
and 5-th rows in Table 1). Then we get: (i)
:math:`\mathcal{O}\left(\frac{F}{\sqrt{R}}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{NK\sqrt{R}}\right)` of FL and (ii)
:math:`\mathcal{O}\left(\frac{F}{\sqrt{R}}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{K\sqrt{R}}\right)` of SL after R
rounds". As models with unit constants (Table 1's convention, :math:`\eta_g=1`): ``sec4.3.fl`` (i) and
``sec4.3.sl`` (ii).

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Sec. 4.3, displays (i)
and (ii) after Table 1.
"""

from __future__ import annotations

import sympy as sp

from ...defaults import Default
from ...result import Hypothesis, Result, Term
from . import _common as c
from ._common import G2, ONE, F, K, M, T, eta_tilde, sigma2

CHOICE = Default(
    name="eta_tilde", expr=ONE / sp.sqrt(T), rule="Sec. 4.3's choice eta_tilde_FL = eta_tilde_SL = 1/sqrt(R)"
)


def _display(label: str, item: str, who: str, var_term: Term, rate: str) -> Result:
    return Result(
        paper=c.KEY, label=label, kind="model",
        title=f"Sec. 4.3 display ({item}): {who} after R rounds at eta_tilde = 1/sqrt(R) (up to constants)",
        provenance=c.provenance(
            label=f"Sec. 4.3, display ({item})", section="Sec. 4.3, 'The guarantee of SL is worse than FL in terms of training rounds'"
        ),
        lhs=f"E||grad f(xbar^R)||^2 for {who} after R rounds, up to constants",
        terms=(
            Term(name="initialisation", expr=F / sp.sqrt(T), meaning="F/sqrt(R)"),
            Term(name="client drift", expr=(K * G2 + sigma2) / (K * T), meaning="(K G^2 + sigma^2)/(K R)"),
            var_term,
        ),
        hypotheses=(
            Hypothesis(
                name="choice eta_tilde = 1/sqrt(R)", lhs=eta_tilde, rel="==", rhs=ONE / sp.sqrt(T), kind="choice",
                printed=r"\tilde\eta_{FL}=\tilde\eta_{SL}=1/\sqrt R", where="Sec. 4.3",
            ),
            c.ETA_G_1,
            *c.eff_steps("Sec. 4.3, at eta_tilde = 1/sqrt(R)"),
        ),
        assumptions=c.T1_ASSUMPTIONS, statement=rate, rate=rate, step="eta_tilde", defaults=(c.TABLE1_ETA_G, CHOICE), notes=(c.TAB1_NOTE,),
    )  # fmt: skip


SEC43_FL = _display(
    "sec4.3.fl", "i", "FedAvg",
    Term(name="global variance", expr=sigma2 / (M * K * sp.sqrt(T)), meaning="sigma^2/(N K sqrt(R))"),
    r"\mathcal O\left(\frac{F}{\sqrt R}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{NK\sqrt R}\right)",
)  # fmt: skip
SEC43_SL = _display(
    "sec4.3.sl", "ii", "split learning",
    Term(name="global variance", expr=sigma2 / (K * sp.sqrt(T)), meaning="sigma^2/(K sqrt(R))"),
    r"\mathcal O\left(\frac{F}{\sqrt R}+\frac{KG^2+\sigma^2}{KR}+\frac{\sigma^2}{K\sqrt R}\right)",
)  # fmt: skip
