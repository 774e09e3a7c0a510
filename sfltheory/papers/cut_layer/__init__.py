r"""The impact of cut layer selection in SFL (SFL-V1 and SFL-V2).

Reference: Justin Dachille, Chao Huang, Xin Liu (University of California, Davis; Montclair State University),
"The Impact of Cut Layer Selection in Split Federated Learning", arXiv:2412.15536, December 2024. The seed
(``shared/seeds/003_60e24e21677c19f3.txt``) prints the authors and the title but no venue, year or arXiv id; the
arXiv id and date are those of researchtrend.ai/papers/2412.15536 and sciencestack.ai/paper/2412.15536, the
affiliations those of chatpaper.com/chatpaper/paper/93611.

The paper analyses SFL-V1 (one server-side model per client, aggregated every round) and shows that its
convergence bound does not depend on the cut layer :math:`L_c`. Results, one module each:

* ``prop1`` (:mod:`.prop1`): Proposition 1, eq. (6) (Sec. 4), SFL-V1 for any cut layer; restated as (28).
  ``@proof``: the one-round descent inequality (26) (App. B.4). ``@round``: (26) rearranged, (27) (App. B.4).
* ``lem1`` (:mod:`.lem1`): Lemma 1, eq. (7) (App. B.1), drift of the local model over tau local iterations.
* ``lem2`` (:mod:`.lem2`): Lemma 2, eq. (11) (App. B.1), drift of the stochastic gradients over tau iterations.
* ``tau_def`` (:mod:`.tau_def`): :math:`\tau\triangleq\lceil ED_k/B_k\rceil`, printed under Proposition 1.
* ``sfl_v2`` (:mod:`.sfl_v2`): the paper gives **no** convergence result for SFL-V2 ("left to future work").

Notation (paper -> canonical): smoothness :math:`S` -> ``L``; clients :math:`K` -> ``M``; local iterations per
round :math:`\tau` -> ``K``; mini-batch :math:`B_k` -> ``batch``; step :math:`\eta^t` -> ``eta``. Beware: the
paper's ``K`` (clients) is the canonical ``M`` and the paper's ``tau`` is the canonical ``K`` (canonical ``tau``
counts server steps and is not used here).

Conventions:

* losses are means (:math:`F_k(\theta)=\mathbb E_{B_k}F_k(\theta,B_k)`), :math:`f=\sum_k\alpha_kF_k` with
  :math:`\alpha_k=D_k/\sum_{k'}D_{k'}` (Sec. 3 after (1); Algorithm 1, line 34), so :math:`\sum_k\alpha_k=1` and
  ``sum_alpha2`` :math:`=\sum_k\alpha_k^2\in[1/M,1]`; it defaults to ``1/M`` (equal dataset sizes).
* ``F`` is :math:`f(\theta(0))-f(\theta^*)` exactly as printed.
* the paper allows a time-varying step :math:`\eta^t`; we encode a constant one (:math:`\eta^t=\eta`), so
  :math:`\frac1T\sum_t(\eta^t)^2=\eta^2`. The left-hand side of (6) is then
  :math:`\eta\cdot\frac1T\sum_t\mathbb E\|\nabla f(\theta(t))\|^2` -- *eta times* the average squared gradient
  norm, as printed (divide by ``eta`` for the average itself).
* the per-client variances enter as :math:`\sum_k\alpha_k^2\sigma_k^2`; ``sigma2`` here is their
  :math:`\alpha_k^2`-weighted mean :math:`\sum_k\alpha_k^2\sigma_k^2/\sum_k\alpha_k^2` (any common upper bound on
  the :math:`\sigma_k^2` also works), so the printed term is exact. In the lemmas, which concern one client
  ``k``, ``sigma2`` is that client's :math:`\sigma_k^2`.
* the per-round bounds depend on the state of the round: ``gradnorm2_f`` is :math:`\|\nabla_\theta f(\theta^t)\|^2`,
  ``gradnorm2_Fk`` is :math:`\|\nabla_\theta F_k(\theta^t)\|^2`; the one-round decrease
  :math:`f(\theta^t)-\mathbb E[f(\theta^{t+1})]` of (27) is ``gap_round - gap_next``, the optimality gaps
  :math:`f(\theta^t)-f(\theta^*)` and :math:`\mathbb E[f(\theta^{t+1})]-f(\theta^*)`.
"""

from __future__ import annotations

from ...result import Result
from ._common import (
    ASSUMPTIONS,
    BOUNDED_VARIANCE_PER_CLIENT,
    DEFAULTS,
    KEY,
    LIPSCHITZ_STOCHASTIC_GRADIENTS,
    NONCONVEX,
    NOTATION,
    PARAMS,
    REFERENCE,
    SEED,
    SMOOTHNESS_UPPER_QUADRATIC,
)
from .lem1 import LEM1
from .lem2 import LEM2
from .prop1 import PROP1, PROP1_PROOF, PROP1_ROUND
from .sfl_v2 import SFL_V2
from .tau_def import TAU_DEF

PAPER = KEY  # the old module's name for the key
TITLE = "The impact of cut layer selection in SFL (SFL-V1 / SFL-V2)"

RESULTS: tuple[Result, ...] = (PROP1, PROP1_PROOF, PROP1_ROUND, LEM1, LEM2, TAU_DEF, SFL_V2)

# canonical name -> the symbol as the paper prints it (LaTeX), for every result of the paper
PAPER_NOTATION: dict[str, str] = {
    "L": "S",
    "M": "K",
    "K": "\\tau",
    "batch": "B_k",
    "eta": "\\eta^t",
    "sigma2": "\\sigma_k^2",
}
# ASCII spellings a user may type for the paper's symbols -> canonical name (one that spells a canonical
# name is never used: see vocabulary.aliases_for)
ASCII_ALIASES: dict[str, str] = {
    "S": "L",
    "B_k": "batch",
    "eta_t": "eta",
    "sigma_k2": "sigma2",
    "E": "E_epochs",
}

__all__ = [
    "ASCII_ALIASES",
    "ASSUMPTIONS",
    "BOUNDED_VARIANCE_PER_CLIENT",
    "DEFAULTS",
    "KEY",
    "LEM1",
    "LEM2",
    "LIPSCHITZ_STOCHASTIC_GRADIENTS",
    "NONCONVEX",
    "NOTATION",
    "PAPER",
    "PAPER_NOTATION",
    "PARAMS",
    "PROP1",
    "PROP1_PROOF",
    "PROP1_ROUND",
    "REFERENCE",
    "RESULTS",
    "SEED",
    "SFL_V2",
    "SMOOTHNESS_UPPER_QUADRATIC",
    "TAU_DEF",
    "TITLE",
]
