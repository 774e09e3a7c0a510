"""The verification report: one document (:mod:`.document`) built from the verifications, the worst-case searches
and the trend checks, written as Markdown (:mod:`.markdown`), a self-contained HTML page (:mod:`.html`) and JSON
(:mod:`.jsonout`), with one figure per result and per trend check (:mod:`.figures`).

:func:`write` takes everything in one call and writes every format from the same document; :func:`to_json` is the
document as JSON (``sfltheory verify --json``); :func:`clean` makes a value JSON-able.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sfltheory.atomic import write_atomic

from . import html, jsonout, markdown
from .document import Record, build, result_stem
from .figures import Drawn, draw, figure
from .jsonout import clean


def write(
    verifications: Sequence[Record],
    out: str | Path,
    *,
    worst_cases: Sequence[Record] | None = None,
    trends: Sequence[Drawn] | None = None,
) -> list[Path]:
    """``report.html``, ``report.md``, ``report.json`` and one PNG per result and per trend check into ``out``, every
    file written atomically. ``worst_cases`` and ``trends``: None leaves their section out. Returns the files
    written, the page first."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    doc, figures = draw(build(verifications, worst_cases=worst_cases, trends=trends), verifications, trends, d)
    write_atomic(d / "report.md", markdown.render(doc))
    write_atomic(d / "report.json", json.dumps(jsonout.render(doc), indent=1, allow_nan=False) + "\n")
    write_atomic(d / "report.html", html.render(doc))
    return [d / "report.html", d / "report.md", d / "report.json", *figures]


def to_json(
    verifications: Sequence[Record],
    *,
    worst_cases: Sequence[Record] | None = None,
    trends: Sequence[Record] | None = None,
) -> dict[str, Any]:
    """The report as JSON-able data (no figures drawn): ``format``, ``results``, and ``worst_case`` and ``trends``
    when given."""
    return jsonout.render(build(verifications, worst_cases=worst_cases, trends=trends))


__all__ = ["clean", "figure", "result_stem", "to_json", "write"]
