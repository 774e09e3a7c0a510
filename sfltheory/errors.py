"""Errors raised for bad input.

Every error names the offending parameter (or id) and the rule it broke, so the CLI can print it as a
single line and exit with status 2.
"""

from __future__ import annotations


class SflTheoryError(ValueError):
    """Base class: a user-facing error with a one-line message."""


class UnknownResultError(SflTheoryError, KeyError):
    """An id that is not in the catalogue."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class ParameterError(SflTheoryError):
    """A parameter that is missing, unknown, or outside its domain."""

    def __init__(self, name: str, rule: str) -> None:
        self.name = name
        self.rule = rule
        super().__init__(f"parameter '{name}': {rule}")


class NoBoundError(ParameterError):
    """A result that states no explicit bound (O-form only, or no theorem at all); ``name`` is its id."""

    def __init__(self, result_id: str, rule: str) -> None:
        super().__init__(result_id, rule)
        self.args = (f"result '{result_id}': {rule}",)
