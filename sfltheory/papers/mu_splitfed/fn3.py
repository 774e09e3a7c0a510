r"""Footnote 3 (Sec. 4.1, in the Discussion of Corollary 4.2): communication rounds to attain accuracy
:math:`\varepsilon`.

Printed: "To attain :math:`\varepsilon` accuracy for an algorithm, it needs :math:`\mathcal O(\frac{1}{\varepsilon^2})`
communication rounds with a convergence rate :math:`\mathcal O(\frac{1}{\sqrt T})`, while needing
:math:`\mathcal O(\frac{1}{\tau\varepsilon^2})` rounds if the convergence rate is :math:`\mathcal O(\frac{1}{\sqrt{\tau
T}})`. In this sense, one achieves a linear speedup with respect to :math:`\tau`."

Encoded as the count :math:`1/(\tau\varepsilon^2)` with unit constants; :math:`\tau=1` is the footnote's first case.
The footnote's rate carries no :math:`d`; with Corollary 4.2's :math:`\sqrt{d/(\tau T)}` the count is
:math:`d/(\tau\varepsilon^2)` (Table 2's ``tab2.mu`` at :math:`M=1`).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: footnote 3, attached to "linear speedup in term of tau" after (9), Sec. 4.1.
"""

from __future__ import annotations

from ...result import Result, Term
from ._common import KEY, NOTATION_EPS, ONE, eps_target, provenance, tau

FN3 = Result(
    paper=KEY, label="fn3", kind="model", title="Footnote 3: rounds to attain accuracy epsilon at the rate O(1/sqrt(tau T))",
    provenance=provenance(label="footnote 3", section="Sec. 4.1, Discussion of Corollary 4.2"),
    lhs="communication rounds to attain accuracy epsilon at the convergence rate O(1/sqrt(tau T)), up to constants",
    terms=(Term(name="rounds", expr=ONE / (tau * eps_target**2), meaning="1/(tau epsilon^2)"),),
    statement=r"\mathcal{O}(\frac{1}{\tau\varepsilon^{2}})", rate=r"\mathcal{O}(\frac{1}{\tau\varepsilon^{2}})",
    notes=("tau = 1 gives the footnote's O(1/epsilon^2) rounds at the rate O(1/sqrt(T)).",
           "eps_target is the accuracy epsilon on the averaged E||grad f||^2 (not the heterogeneity eps2)."),
    notation=NOTATION_EPS,
)  # fmt: skip
