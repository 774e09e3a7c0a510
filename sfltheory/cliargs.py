"""What the ``sfltheory`` command line reads, shared by both halves' commands: the parser that reports bad input in
one line, ``name=value`` pairs, shapes, positive numbers and counts, and the exit status of bad input.

The theory commands (:mod:`sfltheory.commands`) and the torch half's (``verify.cli``, ``verify.sweep.cli``) parse
their arguments with these, so that a bad value reads the same whichever half owns the command.

:class:`Parser` reads a value that starts with ``-`` (``--client-time -1,2``, ``--fstar -x``) as the option's value,
so that it reaches the option's own check and its rule, not argparse's "expected one argument"; and it records the
options given on the command line (:func:`options_given`), so that a command can refuse options that do not
combine instead of ignoring them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Collection, Sequence
from typing import Any, NoReturn

import numpy as np

from .errors import ParameterError

EXIT_USAGE = 2  # bad input: one line on stderr, no traceback
# the work is done but its output could not be written (a full disk): the result is kept in a fallback named in the
# one line (sfltheory.outputs.WriteFailed); not bad input, so not EXIT_USAGE
EXIT_WRITE_FAILED = 1
GIVEN = "options_given"  # the attribute of a parsed namespace that lists the options given (options_given)


class Parser(argparse.ArgumentParser):
    """An argument parser that reports bad input in one line, takes a value starting with ``-`` as an option's
    value, and records the options given (see the module docstring)."""

    def error(self, message: str) -> NoReturn:
        """argparse's error in the one line of every bad input (argparse prints usage over several lines):
        ``sfltheory: error: parameter '--T': must be an integer >= 1 (got '0')``."""
        root = self.prog.split()[0]
        m = re.fullmatch(r"argument ([^:]+): (.*)", message, flags=re.DOTALL)
        if m is None:
            self.exit(EXIT_USAGE, f"{root}: error: {message}\n")
        name = m.group(1).split("/")[-1]  # "-h/--help": the long form
        rule = m.group(2).removeprefix(f"{name} ")  # the option's own types name it first: said once
        self.exit(EXIT_USAGE, f"{root}: error: parameter '{name}': {rule}\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's, on ``args`` with each ``--opt VALUE`` whose value starts with ``-`` joined as
        ``--opt=VALUE``; the options given are added to the namespace's :data:`GIVEN` (a subcommand's too)."""
        argv = with_joined_values(self, list(sys.argv[1:] if args is None else args))
        mine = [x.partition("=")[0] for x in before_dashes(argv) if self.option_of(x) is not None]
        self.refuse_repeated(mine)
        ns, extra = super().parse_known_args(argv, namespace)
        setattr(ns, GIVEN, tuple(dict.fromkeys([*getattr(ns, GIVEN, ()), *mine])))
        return ns, extra

    def refuse_repeated(self, given: Sequence[str]) -> None:
        """A value option given twice (``--model a ... --model b``) is an error: argparse keeps the last and drops
        the first without a word. Options that collect (append) or count, and flags (``--json --json`` changes
        nothing), may repeat."""
        seen: set[str] = set()
        for x in given:
            action = self.option_of(x)
            if action is None or action.nargs == 0 or type(action).__name__ != "_StoreAction":
                continue
            if action.dest in seen:
                self.error(f"argument {x}: given twice (the second would silently replace the first)")
            seen.add(action.dest)

    def option_of(self, token: str) -> argparse.Action | None:
        """The option ``token`` names (``--opt`` or ``--opt=VALUE``), None for a value or a positional."""
        if not token.startswith("-") or token == "-":
            return None
        return self._option_string_actions.get(token.partition("=")[0])


def before_dashes(argv: Sequence[str]) -> list[str]:
    """The arguments before ``--`` (after it every argument is a positional)."""
    return list(argv[: argv.index("--")]) if "--" in argv else list(argv)


def with_joined_values(parser: Parser, argv: list[str]) -> list[str]:
    """``argv`` with ``--opt -x`` as ``--opt=-x`` where ``--opt`` takes one value and ``-x`` is no option of
    ``parser``: argparse would take ``-x`` for an option and say "expected one argument", hiding the rule of the
    option's own check (``--client-time -1,2``: times must be > 0)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        x = argv[i]
        if x == "--":
            return out + argv[i:]
        action = parser.option_of(x)
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        takes_one = action is not None and "=" not in x and action.nargs in (None, "?")
        if takes_one and nxt is not None and nxt.startswith("-") and nxt != "--" and parser.option_of(nxt) is None:
            out.append(f"{x}={nxt}")
            i += 2
            continue
        out.append(x)
        i += 1
    return out


def options_given(a: argparse.Namespace, *, besides: Collection[str] = ()) -> list[str]:
    """The options given on the command line that ``a`` was parsed from (as typed, e.g. ``--clients``), less
    ``besides``; empty for a namespace built by hand."""
    return [x for x in getattr(a, GIVEN, ()) if x not in besides]


def refuse_with(option: str, does: str, others: Sequence[str]) -> None:
    """Refuse ``option`` given with ``others`` (what it cannot combine with), in one line naming both: ``option``
    ``does`` (what it does instead of running)."""
    if others:
        raise ParameterError(option, f"{does}: not with {', '.join(others)} (give one or the other)")


def parse_assignments(items: Sequence[str], *, words: Collection[str] = (), sweeps: bool = True) -> dict[str, Any]:
    """``name=value`` pairs; a comma-separated value is a sweep (an array). ``words``: names whose value is a
    word, kept as the text given (an algorithm's choice, e.g. ``aggregation=dataset_size``: its own check states
    the values it accepts). ``sweeps``: whether the command takes a list (its rule says so only then)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise ParameterError(item, "expected name=value")
        if name in out:
            raise ParameterError(name, "given twice")
        if name in words:
            out[name] = raw
            continue
        try:
            vals = [float(x) for x in raw.split(",")]
        except ValueError:
            rule = "a number or a comma-separated list of numbers" if sweeps else "a number"
            raise ParameterError(name, f"must be {rule} (got {raw!r})") from None
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
