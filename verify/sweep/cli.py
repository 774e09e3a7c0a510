"""``sfltheory sweep FILE [--executor serial|process|ray] [--address ADDR] [--max-parallel N] [--max-rounds N]
[--max-configs N]``.

:func:`register` adds the command to ``sfltheory``'s parser (a subparsers object); :func:`main` runs it alone
(``python -m verify.sweep FILE ...``). Nothing here imports torch until the command runs.

Exit status: 0 when every configuration finished, 1 when some failed (each is stored with its error; rerunning
retries them), 2 on bad input (one line naming the parameter and the rule).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sfltheory.cliargs import EXIT_USAGE, Parser, count_arg
from sfltheory.errors import ParameterError, SflTheoryError
from sfltheory.outputs import check_dir

from .spec import MAX_CONFIGS, MAX_TOTAL_ROUNDS

EXIT_FAILED = 1


def register(sub: Any) -> None:
    """Add ``sweep`` to a subparsers object (``sfltheory.cli.build_parser``, through ``verify.cli.register``)."""
    s = sub.add_parser(
        "sweep",
        help="run a declared grid of train/verify configurations: sweep FILE [--executor process|serial|ray]",
        description=(
            "Runs every configuration of a sweep file (TOML, YAML, JSON, or Python defining SWEEP) on a process pool "
            "(default), serially, or as Ray tasks (a local instance, or a cluster with --address). Each result is "
            "stored atomically under a hash of its configuration as it finishes: rerunning skips what is done, "
            "retries what failed, and recomputes what changed. The table goes to OUT/table.csv; a verify sweep "
            "also writes OUT/report/, a trend sweep OUT/report/ and OUT/trend.json."
        ),
    )
    s.add_argument("file", metavar="FILE", help="the sweep file (.toml, .yaml, .yml, .json or .py)")
    s.add_argument("--executor", default="process", choices=["process", "serial", "ray"],
                   help="process: a local pool, one worker per core (default); serial: in this process; "
                   "ray: Ray tasks (pip install sfltheory[ray])")  # fmt: skip
    s.add_argument("--address", help="a running Ray cluster (auto, or HEAD_IP:6379); with --executor ray")
    s.add_argument("--max-parallel", type=count_arg("--max-parallel"), help="at most this many configurations at once")
    s.add_argument("--out", metavar="DIR", help="the results folder (default: the file's `out`, else FILE.results)")
    s.add_argument("--max-configs", type=count_arg("--max-configs"), default=MAX_CONFIGS, metavar="N",
                   help=f"refuse a sweep of more configurations than this (default {MAX_CONFIGS:.0e})")  # fmt: skip
    s.add_argument("--max-rounds", type=count_arg("--max-rounds"), default=MAX_TOTAL_ROUNDS, metavar="N",
                   help=f"refuse a sweep of more rounds in all, T summed (default {MAX_TOTAL_ROUNDS:.0e})")  # fmt: skip
    s.add_argument("--list", action="store_true", help="list the configurations, their keys and status; run nothing")
    s.add_argument("--json", action="store_true", help="print the summary and the table as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress line")
    s.set_defaults(func=cmd_sweep)


def cmd_sweep(a: argparse.Namespace) -> int:
    """Run the ``sweep`` command on its parsed arguments: list the configurations (``--list``), run a trend sweep, or
    run every configuration not done yet and print the summary, the failures and the report written (a verify sweep's);
    the exit status is 1 when a configuration failed."""
    import os

    # idle OpenMP threads sleep rather than spin (as `measure` does; benchmarks/RESULTS.md): it acts only before torch
    # starts its thread pool, and the pool's workers inherit it
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .runner import run_sweep
    from .spec import load, varying
    from .store import Store, build_table

    if a.address and a.executor != "ray":
        raise ParameterError("--address", "joins a Ray cluster: use it with --executor ray")
    sweep = load(a.file)
    progress = None if (a.quiet or a.json) else sys.stderr
    folder = Path(a.out) if a.out else sweep.out
    assert folder is not None
    if not a.list:  # the results folder, before any configuration runs
        check_dir("--out" if a.out else "sweep.out", folder)
    if sweep.trend is not None:
        return _trend(sweep, a, folder, progress)
    if a.list:  # nothing runs: only the number of configurations to list is capped
        sweep.check_size(max_configs=a.max_configs, max_rounds=2**63)
        configs = sweep.expand()
        table = build_table(sweep.name, configs, sweep.columns, Store(folder))
        vary = varying(configs)
        if a.json:
            print(json.dumps({"name": sweep.name, "out": str(folder), "configs": [
                {"key": c.key, "kind": c.kind, "status": r["status"], "params": c.params}
                for c, r in zip(configs, table.rows, strict=True)]}, indent=1))  # fmt: skip
            return 0
        for c, r in zip(configs, table.rows, strict=True):
            print(f"{c.key}  {r['status']:8s} {c.label(vary) or c.label()}")
        print(f"{len(configs)} configurations ({table.counts['ok']} done, {table.counts['failed']} failed) in {folder}")
        return 0
    summary = run_sweep(sweep, executor=a.executor, address=a.address, max_parallel=a.max_parallel, out=folder,
                        progress=progress, max_configs=a.max_configs, max_rounds=a.max_rounds)  # fmt: skip
    table = summary.table
    report = None
    if sweep.kind == "verify" and table.counts["ok"]:
        from .trends import write_report

        report = write_report(table, folder / "report")[0]
    if a.json:
        print(json.dumps({"name": summary.name, "total": summary.total, "skipped": summary.skipped,
                          "finished": summary.finished, "failed": summary.failed, "seconds": summary.seconds,
                          "out": str(summary.out), "report": None if report is None else str(report),
                          "rows": [{c: r.get(c) for c in table.columns} for r in table.rows]},
                         indent=1, default=str))  # fmt: skip
    else:
        print(summary.line())
        for r in table.rows:
            if r["status"] == "failed":
                print(f"failed {r['key']}: {r['error']}")
        if report is not None:
            print(f"report written to {report}")
    return EXIT_FAILED if table.counts["failed"] else 0


def _trend(sweep: Any, a: argparse.Namespace, folder: Path, progress: Any) -> int:
    from .trends import SweepFailed, check_settings, run_trend

    check_settings(str(sweep.trend), sweep.settings)
    if a.list:
        print(f"trend sweep {sweep.name}: {sweep.trend} with {dict(sweep.settings)}; its configurations come from "
              f"the check (its plan) when it runs, into {folder}")  # fmt: skip
        return 0
    try:
        check, summaries = run_trend(sweep, executor=a.executor, address=a.address, max_parallel=a.max_parallel,
                                     out=folder, progress=progress)  # fmt: skip
    except SweepFailed as e:
        print(f"sfltheory: {e}", file=sys.stderr)
        return EXIT_FAILED
    if a.json:
        print(json.dumps({"trend": check.to_dict(), "sweeps": [s.line() for s in summaries]}, indent=1))
    else:
        for s in summaries:
            print(s.line())
        print(check.line())
        print(f"report written to {folder / 'report' / 'report.html'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``sfltheory sweep`` on its own: ``python -m verify.sweep FILE ...``."""
    p = Parser(prog="sfltheory", description="Sweeps of train and verify configurations.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    register(sub)
    args = p.parse_args(["sweep", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.func(args))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE


__all__ = ["EXIT_FAILED", "cmd_sweep", "main", "register"]
