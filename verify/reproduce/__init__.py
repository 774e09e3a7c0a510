"""The seeds' own experiments, regenerated at a small scale (``sfltheory reproduce``): one module per experiment
with its spec (scales: ``tiny`` for the tests, ``small`` for a CPU, ``paper`` for a GPU), the paper's quoted numbers
with their line numbers, and the verdict on the paper's claim computed from the reproduced numbers.

``registry.EXPERIMENTS`` lists them; ``runner.reproduce(Request(...))`` runs them through the sweep machinery
(resumable) and writes a figure per experiment and a JSON and Markdown summary. Importing this package imports no
torch (the runner does, when imported).
"""

from __future__ import annotations

from .experiment import SCALES, VERDICTS, Cell, Experiment, Finding, Outcome, Quote, Scale
from .registry import EXPERIMENTS, get, select

__all__ = [
    "EXPERIMENTS",
    "SCALES",
    "VERDICTS",
    "Cell",
    "Experiment",
    "Finding",
    "Outcome",
    "Quote",
    "Scale",
    "get",
    "select",
]
