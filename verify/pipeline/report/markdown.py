"""The report as Markdown (``report.md``): the title, then each section of the document, figures linked by file
name."""

from __future__ import annotations

from collections.abc import Sequence

from .document import (
    DECAY,
    REFUTED,
    TIGHTEST_INTRO,
    Document,
    LegRow,
    ResultItem,
    TightestItem,
    TightestRow,
    TrendItem,
    WorstCaseItem,
    kind_lines,
    kind_text,
    leg_text,
    number_text,
)

TITLE = "# Verification report"


def render(doc: Document) -> str:
    """The whole document: the title and its sections, one blank line between them."""
    blocks = [TITLE]
    if doc.shows_results:
        blocks.append(results_section(doc.results))
    if doc.worst_cases:
        blocks.append(worst_cases_section(doc.worst_cases))
    if doc.trends:
        blocks.append(trends_section(doc.trends))
    return "\n\n".join(b.rstrip() for b in blocks) + "\n"


def results_section(items: Sequence[ResultItem]) -> str:
    """A summary table of the results, then one subsection per result with its table of steps and its figure."""
    out = [
        "Measured left-hand side against the predicted bound. A verdict at a step where the theorem's "
        "hypotheses fail says nothing about the theorem: the theorem makes no claim there.",
        "",
        DECAY,
        "",
    ]
    out += ["| result | algorithm | method | verdict (admissible step) |", "|---|---|---|---|"]
    out += [f"| `{v.result}` | `{v.algorithm}` | {v.method} | **{v.verdict}**"
            f"{'' if v.legs[0].applies else ' outside the hypotheses: no claim'} |" for v in items]  # fmt: skip
    if sum(v.tightest is not None for v in items) > 1:  # verify --all --tightest: the overview before the results
        out += ["", *tightest_summary([v.tightest for v in items if v.tightest is not None])]
    for v in items:
        out += ["", f"## `{v.result}` — {v.title}", "", f"Source: {v.source}.", ""]
        out += [f"Bounds: {v.lhs}. Algorithm `{v.algorithm}`, {v.method}.", "", f"Problem: {v.problem}.", ""]
        if v.note:
            out += [f"Note: {v.note}.", ""]
        out += [v.constants, ""]
        out += [f"- {n}" for n in v.constant_notes] + [""]
        out += ["| step | value | hypotheses | verdict | bound / measured at T | measured decay | predicted decay |",
                "|---|---|---|---|---|---|---|"]  # fmt: skip
        out += [_leg_line(leg) for leg in v.legs]
        out += ["", f"![{v.result}]({v.figure})"]
        if v.tightest is not None:
            out += ["", *tightest_section(v.tightest)]
    return "\n".join(out) + "\n"


def tightest_section(t: TightestItem) -> list[str]:
    """A result's "Tightest bound" subsection: what is bounded, the class, the note, the kinds, one row per point and
    the figure; or one line with the reason it is not computed."""
    if not t.rows:
        return [f"**Tightest bound**: not computed: {t.reason or 'no points'}."]
    out = ["### Tightest bound", "", TIGHTEST_INTRO, "", f"Quantity: {t.quantity}.", "", f"Class: {t.assumptions}.", ""]
    if t.note:
        out += [f"Note: {t.note}.", ""]
    out += [f"- **{k}**: {why}" for k, why in kind_lines(t)] + [""]
    out += ["| leg | M | T | paper bound (sigma^2 = 0) | tightest | paper / tightest | kind | measured "
            "(deterministic quadratic) | hypotheses failing |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    out += [_tightest_line(r) for r in t.rows]
    if t.skipped:
        out += ["", f"Left out: {t.skipped}."]
    if t.by_step:
        b = t.by_step[0]
        out += ["", f"Against the step (T = {b.T}, M = {b.M}; x1 is the largest admissible step):", "",
                "| step | value | paper bound | tightest | paper / tightest | hypotheses failing |",
                "|---|---|---|---|---|---|"]  # fmt: skip
        out += [f"| {r.mode} | {r.step:.4g} | {number_text(r.paper, '.4g')} | {number_text(r.tightest, '.4g')} | "
                f"{r.ratio_text} | {_cell(r.hypotheses)} |" for r in t.by_step]  # fmt: skip
    if any(r.replayed is not None for r in t.rows):
        out += ["", REFUTED]
    return [*out, "", f"![tightest bound, {t.result}]({t.figure})"]


def _tightest_line(r: TightestRow) -> str:
    """One point of a tightest-bound table."""
    measured = "—" if r.measured is None else number_text(r.measured, ".4g")
    return (f"| {leg_text(r.mode, [r])} | {r.M} | {r.T} | {number_text(r.paper, '.4g')} | "
            f"{number_text(r.tightest, '.4g')} | {r.ratio_text} | {r.kind} | {measured} | "
            f"{_cell(r.hypotheses)} |")  # fmt: skip


def _cell(text: str) -> str:
    """Text inside a Markdown table cell (its pipes escaped)."""
    return text.replace("|", "\\|")


def tightest_summary(items: list[TightestItem]) -> list[str]:
    """The tightest bounds across results: the kind at the check's M and paper / tightest at the largest T on the
    admissible leg (or the corollary's choice), at the check's M and at M = 1."""
    out = ["## Tightest bounds", "", "paper / tightest at the largest T computed, on the admissible leg (or the "
           "corollary's choice); M = 1 is exact where the result allows one client.", ""]  # fmt: skip
    out += ["| result | kind (check's M) | paper / tightest (check's M) | paper / tightest (M = 1) |",
            "|---|---|---|---|"]  # fmt: skip
    for t in items:
        at, one = t.last(t.M), (t.last(1) if t.M != 1 else None)
        if not t.rows:
            out.append(f"| `{t.result}` | not computed: {_cell(t.reason.split(':')[0])} | — | — |")
            continue
        kind = kind_text([r for r in t.rows if r.M == t.M])
        cell = "—" if at is None else f"{at.ratio_text} (T = {at.T}, M = {at.M})"
        out.append(f"| `{t.result}` | {kind} | {cell} | {'—' if one is None else f'{one.ratio_text} (T = {one.T})'} |")
    return out


def _leg_line(leg: LegRow) -> str:
    """One row of a result's table of steps."""
    hyp = "all statement hypotheses hold" if leg.applies else "fails: " + "; ".join(leg.failing)
    first = f", first at T = {leg.first_violation}" if leg.first_violation else ""
    verdict = f"**{leg.verdict}**{first}" + (f": {leg.outside}" if leg.outside else "")
    verdict += f" ({leg.how_sure})" if leg.how_sure else ""
    return (
        f"| {leg.mode} | {leg.step:.4g} | {hyp} | {verdict} | {leg.ratio} | "
        f"{number_text(leg.slope_measured, '.2f', 'too few points')} | "
        f"{number_text(leg.slope_predicted, '.2f', 'too few points')} |"
    )


def worst_cases_section(items: Sequence[WorstCaseItem]) -> str:
    """One row per worst-case search: instances tried, the worst ratio, where, and whether it is a counterexample."""
    out = ["## Worst cases", ""]
    out += ["The largest measured / bound ratio over quadratics in each result's assumption class (`--worst-case`); "
            "above 1 is a counterexample (its instance is saved beside `counterexamples.json`).", ""]  # fmt: skip
    out += [
        "| result | instances | worst measured / bound | at T | step | counterexample |",
        "|---|---|---|---|---|---|",
    ]
    out += [f"| `{w.result}` | {w.instances} | {number_text(w.ratio, why='bound 0 or not finite')} | {w.T} | "
            f"{w.step:.3g} | {'**yes**' if w.counterexample else 'no'} |" for w in items]  # fmt: skip
    return "\n".join(out) + "\n"


def trends_section(items: Sequence[TrendItem]) -> str:
    """The "Trends" section: a summary table, then one subsection per check (claim, rule, verdict, note, figure)."""
    out = ["## Trends", "", "Claims about how convergence changes, checked against what the algorithms do.", ""]
    out += ["| check | verdict | numbers |", "|---|---|---|"]
    out += [f"| `{c.name}` | **{c.verdict}** | {c.summary.replace('|', chr(92) + '|')} |" for c in items]
    for c in items:
        out += ["", f"### `{c.name}` — {c.title}", "", f"Claim: {c.claim}", "", f"Rule: {c.rule}.", ""]
        out += [f"Verdict: **{c.verdict}**. {c.summary}.", "", f"Note: {c.note}", ""]
        out += [f"![{c.name}]({c.figure})", ""]
    return "\n".join(out).rstrip() + "\n"


__all__ = [
    "TITLE",
    "render",
    "results_section",
    "tightest_section",
    "tightest_summary",
    "trends_section",
    "worst_cases_section",
]
