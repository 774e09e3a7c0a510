r"""A printed statement read in full: its right-hand sides as SymPy in canonical names (the audit's printed check).

:func:`sfltheory.latex.to_sympy` reads one formula. A statement is more: a bound with trailing definitions
(``\ T=NKR``, ``\ \eta_{\min}=\min\{...\}``, ``\ \lambda_1=B\sum_{j=0}^{l-1}...``), symbols the paper defines
elsewhere (:data:`sfltheory.latexdefs.READINGS`), an O-form, sums, and inline fractions. :func:`read` does, on the
tokens of each right-hand side (:func:`sfltheory.latex.rhs_segments`):

1. each trailing definition and each reading of the paper substituted, parenthesised, until none is left;
2. ``\mathcal O(X)`` read as ``X`` where the result states its bound up to constants (the encoding takes the
   omitted constant as 1; the check then compares up to one constant factor, see :data:`Statement.up_to_constant`);
3. the canonical spellings replaced (:func:`sfltheory.latex.replace`), and what is left checked for norms,
   expectations and other constructs no canonical name holds;
4. ``\{ \}`` and ``[ ]`` as parentheses (``\min\{a,b\}`` is ``Min(a, b)``);
5. an inline fraction's denominator taken over the product that follows it, as the papers write it
   (``K/M\epsilon^2`` is ``K/(M\epsilon^2)``, ``8/dT`` is ``8/(dT)``);
6. a ``\sum_{i=a}^{b}`` bound to the product that follows it, and evaluated (a term that does not depend on the
   index is ``b - a + 1`` times it; a geometric sum in closed form).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

import sympy as sp

from .latex import UNREADABLE, LatexError, normal, parse_text, replace, rhs_segments, spell, spellings
from .latexdefs import READINGS
from .vocabulary import Param

# what a statement may hold that a formula may not: sums and min/max are read here; \times is a product
ALLOWED = (r"\sum", r"\min", r"\max", r"\times")
LEFT = tuple(u for u in UNREADABLE if u not in ALLOWED)
CUT = re.compile(r",\s*\\(?:quad|qquad| )\s*")
DEFINES = re.compile(r"^(.+?)(?:\\triangleq|:=|\\coloneqq|(?<![<>\\])=)(.+)$")
OMITTED = "up to constants"  # a result whose bound is stated so (Result.lhs): an O-form's constant is omitted
STOP = {"+", "-", ")", "}", "]", ",", r"\cdot", r"\times", "/", "=", r"\le", r"\leq", "<", ">"}


@dataclass(frozen=True)
class Statement:
    """The right-hand sides read (``exprs``), why the others could not be (``reasons``), and whether the statement
    is an O-form compared up to one constant factor (``up_to_constant``)."""

    exprs: tuple[sp.Expr, ...]
    reasons: tuple[str, ...]
    up_to_constant: bool


def read(
    statement: str, paper: str, label: str, lhs: str, notation: dict[str, str], params: Iterable[Param]
) -> Statement:
    """The right-hand sides of ``statement`` (printed in result ``paper/label``, whose bound is ``lhs``; ``notation``:
    the result's own), as SymPy in canonical names."""
    return _read(statement, paper, label, OMITTED in lhs, tuple(sorted(notation.items())), tuple(params))


@cache
def _read(
    statement: str,
    paper: str,
    label: str,
    omitted: bool,
    notation: tuple[tuple[str, str], ...],
    params: tuple[Param, ...],
) -> Statement:
    head, defs = definitions(statement)
    subs = [
        *defs,
        *((normal(x.printed), normal(x.means)) for x in READINGS.get(paper, ()) if _applies(x.labels, label)),
    ]
    table = spellings(paper, notation, params)
    exprs: list[sp.Expr] = []
    reasons: list[str] = []
    o_form = False
    for seg in rhs_segments(head):
        tok = substitute(normal(seg), subs)
        if r"\mathcal" in tok and omitted:
            tok, found = unwrap_o(tok)
            o_form = o_form or found
        try:
            out, names = replace(tok, table)
            out = ["(" if t in (r"\{", "[") else ")" if t in (r"\}", "]") else t for t in out]
            _readable(out)
            expr = parse_text(spell(bind_sums(group_denominators(out))), names, table, seg)
            exprs.append(expr.doit() if expr.has(sp.Sum) else expr)
        except LatexError as e:
            reasons.append(str(e))
    return Statement(tuple(exprs), tuple(reasons), o_form)


def _readable(tok: list[str]) -> None:
    """Raise :class:`LatexError` for what no canonical name holds: a norm, an expectation, a function's value
    (``f(x^{T+1})``), or parentheses that do not balance as printed."""
    left = [u for u in LEFT if u.replace(" ", "") in "".join(tok)]
    if left:
        raise LatexError(f"uses {left[0]}, which no canonical formula contains")
    # the balance first: a printed extra parenthesis (cut_layer Proposition 1, seed 003 line 138) is what a reader
    # must be told, before anything it may hide
    if tok.count("(") != tok.count(")"):
        raise LatexError("its parentheses do not balance as printed")
    calls = [a for a, b in pairwise(tok) if b == "(" and re.fullmatch(r"[A-Za-z]", a)]
    if calls:
        raise LatexError(f"uses {calls[0]}(...), a value no canonical name holds")


def _applies(labels: Sequence[str], label: str) -> bool:
    return not labels or label in labels


def definitions(statement: str) -> tuple[str, list[tuple[list[str], list[str]]]]:
    """``statement`` cut at its trailing definitions (``,\\ name=value``, ``,\\quad name\\triangleq value``): the
    bound and the (name tokens, value tokens) of each definition; a trailing piece that defines nothing (words in
    ``\\text``) is dropped."""
    pieces = _top_level_split(statement)
    defs = []
    for piece in pieces[1:]:
        piece = re.sub(r"\\ *\(\\text\{[^{}]*\}\)\s*$", "", piece).strip()
        m = DEFINES.match(piece)
        if m and "\\le" not in m.group(1):
            defs.append((normal(m.group(1)), normal(m.group(2))))
    return pieces[0], defs


def _top_level_split(s: str) -> list[str]:
    out, start = [], 0
    for m in CUT.finditer(s):
        depth = sum({"{": 1, "(": 1, "}": -1, ")": -1}.get(ch, 0) for ch in s[: m.start()])
        if depth == 0:
            out.append(s[start : m.start()])
            start = m.end()
    out.append(s[start:])
    return out


def substitute(tok: list[str], subs: Sequence[tuple[list[str], list[str]]], rounds: int = 8) -> list[str]:
    """``tok`` with every name of ``subs`` replaced by ``( value )``, longest name first, until none is left (at most
    ``rounds`` passes). A one-token name is no match inside a subscript or with a subscript of its own
    (``d`` is not the ``d`` of ``d_{c,i}``)."""
    order = sorted(((tuple(n), v) for n, v in subs if n), key=lambda s: -len(s[0]))
    for k in range(rounds):
        if k == 1:  # a value that holds its own name (a symbol parenthesised) is put in once
            order = [(n, v) for n, v in order if not _holds(v, n)]
        out: list[str] = []
        i, changed = 0, False
        while i < len(tok):
            for name, value in order:
                if tuple(tok[i : i + len(name)]) == name and _free(tok, i, len(name)):
                    out += ["(", *value, ")"]
                    i += len(name)
                    changed = True
                    break
            else:
                out.append(tok[i])
                i += 1
        tok = out
        if not changed:
            break
    return tok


def _holds(value: list[str], name: tuple[str, ...]) -> bool:
    return any(tuple(value[i : i + len(name)]) == name for i in range(len(value)))


def _free(tok: list[str], i: int, n: int) -> bool:
    if n > 1:
        return True
    if (i + 1 < len(tok) and tok[i + 1] == "_") or (i and tok[i - 1] == "_"):
        return False
    return not (i >= 2 and tok[i - 1] == "{" and tok[i - 2] == "_")


def unwrap_o(tok: list[str]) -> tuple[list[str], bool]:
    """``\\mathcal O(X)`` -> ``(X)``; whether there was one."""
    out: list[str] = []
    found = False
    i = 0
    while i < len(tok):
        if tok[i : i + 4] == [r"\mathcal", "{", "O", "}"]:
            found = True
            i += 4
            continue
        out.append(tok[i])
        i += 1
    return out, found


def _factor_end(tok: Sequence[str], i: int) -> int:
    """Index just past the factor starting at ``tok[i]`` (an atom or a group, with its sub- and superscripts), or
    ``i`` when none starts there."""
    if i >= len(tok) or tok[i] in STOP or tok[i] in ("^", "_"):
        return i
    j = _skip_group(tok, i) if tok[i] in ("(", "{") else i + 1
    if tok[i].startswith("\\") and tok[i] not in (r"\sqrt", r"\frac") and j < len(tok) and tok[j] == "{":
        j = _skip_group(tok, j)  # a command with an argument
    while j < len(tok) and tok[j] in ("^", "_"):
        j = _skip_group(tok, j + 1) if j + 1 < len(tok) and tok[j + 1] in ("{", "(") else j + 2
    return j


def _skip_group(tok: Sequence[str], i: int) -> int:
    opening = tok[i]
    closing = {"(": ")", "{": "}"}[opening]
    depth = 0
    for j in range(i, len(tok)):
        if tok[j] == opening:
            depth += 1
        elif tok[j] == closing:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(tok)


def _product_end(tok: Sequence[str], i: int) -> int:
    """Index just past the run of juxtaposed factors starting at ``tok[i]``."""
    j = i
    while True:
        k = _factor_end(tok, j)
        if k == j:
            return j
        j = k


def group_denominators(tok: list[str]) -> list[str]:
    """An inline ``a/bc`` as ``a/(bc)``: the denominator of ``/`` is the product that follows it."""
    out: list[str] = []
    i = 0
    while i < len(tok):
        out.append(tok[i])
        if tok[i] == "/":
            end = _product_end(tok, i + 1)
            inner = group_denominators(tok[i + 1 : end])
            many = _factor_end(tok, i + 1) < end
            out += ["(", *inner, ")"] if many else inner
            i = end
            continue
        i += 1
    return out


def bind_sums(tok: list[str]) -> list[str]:
    """``\\sum_{i=a}^{b} X Y`` as ``(\\sum_{i=a}^{b} (X Y))``: the sum binds the product that follows it (the Lark
    grammar finds two readings of a sum followed by a product)."""
    out: list[str] = []
    i = 0
    while i < len(tok):
        if tok[i] == r"\sum":
            j = i + 1
            while j < len(tok) and tok[j] in ("_", "^"):
                j = _skip_group(tok, j + 1) if j + 1 < len(tok) and tok[j + 1] == "{" else j + 2
            end = _product_end(tok, j)
            out += ["(", *tok[i:j], r"\left(", *bind_sums(tok[j:end]), r"\right)", ")"]
            i = end
            continue
        out.append(tok[i])
        i += 1
    return out
