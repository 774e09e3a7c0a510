"""Check 8: silent substitutions.

A parameter with a default (a fixed eta_g = 1 or P = 1, a corollary's step size or smoothing radius) that the
bound does not contain was baked into it. Given another value that evaluation accepts as applying while returning
the bound unchanged, is that the paper's claim or only the encoding's?

* the statement's own conditions allow the value (Corollary 4.2's lambda^2 <= 1/(sqrt(tau T) d^{5/2} L) allows a
  smaller lambda): the paper claims its printed bound there. Against a reference whose bound contains the parameter
  (the parent, or another edition): where the reference grows, the printed bound, derived at the default, does not
  cover the value: a paper erratum, ``bound invalid``. Where it shrinks, the paper's '<=' is harmless: no finding.
* no condition of the statement reads the parameter (Theorem 2's display (62) is written in eta, its coupling
  eta_c = 4 eta printed in the proof only), or no reference can tell: evaluation accepting the value is the
  package's own handling, not the paper's. That is a note about the encoding, recorded as a skip, never filed as
  a paper erratum.
"""

from __future__ import annotations

import numpy as np

from .. import lexicon
from ..errors import SflTheoryError
from ..evaluate import evaluate
from ..result import Result
from .context import Context, seed_location
from .findings import Finding, Reevaluation
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


def _grows(ref: Result, before: dict[str, float], after: dict[str, float]) -> bool | None:
    """Whether ``ref``'s bound is larger at ``after`` than at ``before`` (None: it cannot be evaluated there)."""
    try:
        a = float(evaluate(ref, {k: v for k, v in before.items() if k in ref.parameters()}).value)
        b = float(evaluate(ref, {k: v for k, v in after.items() if k in ref.parameters()}).value)
    except SflTheoryError:
        return None
    return b > a * (1 + 1e-9)


def stated_names(r: Result) -> set[str]:
    """The names a condition of ``r``'s statement reads: the values the paper itself says its bound holds for."""
    out: set[str] = set()
    for h in r.hypotheses:
        if h.source == "statement":
            out |= {s.name for s in h.lhs.free_symbols | h.rhs.free_symbols}
    return out


def check(r: Result, ctx: Context) -> list[Finding]:
    """The substitutions check on ``r``: one finding (``bound invalid``) per parameter with a non-trivial default that
    the bound does not contain, that the statement's conditions allow at another value where evaluation reports the
    bound unchanged, and where a reference whose bound contains it (the parent, or another edition) is larger; an
    encoding note (a skip) where the paper's statement does not speak to the value."""
    if not r.explicit:
        return []
    in_bound = {s.name for s in r.bound_expr.free_symbols}
    # a default that only renames another parameter (eta_s = eta) is no substitution of its own
    names = list(dict.fromkeys(d.name for d in r.defaults if d.name not in in_bound and not d.expr.is_Symbol))
    if not names:
        return []
    s = ctx.sample(r)
    if s is None or not s.admissible.any():
        ctx.skip(r, "substitutions", "the bound applies at none of the points drawn")
        return []
    i = int(np.flatnonzero(s.admissible)[0])
    base = s.point(i)
    resolved = s.resolved(i)
    value = s.value(i)
    stated = stated_names(r)
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
            grows = _grows(ref, resolved, after) if ref is not None and name in stated else None
            if grows is None or ref is None:
                ctx.skip(
                    r,
                    "substitutions",
                    f"encoding note, not a paper erratum: given {name} = {v:.6g}, evaluation reports that the bound "
                    f"applies at its value for the default {name} = {resolved[name]:.6g}, which the bound does not "
                    "contain; "
                    + (
                        f"no condition of the statement reads {name}: the value is the package's handling"
                        if name not in stated
                        else f"no reference bound containing {name} tells whether the printed bound covers it"
                    ),
                )
                break
            if not grows:
                break  # the statement allows the value and the bound it was derived from only shrinks: harmless
            out.append(
                Finding(
                    result=r.id,
                    check="substitutions",
                    printed=f"{name} = {next(d.expr for d in r.defaults if d.name == name)}",
                    found=(
                        f"given {name} = {v:.6g}, which the statement's conditions allow, evaluation reports that the "
                        f"bound applies and returns {float(ev.value):.6g}, the value at the default {name} = "
                        f"{resolved[name]:.6g}: the bound does not contain {name}, and {ref.id}, which does, is "
                        "larger there"
                    ),
                    severity="bound invalid",
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
