r"""Printed LaTeX to SymPy in canonical names (SymPy's LaTeX parser, Lark backend).

Shared by the audit (which reads the statements the papers print) and by user-declared results
(:mod:`sfltheory.userresults`, whose terms and hypotheses are written in LaTeX).

The symbols are replaced by placeholders before parsing: each canonical parameter is spelled the way the paper
prints it (its package's ``PAPER_NOTATION``, the result's ``notation``), else as the vocabulary's LaTeX, plus the few
spellings in :data:`SPELLINGS`. :func:`parse_formula` also reads the ASCII canonical names (``eta_c``,
``sigma2``). A symbol left over after parsing is not a canonical parameter: the audit then says the statement is
not comparable rather than guessing; a user's file gets :class:`UnknownSymbol` with the close matches.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

import sympy as sp
from sympy.core.function import AppliedUndef

from . import latexcache
from .builtin import builtin_params, paper_notation
from .vocabulary import Param, symbol

if TYPE_CHECKING:
    from .result import Relation, Result

# Other printed forms of canonical names (data, not findings): the initial gap written out.
SPELLINGS: dict[str, tuple[str, ...]] = {
    "F": (r"[f(\mathbf x^0)-f(\mathbf x^*)]", r"\mathcal F", r"\mathcal{F}"),
}
DROP = (r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\!", r"\,", r"\;", r"\displaystyle", r"\nolimits",
        r"\limits")  # fmt: skip
ONE_ARG = {r"\sqrt", r"\mathcal", r"\mathbf", r"\bm", r"\boldsymbol", r"\tilde", r"\bar", r"\hat", r"\mathrm", r"\text",
           r"\mathbb"}  # fmt: skip
# typography that does not change what a symbol is: bold (\mathbf x, \bm\theta) and an upright one-letter label
# (\theta_{\text g}); their one-token argument stands for itself, so \bm{\theta}_{\text{g}} and \theta_g read alike
PLAIN = {r"\mathbf", r"\bm", r"\boldsymbol", r"\text", r"\mathrm"}
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]|\d+(?:\.\d+)?|\S")
# a formula's relation, as written -> the Result's relation (None: a relation no hypothesis can state)
RELATIONS: dict[str, str | None] = {
    r"\le": "<=", r"\leq": "<=", r"\leqslant": "<=", "<=": "<=", "<": "<", r"\lt": "<",
    r"\ge": ">=", r"\geq": ">=", r"\geqslant": ">=", ">=": ">=", ">": ">", r"\gt": ">", "=": "==",
    r"\ne": None, r"\neq": None, "!=": None, r"\approx": None, r"\sim": None, r"\propto": None, r"\equiv": None,
    r"\ll": None, r"\gg": None, r"\triangleq": None, ":=": None, r"\coloneqq": None,
}  # fmt: skip
_REL_SCAN = re.compile(r"<=|>=|!=|:=|\\[A-Za-z]+|\\.|[<>={}()\[\]]")


class LatexError(ValueError):
    """A statement that cannot be read as a formula in canonical names."""


class MalformedLatex(LatexError):
    """LaTeX the parser cannot read; ``near`` is the text around the place it stopped."""

    def __init__(self, near: str, why: str = "") -> None:
        self.near = near
        super().__init__(f"malformed LaTeX near '{near}'" + (f" ({why})" if why else ""))


class UnknownSymbol(LatexError):
    """A symbol that is no canonical parameter; ``close`` names the canonical names it resembles."""

    def __init__(self, symbol: str, close: Sequence[str] = ()) -> None:
        self.symbol = symbol
        self.close = tuple(close)
        hint = f" (did you mean {', '.join(self.close)}?)" if self.close else " (see `sfltheory vocabulary`)"
        super().__init__(f"unknown symbol '{symbol}'{hint}")


class BadRelation(LatexError):
    """A condition that is not ``lhs REL rhs`` with one relation REL among <=, <, =, >=, >."""


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


def _plain(tok: list[str]) -> list[str]:
    """``tok`` (braced) with :data:`PLAIN` dropped around a one-token argument, and the brackets of an expectation of
    a norm dropped (``\\mathbb E[\\|x\\|^2]`` reads as ``\\mathbb E\\|x\\|^2``)."""
    out: list[str] = []
    i = 0
    while i < len(tok):
        if tok[i] in PLAIN and tok[i + 1 : i + 2] == ["{"] and tok[i + 3 : i + 4] == ["}"] and tok[i + 2] not in "{}":
            out.append(tok[i + 2])
            i += 4
            continue
        out.append(tok[i])
        i += 1
    return _unbracket(out)


def _unbracket(tok: list[str]) -> list[str]:
    """``\\mathbb E[\\|x\\|^2]`` (with or without a subscript on E) as ``\\mathbb E\\|x\\|^2``."""
    for i in range(len(tok) - 3):
        if tok[i : i + 3] != [r"\mathbb", "{", "E"] or tok[i + 3] != "}":
            continue
        j = i + 4
        if tok[j : j + 2] == ["_", "{"]:
            j = _group(tok, j + 1)
        if tok[j : j + 2] == ["[", r"\|"]:
            end = _close_bracket(tok, j)
            inner = tok[j + 1 : end]
            if end < len(tok) and inner[-5:] == [r"\|", "^", "{", "2", "}"] and r"\|" not in inner[1:-5]:
                return _unbracket([*tok[:j], *inner, *tok[end + 1 :]])
    return tok


def _close_bracket(tok: list[str], i: int) -> int:
    """Index of the ``]`` that closes the ``[`` at ``tok[i]`` (len(tok) when none does)."""
    depth = 0
    for j in range(i, len(tok)):
        depth += {"[": 1, "]": -1}.get(tok[j], 0)
        if depth == 0:
            return j
    return len(tok)


def _digits(tok: list[str]) -> list[str]:
    """``\\frac14`` is 1/4: an unbraced argument of ``\\frac`` is one character, not the number 14."""
    out = list(tok)
    for i, t in enumerate(out):
        if t == r"\frac" and i + 1 < len(out) and out[i + 1].isdigit() and len(out[i + 1]) > 1:
            out[i + 1 : i + 2] = [out[i + 1][0], out[i + 1][1:]]
    return out


def _scripts(tok: list[str]) -> list[str]:
    """``x^{a}_{b}`` as ``x_{b}^{a}`` (braced tokens): one order, so that both spellings match."""
    out = list(tok)
    i = 0
    while i < len(out):
        if out[i] == "^" and out[i + 1 : i + 2] == ["{"]:
            j = _group(out, i + 1)
            if out[j : j + 2] == ["_", "{"]:
                k = _group(out, j + 1)
                out[i:k] = [*out[j:k], *out[i:j]]
        i += 1
    return out


def _prepare(raw: Iterable[str]) -> list[str]:
    kept = [r"\frac" if t in (r"\tfrac", r"\dfrac") else t for t in raw if t not in DROP]
    return _scripts(_plain(_brace(_digits(kept))))


def normal(s: str) -> list[str]:
    """Tokens with every one-token argument braced (``\\frac1T`` -> ``\\frac{1}{T}``, ``^2`` -> ``^{2}``)."""
    return _prepare(TOKEN.findall(s))


Forms = tuple[tuple[tuple[str, ...], str], ...]


@cache
def forms(params: tuple[Param, ...], printed: tuple[tuple[str, str], ...]) -> Forms:
    """(token pattern, canonical name) for ``params``, each spelled as ``printed`` says (canonical -> LaTeX) or
    else as its vocabulary LaTeX; longest pattern first."""
    shown = dict(printed)
    taken = set(shown.values())
    out: list[tuple[tuple[str, ...], str]] = []
    for p in params:
        if p.name in shown:
            out.append((tuple(normal(shown[p.name])), p.name))
        elif p.latex not in taken:
            out.append((tuple(normal(p.latex)), p.name))
        for extra in SPELLINGS.get(p.name, ()):
            out.append((tuple(normal(extra)), p.name))
    out = [f for f in out if f[0]]
    return tuple(sorted(out, key=lambda f: -len(f[0])))


def spellings(paper: str, notation: tuple[tuple[str, str], ...], params: tuple[Param, ...]) -> Forms:
    """The forms of the vocabulary ``params`` as ``paper`` prints it, with a result's own ``notation`` on top."""
    printed = {**paper_notation(paper), **dict(notation)}
    return forms(params, tuple(sorted(printed.items())))


def _is_factor(t: str, *, end: bool) -> bool:
    if t.startswith(r"\zeta_") or re.fullmatch(r"\d+(?:\.\d+)?", t):
        return True
    return t in ((")", "}") if end else ("(", r"\min", r"\max"))


def tag(k: int) -> str:
    """The subscript of the ``k``-th placeholder: a digit, then letters (the Lark grammar reads no ``\\zeta_{10}``)."""
    if k < 10:
        return str(k)
    k -= 10
    out = ""
    while True:
        out = chr(ord("a") + k % 26) + out
        k = k // 26 - 1
        if k < 0:
            return out


def _rewrite(tok: list[str], table: Forms) -> tuple[str, dict[str, str]]:
    """:func:`replace` then :func:`spell`: the text and placeholder -> canonical name."""
    out, names = replace(tok, table)
    return spell(out), names


def replace(tok: list[str], table: Forms) -> tuple[list[str], dict[str, str]]:
    """Replace each canonical spelling by a placeholder ``\\zeta_{k}`` (one token); returns the tokens and
    placeholder -> canonical name. A token ``@name`` (an ASCII canonical name, :func:`parse_formula`) is that name."""
    index: dict[str, int] = {}
    out: list[str] = []
    i = 0
    while i < len(tok):
        if len(tok[i]) > 1 and tok[i][0] == "@":
            t = rf"\zeta_{{{tag(index.setdefault(tok[i][1:], len(index)))}}}"
            i += 1
        else:
            for pat, name in table:
                if tuple(tok[i : i + len(pat)]) == pat:
                    t = rf"\zeta_{{{tag(index.setdefault(name, len(index)))}}}"
                    i += len(pat)
                    break
            else:
                t = tok[i]
                i += 1
        out.append(t)
    return out, {f"zeta_{{{tag(k)}}}": name for name, k in index.items()}


def spell(tok: list[str]) -> str:
    """The text of ``tok`` with every product spelled out (the Lark grammar reads ``L(x)`` as a call)."""
    out: list[str] = []
    for t in tok:
        if out and _is_factor(out[-1], end=True) and _is_factor(t, end=False):
            out.append(r"\cdot")
        out.append(t)
    text = ""
    for t in out:  # a command needs a space before a letter, nothing else does
        text += (" " if text and re.search(r"\\[A-Za-z]+$", text) and t[:1].isalpha() else "") + t
    return text


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
    """The parts of a printed statement after each relation outside braces, brackets and parentheses (not the
    ``=`` of ``\\sum_{i=0}``), cut at trailing definitions."""
    s = re.split(r",\\ |,\\quad|,\s*\\text", statement)[0]
    cuts = [(m.start(), m.end()) for m in _SPLIT.finditer(s) if _depth(s, m.start()) == 0]
    if not cuts:
        return [s]
    return [s[a:b] for (_, a), (b, _) in zip(cuts, [*cuts[1:], (len(s), len(s))], strict=True)]


_SPLIT = re.compile(r"\\leq?(?![A-Za-z])|\\triangleq|(?<![<>])=")


def _depth(s: str, end: int) -> int:
    """How many groups ``({[`` are open at ``s[end]`` (escaped braces and ``\\{`` delimiters count too)."""
    depth = 0
    for ch in s[:end]:
        depth += {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}.get(ch, 0)
    return depth


# constructs no canonical formula contains: a statement with one is not comparable (checked before parsing,
# which is slow for long statements)
UNREADABLE = (r"\sum", r"\mathbb", r"\|", r"\nabla", r"\min", r"\max", r"\text", r"\mathcal C", r"\Phi", r"\times")


def to_sympy(latex: str, r: Result, params: Iterable[Param], *, user: bool) -> sp.Expr:
    """``latex``, printed in result ``r``, as a SymPy expression in canonical symbols; raises :class:`LatexError`.
    ``params``: the names in use (:func:`sfltheory.lexicon.all_params`). ``user``: ``r`` was loaded from a file of
    the user's, and is read as its terms were: ASCII canonical names (``F``, ``sigma2``) too."""
    notation = tuple(sorted(r.notation.items()))
    if user:
        return _to_sympy_user(latex, notation, tuple(params))
    return _to_sympy(latex, r.paper, notation, tuple(params))


@cache
def _to_sympy_user(latex: str, notation: tuple[tuple[str, str], ...], params: tuple[Param, ...]) -> sp.Expr:
    bad = [u for u in UNREADABLE if u in latex]
    if bad:
        raise LatexError(f"uses {bad[0]}, which no canonical formula contains")
    return parse_formula(latex, params, dict(notation))


@cache
def _to_sympy(latex: str, paper: str, notation: tuple[tuple[str, str], ...], params: tuple[Param, ...]) -> sp.Expr:
    table = spellings(paper, notation, params)
    tokens, names = replace(normal(latex), table)
    check_readable(tokens)
    return parse_text(spell(tokens), names, table, latex)


def check_readable(tokens: Iterable[str]) -> None:
    """Raise :class:`LatexError` when ``tokens`` (canonical spellings replaced) hold a construct of
    :data:`UNREADABLE`: what is left of a norm or an expectation is no canonical quantity."""
    text = "".join(tokens)
    bad = [u for u in UNREADABLE if u.replace(" ", "") in text]
    if bad:
        raise LatexError(f"uses {bad[0]}, which no canonical formula contains")


def forget() -> None:
    """Drop what is cached from a vocabulary no longer in use (the registry calls it when the user results it
    holds change)."""
    _to_sympy.cache_clear()
    _to_sympy_user.cache_clear()


def _parse(tokens: list[str], table: Forms, original: str, *, user: bool = False) -> sp.Expr:
    """Parse ``tokens`` summand by summand. ``user``: a user's formula, whose errors name the place and the close
    matches (the audit's messages are shorter: it only records why a statement is not comparable)."""
    text, names = _rewrite(tokens, table)
    return parse_text(text, names, table, original, user=user)


def parse_text(text: str, names: Mapping[str, str], table: Forms, original: str, *, user: bool = False) -> sp.Expr:
    """Parse ``text`` (placeholders for the canonical names ``names``, products spelled out) summand by summand."""
    try:
        from sympy.parsing.latex import parse_latex
    except ImportError as e:  # pragma: no cover - sympy without the parser
        raise LatexError(f"SymPy's LaTeX parser is unavailable ({e})") from None
    if user and re.search(r"[+\-]\s*(?:[+]|$)", text):  # '2+' would read as 2: the summands drop the empty one
        raise MalformedLatex(original.strip()[-24:], "an operator with nothing after it")
    parts = []
    for chunk in summands(text):  # the Earley parser is superlinear: one summand at a time
        try:
            part = latexcache.get(chunk)
            if part is None:
                part = parse_latex(chunk, backend="lark")
                if isinstance(part, sp.Expr):
                    latexcache.put(chunk, part)
        except ImportError as e:
            raise LatexError(f"the Lark backend of SymPy's LaTeX parser is not installed ({e})") from None
        except Exception as e:  # the parser raises its own error types
            if user:
                raise _malformed(e, chunk, names, table, original) from None
            raise LatexError(f"cannot parse: {type(e).__name__}") from None
        if not isinstance(part, sp.Expr):
            if user:
                raise MalformedLatex(_restore(chunk, names, table), "ambiguous: write products with \\cdot")
            raise LatexError("not a formula")
        parts.append(part)
    expr = sp.Add(*parts)
    table_ = {}
    for s in expr.free_symbols:
        if s.name in names:
            table_[s] = symbol(names[s.name])
        elif user:
            raise UnknownSymbol(s.name, _close(s.name, table))
        else:
            raise LatexError(f"'{s.name}' is no canonical parameter")
    for f in expr.atoms(AppliedUndef):
        if user:
            raise UnknownSymbol(type(f).__name__, _close(type(f).__name__, table))
        raise LatexError(f"'{type(f).__name__}' is no canonical parameter")
    return sp.sympify(expr.subs(table_, simultaneous=True))


def _restore(chunk: str, names: Mapping[str, str], table: Forms) -> str:
    """The rewritten text with each placeholder spelled back as the input spelled it (its first form)."""
    spelled: dict[str, str] = {}
    for pat, name in table:
        spelled.setdefault(name, "".join(pat))
    out = re.sub(r"\\cdot(?=\\zeta_\{)|(?<=\})\\cdot", "", chunk)
    for ph, name in names.items():
        out = out.replace("\\" + ph, spelled.get(name, name) + " ")
    return " ".join(out.split())


def _malformed(e: Exception, chunk: str, names: Mapping[str, str], table: Forms, original: str) -> LatexError:
    pos = getattr(e, "pos_in_stream", None)
    if isinstance(pos, int) and 0 <= pos < len(chunk):
        cmd = re.match(r"\\[A-Za-z]+", chunk[pos:])
        if cmd and type(e).__name__ == "UnexpectedCharacters":
            return UnknownSymbol(cmd.group(0), _close(cmd.group(0)[1:], table))
        near = _restore(chunk[max(0, pos - 12) : pos + 12], names, table)
        return MalformedLatex(near or original.strip()[-24:])
    return MalformedLatex(original.strip()[-24:], "it ends too early")


def _close(name: str, table: Forms) -> list[str]:
    """Canonical names that ``name`` resembles (by name, and by their LaTeX spelled without backslashes)."""
    by_form: dict[str, str] = {}
    for pat, canonical in table:
        by_form.setdefault(canonical, canonical)
        by_form.setdefault("".join(pat).replace("\\", "").replace("{", "").replace("}", ""), canonical)
    bare = name.replace("\\", "").replace("{", "").replace("}", "")
    found = difflib.get_close_matches(bare, list(by_form), n=6, cutoff=0.6)
    return list(dict.fromkeys(by_form[f] for f in found))[:3]


def unbalanced(s: str) -> str | None:
    """The text around an unbalanced brace (from the command it belongs to), or None when all are balanced."""
    stack: list[int] = []
    for i, ch in enumerate(s):
        if ch == "{" and (i == 0 or s[i - 1] != "\\"):
            stack.append(i)
        elif ch == "}" and (i == 0 or s[i - 1] != "\\"):
            if not stack:
                start = s.rfind("\\", 0, i)
                return s[max(start, 0) : i + 1].strip()
            stack.pop()
    if stack:
        start = s.rfind("\\", 0, stack[0])
        return s[start if start >= 0 else stack[0] :].strip()
    return None


_SEGMENT = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z][A-Za-z0-9_]*|[^\\A-Za-z]+")
# an identifier right after one of these is a decorated letter or words (\mathcal{F}, t_{\mathrm{server}}): as typed
_DECOR = (ONE_ARG - {r"\sqrt"}) | {r"\operatorname", r"\textrm", r"\mathit"}


def _user_tokens(s: str, table: Forms, names: frozenset[str]) -> list[str]:
    """Tokens of a user's formula: an identifier that is a canonical name (``eta_c``, ``sigma2``, ``F``) becomes
    ``@name`` unless it is itself a printed spelling; a longer identifier whose letters are no symbols is
    refused whole (``zeta``, not ``z``)."""
    single = {pat[0] for pat, _ in table if len(pat) == 1}
    letters = single | {n for n in names if len(n) == 1}
    out: list[str] = []
    prev: list[str] = []
    for m in _SEGMENT.finditer(s):
        seg = m.group(0)
        if seg[0].isalpha():
            in_text = bool(prev) and (prev[-1] in _DECOR or (len(prev) >= 2 and prev[-1] == "{" and prev[-2] in _DECOR))
            if seg in single:
                out.append(seg)
            elif seg in names and not in_text:
                out.append("@" + seg)
            elif in_text:
                out += TOKEN.findall(seg)
            else:
                base, sub = seg.split("_", 1) if "_" in seg else (seg, None)
                if len(base) > 1 and not {c for c in base if c.isalpha()} <= letters:
                    raise UnknownSymbol(seg, _close(seg, table))
                # a product of one-letter names (FL, LT): each letter as a spelling or as its canonical name
                out += ["@" + c if c.isalpha() and c not in single and c in names else c for c in TOKEN.findall(base)]
                out += [] if sub is None else ["_", *TOKEN.findall(sub)]
        elif seg == r"\zeta" and not any(pat[0] == seg for pat, _ in table):  # would read as a placeholder
            raise UnknownSymbol(seg, _close("zeta", table))
        else:
            out += TOKEN.findall(seg)
        if seg.strip():
            prev.append(seg.strip())
    for i, t in enumerate(out):  # \frac12 is 1/2: a bare argument is one character, not the number 12
        if t in (r"\frac", r"\tfrac", r"\dfrac"):
            for j in (i + 1, i + 2):
                if j < len(out) and out[j].isdigit() and len(out[j]) > 1:
                    out[j : j + 1] = [out[j][0], out[j][1:]]
                elif j < len(out) and out[j] == "{":
                    break
    # \min\{a, b\}: braces as delimiters are parentheses to the parser
    return ["(" if t == r"\{" else ")" if t == r"\}" else t for t in out]


def parse_formula(
    latex: str, params: Iterable[Param] | None = None, notation: Mapping[str, str] | None = None
) -> sp.Expr:
    """A user's formula (no relation) as SymPy in canonical symbols.

    ``params``: the names it may use (default: the built-in vocabulary, :func:`sfltheory.builtin.builtin_params`;
    a user's names are passed by whoever reads their file); ``notation``: canonical name -> how the formula spells
    it, over the vocabulary's LaTeX. Raises :class:`MalformedLatex`, :class:`UnknownSymbol` or
    :class:`BadRelation` (a relation where an expression belongs).
    """
    if not latex.strip():
        raise MalformedLatex("", "empty formula")
    plist = tuple(builtin_params() if params is None else params)
    table = forms(plist, tuple(sorted((notation or {}).items())))
    near = unbalanced(latex)
    if near is not None:
        raise MalformedLatex(near, "unbalanced braces")
    rels = _relations(latex)
    if rels:
        raise BadRelation(f"a formula, not a relation: found '{rels[0][1]}'")
    return _parse(_prepare(_user_tokens(latex, table, frozenset(p.name for p in plist))), table, latex, user=True)


def _relations(latex: str) -> list[tuple[int, str, int]]:
    """Top-level relations: (start, as written, end)."""
    out = []
    depth = 0
    for m in _REL_SCAN.finditer(latex):
        t = m.group(0)
        if t in ("{", "(", "["):
            depth += 1
        elif t in ("}", ")", "]"):
            depth -= 1
        elif depth == 0 and t in RELATIONS:
            out.append((m.start(), t, m.end()))
    return out


def parse_relation(
    latex: str, params: Iterable[Param] | None = None, notation: Mapping[str, str] | None = None
) -> tuple[sp.Expr, Relation, sp.Expr]:
    """``lhs REL rhs`` (one relation among \\le, <, =, \\ge, >) as (lhs, relation, rhs) in canonical symbols."""
    near = unbalanced(latex)
    if near is not None:
        raise MalformedLatex(near, "unbalanced braces")
    rels = _relations(latex)
    if not rels:
        raise BadRelation(r"no relation: write the condition as 'lhs REL rhs' with REL one of \le, <, =, \ge, >")
    if len(rels) > 1:
        raise BadRelation(f"{len(rels)} relations ({', '.join(r[1] for r in rels)}); write one condition per entry")
    start, rel, end = rels[0]
    canonical = RELATIONS[rel]
    if canonical is None:
        raise BadRelation(f"bad relation '{rel}': one of \\le, <, =, \\ge, > (as \\le, \\leq, <=, \\ge, \\geq, >=)")
    lhs = parse_formula(latex[:start], params, notation)
    rhs = parse_formula(latex[end:], params, notation)
    return lhs, canonical, rhs  # type: ignore[return-value]


# --- a parsed formula's value (a user's formula must be a finite real number: sfltheory.userresults) ------------
_INFINITE = (sp.zoo, sp.oo, -sp.oo, sp.nan)


def never_real(e: sp.Expr) -> str:
    """What ``e`` is when SymPy finds it no finite real number whatever its (positive) parameters -- an infinity
    (zoo: a division by zero or log(0)), nan, or an imaginary value -- else ''."""
    e = sp.sympify(e)
    if e.has(*_INFINITE) or e.is_finite is False:
        return f"{e} (an infinity or undefined: a division by zero, log(0) or \\infty)"
    if e.is_extended_real is False:
        return f"{e} (not real: the square root or log of a negative number)"
    return ""


def gives(v: sp.Expr) -> str:
    """'' when ``v`` (a formula at numbers) is a finite real number, else what it is."""
    try:
        n = sp.N(v, 15)
        if n.free_symbols or n.has(*_INFINITE):
            return str(n)
        re_, im = n.as_real_imag()
        ok = abs(im) <= 1e-12 * abs(re_) and bool(sp.Abs(re_).is_finite)
    except (TypeError, ValueError, ArithmeticError) as e:
        return f"no number ({type(e).__name__})"
    return "" if ok else str(sp.N(n, 6))
