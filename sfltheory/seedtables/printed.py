r"""A printed table cell read into SymPy, in the canonical names of the Result it belongs to.

The seed text carries the tables' TeX with typesetting no formula needs; each rewrite below is typography only,
so that :func:`sfltheory.latexread.read` (the audit's reader of printed statements) reads the cell as printed:

* ``{\mathcal{O}}(X)``, ``\mathcal{O}\left(X\right)`` -> ``(X)``: the O is dropped and the constant taken as 1;
  the caller compares such a cell up to one constant factor (``up_to_constants``);
* ``\underbrace{X}_{\text{label}}`` -> ``X`` (SL Table 4 labels the summands);
* ``\tilde{\eta}_{\text{FL}}``, ``\tilde{\eta}_{\text{SL}}`` -> ``\tilde\eta`` (one canonical name, ``eta_tilde``,
  holds both effective learning rates; the row says which);
* ``\overline{X}`` -> ``X`` (a rule drawn over SL Table 1's row 3);
* a leading ``\tilde\eta:``, ``Constraint:`` (a row's label) is dropped.
"""

from __future__ import annotations

import re

import sympy as sp

from ..errors import SflTheoryError
from ..latexread import read
from ..registry import params_in_use
from ..result import Result

O_OPEN = re.compile(r"\{?\\mathcal\s*\{?O\}?\}?\s*(?:\\!)?\s*")
UNDERBRACE = re.compile(r"\\underbrace\{((?:[^{}]|\{[^{}]*\})*)\}_\{\\text\{[^{}]*\}\}")
TILDE_ETA = re.compile(r"\\tilde\{\\eta\}_\{\\text\{(?:FL|SL)\}\}")
OVERLINE = re.compile(r"^\\overline\{(.*)\}$", flags=re.DOTALL)
LABEL = re.compile(r"^\s*(?:\\tilde\\eta\s*:|Constraint:)\s*")


def typography(tex: str) -> str:
    """``tex`` with the typesetting of the module docstring removed (the O-wrapper kept as parentheses)."""
    s = tex.strip().strip("$").strip()
    s = OVERLINE.sub(r"\1", s)
    s = UNDERBRACE.sub(r"(\1)", s)
    s = TILDE_ETA.sub(r"\\tilde\\eta ", s)  # the space: "\tilde\eta R" must not read as a macro "\etaR"
    s = LABEL.sub("", s)
    return O_OPEN.sub("", s)


def read_printed(tex: str, result: Result) -> sp.Expr:
    """The printed ``tex`` as one SymPy expression in the canonical names of ``result`` (its paper's spellings and
    its own notation); a relation (``R_\\epsilon = ...``, ``\\eta_l \\le ...``) is read on its right-hand side. A
    cell the reader cannot take is an error naming the cell (a table module must then give a reading)."""
    s = typography(tex)
    got = read(s, result.paper, result.label, "", result.notation, tuple(params_in_use().values()))
    if len(got.exprs) != 1:
        why = "; ".join(got.reasons) or f"{len(got.exprs)} right-hand sides"
        raise SflTheoryError(f"{result.id}: cannot read the printed cell {tex!r} (as {s!r}): {why}")
    return sp.sympify(got.exprs[0])
