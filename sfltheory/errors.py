"""Errors raised for bad input.

Every error names the offending parameter (or id) and the rule it broke, so the CLI can print it as a
single line and exit with status 2.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping


class SflTheoryError(ValueError):
    """Base class: a user-facing error with a one-line message."""


class UnknownResultError(SflTheoryError, KeyError):
    """An id that is not in the catalogue."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class MissingExtraError(SflTheoryError):
    """An optional dependency that is not installed: names the extra that brings it."""


class ParameterError(SflTheoryError):
    """A parameter that is missing, unknown, or outside its domain."""

    def __init__(self, name: str, rule: str) -> None:
        self.name = name
        self.rule = rule
        super().__init__(f"parameter '{name}': {rule}")


@contextlib.contextmanager
def renamed(names: Mapping[str, str] | Callable[[str], str]) -> Iterator[None]:
    """A :class:`ParameterError` raised inside names its parameter as a front end does: ``names[name]`` (or
    ``names(name)``) instead of ``name`` -- the library names its Python parameter or spec field (``path``,
    ``problem.clients``), a front end its option (``--model``, ``--clients``) or its file's key. The class and the
    rest of the error are kept (a subclass's own fields: a WriteFailed keeps its fallback and exit status)."""
    rename = names if callable(names) else (lambda n: names.get(n, n))
    try:
        yield
    except ParameterError as e:
        new = rename(e.name)
        if new == e.name:
            raise
        out = type(e).__new__(type(e))
        out.__dict__.update(e.__dict__)
        out.name = new
        out.args = (f"parameter '{new}': {e.rule}",)
        raise out from None


class MissingParametersError(ParameterError):
    """Parameters a result needs that were not given: all of them in one line, each with its meaning and how to
    get it. ``name`` is the first; ``missing`` lists them all."""

    def __init__(self, result_id: str, missing: list[tuple[str, str]]) -> None:
        self.missing = [n for n, _ in missing]
        what = "; ".join(f"{n} ({how})" for n, how in missing)
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        super().__init__(missing[0][0], f"missing{more}: {result_id} needs {what}")


class NoBoundError(ParameterError):
    """A result that states no explicit bound (O-form only, or no theorem at all); ``name`` is its id."""

    def __init__(self, result_id: str, rule: str) -> None:
        super().__init__(result_id, rule)
        self.args = (f"result '{result_id}': {rule}",)


class NumericRangeError(SflTheoryError):
    """Finite inputs whose bound or step size lies outside the floating-point range (beyond ~1.8e308, or a
    positive value below the smallest float): refused with the value and the reason, never reported as inf, NaN
    or 0. ``name`` is what overflowed (a term, the bound, a step-size branch)."""

    def __init__(self, result_id: str, name: str, rule: str) -> None:
        self.name = name
        super().__init__(f"result '{result_id}': {name}: {rule}")
