"""``sfltheory tables``: regenerate the seeds' theory tables (:mod:`sfltheory.seedtables`) as Markdown, CSV and
LaTeX, each compared cell by cell with the seed text."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..errors import ParameterError
from ..outputs import check_dir
from ..seedtables import DEFAULT_OUT, check_ids, listing, write_tables


def _cmd_tables(a: argparse.Namespace) -> int:
    try:
        chosen = check_ids(a.ids or None)
    except ParameterError as e:  # the library names its parameter; here it is the positional ID
        raise ParameterError("ID", e.rule) from None
    if a.list:  # the named tables only (all without an ID); nothing is written, so --out is refused
        if a.out is not None:
            raise ParameterError("--out", "--list writes nothing; drop --out or drop --list")
        print("\n".join(listing(chosen)))
        return 0
    out = check_dir("--out", DEFAULT_OUT if a.out is None else a.out)  # before any table is built
    t0 = time.perf_counter()
    written = write_tables(chosen, out)
    for path in written:
        print(f"wrote {path}")
    n = (len(written) - 1) // 3
    print(f"{len(written)} files ({n} table{'s' * (n != 1)} and the index) in {time.perf_counter() - t0:.1f} s")
    return 0


def register(sub: Any) -> None:
    """Add ``tables`` to a subparsers object."""
    s = sub.add_parser(
        "tables",
        help="regenerate the seeds' theory tables as Markdown, CSV and LaTeX: tables [--out DIR] [ID ...]",
        description="Rebuilds each seed table (or the IDs given) from the encoded results into --out as ID.md, "
        "ID.csv and ID.tex plus index.md; every printed cell is compared with the regenerated one.",
    )
    s.add_argument("ids", nargs="*", metavar="ID", help="tables to write (default: all; see --list)")
    s.add_argument("--out", help=f"output directory (default: {DEFAULT_OUT})")
    s.add_argument("--list", action="store_true", help="list the tables (or the IDs given) and where each is printed")
    s.set_defaults(func=_cmd_tables)
