"""How a command prints what it computed: JSON (``--json``) or its text, and a figure (``--plot FILE``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from .. import plotting, report


def print_json(obj: Any) -> None:
    """``obj`` as the commands print JSON: plain data, indented, no NaN."""
    print(json.dumps(report.jsonable(obj), indent=2, allow_nan=False))


def emit(
    a: argparse.Namespace,
    value: Any,
    to_dict: Callable[[Any], Any],
    to_text: Callable[[Any], str],
    plot: str | None = None,
) -> None:
    """Draw ``value`` with ``sfltheory.plotting.<plot>`` if ``--plot`` was given, then print it as JSON or text."""
    if a.plot and plot:
        getattr(plotting, plot)(value, a.plot)
    if a.json:
        print_json(to_dict(value))
    else:
        print(to_text(value))
