"""The audit's record types: one :class:`Finding` per place a result does not hold together.

A finding names the result, the check that found it, what the paper prints and what the check found, a
witness (a parameter point) and the numbers ``sfltheory bound`` gives there (:class:`Reevaluation`), a
severity and the seed location it links back to. Everything is plain data (JSON via :meth:`Finding.to_dict`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["bound invalid", "constant off", "unstated condition", "cosmetic"]
SEVERITIES: tuple[Severity, ...] = ("bound invalid", "constant off", "unstated condition", "cosmetic")

Check = Literal[
    "corollary", "together", "editions", "units", "validity", "rates", "printed", "substitutions", "falsified"
]
CHECKS: tuple[Check, ...] = (
    "corollary",
    "together",
    "editions",
    "units",
    "validity",
    "rates",
    "printed",
    "substitutions",
    "falsified",
)
CHECK_TITLES: dict[str, str] = {
    "corollary": "corollary follows from its theorem",
    "together": "hypotheses hold together",
    "editions": "editions agree",
    "units": "units",
    "validity": "sign and validity",
    "rates": "rates",
    "printed": "printed statement equals the encoded terms",
    "substitutions": "silent substitutions",
    "falsified": "falsified on an exact problem",
}


def format_value(v: float) -> str:
    """A parameter value as ``sfltheory bound`` reads it back to the same double (integers without '.0')."""
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)


@dataclass(frozen=True, kw_only=True)
class Reevaluation:
    """``sfltheory bound RESULT name=value ...`` and the numbers it must print: the bound ``value``, whether
    the bound ``applies`` and, when the finding is about a hypothesis, that hypothesis' ``holds``."""

    result: str
    params: Mapping[str, float]
    value: float
    applies: bool | None = None
    hypothesis: str | None = None
    holds: bool | None = None

    def command(self) -> str:
        """The command line a reader runs to re-check: ``sfltheory bound RESULT name=value ...``."""
        args = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"sfltheory bound {self.result} {args}".rstrip()

    def argv(self) -> list[str]:
        """The same command as arguments for :func:`sfltheory.cli.main`: ``bound``, the id, ``name=value`` ..."""
        return ["bound", self.result, *(f"{k}={format_value(v)}" for k, v in self.params.items())]

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, with its :meth:`command`."""
        return {
            "result": self.result,
            "params": {k: float(v) for k, v in self.params.items()},
            # JSON has no inf: a bound that is no finite number (x/0 at the witness) is null, its text says which
            "value": self.value if self.value is None or math.isfinite(self.value) else None,
            "value_text": None if self.value is None else f"{self.value:.6g}",
            "applies": self.applies,
            "hypothesis": self.hypothesis,
            "holds": self.holds,
            "command": self.command(),
        }


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One place where a result does not hold together, found by one generic check."""

    result: str
    check: Check
    printed: str
    found: str
    severity: Severity
    seed: str  # "file, label (equation), section": where to read it in shared/seeds
    witness: Mapping[str, float] = field(default_factory=dict)
    reevaluations: tuple[Reevaluation, ...] = ()

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES} (got {self.severity!r})")
        if self.check not in CHECKS:
            raise ValueError(f"check must be one of {CHECKS} (got {self.check!r})")

    @property
    def paper(self) -> str:
        """The paper key of the result (the part of its id before ``/``)."""
        return self.result.split("/", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data, with its paper and re-evaluations (``sfltheory audit --json``)."""
        return {
            "result": self.result,
            "paper": self.paper,
            "check": self.check,
            "severity": self.severity,
            "printed": self.printed,
            "found": self.found,
            "witness": {k: float(v) for k, v in self.witness.items()},
            "reevaluations": [r.to_dict() for r in self.reevaluations],
            "seed": self.seed,
        }


@dataclass(frozen=True, kw_only=True)
class Skip:
    """A check that could not run on a result, and why (reported, never silent)."""

    result: str
    check: Check
    reason: str
