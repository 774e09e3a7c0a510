"""A run read from disk, as one plain record: the rounds, ||grad f(x^t)||^2 at each, and the run's settings.

Whatever wrote the run (``sfltheory train --out``, a user's CSV or JSON Lines log, TensorBoard scalars), the
reader returns a :class:`RunLog`; ``verify.pipeline.fromrun`` checks a theorem against it. The rounds are
t = 0, 1, ..., n-1 (0: the starting point x^0), every round logged: the left-hand sides the theorems bound
average or minimise ||grad f(x^t)||^2 over every t < T, so a gap would change the quantity, not just sample it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sfltheory.errors import ParameterError

# the quantities a log may hold: gradnorm2 is required (the theorems bound it), the others are shown when present
QUANTITIES = ("gradnorm2", "loss", "test_acc")


@dataclass(frozen=True, kw_only=True)
class RunLog:
    """A run's records and settings.

    ``t``: the rounds 0..n-1; ``gradnorm2``: ||grad f(x^t)||^2 of the global model at each; ``loss``,
    ``test_acc``: optional series of the same length; ``settings``: what the run states about itself (the
    algorithm's parameters, M, batch, d_c ...), by canonical name; ``algorithm``: the algorithm that ran, where the
    source names it; ``problem``: the source's description of its problem (a quadratic's gives exact constants);
    ``source``: one line saying where the records come from; ``path``: the file or folder read; ``status``: how the
    run ended (``complete``, or ``diverged``: the records stop before the divergence); ``unread``: columns or tags
    the reader did not use (said in the report, never dropped silently)."""

    t: np.ndarray
    gradnorm2: np.ndarray
    loss: np.ndarray | None = None
    test_acc: np.ndarray | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    algorithm: str | None = None
    problem: Mapping[str, Any] | None = None
    source: str = ""
    path: str = ""
    status: str = "complete"
    unread: tuple[str, ...] = ()

    @property
    def rounds(self) -> int:
        """The number of records (x^0 .. x^{n-1}): the left-hand side is known at T = 1..n."""
        return len(self.t)


def finite(where: str, column: str, v: Any) -> float:
    """``v`` as a finite float, else a one-line error naming ``where`` (file and row) and the column."""
    if isinstance(v, bool):
        raise ParameterError(where, f"column '{column}' must be a number (got {v!r})")
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ParameterError(where, f"column '{column}' must be a number (got {v!r})") from None
    if not math.isfinite(x):
        raise ParameterError(where, f"column '{column}' must be finite (got {v!r}): a diverged run's records stop "
                             "before the divergence")  # fmt: skip
    return x


def check_rounds(path: str, t: Sequence[float], rows: Sequence[str]) -> np.ndarray:
    """The rounds as integers 0, 1, 2, ...: each row's ``t`` an integer, starting at 0, increasing by one. ``rows``
    names each row in errors (``run.csv, row 7``)."""
    if not len(t):
        raise ParameterError(path, "has no rows: a run needs at least the record at t = 0")
    out: list[int] = []
    for i, (x, where) in enumerate(zip(t, rows, strict=True)):
        if not float(x).is_integer() or x < 0:
            raise ParameterError(where, f"column 't' must be a round number 0, 1, 2, ... (got {x!r})")
        if i == 0 and x != 0:
            raise ParameterError(where, f"the first round must be t = 0, the starting point (got t = {int(x)})")
        if i > 0 and x <= out[-1]:
            what = "repeated" if x == out[-1] else "out of order"
            raise ParameterError(where, f"round t = {int(x)} {what} (after t = {out[-1]}): rounds must increase")
        if i > 0 and x != out[-1] + 1:
            raise ParameterError(where, f"round t = {int(x)} after t = {out[-1]}: every round must be logged (the "
                                 "theorems average or minimise over every t < T)")  # fmt: skip
        out.append(int(x))
    return np.asarray(out, dtype=int)


__all__ = ["QUANTITIES", "RunLog", "check_rounds", "finite"]
