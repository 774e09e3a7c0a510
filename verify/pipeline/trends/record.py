"""The record of one trend check: :class:`TrendCheck` (the claim, the verdict rule and verdict, the series, the key
numbers) and the verdicts it may carry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sfltheory.errors import ParameterError
from sfltheory.plotting import style
from verify.pipeline.report.jsonout import clean

VERDICTS = ("agrees", "disagrees", "inconclusive")
# The seed files whose text the claims quote (a claim names its seed location): MU-SplitFed, sl_noniid, cut_layer.
SEED_MU = "000_0fb66116fc20c956.txt"
SEED_SL = "002_56e5daea794305d7.txt"
SEED_CUT = "003_60e24e21677c19f3.txt"


@dataclass(frozen=True, kw_only=True)
class TrendCheck:
    """One trend check: the claim (with its seed location), the verdict rule and verdict, the measured and predicted
    series over ``x``, the key numbers, a one-line summary and a note on what the setting limits.

    ``draw`` is the check's figure (set by the check that built the record; the record does not know the checks, so
    no import runs from here to them)."""

    name: str
    title: str
    claim: str
    rule: str
    verdict: str
    x_label: str
    x: np.ndarray
    measured: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]
    measured_se: dict[str, np.ndarray] = field(default_factory=dict)
    numbers: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    note: str = ""
    setting: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    draw: Callable[[TrendCheck], Any] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ParameterError("verdict", f"must be one of {', '.join(VERDICTS)} (got {self.verdict!r})")

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-able data (arrays as lists, inf and NaN as None); the figure is not part of it."""
        return clean({
            "name": self.name,
            "title": self.title,
            "claim": self.claim,
            "rule": self.rule,
            "verdict": self.verdict,
            "summary": self.summary,
            "note": self.note,
            "x_label": self.x_label,
            "x": self.x,
            "measured": self.measured,
            "measured_se": self.measured_se,
            "predicted": self.predicted,
            "numbers": self.numbers,
            "setting": self.setting,
            "seconds": self.seconds,
        })  # fmt: skip

    def figure(self) -> Any:
        """The check's figure in the house style (call inside ``sfltheory.plotting.style()`` or not: it opens
        its own)."""

        if self.draw is None:
            raise ParameterError("figure", f"trend check '{self.name}' was built without a figure")
        with style():
            return self.draw(self)

    def line(self) -> str:
        """One line for the terminal: name, verdict, the numbers that decide it."""
        return f"{self.name:15s} {self.verdict:12s} {self.summary}"


__all__ = ["SEED_CUT", "SEED_MU", "SEED_SL", "VERDICTS", "TrendCheck"]
