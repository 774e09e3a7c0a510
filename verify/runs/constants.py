"""The constants a run is checked with: measured records (``sfltheory measure --out``) and, for a run on an exact
quadratic, the quadratic's own exact constants.

Several records -- the same model measured at several rounds of the run, say -- are combined by their sup (the
inf for a most-negative eigenvalue ``L[min]``): the theorems assume bounds that hold at every iterate, so the
largest value any record found is the smallest consistent with all of them. The record says so in its ``meta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sfltheory import variants as var
from sfltheory.constants import Constants, Estimate
from sfltheory.errors import ParameterError
from verify.problems import QuadraticProblem

from .record import RunLog

COUNTS = ("d", "d_c", "d_s")  # the same in every record of one model and split
PROBLEM_FIELDS = ("kind", "H", "shifts", "x0", "d_c", "sigma2", "name", "noise")  # a quadratic's to_dict()


def load_constants(paths: Sequence[str]) -> Constants:
    """One record from ``paths``: the file itself when one, else the sup over them (``meta["source"]`` says
    which file attained each value)."""
    if not paths:
        raise ParameterError("constants", "name at least one constants file")
    records = [(p, Constants.load(p)) for p in paths]
    if len(records) == 1:
        c = records[0][1]
        c.meta["source"] = f"measured, from {paths[0]}"
        return c
    out = Constants(meta={"source": f"sup over {len(records)} files ({', '.join(Path(p).name for p in paths)})",
                          "files": list(paths)})  # fmt: skip
    keys = list(dict.fromkeys(k for _, c in records for k, _ in c.items()))
    for key in keys:
        have = [(p, e) for p, c in records if (e := c.get(key)) is not None]
        if key in COUNTS:
            if len({e.value for _, e in have}) > 1:
                vals = ", ".join(f"{e.value:g}" for _, e in have)
                raise ParameterError("constants", f"the files disagree on {key} ({vals}): they describe different "
                                     "models or splits")  # fmt: skip
            out.set(key, have[0][1])
            continue
        low = var.bounded_below(key)
        path, best = (min if low else max)(have, key=lambda pe: pe[1].value)
        where = f"{'inf' if low else 'sup'} over {len(have)} of {len(records)} files, attained in {Path(path).name}"
        out.set(key, Estimate(best.value, se=best.se, interval=best.interval, n=best.n, probes=best.probes,
                              method=f"{where}; {best.method}", note=best.note))  # fmt: skip
    return out


def quadratic_constants(log: RunLog) -> Constants | None:
    """The exact constants of the quadratic a ``train`` run ran on (its problem is in run.json), at the run's
    mini-batch; None for any other run."""
    p = log.problem
    if not p or p.get("kind") != "quadratic":
        return None
    q = QuadraticProblem.from_dict({k: v for k, v in p.items() if k in PROBLEM_FIELDS})
    batch = log.settings.get("batch", 1)
    c = q.constants(batch=int(batch))
    c.meta["source"] = f"exact, of the run's quadratic (its problem in {log.path})"
    return c


def run_constants(paths: Sequence[str], log: RunLog) -> Constants | None:
    """The constants a run is checked with: the files when given (their sup), else a quadratic run's exact ones,
    else None (every constant is then given as name=value)."""
    if paths:
        return load_constants(paths)
    return quadratic_constants(log)


__all__ = ["load_constants", "quadratic_constants", "run_constants"]
