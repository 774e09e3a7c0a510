"""What the built-in papers declare: their keys, seeds, titles and references, their results, the names they add
to the vocabulary and their notation.

Each paper declares everything about itself once, in its package (``sfltheory/papers/<key>/__init__.py``); this
module reads it from there on first use (nothing registers itself at import). It sits below everything that
combines the papers with a user's own results: the user-results reader (:mod:`sfltheory.userresults`) checks a
file against what is here, and the catalogue (:mod:`sfltheory.registry`) adds the loaded files on top.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from types import MappingProxyType, ModuleType
from typing import Any

from . import vocabulary as vocab
from .result import Result
from .vocabulary import Param

# The built-in papers, in catalogue order.
PAPER_KEYS: tuple[str, ...] = ("mu_splitfed", "heron_sfl", "sl_noniid", "cut_layer", "sfl_aux")


def paper_module(key: str) -> ModuleType:
    """A built-in paper's package (imported on first use: the papers are read only when asked for)."""
    if key not in PAPER_KEYS:
        raise KeyError(key)
    return importlib.import_module(f"sfltheory.papers.{key}")


class _PaperTable(Mapping[str, Any]):
    """A read-only view, paper key -> a value read from the paper's package (imported on first access)."""

    def __init__(self, read: Callable[[ModuleType], Any]) -> None:
        self._read = read

    def __getitem__(self, key: str) -> Any:
        return self._read(paper_module(key))

    def __iter__(self) -> Iterator[str]:
        return iter(PAPER_KEYS)

    def __len__(self) -> int:
        return len(PAPER_KEYS)


# paper key -> (seed file, short title), and -> the full reference (authors, title, venue, year, arXiv id as far as
# they are known; each package says where it found what its seed does not print)
PAPERS: Mapping[str, tuple[str, str]] = _PaperTable(lambda m: (m.SEED, m.TITLE))
REFERENCES: Mapping[str, str] = _PaperTable(lambda m: m.REFERENCE)


@cache
def builtin_results() -> tuple[Result, ...]:
    """The results of the built-in papers (``PAPERS``), in catalogue order."""
    out: dict[str, Result] = {}
    for key in PAPER_KEYS:
        for r in paper_module(key).RESULTS:
            if r.paper != key:
                raise RuntimeError(f"{r.id} is exported by papers/{key}.py")
            if r.id in out:
                raise RuntimeError(f"duplicate result id {r.id}")
            out[r.id] = r
    return tuple(out.values())


@cache
def paper_params() -> tuple[Param, ...]:
    """The names the papers declare beyond the canonical vocabulary (each paper's ``PARAMS``), in paper order."""
    return tuple(p for key in PAPER_KEYS for p in getattr(paper_module(key), "PARAMS", ()))


@cache
def builtin_params() -> tuple[Param, ...]:
    """The vocabulary without a user's names: the canonical names, then every paper's ``PARAMS`` (a name declared
    twice with different meanings is an error)."""
    return tuple(merge(vocab.canonical_params(), paper_params()).values())


def merge(base: tuple[Param, ...], extra: tuple[Param, ...]) -> dict[str, Param]:
    """``base`` and ``extra`` by name; a name of ``extra`` already in ``base`` must mean the same."""
    merged = {p.name: p for p in base}
    for p in extra:
        if p.name in merged and merged[p.name] != p:
            raise ValueError(f"vocabulary: '{p.name}' declared twice with different meanings")
        merged[p.name] = p
    return merged


@cache
def paper_attribute(paper: str, name: str) -> Mapping[str, str]:
    """A table a built-in paper's package declares (``PAPER_NOTATION``, ``ASCII_ALIASES``); empty for any other
    key (a user paper, an unknown one)."""
    if paper not in PAPER_KEYS:
        return MappingProxyType({})
    return MappingProxyType(dict(getattr(paper_module(paper), name, {})))


def paper_notation(paper: str) -> dict[str, str]:
    """Canonical name -> the symbol as ``paper`` prints it (its package's ``PAPER_NOTATION``; empty for a paper
    without one, e.g. a user's)."""
    return dict(paper_attribute(paper, "PAPER_NOTATION"))
