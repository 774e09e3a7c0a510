"""Check 5: sign and validity.

Over the admissible region (every condition the statement prints holds; the step drawn up to and including
the largest one allowed): is the bound finite, and positive for a theorem, corollary or proposition? Can a
denominator that must stay positive (1 - Gamma lambda_2, 2m - 3, 1 - 4N^2K^2 eta^2 L^2 ...) vanish or turn
negative? Does a validity condition the proof needs fail where the statement's conditions hold?
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..result import Result
from .context import Context, seed_location
from .findings import Finding, Reevaluation
from .sampling import Sample
from .search import numeric

POSITIVE_KINDS = ("theorem", "corollary", "proposition")


def denominators(expr: sp.Expr) -> list[sp.Expr]:
    """Every base raised to a negative power in ``expr`` that SymPy cannot prove positive."""
    out: list[sp.Expr] = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.exp.is_negative and node.base.is_positive is not True:
            if node.base not in out:
                out.append(node.base)
    return out


def _scale(base: sp.Expr, values: dict[str, np.ndarray], n: int) -> np.ndarray:
    parts = sp.Add.make_args(sp.expand(base))
    return np.max(np.stack([np.abs(numeric(p, values)) * np.ones(n) for p in parts]), axis=0)


def signed_by_design(r: Result) -> bool:
    """A bound with a subtracted part (a difference of losses, a descent term): its sign is the user's input."""
    return any(any(a.could_extract_minus_sign() for a in sp.Add.make_args(sp.expand(t.expr))) for t in r.terms)


def _finding(r: Result, s: Sample, i: int, printed: str, found: str) -> Finding:
    point = s.point(i)
    return Finding(
        result=r.id,
        check="validity",
        printed=printed,
        found=found,
        severity="bound invalid",
        seed=seed_location(r.provenance),
        witness=point,
        reevaluations=(
            Reevaluation(
                result=r.id,
                params=point,
                value=s.value(i),
                applies=bool(np.broadcast_to(np.asarray(s.ev.applies, dtype=bool), (s.size,))[i]),
            ),
        ),
    )


def check(r: Result, ctx: Context) -> list[Finding]:
    """The validity check on ``r`` over the points where its stated conditions hold: a denominator that vanishes
    or turns negative, a bound that is not finite (or not positive, for a theorem, corollary or proposition),
    and a validity condition of the proof that fails."""
    if not r.explicit or not r.terms:
        return []
    s = ctx.sample_for(r, "validity")
    if s is None:
        return []
    stated = np.broadcast_to(np.asarray(s.ev.statement_holds, dtype=bool), (s.size,))
    if not stated.any():
        ctx.skip(r, "validity", "the statement's conditions hold at none of the points drawn")
        return []
    out: list[Finding] = []
    values = {k: np.broadcast_to(np.asarray(v, dtype=float), (s.size,)) for k, v in s.ev.params.items()}
    value = np.broadcast_to(np.asarray(s.ev.value, dtype=float), (s.size,))
    # points where a value underflows to a denormal say nothing about the bound, only about float64
    normal = np.all([np.abs(v) > 1e-250 for v in values.values()], axis=0) if values else np.ones(s.size, bool)
    bad = stated & normal & ~np.isfinite(value)
    if r.kind in POSITIVE_KINDS and not signed_by_design(r):
        bad |= stated & np.isfinite(value) & (value <= 0)
    for base in denominators(r.bound_expr):
        d = numeric(base, values) * np.ones(s.size)
        vanish = stated & (d <= 1e-9 * _scale(base, values, s.size))
        if vanish.any():
            i = int(np.flatnonzero(vanish)[np.argmin(d[vanish])])
            out.append(
                _finding(
                    r,
                    s,
                    i,
                    sp.sstr(base),
                    f"the denominator {sp.sstr(base)} reaches {d[i]:.3g} where every stated condition holds "
                    f"(at {int(vanish.sum())} of {int(stated.sum())} points drawn, the step boundary included)",
                )
            )
            bad &= ~vanish  # reported once, by its cause
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        out.append(
            _finding(r, s, i, r.statement or r.lhs, f"the bound is {value[i]:.6g} where every stated condition holds")
        )
    for h in r.hypotheses:
        if h.kind != "validity" or h.source == "statement":
            continue
        holds = np.broadcast_to(np.asarray(next(c for c in s.ev.hypotheses if c.name == h.name).holds), (s.size,))
        fails = stated & ~holds
        if fails.any():
            i = int(np.flatnonzero(fails)[0])
            f = _finding(
                r,
                s,
                i,
                h.printed,
                f"the {h.source} validity condition {h.name} fails at {int(fails.sum())} of {int(stated.sum())} "
                "points where every stated condition holds",
            )
            rv = Reevaluation(result=r.id, params=f.witness, value=s.value(i), hypothesis=h.name, holds=False)
            out.append(
                Finding(
                    result=f.result,
                    check=f.check,
                    printed=f.printed,
                    found=f.found,
                    severity=f.severity,
                    seed=f.seed + (f"; {h.where}" if h.where else ""),
                    witness=f.witness,
                    reevaluations=(rv,),
                )
            )
    return out
