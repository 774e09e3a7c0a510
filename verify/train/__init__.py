"""The trainer: every seed's algorithm on split torch models and on exact synthetic problems.

``run(algorithm, problem, T=...)`` runs an algorithm (an instance of a class in :data:`ALGORITHMS`) on a
:class:`Problem` and returns a :class:`Run` with per-round records of what the theorems bound.
"""

from __future__ import annotations

from .algorithms import ALGORITHMS, get
from .base import Context, ParamSpec, RoundRecord, SplitAlgorithm
from .loop import Run, run
from .problems import Batch, FullGradient, ModelProblem, Problem, QuadraticProblem

__all__ = [
    "ALGORITHMS",
    "Batch",
    "Context",
    "FullGradient",
    "ModelProblem",
    "ParamSpec",
    "Problem",
    "QuadraticProblem",
    "RoundRecord",
    "Run",
    "SplitAlgorithm",
    "get",
    "run",
]
