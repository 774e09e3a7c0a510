"""How a command prints what it computed: JSON (``--json``) or its text, and a figure (``--plot FILE``)."""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from collections.abc import Callable
from typing import Any

from .. import plotting, report

WIDTH = 120  # text output fits this many columns unless --wide


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def _fit_table(lines: list[str], width: int) -> list[str]:
    """A table (header, dashes, rows) narrowed to ``width`` by wrapping its widest columns' cells."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[1])]
    cells = [[ln[a : (spans[k + 1][0] if k + 1 < len(spans) else len(ln))].rstrip() for k, (a, _) in enumerate(spans)]
             for ln in lines]  # fmt: skip
    widths = [b - a for a, b in spans]
    while sum(widths) + 2 * (len(widths) - 1) > width:
        k = max(range(len(widths)), key=lambda i: widths[i])
        excess = sum(widths) + 2 * (len(widths) - 1) - width
        if widths[k] <= 12:
            break
        widths[k] = max(12, widths[k] - excess)
    out: list[str] = []
    for r, row in enumerate(cells):
        if r == 1:
            out.append("  ".join("-" * w for w in widths))
            continue
        parts = [_wrap(c, w) for c, w in zip(row, widths, strict=True)]
        for j in range(max(len(p) for p in parts)):
            out.append(
                "  ".join((p[j] if j < len(p) else "").ljust(w) for p, w in zip(parts, widths, strict=True)).rstrip()
            )
    return out


def _in_table(line: str, rule: str) -> bool:
    """Whether ``line`` is a row of the table whose dashes line is ``rule``: blank where the rule has its gaps."""
    return bool(line) and all(i >= len(line) or line[i] == " " for i, ch in enumerate(rule) if ch == " ")


def fit(text: str, width: int = WIDTH) -> str:
    """``text`` within ``width`` columns: a wide table's widest columns wrapped within their cells, a long line of
    prose wrapped with an indent."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-+(  -+)*", lines[i + 1] or "x"):
            j = i + 2
            while j < len(lines) and _in_table(lines[j], lines[i + 1]):
                j += 1
            block = lines[i:j]
            out += _fit_table(block, width) if max(len(x) for x in block) > width else block
            i = j
            continue
        line = lines[i]
        out += (
            textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) if len(line) > width else [line]
        )
        i += 1
    return "\n".join(out)


def print_json(obj: Any) -> None:
    """``obj`` as the commands print JSON: plain data, indented, no NaN."""
    print(json.dumps(report.jsonable(obj), indent=2, allow_nan=False))


def emit(
    a: argparse.Namespace,
    value: Any,
    to_dict: Callable[[Any], Any],
    to_text: Callable[[Any], str],
    plot: str | None = None,
) -> None:
    """Draw ``value`` with ``sfltheory.plotting.<plot>`` if ``--plot`` was given, then print it as JSON or text."""
    if a.plot and plot:
        getattr(plotting, plot)(value, a.plot, name="--plot")
    if a.json:
        print_json(to_dict(value))
    else:
        print(shown(a, to_text(value)))


def shown(a: argparse.Namespace, text: str) -> str:
    """Text as printed: within :data:`WIDTH` columns, or in full with ``--wide``."""
    return text if getattr(a, "wide", False) else fit(text)
