"""Check 7: the printed statement equals the encoded terms.

Each result carries its bound twice: the LaTeX as printed (``statement``) and the SymPy terms. The printed
right-hand side is read (:mod:`sfltheory.latexread`: trailing definitions, the paper's readings, sums, O-forms) and
compared with the terms at the points drawn for the result; a difference is a transcription error or an edition
that should say so. An O-form of a result stated up to constants is compared up to one constant factor. A statement
that cannot be read in canonical names (symbols outside the vocabulary, a norm no name holds) is reported as skipped.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import lexicon
from ..latex import LatexError, rhs_segments
from ..latexread import Statement, read
from ..registry import origin
from ..result import Result
from ..vocabulary import symbol
from .context import Context, seed_location
from .findings import Finding, Reevaluation
from .search import numeric


def statement_of(r: Result, ctx: Context) -> Statement:
    """The printed right-hand sides of ``r`` read: a built-in result's by :func:`sfltheory.latexread.read`, a user's
    segment by segment as its terms were (:meth:`Context.read`)."""
    if origin(r.id) is None:
        return read(r.statement, r.paper, r.label, r.lhs, r.notation, lexicon.all_params())
    exprs: list[sp.Expr] = []
    reasons: list[str] = []
    for seg in rhs_segments(r.statement):
        try:
            exprs.append(ctx.read(seg, r))
        except LatexError as e:
            reasons.append(str(e))
    return Statement(tuple(exprs), tuple(reasons), False)


def _differ(printed: np.ndarray, encoded: np.ndarray, up_to_constant: bool) -> np.ndarray:
    """Where ``printed`` and ``encoded`` differ (finite points only); up to one constant factor when asked."""
    ok = np.isfinite(printed) & np.isfinite(encoded)
    differ = ok & ~np.isclose(printed, encoded, rtol=1e-9, atol=0.0)
    if up_to_constant and differ.any():
        both = ok & (printed != 0)
        if both.any():
            c = encoded[both][0] / printed[both][0]
            if c > 0:
                differ = ok & ~np.isclose(c * printed, encoded, rtol=1e-9, atol=0.0)
    return differ


def _confirmed(printed: sp.Expr, encoded: sp.Expr, values: dict[str, np.ndarray], differ: np.ndarray) -> np.ndarray:
    """``differ`` without the points (of the first :data:`RECHECK`) where the two expressions agree at 30 digits: in
    float64 a bound near a pole (``1 - 4N^2K^2\\eta^2L^2`` close to 0) differs only by rounding."""
    out = differ.copy()
    for i in np.flatnonzero(differ)[:RECHECK]:
        at = {symbol(k): sp.Float(float(v[i]), 30) for k, v in values.items()}
        a, b = sp.N(printed.subs(at), 30), sp.N(encoded.subs(at), 30)
        if a.is_number and b.is_number and abs(a - b) <= 1e-9 * max(abs(a), abs(b)):
            out[i] = False
    return out


RECHECK = 8


def check(r: Result, ctx: Context) -> list[Finding]:
    """The printed check on ``r``: one ``constant off`` finding where every readable segment of the printed
    right-hand side differs from the encoded terms at some point drawn (the segment that differs at the fewest
    points is reported, with the first point where it does). A statement that cannot be read is recorded as a skip."""
    if not r.explicit or not r.statement or not r.terms:
        return []
    st = statement_of(r, ctx)
    if not st.exprs:
        ctx.skip(r, "printed", f"the statement is not comparable: {'; '.join(dict.fromkeys(st.reasons))}")
        return []
    s = ctx.sample_for(r, "printed")
    if s is None:
        return []
    values = {k: np.broadcast_to(np.asarray(v, dtype=float), (s.size,)) for k, v in s.ev.params.items()}
    encoded = np.broadcast_to(np.asarray(s.ev.value, dtype=float), (s.size,))
    best: tuple[int, np.ndarray, sp.Expr] | None = None
    for expr in st.exprs:
        if not {x.name for x in expr.free_symbols} <= set(values):
            continue
        printed = numeric(expr, values) * np.ones(s.size)
        differ = _differ(printed, encoded, st.up_to_constant)
        if not st.up_to_constant:
            differ = _confirmed(expr, r.bound_expr, values, differ)
        if not differ.any():
            return []
        if best is None or differ.sum() < best[1].sum():
            best = (int(np.flatnonzero(differ)[0]), differ, expr)
    if best is None:
        ctx.skip(r, "printed", "the printed statement uses parameters the result does not")
        return []
    i, differ, expr = best
    pv = float(numeric(expr, {k: v[i : i + 1] for k, v in values.items()})[0])
    point = s.point(i)
    return [
        Finding(
            result=r.id,
            check="printed",
            printed=r.statement,
            found=(
                f"the printed statement reads {sp.sstr(expr)} and gives {pv:.6g} where the encoded terms give "
                f"{s.value(i):.6g} (they differ at {int(differ.sum())} of {s.size} points drawn"
                f"{', up to a constant factor' if st.up_to_constant else ''})"
            ),
            severity="constant off",
            seed=seed_location(r.provenance),
            witness=point,
            reevaluations=(Reevaluation(result=r.id, params=point, value=s.value(i)),),
        )
    ]
