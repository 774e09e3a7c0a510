r"""HERON-SFL (seed ``001_e8dcbf2a405221d7.txt``): zeroth-order clients, first-order server, auxiliary nets.

Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and First-Order Split
Federated Learning", arXiv:2601.09076v1, 14 January 2026 (University of Virginia). The seed prints no venue, year
or arXiv id; the id and date are those of https://arxiv.org/html/2601.09076v1, whose abstract is the seed's (found
with the ``search`` tool; an ICLR 2026 submission of the paper, openreview.net/forum?id=H4okZ5imHB, was withdrawn).

Clients train the client-side model and an auxiliary head by two-point zeroth-order (ZO) steps (``h`` local steps
per round); the server trains its part by first-order SGD (SFLV2 style). Results, one module each:

* :mod:`.thm1` -- Theorem 1 (i.i.d.), eq. (14), O-form; ``@proof`` (49), O-form; ``@round`` (48), the per-round
  inequality; ``@sum`` (48) averaged over t, the explicit bound behind (49).
* :mod:`.remark2` -- Remark 2: T = O(d/(hNB eps^2)) rounds to an eps-stationary point, at Theorem 1's choices.
* :mod:`.lemma2` -- Lemma 2, eq. (19): second moment of the client ZO estimator.
* :mod:`.lemma3` -- Lemma 3, eq. (24): client model divergence over h local steps.
* :mod:`.lemma4` -- Lemma 4, eqs. (30)-(31)/(43): client-side contribution E_t[C].
* :mod:`.eq45` -- eq. (45): server-side contribution E_t[S] (proof of Theorem 1).
* :mod:`.thm2` -- Theorem 2 (low effective rank), eq. (15), O-form plus a floor; ``@round`` (60); ``@sum`` (61);
  ``@proof`` (62) with the TeX coefficients; ``@floor`` C_err of (15)/(65).
* :mod:`.lemma5` -- Lemma 5, eq. (51): client-side contribution under low effective rank.
* :mod:`.table1` -- Table I (Sec. V-B): per-local-update communication, FLOPs and peak memory of HERON-SFL,
  CSE-FSL and SFLV1/V2 (kind ``model``).

Conventions
-----------
* Paper -> canonical: N -> ``M``, h -> ``K``, mu -> ``lam``, B (:math:`= |\xi_i|`) -> ``batch``, sigma_c^2 (and the
  sigma^2 of Assumption 3 / Lemma 5) -> ``sigma_c2``, delta (Assumption 4) -> ``delta``, epsilon (Remark 2) ->
  ``eps_target``.
* The paper's ``d`` is never defined; the estimator (2) perturbs theta_l = {theta_c, theta_a} and Assumption 5
  writes I_{d_l}, so ``d`` is encoded as ``d_c + d_aux``. Give ``d_aux=0`` to fold the auxiliary head into ``d_c``.
* ``F`` = f(theta_g^1) - f^* (the proofs' f(theta_g^1) - f(theta_g^{T+1}) is no larger). The left-hand side is
  printed as min_t E||grad f(theta_g^t)||^2; the proofs bound the average over t = 1..T.
* Losses are means over the N clients (eq. 1); the server update (7) *sums* the N client gradients.
* Per-round editions use per-round state (the paper's own names, :data:`PARAMS`): ``gap_round`` = f(theta_g^t) -
  f^* and ``gap_next`` = E f(theta_g^{t+1}) - f^* (the one-round decrease is their difference), ``drift_round`` =
  sum_i d_{c,i}^t, ``gc2_round`` / ``gs2_round`` = ||grad_c f||^2 / ||grad_s f||^2 at round t, ``dev2_local`` =
  E||theta_c^t - theta_{c,i}^{t,m}||^2 at local step m.
* Default step coupling: ``eta_s`` defaults to the coupling the proofs introduce -- eta_c h/4 = eta_s(2N-1)/4
  (Thm 1, before (49)) and eta_c/4 = (2N-1) eta_s/4 (Thm 2, before (62)) -- so one step size suffices.

The cubic step condition of Lemma 4 and the 2/delta of the floor are written plainly: the step-size solver checks
Cardano's roots at the slack and bisects where none passes, and delta = 0 gives inf (a void floor) at every entry
point. The one-round decrease is the difference of two non-negative gaps because
``evaluate`` cannot check a scalar of domain ``real``.
"""

from __future__ import annotations

from ...result import Result
from . import eq45, lemma2, lemma3, lemma4, lemma5, remark2, table1, thm1, thm2
from ._common import KEY, PARAMS, REFERENCE, SEED, TITLE
from .eq45 import EQ45
from .lemma2 import LEMMA2
from .lemma3 import LEMMA3
from .lemma4 import LEMMA4
from .lemma5 import LEMMA5
from .remark2 import REMARK2
from .table1 import TABLE1
from .thm1 import THM1, THM1_PROOF, THM1_ROUND, THM1_SUM
from .thm2 import THM2, THM2_FLOOR, THM2_PROOF, THM2_ROUND, THM2_SUM

PAPER = KEY  # the old module's name for the key

RESULTS: tuple[Result, ...] = (
    *thm1.RESULTS,
    *remark2.RESULTS,
    *lemma2.RESULTS,
    *lemma3.RESULTS,
    *lemma4.RESULTS,
    *eq45.RESULTS,
    *thm2.RESULTS,
    *lemma5.RESULTS,
    *table1.RESULTS,
)

# canonical name -> the symbol as the paper prints it (LaTeX), for every result of the paper
PAPER_NOTATION: dict[str, str] = {
    "M": "N",
    "K": "h",
    "lam": "\\mu",
    "batch": "B",
    "G_c2": "G_c^2",
    "G_s2": "G_s^2",
    "sigma_c2": "\\sigma_c^2",
    "kappa": "\\kappa",
    "delta": "\\delta",
    "d_c": "|\\theta_c|",
    "F": "f(\\theta_g^1)-f^*",
    "gap_round": "f(\\theta_g^t)-f^*",
    "gap_next": "\\mathbb E f(\\theta_g^{t+1})-f^*",
}
# ASCII spellings a user may type for the paper's symbols -> canonical name (one that spells a canonical
# name is never used: see vocabulary.aliases_for)
ASCII_ALIASES: dict[str, str] = {
    "N": "M",
    "h": "K",
    "mu": "lam",
    "B": "batch",
    "p": "batch",
    "q": "q_smash",
    "F_c": "flops_c",
    "F_a": "flops_a",
    "Delta": "Delta_drift",
    "G_c^2": "G_c2",
    "G_s^2": "G_s2",
    "sigma_c^2": "sigma_c2",
    "sigma^2": "sigma_c2",
}

__all__ = [
    "ASCII_ALIASES",
    "EQ45",
    "KEY",
    "LEMMA2",
    "LEMMA3",
    "LEMMA4",
    "LEMMA5",
    "PAPER",
    "PAPER_NOTATION",
    "PARAMS",
    "REFERENCE",
    "REMARK2",
    "RESULTS",
    "SEED",
    "TABLE1",
    "THM1",
    "THM1_PROOF",
    "THM1_ROUND",
    "THM1_SUM",
    "THM2",
    "THM2_FLOOR",
    "THM2_PROOF",
    "THM2_ROUND",
    "THM2_SUM",
    "TITLE",
]
