"""Physical dimensions of the canonical symbols: declared with each name in the vocabulary (``Param.dimension``).

Base dimensions: ``loss`` (a value of f), ``param`` (a length in parameter space), ``time`` (seconds).
Counts, fractions and ratios are dimensionless (``1``). Losses are means, so a gradient has dimension
loss/param, its squared norm loss^2/param^2, the smoothness constant L loss/param^2 and a step size
param^2/loss (x - eta grad f is a point). A symbol missing here is reported as undimensioned, never guessed.
"""

from __future__ import annotations

from .. import vocabulary as vocab

GRAD2 = "loss**2/param**2"
STEP = "param**2/loss"


def dimensions() -> dict[str, str]:
    """Canonical name -> dimension, as the vocabulary declares them (``Param.dimension``: the built-in names, each
    paper's ``PARAMS`` and a user's declared names); a name without one is undimensioned."""
    return {p.name: p.dimension for p in vocab.all_params() if p.dimension}


# The left-hand side of a result is words; its dimension is read from them (first match wins).
LHS_DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("grad", GRAD2),
    ("||x", "param**2"),
    ("- x^r", "param**2"),
    ("time", "time"),
    ("bytes", "1"),
    ("communication", "1"),
    ("flops", "1"),
    ("memory", "1"),
    ("rounds", "1"),
)
