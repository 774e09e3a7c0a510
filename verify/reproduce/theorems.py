"""Which seed result analyses an algorithm on a run's own records (:func:`theorem_of`). Imports no torch, so the
gallery (:mod:`verify.reproduce.gallery`) can tell which experiments have a theory figure."""

from __future__ import annotations

from sfltheory.experiments import EXPERIMENTS as RESULT_EXPERIMENTS
from sfltheory.experiments import lhs_quantity


def theorem_of(algorithm: str) -> str | None:
    """The result that analyses ``algorithm`` on a run's own records: the first of
    :data:`sfltheory.experiments.EXPERIMENTS` for it that bounds :math:`\\|\\nabla f\\|^2`, at a step fixed in
    advance (not a corollary's step chosen from T), in its statement's form (no ``@proof`` / ``@appendix``)."""
    for rid, e in RESULT_EXPERIMENTS.items():
        if e.algorithm == algorithm and not e.at_choice and "@" not in rid and lhs_quantity(e.lhs) == "gradnorm2":
            return rid
    return None
