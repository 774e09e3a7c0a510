r"""Values an edition sets itself (issue 24): a corollary's step choice its bound is derived at, which a user may
not give -- the bound would be reported at the choice while the run used another step.

:func:`chosen` finds them from the result's own conditions and rules; :func:`check_chosen` refuses a given value
(or a value for a name the choice is derived from) in one line naming the rule and the result that takes the name.
Example: Corollary 4.2 of MU-SplitFed (seed 000) sets :math:`\eta = 1/\sqrt{d\,\tau\,T}`; ``bound
mu_splitfed/cor4.2@proof ... eta=0.5`` used to evaluate the bound at the choice and report that it applied at
:math:`\eta = 0.5`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

import sympy as sp

from .defaults import Default
from .errors import ParameterError
from .result import Result


@cache
def chosen(r: Result) -> dict[str, Default]:
    """The names an edition sets itself and a user may not: a corollary's choice (Corollary 4.2's
    eta = 1/sqrt(d tau T)) that its bound does not contain -- the bound is derived at that value only -- restated by
    a proof or implicit condition ``name = formula`` and by no condition of the statement (a statement that prints
    the choice, or couples the name to others, checks a given value itself: Remark 2's choices, Corollary 4.2's
    split). Constants the statement is printed at (eta_g = 1) are sfltheory.evaluate's own check. Name -> rule."""
    if not r.explicit:
        return {}
    in_bound = {s.name for s in r.bound_expr.free_symbols}
    stated: set[str] = set()
    for h in r.hypotheses:
        if h.source == "statement" and h.kind in ("coupling", "choice"):
            stated |= {s.name for s in h.lhs.free_symbols | h.rhs.free_symbols}
    out: dict[str, Default] = {}
    for h in r.hypotheses:
        if h.kind != "choice" or h.rel != "==" or h.source == "statement" or not isinstance(h.lhs, sp.Symbol):
            continue
        name = h.lhs.name
        if name in in_bound or name in stated or name in out:
            continue
        rule = next(
            (d for d in r.defaults if d.name == name and not d.fixed and sp.simplify(d.expr - h.rhs) == 0), None
        )
        if rule is not None:
            out[name] = rule
    return out


def check_chosen(
    r: Result, given_as: Mapping[str, str], fired: Mapping[str, Default], *, papers: Iterable[Result] = ()
) -> None:
    """A value for a name the edition sets itself (:func:`chosen`) -- given, or given for a name another rule
    derives it from (eta = eta_s) -- is refused in one line naming the rule and a result that takes the name
    (issue 24: ``bound mu_splitfed/cor4.2@proof ... eta=0.5`` evaluated (9), derived at eta = 1/sqrt(d tau T), and
    reported that it applied at eta = 0.5). ``papers``: the results of ``r``'s paper, among which the one to use
    instead is named (the catalogue imports the papers, which import this module: the caller passes them)."""
    for name, rule in chosen(r).items():
        if name in given_as:
            culprit, via = given_as[name], ""
        elif name in fired and fired[name] is not rule:
            culprit = _given_source(name, given_as, fired)
            via = f" (and {name} = {sp.sstr(fired[name].expr)} would replace it)"
        else:
            continue
        other = _takes(r, name, papers)
        use = f" or use {other}, whose bound takes {name}" if other else ""
        raise ParameterError(
            culprit,
            f"{r.id} sets {name} = {sp.sstr(rule.expr)} itself{via}: its bound holds at that {name} only; drop it{use}",
        )


def _given_source(name: str, given_as: Mapping[str, str], fired: Mapping[str, Default]) -> str:
    """The given name (as typed) that ``name``'s derivation reads, directly or through other derived names."""
    todo, seen = [name], set()
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.add(n)
        if n in given_as and n != name:
            return given_as[n]
        if n in fired:
            todo += sorted(fired[n].reads)
    return name


def _condition_keys(r: Result) -> set[tuple[str, str, str]]:
    return {(sp.srepr(sp.expand(h.lhs)), h.rel, sp.srepr(sp.expand(h.rhs)))
            for h in r.hypotheses if h.kind in ("step_size", "domain", "validity")}  # fmt: skip


def _takes(r: Result, name: str, papers: Iterable[Result]) -> str | None:
    """The explicit theorem (or proposition) of ``r``'s paper whose bound contains ``name`` and which shares the
    most conditions with ``r`` (the main-text edition on a tie): where a given value of ``name`` is evaluated."""
    mine = _condition_keys(r)
    best: tuple[int, int] | None = None
    found: str | None = None
    for x in papers:
        if x is r or not x.explicit or x.kind not in ("theorem", "proposition"):
            continue
        if name not in {s.name for s in x.bound_expr.free_symbols}:
            continue
        key = (len(mine & _condition_keys(x)), int(x.edition == ""))
        if best is None or key > best:
            best, found = key, x.id
    return found


__all__ = ["check_chosen", "chosen"]
