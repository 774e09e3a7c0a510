"""``sfltheory figs``: regenerate the paper figures (:mod:`sfltheory.figs`, one script per figure in
``paper_figs/``), list every figure and table (``--list``, ``--json``) and write the gallery page
(:mod:`sfltheory.gallery`)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..figs import DEFAULT_OUT, check_names, run
from ..gallery import Entry, listing, listing_json, theory_entries, write_gallery
from ..outputs import check_dir
from ..seedtables.write import write_tables


def no_verdicts(out: Path) -> dict[str, str]:
    """No verdicts (the theory half reproduces no experiment)."""
    return {}


@dataclass(frozen=True, kw_only=True)
class Extras:
    """What the torch half adds to the list and the gallery: its entries (the seeds' reproduced experiments) and,
    for an output folder, the verdicts it finds there by entry name."""

    entries: Callable[[], list[Entry]] = list
    verdicts: Callable[[Path], dict[str, str]] = no_verdicts


def _cmd_figs(a: argparse.Namespace, extras: Extras) -> int:
    try:
        chosen = check_names(a.names or None)
    except ParameterError as e:  # the library names its parameter; here it is the positional NAME
        raise ParameterError("NAME", e.rule) from None
    if a.list or a.json:  # nothing is drawn, so drawing options are refused
        flag = "--json" if a.json else "--list"
        drawing = [f for f, v in (("--out", a.out), ("--small", a.small)) if v not in (None, False)]
        if drawing:
            raise ParameterError(drawing[0], f"{flag} draws nothing; drop {' and '.join(drawing)} or drop {flag}")
        by_name = {e.name: e for e in [*theory_entries(), *extras.entries()]}
        shown = [by_name[n] for n in chosen] if a.names else list(by_name.values())
        print(listing_json(shown) if a.json else "\n".join(listing(shown)))
        return 0
    out = check_dir("--out", DEFAULT_OUT if a.out is None else a.out)  # before any figure is drawn
    t0 = time.perf_counter()
    written = run(chosen, out, small=a.small)
    if not a.names:  # everything: the seed tables too, so the gallery shows them
        written += write_tables(None, out / "tables")
    written.append(write_gallery(out, [*theory_entries(), *extras.entries()], extras.verdicts(out)))
    for path in written:
        print(f"wrote {path}")
    n = len(chosen)
    print(f"{len(written)} files ({n} figure{'s' * (n != 1)} and the gallery) in {time.perf_counter() - t0:.1f} s")
    return 0


def command(extras: Extras) -> Callable[[argparse.Namespace], int]:
    """The ``figs`` command with ``extras`` in its list and gallery (the torch half sets it on the parser)."""
    return lambda a: _cmd_figs(a, extras)


def register(sub: Any, extras: Extras | None = None) -> None:
    """Add ``figs`` to a subparsers object (``extras``: the torch half's entries and verdicts)."""
    more = extras if extras is not None else Extras()
    s = sub.add_parser(
        "figs",
        help="regenerate the paper figures (paper_figs/) as PNG and PDF: figs [--out DIR] [NAME ...]",
        description="Draws every figure of paper_figs/ (or the NAMEs given) into --out as NAME.png and NAME.pdf, "
        "with every seed table in --out/tables and the gallery page --out/gallery.html.",
    )
    s.add_argument("names", nargs="*", metavar="NAME", help="figures to draw (default: all; see --list)")
    s.add_argument("--out", help=f"output directory (default: {DEFAULT_OUT})")
    s.add_argument("--small", action="store_true", help="coarse grids and low resolution: a quick check")
    s.add_argument(
        "--list",
        action="store_true",
        help="list every figure and table (or the NAMEs given): kind, seed location, what it shows",
    )
    s.add_argument("--json", action="store_true", help="the list as JSON, with the command that makes each")
    s.set_defaults(func=command(more))
