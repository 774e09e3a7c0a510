"""Seeded parameter points for the numeric checks: which names to draw, how, and the result evaluated there.

A result's parameters split into those a user gives (drawn here, log-uniformly over many orders of
magnitude) and those its defaults derive (a corollary's step size, split, smoothing radius; ``d = d_c + d_s``).
The step a result constrains is drawn as a fraction of the largest step its conditions allow, the boundary
itself included, so the points cover its admissible region. Counts derived by a rule (d_c = sqrt(d/tau)) are
rounded, as a real model's are, and then given explicitly, so every point re-evaluates through
``sfltheory bound`` to the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import defaults, lexicon
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


def draw(
    r: Result, rng: np.random.Generator, n: int, extra: Iterable[str] = (), fixed: Mapping[str, float] | None = None
) -> Sample | None:
    """``n`` seeded points of ``r`` (and of the names in ``extra`` it does not use); None if none is valid."""
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
        sc, keep = robust(lambda v: max_step(r, v), given)
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
        for k in derived_counts:
            v = np.broadcast_to(np.asarray(values.get(k, 1.0), dtype=float), (m,))
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
