"""The ``sfltheory`` command (the console script): the theory commands of :mod:`sfltheory.cli` with the torch
half's added -- ``measure``, ``train``, ``verify`` and ``sweep`` (:func:`verify.cli.register`) and torch models
for ``--model`` (:func:`model_cuts`).

The composition happens here because ``sfltheory`` never imports ``verify``. Nothing here imports torch until a
command needs it, so ``sfltheory list`` and ``bound`` start as fast as the theory half alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from sfltheory import cli
from sfltheory.cliargs import EXIT_WRITE_FAILED
from sfltheory.commands import figures
from sfltheory.errors import ParameterError
from sfltheory.outputs import WriteFailed
from sfltheory.plan.cuts import CutTable
from verify.cli import register
from verify.reproduce import gallery as reproduce_gallery
from verify.spec import flag, named_by


def model_cuts(spec: str, input_shape: tuple[int, ...] | None, expand: tuple[str, ...]) -> CutTable:
    """The cuts of a torch model (a registered name or ``package.module:factory``), for ``--model``."""
    try:
        # imported here, not at the top: verify.models imports torch, which the theory commands never need
        from verify.models import model_cuts as cuts_of_model
    except ImportError as e:  # torch is an optional dependency of the theory side
        raise ParameterError(
            "--model", f"'{spec}' is a torch model and needs torch ({e}): pip install -e .[verify]"
        ) from None
    with named_by(flag):  # verify.models names spec fields (problem.model): the command line shows --model
        return cuts_of_model(spec, input_shape, expand=expand)


def write_failed_exits_1(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` with a write that failed after the work (:class:`sfltheory.outputs.WriteFailed`: a full disk,
    the result kept in a fallback the line names) reported in its one line with exit status
    :data:`sfltheory.cliargs.EXIT_WRITE_FAILED` (1: the work was done, its output not written), not 2 (bad
    input)."""

    @wraps(command)
    def run(a: argparse.Namespace) -> int:
        try:
            return command(a)
        except WriteFailed as e:
            print(f"sfltheory: error: {e}", file=sys.stderr)
            return EXIT_WRITE_FAILED

    return run


def register_all(sub: Any) -> None:
    """This half's commands added (:func:`verify.cli.register`), then every command of the parser, both halves',
    given :func:`write_failed_exits_1`: one exit status for a failed write, whichever command wrote."""
    register(sub)
    # figs lists and shows the reproduced experiments too (verify.reproduce.gallery imports no torch)
    sub.choices["figs"].set_defaults(func=figures.command(reproduce_gallery.extras()))
    for parser in sub.choices.values():
        command = parser.get_default("func")
        if command is not None:
            parser.set_defaults(func=write_failed_exits_1(command))


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command, both halves' (:func:`sfltheory.cli.build_parser` with what this half adds)."""
    return cli.build_parser(register_all, model_cuts)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``sfltheory`` command (``argv``: the arguments after ``sfltheory``; default ``sys.argv[1:]``)."""
    return cli.main(argv, register=register_all, model_cuts=model_cuts)


if __name__ == "__main__":
    sys.exit(main())
