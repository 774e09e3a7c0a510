"""Numeric helpers the checks share: evaluating a bare expression on points, and local refinement in log space."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

import numpy as np
import sympy as sp

from .. import lexicon


@cache
def _compiled(expr: sp.Expr) -> tuple[tuple[str, ...], Callable[..., Any]]:
    args = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return tuple(a.name for a in args), sp.lambdify(args, expr, modules="numpy")


def numeric(expr: sp.Expr, values: Mapping[str, Any]) -> np.ndarray:
    """``expr`` at the points ``values`` (names -> arrays), float64, inf/nan where it is not finite."""
    names, f = _compiled(sp.sympify(expr))
    with np.errstate(all="ignore"):
        out = f(*(np.asarray(values[n], dtype=float) for n in names))
    return np.asarray(out, dtype=float)


def _clamp(name: str, v: float) -> float:
    p = lexicon.get(name) if lexicon.is_known(name) else None
    if p is not None and p.integer:
        return float(min(max(1.0, np.round(v)), BOX[1]))
    v = min(max(v, BOX[0]), BOX[1])
    return min(v, 1.0) if p is not None and p.domain == "fraction" else v


BOX = (1e-12, 1e12)  # the search stays inside this box, so a witness is a point a reader can take seriously


def refine(
    score: Callable[[dict[str, np.ndarray]], np.ndarray],
    start: Mapping[str, float],
    names: Iterable[str],
    rng: np.random.Generator,
    factors: tuple[float, ...] = (100.0, 10.0, 2.0, 1.2),
    rounds: int = 40,
    stop: float = np.inf,
) -> tuple[dict[str, float], float]:
    """Local search in log space from ``start``: each round tries every name multiplied and divided by the
    current factor, and as many random moves of all names at once (a ridge is not always axis-aligned), in
    one vectorised ``score`` call; keeps the best, and moves to a finer factor when nothing improves. Counts
    stay integers >= 1, everything inside :data:`BOX`. Stops early once the score reaches ``stop``."""
    names = [n for n in names if n in start]
    point = dict(start)
    best = float(score({k: np.array([v]) for k, v in point.items()})[0])
    level = 0
    for _ in range(rounds):
        if level >= len(factors) or not names or best >= stop:
            break
        f = np.log(factors[level])
        moves = [{n: g} for n in names for g in (f, -f)]
        moves += [dict(zip(names, rng.normal(0.0, f, len(names)), strict=True)) for _ in range(2 * len(names))]
        cands = []
        for m in moves:
            c = dict(point)
            for n, g in m.items():
                c[n] = _clamp(n, point[n] * float(np.exp(g)))
            if c != point:
                cands.append(c)
        if not cands:
            level += 1
            continue
        s = score({k: np.array([c[k] for c in cands]) for k in point})
        s = np.where(np.isfinite(s), s, -np.inf)
        i = int(np.argmax(s))
        if s[i] > best + 1e-12:
            best, point = float(s[i]), cands[i]
        else:
            level += 1
    return point, best
