"""The closed-form choices the papers themselves print, so a plan can show them next to the optimum.

Each is an explicit relation between the split and tau that a corollary substitutes into its theorem
(:class:`sfltheory.result.PaperChoice`). A paper declares them with its results (``Result.choices``, e.g.
MU-SplitFed's :math:`d_c=\\sqrt{d/\\tau}` in ``sfltheory/papers/mu_splitfed``); the planner only reads them, so
it names no paper.
"""

from __future__ import annotations

from .. import vocabulary as vocab
from ..registry import get
from ..result import PaperChoice

__all__ = ["PaperChoice", "choices_for", "d", "d_c", "tau"]

d, d_c, tau = vocab.symbols("d d_c tau")  # the symbols a choice relates


def choices_for(result_id: str) -> tuple[PaperChoice, ...]:
    """The paper's choices that apply to a result (the first is the one the planner headlines)."""
    return get(result_id).choices
