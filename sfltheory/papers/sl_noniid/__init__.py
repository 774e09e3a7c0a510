r"""Convergence analysis of split learning on non-IID data: SL vs FL.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", paper under double-blind
review. The seed prints no authors, venue, year or arXiv id; its text is the ICLR 2023 submission SNONkz5zEUF
(openreview.net/forum?id=SNONkz5zEUF, "Submitted to ICLR 2023"; the same pages are in the ICLR 2023 text corpus
www.cl.cam.ac.uk/~ecc73/pub/datasets/iclr/iclr_2023.tar.gz). A revised version under the same title is
arXiv:2302.01633 by Yipeng Li and Xinchen Lyu (deepai.org, 3 February 2023; later retitled "Convergence Analysis
of Sequential Split Learning on Heterogeneous Data"), whose abstract differs from the seed's. Seed
``shared/seeds/002_56e5daea794305d7.txt``.

Split learning (Algorithm 1): in each of R rounds the N clients train *in sequence*, K local SGD steps each on
the complete model (client and server side updated together, step :math:`\eta_l`), then a global step
:math:`\mathbf x^{r+1}=\mathbf x^r+\eta_g(\mathbf x^{(r,K)}_N-\mathbf x^r)`. Every result is for **non-convex**
objectives only (footnote 1: "similar methods can be used" for convex and strongly convex objectives, but none is
stated), so labels carry no convexity suffix.

Results (one file each; a table's or a paragraph's rows share one):

* ``thm1`` (``thm1.py``) -- Theorem 1 (SL), eq. (5), Sec. 4.2; ``@proof``: eq. (44), the average over rounds.
* ``eq43`` (``eq43.py``) -- the one-round inequality (43) that the proof of Theorem 1 averages, App. D.2.
* ``lem4`` (``lem4.py``) -- Lemma 4 (bounded client drift), eq. (16), App. D.1.
* ``cor1`` (``cor1.py``) -- Corollary 1, eq. (6), O-form; ``@explicit``: eq. (5) at the corollary's choice.
* ``sec4.2.eta_g1``, ``sec4.2.eta_gN`` (``sec4_2_eta_g.py``) -- "Effect of eta_g" (Sec. 4.2): Corollary 1's rate at
  :math:`\eta_g=1` and :math:`\eta_g=N`, O-forms; ``@explicit``: eq. (5) there.
* ``cor2`` (``cor2.py``) -- Corollary 2, eq. (49), O-form; ``@explicit``: eq. (5) at the corollary's choice.
* ``cor3`` (``cor3.py``) -- Corollary 3, eq. (50), O-form; ``@explicit``: eq. (44) through Lemma 2 of
  Karimireddy et al. (2020), which the one-line proof cites (constants worked out by us).
* ``thm2`` (``thm2.py``) -- Theorem 2 (FedAvg with a global step, for comparison), eq. (51), App. D.3.
* ``sec4.3.speedup`` (``sec4_3_speedup.py``) -- Sec. 4.3: Theorem 2 at :math:`\eta_l=\sqrt N/(L\sqrt T)` gives
  :math:`O(1/\sqrt{NT})`; ``@explicit``: eq. (51) at that choice.
* ``thm3`` (``thm3.py``) -- Theorem 3 (progress of one client in one round), eq. (53), App. D.4.
* ``eq69`` (``eq69.py``) -- the per-client inequality (69) that the proof of Theorem 3 averages, App. D.4.
* ``eq67`` (``eq67.py``) -- the drift of one client's K local steps (Wang et al., 2020), eq. (67), App. D.4.
* ``tab1.fl`` (rows 1-2), ``tab1.fl_eff`` (row 3), ``tab1.fl_reps`` (row 4), ``tab1.sl_eff`` (row 5),
  ``tab1.sl_reps`` (row 6) (``tab1.py``) -- Table 1 (Sec. 4.3) as models with unit constants.
* ``sec4.3.fl``, ``sec4.3.sl`` (``sec4_3.py``) -- the two displays of Sec. 4.3 at :math:`\tilde\eta=1/\sqrt R`.
* ``tab4.fl_client``, ``tab4.fl_round``, ``tab4.sl_p2p_client``, ``tab4.sl_p2p_round``, ``tab4.sl_central_client``,
  ``tab4.sl_central_round``, ``tab4.slg_p2p_round``, ``tab4.slg_central_round`` (``tab4.py``) -- Table 4 (App. A),
  communication per client and per round.

Conventions. Canonical ``T`` is the paper's number of rounds R and ``M`` its number of clients N. The paper
*also* writes T for "the total number of iterations (i.e., NKR in SL)" (Corollary 1, abstract); those T are
written ``M*K*T`` here. The analysis uses the unweighted objective :math:`f=\frac1N\sum_i f_i` (Sec. 4.2),
not the weighted eq. (1). :math:`F:=f(\mathbf x^0)-f(\mathbf x^*)` is the canonical ``F``. :math:`\sigma^2`
bounds the variance of the stochastic gradient :math:`\mathbf g_i` the algorithm uses (a mini-batch gradient
in Sec. 2; "a data sample" in Assumption 2 and Table 5): a single-sample :math:`\sigma^2` gives a valid,
looser bound. :math:`B^2, G^2` are Assumption 3's (``B2``, ``G2``, with :math:`B\ge1`); in Theorem 3 the
paper's :math:`G^2` is Assumption 4's heterogeneity bound :math:`\|\nabla f_i-\nabla f\|^2\le G^2`, encoded
as the canonical ``eps2``. ``eta_g`` defaults to 1 (vanilla SL; Table 1 sets :math:`\eta_g=1`); the
effective learning rate ``eta_tilde`` (:math:`NK\eta_g\eta_l` for SL, :math:`K\eta_g\eta_l` for FL) may be
given instead of ``eta_l``. Per-round inequalities read the state of the round: ``gradnorm2_f`` is
:math:`\|\nabla f\|^2` at the model the round (or the client) starts from, ``gradnorm2_Fk`` a client's own
:math:`\|\nabla f_i\|^2` there. Table 1 hides constants (including L): its models evaluate the formulas inside
:math:`\mathcal O(\cdot)` with unit constants, for comparing FL with SL only. Table 4 counts floats; the
paper's n (dataset size) is ``n_data`` (canonical ``n`` is clients per round), n_i is ``D_k``, q is
``q_smash``, E is ``E_epochs``; the model sizes :math:`\mathbf x, \mathbf x_c` are ``d`` and ``d_c``.
Table 6 (summary of theories) and Figure 1 are images, absent from the seed.
"""

from __future__ import annotations

from ...result import Result
from ._common import KEY, PARAMS, REFERENCE, SEED, TITLE
from .cor1 import COR1, COR1_EXPLICIT
from .cor2 import COR2, COR2_EXPLICIT
from .cor3 import COR3, COR3_EXPLICIT
from .eq43 import EQ43
from .eq67 import EQ67
from .eq69 import EQ69
from .lem4 import LEM4
from .sec4_2_eta_g import ETA_G1, ETA_G1_EXPLICIT, ETA_GN, ETA_GN_EXPLICIT
from .sec4_3 import SEC43_FL, SEC43_SL
from .sec4_3_speedup import SPEEDUP, SPEEDUP_EXPLICIT
from .tab1 import TAB1_FL, TAB1_FL_EFF, TAB1_FL_REPS, TAB1_SL_EFF, TAB1_SL_REPS
from .tab4 import TAB4
from .thm1 import THM1, THM1_PROOF
from .thm2 import THM2
from .thm3 import THM3

PAPER = KEY  # the old module's name for the key

RESULTS: tuple[Result, ...] = (
    THM1,
    THM1_PROOF,
    EQ43,
    LEM4,
    COR1,
    COR1_EXPLICIT,
    ETA_G1,
    ETA_G1_EXPLICIT,
    ETA_GN,
    ETA_GN_EXPLICIT,
    COR2,
    COR2_EXPLICIT,
    COR3,
    COR3_EXPLICIT,
    THM2,
    SPEEDUP,
    SPEEDUP_EXPLICIT,
    THM3,
    EQ69,
    EQ67,
    TAB1_FL,
    TAB1_FL_EFF,
    TAB1_FL_REPS,
    TAB1_SL_EFF,
    TAB1_SL_REPS,
    SEC43_FL,
    SEC43_SL,
    *TAB4,
)

# canonical name -> the symbol as the paper prints it (LaTeX), for every result of the paper
PAPER_NOTATION: dict[str, str] = {
    "T": "R",
    "M": "N",
    "sigma2": "\\sigma^2",
    "B2": "B^2",
    "G2": "G^2",
    "F": "F",
    "eta_l": "\\eta_l",
    "eta_g": "\\eta_g",
    "eta_tilde": "\\tilde\\eta",
    "eps_target": "\\epsilon",
    "d": "\\mathbf{x}",
    "d_c": "\\mathbf{x}_c",
    "n_data": "n",
    "D_k": "n_i",
    "q_smash": "q",
    "E_epochs": "E",
}
# ASCII spellings a user may type for the paper's symbols -> canonical name (one that spells a canonical
# name is never used: see vocabulary.aliases_for)
ASCII_ALIASES: dict[str, str] = {
    "R": "T",
    "N": "M",
    "sigma^2": "sigma2",
    "B^2": "B2",
    "G^2": "G2",
    "epsilon": "eps_target",
    "n_i": "D_k",
    "q": "q_smash",
    "E": "E_epochs",
}

__all__ = [
    "ASCII_ALIASES",
    "COR1",
    "COR1_EXPLICIT",
    "COR2",
    "COR2_EXPLICIT",
    "COR3",
    "COR3_EXPLICIT",
    "EQ43",
    "EQ67",
    "EQ69",
    "ETA_G1",
    "ETA_G1_EXPLICIT",
    "ETA_GN",
    "ETA_GN_EXPLICIT",
    "KEY",
    "LEM4",
    "PAPER",
    "PAPER_NOTATION",
    "PARAMS",
    "REFERENCE",
    "RESULTS",
    "SEC43_FL",
    "SEC43_SL",
    "SEED",
    "SPEEDUP",
    "SPEEDUP_EXPLICIT",
    "TAB1_FL",
    "TAB1_FL_EFF",
    "TAB1_FL_REPS",
    "TAB1_SL_EFF",
    "TAB1_SL_REPS",
    "TAB4",
    "THM1",
    "THM1_PROOF",
    "THM2",
    "THM3",
    "TITLE",
]
