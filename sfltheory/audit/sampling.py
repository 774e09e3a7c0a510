"""Seeded parameter points for the numeric checks: which names to draw, how, and the result evaluated there.

A result's parameters split into those a user gives (drawn here, log-uniformly over many orders of
magnitude) and those its defaults derive (a corollary's step size, split, smoothing radius; ``d = d_c + d_s``).
The step a result constrains is drawn as a fraction of the largest step its conditions allow, the boundary
itself included, so the points cover its admissible region. Counts derived by a rule that rounds (rounds to
reach epsilon) are rounded as the rule says and then given explicitly, so every point re-evaluates through
``sfltheory bound`` to the same numbers; a closed form the paper treats as a real number (a corollary's split
d_c = sqrt(d/tau), rounding "none") is kept exact, as the paper's choice is: a witness drawn there is the paper's own
choice, not an integer rounding of it.

Every check honours every condition a result and its proof state (:func:`honoured`): a point where a proof's own
condition fails (Corollary 4.4's tau <= d_s) is no point where the proof's bound is claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np
import sympy as sp

from .. import defaults, lexicon
from ..defaults import Default, firing_order
from ..errors import SflTheoryError
from ..evaluate import Evaluation, evaluate, resolve
from ..result import Result
from ..stepsize import max_step

# (smaller, larger) pairs a valid point must respect.
ORDER: tuple[tuple[str, str], ...] = (("d_c", "d"), ("d_s", "d"), ("n", "M"))

# log10 ranges per kind of parameter
LOG_RANGE: dict[str, tuple[float, float]] = {
    "count": (0.0, 12.0),
    "dimension": (0.0, 12.0),
    "positive": (-6.0, 6.0),
    "fraction": (-6.0, 0.0),
    "step_fraction": (-4.0, 0.0),
}


def derivable(r: Result, given: Iterable[str]) -> set[str]:
    """Names known after ``r``'s defaults (then the generic relations) fire on ``given``, in the one resolution
    order :mod:`sfltheory.defaults` documents."""
    return defaults.derivable(r.defaults, given)


def base_names(r: Result, needed: Iterable[str]) -> list[str]:
    """The fewest names to draw so that ``r``'s defaults derive the rest of ``needed``."""
    need = sorted(set(needed))
    targets = defaults.targets(r.defaults)
    base = [n for n in need if n not in targets]
    while True:
        have = derivable(r, base)
        missing = [n for n in need if n not in have]
        if not missing:
            return base

        def gain(n: str, have: set[str] = have) -> tuple[int, int, int, str]:
            return (len(derivable(r, [*base, n]) - have), int(n == r.step), int(n != "d"), n)

        base.append(max(missing, key=gain))


def _draw(name: str, rng: np.random.Generator, n: int) -> np.ndarray:
    p = lexicon.get(name)
    if p.integer:
        lo, hi = LOG_RANGE["dimension" if p.group == "dimension" else "count"]
        v = np.floor(10 ** rng.uniform(lo, hi, n))
        return np.maximum(v, 0.0 if p.domain == "count0" else 1.0)
    if p.domain == "fraction":
        return 10 ** rng.uniform(*LOG_RANGE["fraction"], n)
    if p.domain == "real":
        return rng.uniform(-1e3, 1e3, n)
    return 10 ** rng.uniform(*LOG_RANGE["positive"], n)


def subset(values: Mapping[str, Any], keep: np.ndarray) -> dict[str, Any]:
    """``values`` restricted to the points ``keep`` (a boolean mask); scalar entries are kept as they are."""
    return {k: (np.asarray(v)[keep] if np.ndim(v) else v) for k, v in values.items()}


def robust(fn: Callable[[dict[str, Any]], Any], values: dict[str, np.ndarray]) -> tuple[Any, np.ndarray]:
    """``fn(values)`` on every point at once; where that raises (a derived value outside its domain at some
    point), drop the points that raise on their own and retry. Returns the output and the kept mask.

    The points that raise are found by group testing (:func:`raising`): ``fn`` checks every point alike and raises
    where any point fails, so a run of points that passes together passes one by one."""
    n = len(next(iter(values.values()))) if values else 0
    keep = np.ones(n, dtype=bool)
    try:
        return fn(values), keep
    except SflTheoryError:
        pass
    keep = ~raising(fn, values, n)
    if not keep.any():
        return None, keep
    try:
        return fn(subset(values, keep)), keep
    except SflTheoryError:
        return None, np.zeros(n, dtype=bool)


def passes(fn: Callable[[dict[str, Any]], Any], values: Mapping[str, np.ndarray], lo: int, hi: int) -> bool:
    """Whether ``fn`` runs without an error on the points ``lo`` to ``hi - 1`` of ``values``."""
    try:
        fn({k: v[lo:hi] for k, v in values.items()})
    except SflTheoryError:
        return False
    return True


def raising(fn: Callable[[dict[str, Any]], Any], values: Mapping[str, np.ndarray], n: int) -> np.ndarray:
    """The mask of the points on which ``fn`` raises on their own, given that it raises on all ``n`` together.

    Hwang's generalised binary splitting, left to right: test a run of points sized from the share of failing
    points seen so far (one at a time once failures are dense); a run that fails holds a failing point, which a
    binary search finds, clearing the points before it. About as many calls of ``fn`` as points where most fail,
    a few dozen for one failing point in a thousand."""
    bad = np.zeros(n, dtype=bool)
    i, found = 0, 0
    fails_by: int | None = n  # [i, fails_by) holds a failing point
    while i < n:
        rest = n - i
        d = max(1.0, (found + 0.5) / (i + 1) * rest)  # failing points expected among the rest
        size = 1 if rest <= 2 * d - 2 else 2 ** max(0, int(np.floor(np.log2((rest - d + 1) / d))))
        hi = min(n, i + size)
        if fails_by is not None and hi >= fails_by:
            hi = fails_by
        elif passes(fn, values, i, hi):
            i = hi
            continue
        lo = i
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if passes(fn, values, lo, mid):
                lo = mid
            else:
                hi = mid
        bad[lo] = True
        found += 1
        i, fails_by = lo + 1, None
    return bad


HONOURED_SOURCES = ("statement", "proof")


def honoured(ev: Evaluation, n: int) -> np.ndarray:
    """Per point of ``ev`` (``n`` points): the bound applies (:attr:`sfltheory.evaluate.Evaluation.applies`: the
    statement's conditions hold, the bound is not void) and every condition its proof prints holds too. The
    conditions we derived ourselves (``implicit``) are not the paper's and are left to the ``together`` check."""
    out = np.broadcast_to(np.asarray(ev.applies, dtype=bool), (n,)).copy()
    for h in ev.hypotheses:
        if h.source in HONOURED_SOURCES:
            out &= np.broadcast_to(np.asarray(h.holds, dtype=bool), (n,))
    return out & np.isfinite(np.broadcast_to(np.asarray(ev.value, dtype=float), (n,)))


@dataclass
class Sample:
    """Points of one result: what is given (``given``) and the evaluation there (arrays, one per point)."""

    result: Result
    given: dict[str, np.ndarray]
    ev: Evaluation

    @property
    def size(self) -> int:
        """The number of points (the size of the evaluated bound)."""
        return int(np.size(self.ev.value))

    def point(self, i: int, names: Iterable[str] | None = None) -> dict[str, float]:
        """The given values at point ``i`` (only ``names``, those given, when named): a witness to re-evaluate."""
        keys = self.given if names is None else [k for k in names if k in self.given]
        return {k: float(np.asarray(self.given[k])[i]) for k in keys}

    def resolved(self, i: int) -> dict[str, float]:
        """Every parameter at point ``i`` after resolution (given and derived by the defaults)."""
        return {k: float(np.broadcast_to(v, (self.size,))[i]) for k, v in self.ev.params.items()}

    def value(self, i: int) -> float:
        """The bound at point ``i``."""
        return float(np.broadcast_to(self.ev.value, (self.size,))[i])

    @property
    def applies(self) -> np.ndarray:
        """Per point: every condition the statement prints holds and the bound is finite."""
        a = np.broadcast_to(np.asarray(self.ev.statement_holds, dtype=bool), (self.size,))
        return a & np.isfinite(np.broadcast_to(self.ev.value, (self.size,)))

    @property
    def admissible(self) -> np.ndarray:
        """Per point: the bound applies and every condition the statement and the proof print holds
        (:func:`honoured`)."""
        return honoured(self.ev, self.size)


@cache
def inverse(rule: Default, name: str) -> Callable[..., Any] | None:
    """``rule``'s closed form solved for the input ``name``: a function of the target's value and the rule's other
    inputs (in sorted order) giving ``name``; None when SymPy finds no single positive solution."""
    target = sp.Symbol("_target", positive=True)
    x = next(s for s in rule.expr.free_symbols if s.name == name)
    sols = [v for v in sp.solve(sp.Eq(rule.expr, target), x) if v.is_positive is not False]
    if len(sols) != 1:
        return None
    others = sorted((s for s in rule.expr.free_symbols if s.name != name), key=lambda s: s.name)
    return sp.lambdify([target, *others], sols[0], modules="numpy")


def exact_choices(r: Result, given: dict[str, np.ndarray], values: Mapping[str, Any], derived: Iterable[str]) -> bool:
    """Make every count ``r``'s own rules derive in closed form, as a real number (rounding "none": Corollary 4.2's
    split d_c = sqrt(d/tau)), land on a whole number exactly: the nearest whole value is taken and one drawn whole
    input of the rule (d) solved for it (d = tau d_c^2), so the paper's choice holds exactly at the point and the
    theorem it came from accepts the split. Points where the solved input is not whole keep their value. Returns
    whether ``given`` changed."""
    changed = False
    for rule in firing_order(r.defaults, given):
        if rule.rounding != "none" or rule not in r.defaults or rule.name not in derived or rule.name not in values:
            continue
        v = np.asarray(values[rule.name], dtype=float)
        if np.all(v == np.round(v)):
            continue
        inputs = sorted(n for n in rule.reads if n in given and lexicon.is_known(n) and lexicon.get(n).integer)
        for name in inputs:
            fn = inverse(rule, name)
            if fn is None:
                continue
            others = [given[n] if n in given else values[n] for n in sorted(rule.reads - {name})]
            with np.errstate(all="ignore"):
                x = np.asarray(fn(np.maximum(np.round(v), 1.0), *others), dtype=float)
            whole = np.isfinite(x) & (x >= 1) & (x == np.round(x)) & (x < 1e15)
            given[name] = np.where(whole, x, given[name])
            changed = True
            break
    return changed


def exact_split(r: Result) -> set[str]:
    """The counts ``r``'s own rules derive in closed form as a real number (rounding "none": Corollary 4.2's
    d_c = sqrt(d/tau)) and the whole counts those rules read: held together, as drawn (:func:`exact_choices`), so a
    search that moves one of them alone does not leave the paper's choice for an integer rounding of it."""
    out: set[str] = set()
    for rule in r.defaults:
        if rule.rounding == "none" and lexicon.is_known(rule.name) and lexicon.get(rule.name).integer:
            out |= {rule.name} | {n for n in rule.reads if lexicon.is_known(n) and lexicon.get(n).integer}
    return out


def statement_steps(r: Result) -> Result:
    """``r`` with only the step-size conditions its statement prints (all of them where it prints none): the step
    drawn up to that largest value reaches where a proof's own condition fails, which the validity check tests."""
    printed = [h for h in r.hypotheses if h.kind == "step_size" and h.source == "statement"]
    if not printed:
        return r
    return replace(r, hypotheses=tuple(h for h in r.hypotheses if h.kind != "step_size" or h.source == "statement"))


def draw(
    r: Result,
    rng: np.random.Generator,
    n: int,
    extra: Iterable[str] = (),
    fixed: Mapping[str, float] | None = None,
    *,
    statement_step: bool = False,
) -> Sample | None:
    """``n`` seeded points of ``r`` (and of the names in ``extra`` it does not use); None if none is valid. The step
    is drawn up to the largest one every step-size condition allows (``statement_step``: every condition the
    statement prints, :func:`statement_steps`)."""
    fixed = dict(fixed or {})
    needed = set(r.parameters()) | set(extra)
    base = [b for b in base_names(r, needed | set(fixed)) if b not in fixed]
    given: dict[str, np.ndarray] = {k: np.full(n, float(v)) for k, v in fixed.items()}
    step = r.step if r.step in base else None
    for name in base:
        if name != step:
            given[name] = _draw(name, rng, n)
    for small, large in ORDER:
        if small in given and large in given and small not in fixed and large not in fixed:
            a, b = given[small], given[large]
            given[small], given[large] = np.minimum(a, b), np.maximum(a, b)
    if step is not None:
        assert r.step is not None
        bounded = statement_steps(r) if statement_step else r
        sc, keep = robust(lambda v: max_step(bounded, v), given)
        if sc is None:
            return None
        given = subset(given, keep)
        ms = np.broadcast_to(np.asarray(sc.max_step, dtype=float), (int(keep.sum()),))
        u = 10 ** rng.uniform(*LOG_RANGE["step_fraction"], ms.size)
        u[: max(1, ms.size // 8)] = 1.0  # the boundary itself: conditions written '<=' must hold there
        free = 10 ** rng.uniform(-6.0, 0.0, ms.size)
        given[r.step] = np.where(np.isfinite(ms) & (ms > 0), u * np.where(np.isfinite(ms), ms, 1.0), free)
    derived_counts = [k for k in sorted(needed - set(given)) if lexicon.is_known(k) and lexicon.get(k).integer]
    if derived_counts:
        out, keep = robust(lambda v: resolve(r, v), given)
        if out is None:
            return None
        given = subset(given, keep)
        values = out[0]
        m = int(keep.sum())
        if exact_choices(r, given, values, derived_counts):
            out, keep = robust(lambda v: resolve(r, v), given)
            if out is None:
                return None
            given, values, m = subset(given, keep), out[0], int(keep.sum())
        exact = {d.name for d in firing_order(r.defaults, given) if d.rounding == "none"}
        for k in derived_counts:
            v = np.broadcast_to(np.asarray(values.get(k, 1.0), dtype=float), (m,))
            if k in exact:
                # the paper's closed form, a real number, kept exact: given only where it is whole but for the last
                # ulp of its float evaluation (sqrt(d)/sqrt(tau) at d = tau d_c^2), so a theorem accepts the split
                near = np.round(v)
                if k in values and np.any(v != near) and np.all(np.abs(v - near) <= 1e-9 * np.maximum(1.0, near)):
                    given[k] = near
                continue
            if k in values and np.any(v != np.round(v)):
                given[k] = np.maximum(np.round(v), 1.0)
        # a rounded count must keep d = d_c + d_s: give d_s only through the generic relation
        if {"d", "d_c", "d_s"} <= set(given) and "d_s" in derived_counts:
            del given["d_s"]
        if {"d", "d_c", "d_s"} <= set(given) and "d_c" in derived_counts:
            del given["d_c"]
    ev, keep = robust(lambda v: evaluate(r, v), given)
    if ev is None:
        return None
    return Sample(r, subset(given, keep), ev)


CORNER_POINTS = 16  # points moved to the corners per result
CORNER_INTEGERS = 4  # integer parameters varied at once (2^4 corners per point)


def corners(r: Result, s: Sample, slack: np.ndarray) -> Sample | None:
    """The points of ``s`` where ``slack`` (a condition's margin) is least, moved to the corners the papers' own
    regimes sit in: every combination of integer parameters at 1 or as drawn, the step at the largest value the
    statement allows (:func:`statement_steps`). Used where a log-uniform draw over twelve decades rarely reaches
    both a small count and the step boundary (sfl_aux Theorem 1 is void at l = 1, K <= 5, at its own largest
    step). None without a step or integer parameters."""
    if r.step is None or r.step not in s.given:
        return None
    ints = [k for k in sorted(s.given) if k != r.step and lexicon.is_known(k) and lexicon.get(k).integer]
    ints = ints[:CORNER_INTEGERS]
    if not ints:
        return None
    order = np.argsort(np.where(np.isfinite(slack), slack, np.inf))[:CORNER_POINTS]
    rows: list[dict[str, float]] = []
    for i in order:
        base = s.point(int(i))
        for mask in range(1, 2 ** len(ints)):
            rows.append({**base, **{k: 1.0 for j, k in enumerate(ints) if mask >> j & 1}})
    given = {k: np.array([row[k] for row in rows]) for k in rows[0]}
    bounded = statement_steps(r)
    sc, keep = robust(lambda v: max_step(bounded, {k: x for k, x in v.items() if k != r.step}), given)
    if sc is None:
        return None
    given = subset(given, keep)
    given[r.step] = np.broadcast_to(np.asarray(sc.max_step, dtype=float), (int(keep.sum()),)).copy()
    ok = np.isfinite(given[r.step]) & (given[r.step] > 0)
    given = subset(given, ok)
    if not ok.any():
        return None
    ev, keep = robust(lambda v: evaluate(r, v), given)
    return None if ev is None else Sample(result=r, given=subset(given, keep), ev=ev)
