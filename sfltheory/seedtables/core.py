"""A seed's own table regenerated from the encodings: the typed table, its cells, and how a cell is made.

A :class:`SeedTable` is what one seed table becomes: its title, the seed file and the place in it, the column
names and the rows of :class:`Cell`. Each cell holds what is regenerated from an encoded
:class:`~sfltheory.result.Result` (a SymPy expression as text and LaTeX, or a number at stated settings), the cell
the seed prints (quoted verbatim, with its line number in the seed file) and whether they agree:

* ``agree``: the printed formula, read into SymPy (:mod:`sfltheory.seedtables.printed`), equals the regenerated
  one (``simplify(regenerated - printed) == 0``), or, where the table says "up to constants", their ratio is a
  positive number;
* ``differ``: they do not; ``recorded`` names the :class:`~sfltheory.result.Discrepancy` of the Result that
  records the difference (a cell that differs with nothing recorded is a finding the tests refuse);
* ``text``: a label (a method's name, an assumption), compared by nothing;
* ``computed``: a value the seed does not print (a number at stated settings, a derivation of ours);
* ``not printed``: the seed's table is missing from the seed text (SL Table 6's image), rebuilt from the results.

The seed files are in ``shared/seeds`` beside the checkout (see :func:`seed_line`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np
import sympy as sp

from ..builtin import paper_notation
from ..errors import SflTheoryError
from ..evaluate import bound_value
from ..registry import get, params_in_use
from ..result import Result
from .printed import read_printed

Status = Literal["agree", "differ", "text", "computed", "not printed"]
CHECKOUT = Path(__file__).resolve().parents[2]
MARKS: dict[str, str] = {
    "agree": "agree",
    "differ": "DIFFERS",
    "text": "",
    "computed": "ours",
    "not printed": "rebuilt",
}


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One cell: regenerated (``text``, ``latex``) next to the printed one (``printed`` verbatim, at ``line`` of the
    seed file), the verdict ``status`` with its ``reason``, the Result it comes from and the Discrepancy (its
    ``where``) that records a difference."""

    text: str
    latex: str
    status: Status
    printed: str = ""
    line: int | None = None
    reason: str = ""
    result: str = ""
    recorded: str = ""


@dataclass(frozen=True, kw_only=True)
class SeedTable:
    """A seed table regenerated: ``id`` (the command-line name), ``title``, the ``seed`` file, the ``location`` in
    it (table number, section, line), the ``columns`` and the ``rows`` of cells (one per column), and ``notes``
    (how cells are read, what is rebuilt)."""

    id: str
    title: str
    seed: str
    location: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):  # a table is a grid: every row fills every column
                raise SflTheoryError(f"{self.id}: a row has {len(row)} cells for {len(self.columns)} columns")

    @property
    def cells(self) -> tuple[Cell, ...]:
        """Every cell, row by row."""
        return tuple(c for row in self.rows for c in row)


def seed_dirs() -> tuple[Path, ...]:
    """Where the seed files are looked for: ``SFLTHEORY_SEEDS``, then ``shared/seeds`` beside the checkout, then
    ``./shared/seeds`` (the same order as the audit's)."""
    env = os.environ.get("SFLTHEORY_SEEDS")
    return (*([Path(env)] if env else []), CHECKOUT.parent / "shared" / "seeds", Path.cwd() / "shared" / "seeds")


@cache
def seed_lines(seed: str) -> tuple[str, ...] | None:
    """The lines of seed file ``seed`` (None where no seed folder holds it: the tables are still built)."""
    for folder in seed_dirs():
        path = folder / seed
        if path.is_file():
            return tuple(path.read_text(encoding="utf-8").split("\n"))  # not splitlines: U+2028 etc. are not line ends
    return None


def seed_line(seed: str, line: int) -> str | None:
    """Line ``line`` (1-based) of seed file ``seed``, None where the seed is not at hand."""
    lines = seed_lines(seed)
    return None if lines is None or not 1 <= line <= len(lines) else lines[line - 1]


def text(label: str, *, line: int | None = None, printed: str | None = None, latex: str | None = None) -> Cell:
    """A label cell: shown as ``label`` (in LaTeX as ``latex``, default ``label`` escaped); ``printed`` (default
    ``label``) is the seed's wording at ``line``."""
    shown = latex_text(label) if latex is None else latex
    return Cell(text=label, latex=shown, status="text", printed=label if printed is None else printed, line=line)


def tex(expr: sp.Expr, result: Result) -> str:
    """``expr`` as LaTeX in the paper's own letters (its notation, then the result's, else the vocabulary's)."""
    names = {k: p.latex for k, p in params_in_use().items()} | paper_notation(result.paper) | result.notation
    return sp.latex(expr, symbol_names={s: "{" + names.get(s.name, s.name) + "}" for s in expr.free_symbols})


def latex_text(s: str) -> str:
    r"""``s`` as LaTeX text (``\&``, ``\%``, ``\_``, ``\#`` escaped)."""
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#")):
        s = s.replace(a, b)
    return s


def same(regenerated: sp.Expr, printed: sp.Expr, *, up_to_constants: bool) -> tuple[bool, str]:
    """Whether two formulas agree, and how it was decided: exactly (the difference simplifies to 0) or, for an
    O-form, up to one positive constant factor (their ratio simplifies to a positive number)."""
    if up_to_constants:
        ratio = sp.simplify(regenerated / printed)
        ok = not ratio.free_symbols and bool(ratio.is_positive)
        return ok, f"ratio regenerated/printed = {ratio}" + ("" if ok else ", not a constant")
    diff = sp.simplify(regenerated - printed)
    if diff != 0 and diff.has(sp.Min, sp.Max) and equal_at_points(regenerated, printed):
        # SymPy does not move a positive factor into a min (Min(a/c, b/c) vs Min(a, b)/c): compared at points
        return True, f"equal at {len(POINTS)} random positive points (a min that SymPy does not simplify)"
    return diff == 0, "regenerated - printed = 0" if diff == 0 else f"regenerated - printed = {diff}"


POINTS = tuple(np.random.default_rng(20260).uniform(0.1, 10.0, size=(16, 32)))  # fixed seed: reproducible verdicts


def equal_at_points(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether ``a`` and ``b`` agree to 1e-12 (relative) at :data:`POINTS`, every symbol positive."""
    names = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if len(names) > len(POINTS[0]):
        return False
    for p in POINTS:
        at = dict(zip(names, (sp.Float(x) for x in p), strict=False))
        va, vb = float(a.subs(at)), float(b.subs(at))
        if not np.isclose(va, vb, rtol=1e-12, atol=0.0):
            return False
    return True


def recorded_in(result: Result, where: str) -> str:
    """The ``where`` of the Discrepancy of ``result`` that starts with ``where`` ('' if none does)."""
    return next((d.where for d in result.discrepancies if d.where.startswith(where)), "") if where else ""


def formula(
    result_id: str,
    printed: str,
    line: int,
    *,
    expr: sp.Expr | None = None,
    reading: str | None = None,
    up_to_constants: bool = False,
    recorded: str = "",
    how: str = "",
) -> Cell:
    """A formula cell: ``expr`` (default: the bound of ``result_id``) against ``printed`` (the seed's cell verbatim,
    at ``line``), read as ``reading`` where the seed's text needs a reading (words, a stray parenthesis; ``how``
    says why). ``recorded``: the start of the Result's Discrepancy ``where`` that explains a difference."""
    r = get(result_id)
    value = r.bound_expr if expr is None else sp.sympify(expr)
    read = read_printed(reading if reading is not None else printed, r)
    ok, why = same(value, read, up_to_constants=up_to_constants)
    found = recorded_in(r, recorded)
    reason = "; ".join(x for x in (how, f"printed read as {sp.sstr(read)}", why) if x)
    if not ok and not found:
        reason += "; NOT RECORDED as a discrepancy of the result"
    return Cell(
        text=sp.sstr(value),
        latex=tex(value, r),
        status="agree" if ok else "differ",
        printed=printed,
        line=line,
        reason=reason,
        result=result_id,
        recorded="" if ok else found,
    )


def derived(result_id: str, value: sp.Expr, how: str, *, printed: str = "", line: int | None = None) -> Cell:
    """A value of ours derived from ``result_id`` (``how`` says how); the seed prints no such cell."""
    v = sp.sympify(value)
    return Cell(
        text=sp.sstr(v),
        latex=tex(v, get(result_id)),
        status="computed",
        printed=printed,
        line=line,
        reason=how,
        result=result_id,
    )


def number(result_id: str, settings: Mapping[str, float], *, expr: sp.Expr | None = None) -> Cell:
    """The bound of ``result_id`` (or ``expr`` in its names) at ``settings`` (only the names it uses are passed):
    through :func:`sfltheory.evaluate.bound_value`, so the Result's defaults and checks apply."""
    r = get(result_id)
    target = r.bound_expr if expr is None else sp.sympify(expr)
    used = {s.name for s in target.free_symbols}
    given = {k: v for k, v in settings.items() if k in used}
    if expr is None:
        v = float(np.asarray(bound_value(r, given)))
    else:
        v = float(target.subs({s: sp.Float(given[s.name]) for s in target.free_symbols if s.name in given}))
    if not np.isfinite(v):
        raise SflTheoryError(f"{result_id}: not a finite number at {given}")
    shown = ", ".join(f"{k}={x:g}" for k, x in given.items())
    return Cell(text=f"{v:.6g}", latex=f"{v:.6g}", status="computed", reason=f"at {shown}", result=result_id)
