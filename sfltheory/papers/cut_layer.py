"""Results of the cut_layer seed: not encoded yet (issue 3)."""

from __future__ import annotations

from ..result import Result

RESULTS: tuple[Result, ...] = ()
