r"""Table 2 (App. A): communication complexity -- the SplitServer communication cost to reach accuracy
:math:`\epsilon`, row by row, as models with unit constants.

.. list-table:: Table 2: Comparison of Communication Complexity (as printed)

   * - Method
     - Convergence Rate
     - SplitServer Comm. Cost
     - Assumptions
   * - SFL-V1 [2]
     - :math:`\mathcal O(1/\sqrt T)`
     - :math:`\mathcal O(K/\epsilon^2)`
     - b.g./N.C./non-iid
   * - SFL-V2 [45]
     - :math:`\mathcal O(1/\sqrt{TMK}))`
     - :math:`\mathcal O(K/M\epsilon^2)`
     - b.v./N.C/non-iid
   * - MU-SplitFed (:math:`\tau=1`)
     - :math:`\mathcal O(\sqrt{d/TM})`
     - :math:`\mathcal O(d/M\epsilon^2)`
     -
   * - MU-SplitFed (:math:`\tau>1`)
     - :math:`\mathcal O(\sqrt{d/\tau TM})`
     - :math:`\mathcal O(d/\tau M\epsilon^2)`
     - b.v./N.C/non-iid
   * - MU-SplitFed (:math:`\tau\rightarrow d`)
     - :math:`\mathcal O(\sqrt{1/TM})`
     - :math:`\mathcal O(1/M\epsilon^2)`
     -

The cost is read as the number of rounds for the rate to reach :math:`\epsilon` times the SplitServer exchanges per
round (``K`` local updates for SFL-V1/V2, one for MU-SplitFed): :math:`\sqrt{d/(\tau TM)}\le\epsilon` gives
:math:`T=d/(\tau M\epsilon^2)`. ``a/M\epsilon^2`` is read :math:`a/(M\epsilon^2)`. The MU-SplitFed assumption cell
stands on the middle row only; it spans the three rows (a merged cell). The SFL rows are this paper's account of the
cited works [2] and [45], not results of its own.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Table 2 in App. A (Communication Benefits of Unbalanced Update), discussed in A.1
and A.2.
"""

from __future__ import annotations

from ...assumptions import (
    BOUNDED_GRADIENT,
    BOUNDED_HETEROGENEITY,
    BOUNDED_VARIANCE,
    BOUNDED_VARIANCE_PER_PART_AS,
    SMOOTHNESS_PER_CLIENT,
    Assumption,
)
from ...defaults import Default
from ...result import Discrepancy, Hypothesis, Result, Term
from ._common import KEY, NOTATION_EPS, ONE, K, M, d, eps_target, provenance, tau

LHS = "SplitServer communication cost to reach accuracy epsilon, up to constants (Table 2)"
MU_ASSUMPTIONS = (SMOOTHNESS_PER_CLIENT, BOUNDED_VARIANCE_PER_PART_AS, BOUNDED_HETEROGENEITY)  # b.v./N.C/non-iid


def row(
    label: str,
    n: int,
    method: str,
    cost: Term,
    printed: str,
    rate: str,
    assumptions: tuple[Assumption, ...],
    *,
    notes: tuple[str, ...],
    hypotheses: tuple[Hypothesis, ...] = (),
    defaults: tuple[Default, ...] = (),
    discrepancies: tuple[Discrepancy, ...] = (),
) -> Result:
    """One row of Table 2: the cost as its bound, the rate column as its rate."""
    return Result(
        paper=KEY, label=label, kind="model", title=f"Table 2 row {n}: {method}, SplitServer communication cost (up to constants)",
        provenance=provenance(label=f"Table 2, row {n} ({method})", section="App. A; A.1, A.2"),
        lhs=LHS, terms=(cost,), hypotheses=hypotheses, assumptions=assumptions, statement=printed, rate=rate,
        defaults=defaults, discrepancies=discrepancies, notes=notes, notation=NOTATION_EPS,
    )  # fmt: skip


TAB2_SFL_V1 = row(
    "tab2.sfl_v1", 1, "SFL-V1 [2]", Term(name="communication", expr=K / eps_target**2, meaning="K/epsilon^2"),
    r"\mathcal{O}(K/\epsilon^{2})", r"\mathcal{O}(1/\sqrt{T})", (BOUNDED_GRADIENT,),
    notes=("Assumptions printed b.g./N.C./non-iid: bounded gradients, non-convex, non-i.i.d. data.",
           "1/epsilon^2 rounds at the rate 1/sqrt(T), K SplitServer exchanges each."),
)  # fmt: skip

TAB2_SFL_V2 = row(
    "tab2.sfl_v2", 2, "SFL-V2 [45]", Term(name="communication", expr=K / (M * eps_target**2), meaning="K/(M epsilon^2)"),
    r"\mathcal{O}(K/M\epsilon^{2})", r"\mathcal{O}(1/\sqrt{TMK})", (BOUNDED_VARIANCE,),
    notes=("Assumptions printed b.v./N.C/non-iid: bounded variance, non-convex, non-i.i.d. data.",
           "A.2: 'increasing local updates K actually increases the total communication cost' rests on this K."),
    discrepancies=(
        Discrepancy(
            where="Table 2, row 2 (SFL-V2): cost against its own rate",
            printed=r"\mathcal O(1/\sqrt{TMK}),\ \mathcal O(K/M\epsilon^2)",
            expected=r"\mathcal O(1/M\epsilon^2)\ (T=1/(MK\epsilon^2)\text{ rounds},\ K\text{ exchanges each})",
            note="counted as row 1 counts SFL-V1 (rounds to reach epsilon times K exchanges per round), the rate "
            "1/sqrt(TMK) costs 1/(M epsilon^2), independent of K, not K/(M epsilon^2); the printed rate also has an "
            "unbalanced parenthesis. Encoded as printed.",
        ),
    ),
)  # fmt: skip

TAB2_MU_TAU1 = row(
    "tab2.mu_tau1", 3, "MU-SplitFed, tau = 1", Term(name="communication", expr=d / (M * eps_target**2), meaning="d/(M epsilon^2)"),
    r"\mathcal{O}(d/M\epsilon^{2})", r"\mathcal{O}(\sqrt{d/TM})", MU_ASSUMPTIONS,
    defaults=(Default(name="tau", expr=ONE, rule="the row is MU-SplitFed at tau = 1, balanced updates (Table 2; A.2)"),),
    notes=("Row 4 at tau = 1: sqrt(d/(TM)) <= epsilon at T = d/(M epsilon^2) rounds, one exchange each.",),
)  # fmt: skip

TAB2_MU = row(
    "tab2.mu", 4, "MU-SplitFed, tau > 1", Term(name="communication", expr=d / (tau * M * eps_target**2), meaning="d/(tau M epsilon^2)"),
    r"\mathcal{O}(d/\tau M\epsilon^{2})", r"\mathcal{O}(\sqrt{d/\tau TM})", MU_ASSUMPTIONS,
    hypotheses=(
        Hypothesis(name="tau>1", lhs=tau, rel=">", rhs=ONE, kind="domain", printed=r"\tau>1", where="Table 2, row 4"),
        Hypothesis(name="tau<=d", lhs=tau, rel="<=", rhs=d, kind="domain", printed=r"\tau\le d", source="implicit",
                   where="Corollary 4.4, whose rate the row states", note="the row rests on Corollary 4.4, stated for tau <= d"),
    ),
    notes=("Corollary 4.4's rate sqrt(d/(tau T M)) <= epsilon at T = d/(tau M epsilon^2) rounds, one exchange each: "
           "the linear reduction in tau of A.2.",),
)  # fmt: skip

TAB2_MU_TAUD = row(
    "tab2.mu_taud", 5, "MU-SplitFed, tau -> d", Term(name="communication", expr=ONE / (M * eps_target**2), meaning="1/(M epsilon^2)"),
    r"\mathcal{O}(1/M\epsilon^{2})", r"\mathcal{O}(\sqrt{1/TM})", MU_ASSUMPTIONS,
    hypotheses=(
        Hypothesis(name="tau = d", lhs=tau, rel="==", rhs=d, kind="choice", printed=r"\tau\rightarrow d", where="Table 2, row 5"),
    ),
    defaults=(Default(name="tau", expr=d, rule="the row is the limit tau -> d, 'tau scales to the same order of "
                      "dimensionality d' (Table 2; A.1, A.2)"),),
    notes=("Row 4 at tau = d: the dimension-free cost of A.1.",),
)  # fmt: skip

TAB2: tuple[Result, ...] = (TAB2_SFL_V1, TAB2_SFL_V2, TAB2_MU_TAU1, TAB2_MU, TAB2_MU_TAUD)
