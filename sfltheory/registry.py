"""The catalogue: every encoded result, looked up by id.

Paper modules export ``RESULTS``; the catalogue imports them on first use. :func:`catalogue` is a cached,
read-only mapping built from the modules listed in ``PAPERS``, plus the results a user declared in files of
their own (:mod:`sfltheory.userresults`) once they are loaded -- explicitly, by :func:`load_user_results` or
:func:`using` (the command line's ``--results FILE`` and ``SFLTHEORY_RESULTS``); nothing registers itself at
import. Loading replaces the previous user set as a whole and forgets what was cached from it (the merged
vocabulary, :func:`declared_params`). The built-in papers alone stay in ``PAPERS``/``REFERENCES`` (the
generated docs list those); :func:`paper_keys` and :func:`reference` cover user papers too.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import vocabulary as vocab
from .errors import UnknownResultError
from .result import Result
from .vocabulary import Param

if TYPE_CHECKING:
    from .userresults import UserResults

# The built-in papers, in catalogue order. Everything else about a paper -- its seed, title, full reference,
# vocabulary and results -- is declared once, in its package (sfltheory/papers/<key>/__init__.py), and read
# from there on first use.
PAPER_KEYS: tuple[str, ...] = ("mu_splitfed", "heron_sfl", "sl_noniid", "cut_layer", "sfl_aux")


class _PaperTable(Mapping[str, Any]):
    """A read-only view, paper key -> a value read from the paper's package (imported on first access)."""

    def __init__(self, read: Callable[[Any], Any]) -> None:
        self._read = read

    def __getitem__(self, key: str) -> Any:
        if key not in PAPER_KEYS:
            raise KeyError(key)
        return self._read(importlib.import_module(f"sfltheory.papers.{key}"))

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
    for key in PAPERS:
        module = importlib.import_module(f"sfltheory.papers.{key}")
        for r in module.RESULTS:
            if r.paper != key:
                raise RuntimeError(f"{r.id} is exported by papers/{key}.py")
            if r.id in out:
                raise RuntimeError(f"duplicate result id {r.id}")
            out[r.id] = r
    return tuple(out.values())


def builtin_params() -> tuple[Param, ...]:
    """The vocabulary without the user's names: the built-in names plus every paper's ``PARAMS``."""
    mine = set(_user.params) if _user is not None else set()
    return tuple(p for p in vocab.all_params() if p not in mine)


# the results loaded from the user's files (None: none); replaced as a whole by use_user_results()
_user: UserResults | None = None


@cache
def catalogue() -> Mapping[str, Result]:
    out = {r.id: r for r in builtin_results()}
    for r in _user.results if _user is not None else ():
        if r.id in out:  # userresults.load refuses it with the file; a set built by hand may not have
            raise RuntimeError(f"duplicate result id {r.id}")
        out[r.id] = r
    return MappingProxyType(out)


@cache
def declared_params() -> tuple[Param, ...]:
    """The parameters the papers declare beyond the built-in vocabulary (each paper's ``PARAMS``), then those of
    the loaded user files."""
    out: list[Param] = []
    for key in PAPERS:
        out.extend(getattr(importlib.import_module(f"sfltheory.papers.{key}"), "PARAMS", ()))
    return (*out, *(_user.params if _user is not None else ()))


def use_user_results(loaded: UserResults | None) -> None:
    """Make ``loaded`` the user results the catalogue holds (None: none) and forget what was cached."""
    global _user
    _user = loaded if loaded is not None and loaded.results else None
    catalogue.cache_clear()
    declared_params.cache_clear()
    vocab.refresh()
    from . import latex

    latex.forget()
    errata = sys.modules.get("sfltheory.audit.errata")  # the whole-catalogue audit, cached once computed
    if errata is not None:
        errata.catalogue_audit.cache_clear()


def load_user_results(paths: Iterable[str | os.PathLike[str]]) -> UserResults:
    """Read the user's result files (files or directories; :mod:`sfltheory.userresults`) and add their results to
    the catalogue, replacing any loaded before. On an error the catalogue is left as it was."""
    from .userresults import load

    loaded = load(paths)  # against the built-in catalogue and vocabulary only
    use_user_results(loaded)
    return loaded


@contextmanager
def using(paths: Iterable[str | os.PathLike[str]]) -> Iterator[UserResults]:
    """The catalogue with the results of ``paths`` for the duration of a ``with`` block, then as it was before."""
    before = _user
    try:
        yield load_user_results(paths)
    finally:
        use_user_results(before)


def user_results() -> tuple[Result, ...]:
    """The loaded user results (empty when none)."""
    return _user.results if _user is not None else ()


def user_experiment(result_id: str) -> Mapping[str, Any] | None:
    """How ``sfltheory verify`` runs a user result (its file's ``[results.experiment]`` table), or None."""
    return _user.experiments.get(result_id) if _user is not None else None


def origin(result_id: str) -> str | None:
    """The file a user result was loaded from; None for a built-in (or unknown) id."""
    return _user.origins.get(result_id) if _user is not None else None


@cache
def paper_attribute(paper: str, name: str) -> Mapping[str, str]:
    """A table a built-in paper's package declares (``PAPER_NOTATION``, ``ASCII_ALIASES``); empty for any other
    key (a user paper, an unknown one)."""
    if paper not in PAPER_KEYS:
        return MappingProxyType({})
    return MappingProxyType(dict(getattr(importlib.import_module(f"sfltheory.papers.{paper}"), name, {})))


def paper_keys() -> list[str]:
    """Every paper key of the catalogue: the built-in papers, then the user papers in load order."""
    return [*PAPERS, *dict.fromkeys(r.paper for r in user_results())]


def reference(paper: str) -> str:
    """A paper's full reference: the built-in one, or the one a user file gives; else its title or key."""
    if paper in REFERENCES:
        return REFERENCES[paper]
    return _user.references.get(paper, paper) if _user is not None else paper


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
