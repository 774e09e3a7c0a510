r"""Corollaries 1-4: the rates, stated only up to constants (O-only), one row each.

.. math::

    \text{Cor. 1, 2 (eqs. (4), (5)):}\quad\mu_L\le\frac{1}{lLK2^{1.15l+1.85}\sqrt T}\ \Longrightarrow\
    \min_{t\in[T]}\mathbb E\left[\|\nabla f^c(\bar{\mathbf x}_C^t)\|^2\right]\le
    \mathcal O\left(\frac{l}{\sqrt T}+\frac{1}{T\sqrt T}\right)

    \text{Cor. 3:}\quad\mu\le\frac{1}{2L\sqrt T}\quad\left(\text{Cor. A3: }\mu\le\frac{1}{Lm^2\sqrt T}\right),\qquad
    \text{Cor. 4:}\quad\mu\le\frac{1}{L^2m^2\sqrt T}\ \Longrightarrow\
    \min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le\mathcal O\left(\frac{l}{\sqrt T}\right)

Each has no bound of its own: ``see`` names the theorem (edition) whose bound at the corollary's step is the
explicit form. Editions: ``cor3@appendix`` (Corollary A3, another step); Corollaries A1, A2 and A4 restate 1, 2
and 4 identically. No proof of any corollary is printed.

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: Sec. 4.1, Corollaries 1 and 2, eqs. (4), (5); Sec. 4.2, Corollaries 3 and 4;
App. A.1, Corollaries A1, A2, eqs. (A1), (A22); App. A.2, Corollaries A3, A4.
"""

from __future__ import annotations

from typing import Literal

import sympy as sp

from ...result import Discrepancy, Hypothesis, Provenance, Result, step_branch
from . import _common as c
from ._common import ONE, L, M, T, eta, eta_l

_RATE = {
    "client": r"\mathcal{O}\left(\frac{l}{\sqrt{T}}+\frac{1}{T\sqrt{T}}\right)",
    "server": r"\mathcal{O}\left(\frac{l}{\sqrt{T}}\right)",
}
_LHS_TEX = {
    "client": r"\min_{t\in[T]}\mathbb E\|\nabla f^c(\bar{\mathbf x}_C^t)\|^2\le",
    "server": r"\min_{t\in[T]}\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2\le",
}
_SIDE = {"client": (c.LHS_CLIENT, "eta_l", c.NOTATION_CLIENT), "server": (c.LHS_SERVER, "eta", c.NOTATION_SERVER)}


def _corollary(
    side: Literal["client", "server"],
    *,
    label: str,
    title: str,
    provenance: Provenance,
    hypotheses: tuple[Hypothesis, ...],
    see: str,
    discrepancies: tuple[Discrepancy, ...],
    edition: str = "",
    notes: tuple[str, ...] = (),
) -> Result:
    """The rate of the ``side`` model as printed: O-only, its explicit form is the theorem ``see``."""
    lhs, step, notation = _SIDE[side]
    return Result(
        paper=c.KEY, label=label, kind="corollary", title=title, provenance=provenance, lhs=lhs, terms=(),
        hypotheses=hypotheses, assumptions=c.ASSUMPTIONS, edition=edition, statement=_LHS_TEX[side] + _RATE[side],
        rate=_RATE[side], step=step, explicit=False, see=see, discrepancies=discrepancies, notes=notes,
        notation=notation,
    )  # fmt: skip


_D_CLIENT = (
    Discrepancy(
        where="Corollaries 1, 2 (eqs. (4), (5), (A1), (A22)): the rate", printed=r"\mathcal O\left(\frac{l}{\sqrt T}+\frac{1}{T\sqrt T}\right)",
        expected=r"\frac{2^{1.15l+2.85}\,lLF}{(1-\Gamma\lambda_2)\sqrt T}+\dots",
        note="at mu_L = 1/(lLK2^{1.15l+1.85}sqrt T) the initialisation term of the theorem is "
        "2^{1.15l+2.85} l L F/((1 - Gamma lambda_2) sqrt T): the O shows l but hides a factor exponential in l. "
        "No proof of the corollaries is printed.",
    ),
    Discrepancy(
        where="Corollaries 1, 2: step size", printed=r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}\sqrt T}",
        expected=r"\mu_L=\Theta\left(\frac{1}{lLK2^{1.15l+1.85}\sqrt T}\right)",
        note="the term 2F/(mu_L K T) grows as mu_L shrinks, so the rate follows only for mu_L of that order, not for "
        "every smaller mu_L.",
    ),
    Discrepancy(
        where="Corollaries 1, 2: notation", printed=r"\min_t\mathbb E\|\nabla f^c(\bar x_C^t)\|^2",
        expected=r"\min_t\mathbb E\|\nabla F^c(\bar x_C^t)\|^2", note="lower-case f^c is defined nowhere; the theorems bound F^c.",
    ),
)  # fmt: skip
_D_SERVER = (
    Discrepancy(
        where="Corollaries 3, 4 vs Sec. 5.1 ('Key Results')", printed=r"\mathcal O\left(\frac{l}{\sqrt T}\right)",
        expected=r"\mathcal O\left(\frac{1}{\sqrt T}\right)\ (\text{Sec. 5.1})",
        note="the conclusions state the server-side rate without l.",
    ),
    Discrepancy(
        where="Corollaries 3, 4: constants hidden in the O", printed=r"\mathcal O\left(\frac{l}{\sqrt T}\right)",
        expected=r"\frac{4lLF}{(2m-3)\sqrt T}+\frac{m^2}{2(2m-3)\sqrt T}(9.2\sigma_L^2+13.2\sigma_G^2)\ (\text{Cor. 3 at }\mu=\frac{1}{2L\sqrt T})",
        note="the variance term grows linearly in m, which the O hides (Sec. 5.1 reads the result as 'the number of "
        "clients is not effective'); as with the client side, the rate needs mu of that order, not any smaller mu.",
    ),
)  # fmt: skip
D_COR3 = Discrepancy(
    where="Corollary 3 vs Corollary A3 (step size)",
    printed=r"\mu\le\frac{1}{2L\sqrt T}", expected=r"\mu\le\frac{1}{Lm^2\sqrt T}\ (\text{Corollary A3})", note="main text and appendix differ, following Theorems 3 and A3; A3's corollary step exceeds A3's own "
    "condition 1/(8Lm^2) when T < 64. Encoded as sfl_aux/cor3@appendix.",
)  # fmt: skip
D_COR4_STEP = Discrepancy(
    where="Corollary 4 vs Theorem 4 (step size)",
    printed=r"\mu\le\frac{1}{L^2m^2\sqrt T}", expected=r"\mu\le\min\left\{\frac{1}{8L^2m^2},\frac{1}{L^2m^2\sqrt T}\right\}",
    note="for T < 64 the corollary's step exceeds the theorem's condition, which the corollary relies on.",
)  # fmt: skip


# --- the client side (Sec. 4.1): Corollary k applies Theorem k at a step smaller by sqrt(T) --------------------
def _client(
    number: int, eq: str, eq_appendix: str, gamma_hyps: tuple[Hypothesis, ...], note: str, *extra: Discrepancy
) -> Result:
    """Corollary ``number`` (1: full, 2: partial participation): its step condition, the theorem's (implied) and the
    theorem's Gamma step branch if it has one (``gamma_hyps[1:]``)."""
    theorem = f"Theorem {number}"
    hypotheses = (
        step_branch(
            "mu_L<=1/(lLK2^(1.15l+1.85)sqrt(T))",
            eta_l,
            c.STEP_CLIENT / sp.sqrt(T),
            r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}\sqrt{T}}",
            where=f"Corollary {number} (and A{number})",
            group="mu_L",
        ),
        step_branch(
            "mu_L<=1/(lLK2^(1.15l+1.85))",
            eta_l,
            c.STEP_CLIENT,
            r"\mu_L\le\frac{1}{lLK2^{1.15l+1.85}}",
            source="implicit",
            where=f"{theorem}, which the corollary applies",
            note=f"inherited from {theorem}; implied by the corollary's branch since T >= 1",
        ),
        *gamma_hyps[1:],
    )
    return _corollary(
        "client", label=f"cor{number}", title=f"Client-side rate, {('full', 'partial')[number - 1]} participation",
        provenance=c.provenance(label=f"Corollary {number}", equation=eq, section=f"Sec. 4.1; restated as Corollary A{number}, eq. {eq_appendix}"),
        hypotheses=hypotheses, see=f"sfl_aux/thm{number}", discrepancies=(*_D_CLIENT, *extra), notes=(note,),
    )  # fmt: skip


COR1 = _client(1, "(4)", "(A1)", c.T1_GAMMA, "Theorem 1's bound at the corollary's step size is the explicit form; its validity condition carries over.", c.D_GAMMA_EDGE)  # fmt: skip
COR2 = _client(2, "(5)", "(A22)", c.T2_GAMMA, "Theorem 2's bound (or its @proof edition) at the corollary's step size is the explicit form.", c.D_A36)  # fmt: skip

# --- the server side (Sec. 4.2) --------------------------------------------------------------------------------
COR3 = _corollary(
    "server", label="cor3", title="Server-side rate, full participation", see="sfl_aux/thm3",
    provenance=c.provenance(label="Corollary 3", section="Sec. 4.2"),
    hypotheses=(
        step_branch("mu<=1/(2L sqrt(T))", eta, ONE / (2 * L * sp.sqrt(T)), r"\mu\le\frac{1}{2L\sqrt T}", where="Corollary 3", group="mu"),
        step_branch("mu<=1/(2L)", eta, ONE / (2 * L), r"\mu\le\frac{1}{2L}", source="implicit",
                    where="Theorem 3, which the corollary applies", note="inherited from Theorem 3; implied since T >= 1"),
    ),
    discrepancies=(D_COR3, *_D_SERVER, c.D_T3_STEP),
    notes=("Theorem 3's bound at the corollary's step size is the explicit form; its validity condition 2m - 3 > 0 carries over.",),
)  # fmt: skip
COR3_APPENDIX = _corollary(
    "server", label="cor3", edition="appendix", see="sfl_aux/thm3@appendix",
    title="Server-side rate, full participation, as restated in the appendix (Corollary A3)",
    provenance=c.provenance(label="Corollary A3", section="App. A.2"),
    hypotheses=(
        step_branch("mu<=1/(Lm^2 sqrt(T))", eta, ONE / (L * M**2 * sp.sqrt(T)), r"\mu\le\frac{1}{Lm^2\sqrt T}",
                    where="Corollary A3", group="mu"),
        step_branch("mu<=1/(8Lm^2)", eta, ONE / (8 * L * M**2), r"\mu\le\frac{1}{8Lm^2}", source="implicit",
                    where="Theorem A3, which the corollary applies", note="inherited from Theorem A3; binds when T < 64"),
    ),
    discrepancies=(D_COR3, *_D_SERVER),
)  # fmt: skip
COR4 = _corollary(
    "server", label="cor4", title="Server-side rate, partial participation", see="sfl_aux/thm4",
    provenance=c.provenance(label="Corollary 4", section="Sec. 4.2; restated as Corollary A4"),
    hypotheses=(
        step_branch("mu<=1/(L^2m^2 sqrt(T))", eta, ONE / (L**2 * M**2 * sp.sqrt(T)), r"\mu\le\frac{1}{L^2m^2\sqrt T}",
                    where="Corollary 4 (and A4)", group="mu"),
        step_branch("mu<=1/(8L^2m^2)", eta, ONE / (8 * L**2 * M**2), r"\mu\le\frac{1}{8L^2m^2}", source="implicit",
                    where="Theorem 4, which the corollary applies", note="inherited from Theorem 4; binds when T < 64"),
    ),
    discrepancies=(D_COR4_STEP, *_D_SERVER), notes=("Corollary A4 restates Corollary 4 identically.",),
)  # fmt: skip
