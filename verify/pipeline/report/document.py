"""The verification report as one document: a typed, frozen model of what the report says, built once from the
records (verifications, worst-case searches, trend checks) and rendered by each writer (Markdown, HTML, JSON).

The records come in as plain data (their ``to_dict()``), so the report depends on nothing above it: a record type
that moves or changes shape only has to keep its dictionary. Each item keeps that dictionary whole (``record``) for
the JSON writer; ``image`` is the figure embedded in the HTML page, set once the figures are drawn
(:func:`verify.pipeline.report.figures.draw`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import sfltheory as st


class Record(Protocol):
    """What the report reads from a record: its plain data."""

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data, the one thing the report reads."""
        ...


@dataclass(frozen=True, kw_only=True)
class LegRow:
    """One step size of a verification: hypotheses, verdict, tightness and decays."""

    mode: str
    step: float
    applies: bool
    failing: tuple[str, ...]
    verdict: str
    first_violation: int | None
    tightness: float
    slope_measured: float
    slope_predicted: float
    confidence: float | None = None  # of a Monte-Carlo verdict (simultaneous over T); None: exact
    seeds: int = 1
    bound_T: float | None = None  # the bound and the measured left-hand side at the last T (why a ratio is n/a)
    measured_T: float | None = None

    @property
    def ratio(self) -> str:
        """bound / measured at the last T as the report prints it (n/a with the reason where not finite)."""
        return tightness_text(self.tightness, self.bound_T, self.measured_T)

    @property
    def outside(self) -> str:
        """What the verdict means at a step where the statement's hypotheses fail ("" where they hold)."""
        return "" if self.applies else OUTSIDE.get(self.verdict, OUTSIDE["inconclusive"])

    @property
    def how_sure(self) -> str:
        """How the verdict was reached: ``exact``, or the interval's confidence and the seeds behind it."""
        if self.confidence is None:
            return "exact"
        return f"{self.confidence:.0%} simultaneous over T, {self.seeds} seeds"


# What a verdict says at a step outside the theorem's hypotheses: nothing about the theorem.
OUTSIDE = {
    "holds": "the bound holds at a step outside the theorem's hypotheses: the theorem makes no claim here",
    "violated": "the bound fails at a step outside the theorem's hypotheses: not a counterexample, the theorem "
    "makes no claim here",
    "inconclusive": "at a step outside the theorem's hypotheses: the theorem makes no claim here",
}
DECAY = (
    "Decay measured / predicted: the slope of log y against log T, fitted over the last three quarters of the T "
    "grid, of the measured left-hand side and of the bound: -1 is a 1/T rate, -0.5 a 1/sqrt(T) rate, 0 a floor "
    "that does not shrink with T. A measured slope steeper than the predicted one means the bound's rate is loose "
    "on this problem."
)
HOLDS_OUTSIDE = OUTSIDE["holds"]


def finite(x: Any) -> bool:
    """Whether ``x`` is a finite number (None, inf and NaN are not)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def number_text(x: Any, fmt: str = ".3g", why: str = "not finite") -> str:
    """``x`` in ``fmt``, or ``n/a (why)`` where it is not a finite number: a report never prints inf or nan."""
    return format(x, fmt) if finite(x) else f"n/a ({why})"


def tightness_text(tightness: Any, bound_T: Any = None, measured_T: Any = None) -> str:
    """bound / measured at the last T, or ``n/a`` and why it is not a finite ratio: the bound is not finite, the
    measured side is 0 or not finite (a diverged run), or the ratio is past the floating-point range."""
    if finite(tightness):
        return format(tightness, ".3g")
    if not finite(bound_T):
        return "n/a (bound not finite)"
    if not finite(measured_T):
        return "n/a (measured not finite: the run diverged)"
    if measured_T <= 0:
        return "n/a (measured 0)"
    return "n/a (ratio past the floating-point range)"


@dataclass(frozen=True, kw_only=True)
class ResultItem:
    """One verified result: where it is printed, what it bounds, the problem and constants, one row per step."""

    result: str
    title: str
    source: str
    statement: str
    lhs: str
    algorithm: str
    method: str
    problem: str
    note: str
    verdict: str
    constants: str
    constant_notes: tuple[str, ...]
    legs: tuple[LegRow, ...]
    figure: str
    record: Mapping[str, Any]
    image: bytes | None = None


@dataclass(frozen=True, kw_only=True)
class WorstCaseItem:
    """One worst-case search: the largest measured / bound ratio over the instances tried, and where."""

    result: str
    instances: int
    ratio: float
    T: int
    step: float
    counterexample: bool
    record: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class TrendItem:
    """One trend check: the claim, the rule, the verdict with its summary, and the note."""

    name: str
    title: str
    claim: str
    rule: str
    verdict: str
    summary: str
    note: str
    figure: str
    record: Mapping[str, Any]
    image: bytes | None = None


@dataclass(frozen=True, kw_only=True)
class Document:
    """The report: the verified results, then the worst cases and the trends. A section that is ``None`` was not
    asked for (its JSON key is left out); an empty one was asked for and found nothing."""

    results: tuple[ResultItem, ...] = ()
    worst_cases: tuple[WorstCaseItem, ...] | None = None
    trends: tuple[TrendItem, ...] | None = None

    @property
    def shows_results(self) -> bool:
        """The results section is shown when there are results, or when there is nothing else to show."""
        return bool(self.results) or not (self.worst_cases or self.trends)


def build(
    verifications: Sequence[Record] = (),
    *,
    worst_cases: Sequence[Record] | None = None,
    trends: Sequence[Record] | None = None,
) -> Document:
    """The document of these records (each read through ``to_dict()``), in the order given."""
    return Document(
        results=tuple(result_item(v.to_dict()) for v in verifications),
        worst_cases=None if worst_cases is None else tuple(worst_case_item(w.to_dict()) for w in worst_cases),
        trends=None if trends is None else tuple(trend_item(c.to_dict()) for c in trends),
    )


def result_figure_name(result: str) -> str:
    """The file name of a result's figure: ``sl_noniid/thm1@proof`` -> ``sl_noniid_thm1_proof.png``."""
    return result.replace("/", "_").replace("@", "_") + ".png"


def trend_figure_name(name: str) -> str:
    """The file name of a trend check's figure."""
    return f"trend_{name}.png"


def source(r: Any) -> str:
    """Where a result is printed: label, equation, section and seed file."""
    p = r.provenance
    eq = f" {p.equation}" if p.equation else ""
    sec = f", {p.section}" if p.section else ""
    return f"{p.label}{eq}{sec} (seed {p.seed})"


def constants_text(v: Mapping[str, Any]) -> str:
    """The constants of a verification (its ``to_dict()``) in one line, with the standard error of each measured
    one."""
    errors = v.get("constant_errors") or {}

    def one(k: str, x: float) -> str:
        se = errors.get(k)
        return f"{k} = {x:.4g}" + (f" ± {se:.2g}" if se else "")

    how = "exact on the problem" if v["problem"].startswith("exact") else "measured, sup along the trajectory"
    return f"Constants ({how}): " + ", ".join(one(k, x) for k, x in v["constants"].items())


def result_item(v: Mapping[str, Any]) -> ResultItem:
    """A verification's item, from its ``to_dict()`` (values as recorded: inf stays inf in the text)."""
    r = st.get(v["result"])
    legs = tuple(
        LegRow(
            mode=leg["mode"],
            step=leg["step"],
            applies=leg["applies"],
            failing=tuple(leg["failing_hypotheses"]),
            verdict=leg["verdict"],
            first_violation=leg["first_violation_T"],
            tightness=leg["tightness_at_T"],
            slope_measured=leg["decay_exponent_measured"],
            slope_predicted=leg["decay_exponent_predicted"],
            confidence=leg.get("confidence"),
            seeds=int(leg.get("seeds") or 1),
            bound_T=last(leg.get("predicted")),
            measured_T=last(leg.get("measured")),
        )
        for leg in v["legs"]
    )
    return ResultItem(
        result=v["result"],
        title=r.title,
        source=source(r),
        statement=r.statement,
        lhs=v["lhs"],
        algorithm=v["algorithm"],
        method=v["method"],
        problem=v["problem"],
        note=v["note"],
        verdict=legs[0].verdict,  # the verdict at the admissible step: the claim as stated
        constants=constants_text(v),
        constant_notes=tuple(v["constant_notes"]),
        legs=legs,
        figure=result_figure_name(v["result"]),
        record=v,
    )


def last(values: Any) -> float | None:
    """The last of a recorded series (None when there is none, or it is null: not finite)."""
    if values is None or len(values) == 0 or values[-1] is None:
        return None
    return float(values[-1])


def worst_case_item(w: Mapping[str, Any]) -> WorstCaseItem:
    """A worst-case search's item, from its ``to_dict()``."""
    return WorstCaseItem(
        result=w["result"],
        instances=w["instances"],
        ratio=w["worst_ratio"],
        T=w["at_T"],
        step=w["step"],
        counterexample=w["counterexample"],
        record=w,
    )


def trend_item(c: Mapping[str, Any]) -> TrendItem:
    """A trend check's item, from its ``to_dict()``."""
    return TrendItem(
        name=c["name"],
        title=c["title"],
        claim=c["claim"],
        rule=c["rule"],
        verdict=c["verdict"],
        summary=c["summary"],
        note=c["note"],
        figure=trend_figure_name(c["name"]),
        record=c,
    )


__all__ = [
    "DECAY",
    "HOLDS_OUTSIDE",
    "OUTSIDE",
    "Document",
    "LegRow",
    "Record",
    "ResultItem",
    "TrendItem",
    "WorstCaseItem",
    "build",
    "constants_text",
    "finite",
    "last",
    "number_text",
    "result_figure_name",
    "result_item",
    "source",
    "tightness_text",
    "trend_figure_name",
    "trend_item",
    "worst_case_item",
]
