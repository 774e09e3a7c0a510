r"""Default derivation rules: how a result fills in a parameter the user did not give.

A result states some parameters as functions of others -- a corollary's step choice
(:math:`\eta=\sqrt{M}/(L\sqrt T)`), a convention of the paper (equal aggregation weights,
:math:`\sum_k\alpha_k^2=1/M`), a constant the statement is printed at (:math:`\eta_g=1`). Each is a named
:class:`Default`; the dimension relations every result accepts (:math:`d=d_c+d_s`) are :data:`GENERIC`.

Resolution order (the only one; :func:`firing_order` implements it, and every consumer -- evaluation, the
audit, the planner -- goes through it):

1. a value the user gives is never replaced (a given value that contradicts a fixed default is refused by
   :func:`sfltheory.evaluate.resolve`, not overridden; so is a value for a name the edition sets itself, a
   corollary's step choice its bound is derived at: :mod:`sfltheory.fixed`);
2. a rule *fires* when its target is unknown and every name its expression reads is known;
3. passes: the result's own rules in the order it declares them, then :data:`GENERIC`; a rule that fires
   makes its target known to the rules after it; passes repeat until one fires nothing. The first rule to
   fire for a target wins, so a result that declares two rules for one target (``eta`` from ``eta_c`` and
   ``eta_c`` from ``eta``) gets whichever its given names allow.

The order of declaration therefore matters only between two rules for the same target; a rule may read a
name that a later rule derives (the next pass fires it).

Whole counts (issue 24): a rule that derives a count (a parameter the vocabulary marks integer: rounds, local
steps, clients) from real inputs may land between integers -- Remark 2's rounds to an eps-stationary point
d/(hNB eps^2) = 0.375. The count used is made whole as the rule's ``rounding`` says, and the derived value is kept
and shown next to it (:func:`whole`), never silently replaced:

* ``"up"`` (the default): a number of rounds or steps needed to reach something is its ceiling;
* ``"nearest"``: the paper takes the integer nearest a ratio (MU-SplitFed's tau = t_straggler/t_server);
* ``"none"``: an identity (d = d_c + d_s) or a closed form the paper itself treats as a real number (a corollary's
  split d_c = sqrt(d/tau)); the value is used as derived.

A count the user gives is never rounded: a fractional one is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import sympy as sp

from . import vocabulary as vocab

Rounding = Literal["up", "nearest", "none"]
ROUNDINGS: tuple[str, ...] = ("up", "nearest", "none")
ROUNDING_WORDS = {"up": "rounded up to a whole count", "nearest": "rounded to the nearest whole count"}


def whole(value: Any, rounding: str) -> Any:
    """``value`` (a float or an array) made whole as ``rounding`` says (``"none"``: unchanged). A value within 1e-9
    (relative) of an integer is that integer: a count computed in floats is not rounded up for its last ulp."""
    if rounding == "none":
        return value
    a = np.asarray(value, dtype=float)
    near = np.round(a)
    close = np.abs(a - near) <= 1e-9 * np.maximum(1.0, np.abs(near))
    made = np.ceil(a) if rounding == "up" else np.floor(a + 0.5)
    with np.errstate(invalid="ignore"):
        out = np.where(~np.isfinite(a), a, np.where(close, near, made))
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, kw_only=True)
class Default:
    """``name := expr`` when ``name`` is not given and every name ``expr`` reads is known.

    ``rule`` says where the relation comes from (a corollary's choice, a convention of the paper, the value
    the statement is printed at), as shown by ``sfltheory show``.
    """

    name: str
    expr: sp.Expr
    rule: str
    rounding: Rounding = "up"  # how a derived count that lands between integers is made whole (module docstring)

    def __post_init__(self) -> None:
        object.__setattr__(self, "expr", sp.sympify(self.expr))
        if not self.rule.strip():
            raise ValueError(f"default for {self.name}: a rule must say where the relation comes from")
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"default for {self.name}: rounding must be one of {', '.join(ROUNDINGS)}")

    @property
    def reads(self) -> frozenset[str]:
        """The names the rule needs."""
        return frozenset(s.name for s in self.expr.free_symbols)

    @property
    def fixed(self) -> bool:
        """A constant (the statement is printed at this value), not a relation between parameters."""
        return bool(self.expr.is_Number)


GENERIC: tuple[Default, ...] = (
    # identities: whole from whole inputs, and a real split (a corollary's d_c = sqrt(d/tau)) stays consistent
    Default(
        name="d_s",
        expr=vocab.symbol("d") - vocab.symbol("d_c"),
        rule="the server side holds the rest: d_s = d - d_c",
        rounding="none",
    ),
    Default(
        name="d_c",
        expr=vocab.symbol("d") - vocab.symbol("d_s"),
        rule="the client side holds the rest: d_c = d - d_s",
        rounding="none",
    ),
    Default(
        name="d",
        expr=vocab.symbol("d_c") + vocab.symbol("d_s"),
        rule="the model is both sides: d = d_c + d_s",
        rounding="none",
    ),
)


# --- values an edition sets itself (issue 24) ---------------------------------------------------------------------
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
