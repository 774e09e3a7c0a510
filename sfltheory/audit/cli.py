"""``sfltheory audit [ID ...] [--json] [--markdown FILE] [--seed N] [--explain FINDING]``, registered by
:mod:`sfltheory.cli`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import ParameterError
from ..outputs import check_file, write_text
from . import explain, report
from .falsified import load
from .runner import audit


def _seed(raw: str) -> int:
    try:
        v = int(raw)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"--seed must be an integer >= 0 (got {raw!r})")
    return v


def _cmd(a: argparse.Namespace) -> int:
    if a.explain is not None:
        if a.ids or a.markdown:
            given = "result ids" if a.ids else "--markdown"
            raise ParameterError("--explain", f"explains one finding: give it without {given}")
        e = explain.explain(a.explain, seed=a.seed, counterexamples=load(a.counterexamples or []))
        print(json.dumps(explain.to_dict(e), indent=2, allow_nan=False) if a.json else explain.text(e))
        return 0
    if a.markdown:
        check_file("--markdown", a.markdown)  # before any work
    res = audit(a.ids or None, seed=a.seed, counterexamples=load(a.counterexamples or []))
    print(report.to_json(res) if a.json else report.text(res))  # first: a failed write below loses nothing
    if a.markdown:
        write_text("--markdown", a.markdown, report.markdown(res) + "\n")
    return 0


def register(sub: Any) -> None:
    """Add the ``audit`` subcommand to ``sfltheory``'s subparsers."""
    s = sub.add_parser(
        "audit",
        help="machine-check results against themselves, their parents and their units: audit [ID ...]",
        description="Runs the generic checks over the given results (default: all) and prints one finding per "
        "row with a witness that `sfltheory bound` re-evaluates to the same numbers.",
    )
    s.add_argument("ids", nargs="*", metavar="ID", help="results to audit (default: every result)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown into FILE")
    s.add_argument("--seed", type=_seed, default=0, help="seed of the numeric searches (default 0)")
    s.add_argument(
        "--counterexamples",
        action="append",
        metavar="DIR",
        help="report the counterexamples `sfltheory verify --worst-case N --out DIR` found (repeatable)",
    )
    s.add_argument(
        "--explain",
        metavar="FINDING",
        help="one finding (RESULT:CHECK[:N], as the report names it: mu_splitfed/cor4.2:corollary): its witness, its "
        "re-check commands and the seed text where the result is printed, with line numbers",
    )
    s.set_defaults(func=_cmd)
