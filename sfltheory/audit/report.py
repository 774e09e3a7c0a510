"""The audit as text, JSON and Markdown, with a summary per paper and per check, and its findings grouped by root
cause (:mod:`sfltheory.audit.rootcause`: one error in a paper and the findings it causes)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..registry import paper_keys
from .findings import CHECK_TITLES, CHECKS, SEVERITIES, Finding
from .rootcause import RootCause, group
from .runner import Audit

SEEDS = "shared/seeds"  # where the seed files live in a checkout that has them
# the header of a findings table (the errata page, ``audit --markdown``, each result's page on the site)
FINDINGS_HEADER = ("| result | check | severity | found | witness (re-check) | seed |", "|---|---|---|---|---|---|")


def summary(a: Audit) -> dict[str, dict[str, int]]:
    """Per paper: findings per check and per severity, and the total."""
    out: dict[str, dict[str, int]] = {}
    for key in paper_keys():  # the built-in papers, then those of loaded user results
        fs = [f for f in a.findings if f.paper == key]
        row: dict[str, int] = {c: sum(f.check == c for f in fs) for c in CHECKS}
        row.update({str(s): sum(f.severity == s for f in fs) for s in SEVERITIES})
        row["total"] = len(fs)
        out[key] = row
    return out


def to_dict(a: Audit) -> dict[str, Any]:
    """The audit as JSON-ready data (format ``sfltheory.audit/1``): seed, sample budget, results checked, the
    summary per paper, the findings, their root causes (each naming its findings as ``--explain`` does) and the
    skipped checks with their reasons."""
    return {
        "format": "sfltheory.audit/1",
        "seed": a.seed,
        "samples": a.samples,
        "results": list(a.results),
        "summary": summary(a),
        "findings": [f.to_dict() for f in a.findings],
        "root_causes": [_cause_dict(rc) for rc in group(a.findings)],
        "skipped": [{"result": s.result, "check": s.check, "reason": s.reason} for s in a.skips],
    }


def to_json(a: Audit) -> str:
    """The audit as indented JSON text (:func:`to_dict`): what ``sfltheory audit --json`` prints."""
    return json.dumps(to_dict(a), indent=2, allow_nan=False, default=_nan_free)


def _cause_dict(rc: RootCause) -> dict[str, Any]:
    return {
        "key": rc.key,
        "paper": rc.paper,
        "title": rc.title,
        "cause": rc.statement,
        "seed": rc.seed,
        "severity": rc.severity,
        "loses": rc.loses,
        "evidence": list(rc.evidence),
        "results": list(rc.results),
        "findings": [m.name for m in rc.members],
    }


def _nan_free(v: Any) -> Any:  # pragma: no cover - json only calls it for unknown types
    return str(v)


def _num(v: float) -> str:
    return f"{v:.6g}"


def text(a: Audit) -> str:
    """The audit as ``sfltheory audit`` prints it: each finding with what was found, what is printed, its seed
    location and its re-check commands, then the summary table and the number of skipped checks."""
    lines = []
    for f in a.findings:
        lines += [
            f"{f.result}  [{f.check}] {f.severity}",
            f"  found:   {f.found}",
            f"  printed: {_short(f.printed)}",
            f"  seed:    {f.seed}",
        ]
        lines += [f"  re-check: {r.command()}   # -> {_num(r.value)}" for r in f.reevaluations]
        lines.append("")
    lines += [
        *causes_text(a),
        summary_text(a),
        f"{len(a.skips)} checks skipped (--json lists them with the reason); seed {a.seed}",
    ]
    return "\n".join(lines)


def causes_text(a: Audit) -> list[str]:
    """The root causes, one line each (its ``--explain`` name, severity, what it is about and how many findings it
    explains), then a blank line; nothing when the audit found nothing."""
    causes = group(a.findings)
    if not causes:
        return []
    out = [f"{len(causes)} root causes of {len(a.findings)} findings (docs/ERRATA.md states each with its evidence):"]
    for rc in causes:
        out.append(f"  {rc.key}  [{rc.severity}] {rc.title} ({len(rc.members)} finding(s))")
    return [*out, ""]


def summary_text(a: Audit) -> str:
    """The summary as a plain-text table: findings per paper and per check, a total row, and the count per severity."""
    s = summary(a)
    header = ["paper", *CHECKS, "total"]
    rows = [[k, *(str(v[c]) for c in CHECKS), str(v["total"])] for k, v in s.items()]
    rows.append(["all", *(str(sum(v[c] for v in s.values())) for c in CHECKS), str(len(a.findings))])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()  # noqa: E731
    sev = Counter(f.severity for f in a.findings)
    return "\n".join(
        [
            fmt(header),
            fmt(["-" * w for w in widths]),
            *(fmt(r) for r in rows),
            "",
            "severity: " + ", ".join(f"{k} {sev.get(k, 0)}" for k in SEVERITIES),
        ]
    )


def _short(s: str, n: int = 160) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def seed_link(f: Finding) -> str:
    """The seed location as a link to the seed file (relative to docs/)."""
    file = f.seed.split(":", 1)[0]
    return f"[{_cell(f.seed)}](../{SEEDS}/{file})"


def markdown_findings(a: Audit) -> list[str]:
    """The findings as Markdown lines: one table per paper (result, check, severity, finding, re-check, seed link)."""
    out = []
    for key in paper_keys():
        fs = [f for f in a.findings if f.paper == key]
        if not fs:
            continue
        out += [
            f"### `{key}`",
            "",
            *FINDINGS_HEADER,
        ]
        for f in fs:
            check = "<br>".join(f"`{_cell(r.command())}` → {_num(r.value)}" for r in f.reevaluations) or "—"
            row = [f"`{f.result}`", CHECK_TITLES[f.check], f.severity, _cell(f.found), check, seed_link(f)]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def markdown(a: Audit) -> str:
    """The audit as a Markdown page (``sfltheory audit --markdown FILE``): the summary table, then the findings."""
    s = summary(a)
    out = [
        "# Audit",
        "",
        f"`sfltheory audit --seed {a.seed}`: {len(a.findings)} findings over {len(a.results)} results.",
        "",
        "| paper | " + " | ".join(CHECK_TITLES[c] for c in CHECKS) + " | total |",
        "|---|" + "---|" * (len(CHECKS) + 1),
    ]
    out += [f"| `{k}` | " + " | ".join(str(v[c]) for c in CHECKS) + f" | {v['total']} |" for k, v in s.items()]
    causes = group(a.findings)
    if causes:
        out += ["", f"{len(causes)} root causes (one error in a paper, and the findings it causes):", ""]
        out += ["| root cause | severity | about | findings |", "|---|---|---|---|"]
        out += [f"| `{rc.key}` | {rc.severity} | {_cell(rc.title)} | {len(rc.members)} |" for rc in causes]
    out += ["", *markdown_findings(a)]
    return "\n".join(out)
