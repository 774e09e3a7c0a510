"""Planning: the best tau, cut and step size for a result, rounds to accuracy, wall-clock time, comparisons."""

from .choices import PaperChoice, choices_for
from .cuts import Block, CutPoint, CutTable, cuts_from_blocks, load_blocks
from .planner import plan
from .records import Choice, CutPlan, Plan, RulePoint
from .search import GridEval, Rounds, rounds_to, solve
from .timemodel import TimeModel, expected_max, parse_distribution

__all__ = [
    "Block",
    "Choice",
    "CutPlan",
    "CutPoint",
    "CutTable",
    "GridEval",
    "PaperChoice",
    "Plan",
    "Rounds",
    "RulePoint",
    "TimeModel",
    "choices_for",
    "cuts_from_blocks",
    "expected_max",
    "load_blocks",
    "parse_distribution",
    "plan",
    "rounds_to",
    "solve",
]
