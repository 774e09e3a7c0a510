"""The seeds' own theory tables, regenerated from the encoded results and compared cell by cell with the seed text.

One module per seed: :mod:`.mu_table2` (MU-SplitFed Table 2 and footnote 3), :mod:`.sl_tables` (split learning on
non-IID data: Tables 1, 4 and 6), :mod:`.heron_tables` (HERON-SFL Table I and Remark 2); :mod:`.core` holds the
typed table and how a cell is compared, :mod:`.printed` reads a printed cell into SymPy, :mod:`.render` writes
Markdown, CSV and LaTeX, :mod:`.catalogue` lists the tables and :mod:`.write` writes them.

``python -m sfltheory.seedtables [--out DIR] [--list] [ID ...]`` (or ``sfltheory tables``) writes each table as
``ID.md``, ``ID.csv`` and ``ID.tex`` and an ``index.md``, atomically. Torch-free.
"""

from __future__ import annotations

from .catalogue import TABLES, build, check_ids
from .core import Cell, SeedTable
from .write import DEFAULT_OUT, listing, write_tables

__all__ = ["DEFAULT_OUT", "TABLES", "Cell", "SeedTable", "build", "check_ids", "listing", "write_tables"]
