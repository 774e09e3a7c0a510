"""The disk cache of SymPy solves (sfltheory.solvecache): an answer read back equals the solve, a hit does not solve
again, and an unreadable or switched-off cache only costs the solve."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from sfltheory import solvecache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SFLTHEORY_CACHE", str(tmp_path))
    solvecache.forget()
    return tmp_path


def test_a_hit_reads_back_the_solve_without_solving(cache_dir: Path) -> None:
    eta, L = sp.symbols("eta L", positive=True)
    # eta^2 L^2 + eta L - 2 = 0 -> (eta L + 2)(eta L - 1) = 0: the positive root is 1/L
    expr = eta**2 * L**2 + eta * L - 2
    calls = []

    def solve() -> tuple[sp.Expr, ...]:
        calls.append(1)
        return tuple(sp.solve(expr, eta))

    k = solvecache.key("test", expr, eta)
    first = solvecache.cached(k, solve)
    assert first == (1 / L,) and len(calls) == 1
    solvecache.forget()  # read from the file, as a new process does
    again = solvecache.cached(k, solve)
    assert again == (1 / L,) and len(calls) == 1
    assert again[0].free_symbols == {L} and next(iter(again[0].free_symbols)).is_positive
    assert solvecache.cached(solvecache.key("test", expr, L), lambda: None) is None  # another key: solved


def test_unreadable_or_off(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = solvecache.path()
    assert p is not None and p.parent == cache_dir
    p.write_text("not json")
    assert solvecache.cached("k", lambda: (sp.Integer(3),)) == (sp.Integer(3),)
    assert "k" in p.read_text()  # rewritten
    monkeypatch.setenv("SFLTHEORY_CACHE", "off")
    assert solvecache.path() is None
    calls = []
    for _ in range(2):
        solvecache.cached("k2", lambda: calls.append(1) or ())
    assert len(calls) == 2
