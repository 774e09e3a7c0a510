"""The report as one self-contained HTML page (``report.html``): each section of the document, figures embedded as
PNG (the items' ``image``)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape

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
from .mathimg import data_uris

HEAD = "<!doctype html><html><head><meta charset='utf-8'><title>sfltheory verification</title>"
STYLE = (
    "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;line-height:1.4;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}"
    "th{background:#f3f3f3}.holds{color:#007a3d;font-weight:bold}.violated{color:#c00;font-weight:bold}"
    ".inconclusive,.void{color:#a60;font-weight:bold}code{background:#f6f6f6;padding:0 3px}"
    ".outside{color:#666}.outside b{color:#666}small{color:#555}"
    "img{max-width:100%}.stmt{margin-left:1.5em}.stmt img{display:block;max-width:100%;height:auto;margin:2px 0}"
    "</style></head><body>"
)
TITLE = "<h1>Verification report</h1>"
RESULTS_INTRO = (
    "<p>Measured left-hand side against the predicted bound. On exact quadratics, "
    "exact moments (first-order algorithms): a measured value above the bound is a violation for certain; "
    "Monte Carlo (zeroth-order): mean over seeds with an interval that holds simultaneously over every T at the "
    "stated confidence (Student's t, Bonferroni over T). On a model: mean over seeds with the same interval, the "
    "bound evaluated with the constants measured along the run (their sup). A verdict at a step where the "
    "theorem's hypotheses fail is shown in grey: the theorem makes no claim there.</p>"
    f"<p>{escape(DECAY)}</p>"
)
# a trend verdict in the colours of a result's: agrees as holds, disagrees as violated
TREND_CLASS = {"agrees": "holds", "disagrees": "violated", "inconclusive": "inconclusive"}


def render(doc: Document) -> str:
    """The whole page: the title and each section of the document, one element per line."""
    parts = [HEAD, STYLE, TITLE + (RESULTS_INTRO if doc.shows_results else "")]
    if doc.shows_results:
        parts.append(results_section(doc.results))
    if doc.worst_cases:
        parts.append(worst_cases_section(doc.worst_cases))
    if doc.trends:
        parts.append(trends_section(doc.trends))
    parts.append("</body></html>")
    return "\n".join(parts)


def _img(alt: str, png: bytes | None) -> list[str]:
    """The figure embedded as an ``<img>`` (nothing when the document carries none)."""
    if png is None:
        return []
    return [f"<img alt='{escape(alt)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"]


def _statement(tex: str) -> list[str]:
    """The statement drawn by mathtext (an embedded SVG), its LaTeX source one click away; the source alone where
    mathtext cannot read it."""
    uris = data_uris(tex) if tex else None
    src = f"<code>{escape(tex)}</code>"
    if uris is None:
        return [f"<p>Statement: {src}</p>"]
    alt = escape(tex)
    imgs = "".join(f"<img alt='{alt if i == 0 else ''}' src='{u}'>" for i, u in enumerate(uris))
    return [f"<p>Statement:</p><p class='stmt'>{imgs}</p>",
            f"<details><summary>LaTeX source</summary>{src}</details>"]  # fmt: skip


def results_section(items: Sequence[ResultItem]) -> str:
    """A summary table of the results, then one subsection per result."""
    parts = ["<table><tr><th>result</th><th>algorithm</th><th>method</th><th>verdict (admissible step)</th></tr>"]
    for v in items:
        parts.append(f"<tr><td><a href='#{escape(v.result)}'><code>{escape(v.result)}</code></a></td>"
                     f"<td><code>{v.algorithm}</code></td><td>{escape(v.method)}</td>"
                     f"{_summary_verdict(v)}</tr>")  # fmt: skip
    parts.append("</table>")
    if sum(v.tightest is not None for v in items) > 1:  # verify --all --tightest: the overview before the results
        parts += tightest_summary([v.tightest for v in items if v.tightest is not None])
    for v in items:
        parts += _result(v)
    return "\n".join(parts)


def _summary_verdict(v: ResultItem) -> str:
    """The summary table's verdict cell: grey, and saying so, where the admissible step is outside the hypotheses."""
    leg = v.legs[0]
    if leg.applies:
        return f"<td class='{v.verdict}'>{v.verdict}</td>"
    return f"<td class='outside'><b>{v.verdict}</b> outside the hypotheses: no claim</td>"


def _result(v: ResultItem) -> list[str]:
    """One result: source, statement, problem, constants (and where each comes from), the steps, the figure."""
    parts = [f"<h2 id='{escape(v.result)}'><code>{escape(v.result)}</code> — {escape(v.title)}</h2>"]
    parts.append(f"<p>Source: {escape(v.source)}. Bounds: {escape(v.lhs)}. "
                 f"Algorithm <code>{v.algorithm}</code>, {escape(v.method)}.</p>")  # fmt: skip
    parts += _statement(v.statement)
    parts.append(f"<p>Problem: {escape(v.problem)}.</p>")
    if v.note:
        parts.append(f"<p><em>{escape(v.note)}</em></p>")
    parts.append(f"<p>{escape(v.constants)}</p>")
    if v.constant_notes:
        parts.append(
            "<details><summary>where each constant comes from</summary><ul>"
            + "".join(f"<li>{escape(n)}</li>" for n in v.constant_notes)
            + "</ul></details>"
        )
    decay = escape(DECAY, quote=True)
    parts.append("<table><tr><th>step</th><th>value</th><th>hypotheses</th><th>verdict</th>"
                 f"<th>bound / measured at T</th><th title='{decay}'>decay measured</th>"
                 f"<th title='{decay}'>decay predicted</th></tr>")  # fmt: skip
    for leg in v.legs:
        parts.append(_leg_row(leg))
    parts.append("</table>")
    parts.append("<p><small>Decay: the log-log slope of the measured left-hand side and of the bound over the last "
                 "three quarters of T (see the top of the page).</small></p>")  # fmt: skip
    parts += _img(f"{v.result} measured vs predicted", v.image)
    return parts + ([] if v.tightest is None else tightest_section(v.tightest))


def tightest_section(t: TightestItem) -> list[str]:
    """A result's "Tightest bound" subsection (or one line with the reason it is not computed)."""
    if not t.rows:
        return [f"<p><strong>Tightest bound</strong>: not computed: {escape(t.reason or 'no points')}.</p>"]
    parts = [f"<h3 id='tightest-{escape(t.result)}'>Tightest bound</h3>", f"<p>{escape(TIGHTEST_INTRO)}</p>",
             f"<p>Quantity: {escape(t.quantity)}.<br>Class: {escape(t.assumptions)}.</p>"]  # fmt: skip
    if t.note:
        parts.append(f"<p><em>{escape(t.note)}</em></p>")
    if t.kinds:
        parts.append("<ul>" + "".join(f"<li><b>{escape(k)}</b>: {escape(w)}</li>" for k, w in kind_lines(t)))
        parts[-1] += "</ul>"
    parts.append("<table><tr><th>leg</th><th>M</th><th>T</th><th>paper bound (σ² = 0)</th><th>tightest</th>"
                 "<th>paper / tightest</th><th>kind</th><th>measured (deterministic quadratic)</th>"
                 "<th>hypotheses failing</th></tr>")  # fmt: skip
    parts += [_tightest_row(r) for r in t.rows]
    parts.append("</table>")
    if t.skipped:
        parts.append(f"<p>Left out: {escape(t.skipped)}.</p>")
    if t.by_step:
        b = t.by_step[0]
        parts.append(f"<p>Against the step (T = {b.T}, M = {b.M}; x1 is the largest admissible step):</p><table><tr>"
                     "<th>step</th><th>value</th><th>paper bound</th><th>tightest</th><th>paper / tightest</th>"
                     "<th>hypotheses failing</th></tr>")  # fmt: skip
        parts += [f"<tr><td>{r.mode}</td><td>{r.step:.4g}</td><td>{number_text(r.paper, '.4g')}</td>"
                  f"<td>{number_text(r.tightest, '.4g')}</td><td>{r.ratio_text}</td>"
                  f"<td>{escape(r.hypotheses)}</td></tr>" for r in t.by_step]  # fmt: skip
        parts[-1] += "</table>"
    if any(r.replayed is not None for r in t.rows):
        parts.append(f"<p><strong>{escape(REFUTED)}</strong></p>")
    return parts + _img(f"{t.result} tightest bound", t.image)


def _tightest_row(r: TightestRow) -> str:
    """One point of a tightest-bound table."""
    measured = "—" if r.measured is None else number_text(r.measured, ".4g")
    hyp = "all hold" if not r.failing else f"<span class='outside'>{escape(r.hypotheses)}</span>"
    return (f"<tr><td>{escape(leg_text(r.mode, [r]))}</td><td>{r.M}</td><td>{r.T}</td>"
            f"<td>{number_text(r.paper, '.4g')}</td><td>{number_text(r.tightest, '.4g')}</td><td>{r.ratio_text}</td>"
            f"<td>{escape(r.kind)}</td><td>{measured}</td><td>{hyp}</td></tr>")  # fmt: skip


def tightest_summary(items: list[TightestItem]) -> list[str]:
    """The tightest bounds across results, each linked to its subsection."""
    parts = ["<h2 id='tightest'>Tightest bounds</h2><p>paper / tightest at the largest T computed, on the admissible "
             "leg (or the corollary's choice); M = 1 is exact where the result allows one client.</p>",
             "<table><tr><th>result</th><th>kind (check's M)</th><th>paper / tightest (check's M)</th>"
             "<th>paper / tightest (M = 1)</th></tr>"]  # fmt: skip
    for t in items:
        name = f"<code>{escape(t.result)}</code>"
        if not t.rows:
            parts.append(f"<tr><td>{name}</td><td>not computed: {escape(t.reason.split(':')[0])}</td><td>—</td>"
                         "<td>—</td></tr>")  # fmt: skip
            continue
        at, one = t.last(t.M), (t.last(1) if t.M != 1 else None)
        cell = "—" if at is None else f"{at.ratio_text} (T = {at.T}, M = {at.M})"
        parts.append(f"<tr><td><a href='#tightest-{escape(t.result)}'>{name}</a></td>"
                     f"<td>{escape(kind_text([r for r in t.rows if r.M == t.M]))}</td><td>{cell}</td>"
                     f"<td>{'—' if one is None else f'{one.ratio_text} (T = {one.T})'}</td></tr>")  # fmt: skip
    parts.append("</table>")
    return parts


def _leg_row(leg: LegRow) -> str:
    """One step of a result: the verdict says what it is about (a step outside the hypotheses, how sure)."""
    hyp = "all hold" if leg.applies else "fail: " + escape("; ".join(leg.failing))
    first = f" (first at T = {leg.first_violation})" if leg.first_violation else ""
    sure = f"<br><small>{escape(leg.how_sure)}</small>" if leg.how_sure else ""
    if leg.applies:
        cell = f"<td class='{leg.verdict}'>{leg.verdict}{first}{sure}</td>"
    else:
        cell = f"<td class='outside'><b>{leg.verdict}</b>{first}: {escape(leg.outside)}{sure}</td>"
    return (f"<tr><td>{leg.mode}</td><td>{leg.step:.4g}</td><td>{hyp}</td>{cell}<td>{leg.ratio}</td>"
            f"<td>{number_text(leg.slope_measured, '.2f', 'too few points')}</td>"
            f"<td>{number_text(leg.slope_predicted, '.2f', 'too few points')}</td></tr>")  # fmt: skip


def worst_cases_section(items: Sequence[WorstCaseItem]) -> str:
    """One row per worst-case search."""
    parts = ["<h2 id='worst-cases'>Worst cases</h2><p>The largest measured / bound ratio over quadratics in each "
             "result's assumption class (<code>--worst-case</code>); above 1 is a counterexample (its instance is "
             "saved beside <code>counterexamples.json</code>).</p>",
             "<table><tr><th>result</th><th>instances</th><th>worst measured / bound</th><th>at T</th><th>step</th>"
             "<th>counterexample</th></tr>"]  # fmt: skip
    for w in items:
        cls, what = ("violated", "yes") if w.counterexample else ("holds", "no")
        parts.append(f"<tr><td><code>{escape(w.result)}</code></td><td>{w.instances}</td>"
                     f"<td>{number_text(w.ratio, why='bound 0 or not finite')}</td>"
                     f"<td>{w.T}</td><td>{w.step:.3g}</td><td class='{cls}'>{what}</td></tr>")  # fmt: skip
    parts.append("</table>")
    return "\n".join(parts)


def trends_section(items: Sequence[TrendItem]) -> str:
    """The "Trends" section: a summary table, then one subsection per check."""
    parts = ["<h2 id='trends'>Trends</h2><p>Claims about how convergence changes, checked against what the "
             "algorithms do.</p>",
             "<table><tr><th>check</th><th>verdict</th><th>numbers</th></tr>"]  # fmt: skip
    for c in items:
        cls = TREND_CLASS[c.verdict]
        parts.append(f"<tr><td><a href='#trend-{c.name}'><code>{c.name}</code></a></td>"
                     f"<td class='{cls}'>{c.verdict}</td><td>{escape(c.summary)}</td></tr>")  # fmt: skip
    parts.append("</table>")
    for c in items:
        parts.append(f"<h3 id='trend-{c.name}'><code>{c.name}</code> — {escape(c.title)}</h3>")
        parts.append(f"<p><strong>Claim.</strong> {escape(c.claim)}</p>")
        parts.append(f"<p><strong>Rule.</strong> {escape(c.rule)}.</p>")
        parts.append(f"<p><strong>Verdict: <span class='{TREND_CLASS[c.verdict]}'>{c.verdict}</span>.</strong> "
                     f"{escape(c.summary)}.</p>")  # fmt: skip
        parts.append(f"<p><em>{escape(c.note)}</em></p>")
        parts += _img(c.name, c.image)
    return "\n".join(parts)


__all__ = ["render", "results_section", "tightest_section", "tightest_summary", "trends_section", "worst_cases_section"]
