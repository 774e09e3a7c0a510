r"""Results of your own: a bound declared in a TOML or YAML file, loaded next to the catalogue.

A file holds one or more results (``[[results]]``) and, optionally, new vocabulary names
(``[[vocabulary]]``). Terms, hypotheses and defaults are LaTeX in the canonical vocabulary, parsed by SymPy's
LaTeX parser (:mod:`sfltheory.latex`); assumptions are named by the keys the catalogue already has, or written
inline. ``examples/my_theorem.toml`` is a worked example; ``docs/guide/own-theorem.md`` walks through it::

    [[results]]
    id = "mine/sgd"                        # paper/label[@edition]; the paper key is not a built-in one
    kind = "theorem"
    title = "SGD on a smooth nonconvex objective"
    reference = "A. Author, B. Author, \"Title\", Venue, 2025"
    where = { label = "Theorem 1", equation = "(3)", section = "Sec. 2" }
    lhs = "min over t < T of E||grad f(x^t)||^2"
    step = "eta"
    assumptions = ["smoothness", "bounded_variance"]
    terms = [
      { name = "optimisation", latex = '\frac{2F}{\eta T}', meaning = "initial gap over the run's length" },
      { name = "noise", latex = '\eta L \sigma^2', meaning = "gradient noise" },
    ]
    hypotheses = [{ name = "eta<=1/L", latex = '\eta \le \frac{1}{L}', kind = "step_size" }]

Loading is explicit: ``sfltheory --results FILE`` (repeatable) or the environment variable
``SFLTHEORY_RESULTS`` (files or directories of ``*.toml``/``*.yaml``/``*.yml``, separated by ``os.pathsep``),
read by the command line; from Python, :func:`sfltheory.registry.load_user_results` or
:func:`sfltheory.registry.using`. Nothing registers itself at import.

Every error is one line: the file, the result, the field path and the rule broken, e.g.
``mine.toml: result 'mine/sgd': terms[1].latex: unknown symbol 'zeta' (did you mean eta?)``.
"""

from __future__ import annotations

import difflib
import keyword
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import sympy as sp

from . import datafiles
from . import latex as tex
from . import vocabulary as vocab
from .assumptions import ALL as BUILTIN_ASSUMPTIONS
from .assumptions import Assumption
from .builtin import PAPERS, builtin_results
from .builtin import builtin_params as builtin_vocabulary
from .defaults import Default
from .errors import SflTheoryError
from .result import Hypothesis, HypothesisKind, Kind, Provenance, Relation, Result, Source, Term
from .vocabulary import Domain, Group, Param

ENV = "SFLTHEORY_RESULTS"
SUFFIXES = (".toml", ".yaml", ".yml")

KINDS: tuple[str, ...] = get_args(Kind)
HYPOTHESIS_KINDS: tuple[str, ...] = get_args(HypothesisKind)
SOURCES: tuple[str, ...] = get_args(Source)
DOMAINS: tuple[str, ...] = get_args(Domain)
GROUPS: tuple[str, ...] = get_args(Group)

TOP_FIELDS = ("results", "vocabulary")
RESULT_FIELDS = ("id", "kind", "title", "reference", "where", "lhs", "statement", "rate", "step", "assumptions",
                 "terms", "hypotheses", "defaults", "notation", "notes", "experiment")  # fmt: skip
# how `sfltheory verify` runs a user result (sfltheory.experiments.Experiment's fields; checked there)
EXPERIMENT_FIELDS = ("algorithm", "step_to", "lhs", "params", "algorithm_only", "noise", "M", "at_choice", "note",
                     "sampled", "d", "d_c")  # fmt: skip
RESULT_REQUIRED = ("id", "kind", "title", "reference", "where", "lhs", "terms")
WHERE_FIELDS = ("label", "equation", "section")
TERM_FIELDS = ("name", "latex", "meaning")
HYPOTHESIS_FIELDS = ("name", "latex", "kind", "source", "where", "group", "note")
DEFAULT_FIELDS = ("name", "latex", "rule")
ASSUMPTION_FIELDS = ("key", "name", "statement", "introduces", "note")
PARAM_FIELDS = ("name", "latex", "meaning", "domain", "group", "dimension")

_ID = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)/([A-Za-z0-9][A-Za-z0-9_.-]*)(?:@([A-Za-z0-9][A-Za-z0-9_.-]*))?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class UserResultError(SflTheoryError):
    """A user's results file that cannot be loaded: ``file: result 'id': field: rule``, one line."""

    def __init__(self, file: str, rule: str, *, result: str | None = None, at: str = "") -> None:
        self.file = file
        self.result = result
        self.field = at
        parts = [file, *([f"result '{result}'"] if result else []), *([at] if at else []), rule]
        super().__init__(" ".join(": ".join(parts).split()))  # one line, whatever the parser said


@dataclass(frozen=True)
class UserResults:
    """What a set of files declares: the results, the new vocabulary names, each paper's reference and the file
    each result comes from."""

    results: tuple[Result, ...] = ()
    params: tuple[Param, ...] = ()
    references: Mapping[str, str] = field(default_factory=dict)
    origins: Mapping[str, str] = field(default_factory=dict)  # result id -> file
    experiments: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # result id -> its [experiment]


# --- files ------------------------------------------------------------------------------------------------
def expand(paths: Iterable[str | os.PathLike[str]], source: str = "--results") -> list[Path]:
    """The files ``paths`` name: a file as is, a directory as its ``*.toml``, ``*.yaml`` and ``*.yml`` (sorted)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out += sorted(f for f in p.iterdir() if f.suffix in SUFFIXES and f.is_file())
        elif p.is_file():
            if p.suffix not in SUFFIXES:
                raise UserResultError(str(p), f"{source}: a results file ends in .toml, .yaml or .yml")
            out.append(p)
        else:
            raise UserResultError(str(p), f"{source}: no such file or directory")
    return list(dict.fromkeys(out))


def from_environment(value: str | None = None) -> list[Path]:
    """The files ``SFLTHEORY_RESULTS`` names (``value`` instead of the environment when given)."""
    raw = os.environ.get(ENV, "") if value is None else value
    return expand([x for x in raw.split(os.pathsep) if x.strip()], source=ENV)


def read(path: Path) -> Any:
    """The file's content as plain data (TOML through tomllib, YAML through PyYAML)."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UserResultError(name, f"cannot read it ({e})") from None
    try:
        return datafiles.parse(text, path.suffix)
    except datafiles.DataFileError as e:
        raise UserResultError(name, str(e)) from None


# --- field readers ----------------------------------------------------------------------------------------
@dataclass
class _At:
    """Where an error is: the file and (once known) the result id."""

    file: str
    result: str | None = None

    def fail(self, at: str, rule: str) -> UserResultError:
        return UserResultError(self.file, rule, result=self.result, at=at)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _hint(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _table(at: _At, path: str, obj: Any, fields: Sequence[str], required: Sequence[str]) -> dict[str, Any]:
    if not isinstance(obj, Mapping):
        raise at.fail(path, f"must be a table of {', '.join(fields)} (got {_kind(obj)})")
    for k in obj:
        if k not in fields:
            raise at.fail(path, f"unknown field '{k}'{_hint(str(k), fields)} (known: {', '.join(fields)})")
    for k in required:
        if k not in obj or obj[k] is None:
            raise at.fail(path, f"missing field '{k}'")
    return dict(obj)


def _kind(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", list: "a list", dict: "a table"}.get(
        type(v), "a " + type(v).__name__
    )


def _text(at: _At, path: str, v: Any, *, empty: bool = False, numbers: bool = False) -> str:
    if numbers and isinstance(v, int | float) and not isinstance(v, bool):
        v = f"{v:g}"
    if not isinstance(v, str):
        raise at.fail(path, f"must be a string (got {_kind(v)})")
    if not empty and not v.strip():
        raise at.fail(path, "must not be empty")
    return v


def _opt(at: _At, d: Mapping[str, Any], prefix: str, key: str, default: str = "") -> str:
    return default if d.get(key) is None else _text(at, _join(prefix, key), d[key], empty=True)


def _list(at: _At, path: str, v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise at.fail(path, f"must be a list (got {_kind(v)})")
    return v


def _choice(at: _At, path: str, v: Any, choices: Sequence[str], what: str) -> str:
    s = _text(at, path, v)
    if s not in choices:
        raise at.fail(path, f"bad {what} '{s}' (one of {', '.join(choices)}{_hint(s, choices)})")
    return s


# --- vocabulary -------------------------------------------------------------------------------------------
def _param(at: _At, path: str, raw: Any, known: Mapping[str, Param]) -> Param:
    d = _table(at, path, raw, PARAM_FIELDS, ("name", "latex", "meaning", "domain"))
    name = _text(at, f"{path}.name", d["name"])
    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise at.fail(f"{path}.name", f"'{name}' is no name: letters, digits and '_', starting with a letter")
    latex = _text(at, f"{path}.latex", d["latex"])
    meaning = _text(at, f"{path}.meaning", d["meaning"])
    domain = _choice(at, f"{path}.domain", d["domain"], DOMAINS, "domain")
    group = _choice(at, f"{path}.group", d["group"], GROUPS, "group") if d.get("group") is not None else None
    dimension = ""
    if d.get("dimension") is not None:
        dimension = _text(at, f"{path}.dimension", d["dimension"])
        try:
            vocab.parse_dimension(dimension)
        except ValueError as e:
            raise at.fail(f"{path}.dimension", str(e)) from None
    kind = group or ("count" if domain in ("count", "count0") else "constant")
    p = Param(name, latex, meaning, domain, kind, dimension)  # type: ignore[arg-type]
    old = known.get(name)
    if old is not None and old != p:
        raise at.fail(f"{path}.name", f"'{name}' is already in the vocabulary ({old.meaning}): use it as it is, "
                                      "or pick another name")  # fmt: skip
    try:
        near = tex.unbalanced(latex)
        if near is not None:
            raise tex.MalformedLatex(near, "unbalanced braces")
    except tex.LatexError as e:
        raise at.fail(f"{path}.latex", str(e)) from None
    twin = next((q for q in known.values() if q.latex == latex and q.name != name), None)
    if twin is not None:
        raise at.fail(f"{path}.latex", f"'{latex}' already spells '{twin.name}': pick another symbol")
    return p


# --- one result -------------------------------------------------------------------------------------------
class _Builder:
    def __init__(self, at: _At, file: Path, universe: tuple[Param, ...], assumptions: Mapping[str, Assumption]):
        self.at = at
        self.file = file
        self.universe = universe
        self.names = {p.name for p in universe}
        self.assumptions = assumptions
        self.notation: dict[str, str] = {}
        self.where = ""

    def formula(self, path: str, raw: Any) -> sp.Expr:
        s = _text(self.at, path, raw)
        try:
            e = tex.parse_formula(s, self.universe, self.notation)
        except tex.LatexError as err:
            raise self.at.fail(path, str(err)) from None
        self.real(path, s, e)
        return e

    def relation(self, path: str, raw: Any) -> tuple[sp.Expr, Relation, sp.Expr]:
        s = _text(self.at, path, raw)
        try:
            lhs, rel, rhs = tex.parse_relation(s, self.universe, self.notation)
        except tex.LatexError as e:
            raise self.at.fail(path, str(e)) from None
        self.real(path, s, lhs, "the left side of ")
        self.real(path, s, rhs, "the right side of ")
        return lhs, rel, rhs

    def real(self, path: str, text: str, e: sp.Expr, side: str = "") -> None:
        """Refuse a formula that is no finite real number whatever its parameters (zoo, oo, nan, imaginary)."""
        what = tex.never_real(e)
        if what:
            raise self.at.fail(path, f"{side}'{text}' is not a finite real number for any value of its parameters: "
                                     f"it is {what}")  # fmt: skip

    def name(self, path: str, raw: Any) -> str:
        """A parameter named canonically (``eta_c``) or by its LaTeX (``\\eta_c``)."""
        s = _text(self.at, path, raw)
        if s in self.names:
            return s
        try:
            e = tex.parse_formula(s, self.universe, self.notation)
        except tex.LatexError as err:
            raise self.at.fail(path, f"unknown parameter '{s}' ({err})") from None
        if not isinstance(e, sp.Symbol):
            raise self.at.fail(path, f"'{s}' is a formula, not one parameter")
        return e.name

    def build(self, d: dict[str, Any]) -> Result:
        at = self.at
        paper, label, edition = self.ident(d["id"])
        kind = _choice(at, "kind", d["kind"], KINDS, "kind")
        if d.get("notation") is not None:
            raw = d["notation"]
            if not isinstance(raw, Mapping):
                raise at.fail("notation", f"must be a table of canonical name = LaTeX (got {_kind(raw)})")
            for k, v in raw.items():
                if k not in self.names:
                    raise at.fail(f"notation.{k}", f"unknown parameter '{k}'{_hint(str(k), self.names)}")
                self.notation[str(k)] = _text(at, f"notation.{k}", v)
        where = d["where"]
        if isinstance(where, Mapping):
            w = _table(at, "where", where, WHERE_FIELDS, ("label",))
            label_text = _text(at, "where.label", w["label"], numbers=True)
            equation = None if w.get("equation") is None else _text(at, "where.equation", w["equation"], numbers=True)
            section = "" if w.get("section") is None else _text(at, "where.section", w["section"], numbers=True)
        else:
            label_text, equation, section = _text(at, "where", where), None, ""
        self.where = label_text  # a hypothesis printed nowhere else is printed in the result
        prov = Provenance(seed=self.file.name, label=label_text, equation=equation, section=section,
                          reference=_text(at, "reference", d["reference"]))  # fmt: skip
        defaults = tuple(self.default(f"defaults[{i}]", x) for i, x in enumerate(_seq(at, d, "defaults")))
        terms = tuple(self.term(f"terms[{i}]", x) for i, x in enumerate(_list(at, "terms", d["terms"])))
        if not terms:
            raise at.fail("terms", "must hold at least one term")
        _unique(at, "terms", [t.name for t in terms])
        step = None if d.get("step") is None else self.name("step", d["step"])
        hyps = tuple(self.hypothesis(f"hypotheses[{i}]", x) for i, x in enumerate(_seq(at, d, "hypotheses")))
        _unique(at, "hypotheses", [h.name for h in hyps])
        self.check_step(step, hyps, defaults)
        assumptions = tuple(self.assumption(f"assumptions[{i}]", x) for i, x in enumerate(_seq(at, d, "assumptions")))
        _unique(at, "assumptions", [a.key for a in assumptions])
        notes = tuple(_text(at, f"notes[{i}]", x) for i, x in enumerate(_seq(at, d, "notes")))
        rate = None if d.get("rate") is None else _text(at, "rate", d["rate"])
        r = Result(
            paper=paper, label=label, kind=kind, title=_text(at, "title", d["title"]), provenance=prov,  # type: ignore[arg-type]
            lhs=_text(at, "lhs", d["lhs"]), terms=terms, hypotheses=hyps, assumptions=assumptions, edition=edition,
            statement=_opt(at, d, "", "statement"), rate=rate, step=step, defaults=defaults,
            notation=dict(self.notation), notes=notes,
        )  # fmt: skip
        bad = not_real_at(r, {p.name: p for p in self.universe})
        if bad is not None:
            path, side, point, value = bad
            raise at.fail(path, f"{side}'{_latex_at(d, path)}' is not a finite real number at {point}: it gives "
                                f"{value} ({SAMPLED})")  # fmt: skip
        return r

    def ident(self, raw: Any) -> tuple[str, str, str]:
        rid = _text(self.at, "id", raw)
        m = _ID.fullmatch(rid)
        if m is None:
            raise self.at.fail("id", f"'{rid}' is no result id: write paper/label or paper/label@edition "
                                     "(letters, digits, '_', '-', '.')")  # fmt: skip
        if m.group(1) in PAPERS:
            raise self.at.fail("id", f"paper key '{m.group(1)}' is a built-in paper; give your results a paper key "
                                     "of their own")  # fmt: skip
        return m.group(1), m.group(2), m.group(3) or ""

    def term(self, path: str, raw: Any) -> Term:
        d = _table(self.at, path, raw, TERM_FIELDS, ("name", "latex"))
        return Term(name=_text(self.at, f"{path}.name", d["name"]), expr=self.formula(f"{path}.latex", d["latex"]),
                    meaning=_opt(self.at, d, path, "meaning"))  # fmt: skip

    def hypothesis(self, path: str, raw: Any) -> Hypothesis:
        at = self.at
        d = _table(at, path, raw, HYPOTHESIS_FIELDS, ("name", "latex", "kind"))
        name = _text(at, f"{path}.name", d["name"])
        kind = _choice(at, f"{path}.kind", d["kind"], HYPOTHESIS_KINDS, "kind")
        source = "statement"
        if d.get("source") is not None:
            source = _choice(at, f"{path}.source", d["source"], SOURCES, "source")
        lhs, rel, rhs = self.relation(f"{path}.latex", d["latex"])
        if kind == "step_size":
            if rel in (">=", ">"):  # bound >= step: the step on the left, as every step-size branch is stored
                lhs, rel, rhs = rhs, "<=" if rel == ">=" else "<", lhs
            elif rel == "==":
                raise at.fail(f"{path}.latex", r"bad relation '=' for a step_size condition: write step \le bound")
        return Hypothesis(name=name, lhs=lhs, rel=rel, rhs=rhs, kind=kind, printed=d["latex"], source=source,  # type: ignore[arg-type]
                          where=_opt(at, d, path, "where", self.where), group=_opt(at, d, path, "group"),
                          note=_opt(at, d, path, "note"))  # fmt: skip

    def default(self, path: str, raw: Any) -> Default:
        d = _table(self.at, path, raw, DEFAULT_FIELDS, DEFAULT_FIELDS)
        name = self.name(f"{path}.name", d["name"])
        expr = self.formula(f"{path}.latex", d["latex"])
        if vocab.symbol(name) in expr.free_symbols:
            raise self.at.fail(f"{path}.latex", f"defines '{name}' by itself")
        return Default(name=name, expr=expr, rule=_text(self.at, f"{path}.rule", d["rule"]))

    def assumption(self, path: str, raw: Any) -> Assumption:
        at = self.at
        if isinstance(raw, str):
            if raw not in self.assumptions:
                raise at.fail(path, f"unknown assumption '{raw}'{_hint(raw, self.assumptions)} (the catalogue's keys: "
                                    "`sfltheory list --json`; or write it inline with key, name, statement, "
                                    "introduces)")  # fmt: skip
            return self.assumptions[raw]
        d = _table(at, path, raw, ASSUMPTION_FIELDS, ("key", "name", "statement"))
        key = _text(at, f"{path}.key", d["key"])
        if key in self.assumptions:
            raise at.fail(f"{path}.key", f"'{key}' is the catalogue's assumption '{self.assumptions[key].name}': "
                                         "name it by its key alone, or pick another key")  # fmt: skip
        intro = tuple(self.name(f"{path}.introduces[{i}]", x) for i, x in enumerate(_seq(at, d, "introduces", path)))
        return Assumption(
            key=key, name=_text(at, f"{path}.name", d["name"]),
            statement=_text(at, f"{path}.statement", d["statement"]), introduces=intro, note=_opt(at, d, path, "note"),
            unmeasured=f"declared in {self.file.name}; `sfltheory measure` has no estimator for it" if intro else "",
        )  # fmt: skip

    def check_step(self, step: str | None, hyps: Sequence[Hypothesis], defaults: Sequence[Default]) -> None:
        branches = [(i, h) for i, h in enumerate(hyps) if h.kind == "step_size"]
        if step is None:
            if branches:
                raise self.at.fail("", f"missing field 'step': hypotheses[{branches[0][0]}] is a step_size condition, "
                                       "which bounds the result's step size (e.g. step = \"eta\")")  # fmt: skip
            return
        s = vocab.symbol(step)
        family = {step} | {d.name for d in defaults if s in d.expr.free_symbols}
        for i, h in branches:
            if not family & {x.name for x in h.lhs.free_symbols | h.rhs.free_symbols}:
                also = f" (or a step derived from it: {', '.join(sorted(family - {step}))})" if len(family) > 1 else ""
                raise self.at.fail(
                    f"hypotheses[{i}].latex", f"a step_size condition must bound the step '{step}'{also}"
                )
        if not branches:
            raise self.at.fail("step", f"no hypothesis of kind step_size bounds '{step}'")


def _seq(at: _At, d: Mapping[str, Any], key: str, prefix: str = "") -> list[Any]:
    return [] if d.get(key) is None else _list(at, _join(prefix, key), d[key])


def _unique(at: _At, path: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for i, n in enumerate(names):
        if n in seen:
            raise at.fail(f"{path}[{i}].name", f"'{n}' names two entries")
        seen.add(n)


# --- every formula a finite real number -------------------------------------------------------------------
# The k-th sampled point gives each parameter the k-th value of its domain: interior values (a bound may be void
# at a boundary, 1/tau at tau = 0), and small steps and smoothing radii, as step conditions allow.
SAMPLES: dict[str, tuple[str, ...]] = {
    "positive": ("1", "2", "1/2", "10"), "nonneg": ("1", "2", "1/2", "10"), "real": ("1", "2", "1/2", "10"),
    "count": ("1", "2", "10", "100"), "count0": ("1", "2", "10", "100"), "fraction": ("1", "1/2", "1/4", "1/10"),
}  # fmt: skip
SMALL = ("1/1000", "1/100", "1/10000", "1/1000")  # group "step" and the ZO smoothing radius lam
SAMPLED = (
    "every term, default and hypothesis side must be a finite real number wherever the hypotheses that condition "
    "it hold: fix the formula or state the hypothesis that excludes these values"
)


def _sample(p: Param | None, k: int) -> sp.Float:
    """The k-th value of ``p``: a 30-digit float, not an exact rational (T^(T^T) at T = 100 would be computed
    as an integer of 10^200 digits)."""
    small = p is not None and (p.group == "step" or p.name == "lam")
    row = SMALL if small else SAMPLES.get(p.domain if p is not None else "positive", SAMPLES["positive"])
    return sp.Float(sp.Rational(row[k]), 30)


def _holds(h: Hypothesis, values: Mapping[sp.Symbol, sp.Expr]) -> bool:
    lhs, rhs = h.lhs.subs(values), h.rhs.subs(values)
    if tex.gives(lhs) or tex.gives(rhs):
        return False
    a, b = float(sp.N(lhs, 15).as_real_imag()[0]), float(sp.N(rhs, 15).as_real_imag()[0])
    tol = 1e-9 * max(abs(a), abs(b))  # as evaluation checks them: non-strict up to rounding, strict exactly
    eq = abs(a - b) <= h.atol + h.rtol * abs(b)
    return {"<=": a <= b + tol, "<": a < b, ">=": a >= b - tol, ">": a > b, "==": eq}[h.rel]


def not_real_at(r: Result, params: Mapping[str, Param]) -> tuple[str, str, str, str] | None:
    """The first formula of ``r`` that is not a finite real number at a sampled point where the hypotheses that
    condition it hold (all of them for a term; the others for a hypothesis; those that do not read the defaulted
    name for a default): (field path, which side, the point, what it gives); None when there is none."""
    hyps = r.hypotheses
    reads = [h.lhs.free_symbols | h.rhs.free_symbols for h in hyps]
    todo: list[tuple[str, str, sp.Expr, set[int]]] = [
        (f"terms[{i}].latex", "", t.expr, set()) for i, t in enumerate(r.terms)
    ]
    todo += [(f"defaults[{i}].latex", "", d.expr, {j for j, s in enumerate(reads) if vocab.symbol(d.name) in s})
             for i, d in enumerate(r.defaults)]  # fmt: skip
    for i, h in enumerate(hyps):
        todo += [(f"hypotheses[{i}].latex", "the left side of ", h.lhs, {i})]
        todo += [(f"hypotheses[{i}].latex", "the right side of ", h.rhs, {i})]
    names: set[sp.Symbol] = set().union(*(e.free_symbols for _, _, e, _ in todo))
    names |= {vocab.symbol(d.name) for d in r.defaults}
    for k in range(len(SMALL)):
        values: dict[sp.Symbol, sp.Expr] = {s: _sample(params.get(s.name), k) for s in names}
        for _ in range(2):  # a default may read another one's value
            for d in r.defaults:
                v = d.expr.subs(values)
                if not tex.gives(v):
                    values[vocab.symbol(d.name)] = v
        ok = [_holds(h, values) for h in hyps]
        for path, side, e, free in todo:
            if all(ok[j] for j in range(len(hyps)) if j not in free):
                what = tex.gives(e.subs(values))
                if what:
                    shown = ", ".join(f"{s.name}={_num(values[s])}" for s in sorted(e.free_symbols, key=str))
                    return path, side, shown, what
    return None


def _num(v: sp.Expr) -> str:
    return f"{float(v):g}" if not tex.gives(v) else str(v)


def _latex_at(d: Mapping[str, Any], path: str) -> str:
    """The LaTeX a result's field path (``terms[1].latex``) holds, as the file writes it."""
    m = re.fullmatch(r"(\w+)\[(\d+)\]\.latex", path)
    return str(d[m.group(1)][int(m.group(2))]["latex"]) if m else ""


# --- the set ----------------------------------------------------------------------------------------------
def _catalogue_assumptions(builtin: Iterable[Result]) -> dict[str, Assumption]:
    out = {a.key: a for a in BUILTIN_ASSUMPTIONS}
    for r in builtin:
        for a in r.assumptions:
            out.setdefault(a.key, a)
    return out


def load(
    paths: Iterable[str | os.PathLike[str]],
    *,
    builtin: Sequence[Result] | None = None,
    builtin_params: Sequence[Param] | None = None,
) -> UserResults:
    """Read and check every file ``paths`` names (see :func:`expand`). ``builtin``/``builtin_params``: the
    catalogue and vocabulary the files join (default: the built-in ones, :mod:`sfltheory.builtin`)."""
    files = expand(paths)
    cat = list(builtin_results() if builtin is None else builtin)
    base = {p.name: p for p in (builtin_vocabulary() if builtin_params is None else builtin_params)}
    raw: list[tuple[Path, dict[str, Any]]] = []
    declared: dict[str, Param] = {}
    for f in files:
        at = _At(str(f))
        data = read(f)
        if data is None:
            data = {}
        d = _table(at, "", data, TOP_FIELDS, ("results",))
        for i, x in enumerate(_seq(at, d, "vocabulary")):
            p = _param(at, f"vocabulary[{i}]", x, {**base, **declared})
            declared[p.name] = p
        raw.append((f, d))
    universe = (*base.values(), *declared.values())
    assumptions = _catalogue_assumptions(cat)
    ids = {r.id: "the catalogue" for r in cat}
    results: list[Result] = []
    refs: dict[str, str] = {}
    origins: dict[str, str] = {}
    experiments: dict[str, Mapping[str, Any]] = {}
    for f, d in raw:
        items = _list(_At(str(f)), "results", d["results"])
        if not items:
            raise _At(str(f)).fail("results", "must hold at least one result")
        for i, x in enumerate(items):
            at = _At(str(f))
            if isinstance(x, Mapping) and x.get("id") is not None:
                at.result = _text(at, f"results[{i}].id", x["id"])  # errors name the result from here on
                r_d = _table(at, "", x, RESULT_FIELDS, RESULT_REQUIRED)
            else:
                r_d = _table(at, f"results[{i}]", x, RESULT_FIELDS, RESULT_REQUIRED)
            r = _Builder(at, f, universe, assumptions).build(r_d)
            if r.id in ids:
                raise at.fail("id", f"duplicate result id '{r.id}' (also in {ids[r.id]})")
            ids[r.id] = str(f)
            if r.paper in refs and refs[r.paper] != r.provenance.reference:
                raise at.fail("reference", f"paper '{r.paper}' has another reference in an earlier result: give "
                                           "one citation per paper key")  # fmt: skip
            refs[r.paper] = r.provenance.reference
            origins[r.id] = str(f)
            if r_d.get("experiment") is not None:
                experiments[r.id] = _table(at, "experiment", r_d["experiment"], EXPERIMENT_FIELDS, ("algorithm",))
            results.append(r)
    return UserResults(results=tuple(results), params=tuple(declared.values()), references=refs, origins=origins,
                       experiments=experiments)  # fmt: skip
