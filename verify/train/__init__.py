"""The trainer: every seed's algorithm on split torch models and on exact synthetic problems.

``run(algorithm, problem, T=...)`` runs an algorithm (an instance of a class in :data:`ALGORITHMS`) on a
:class:`verify.problems.Problem` and returns a :class:`Run` with per-round records of what the theorems bound.
"""

from __future__ import annotations

from .algorithms import ALGORITHMS, get, word_params
from .base import Context, ParamSpec, RoundRecord, SplitAlgorithm
from .loop import Run, run

__all__ = [
    "ALGORITHMS",
    "Context",
    "ParamSpec",
    "RoundRecord",
    "Run",
    "SplitAlgorithm",
    "get",
    "run",
    "word_params",
]
