"""``sfltheory figs``: regenerate the paper figures (:mod:`sfltheory.figs`, one script per figure in
``paper_figs/``)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..figs import FIGURES, run
from ..outputs import check_dir


def _cmd_figs(a: argparse.Namespace) -> int:
    if a.list:
        for name, what in FIGURES.items():
            print(f"{name:<20} {what}")
        return 0
    check_dir("--out", a.out)  # before any figure is drawn
    t0 = time.perf_counter()
    written = run(a.names or None, a.out, small=a.small)
    for path in written:
        print(f"wrote {path}")
    n = len(written) // 2
    print(f"{len(written)} files ({n} figure{'s' * (n != 1)}) in {time.perf_counter() - t0:.1f} s")
    return 0


def register(sub: Any) -> None:
    """Add ``figs`` to a subparsers object."""
    s = sub.add_parser(
        "figs",
        help="regenerate the paper figures (paper_figs/) as PNG and PDF: figs [--out DIR] [NAME ...]",
        description="Draws every figure of paper_figs/ (or the NAMEs given) into --out as NAME.png and NAME.pdf.",
    )
    s.add_argument("names", nargs="*", metavar="NAME", help="figures to draw (default: all; see --list)")
    s.add_argument("--out", default="out/figs", help="output directory (default: out/figs)")
    s.add_argument("--small", action="store_true", help="coarse grids and low resolution: a quick check")
    s.add_argument("--list", action="store_true", help="list the figures and what each shows")
    s.set_defaults(func=_cmd_figs)
