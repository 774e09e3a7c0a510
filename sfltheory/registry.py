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
from .vocabulary import Param

# paper key -> (seed file, title)
PAPERS: dict[str, tuple[str, str]] = {
    "mu_splitfed": ("000_0fb66116fc20c956.txt", "MU-SplitFed: straggler-resilient SFL with unbalanced updates"),
    "heron_sfl": ("001_e8dcbf2a405221d7.txt", "HERON-SFL: zeroth-order clients, first-order server, auxiliary nets"),
    "sl_noniid": ("002_56e5daea794305d7.txt", "Convergence analysis of split learning on non-IID data (SL vs FL)"),
    "cut_layer": ("003_60e24e21677c19f3.txt", "The impact of cut layer selection in SFL (SFL-V1 / SFL-V2)"),
    "sfl_aux": ("004_1446912755864da9.txt", "Non-IID SplitFed with partial participation and auxiliary networks"),
}

# paper key -> the full reference as the seed prints it (authors, title, where and when; the seeds print no
# arXiv id of their own -- the arXiv ids inside them are of cited works)
REFERENCES: dict[str, str] = {
    "mu_splitfed": 'Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient '
    'Split Federated Learning: An Unbalanced Update Approach" (Rochester Institute of Technology, Purdue '
    "University; the seed prints no venue or year)",
    "heron_sfl": 'Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and '
    'First-Order Split Federated Learning" (University of Virginia; the seed prints no venue or year)',
    "sl_noniid": 'Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data" (paper under '
    "double-blind review, ICLR format; the seed prints no venue or year)",
    "cut_layer": 'Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated '
    'Learning" (the seed prints no venue or year)',
    "sfl_aux": 'Amirreza Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker '
    'Participation and Auxiliary Networks", Preprints.org, 4 September 2024, doi:10.20944/preprints202409.0335.v1 '
    "(not peer-reviewed)",
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


@cache
def declared_params() -> tuple[Param, ...]:
    """The parameters the papers declare beyond the built-in vocabulary (each paper's ``PARAMS``)."""
    out: list[Param] = []
    for key in PAPERS:
        out.extend(getattr(importlib.import_module(f"sfltheory.papers.{key}"), "PARAMS", ()))
    return tuple(out)


def get(result_id: str) -> Result:
    """Look a result up by id (``paper/label`` or ``paper/label@edition``)."""
    cat = catalogue()
    if not isinstance(result_id, str):
        raise UnknownResultError(f"a result id must be a string such as 'mu_splitfed/thm4.1' (got {result_id!r})")
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
