"""The disk cache of SymPy's LaTeX parser: a cached parse is the parse, and the cache is only ever a shortcut."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp
from sympy.parsing.latex import parse_latex

from sfltheory import latexcache
from sfltheory.audit.runner import audit

SUMMANDS = [r"\frac{4F}{T\eta\tau}", r"16 \eta L d_{s}", r"\sqrt{\frac{d}{\tau T}}"]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(latexcache.ENV, str(tmp_path))
    latexcache._loaded.clear()
    return tmp_path


def test_round_trip_equals_a_fresh_parse(cache: Path) -> None:
    for s in SUMMANDS:
        assert latexcache.get(s) is None
        latexcache.put(s, parse_latex(s, backend="lark"))
    latexcache._loaded.clear()  # read back from the file, as another process would
    for s in SUMMANDS:
        restored = latexcache.get(s)
        fresh = parse_latex(s, backend="lark")
        # equal to a fresh parse, and structurally the same once the parser's Token names are plain strings
        assert restored is not None and restored == fresh
        assert "Token" not in latexcache.text_of(fresh) and sp.sympify(latexcache.text_of(fresh)) == fresh
    p = latexcache.path()
    assert p is not None and p.parent == cache and p.name.startswith("latex-")


def test_the_audit_is_the_same_with_the_cache_cold_and_warm(cache: Path) -> None:
    ids = ["mu_splitfed/cor4.2", "sl_noniid/tab1.fl"]
    cold = audit(ids).findings
    assert latexcache.path() is not None and latexcache.path().is_file()  # type: ignore[union-attr]
    latexcache._loaded.clear()
    warm = audit(ids).findings
    assert [f.to_dict() for f in warm] == [f.to_dict() for f in cold]


def test_off_and_unreadable(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = latexcache.path()
    assert p is not None
    p.write_text("{not json")
    latexcache._loaded.clear()
    assert latexcache.get(SUMMANDS[0]) is None  # an unreadable file is ignored ...
    latexcache.put(SUMMANDS[0], sp.Symbol("x"))
    latexcache._loaded.clear()
    assert latexcache.get(SUMMANDS[0]) == sp.Symbol("x")  # ... and rewritten
    monkeypatch.setenv(latexcache.ENV, "off")
    assert latexcache.path() is None and latexcache.get(SUMMANDS[0]) is None
