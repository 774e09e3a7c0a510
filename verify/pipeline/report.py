"""The verification report: one section per result (statement, constants, hypotheses at the steps used, measured
vs predicted on log axes, verdicts), as Markdown, JSON and a self-contained HTML page (figures embedded)."""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import sfltheory as st
from sfltheory.atomic import write_atomic

from .experiments import LHS_KINDS
from .verification import Verification

FORMAT = "sfltheory.verification/1"
YLABEL = {
    LHS_KINDS["avg"]: r"$\frac{1}{T}\sum_{t<T} E\,\|\nabla f(x^t)\|^2$",
    LHS_KINDS["min"]: r"$\min_{t<T} E\,\|\nabla f(x^t)\|^2$",
    LHS_KINDS["eta_avg"]: r"$\frac{\eta}{T}\sum_{t<T} E\,\|\nabla f(x^t)\|^2$",
}


def source(r: Any) -> str:
    """Where a result is printed: label, equation, section and seed file."""
    p = r.provenance
    eq = f" {p.equation}" if p.equation else ""
    sec = f", {p.section}" if p.section else ""
    return f"{p.label}{eq}{sec} (seed {p.seed})"


def figure(v: Verification) -> Any:
    """Measured left-hand side and predicted bound against T (log-log), one colour per step."""
    from sfltheory.plotting import PALETTE, style

    with style() as plt:
        fig, ax = plt.subplots(figsize=(6.0, 3.6))
        for i, leg in enumerate(v.legs):
            c = PALETTE[i % len(PALETTE)]
            what = f"{leg.mode} step {leg.step:.3g}" + ("" if leg.applies else " (hypotheses fail)")
            ax.plot(leg.T, leg.bound, color=c, ls="--", label=f"predicted (bound), {what}")
            ax.plot(leg.T, leg.lhs, color=c, label=f"measured, {what}")
            if leg.lhs_se is not None:
                ax.fill_between(leg.T, np.maximum(leg.lhs - 3 * leg.lhs_se, 1e-300), leg.lhs + 3 * leg.lhs_se,
                                color=c, alpha=0.2, lw=0)  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rounds T")
        ax.set_ylabel(YLABEL.get(v.lhs, "left-hand side"))
        ax.set_title(f"{v.result}: {v.legs[0].verdict} ({v.method.split(' (')[0]})")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
        fig.tight_layout()
        return fig


def _png(v: Verification) -> bytes:
    from sfltheory.plotting import style

    with style() as plt:
        fig = figure(v)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
    return buf.getvalue()


def clean(o: Any) -> Any:
    """JSON has no inf or NaN: they become null (a diverged run, an infinite tightness)."""
    if isinstance(o, float):
        return o if np.isfinite(o) else None
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [clean(v) for v in o]
    return o


def to_json(vs: Sequence[Verification]) -> dict[str, Any]:
    return clean({"format": FORMAT, "results": [v.to_dict() for v in vs]})


def constants_text(v: Verification) -> str:
    """The constants of a verification in one line, with the standard error of each measured one."""

    def one(k: str, x: float) -> str:
        se = v.constant_errors.get(k)
        return f"{k} = {x:.4g}" + (f" ± {se:.2g}" if se else "")

    how = "exact on the problem" if v.problem.startswith("exact") else "measured, sup along the trajectory"
    return f"Constants ({how}): " + ", ".join(one(k, x) for k, x in v.constants.items())


def _leg_line(leg: Any) -> str:
    hyp = "all statement hypotheses hold" if leg.applies else "fails: " + "; ".join(leg.failing)
    first = f", first at T = {leg.first_violation}" if leg.first_violation else ""
    return (
        f"| {leg.mode} | {leg.step:.4g} | {hyp} | **{leg.verdict}**{first} | {leg.tightness:.3g} | "
        f"{leg.slope_lhs:.2f} | {leg.slope_bound:.2f} |"
    )


def markdown(vs: Sequence[Verification], figures: dict[str, str] | None = None) -> str:
    out = ["# Verification report", "", "Measured left-hand side against the predicted bound.", ""]
    out += ["| result | algorithm | method | verdict (admissible step) |", "|---|---|---|---|"]
    out += [f"| `{v.result}` | `{v.algorithm}` | {v.method} | **{v.verdict}** |" for v in vs]
    for v in vs:
        r = st.get(v.result)
        out += ["", f"## `{v.result}` — {r.title}", "", f"Source: {source(r)}.", ""]
        out += [f"Bounds: {v.lhs}. Algorithm `{v.algorithm}`, {v.method}.", "", f"Problem: {v.problem}.", ""]
        if v.note:
            out += [f"Note: {v.note}.", ""]
        out += [constants_text(v), ""]
        out += [f"- {n}" for n in v.constant_notes] + [""]
        out += ["| step | value | hypotheses | verdict | bound / measured at T | measured decay | predicted decay |",
                "|---|---|---|---|---|---|---|"]  # fmt: skip
        out += [_leg_line(leg) for leg in v.legs]
        if figures and v.result in figures:
            out += ["", f"![{v.result}]({figures[v.result]})"]
    return "\n".join(out) + "\n"


def html_page(vs: Sequence[Verification]) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>sfltheory verification</title>",
        "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;line-height:1.4;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}"
        "th{background:#f3f3f3}.holds{color:#007a3d;font-weight:bold}.violated{color:#c00;font-weight:bold}"
        ".inconclusive,.void{color:#a60;font-weight:bold}code{background:#f6f6f6;padding:0 3px}"
        "img{max-width:100%}</style></head><body>",
        "<h1>Verification report</h1><p>Measured left-hand side against the predicted bound. On exact quadratics, "
        "exact moments (first-order algorithms): a measured value above the bound is a violation for certain; "
        "Monte Carlo (zeroth-order): mean over seeds with a band of 3 standard errors. On a model: mean over "
        "seeds with the same band, the bound evaluated with the constants measured along the run (their sup).</p>",
        "<table><tr><th>result</th><th>algorithm</th><th>method</th><th>verdict (admissible step)</th></tr>",
    ]
    for v in vs:
        parts.append(f"<tr><td><a href='#{html.escape(v.result)}'><code>{html.escape(v.result)}</code></a></td>"
                     f"<td><code>{v.algorithm}</code></td><td>{html.escape(v.method)}</td>"
                     f"<td class='{v.verdict}'>{v.verdict}</td></tr>")  # fmt: skip
    parts.append("</table>")
    for v in vs:
        r = st.get(v.result)
        img = base64.b64encode(_png(v)).decode()
        parts.append(f"<h2 id='{html.escape(v.result)}'><code>{html.escape(v.result)}</code> — "
                     f"{html.escape(r.title)}</h2>")  # fmt: skip
        parts.append(f"<p>Source: {html.escape(source(r))}. Bounds: {html.escape(v.lhs)}. "
                     f"Algorithm <code>{v.algorithm}</code>, {html.escape(v.method)}.</p>")  # fmt: skip
        parts.append(f"<p>Statement: <code>{html.escape(r.statement)}</code></p>")
        parts.append(f"<p>Problem: {html.escape(v.problem)}.</p>")
        if v.note:
            parts.append(f"<p><em>{html.escape(v.note)}</em></p>")
        parts.append(f"<p>{html.escape(constants_text(v))}</p>")
        if v.constant_notes:
            parts.append(
                "<details><summary>where each constant comes from</summary><ul>"
                + "".join(f"<li>{html.escape(n)}</li>" for n in v.constant_notes)
                + "</ul></details>"
            )
        parts.append("<table><tr><th>step</th><th>value</th><th>hypotheses</th><th>verdict</th>"
                     "<th>bound / measured at T</th><th>decay measured</th><th>decay predicted</th></tr>")  # fmt: skip
        for leg in v.legs:
            hyp = "all hold" if leg.applies else "fail: " + html.escape("; ".join(leg.failing))
            first = f" (first at T = {leg.first_violation})" if leg.first_violation else ""
            parts.append(f"<tr><td>{leg.mode}</td><td>{leg.step:.4g}</td><td>{hyp}</td>"
                         f"<td class='{leg.verdict}'>{leg.verdict}{first}</td><td>{leg.tightness:.3g}</td>"
                         f"<td>{leg.slope_lhs:.2f}</td><td>{leg.slope_bound:.2f}</td></tr>")  # fmt: skip
        parts.append("</table>")
        parts.append(f"<img alt='{html.escape(v.result)} measured vs predicted' src='data:image/png;base64,{img}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write(vs: Sequence[Verification], out: str | Path) -> list[Path]:
    """``report.html``, ``report.md``, ``report.json`` and one PNG per result into ``out`` (atomically)."""
    from sfltheory.plotting import save, style

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    figures: dict[str, str] = {}
    for v in vs:
        name = v.result.replace("/", "_").replace("@", "_") + ".png"
        with style():
            save(figure(v), d / name)
        figures[v.result] = name
        written.append(d / name)
    write_atomic(d / "report.md", markdown(vs, figures))
    write_atomic(d / "report.json", json.dumps(to_json(vs), indent=1, allow_nan=False) + "\n")
    write_atomic(d / "report.html", html_page(vs))
    return [d / "report.html", d / "report.md", d / "report.json", *written]
