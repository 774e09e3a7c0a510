r"""Default derivation rules: how a result fills in a parameter the user did not give.

A result states some parameters as functions of others -- a corollary's step choice
(:math:`\eta=\sqrt{M}/(L\sqrt T)`), a convention of the paper (equal aggregation weights,
:math:`\sum_k\alpha_k^2=1/M`), a constant the statement is printed at (:math:`\eta_g=1`). Each is a named
:class:`Default`; the dimension relations every result accepts (:math:`d=d_c+d_s`) are :data:`GENERIC`.

Resolution order (the only one; :func:`firing_order` implements it, and every consumer -- evaluation, the
audit, the planner -- goes through it):

1. a value the user gives is never replaced (a given value that contradicts a fixed default is refused by
   :func:`sfltheory.evaluate.resolve`, not overridden);
2. a rule *fires* when its target is unknown and every name its expression reads is known;
3. passes: the result's own rules in the order it declares them, then :data:`GENERIC`; a rule that fires
   makes its target known to the rules after it; passes repeat until one fires nothing. The first rule to
   fire for a target wins, so a result that declares two rules for one target (``eta`` from ``eta_c`` and
   ``eta_c`` from ``eta``) gets whichever its given names allow.

The order of declaration therefore matters only between two rules for the same target; a rule may read a
name that a later rule derives (the next pass fires it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sympy as sp

from . import vocabulary as vocab


@dataclass(frozen=True, kw_only=True)
class Default:
    """``name := expr`` when ``name`` is not given and every name ``expr`` reads is known.

    ``rule`` says where the relation comes from (a corollary's choice, a convention of the paper, the value
    the statement is printed at), as shown by ``sfltheory show``.
    """

    name: str
    expr: sp.Expr
    rule: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "expr", sp.sympify(self.expr))
        if not self.rule.strip():
            raise ValueError(f"default for {self.name}: a rule must say where the relation comes from")

    @property
    def reads(self) -> frozenset[str]:
        """The names the rule needs."""
        return frozenset(s.name for s in self.expr.free_symbols)

    @property
    def fixed(self) -> bool:
        """A constant (the statement is printed at this value), not a relation between parameters."""
        return bool(self.expr.is_Number)


GENERIC: tuple[Default, ...] = (
    Default(
        name="d_s", expr=vocab.symbol("d") - vocab.symbol("d_c"), rule="the server side holds the rest: d_s = d - d_c"
    ),
    Default(
        name="d_c", expr=vocab.symbol("d") - vocab.symbol("d_s"), rule="the client side holds the rest: d_c = d - d_s"
    ),
    Default(name="d", expr=vocab.symbol("d_c") + vocab.symbol("d_s"), rule="the model is both sides: d = d_c + d_s"),
)


def firing_order(rules: Sequence[Default], known: Iterable[str]) -> list[Default]:
    """The rules that fire, in the order they fire, when ``known`` names are given (see the module's
    resolution order). Every rule in the list reads only names given or derived before it."""
    have = set(known)
    fired: list[Default] = []
    everything = (*rules, *GENERIC)
    while True:
        before = len(fired)
        for d in everything:
            if d.name not in have and d.reads <= have:
                have.add(d.name)
                fired.append(d)
        if len(fired) == before:
            return fired


def derivable(rules: Sequence[Default], known: Iterable[str]) -> set[str]:
    """Every name known once the rules have fired on ``known``."""
    have = set(known)
    return have | {d.name for d in firing_order(rules, have)}


def targets(rules: Sequence[Default]) -> set[str]:
    """The names some rule (the result's or a generic one) can derive."""
    return {d.name for d in (*rules, *GENERIC)}
