r"""Eq. (12): the straggler-resilient communication time.

Statement (Sec. 4.2, "Straggler resilient communication time"): with :math:`T_0` the rounds required for
convergence and :math:`t_{\mathrm{straggler}}` the delay of the straggler, parallel SFL spends
:math:`T_0t_{\mathrm{straggler}}`. If the server performs :math:`\tau=t_{\mathrm{straggler}}/t_{\mathrm{server}}`
local iterations per round, Corollary 4.4 reduces the rounds to :math:`T_1=T_0/\tau`, so

.. math::

    T_1\cdot t_{\mathrm{straggler}}=T_0\cdot t_{\mathrm{straggler}}/\tau=T_0\cdot t_{\mathrm{server}}.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: (12) in Sec. 4.2, after the Discussion of Corollary 4.4.
"""

from __future__ import annotations

from ...defaults import Default
from ...result import Hypothesis, Result, Term
from ._common import KEY, T0, provenance, t_server, t_straggler, tau

EQ12 = Result(
    paper=KEY, label="eq12", kind="model", title="Straggler-resilient communication time",
    provenance=provenance(label="eq. (12)", equation="(12)", section="Sec. 4.2, 'Straggler resilient communication time'"),
    lhs="total straggler-induced time T_1 t_straggler, with T_1 = T_0/tau rounds",
    terms=(Term(name="total time", expr=T0 * t_straggler / tau, meaning="T_1 t_straggler = T_0 t_straggler / tau"),),
    hypotheses=(
        Hypothesis(
            name="tau = t_straggler/t_server", lhs=tau, rel="==", rhs=t_straggler / t_server, kind="coupling",
            printed=r"\tau=t_{\mathrm{straggler}}/t_{\mathrm{server}}", where="Sec. 4.2", atol=0.5, rtol=0.0,
            note="holds when tau is the integer nearest the ratio; then the time is about T_0 t_server",
        ),
    ),
    statement=r"T_1t_{\mathrm{straggler}}=T_0t_{\mathrm{straggler}}/\tau=T_0t_{\mathrm{server}}",
    defaults=(
        Default(name="tau", expr=t_straggler / t_server, rule="the server performs tau = t_straggler/t_server local "
                "iterations during each round (Sec. 4.2, before (12)); kept as the ratio, a real number: (12)'s "
                "identity T_0 t_straggler/tau = T_0 t_server holds at the ratio itself (the planner's balance tau "
                "reads the same), and the coupling accepts the nearest integer", rounding="none"),
    ),
    notes=(
        "T_1 = T_0/tau relies on Corollary 4.4's linear speedup in tau; the bound's tau-free terms "
        "((12 eps^2 + 4 sigma_c^2)/sqrt(TM)) do not speed up, so the planner compares this with the bound-optimal tau.",
    ),
)  # fmt: skip
