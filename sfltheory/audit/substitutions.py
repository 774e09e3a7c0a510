"""Check 8: silent substitutions.

A parameter with a default (a fixed eta_g = 1 or P = 1, a corollary's step size or smoothing radius) that the
bound does not contain was baked into it. Given another value, evaluation must use it or refuse it (a
condition of the statement fails); it must never report that the bound applies for a value it did not use.
Severity from a reference where the parameter is not baked in (the parent, or another edition): the bound
grows there -> bound invalid; it shrinks -> cosmetic; no reference -> unstated condition.
"""

from __future__ import annotations

import numpy as np

from .. import lexicon
from ..errors import SflTheoryError
from ..evaluate import evaluate
from ..result import Result
from .context import Context, seed_location
from .findings import Finding, Reevaluation, Severity
from .lineage import editions_of


def _others(v: float, name: str) -> list[float]:
    if lexicon.is_known(name) and lexicon.get(name).integer:
        return [v + 1.0] + ([v - 1.0] if v > 1 else [])
    out = [v * 0.5, v * 2.0]
    if lexicon.is_known(name) and lexicon.get(name).domain == "fraction":
        out = [x for x in out if x <= 1.0]
    return out


def _reference(r: Result, name: str, ctx: Context) -> Result | None:
    p = ctx.parent(r)
    cands = ([p] if p is not None else []) + [e for e in editions_of(r, ctx.catalogue) if e is not r and e.explicit]
    for c in cands:
        if any(s.name == name for s in c.bound_expr.free_symbols):
            return c
    return None


def _severity(ref: Result | None, before: dict[str, float], after: dict[str, float]) -> Severity:
    if ref is None:
        return "unstated condition"
    try:
        a = float(evaluate(ref, {k: v for k, v in before.items() if k in ref.parameters()}).value)
        b = float(evaluate(ref, {k: v for k, v in after.items() if k in ref.parameters()}).value)
    except SflTheoryError:
        return "unstated condition"
    return "bound invalid" if b > a * (1 + 1e-9) else "cosmetic"


def check(r: Result, ctx: Context) -> list[Finding]:
    """The substitutions check on ``r``: one finding per parameter with a non-trivial default that the bound does
    not contain and that evaluation accepts, at another value, as applying while returning the bound unchanged
    (severity from a reference, the parent or another edition, whose bound contains the parameter)."""
    if not r.explicit:
        return []
    in_bound = {s.name for s in r.bound_expr.free_symbols}
    # a default that only renames another parameter (eta_s = eta) is no substitution of its own
    names = list(dict.fromkeys(d.name for d in r.defaults if d.name not in in_bound and not d.expr.is_Symbol))
    if not names:
        return []
    s = ctx.sample(r)
    if s is None or not s.applies.any():
        ctx.skip(r, "substitutions", "the bound applies at none of the points drawn")
        return []
    i = int(np.flatnonzero(s.applies)[0])
    base = s.point(i)
    resolved = s.resolved(i)
    value = s.value(i)
    out = []
    for name in names:
        if name in base or name not in resolved:
            continue
        for v in _others(resolved[name], name):
            trial = {**base, name: v}
            try:
                ev = evaluate(r, trial)
            except SflTheoryError:
                continue  # refused: fine
            same = np.isclose(float(ev.value), value, rtol=1e-12, atol=0.0)
            if not (same and bool(ev.applies)):
                continue
            ref = _reference(r, name, ctx)
            after = {k: float(x) for k, x in ev.params.items()}
            out.append(
                Finding(
                    result=r.id,
                    check="substitutions",
                    printed=f"{name} = {next(d.expr for d in r.defaults if d.name == name)}",
                    found=(
                        f"given {name} = {v:.6g}, evaluation reports that the bound applies and returns "
                        f"{float(ev.value):.6g}, the value at the default {name} = {resolved[name]:.6g}: the bound "
                        f"does not contain {name}" + (f" (in {ref.id} it does)" if ref is not None else "")
                    ),
                    severity=_severity(ref, resolved, after),
                    seed=seed_location(r.provenance),
                    witness=trial,
                    reevaluations=(
                        Reevaluation(result=r.id, params=base, value=value, applies=True),
                        Reevaluation(result=r.id, params=trial, value=float(ev.value), applies=True),
                    ),
                )
            )
            break
    return out
