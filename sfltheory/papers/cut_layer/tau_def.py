r"""The number of local model updates per round, printed under Proposition 1.

Definition (Sec. 4, below (6)):

.. math:: \tau\triangleq\left\lceil\frac{ED_k}{B_k}\right\rceil,

with :math:`E` the number of epochs, :math:`D_k` client :math:`k`'s dataset size and :math:`B_k` its mini-batch.
Proposition 1 and Lemmas 1-2 fill their :math:`\tau` (canonical ``K``) from it when ``E_epochs``, ``D_k`` and
``batch`` are given instead (the default rule ``TAU_FROM_EPOCHS``).

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated
Learning", arXiv:2412.15536 (2024). Seed ``003_60e24e21677c19f3.txt``: Sec. 4, the sentence after eq. (6).
"""

from __future__ import annotations

from ...result import Result, Term
from ._common import D_ONE_TAU, KEY, NOTATION, TAU_EXPR, provenance

TAU_DEF = Result(
    paper=KEY, label="tau_def", kind="model", title="Number of model updates per round",
    provenance=provenance(label="Proposition 1 (definition of tau)", equation=None, section="Sec. 4, below (6)"),
    lhs="tau, the number of local model updates in one round (canonical K)",
    terms=(Term(name="updates per round", expr=TAU_EXPR, meaning="ceil(E D_k / B_k)"),),
    statement=r"\tau\triangleq\left\lceil\frac{ED_k}{B_k}\right\rceil",
    discrepancies=(D_ONE_TAU,),
    notes=("Proposition 1, Lemma 1 and Lemma 2 fill K from this formula when E_epochs, D_k and batch are given instead of K.",),
    notation=NOTATION,
)  # fmt: skip
