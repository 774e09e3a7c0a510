"""Writing the regenerated seed tables: ``ID.md``, ``ID.csv`` and ``ID.tex`` per table and ``index.md``, each
atomically (:func:`sfltheory.outputs.write_text`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..outputs import check_dir, write_text
from .catalogue import TABLES, build, check_ids
from .render import index_markdown, to_csv, to_latex, to_markdown

DEFAULT_OUT = Path("out/tables")


def listing(ids: Iterable[str] | None = None) -> list[str]:
    """One line per table: its id and where the seed prints it."""
    return [f"{i:<14} {TABLES[i][0]}" for i in check_ids(ids)]


def write_tables(ids: Iterable[str] | None = None, out: str | Path = DEFAULT_OUT) -> list[Path]:
    """Regenerate the tables ``ids`` (default: all) into ``out``; both are checked before anything is built or
    written (errors name ``ids`` and ``out``). Returns the files written, the index last."""
    chosen = check_ids(ids)
    folder = check_dir("out", out)
    tables = [build(i) for i in chosen]  # every table built before the first file is written
    written: list[Path] = []
    for t in tables:
        for ext, render in (("md", to_markdown), ("csv", to_csv), ("tex", to_latex)):
            written.append(write_text("out", folder / f"{t.id}.{ext}", render(t)))
    written.append(write_text("out", folder / "index.md", index_markdown(tables)))
    return written
