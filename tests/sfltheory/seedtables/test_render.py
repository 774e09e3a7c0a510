"""The renderers: CSV parses back into one line per cell, the LaTeX table has balanced braces and the right number
of columns, the Markdown grid has one cell per column, the index lists every table."""

from __future__ import annotations

import csv
import io
import re

import pytest

from sfltheory.seedtables import TABLES, SeedTable, build
from sfltheory.seedtables.core import Cell, text
from sfltheory.seedtables.render import CSV_FIELDS, index_markdown, to_csv, to_latex, to_markdown

BUILT: dict[str, SeedTable] = {}


def table(tid: str) -> SeedTable:
    if tid not in BUILT:
        BUILT[tid] = build(tid)
    return BUILT[tid]


def unescaped(s: str, ch: str) -> int:
    """How many ``ch`` in ``s`` are not preceded by a backslash."""
    return len(re.findall(rf"(?<!\\){re.escape(ch)}", s))


@pytest.mark.parametrize("tid", list(TABLES))
def test_csv_parses_back_one_line_per_cell(tid: str) -> None:
    t = table(tid)
    rows = list(csv.reader(io.StringIO(to_csv(t))))
    assert tuple(rows[0]) == CSV_FIELDS
    body = rows[1:]
    assert len(body) == len(t.rows) * len(t.columns)
    for (i, j), line in zip(((i, j) for i in range(len(t.rows)) for j in range(len(t.columns))), body, strict=True):
        c = t.rows[i][j]
        rec = dict(zip(CSV_FIELDS, line, strict=True))
        assert rec["table"] == tid and int(rec["row"]) == i + 1 and rec["column"] == t.columns[j]
        assert (rec["status"], rec["regenerated"], rec["printed"], rec["reason"]) == (
            c.status,
            c.text,
            c.printed,
            c.reason,
        )


@pytest.mark.parametrize("tid", list(TABLES))
def test_latex_is_a_balanced_booktabs_table_with_one_cell_per_column(tid: str) -> None:
    t = table(tid)
    tex = to_latex(t)
    assert unescaped(tex, "{") == unescaped(tex, "}")
    assert unescaped(tex.replace(r"\$", ""), "$") % 2 == 0
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{" + "l" * len(t.columns) + "}"):
        assert rule in tex
    lines = tex.splitlines()
    start, end = lines.index(r"\midrule"), lines.index(r"\bottomrule")
    head = lines[start - 1]
    assert unescaped(head, "&") == len(t.columns) - 1
    body = lines[start + 1 : end]
    assert len(body) == len(t.rows)
    for line in body:
        assert unescaped(line, "&") == len(t.columns) - 1 and line.endswith(r"\\"), line


@pytest.mark.parametrize("tid", list(TABLES))
def test_markdown_grid_has_one_cell_per_column(tid: str) -> None:
    t = table(tid)
    md = to_markdown(t)
    grid = [x for x in md.splitlines() if x.startswith("| ")]
    assert len(grid) == len(t.rows) + 1  # the header and one line per row
    for line in grid:
        assert unescaped(line, "|") == len(t.columns) + 1, line
    differ = [c for c in t.cells if c.status == "differ"]
    assert md.count("**differ**") == len(differ)


def test_special_characters_are_escaped() -> None:
    c = text("a & b | 50% of x_1 #2")
    assert c.latex == r"a \& b | 50\% of x\_1 \#2"
    t = SeedTable(id="x", title="t", seed="s", location="l", columns=("c",), rows=((c,),))
    assert unescaped(to_latex(t).splitlines()[6], "&") == 0
    assert "a & b \\| 50%" in to_markdown(t)


def test_a_row_that_does_not_fill_the_columns_is_refused() -> None:
    cell = Cell(text="1", latex="1", status="text")
    with pytest.raises(ValueError, match="2 cells for 1 columns"):
        SeedTable(id="x", title="t", seed="s", location="l", columns=("c",), rows=((cell, cell),))


def test_index_lists_every_table_with_its_counts() -> None:
    tables = [table(t) for t in TABLES]
    md = index_markdown(tables)
    for t in tables:
        assert f"[md]({t.id}.md)" in md and t.seed in md
    assert "NOT recorded" not in md
