"""The ``sfltheory`` command line: the parser and :func:`main`.

The theory commands live in :mod:`sfltheory.commands` (and the audit's in :mod:`sfltheory.audit.cli`). The torch
half adds its own (``measure``, ``train``, ``verify``, ``sweep``) and reads torch models for ``--model``: the
console script ``sfltheory`` is ``verify.app.main``, which passes both to :func:`main`. This package never imports
``verify``; ``python -m sfltheory.cli`` runs the theory commands alone and says, in one line, that the others need
the ``sfltheory`` command.

Bad input prints one line (``sfltheory: error: ...``) and exits with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .audit.cli import register as register_audit
from .cliargs import EXIT_USAGE, EXIT_WRITE_FAILED, Parser
from .commands import bounds, catalogue, cuts, figures, planning, tables
from .commands.cuts import ModelCuts
from .errors import ParameterError, SflTheoryError
from .outputs import WriteFailed
from .registry import using
from .userresults import from_environment

# adds sub-commands to the subparsers object of build_parser
# (verify.cli.register: measure, train, verify, sweep, reproduce)
Register = Callable[[Any], None]
TORCH_COMMANDS = ("measure", "train", "verify", "sweep", "reproduce")


def _needs_torch_half(a: argparse.Namespace) -> int:
    raise SflTheoryError(
        f"{a.name} is a command of the torch half: run it as `sfltheory {a.name}` (the console script, with "
        "pip install -e .[verify])"
    )


def _register_placeholders(sub: Any) -> None:
    """The torch half's commands, named in the help, for a parser built without them."""
    for name in TORCH_COMMANDS:
        s = sub.add_parser(
            name, help=f"{name} (the `sfltheory` command, with the verify extra: pip install -e .[verify])"
        )
        s.add_argument("rest", nargs="*")
        s.set_defaults(func=_needs_torch_half, name=name)


def build_parser(register: Register | None = None, model_cuts: ModelCuts | None = None) -> argparse.ArgumentParser:
    """The parser of every command. ``register`` adds the torch half's commands (without it they are named and
    refused in one line); ``model_cuts`` reads a torch model's cuts for ``--model`` (without it only block lists
    are read)."""
    p = Parser(prog="sfltheory", description="Convergence theory of split federated learning, evaluated.")
    p.add_argument(
        "--results",
        action="append",
        metavar="FILE",
        help="also load the results declared in FILE (.toml/.yaml) or a directory of them; repeatable, before or "
        "after the command (and SFLTHEORY_RESULTS: paths separated by ':'); see examples/my_theorem.toml",
    )
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    catalogue.register_lookups(sub)  # list, which, show
    bounds.register(sub, model_cuts)  # bound, check-lr
    catalogue.register_pages(sub)  # vocabulary, errata
    cuts.register(sub, model_cuts)
    planning.register(sub, model_cuts)  # plan, compare
    figures.register(sub)
    tables.register(sub)
    register_audit(sub)
    (register or _register_placeholders)(sub)
    return p


def split_results_option(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``--results FILE`` / ``--results=FILE`` anywhere in ``argv`` (before or after the command): the files, and
    the arguments without them."""
    files: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        x = argv[i]
        if x == "--":
            rest += argv[i:]
            break
        if x == "--results":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise ParameterError("--results", "expected a results file (.toml, .yaml) or a directory after it")
            files.append(argv[i + 1])
            i += 2
            continue
        if x.startswith("--results="):
            files.append(x.partition("=")[2])
        else:
            rest.append(x)
        i += 1
    return files, rest


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed; name=value pairs may come after options (plan ID --model m L=1 ...): argparse leaves those
    over, and they join the command's list of pairs."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        dest = next((d for d in ("params", "items", "assignments") if isinstance(getattr(args, d, None), list)), None)
        bad = [x for x in extra if x.startswith("-") or dest is None]
        if bad:
            parser.error(f"unrecognized arguments: {' '.join(bad)}")
        getattr(args, dest).extend(extra)  # type: ignore[arg-type]
    return args


def main(
    argv: Sequence[str] | None = None, *, register: Register | None = None, model_cuts: ModelCuts | None = None
) -> int:
    """Run one command (``argv``: the arguments after ``sfltheory``; default ``sys.argv[1:]``) and return its exit
    status. ``register`` and ``model_cuts``: what the torch half adds (:func:`build_parser`)."""
    try:
        files, rest = split_results_option(sys.argv[1:] if argv is None else list(argv))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    args = _parse(build_parser(register, model_cuts), rest)
    try:
        paths: list[str | Path] = [*from_environment(), *files]  # results of your own (docs/guide/own-theorem.md)
        with using(paths) if paths else contextlib.nullcontext():
            rc = int(args.func(args))
        for line in getattr(args, "deferred_notes", ()):
            print(line, file=sys.stderr)
        return rc
    except WriteFailed as e:  # the work was done and kept in a fallback: not bad input (exit 2) but a failure
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head`: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
