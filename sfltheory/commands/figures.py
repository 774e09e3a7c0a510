"""``sfltheory figs``: regenerate the paper figures (:mod:`sfltheory.figs`, one script per figure in
``paper_figs/``)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..errors import ParameterError
from ..figs import DEFAULT_OUT, FIGURES, check_names, run
from ..outputs import check_dir


def _cmd_figs(a: argparse.Namespace) -> int:
    try:
        chosen = check_names(a.names or None)
    except ParameterError as e:  # the library names its parameter; here it is the positional NAME
        raise ParameterError("NAME", e.rule) from None
    if a.list:  # the named figures only (all without a NAME); nothing is drawn, so drawing options are refused
        drawing = [f for f, v in (("--out", a.out), ("--small", a.small)) if v not in (None, False)]
        if drawing:
            raise ParameterError(drawing[0], f"--list draws nothing; drop {' and '.join(drawing)} or drop --list")
        for name in chosen:
            print(f"{name:<20} {FIGURES[name]}")
        return 0
    out = check_dir("--out", DEFAULT_OUT if a.out is None else a.out)  # before any figure is drawn
    t0 = time.perf_counter()
    written = run(chosen, out, small=a.small)
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
    s.add_argument("--out", help=f"output directory (default: {DEFAULT_OUT})")
    s.add_argument("--small", action="store_true", help="coarse grids and low resolution: a quick check")
    s.add_argument("--list", action="store_true", help="list the figures (or the NAMEs given) and what each shows")
    s.set_defaults(func=_cmd_figs)
