"""Check 3: editions agree.

The main-text statement against each other edition (appendix restatement, the proof's last display, ...)
that bounds the same quantity: which terms differ, and which bound is tighter and by how much at the
points drawn for the statement; where the bounds agree, which step sizes each allows. A proof that derives
more than the statement prints means the statement's constant is off (or, unbounded, the bound invalid);
a statement looser than its proof, or stricter in its step size, is cosmetic; a statement that allows steps another
edition of it does not (its proof's, or its appendix restatement's condition) leaves a condition unstated.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..errors import SflTheoryError
from ..result import Result
from ..stepsize import max_step
from .context import Context, seed_location
from .corollary import INVALID_RATIO, at_parent, takes
from .findings import Finding, Reevaluation, Severity
from .lineage import editions_of


def proof_like(e: Result) -> bool:
    """Whether edition ``e`` is the proof's own (its edition or its printed label names a proof)."""
    return "proof" in e.edition or "proof" in e.provenance.label.lower()


def term_differences(a: Result, b: Result) -> list[str]:
    """Names of the terms that differ between two editions (present in one only, or another formula)."""
    ta, tb = {t.name: t.expr for t in a.terms}, {t.name: t.expr for t in b.terms}
    out = sorted(set(ta) ^ set(tb))
    rng = np.random.default_rng(0)  # an identity test at random positive points: exact enough, and fast
    for name in sorted(set(ta) & set(tb)):
        d = ta[name] - tb[name]
        syms = sorted(d.free_symbols, key=lambda x: x.name)
        if not syms:
            if d != 0:
                out.append(name)
            continue
        f = sp.lambdify(syms, d, "numpy")
        scale = sp.lambdify(syms, sp.Abs(ta[name]) + sp.Abs(tb[name]), "numpy")
        pts = [rng.uniform(0.5, 3.0, 3) for _ in syms]
        with np.errstate(all="ignore"):
            if np.any(np.abs(f(*pts)) > 1e-9 * np.abs(scale(*pts))):
                out.append(name)
    return out


def _pair(r: Result, e: Result, ctx: Context) -> Finding | None:
    s = ctx.sample(r, sorted(set(e.parameters()) - set(r.parameters())))
    if s is None:
        return None
    ee, keep = at_parent(e, s.ev)
    if ee is None:
        return None
    idx = np.flatnonzero(keep)
    mask = s.admissible[keep]
    if not mask.any():
        return None
    mine = np.broadcast_to(np.asarray(s.ev.value, dtype=float), (s.size,))[keep]
    theirs = np.broadcast_to(np.asarray(ee.value, dtype=float), mine.shape)
    with np.errstate(all="ignore"):
        ratio = np.where(mask & (mine > 0), theirs / mine, np.nan)
    diffs = term_differences(r, e)
    if np.all(np.isnan(ratio)):
        return None
    lo, hi = float(np.nanmin(ratio)), float(np.nanmax(ratio))
    severity: Severity
    if hi > 1 + 1e-9 or lo < 1 - 1e-9:
        if proof_like(e) and hi > 1 + 1e-9:
            severity = "bound invalid" if hi >= INVALID_RATIO else "constant off"
        elif proof_like(e):
            severity = "cosmetic"
        else:
            severity = "constant off"
        i = int(np.nanargmax(ratio))
        what = f"terms that differ: {', '.join(diffs)}; " if diffs else ""
        found = (
            f"{what}{e.id} / {r.id} ranges from {lo:.6g} to {hi:.6g} over {int(mask.sum())} points "
            "where the statement applies"
        )
    else:
        step = _steps(r, e, s.point(int(idx[0])))
        if not step:
            return None
        severity, found, i = step[0], step[1], 0
    j = int(idx[i])
    point = s.point(j)
    params_e = {k: v for k, v in s.resolved(j).items() if k in takes(e)}
    return Finding(
        result=r.id,
        check="editions",
        printed=r.statement or r.lhs,
        found=found,
        severity=severity,
        seed=seed_location(r.provenance) + f"; vs {seed_location(e.provenance)}",
        witness=point,
        reevaluations=(
            Reevaluation(result=r.id, params=point, value=s.value(j)),
            Reevaluation(result=e.id, params=params_e, value=float(np.broadcast_to(ee.value, mine.shape)[i])),
        ),
    )


def _steps(r: Result, e: Result, point: dict[str, float]) -> tuple[Severity, str] | None:
    if r.step is None or e.step != r.step:
        return None
    given = {k: v for k, v in point.items() if k != r.step}
    try:
        a = float(max_step(r, given).max_step)
        b = float(max_step(e, {k: v for k, v in given.items() if k in e.parameters()}).max_step)
    except (SflTheoryError, TypeError):
        return None
    if not (np.isfinite(a) and np.isfinite(b)) or np.isclose(a, b, rtol=1e-9):
        return None
    if a > b:
        # the statement allows steps another edition of it (the proof, or the appendix restating it) does not: the
        # statement leaves a condition out, whichever edition prints it
        return (
            "unstated condition",
            f"same bound; {r.id} allows {r.step} up to {a:.6g}, {e.id} only up to {b:.6g} ({a / b:.4g}x)",
        )
    return (
        "cosmetic",
        f"same bound; {r.id} allows {r.step} up to {a:.6g}, {e.id} up to {b:.6g}: the statement is stricter",
    )


def check(r: Result, ctx: Context) -> list[Finding]:
    """The editions check on ``r`` (a main-text statement): one finding per other explicit edition of it that
    bounds the same quantity and disagrees with it (:func:`term_differences`, compared at the points drawn)."""
    if r.edition or not r.explicit:
        return []
    out = []
    for e in editions_of(r, ctx.catalogue):
        if e is r or not e.explicit or e.lhs != r.lhs:
            continue
        f = _pair(r, e, ctx)
        if f is not None:
            out.append(f)
    return out
