r"""MU-SplitFed: straggler-resilient split federated learning with unbalanced updates.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang (Rochester Institute of Technology;
Purdue University), "Towards Straggler-Resilient Split Federated Learning: An Unbalanced Update Approach",
NeurIPS 2025 (poster), arXiv:2510.21155 (submitted 24 October 2025). The seed
(``shared/seeds/000_0fb66116fc20c956.txt``) prints the authors, affiliations and title but no venue, year or arXiv id:
the arXiv id and date are those of the arXiv abstract page (as mirrored at h5.bingheai.cn/abs/2510.21155), the venue
that of openreview.net/forum?id=MOAmJKj2Uc ("NeurIPS 2025 poster") and paperjam.ai/neurips25/papers/118472.

The server takes :math:`\tau` zeroth-order steps per round, the clients one; MU-Split is the one-client case.
Results, one module each (editions with their result):

* ``thm4.1`` (:mod:`.thm4_1`): Theorem 4.1 (MU-Split), eq. (8), Sec. 4.1; restated as Theorem C.1, (18), identically.
  ``@proof``: the last display of App. C.1.3 (general ``P``), which differs from the statement.
* ``eq24`` (:mod:`.eq24`): the one-round descent inequality (24), App. C.1.3, that the proof of Theorem 4.1 sums.
* ``lemmaB.1`` and ``lemmaB.1.bias`` (:mod:`.lemmaB_1`): Lemma B.1, App. B.3: the second moment (14) and the gradient
  bias (13) of the two-point zeroth-order estimator.
* ``lemmaC.2`` (:mod:`.lemmaC_2`): Lemma C.2, eq. (25), App. C.2: variance of the server's estimator (one client).
* ``lemmaC.3`` (:mod:`.lemmaC_3`): Lemma C.3, eq. (28), App. C.2: its second moment.
* ``lemmaC.4`` (:mod:`.lemmaC_4`): Lemma C.4, App. C.2: the server's drift over the :math:`\tau` steps of a round.
* ``cor4.2`` (:mod:`.cor4_2`): Corollary 4.2, eq. (9); ``@proof``: the first display of App. C.1.4 (any split).
* ``fn3`` (:mod:`.fn3`): footnote 3 (Sec. 4.1): rounds to attain accuracy :math:`\varepsilon`, :math:`1/(\tau\varepsilon^2)`.
* ``thm4.3`` (:mod:`.thm4_3`): Theorem 4.3 (M clients), eq. (10), Sec. 4.2; ``@appendix``: Theorem D.1, eq. (32),
  another first step-size branch; ``@proof``: eq. (33) with ``P`` and the conditions the proof states.
* ``lemmaD.2`` (:mod:`.lemmaD_2`): Lemma D.2, eq. (34), App. D.2: variance of client m's server-side estimator.
* ``lemmaD.3`` (:mod:`.lemmaD_3`): Lemma D.3, App. D.2: client m's server-side drift over a round.
* ``cor4.4`` (:mod:`.cor4_4`): Corollary 4.4, eq. (11); ``@proof``: the first display of App. D.1.4.
* ``tab2.sfl_v1``, ``tab2.sfl_v2``, ``tab2.mu_tau1``, ``tab2.mu``, ``tab2.mu_taud`` (:mod:`.tab2`): the five rows of
  Table 2 (App. A), the SplitServer communication cost to reach :math:`\epsilon`, with unit constants.
* ``eq12`` (:mod:`.eq12`): the straggler time model of eq. (12), Sec. 4.2.

Not encoded: Table 3 (App. B.1) lists notation only, no formula; Tables 1, 4, 5 and 6 report experiments and
hyperparameters (Sec. 5, App. E, F); Remark B.1's (15)-(16) are (13) squared, used inside the proofs.

Notation: the paper's :math:`\mathcal F`, :math:`\lambda`, :math:`\epsilon^2` (heterogeneity) are ``F``, ``lam``,
``eps2``; the accuracy :math:`\varepsilon` of footnote 3 and Table 2 is ``eps_target``. The lemmas and (24) are stated
in the state of one round, the paper's own names (``PARAMS``): ``gradnorm2_xs`` :math:`=\mathbb E\|\nabla_{x_s}
f(\mathbf x^t)\|^2`, ``drift_xs`` :math:`=\mathbb E\|x_s^{t,i}-x_s^t\|^2`, ``gradnorm2_lam_xs`` :math:`=\mathbb E\|
\nabla_{x_s}f_\lambda^t(x_c^t,x_s^{t,i})\|^2` and ``descent_round`` :math:`=\mathbb E[f(\mathbf x^t)-f(\mathbf
x^{t+1})]`.

Conventions: :math:`\mathcal F = \mathbb E[f(x^0) - f(x^T)]` in the paper; the canonical ``F`` is
:math:`f(x^0) - f^*`, which is no smaller, so the bounds stay valid with it. The left-hand side is printed
as :math:`\frac1T\sum_{t=0}^{T}` (T+1 terms over T) while the proofs average t = 0..T-1.
"""

from __future__ import annotations

from ...result import Result
from ._common import (
    KEY,
    PARAMS,
    REFERENCE,
    SEED,
    SPLIT_COR42,
    SPLIT_COR42_PROOF,
    SPLIT_COR44,
    TITLE,
)
from .cor4_2 import COR42, COR42_PROOF
from .cor4_4 import COR44, COR44_PROOF
from .eq12 import EQ12
from .eq24 import EQ24
from .fn3 import FN3
from .lemmaB_1 import LEMMA_B1, LEMMA_B1_BIAS
from .lemmaC_2 import LEMMA_C2
from .lemmaC_3 import LEMMA_C3
from .lemmaC_4 import LEMMA_C4
from .lemmaD_2 import LEMMA_D2
from .lemmaD_3 import LEMMA_D3
from .tab2 import TAB2, TAB2_MU, TAB2_MU_TAU1, TAB2_MU_TAUD, TAB2_SFL_V1, TAB2_SFL_V2
from .thm4_1 import THM41, THM41_PROOF
from .thm4_3 import THM43, THM43_APPENDIX, THM43_PROOF

RESULTS: tuple[Result, ...] = (
    THM41, THM41_PROOF, EQ24, LEMMA_B1, LEMMA_B1_BIAS, LEMMA_C2, LEMMA_C3, LEMMA_C4,  # MU-Split: Sec. 4.1, App. B-C
    COR42, COR42_PROOF, FN3,  # its rate
    THM43, THM43_APPENDIX, THM43_PROOF, LEMMA_D2, LEMMA_D3,  # MU-SplitFed: Sec. 4.2, App. D
    COR44, COR44_PROOF, *TAB2, EQ12,  # its rate, the communication cost (App. A) and time (12)
)  # fmt: skip

# canonical name -> the symbol as the paper prints it (LaTeX), for every result of the paper
PAPER_NOTATION: dict[str, str] = {
    "lam": "\\lambda",
    "F": "\\mathcal{F}",
    "eps2": "\\epsilon^2",
}
# ASCII spellings a user may type for the paper's symbols -> canonical name (one that spells a canonical
# name is never used: see vocabulary.aliases_for)
ASCII_ALIASES: dict[str, str] = {
    "lambda": "lam",
    "epsilon2": "eps2",
    "sigma_c^2": "sigma_c2",
    "sigma_s^2": "sigma_s2",
}

__all__ = [
    "ASCII_ALIASES",
    "COR42",
    "COR42_PROOF",
    "COR44",
    "COR44_PROOF",
    "EQ12",
    "EQ24",
    "FN3",
    "KEY",
    "LEMMA_B1",
    "LEMMA_B1_BIAS",
    "LEMMA_C2",
    "LEMMA_C3",
    "LEMMA_C4",
    "LEMMA_D2",
    "LEMMA_D3",
    "PAPER_NOTATION",
    "PARAMS",
    "REFERENCE",
    "RESULTS",
    "SEED",
    "SPLIT_COR42",
    "SPLIT_COR42_PROOF",
    "SPLIT_COR44",
    "TAB2",
    "TAB2_MU",
    "TAB2_MU_TAU1",
    "TAB2_MU_TAUD",
    "TAB2_SFL_V1",
    "TAB2_SFL_V2",
    "THM41",
    "THM41_PROOF",
    "THM43",
    "THM43_APPENDIX",
    "THM43_PROOF",
    "TITLE",
]
