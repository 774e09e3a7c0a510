"""Witnesses printed with the digits they are re-checked at (issue 28, item 6).

A check's search ends on a point whose last binary digits depend on the machine: the BLAS kernels and thread
counts numpy sums with. On a fresh clone under load one witness came out one unit in the last place away
(``F=0.028708309049546177`` against the committed ``F=0.02870830904954618``), and ``docs/ERRATA.md`` and the site's
re-check no longer matched. So every re-check point is rounded to :data:`DIGITS` significant digits -- far above
that noise, far below any value a reader compares -- and re-evaluated there: the command prints the rounded point,
and the value, "applies" and "holds" it records are those ``sfltheory bound`` gives at it. Where rounding would
change what the finding rests on (a step on the boundary of its condition that rounding pushes over, a value that
moves by more than :data:`VALUE_RTOL`), more digits are kept, up to the full 17 of a double, which change nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from ..errors import SflTheoryError
from ..evaluate import evaluate
from ..result import Result
from .findings import Finding, Reevaluation

DIGITS = 12
VALUE_RTOL = 1e-9  # how far a re-check's value may move when its point is rounded (the finding prints 6 digits)


def rounded(v: float, digits: int) -> float:
    """``v`` to ``digits`` significant digits (integers and non-finite values unchanged)."""
    f = float(v)
    if not math.isfinite(f) or f.is_integer():
        return f
    return float(f"{f:.{digits}g}")


def _same_value(a: float, b: float) -> bool:
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b or (math.isnan(a) and math.isnan(b))
    return math.isclose(a, b, rel_tol=VALUE_RTOL, abs_tol=0.0)


def at(rv: Reevaluation, digits: int, result: Result | str) -> Reevaluation | None:
    """``rv`` at its point rounded to ``digits``, re-evaluated; None where what it records no longer holds."""
    params = {k: rounded(v, digits) for k, v in rv.params.items()}
    try:
        ev = evaluate(result, params)
    except SflTheoryError:
        return None
    value = float(np.asarray(ev.value, dtype=float))
    if not _same_value(value, rv.value):
        return None
    if rv.applies is not None and bool(ev.applies) is not rv.applies:
        return None
    if rv.hypothesis is not None:
        holds = [bool(h.holds) for h in ev.hypotheses if h.name == rv.hypothesis]
        if holds != [rv.holds]:
            return None
    return replace(rv, params=params, value=value)


def settle(f: Finding, catalogue: Mapping[str, Result]) -> Finding:
    """``f`` with every re-check point rounded to the fewest digits (from :data:`DIGITS`) at which each re-check
    still records what it did, and its witness rounded with the same digits."""
    if not f.reevaluations:
        return f
    for digits in range(DIGITS, 18):
        settled = [at(rv, digits, catalogue.get(rv.result, rv.result)) for rv in f.reevaluations]
        if all(s is not None for s in settled):
            witness = {k: rounded(v, digits) for k, v in f.witness.items()}
            return replace(f, reevaluations=tuple(s for s in settled if s is not None), witness=witness)
    return f  # 17 digits are the double itself: nothing to settle
