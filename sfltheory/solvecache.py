"""A disk cache of SymPy solves, so that the audit does not solve the same step-size conditions on every run.

A catalogue audit solves every step-size hypothesis for its step (:func:`sfltheory.stepsize.max_step`: 42 results,
about 14 s on the shared 2-core machine) and the together check solves each proof condition for T, d, M or tau
(about 7 s); both were cached for the life of one process only. A solve depends only on the expression solved (its
``sympy.srepr``, which names every symbol with its assumptions), the symbol and the SymPy version, so its answer is
kept in ``solve-<version>.json`` (key -> a JSON list of ``srepr`` texts, or ``null``) under the folder
``SFLTHEORY_CACHE`` names, else ``~/.cache/sfltheory``, beside :mod:`sfltheory.latexcache`'s parses;
``SFLTHEORY_CACHE=off`` turns it off. An unreadable file is ignored and rewritten; a failed write leaves the answer
computed (the cache is only ever a shortcut).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import sympy as sp

from . import latexcache
from .atomic import write_atomic

_loaded: dict[Path, dict[str, list[str] | None]] = {}


def path() -> Path | None:
    """The cache file for the installed SymPy, or None when caching is off."""
    latex = latexcache.path()
    if latex is None:
        return None
    key = hashlib.sha256(f"sympy {sp.__version__}".encode()).hexdigest()[:16]
    return latex.parent / f"solve-{key}.json"


def _entries(p: Path) -> dict[str, list[str] | None]:
    if p not in _loaded:
        try:
            data = json.loads(p.read_text())
            ok = isinstance(data, dict) and all(v is None or isinstance(v, list) for v in data.values())
            _loaded[p] = data if ok else {}
        except (OSError, ValueError):
            _loaded[p] = {}
    return _loaded[p]


def forget() -> None:
    """Drop the answers read into this process (the next lookup reads the file again, as a new process does)."""
    _loaded.clear()


def key(*parts: sp.Basic | str) -> str:
    """The cache key of a solve: the ``srepr`` of each expression and symbol (names with their assumptions), or the
    text given (a tag naming what is solved)."""
    return hashlib.sha256("\x00".join(p if isinstance(p, str) else sp.srepr(p) for p in parts).encode()).hexdigest()


def cached(k: str, solve: Callable[[], Sequence[sp.Expr] | None]) -> tuple[sp.Expr, ...] | None:
    """The expressions ``solve()`` returns for key ``k`` (None: no answer), from the cache where it has them."""
    p = path()
    entries = _entries(p) if p is not None else {}
    if k in entries:
        hit = entries[k]
        try:
            return None if hit is None else tuple(sp.sympify(t) for t in hit)
        except (sp.SympifyError, SyntaxError, TypeError, ValueError):
            pass  # an entry that does not read back: solved again and rewritten
    out = solve()
    answer = None if out is None else tuple(out)
    if p is not None:
        entries[k] = None if answer is None else [sp.srepr(e) for e in answer]
        try:
            write_atomic(p, json.dumps(entries, indent=0, sort_keys=True))
        except OSError:
            pass
    return answer
