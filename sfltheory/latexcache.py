"""A disk cache of SymPy's LaTeX parser, so that the audit does not parse the same printed formulas on every run.

The audit reads the printed statement and rate of every result with SymPy's Lark (Earley) parser: 155 summands, 41 of
the 112 s of a profiled catalogue audit. With the cache warm the whole audit took 32.7-36.0 s against 43.8-53.4 s
without it (two paired runs on the shared 2-core machine, 2026-11-27; the same 143 findings). A summand's parse depends
only on its text and on the SymPy and Lark versions, so it is kept in ``latex-<versions>.json`` (summand ->
``sympy.srepr`` of the expression, which ``sympy.sympify`` reads back to an equal expression) under the folder
``SFLTHEORY_CACHE`` names, else ``~/.cache/sfltheory``; ``SFLTHEORY_CACHE=off`` turns it off. An unreadable cache
file is ignored and rewritten; a write that fails leaves the parse as it was (the cache is only ever a shortcut).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import sympy as sp

from .atomic import write_atomic

ENV = "SFLTHEORY_CACHE"
TOKEN = re.compile(r"Token\('[A-Z_]+', ('(?:[^'\\]|\\.)*')\)")

_loaded: dict[Path, dict[str, str]] = {}


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:  # pragma: no cover - lark is a dependency
        return "none"


def path() -> Path | None:
    """The cache file for the installed SymPy and Lark, or None when caching is off."""
    where = os.environ.get(ENV, "")
    if where.lower() == "off":
        return None
    folder = Path(where) if where else Path.home() / ".cache" / "sfltheory"
    key = hashlib.sha256(f"sympy {sp.__version__} lark {_version('lark')}".encode()).hexdigest()[:16]
    return folder / f"latex-{key}.json"


def _entries(p: Path) -> dict[str, str]:
    if p not in _loaded:
        try:
            data = json.loads(p.read_text())
            _loaded[p] = {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except (OSError, ValueError):
            _loaded[p] = {}
    return _loaded[p]


def text_of(expr: sp.Expr) -> str:
    """``sympy.srepr`` of ``expr`` that ``sympify`` reads back: the Lark backend names symbols with its ``Token`` (a
    ``str`` subclass, equal and hashing alike), which srepr writes as ``Token('SYMBOL', 'T')``; that becomes ``'T'``.
    (Rebuilding the symbols instead does not work: SymPy's cache hands back the Token-named symbol.)"""
    return TOKEN.sub(r"\1", sp.srepr(expr))


def get(summand: str) -> sp.Expr | None:
    """The cached parse of ``summand``, or None."""
    p = path()
    if p is None:
        return None
    text = _entries(p).get(summand)
    if text is None:
        return None
    try:
        expr = sp.sympify(text)
    except (sp.SympifyError, SyntaxError, TypeError, ValueError):
        return None
    return expr if isinstance(expr, sp.Expr) else None


def put(summand: str, expr: sp.Expr) -> None:
    """Remember the parse of ``summand`` (written at once, atomically; a failed write is ignored)."""
    p = path()
    if p is None:
        return
    entries = _entries(p)
    entries[summand] = text_of(expr)
    try:
        write_atomic(p, json.dumps(entries, indent=0, sort_keys=True))
    except OSError:
        pass
