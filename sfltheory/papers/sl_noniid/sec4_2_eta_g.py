r"""Sec. 4.2, "Effect of :math:`\eta_g`": the split-learning rate of Corollary 1 at :math:`\eta_g=1` and at
:math:`\eta_g=N`.

As printed: "by Corollary 1, SL shows
:math:`\mathcal{O}(\frac{LF+\sigma^2}{\sqrt{T}}+\frac{N^2K^2G^2+N^2K\sigma^2}{T})` convergence rate if
:math:`\eta_g=1` (:math:`F\coloneqq f(\mathbf{x}^0)-f(\mathbf{x}^*)`); while it shows a convergence rate of
:math:`\mathcal{O}(\frac{LF+\sigma^2}{\sqrt{T}}+\frac{K^2G^2+K\sigma^2}{T})` if :math:`\eta_g=N`", with T = NKR
(Corollary 1) and Corollary 1's choice :math:`\eta_g\eta_l=1/(L\sqrt T)`.

Results and editions (a family of two, one file):

* ``sec4.2.eta_g1`` -- the rate at :math:`\eta_g=1`, O-form only; ``@explicit``: eq. (5) at
  :math:`\eta_g=1,\ \eta_l=1/(L\sqrt{NKR})` (equal to ``cor1@explicit`` at :math:`\eta_g=1`);
* ``sec4.2.eta_gN`` -- the rate at :math:`\eta_g=N`, O-form only; ``@explicit``: eq. (5) at
  :math:`\eta_g=N,\ \eta_l=1/(NL\sqrt{NKR})`.

The substitutions are ours; both printed rates drop the N of Theorem 1's :math:`T_3=4N\sigma^2/\sqrt T`, as
Corollary 1 does.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Sec. 4.2, paragraph
"Effect of :math:`\eta_g`" (after Corollary 1, eq. (6)).
"""

from __future__ import annotations

from functools import partial

import sympy as sp

from ...defaults import Default
from ...result import Hypothesis, Result
from . import _common as c
from ._common import ONE, M, eta_g

WHERE = "Sec. 4.2, 'Effect of eta_g' (by Corollary 1)"


def _family(label: str, value: sp.Expr, shown: str, rate: str, explicit: str) -> tuple[Result, Result]:
    """The O-form rate printed at eta_g = ``shown`` and its explicit edition (eq. (5) at that eta_g)."""
    choice = Hypothesis(
        name=f"eta_g = {shown}", lhs=eta_g, rel="==", rhs=value, kind="choice", printed=rf"\eta_g={shown}", where=WHERE
    )
    edition = partial(
        Result,
        paper=c.KEY,
        label=label,
        kind="corollary",
        lhs=c.LHS_AVG_MODEL,
        assumptions=c.T1_ASSUMPTIONS,
        step="eta_l",
        defaults=(
            Default(name="eta_g", expr=value, rule=f"the rate is printed 'if eta_g = {shown}' ({WHERE})"),
            c.COR1_ETA_L,
        ),
        discrepancies=(c.COR1_T3_DISC, c.XBAR_DISC),
    )
    o_form = edition(
        title=f"Effect of eta_g: split learning's rate at eta_g = {shown}, T = NKR iterations (O-form)",
        provenance=c.provenance(label="Sec. 4.2, 'Effect of eta_g'", section="Sec. 4.2 (reads Corollary 1, eq. (6))"),
        terms=(),
        hypotheses=(choice, *c.cor1_hypotheses()),
        statement=rf"{rate}\ \text{{if }}\eta_g={shown}",
        rate=rate,
        explicit=False,
        see=f"sl_noniid/{label}@explicit",
        notes=(f"Corollary 1's rate (6) at eta_g = {shown}; T = NKR (canonical M*K*T).",),
    )
    full = edition(
        title=f"Effect of eta_g before the O-step: eq. (5) at eta_g = {shown}, eta_g eta_l = 1/(L sqrt T)",
        edition="explicit",
        provenance=c.provenance(
            label="Sec. 4.2, 'Effect of eta_g' (Theorem 1 at Corollary 1's choice)",
            equation=f"(5) with eta_g = {shown}, eta_g eta_l = 1/(L sqrt(NKR))",
            section="Sec. 4.2; the substitution is ours",
        ),
        terms=c.cor1_terms({eta_g: value}, f"at eta_g = {shown}"),
        hypotheses=(choice, *c.cor1_hypotheses(), *c.thm1_steps("Theorem 1, applied by Corollary 1")),
        statement=explicit,
        notes=(f"eta_g defaults to {shown} and eta_l to Corollary 1's 1/(eta_g L sqrt(NKR)).",),
    )
    return o_form, full


ETA_G1, ETA_G1_EXPLICIT = _family(
    "sec4.2.eta_g1", ONE, "1",
    r"\mathcal{O}\left(\frac{LF+\sigma^2}{\sqrt{T}}+\frac{N^2K^2G^2+N^2K\sigma^2}{T}\right)",
    r"\frac{4LF}{\sqrt T}+\frac{12N^2K^2G^2+6N^2K\sigma^2}{T}+\frac{4N\sigma^2}{\sqrt T},\quad T=NKR",
)  # fmt: skip
ETA_GN, ETA_GN_EXPLICIT = _family(
    "sec4.2.eta_gN", M, "N",
    r"\mathcal{O}\left(\frac{LF+\sigma^2}{\sqrt{T}}+\frac{K^2G^2+K\sigma^2}{T}\right)",
    r"\frac{4LF}{\sqrt T}+\frac{12K^2G^2+6K\sigma^2}{T}+\frac{4N\sigma^2}{\sqrt T},\quad T=NKR",
)  # fmt: skip
