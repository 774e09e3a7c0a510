"""The catalogue: every encoded result, looked up by id.

The built-in papers' results (:mod:`sfltheory.builtin`, read from their packages on first use), plus the results
a user declared in files of their own (:mod:`sfltheory.userresults`) once they are loaded -- explicitly, by
:func:`load_user_results` or :func:`using` (the command line's ``--results FILE`` and ``SFLTHEORY_RESULTS``);
nothing registers itself at import. :func:`catalogue` is a cached, read-only mapping. Loading replaces the previous
user set as a whole and forgets what was cached from it (the names in use, :func:`params_in_use`, which
:mod:`sfltheory.lexicon` reads; what :mod:`sfltheory.latex` parsed with them). The built-in papers alone stay in
``sfltheory.builtin.PAPERS``/``REFERENCES`` (the generated docs list those); :func:`paper_keys` and
:func:`reference` cover user papers too.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from types import MappingProxyType
from typing import Any

from . import latex
from . import vocabulary as vocab
from .builtin import PAPERS, REFERENCES, builtin_results, merge, paper_params
from .errors import UnknownResultError
from .result import Result
from .userresults import UserResults, load
from .vocabulary import Param

# the results loaded from the user's files (None: none); replaced as a whole by use_user_results()
_user: UserResults | None = None


@cache
def catalogue() -> Mapping[str, Result]:
    """Every result by id, read-only: the built-in papers' in order, then the loaded user files' (built once, and
    again after the user's files change)."""
    out = {r.id: r for r in builtin_results()}
    for r in _user.results if _user is not None else ():
        if r.id in out:  # userresults.load refuses it with the file; a set built by hand may not have
            raise RuntimeError(f"duplicate result id {r.id}")
        out[r.id] = r
    return MappingProxyType(out)


@cache
def declared_params() -> tuple[Param, ...]:
    """The parameters the papers declare beyond the canonical vocabulary (each paper's ``PARAMS``), then those of
    the loaded user files."""
    return (*paper_params(), *(_user.params if _user is not None else ()))


@cache
def params_in_use() -> Mapping[str, Param]:
    """Every name in use, by name: the canonical vocabulary, the papers' ``PARAMS``, then the loaded user files'
    names (a name declared twice with different meanings is an error). :mod:`sfltheory.lexicon` looks names up
    here."""
    return MappingProxyType(merge(vocab.canonical_params(), declared_params()))


def use_user_results(loaded: UserResults | None) -> None:
    """Make ``loaded`` the user results the catalogue holds (None: none) and forget what was cached."""
    global _user
    _user = loaded if loaded is not None and loaded.results else None
    catalogue.cache_clear()
    declared_params.cache_clear()
    params_in_use.cache_clear()
    latex.forget()
    errata = sys.modules.get("sfltheory.audit.errata")  # the whole-catalogue audit, cached once computed
    if errata is not None:
        errata.catalogue_audit.cache_clear()


def load_user_results(paths: Iterable[str | os.PathLike[str]]) -> UserResults:
    """Read the user's result files (files or directories; :mod:`sfltheory.userresults`) and add their results to
    the catalogue, replacing any loaded before. On an error the catalogue is left as it was."""
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
    """Every result of the catalogue (built-in papers, then loaded user files) in order; only ``paper``'s when given."""
    return [r for r in catalogue().values() if paper is None or r.paper == paper]


def editions(result: Result) -> list[Result]:
    """Every edition of the same result (same paper and label), main text first."""
    return [r for r in catalogue().values() if r.paper == result.paper and r.label == result.label]
