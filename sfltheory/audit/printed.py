"""Check 7: the printed statement equals the encoded terms.

Each result carries its bound twice: the LaTeX as printed (``statement``) and the SymPy terms. The printed
right-hand side is parsed (:mod:`sfltheory.latex`) and compared with the terms at the points drawn for
the result; a difference is a transcription error or an edition that should say so. A statement that cannot
be read in canonical names (O-forms, definitions, symbols outside the vocabulary) is reported as skipped.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..latex import LatexError, rhs_segments
from ..result import Result
from .context import Context, seed_location
from .findings import Finding, Reevaluation
from .search import numeric


def check(r: Result, ctx: Context) -> list[Finding]:
    """The printed check on ``r``: one ``constant off`` finding where every readable segment of the printed
    right-hand side differs from the encoded terms at some point drawn (the segment that differs at the fewest
    points is reported, with the first point where it does). A statement that cannot be read is recorded as a skip."""
    if not r.explicit or not r.statement or not r.terms:
        return []
    parsed: list[sp.Expr] = []
    reasons = []
    for seg in rhs_segments(r.statement):
        try:
            parsed.append(ctx.read(seg, r))
        except LatexError as e:
            reasons.append(str(e))
    if not parsed:
        ctx.skip(r, "printed", f"the statement is not comparable: {'; '.join(dict.fromkeys(reasons))}")
        return []
    s = ctx.sample_for(r, "printed")
    if s is None:
        return []
    values = {k: np.broadcast_to(np.asarray(v, dtype=float), (s.size,)) for k, v in s.ev.params.items()}
    encoded = np.broadcast_to(np.asarray(s.ev.value, dtype=float), (s.size,))
    best: tuple[int, np.ndarray, sp.Expr] | None = None
    for expr in parsed:
        if not {x.name for x in expr.free_symbols} <= set(values):
            continue
        printed = numeric(expr, values) * np.ones(s.size)
        ok = np.isfinite(printed) & np.isfinite(encoded)
        differ = ok & ~np.isclose(printed, encoded, rtol=1e-9, atol=0.0)
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
                f"{s.value(i):.6g} (they differ at {int(differ.sum())} of {s.size} points drawn)"
            ),
            severity="constant off",
            seed=seed_location(r.provenance),
            witness=point,
            reevaluations=(Reevaluation(result=r.id, params=point, value=s.value(i)),),
        )
    ]
