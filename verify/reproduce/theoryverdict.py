"""The one-sentence verdict of a theorem's bound against a reproduced run: pure functions of numbers (tested on
hand-made numbers in ``tests/verify/reproduce/test_theory.py``), no torch.

The bound and the measured left-hand side come from :func:`verify.pipeline.fromrun.check_run` (a single run read
as ``sfltheory verify ID --run`` reads one); this module only words what they say. Four cases, in the order a reader
needs them:

* ``not covered``: the theorem does not describe the run at all (e.g. MU-SplitFed's Theorem 4.3 couples
  eta_c = tau eta_s, seed ``000_0fb66116fc20c956.txt``; a run with other steps is not an instance of it);
* ``vacuous``: the run is an instance, but a hypothesis of the statement fails at its settings (a step-size
  condition, typically): the theorem promises nothing for it, whatever the numbers;
* ``void``: the bound is negative or not finite at the run's settings;
* ``holds`` / ``violated``: the hypotheses hold; the measured value stays below the bound at every T, or exceeds it
  from some T on (one run is one sample of the expectation the theorem bounds).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

THEORY_VERDICTS = ("holds", "violated", "vacuous", "void", "not covered")


@dataclass(frozen=True, kw_only=True)
class Failing:
    """A hypothesis of the statement that fails at the run's settings: its ``name`` as encoded (e.g.
    ``eta<=1/(16 S tau)``), and its two sides evaluated there (``lhs`` the run's value, ``rhs`` the limit)."""

    name: str
    lhs: float
    rhs: float


def ratio_text(bound: float, measured: float) -> str:
    """How many times the measured value the bound is: ``40x`` (two significant figures), ``inf`` when the
    measured value is 0."""
    if measured <= 0.0:
        return "inf"
    r = bound / measured
    return f"{r:.2g}x" if r < 1e4 else f"{r:.1e}x"


def theory_sentence(
    *,
    T: Sequence[int],
    lhs: Sequence[float],
    bound: Sequence[float],
    failing: Sequence[Failing] = (),
    uncovered: str | None = None,
) -> tuple[str, str]:
    """The verdict (one of :data:`THEORY_VERDICTS`) and its sentence, from the measured left-hand side ``lhs`` and
    the ``bound`` at every ``T`` (same length), the statement's ``failing`` hypotheses at the run's settings, and
    ``uncovered``: why the theorem does not describe the run (None: it does). The first failing hypothesis is named
    with both its sides; the bound's relation to the measured value at the last T is said in every covered case."""
    if uncovered is not None:
        return "not covered", f"not covered: {uncovered}"
    if not len(T) or len(T) != len(lhs) or len(T) != len(bound):
        return "void", "no rounds to compare"
    n = int(T[-1])
    finite = all(math.isfinite(b) and b >= 0.0 for b in bound)
    over = [i for i, (m, b) in enumerate(zip(lhs, bound, strict=True)) if math.isfinite(b) and m > b]
    if not finite:
        where = "negative or not finite"
        said = f"the bound is {where} at the run's settings: no prediction"
    elif over:
        i = over[0]
        said = (f"the measured value exceeds the bound from T = {int(T[i])} ({lhs[i]:.3g} > {bound[i]:.3g}; one "
                "run, one sample of the expectation bounded)")  # fmt: skip
    else:
        times = ratio_text(bound[-1], lhs[-1])
        said = f"the bound holds at every T = 1..{n} and is {times} the measured value at T = {n}"
    if failing:
        f = failing[0]
        more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
        return "vacuous", (f"vacuous: its hypothesis {f.name} fails at the run's settings ({f.lhs:.3g} against "
                           f"{f.rhs:.3g}){more}, so the theorem promises nothing here; as a number, "
                           f"{said}")  # fmt: skip
    if not finite:
        return "void", said
    return ("violated" if over else "holds"), said


__all__ = ["THEORY_VERDICTS", "Failing", "ratio_text", "theory_sentence"]
