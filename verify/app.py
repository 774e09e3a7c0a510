"""The ``sfltheory`` command (the console script): the theory commands of :mod:`sfltheory.cli` with the torch
half's added -- ``measure``, ``train``, ``verify`` and ``sweep`` (:func:`verify.cli.register`) and torch models
for ``--model`` (:func:`model_cuts`).

The composition happens here because ``sfltheory`` never imports ``verify``. Nothing here imports torch until a
command needs it, so ``sfltheory list`` and ``bound`` start as fast as the theory half alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sfltheory import cli
from sfltheory.errors import ParameterError
from sfltheory.plan.cuts import CutTable
from verify.cli import register


def model_cuts(spec: str, input_shape: tuple[int, ...] | None, expand: tuple[str, ...]) -> CutTable:
    """The cuts of a torch model (a registered name or ``package.module:factory``), for ``--model``."""
    try:
        # imported here, not at the top: verify.models imports torch, which the theory commands never need
        from verify.models import model_cuts as cuts_of_model
    except ImportError as e:  # torch is an optional dependency of the theory side
        raise ParameterError(
            "--model", f"'{spec}' is a torch model and needs torch ({e}): pip install -e .[verify]"
        ) from None
    return cuts_of_model(spec, input_shape, expand=expand)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command, both halves' (:func:`sfltheory.cli.build_parser` with what this half adds)."""
    return cli.build_parser(register, model_cuts)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``sfltheory`` command (``argv``: the arguments after ``sfltheory``; default ``sys.argv[1:]``)."""
    return cli.main(argv, register=register, model_cuts=model_cuts)


if __name__ == "__main__":
    sys.exit(main())
