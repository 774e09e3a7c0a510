"""Check 2: hypotheses hold together.

(a) Where every condition a result's statement prints holds, does every condition its proof uses hold too?
(b) At a corollary's choices, which of its parent's conditions (step-size branches, couplings, the proof's
    own) hold, and for which T (or d, M, tau): the requirements the paper leaves unstated.

A condition that fails is reported with the point and, where SymPy can solve it, the threshold it puts on T
(or d, M, tau).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from .. import solvecache
from .. import vocabulary as vocab
from ..defaults import firing_order
from ..evaluate import Evaluation
from ..result import Hypothesis, Result
from .context import Context, seed_location
from .corollary import at_parent, parent_extra
from .findings import Finding, Reevaluation
from .lineage import condition_key
from .sampling import Sample, base_names

SOLVE_FOR = ("T", "d", "M", "tau")


def _holds(ev: Evaluation, name: str, n: int) -> np.ndarray:
    h = next(h for h in ev.hypotheses if h.name == name)
    return np.broadcast_to(np.asarray(h.holds, dtype=bool), (n,))


def threshold(r: Result, h: Hypothesis, point: dict[str, float]) -> str:
    """``h`` at ``r``'s defaults, solved for the first of T, d, M, tau it involves ('' if SymPy cannot)."""
    form = _solved(r, h)
    if form is None:
        return ""
    name, root, gap = form
    x = vocab.symbol(name)
    vals = {vocab.symbol(k): v for k, v in point.items() if k != name}
    try:
        at = float(root.subs(vals))
        probe = float(gap.subs(vals).subs(x, 2 * at))
    except (TypeError, ValueError):
        return ""
    return f"it holds iff {name} {'>=' if probe >= 0 else '<='} {sp.sstr(root)}"


@cache
def _solved(r: Result, h: Hypothesis) -> tuple[str, sp.Expr, sp.Expr] | None:
    """(name, root, gap): the gap rhs - lhs at ``r``'s defaults and its one root in T, d, M or tau."""
    subs: dict[str, sp.Expr] = {b: vocab.symbol(b) for b in base_names(r, r.parameters())}
    for d in firing_order(r.defaults, subs):
        subs[d.name] = d.expr.subs({vocab.symbol(k): v for k, v in subs.items()}, simultaneous=True)
    table = {vocab.symbol(k): v for k, v in subs.items()}
    gap = (h.rhs - h.lhs).subs(table, simultaneous=True)
    if sp.count_ops(gap) > 40:
        return None
    for name in SOLVE_FOR:
        x = vocab.symbol(name)
        if x not in gap.free_symbols:
            continue

        def solve(x: sp.Symbol = x) -> tuple[sp.Expr, ...] | None:
            try:
                roots = [z for z in sp.solve(sp.Eq(sp.together(gap), 0), x) if z.is_real is not False]
            except (NotImplementedError, ValueError, TypeError):
                return None
            return (sp.simplify(roots[0]),) if len(roots) == 1 else None

        # kept on disk between runs (sfltheory.solvecache): 7 s of a 35 s catalogue audit
        root = solvecache.cached(solvecache.key("together root", gap, x), solve)
        return (name, root[0], gap) if root else None
    return None


def _own(r: Result, s: Sample) -> list[Finding]:
    """(a): the proof's conditions where the statement's hold."""
    out = []
    mask = s.applies
    for h in r.hypotheses:
        if h.source == "statement" or h.kind == "validity":
            continue
        fails = mask & ~_holds(s.ev, h.name, s.size)
        if not fails.any():
            continue
        i = int(np.flatnonzero(fails)[0])
        point = s.point(i)
        out.append(
            Finding(
                result=r.id,
                check="together",
                printed=h.printed,
                found=(
                    f"where the statement's conditions hold, the {h.source} condition {h.name} fails at "
                    f"{int(fails.sum())} of {int(mask.sum())} points drawn"
                ),
                severity="unstated condition",
                seed=seed_location(r.provenance) + (f"; {h.where}" if h.where else ""),
                witness=point,
                reevaluations=(
                    Reevaluation(result=r.id, params=point, value=s.value(i), hypothesis=h.name, holds=False),
                ),
            )
        )
    return out


def _parents(r: Result, p: Result, s: Sample) -> list[Finding]:
    """(b): the parent's conditions at the corollary's choices, where the corollary applies."""
    pe, keep = at_parent(p, s.ev)
    if pe is None:
        return []
    idx = np.flatnonzero(keep)
    n = int(idx.size)
    mask = s.applies[keep]
    mine = {condition_key(h) for h in r.hypotheses if h.source == "statement"}
    out = []
    for h in p.hypotheses:
        if h.kind == "validity" or condition_key(h) in mine:
            continue
        fails = mask & ~_holds(pe, h.name, n)
        if not fails.any():
            continue
        i = int(np.flatnonzero(fails)[0])
        j = int(idx[i])
        point = s.point(j)
        params_p = {k: v for k, v in s.resolved(j).items() if k in p.parameters()}
        value = float(np.broadcast_to(np.asarray(pe.value, dtype=float), (n,))[i])
        cond = threshold(r, h, s.resolved(j))
        out.append(
            Finding(
                result=r.id,
                check="together",
                printed=h.printed,
                found=(
                    f"at the corollary's choices, {p.id}'s {h.source} condition {h.name} fails at "
                    f"{int(fails.sum())} of {int(mask.sum())} points where the corollary applies"
                    f"{'; ' + cond if cond else ''}"
                ),
                severity="unstated condition",
                seed=seed_location(r.provenance),
                witness=point,
                reevaluations=(
                    Reevaluation(result=r.id, params=point, value=s.value(j), applies=True),
                    Reevaluation(result=p.id, params=params_p, value=value, hypothesis=h.name, holds=False),
                ),
            )
        )
    return out


def check(r: Result, ctx: Context) -> list[Finding]:
    """The together check on ``r``: (a) the proof's conditions that fail where the statement's hold, and, for a
    corollary, (b) the parent's conditions that fail at the corollary's choices."""
    if not r.explicit or not r.hypotheses:
        return []
    s = ctx.sample_for(r, "together")
    if s is None:
        return []
    out = _own(r, s)
    p = ctx.parent(r)
    if p is not None:
        sp_ = ctx.sample(r, parent_extra(r, p))
        if sp_ is not None:
            out += _parents(r, p, sp_)
    return out
