"""The ``sfltheory`` command line.

Bad input prints one line (``sfltheory: error: ...``) and exits with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from . import report
from .errors import ParameterError, SflTheoryError
from .evaluate import evaluate, max_step
from .registry import PAPERS, get, results

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse prints usage over several lines; we want one
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def parse_assignments(items: Sequence[str]) -> dict[str, Any]:
    """``name=value`` pairs; a comma-separated value is a sweep (an array)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise ParameterError(item, "expected name=value")
        if name in out:
            raise ParameterError(name, "given twice")
        try:
            vals = [float(x) for x in raw.split(",")]
        except ValueError:
            raise ParameterError(name, f"must be a number or a comma-separated list of numbers (got {raw!r})") from None
        out[name] = vals[0] if len(vals) == 1 else np.array(vals)
    return out


def _print_json(obj: Any) -> None:
    print(json.dumps(report.jsonable(obj), indent=2, allow_nan=False))


def _cmd_list(a: argparse.Namespace) -> int:
    if a.paper and a.paper not in PAPERS:
        raise ParameterError("--paper", f"unknown paper key '{a.paper}'; known: {', '.join(PAPERS)}")
    rs = results(a.paper)
    if a.markdown:
        print(report.list_markdown())
    elif a.json:
        _print_json([report.result_summary(r) for r in rs])
    else:
        print(report.list_text(rs))
    return 0


def _cmd_show(a: argparse.Namespace) -> int:
    r = get(a.id)
    if a.json:
        _print_json(report.show_dict(r))
    else:
        print(report.show_text(r))
    return 0


def _cmd_bound(a: argparse.Namespace) -> int:
    ev = evaluate(a.id, parse_assignments(a.params))
    if a.json:
        _print_json(report.bound_dict(ev))
    else:
        print(report.bound_text(ev))
    return 0


def _cmd_check_lr(a: argparse.Namespace) -> int:
    sc = max_step(a.id, parse_assignments(a.params))
    if a.json:
        _print_json(report.step_dict(sc))
    else:
        print(report.step_text(sc))
    return 0


def _cmd_vocabulary(a: argparse.Namespace) -> int:
    results()  # paper modules register their own names on import
    if a.markdown:
        print(report.vocabulary_markdown())
    elif a.json:
        _print_json(report.vocabulary_rows())
    else:
        for r in report.vocabulary_rows():
            papers = ", ".join(f"{k}: {v}" for k, v in r["papers"].items())  # type: ignore[attr-defined]
            print(f"{r['name']:<12} {r['domain']:<9} {r['meaning']}" + (f"  [{papers}]" if papers else ""))
    return 0


def _cmd_errata(a: argparse.Namespace) -> int:
    rs = results(a.paper)
    if a.markdown:
        print(report.errata_markdown(rs))
    elif a.json:
        _print_json(report.errata(rs))
    else:
        for e in report.errata(rs):
            print(f"{e['paper']}: {e['where']} — printed {e['printed']}; expected {e['expected']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sfltheory", description="Convergence theory of split federated learning, evaluated.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    s = sub.add_parser("list", help="list every encoded result")
    s.add_argument("--paper", help="only this paper's results")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true", help="the catalogue page")
    s.set_defaults(func=_cmd_list)

    s = sub.add_parser("show", help="statement, LaTeX, provenance and vocabulary of a result")
    s.add_argument("id")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_show)

    s = sub.add_parser("bound", help="evaluate a bound and check its hypotheses: bound ID name=value ...")
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_bound)

    s = sub.add_parser("check-lr", help="step-size conditions branch by branch, the largest feasible step")
    s.add_argument("id")
    s.add_argument("params", nargs="*", metavar="name=value")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_check_lr)

    s = sub.add_parser("vocabulary", help="the canonical parameter names and each paper's notation")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_vocabulary)

    s = sub.add_parser("errata", help="every discrepancy recorded in the papers")
    s.add_argument("--paper")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_errata)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head`: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
