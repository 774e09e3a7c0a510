r"""Non-IID SplitFed with partial participation and auxiliary networks (seed ``004_1446912755864da9.txt``).

Reference: Amirreza Talebi (The Ohio State University), "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning
with Partial Worker Participation and Auxiliary Networks", Preprints.org, posted 4 September 2024,
doi:10.20944/preprints202409.0335.v1, not peer-reviewed. The seed prints no arXiv id of its own (those in it are of
cited works) and no venue beyond Preprints.org; the Preprints.org landing page
(https://preprints.org/manuscript/202409.0335/v1) cites it as "Preprints 2024, 2024090335" and lists no other
version, and we found no arXiv version.

The algorithm is CSE-SFL (Algorithm 1, from Mu and Shen): clients take K local steps of size :math:`\mu_L`
(``eta_l``) on a loss computed by an auxiliary network; every ``l`` rounds the server takes one sequential step of
size :math:`\mu` (``eta``) per client on its own model.

Results (main text; App. A restates each one as Theorem/Corollary A1-A4), one module per label (the four O-only
corollaries share ``corollaries.py``):

* ``thm1``: Theorem 1 (client side, full participation) = Theorem A1, with Phi_1, lambda_1, lambda_2, B, A, Gamma.
* ``eqA11``: the client drift bound (A11) of the proof of A1 (quoted from [13], Lemma 3).
* ``cor1``: Corollary 1 = Corollary A1, eq. (4) / (A1): O-only (see ``thm1``).
* ``thm2``: Theorem 2 (client side, partial participation) = Theorem A2, with Gamma'; ``@proof``: the bound that
  (A35) gives, every term over 1 - Gamma' lambda_2 (the statement and (A36) divide only the last one).
* ``cor2``: Corollary 2 = Corollary A2, eq. (5) / (A22): O-only (see ``thm2``).
* ``thm3``: Theorem 3 (server side, full participation); ``@appendix``: Theorem A3 (mu <= 1/(8Lm^2) instead of
  1/(2L)).
* ``eqA44``: the server drift bound (A44) of the proof of A3.
* ``cor3``: Corollary 3, O-only; ``@appendix``: Corollary A3 (mu <= 1/(Lm^2 sqrt T) instead of 1/(2L sqrt T)).
* ``thm4``: Theorem 4 (server side, partial participation); ``@appendix``: Theorem A4, the same bound and condition
  but "full participation" (encoded with the coupling n = M).
* ``eqA57``: the server drift bound (A57) of the proof of A4 ((A44) printed again).
* ``cor4``: Corollary 4 = Corollary A4, O-only (see ``thm4``).

Notation: m -> ``M``; n -> ``n``; l -> ``l``; K -> ``K``; :math:`\sigma_L^2` (local variance) -> ``sigma2``;
:math:`\sigma_G^2` (heterogeneity, client i vs global, in expectation) -> ``eps2``; :math:`\mu_L` (client and
auxiliary step) -> ``eta_l``; :math:`\mu` (server step) -> ``eta``; the drift lemmas' gradient norm at the start of
the round -> ``gradnorm2_f``. Theorems 1-2 constrain only ``eta_l``; Theorems 3-4 only ``eta`` (the two analyses
never meet).

Conventions. Losses are means over clients (eq. 3: F^s = (1/m) sum_i F_i^s; the client aggregate is the mean of the
client models). ``F`` is the initial gap of the function the result is about: for Theorems 1-2
:math:`F^c(\bar x_C^0)-F^c(\bar x_C^*)`, for Theorems 3-4 :math:`F^s(x_S^0)-F^s(x_S^*)`, where the paper defines
:math:`x^*` as the iterate with the smallest expected gradient norm (not a minimiser). The telescoping sums of the
proofs give :math:`F(x^0)-\mathbb E F(x^T)`; the canonical ``F = f(x^0) - f^*`` is no smaller than that, so the
bounds stay valid with it (see the discrepancy). The left-hand side is a minimum over rounds; the proofs only bound
rounds t = 0, l, 2l, ... (t = 0 mod l), a subset, so the printed minimum over all t in [T] is still implied.
"""

from __future__ import annotations

from ...result import Result
from ._common import (
    A_CONST,
    B_CONST,
    GAMMA,
    GAMMA_PRIME,
    KEY,
    LAMBDA_1,
    LAMBDA_2,
    LOCAL_GLOBAL_VARIANCE,
    PARAMS,
    REFERENCE,
    SEED,
    SMOOTHNESS_CS,
    TITLE,
    UNBIASED,
    K,
    L,
    ell,
    eps2,
    eta,
    eta_l,
    sigma2,
)
from .corollaries import COR1, COR2, COR3, COR3_APPENDIX, COR4
from .eq_a11 import EQ_A11
from .eq_a44 import EQ_A44
from .eq_a57 import EQ_A57
from .thm1 import THM1
from .thm2 import THM2, THM2_PROOF
from .thm3 import THM3, THM3_APPENDIX
from .thm4 import THM4, THM4_APPENDIX

RESULTS: tuple[Result, ...] = (
    THM1,
    EQ_A11,
    COR1,
    THM2,
    THM2_PROOF,
    COR2,
    THM3,
    THM3_APPENDIX,
    EQ_A44,
    COR3,
    COR3_APPENDIX,
    THM4,
    THM4_APPENDIX,
    EQ_A57,
    COR4,
)

# canonical name -> the symbol as the paper prints it (LaTeX), for every result of the paper
PAPER_NOTATION: dict[str, str] = {
    "M": "m",
    "eps2": "\\sigma_G^2",
    "sigma2": "\\sigma_L^2",
    "eta_l": "\\mu_L",
    "eta": "\\mu",
}
# ASCII spellings a user may type for the paper's symbols -> canonical name (one that spells a canonical
# name is never used: see vocabulary.aliases_for)
ASCII_ALIASES: dict[str, str] = {
    "m": "M",
    "sigma_G2": "eps2",
    "sigma_L2": "sigma2",
    "sigma_G^2": "eps2",
    "sigma_L^2": "sigma2",
    "mu_L": "eta_l",
    "mu": "eta",
}

__all__ = [
    "ASCII_ALIASES",
    "A_CONST",
    "B_CONST",
    "COR1",
    "COR2",
    "COR3",
    "COR3_APPENDIX",
    "COR4",
    "EQ_A11",
    "EQ_A44",
    "EQ_A57",
    "GAMMA",
    "GAMMA_PRIME",
    "KEY",
    "LAMBDA_1",
    "LAMBDA_2",
    "LOCAL_GLOBAL_VARIANCE",
    "PAPER_NOTATION",
    "PARAMS",
    "REFERENCE",
    "RESULTS",
    "SEED",
    "SMOOTHNESS_CS",
    "THM1",
    "THM2",
    "THM2_PROOF",
    "THM3",
    "THM3_APPENDIX",
    "THM4",
    "THM4_APPENDIX",
    "TITLE",
    "UNBIASED",
    "K",
    "L",
    "ell",
    "eps2",
    "eta",
    "eta_l",
    "sigma2",
]
