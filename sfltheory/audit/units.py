"""Check 4: units.

Every canonical symbol declares its dimension in the vocabulary (``Param.dimension``). Every term of a bound must have
the dimension of its left-hand side, the summands of every sum inside it must agree, and both sides of every
hypothesis (a step-size branch is a step size) must agree. A term that fails scales differently from the
left-hand side when the loss or the parameters change units, so the inequality cannot hold in every unit:
reported as bound invalid -- except in a corollary, whose choices (a step 1/sqrt(T)) are numbers and so fix a
unit: there, as for a hypothesis that fails, the bound holds only in some units (an unstated normalisation).

An O-form whose constants the paper declares omitted (SL non-IID Table 1: "Constants (including L) are omitted")
is not a bound with its constants: its terms are not unit-checked (a skip says so); its conditions still are.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import sympy as sp

from .. import lexicon
from ..result import Result
from ..vocabulary import parse_dimension
from .context import Context, seed_location
from .findings import Finding
from .rates import o_terms

# The left-hand side of a result is words; its dimension is read from them (first match wins). Base dimensions:
# loss (a value of f), param (a length in parameter space), time (s); losses are means, so a gradient is
# loss/param, L loss/param^2 and a step param^2/loss (x - eta grad f is a point).
LHS_DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("grad", "loss**2/param**2"),
    ("||x", "param**2"),
    ("- x^r", "param**2"),
    ("time", "time"),
    ("bytes", "1"),
    ("communication", "1"),
    ("flops", "1"),
    ("memory", "1"),
    ("rounds", "1"),
)


class Undimensioned(Exception):
    """A symbol with no dimension in the table."""


class Mismatch(Exception):
    """Summands (or the arguments of a min/max) with different dimensions."""

    def __init__(self, expr: sp.Expr, dims: list[sp.Expr]) -> None:
        super().__init__(f"{sp.sstr(expr)}: {', '.join(sp.sstr(d) for d in dims)}")


@cache
def declared_dimension(text: str) -> sp.Expr:
    """The monomial a declared dimension names (:func:`sfltheory.vocabulary.parse_dimension`, parsed once per text)."""
    return parse_dimension(text)


def power(d: sp.Expr, exp: sp.Expr) -> sp.Expr:
    """``d**exp`` for a monomial ``d`` in the positive base dimensions and a number ``exp``: each exponent multiplied
    (what ``sympy.powsimp(d**exp, force=True)`` gives, without its tree walk)."""
    if d == 1:
        return sp.Integer(1)
    return sp.Mul(*(b ** (e * exp) for b, e in d.as_powers_dict().items()))


def dimension(expr: sp.Expr) -> sp.Expr:
    """The dimension of ``expr`` as a monomial in loss, param, time (1 for a pure number)."""
    if expr.is_Number or expr is sp.pi or expr is sp.E:
        return sp.Integer(1)
    if isinstance(expr, sp.Symbol):
        declared = lexicon.get(expr.name).dimension if lexicon.is_known(expr.name) else ""
        if not declared:  # a name declared without a dimension
            raise Undimensioned(expr.name)
        return declared_dimension(declared)
    if isinstance(expr, sp.Mul):
        return sp.Mul(*(dimension(a) for a in expr.args))
    if isinstance(expr, sp.Pow):
        d = dimension(expr.base)
        if d != 1 and not expr.exp.is_Number:
            raise Mismatch(expr, [d, dimension(expr.exp)])
        return power(d, expr.exp)
    if isinstance(expr, sp.Add | sp.Min | sp.Max):
        dims = [dimension(a) for a in expr.args]
        if len(set(dims)) > 1:
            raise Mismatch(expr, dims)
        return dims[0]
    if isinstance(expr, sp.Function):
        for a in expr.args:
            if dimension(a) != 1:
                raise Mismatch(expr, [dimension(a)])
        return sp.Integer(1)
    return sp.Integer(1)


def lhs_dimension(r: Result) -> sp.Expr | None:
    """From the words of the left-hand side; but when every term agrees on another dimension and none has the
    one the words suggest, the words describe the quantity loosely (a step-weighted average, a descent lemma)
    and the terms' common dimension is taken."""
    dims = []
    for t in r.terms:
        try:
            dims.append(dimension(t.expr))
        except (Undimensioned, Mismatch):
            continue
    common = Counter(dims).most_common(1)[0][0] if dims else None
    words = r.lhs.lower()
    for key, dim in LHS_DIMENSIONS:
        if key in words:
            want = declared_dimension(dim)
            if dims and want not in dims and len(set(dims)) == 1:
                return common
            return want
    return common


OMITTED = re.compile(r"constants\b[^.]*\bomitted|up to constants", re.IGNORECASE)
O_FORM_REST = re.compile(r"^[\s+=]*(R_\\epsilon|R_\{\\epsilon\})?[\s+=]*$")


def omitted_constants(r: Result) -> str:
    """Why ``r`` is an O-form with its constants omitted ('' if it is not): its statement is a sum of O(...); the
    words of its notes that say the constants are omitted (Table 1's caption, quoted) where there are some."""
    text = r.statement or ""
    if "\\mathcal" not in text or not o_terms(text):
        return ""
    rest = text
    for body in o_terms(text):
        rest = rest.replace(body, "")
    rest = re.sub(r"\\mathcal\s*\{?O\}?\s*(\\left|\\big|\\Big)?\s*\(\s*(\\right|\\big|\\Big)?\s*\)", "", rest)
    if not O_FORM_REST.match(rest):
        return ""
    return next((w for w in r.notes if OMITTED.search(w)), "its constants are hidden in O(.)")


def _finding(r: Result, printed: str, found: str, severity: str, where: str = "") -> Finding:
    return Finding(
        result=r.id,
        check="units",
        printed=printed,
        found=found,
        severity="bound invalid" if severity == "bound invalid" else "unstated condition",
        seed=seed_location(r.provenance) + (f"; {where}" if where else ""),
    )


def check(r: Result, ctx: Context) -> list[Finding]:
    """The units check on ``r``: a finding per term whose dimension differs from the left-hand side's or that adds
    quantities of different dimension, and per hypothesis whose two sides differ in dimension. Names without a
    declared dimension are recorded as one skip."""
    out: list[Finding] = []
    missing: set[str] = set()
    want = lhs_dimension(r) if r.terms else None
    omitted = omitted_constants(r)
    if omitted:
        ctx.skip(r, "units", f"an O-form whose constants the paper omits, not unit-checked as a bound: {omitted}")
    for t in r.terms if not omitted else ():
        try:
            d = dimension(t.expr)
        except Undimensioned as e:
            missing.add(str(e))
            continue
        except Mismatch as e:
            out.append(
                _finding(
                    r, sp.sstr(t.expr), f"term '{t.name}' adds quantities of different dimension: {e}", "bound invalid"
                )
            )
            continue
        if want is not None and d != want:
            # A corollary substitutes choices made in numbers (eta = 1/sqrt(T), lambda = 1/sqrt(dT)): the bound
            # then holds in the units those numbers were chosen in, an unstated normalisation rather than an
            # invalid bound; in a theorem a term of another dimension cannot hold in every unit.
            chosen = r.kind == "corollary"
            why = "; the corollary's choices fix a unit (an unstated normalisation)" if chosen else ""
            out.append(
                _finding(
                    r,
                    sp.sstr(t.expr),
                    f"term '{t.name}' has dimension {sp.sstr(d)}, the left-hand side {sp.sstr(want)}{why}",
                    "" if chosen else "bound invalid",
                )
            )
    for h in r.hypotheses:
        try:
            dl, dr = dimension(h.lhs), dimension(h.rhs)
        except Undimensioned as e:
            missing.add(str(e))
            continue
        except Mismatch as e:
            out.append(
                _finding(r, h.printed, f"condition {h.name} adds quantities of different dimension: {e}", "", h.where)
            )
            continue
        if dl != dr:
            out.append(
                _finding(
                    r,
                    h.printed,
                    f"condition {h.name}: the left side has dimension {sp.sstr(dl)}, the right side {sp.sstr(dr)}",
                    "",
                    h.where,
                )
            )
    if missing:
        ctx.skip(r, "units", f"no dimension for {', '.join(sorted(missing))}")
    return out
