"""Run every check over results: the audit."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..builtin import PAPERS
from ..errors import ParameterError
from ..registry import get, results
from ..result import Result
from . import corollary, editions, falsified, printed, rates, substitutions, together, units, validity
from .context import Context
from .findings import CHECKS, Finding, Skip
from .rounding import settle

CheckFn = Callable[[Result, Context], list[Finding]]
REGISTRY: dict[str, CheckFn] = {
    "corollary": corollary.check,
    "together": together.check,
    "editions": editions.check,
    "units": units.check,
    "validity": validity.check,
    "rates": rates.check,
    "printed": printed.check,
    "substitutions": substitutions.check,
    "falsified": falsified.check,
}
assert tuple(REGISTRY) == CHECKS


@dataclass(frozen=True, kw_only=True)
class Audit:
    """What an audit found, what it could not check, and how."""

    findings: tuple[Finding, ...]
    skips: tuple[Skip, ...]
    results: tuple[str, ...]
    seed: int
    samples: int
    seconds: float


def audit(
    ids: Sequence[str] | None = None,
    *,
    seed: int = 0,
    samples: int = 256,
    catalogue: Sequence[Result] | None = None,
    checks: Sequence[str] | None = None,
    counterexamples: Sequence[Mapping[str, Any]] = (),
) -> Audit:
    """Audit ``ids`` (default: every result) against ``catalogue`` (default: the encoded one).

    Deterministic for a given seed: every check draws from a generator seeded by (seed, check, result id).
    ``counterexamples``: the records of ``verify --worst-case`` (:func:`sfltheory.audit.falsified.load`), which the
    ``falsified`` check reports.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParameterError("seed", f"must be an integer >= 0 (got {seed!r})")
    if not isinstance(samples, int) or samples < 8:
        raise ParameterError("samples", f"must be an integer >= 8 (got {samples!r})")
    names = list(checks) if checks is not None else list(CHECKS)
    for c in names:
        if c not in REGISTRY:
            raise ParameterError("check", f"unknown check '{c}'; known: {', '.join(CHECKS)}")
    cat = list(catalogue) if catalogue is not None else results()
    by_id = {r.id: r for r in cat}
    if ids:
        chosen = [by_id[i] if i in by_id else get(i) for i in ids]
    else:
        chosen = cat
    order = {k: n for n, k in enumerate(PAPERS)}
    ctx = Context(cat, seed=seed, samples=samples, counterexamples=[dict(c) for c in counterexamples])
    t0 = time.perf_counter()
    found: list[Finding] = []
    for r in chosen:
        for c in names:
            found += REGISTRY[c](r, ctx)
    found = [settle(f, by_id) for f in found]  # witnesses printed with the digits they are re-checked at
    position = {r.id: n for n, r in enumerate(cat)}
    found.sort(key=lambda f: (order.get(f.paper, 99), position.get(f.result, 0), CHECKS.index(f.check)))
    return Audit(
        findings=tuple(found),
        skips=tuple(ctx.skips),
        results=tuple(r.id for r in chosen),
        seed=seed,
        samples=samples,
        seconds=time.perf_counter() - t0,
    )
