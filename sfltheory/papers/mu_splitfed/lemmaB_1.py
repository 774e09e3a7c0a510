r"""Lemma B.1: the two-point zeroth-order estimator (3) -- bias of the smoothed gradient and second moment.

Statement (App. B.3): let :math:`g(x)` be defined as in (3) (:math:`u` uniform on the sphere
:math:`\sqrt d\,\mathbb S^{d-1}`) and :math:`f_\lambda(x)=\mathbb E_v[f(x+\lambda v)]`, :math:`v` uniform in the ball
:math:`\sqrt d\,\mathbb B^d`. Then (i) :math:`f_\lambda` is differentiable and :math:`\mathbb E_u[g_\lambda(x)]=
\nabla f_\lambda(x)`; (ii) if :math:`f` is :math:`L`-smooth,

.. math::

    \|\nabla f(x)-\nabla f_\lambda(x)\|\le\frac L2\lambda d^{3/2}\quad(13),\qquad
    \mathbb E_u[\|g_\lambda(x)\|^2]\le2d\cdot\|\nabla f(x)\|^2+\frac{L^2}{2}\lambda^2d^3\quad(14).

Two results: ``lemmaB.1`` is (14), the second moment the proofs use (Lemmas C.2, C.3, D.2, D.3, with ``d`` the
dimension of the block: :math:`d_s` on the server, :math:`d_c` on the client); ``lemmaB.1.bias`` is (13), used for
:math:`\|\nabla f_\lambda-\nabla f\|^2\le L^2\lambda^2d^3/4` in (19) and (21). The lemma is stated without proof (it
is the standard bound of the cited zeroth-order literature): with the sphere of radius :math:`\sqrt d` the usual
unit-sphere bounds :math:`\mu Ld/2` and :math:`2d\|\nabla f\|^2+\mu^2L^2d^2/2` at :math:`\mu=\lambda\sqrt d` are
exactly (13) and (14).

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach", NeurIPS 2025, arXiv:2510.21155. Seed
``000_0fb66116fc20c956.txt``: Lemma B.1, (13) and (14), in App. B.3 (Technical Lemmas); the estimator (3) in Sec. 2.
"""

from __future__ import annotations

from ...assumptions import SMOOTHNESS
from ...result import Result, Term
from ._common import KEY, L, R, d, g_f, lam, provenance

LEMMA_B1 = Result(
    paper=KEY, label="lemmaB.1", kind="lemma", title="Second moment of the two-point ZO estimator (3), eq. (14)",
    provenance=provenance(label="Lemma B.1 (ii)", equation="(14)", section="App. B.3"),
    lhs="E_u||g_lambda(x)||^2, the second moment of the ZO estimator (3) of a d-dimensional L-smooth f",
    terms=(
        Term(name="gradient", expr=2 * d * g_f, meaning="2d ||grad f(x)||^2"),
        Term(name="ZO bias", expr=L**2 / 2 * lam**2 * d**3, meaning="(L^2/2) lambda^2 d^3"),
    ),
    assumptions=(SMOOTHNESS,),
    statement=r"\mathbb{E}_{u}[\|g_{\lambda}(x)\|^{2}]\leq 2d\cdot\|\nabla f(x)\|^{2}+\frac{L^{2}}{2}\lambda^{2}d^{3}",
    notes=("gradnorm2_f is ||grad f(x)||^2 at the point x of the estimate; d is the dimension of that block.",),
    notation={"gradnorm2_f": r"\|\nabla f(x)\|^2"},
)  # fmt: skip

LEMMA_B1_BIAS = Result(
    paper=KEY, label="lemmaB.1.bias", kind="lemma", title="Bias of the smoothed gradient, eq. (13)",
    provenance=provenance(label="Lemma B.1 (ii)", equation="(13)", section="App. B.3"),
    lhs="||grad f(x) - grad f_lambda(x)||, the gradient bias of the smoothing f_lambda (a norm, not squared)",
    terms=(Term(name="ZO bias", expr=L / 2 * lam * d ** R(3, 2), meaning="(L/2) lambda d^{3/2}"),),
    assumptions=(SMOOTHNESS,),
    statement=r"\|\nabla f(x)-\nabla f_{\lambda}(x)\|\leq\frac{L}{2}\lambda d^{3/2}",
    notes=("Squared, (13) gives ||grad f_lambda - grad f||^2 <= L^2 lambda^2 d^3/4, the form (19) and (21) use.",),
)  # fmt: skip
