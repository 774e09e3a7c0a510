"""``sfltheory reproduce [ID ...] [--list] [--scale small|paper] [--device cpu|cuda] [--out DIR] [--workers N]``:
the seeds' own experiments, regenerated, each with its figure and verdict.

:func:`register` adds the command to ``sfltheory``'s parser (a subparsers object); :func:`main` runs it alone
(``python -m verify.reproduce ...``). Nothing here imports torch until the command runs (``--list`` never does).

Exit status: 0 when every run finished, 1 when some failed (each is stored with its error; rerunning retries them),
2 on bad input (one line naming the option and the rule).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from sfltheory.cliargs import EXIT_USAGE, Parser, count_arg
from sfltheory.errors import ParameterError, SflTheoryError, renamed

from .experiment import SCALES
from .registry import select

EXIT_FAILED = 1
# Request field -> the option that sets it (an error names the option)
OPTIONS = {"ids": "ID", "scale": "--scale", "device": "--device", "out": "--out", "workers": "--workers",
           "data_root": "--data-root"}  # fmt: skip


def register(sub: Any) -> None:
    """Add ``reproduce`` to a subparsers object (``sfltheory.cli.build_parser``, through ``verify.cli.register``)."""
    s = sub.add_parser(
        "reproduce",
        help="regenerate the seeds' own experiments at a small scale, each with a figure and a verdict",
        description=(
            "Runs the experiments of the seed papers (all, or the IDs given; --list names them) through the sweep "
            "machinery: every run is stored atomically as it finishes, so an interrupted reproduce resumes and a "
            "finished run is never recomputed. For each experiment it writes OUT/<ID>/<scale>.png with the "
            "reproduced numbers, the paper's quoted numbers and the verdict on the paper's claim, and "
            "OUT/summary.json and OUT/summary.md. --scale small runs on a laptop CPU in minutes; --scale paper is "
            "the paper's own setting for a GPU (its estimated time is printed first)."
        ),
    )
    s.add_argument("ids", nargs="*", metavar="ID", help="experiments to run (default: all; see --list)")
    s.add_argument("--list", action="store_true", help="name each experiment, its seed location and claim; run nothing")
    s.add_argument("--scale", default=None, choices=list(SCALES),
                   help="small: this CPU, minutes (default); paper: the paper's setting, for a GPU; tiny: seconds, "
                   "for tests (its verdicts say nothing)")  # fmt: skip
    s.add_argument("--device", default=None, help="cpu (default), cuda or cuda:N")
    s.add_argument("--out", default=None, metavar="DIR", help="results folder (default: reproduce)")
    s.add_argument("--workers", type=count_arg("--workers"), default=None, metavar="N",
                   help="runs at once in a process pool (default 2; 1: in this process)")  # fmt: skip
    s.add_argument("--data-root", metavar="DIR", help="the folder CIFAR-10 is read from (the paper scale)")
    s.add_argument("--quiet", action="store_true", help="no progress lines")
    s.set_defaults(func=cmd_reproduce)


def cmd_reproduce(a: argparse.Namespace) -> int:
    """Run the ``reproduce`` command on its parsed arguments: list the experiments (``--list``), or run them and print
    each verdict; the exit status is 1 when a run failed."""
    with renamed(OPTIONS):
        exps = select(a.ids)  # an unknown ID is refused before anything else
        if a.list:  # nothing runs: an option of a run would be ignored, so it is refused
            run_options = (("--scale", a.scale), ("--device", a.device), ("--out", a.out), ("--workers", a.workers),
                           ("--data-root", a.data_root))  # fmt: skip
            given = [f for f, v in run_options if v is not None]
            if given:
                raise ParameterError(given[0], f"--list runs nothing; drop {given[0]} or drop --list")
            for e in exps:
                scales = ", ".join(e.scales)
                print(f"{e.id}\n  seed {e.seed}, {e.location}, lines {e.lines[0]}-{e.lines[1]}\n  claim: {e.claim}\n"
                      f"  algorithms: {', '.join(e.algorithms)}; scales: {scales}\n  paper: {e.settings}")  # fmt: skip
            print(f"{len(exps)} experiment(s); run: sfltheory reproduce [ID ...] --scale small --out DIR")
            return 0
        import os

        # idle OpenMP threads sleep rather than spin (as `sweep` does): it acts only before torch starts its pool
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from .runner import Request, reproduce

        req = Request(ids=tuple(a.ids), scale=a.scale or "small", device=a.device or "cpu", out=a.out or "reproduce",
                      workers=2 if a.workers is None else a.workers, data_root=a.data_root)  # fmt: skip
        quiet = bool(a.quiet)
        outcomes = reproduce(req, progress=None if quiet else sys.stderr, say=None if quiet else _say)
    for o in outcomes:
        print(f"{o.id} [{o.scale}]: {o.finding.verdict}: {o.finding.sentence}")
    return EXIT_FAILED if any(o.failed for o in outcomes) else 0


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``sfltheory reproduce`` on its own: ``python -m verify.reproduce [ID ...] ...``."""
    p = Parser(prog="sfltheory", description="The seeds' experiments, reproduced.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    register(sub)
    args = p.parse_args(["reproduce", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE


__all__ = ["EXIT_FAILED", "OPTIONS", "cmd_reproduce", "main", "register"]
