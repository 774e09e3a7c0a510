"""Check 5: sign and validity.

Over the admissible region (every condition the statement prints holds; the step drawn up to and including
the largest one allowed): is the bound finite, and positive for a theorem, corollary or proposition? Can a
denominator that must stay positive (1 - Gamma lambda_2, 2m - 3, 1 - 4N^2K^2 eta^2 L^2 ...) vanish or turn
negative? Does a validity condition the proof needs fail where the statement's conditions hold?
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..evaluate import HypothesisCheck
from ..result import Hypothesis, Result
from .context import Context, seed_location
from .findings import Finding, Reevaluation
from .sampling import Sample, corners
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
    s = ctx.sample_for(r, "validity", statement_step=True)  # up to the statement's own largest step
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
        where, d, vanish = _vanishing(s, base, stated)
        if not vanish.any():  # not among the points drawn: at the corners where the denominator is least
            c = corners(r, s, np.where(stated, d / np.maximum(_scale(base, values, s.size), 1e-300), np.inf))
            if c is not None:
                where, d, vanish = _vanishing(c, base, _stated(c))
        if vanish.any():
            i = int(np.flatnonzero(vanish)[np.argmin(d[vanish])])
            moved = "" if where is s else "; points moved to small counts and the statement's largest step"
            out.append(
                _finding(
                    r,
                    where,
                    i,
                    sp.sstr(base),
                    f"the denominator {sp.sstr(base)} reaches {d[i]:.3g} where every stated condition holds "
                    f"(at {int(vanish.sum())} of {int(_stated(where).sum())} points drawn, the step boundary "
                    f"included{moved})",
                )
            )
            if where is s:
                bad &= ~vanish  # reported once, by its cause
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        out.append(
            _finding(r, s, i, r.statement or r.lhs, f"the bound is {value[i]:.6g} where every stated condition holds")
        )
    for h in r.hypotheses:
        if h.kind != "validity" or h.source == "statement":
            continue
        where = s
        holds = _holds(where, h)
        fails = stated & ~holds
        if not fails.any():  # not among the points drawn: at the corners where the condition has least slack
            slack = np.broadcast_to(np.asarray(_check_of(s, h).slack, dtype=float), (s.size,))
            c = corners(r, s, np.where(stated, slack, np.inf))
            if c is not None:
                where, holds = c, _holds(c, h)
                fails = np.broadcast_to(np.asarray(c.ev.statement_holds, dtype=bool), (c.size,)) & ~holds
                fails &= np.isfinite(np.broadcast_to(np.asarray(c.ev.value, dtype=float), (c.size,))) | ~holds
        if fails.any():
            i = int(np.flatnonzero(fails)[0])
            n_stated = int(np.broadcast_to(np.asarray(where.ev.statement_holds, dtype=bool), (where.size,)).sum())
            f = _finding(
                r,
                where,
                i,
                h.printed,
                f"the {h.source} validity condition {h.name} fails at {int(fails.sum())} of {n_stated} "
                "points where every stated condition holds"
                + ("" if where is s else " (points moved to small counts and the statement's largest step)"),
            )
            rv = Reevaluation(result=r.id, params=f.witness, value=where.value(i), hypothesis=h.name, holds=False)
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


def _stated(s: Sample) -> np.ndarray:
    return np.broadcast_to(np.asarray(s.ev.statement_holds, dtype=bool), (s.size,))


def _vanishing(s: Sample, base: sp.Expr, stated: np.ndarray) -> tuple[Sample, np.ndarray, np.ndarray]:
    """The denominator ``base`` at every point of ``s`` and where it vanishes or turns negative (stated points)."""
    values = {k: np.broadcast_to(np.asarray(v, dtype=float), (s.size,)) for k, v in s.ev.params.items()}
    d = numeric(base, values) * np.ones(s.size)
    return s, d, stated & (d <= 1e-9 * _scale(base, values, s.size))


def _check_of(s: Sample, h: Hypothesis) -> HypothesisCheck:
    return next(c for c in s.ev.hypotheses if c.name == h.name)


def _holds(s: Sample, h: Hypothesis) -> np.ndarray:
    return np.broadcast_to(np.asarray(_check_of(s, h).holds, dtype=bool), (s.size,))
