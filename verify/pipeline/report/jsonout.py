"""The report as JSON (``report.json``, ``sfltheory verify --json``): the records of each section of the document,
under the keys ``results``, ``worst_case`` and ``trends`` (a section not asked for has no key)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .document import Document

FORMAT = "sfltheory.verification/1"


def clean(o: Any) -> Any:
    """JSON-able: arrays to lists, NumPy scalars to Python, inf and NaN to None (JSON has neither: a diverged run,
    an infinite tightness)."""
    if isinstance(o, np.ndarray):
        return clean(o.tolist())
    if isinstance(o, np.generic):
        return clean(o.item())
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, Mapping):
        return {str(k): clean(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [clean(v) for v in o]
    return o


def render(doc: Document) -> dict[str, Any]:
    """The document as a JSON-able dictionary."""
    out: dict[str, Any] = {"format": FORMAT, "results": [r.record for r in doc.results]}
    if doc.worst_cases is not None:
        out["worst_case"] = [w.record for w in doc.worst_cases]
    if doc.trends is not None:
        out["trends"] = [c.record for c in doc.trends]
    return clean(out)


__all__ = ["FORMAT", "clean", "render"]
