"""Printed LaTeX to SymPy in canonical names (SymPy's LaTeX parser, Lark backend).

The paper's symbols are replaced by placeholders before parsing: each canonical parameter is spelled the way
the paper prints it (``PAPER_NOTATION``, the result's own ``notation``), else as the vocabulary's LaTeX, plus
the few spellings in :data:`SPELLINGS`. A symbol left over after parsing is not a canonical parameter: the
statement is then not comparable, and the caller says so rather than guessing.
"""

from __future__ import annotations

import re
from functools import cache

import sympy as sp

from .. import vocabulary as vocab
from ..result import Result

# Other printed forms of canonical names (data, not findings): the initial gap written out.
SPELLINGS: dict[str, tuple[str, ...]] = {
    "F": (r"[f(\mathbf x^0)-f(\mathbf x^*)]", r"\mathcal F", r"\mathcal{F}"),
}
DROP = (r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\!", r"\,", r"\;", r"\displaystyle")
ONE_ARG = {r"\sqrt", r"\mathcal", r"\mathbf", r"\bm", r"\tilde", r"\bar", r"\hat", r"\mathrm", r"\text"}
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d+(?:\.\d+)?|\S")


class LatexError(ValueError):
    """A statement that cannot be read as a formula in canonical names."""


def _group(tok: list[str], i: int) -> int:
    """Index just past the balanced ``{...}`` group starting at ``tok[i]``."""
    depth = 0
    for j in range(i, len(tok)):
        depth += {"{": 1, "}": -1}.get(tok[j], 0)
        if depth == 0:
            return j + 1
    return len(tok)


def _brace(tok: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tok):
        t = tok[i]
        wrap = t in (r"\sqrt", r"\frac")  # parenthesised: the Lark grammar misreads sqrt{a}b as a call
        out += ["(", t] if wrap else [t]
        i += 1
        n = 1 if t in ("^", "_") or t in ONE_ARG else 2 if t == r"\frac" else 0
        for _ in range(n):
            if i >= len(tok):
                break
            if tok[i] == "{":
                j = _group(tok, i)
                out += ["{", *_brace(tok[i + 1 : j - 1]), "}"]
                i = j
            else:
                out += ["{", tok[i], "}"]
                i += 1
        if wrap:
            out.append(")")
    return out


def normal(s: str) -> list[str]:
    """Tokens with every one-token argument braced (``\\frac1T`` -> ``\\frac{1}{T}``, ``^2`` -> ``^{2}``)."""
    raw = [t for t in TOKEN.findall(s) if t not in DROP]
    return _brace([r"\frac" if t in (r"\tfrac", r"\dfrac") else t for t in raw])


@cache
def spellings(paper: str, notation: tuple[tuple[str, str], ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(token pattern, canonical name), longest pattern first."""
    printed = {**vocab.PAPER_NOTATION.get(paper, {}), **dict(notation)}
    taken = set(printed.values())
    forms: list[tuple[tuple[str, ...], str]] = []
    for p in vocab.all_params():
        if p.name in printed:
            forms.append((tuple(normal(printed[p.name])), p.name))
        elif p.latex not in taken:
            forms.append((tuple(normal(p.latex)), p.name))
        for extra in SPELLINGS.get(p.name, ()):
            forms.append((tuple(normal(extra)), p.name))
    forms = [f for f in forms if f[0]]
    return tuple(sorted(forms, key=lambda f: -len(f[0])))


def _is_factor(t: str, *, end: bool) -> bool:
    if t.startswith(r"\zeta_") or re.fullmatch(r"\d+(?:\.\d+)?", t):
        return True
    return t in ((")", "}") if end else ("(",))


def _rewrite(tok: list[str], forms: tuple[tuple[tuple[str, ...], str], ...]) -> tuple[str, dict[str, str]]:
    """Replace each canonical spelling by a placeholder ``\\zeta_{k}`` and spell every product out (the Lark
    grammar reads ``L(x)`` as a call); returns the text and placeholder -> canonical name."""
    index: dict[str, int] = {}
    out: list[str] = []
    i = 0
    while i < len(tok):
        for pat, name in forms:
            if tuple(tok[i : i + len(pat)]) == pat:
                t = rf"\zeta_{{{index.setdefault(name, len(index))}}}"
                i += len(pat)
                break
        else:
            t = tok[i]
            i += 1
        if out and _is_factor(out[-1], end=True) and _is_factor(t, end=False):
            out.append(r"\cdot")
        out.append(t)
    text = ""
    for t in out:  # a command needs a space before a letter, nothing else does
        text += (" " if text and re.search(r"\\[A-Za-z]+$", text) and t[:1].isalpha() else "") + t
    return text, {f"zeta_{{{k}}}": name for name, k in index.items()}


def summands(text: str) -> list[str]:
    """``text`` cut at its top-level '+' and '-' (a '-' stays with the summand it negates)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"{": 1, "(": 1, "}": -1, ")": -1}.get(ch, 0)
        if depth == 0 and ch in "+-" and i > start and text[i - 1] not in "^_{(":
            out.append(text[start:i])
            start = i + 1 if ch == "+" else i
    out.append(text[start:])
    return [c for c in out if c.strip()]


def rhs_segments(statement: str) -> list[str]:
    """The parts of a printed statement after each top-level relation, cut at trailing definitions."""
    s = re.split(r",\\ |,\\quad|,\s*\\text", statement)[0]
    parts = re.split(r"\\leq?(?![A-Za-z])|\\triangleq|(?<![<>])=", s)
    return parts[1:] if len(parts) > 1 else parts


# constructs no canonical formula contains: a statement with one is not comparable (checked before parsing,
# which is slow for long statements)
UNREADABLE = (r"\sum", r"\mathbb", r"\|", r"\nabla", r"\min", r"\max", r"\text", r"\mathcal C", r"\Phi", r"\times")


def to_sympy(latex: str, r: Result) -> sp.Expr:
    """``latex`` as a SymPy expression in canonical symbols; raises :class:`LatexError`."""
    return _to_sympy(latex, r.paper, tuple(sorted(r.notation.items())))


@cache
def _to_sympy(latex: str, paper: str, notation: tuple[tuple[str, str], ...]) -> sp.Expr:
    bad = [u for u in UNREADABLE if u in latex]
    if bad:
        raise LatexError(f"uses {bad[0]}, which no canonical formula contains")
    try:
        from sympy.parsing.latex import parse_latex
    except ImportError as e:  # pragma: no cover - sympy without the parser
        raise LatexError(f"SymPy's LaTeX parser is unavailable ({e})") from None
    text, names = _rewrite(normal(latex), spellings(paper, notation))
    parts = []
    for chunk in summands(text):  # the Earley parser is superlinear: one summand at a time
        try:
            part = parse_latex(chunk, backend="lark")
        except ImportError as e:
            raise LatexError(f"the Lark backend of SymPy's LaTeX parser is not installed ({e})") from None
        except Exception as e:  # the parser raises its own error types
            raise LatexError(f"cannot parse: {type(e).__name__}") from None
        if not isinstance(part, sp.Expr):
            raise LatexError("not a formula")
        parts.append(part)
    expr = sp.Add(*parts)
    table = {}
    for s in expr.free_symbols:
        if s.name in names:
            table[s] = vocab.symbol(names[s.name])
        else:
            raise LatexError(f"'{s.name}' is no canonical parameter")
    return sp.sympify(expr.subs(table, simultaneous=True))
