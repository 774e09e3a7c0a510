"""Who a corollary comes from, and what it chooses.

A corollary reprints its theorem's step-size conditions and substitutes choices (a step size, a split, a
smoothing radius, eta_g) into its bound. The parent is found from the encoding alone: the explicit theorem
(or proposition) of the same paper whose step-size and domain conditions the corollary reprints most often
(compared as formulas, not names), the main-text edition on a tie; a corollary that reprints none names its
explicit stand-in in ``see``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..result import Hypothesis, Result

PARENT_KINDS = ("theorem", "proposition")


def condition_key(h: Hypothesis) -> tuple[str, str, str]:
    """A hypothesis as a formula, independent of its name and where it is printed."""
    return (sp.srepr(sp.expand(h.lhs)), h.rel, sp.srepr(sp.expand(h.rhs)))


def parent(result: Result, catalogue: Sequence[Result]) -> Result | None:
    """The theorem a corollary follows from (None for a result that is no corollary or has no parent)."""
    if result.kind != "corollary":
        return None
    mine = {condition_key(h) for h in result.hypotheses if h.kind in ("step_size", "domain", "validity")}
    best: tuple[int, int] = (0, 0)
    found: Result | None = None
    for r in catalogue:
        if r.paper != result.paper or r.kind not in PARENT_KINDS or not r.explicit:
            continue
        shared = len(mine & {condition_key(h) for h in r.hypotheses if h.kind in ("step_size", "domain", "validity")})
        key = (shared, int(r.edition == ""))
        if shared and key > best:
            best, found = key, r
    if found is None and result.see:
        found = next((r for r in catalogue if r.id == result.see and r.kind in PARENT_KINDS and r.explicit), None)
    return found


def choices(result: Result) -> dict[sp.Symbol, sp.Expr]:
    """What a result fixes: its defaults whose formula does not merely rename a step size, and its equality
    choices ``name = formula`` (the last one printed wins, as later defaults do not override earlier ones)."""
    out: dict[sp.Symbol, sp.Expr] = {}
    for h in result.hypotheses:
        if h.rel == "==" and h.kind == "choice" and isinstance(h.lhs, sp.Symbol):
            out.setdefault(h.lhs, h.rhs)
    return out


def editions_of(result: Result, catalogue: Sequence[Result]) -> list[Result]:
    """Every edition of the same result in ``catalogue``, main text first."""
    same = [r for r in catalogue if r.paper == result.paper and r.label == result.label]
    return sorted(same, key=lambda r: r.edition != "")
