"""Printed LaTeX to SymPy in canonical names: the audit's view of :mod:`sfltheory.latex`, which user-declared
results (:mod:`sfltheory.userresults`) share."""

from __future__ import annotations

from ..latex import (
    SPELLINGS,
    UNREADABLE,
    LatexError,
    normal,
    rhs_segments,
    spellings,
    summands,
    to_sympy,
)

__all__ = ["SPELLINGS", "UNREADABLE", "LatexError", "normal", "rhs_segments", "spellings", "summands", "to_sympy"]
