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
class TightestRow:
    """One worst case of a result's tightest bound: the leg, M, T, the paper's bound at sigma^2 = 0, the worst case,
    its kind, the deterministic quadratic's value (None: not run at this M) and the hypotheses failing."""

    mode: str
    step: float
    M: int
    T: int
    paper: float
    tightest: float
    kind: str
    measured: float | None
    failing: tuple[str, ...]
    replayed: float | None = None  # below an exact worst case: the trainer's value on the function that attains it

    @property
    def ratio(self) -> float:
        """paper / tightest (NaN where the worst case is not positive)."""
        return self.paper / self.tightest if finite(self.tightest) and self.tightest > 0 else math.nan

    @property
    def ratio_text(self) -> str:
        """paper / tightest as the report prints it (n/a with the reason where not finite)."""
        if not (finite(self.tightest) and self.tightest > 0):
            return "n/a (tightest 0)"
        text = number_text(self.ratio, ".3g", "paper bound not finite")
        if self.replayed is not None:  # the bound is refuted: a concrete function, run by the trainer, exceeds it
            text += f" (bound invalid: a function gives {self.replayed:.4g}, replayed by the trainer)"
        return text

    @property
    def hypotheses(self) -> str:
        """The statement hypotheses failing at this point: "all hold" or their names."""
        return "all hold" if not self.failing else "; ".join(self.failing)


@dataclass(frozen=True, kw_only=True)
class TightestItem:
    """A result's tightest bound (``verify --tightest``): the quantity, the class, the note, why each kind, one row
    per point, the check's M; or the reason it is not computed (no rows). ``image``: its figure, once drawn."""

    result: str
    quantity: str
    assumptions: str
    kinds: Mapping[str, str]
    note: str
    reason: str
    rows: tuple[TightestRow, ...]
    M: int
    figure: str
    skipped: str = ""  # the points left out (an SDP above the size limit), in words
    by_step: tuple[TightestRow, ...] = ()  # at the last T, the admissible step times 1/8 .. 4 (modes "x0.125" ...)
    image: bytes | None = None

    def groups(self) -> list[tuple[str, int, tuple[TightestRow, ...]]]:
        """The rows by leg (``mode``) and M, in the order recorded: the check's M after M = 1 within a leg."""
        keys = list(dict.fromkeys((r.mode, r.M) for r in self.rows))
        return [(mode, M, tuple(r for r in self.rows if (r.mode, r.M) == (mode, M))) for mode, M in keys]

    @property
    def main_mode(self) -> str:
        """The leg the summary reads: the admissible one, or the corollary's choice."""
        modes = list(dict.fromkeys(r.mode for r in self.rows))
        return "admissible" if "admissible" in modes else modes[0] if modes else ""

    def last(self, M: int) -> TightestRow | None:
        """The main leg's row at the largest T at ``M`` (None where there is none)."""
        rows = [r for r in self.rows if r.mode == self.main_mode and r.M == M]
        return max(rows, key=lambda r: r.T) if rows else None


def kind_text(rows: Sequence[TightestRow]) -> str:
    """The kinds of some rows, in order, joined by "/" (one kind as itself)."""
    return "/".join(dict.fromkeys(r.kind for r in rows))


def leg_text(mode: str, rows: Sequence[TightestRow]) -> str:
    """A leg as printed: its mode, and its step where one step serves every T (not the corollary's choice)."""
    steps = {r.step for r in rows}
    return f"{mode}, step {rows[0].step:.4g}" if len(steps) == 1 and rows else mode


def tightest_item(v: Mapping[str, Any]) -> TightestItem | None:
    """A verification's tightest bound, from its ``to_dict()`` (None where it has none)."""
    t = v.get("tightest")
    if not t:
        return None

    def row(p: Mapping[str, Any]) -> TightestRow:
        return TightestRow(mode=p["mode"], step=p["step"], M=int(p["M"]), T=int(p["T"]), paper=p["paper"],
                           tightest=p["tightest"], kind=p["kind"], measured=p.get("measured"),
                           failing=tuple(p.get("failing") or ()), replayed=p.get("replayed"))  # fmt: skip

    rows = tuple(row(p) for p in t.get("points") or ())
    Ms = {r.M for r in rows}
    M = int(v.get("params", {}).get("M", max(Ms, default=1)))
    return TightestItem(
        result=v["result"], quantity=t["quantity"], assumptions=t["assumptions"], kinds=dict(t.get("kinds") or {}),
        note=t.get("note") or "", reason=t.get("reason") or "", rows=rows, M=M if M in Ms or not Ms else max(Ms),
        figure="tightest_" + result_figure_name(v["result"]),
        skipped=t.get("skipped") or "", by_step=tuple(row(p) for p in t.get("by_step") or ()),
    )  # fmt: skip


REFUTED = (
    "Bound invalid where a ratio says so: at one client the worst case is exact and a concrete L-smooth function "
    "(the SDP's solution interpolated) attains it; the trainer, run on that function, exceeds the bound. With --out "
    "each is written as refutation_ID_T.json, which `python -m verify.pep FILE` replays and "
    "`sfltheory audit --counterexamples DIR` reports."
)
TIGHTEST_INTRO = (
    "The worst case of the quantity the result bounds over its function class, from a performance-estimation SDP at "
    "each leg's step, next to the paper's bound at sigma^2 = 0 (its deterministic part: the worst case is over "
    "full-gradient runs) and the deterministic run of this check's quadratic. paper / tightest is how much of the "
    "bound is the analysis rather than the algorithm."
)
# what a kind says of the ratio paper / tightest
KIND_MEANING = {
    "exact": "the worst case itself, attained by a function of the class: paper / tightest is the bound's slack",
    "relaxation": "an upper bound on the worst case (some conditions of the class imposed at the iterates only), "
    "valid for any proof that uses the assumptions there: paper / tightest is a lower bound on the bound's slack",
}


def kind_lines(t: TightestItem) -> list[tuple[str, str]]:
    """Each kind among a tightest bound's points: what it means, and why the points are of that kind."""
    return [(k, f"{KIND_MEANING.get(k, k)} ({why})" if why else KIND_MEANING.get(k, k)) for k, why in t.kinds.items()]


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
    tightest: TightestItem | None = None  # verify --tightest

    @property
    def has_tightest(self) -> bool:
        """Whether the result has a tightest bound with points (a figure)."""
        return self.tightest is not None and bool(self.tightest.rows)


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


def result_stem(result: str) -> str:
    """A result id as a file name's stem: ``sl_noniid/thm1@proof`` -> ``sl_noniid_thm1_proof``."""
    return result.replace("/", "_").replace("@", "_")


def result_figure_name(result: str) -> str:
    """The file name of a result's figure: ``sl_noniid/thm1@proof`` -> ``sl_noniid_thm1_proof.png``."""
    return result_stem(result) + ".png"


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
        tightest=tightest_item(v),
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
    "KIND_MEANING",
    "OUTSIDE",
    "REFUTED",
    "TIGHTEST_INTRO",
    "Document",
    "LegRow",
    "Record",
    "ResultItem",
    "TightestItem",
    "TightestRow",
    "TrendItem",
    "WorstCaseItem",
    "build",
    "constants_text",
    "finite",
    "kind_lines",
    "kind_text",
    "last",
    "leg_text",
    "number_text",
    "result_figure_name",
    "result_item",
    "result_stem",
    "source",
    "tightest_item",
    "tightness_text",
    "trend_figure_name",
    "trend_item",
    "worst_case_item",
]
