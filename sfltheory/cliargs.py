"""What the ``sfltheory`` command line reads, shared by both halves' commands: the parser that reports bad input in
one line, ``name=value`` pairs, shapes, positive numbers and counts, and the exit status of bad input.

The theory commands (:mod:`sfltheory.commands`) and the torch half's (``verify.cli``, ``verify.sweep.cli``) parse
their arguments with these, so that a bad value reads the same whichever half owns the command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from .errors import ParameterError

EXIT_USAGE = 2  # bad input: one line on stderr, no traceback


class Parser(argparse.ArgumentParser):
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


def parse_shape(raw: str | None) -> tuple[int, ...] | None:
    """``--input-shape 3,32,32`` as a tuple of sizes (None when not given)."""
    if raw is None:
        return None
    try:
        shape = tuple(int(x) for x in raw.split(","))
    except ValueError:
        raise ParameterError("--input-shape", f"must be comma-separated integers, e.g. 3,32,32 (got {raw!r})") from None
    if not shape or any(x < 1 for x in shape):
        raise ParameterError("--input-shape", f"every size must be >= 1 (got {raw!r})")
    return shape


def positive_arg(name: str) -> Callable[[str], float]:
    """An argparse ``type``: a finite number > 0; ``name`` is the option the error names."""

    def conv(raw: str) -> float:
        try:
            v = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {raw!r})") from None
        if not np.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a finite number > 0 (got {raw!r})")
        return v

    return conv


def count_arg(name: str) -> Callable[[str], int]:
    """An argparse ``type``: an integer >= 1; ``name`` is the option the error names."""

    def conv(raw: str) -> int:
        try:
            v = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= 1 (got {raw!r})") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= 1 (got {raw!r})")
        return v

    return conv
