"""The catalogue: every encoded result, looked up by id.

Paper modules export ``RESULTS``; the catalogue imports them on first use. There is no mutable global
registry: :func:`catalogue` is a cached, read-only mapping built from the modules listed in ``PAPERS``.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from .errors import UnknownResultError
from .result import Result

# paper key -> (seed file, title)
PAPERS: dict[str, tuple[str, str]] = {
    "mu_splitfed": ("000_0fb66116fc20c956.txt", "MU-SplitFed: straggler-resilient SFL with unbalanced updates"),
    "heron_sfl": ("001_e8dcbf2a405221d7.txt", "HERON-SFL: zeroth-order clients, first-order server, auxiliary nets"),
    "sl_noniid": ("002_56e5daea794305d7.txt", "Convergence analysis of split learning on non-IID data (SL vs FL)"),
    "cut_layer": ("003_60e24e21677c19f3.txt", "The impact of cut layer selection in SFL (SFL-V1 / SFL-V2)"),
    "sfl_aux": ("004_1446912755864da9.txt", "Non-IID SplitFed with partial participation and auxiliary networks"),
}


@cache
def catalogue() -> Mapping[str, Result]:
    out: dict[str, Result] = {}
    for key in PAPERS:
        module = importlib.import_module(f"sfltheory.papers.{key}")
        for r in module.RESULTS:
            if r.paper != key:
                raise RuntimeError(f"{r.id} is exported by papers/{key}.py")
            if r.id in out:
                raise RuntimeError(f"duplicate result id {r.id}")
            out[r.id] = r
    return MappingProxyType(out)


def get(result_id: str) -> Result:
    """Look a result up by id (``paper/label`` or ``paper/label@edition``)."""
    cat = catalogue()
    try:
        return cat[result_id]
    except KeyError:
        close = difflib.get_close_matches(result_id, list(cat), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `sfltheory list` shows every id"
        raise UnknownResultError(f"unknown result id '{result_id}'{hint}") from None


def results(paper: str | None = None) -> list[Result]:
    return [r for r in catalogue().values() if paper is None or r.paper == paper]


def editions(result: Result) -> list[Result]:
    """Every edition of the same result (same paper and label), main text first."""
    return [r for r in catalogue().values() if r.paper == result.paper and r.label == result.label]
