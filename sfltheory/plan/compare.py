"""Several results side by side on the same constants: bound, step size, verdict and rounds to eps.

An entry is a result id, optionally with its own overrides: ``mu_splitfed/thm4.1:tau=1`` against
``mu_splitfed/thm4.1:tau=8`` compares MU-SplitFed without and with unbalanced updates; ``sl_noniid/thm2``
against ``sl_noniid/thm1`` compares split learning with FedAvg (sl_noniid's Table 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import lexicon
from ..builtin import PAPERS
from ..errors import ParameterError
from ..evaluate import ArrayLike, as_result, refuse_unused
from ..registry import get
from ..result import Result
from .search import Require, rounds_to, solve


@dataclass
class Row:
    """One compared entry: the entry as written, its result and overrides, the bound at the given T (None with
    ``eps`` and no T), the step used and how it was chosen, the binding branch and the verdict; with ``eps`` the
    rounds to reach it (inf: never) or why not; and the value of each term."""

    entry: str  # as the user wrote it
    result: str
    overrides: dict[str, float]
    title: str
    bound: float | None  # at the given T (None with eps and no T)
    step: float | None
    step_mode: str
    binding: str | None
    verdict: str
    rounds: float | None = None  # smallest T with bound <= eps (inf: never)
    why_not: str = ""
    terms: dict[str, float] = field(default_factory=dict)


def parse_entry(entry: str) -> tuple[str, dict[str, float]]:
    """``id`` or ``id:name=value,name=value``."""
    rid, _, rest = entry.partition(":")
    get(rid)  # unknown ids fail here, with suggestions
    over: dict[str, float] = {}
    for item in filter(None, rest.split(",")):
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise ParameterError(entry, f"expected id:name=value,... (got {item!r})")
        try:
            over[k] = float(v)
        except ValueError:
            raise ParameterError(k, f"must be a number (got {v!r})") from None
    return rid, over


def compare(
    entries: Sequence[str],
    params: Mapping[str, ArrayLike],
    *,
    eps: float | None = None,
    step: str = "auto",
    require: Require = "statement",
    measured: Mapping[str, Mapping[str, float]] | None = None,
) -> list[Row]:
    """Each entry evaluated on ``params`` (plus its overrides); a name some results do not use is theirs only,
    a name no entry uses (or an entry's override its result does not use) is refused.
    ``measured``: by result id, measured constants that result needs (``Constants.params_for``), used where
    neither ``params`` nor the entry gives the name."""
    if isinstance(entries, str) or not all(isinstance(e, str) for e in entries):
        raise ParameterError("ids", f"must be a list of result ids such as ['mu_splitfed/thm4.1'] (got {entries!r})")
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    if len(entries) < 1:
        raise ParameterError("ids", "give at least one result id to compare")
    for k, v in params.items():
        if np.ndim(v):
            raise ParameterError(k, "compare takes one value per parameter, not a sweep: give each value as an entry")
    parsed = [parse_entry(e) for e in entries]
    refuse_unused([rid for rid, _ in parsed], list(params))  # a name no entry uses is refused, not dropped
    for rid, over in parsed:
        refuse_unused([rid], list(over))
    rows = []
    for entry in entries:
        rid, over = parse_entry(entry)
        r = as_result(rid)
        for k in over:
            if k in params:
                raise ParameterError(
                    k, f"given for every entry ({k}={params[k]:g}) and in entry '{entry}': give it in one place"
                )
        p: dict[str, Any] = {**(measured or {}).get(rid, {}), **params, **over}
        p = {k: v for k, v in p.items() if _uses(r, k)}
        bound = stepv = None
        binding = None
        verdict = ""
        mode = step
        terms: dict[str, float] = {}
        if "T" in p or eps is None:
            g = solve(r, p, step, require)
            bound = float(g.bound)
            stepv = None if g.step is None else float(g.step)
            binding = None if g.binding is None else str(g.binding)
            verdict = g.evaluation.verdict()
            mode = g.step_mode
            terms = {k: float(v) for k, v in g.evaluation.terms.items()}
        row = Row(entry, r.id, over, r.title, bound, stepv, mode, binding, verdict, terms=terms)
        if eps is not None:
            q = {k: v for k, v in p.items() if k != "T"}
            rr = rounds_to(r, eps, q, step, require)
            row.rounds = float(rr.T)
            row.why_not = rr.reason
            if bound is None:
                at = solve(r, {**q, "T": row.rounds if math.isfinite(row.rounds) else 2.0**53}, step, require)
                row.bound = float(at.bound)
                row.step = None if at.step is None else float(at.step)
                row.binding = None if at.binding is None else str(at.binding)
                row.verdict = at.evaluation.verdict()
                row.step_mode = at.step_mode
                row.terms = {k: float(v) for k, v in at.evaluation.terms.items()}
        rows.append(row)
    return rows


def _uses(r: Result, key: str) -> bool:
    """Whether ``key`` matters to ``r``; unknown names are kept so that evaluation rejects them."""
    name = key if lexicon.is_known(key) else lexicon.aliases_for(r.paper).get(key)
    if name is None:  # another paper's notation is simply not this result's
        return not any(key in lexicon.aliases_for(p) for p in PAPERS)
    needed = set(r.parameters()) | {d.name for d in r.defaults}
    for d in r.defaults:
        needed |= d.reads
    return name in needed or name in ("d", "d_c", "d_s")
