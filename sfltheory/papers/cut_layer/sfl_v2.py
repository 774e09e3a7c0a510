r"""SFL-V2 (one server-side model shared by all clients): the paper proves **no** convergence result.

Sec. 4, after Proposition 1: "Note that the convergence proof of SFL-V2 would require a significantly different
approach, and is left to future work." Sec. 6.1 and Sec. 7 repeat it; Algorithm 2 (App. A.3) describes SFL-V2
without analysis. This catalogue entry records the absence, so that ``sfltheory`` answers "no result" for the
algorithm rather than "unknown".

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024). Seed ``003_60e24e21677c19f3.txt``: Sec. 4 (paragraph after Proposition 1),
Sec. 6.1, Sec. 7.
"""

from __future__ import annotations

from ...result import Result
from ._common import KEY, provenance

SFL_V2 = Result(
    paper=KEY, label="sfl_v2", kind="model", title="SFL-V2 (shared server-side model): no convergence result in this paper",
    provenance=provenance(
        label="Sec. 4, paragraph after Proposition 1", equation=None, section="Sec. 4; also Sec. 6.1 and Sec. 7"
    ),
    lhs="nothing: the paper bounds no quantity for SFL-V2",
    terms=(), statement="", rate=None, explicit=False,
    notes=(
        "Sec. 4, after Proposition 1: 'Note that the convergence proof of SFL-V2 would require a significantly "
        "different approach, and is left to future work.'",
        "Sec. 6.1: 'we lack a theoretical framework explaining why SFL-V2's architecture provides advantages at certain "
        "cut layer selections ... we haven't established theoretical guarantees for the advantage of SFL-V2 over FedAvg.'",
        "Sec. 7 lists 'developing a theoretical framework explaining SFL-V2's improved performance under non-IID "
        "conditions' as future work. The paper's SFL-V2 claims (cut-layer dependence, beating FedAvg) are empirical "
        "(Tables 3-4, Sec. 5.2-5.3).",
        "Appendix B proves Proposition 1 (SFL-V1) only; Algorithm 2 (App. A.3) describes SFL-V2 without analysis.",
    ),
)  # fmt: skip
