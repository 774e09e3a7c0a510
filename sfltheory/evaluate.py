"""Numeric evaluation of results: parameters resolved and checked, bounds, and hypothesis checks.

Everything is vectorised: parameters may be scalars or NumPy arrays (broadcast together), and each
result's expressions are lambdified once (with common-subexpression elimination) and cached, so a sweep
over 10^6 points is one call. The compiled calls live in :mod:`sfltheory.numeric` (every entry point hands
them NumPy float64 values, so x/0 is inf everywhere); the largest admissible step in :mod:`sfltheory.stepsize`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from . import defaults, fixed, lexicon
from .defaults import Default
from .errors import MissingParametersError, NoBoundError, ParameterError
from .numeric import (
    FLOAT_MAX,
    ArrayLike,
    Value,
    as_float64,
    call,
    call_bounded,
    call_finite,
    compiled,
    exact,
    symbols_of,
    to_mp,
)
from .registry import editions, get, results
from .result import Hypothesis, Result

__all__ = [
    "ArrayLike",
    "Evaluation",
    "HypothesisCheck",
    "Resolved",
    "Value",
    "as_result",
    "bound_function",
    "bound_value",
    "check_hypothesis",
    "evaluate",
    "merge_params",
    "missing_hint",
    "not_",
    "refuse_unused",
    "resolve",
    "resolve_full",
]

# (smaller, larger): a given smaller > larger is bad input.
_ORDER_RULES: tuple[tuple[str, str, str], ...] = (
    ("d_c", "d", "the client side cannot hold more parameters than the model"),
    ("d_s", "d", "the server side cannot hold more parameters than the model"),
    ("n", "M", "cannot sample more clients per round than there are clients"),
)

_DOMAIN_RULE = {
    "positive": "must be > 0",
    "nonneg": "must be >= 0",
    "count": "must be an integer >= 1",
    "count0": "must be an integer >= 0",
    "fraction": "must be in (0, 1]",
    "real": "must be a finite real number",
}


def as_result(result: Result | str) -> Result:
    """A result, or the one a string id names (an unknown or non-string id is refused with the rule)."""
    if isinstance(result, Result):
        return result
    return get(result)


def merge_params(result: Result, params: Mapping[str, ArrayLike] | None, kw: Mapping[str, ArrayLike]) -> dict[str, Any]:
    """``params`` and keyword arguments as one mapping: a name in both is an error, not a silent override."""
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    for k in params:
        if not isinstance(k, str):
            raise ParameterError(repr(k), "a parameter name must be a string")
        if k in kw:
            raise ParameterError(k, "given twice (in params and as a keyword argument)")
    return {**params, **kw}


def _as_array(key: str, raw: Any) -> np.ndarray:
    """A parameter value as a float array: real numbers only (no bool, complex, string or None), not empty, and
    within the float range (an int beyond ~1.8e308 is refused, not an OverflowError)."""
    arr = np.asarray(raw) if not isinstance(raw, (bool, np.bool_)) else np.asarray(raw, dtype=bool)
    if arr.dtype == bool:
        raise ParameterError(key, f"must be a number, not a boolean (got {raw!r})")
    if arr.dtype.kind == "c":
        raise ParameterError(key, f"must be a real number (got complex {_short(raw)})")
    if arr.dtype.kind == "O":
        try:
            arr = np.asarray([float(x) for x in arr.ravel()]).reshape(arr.shape)
        except OverflowError:
            raise ParameterError(key, f"must be within the float range, |x| <= 1.8e308 (got {_short(raw)})") from None
        except (TypeError, ValueError):
            raise ParameterError(key, f"must be a number (got {_short(raw)})") from None
    if arr.dtype.kind not in "fiu":
        raise ParameterError(key, f"must be a number (got {_short(raw)})")
    if arr.size == 0:
        raise ParameterError(key, "must not be empty (got an empty array)")
    return np.asarray(arr, dtype=float)


def _short(raw: Any) -> str:
    s = repr(raw)
    return s if len(s) <= 40 else s[:37] + "..."


def _fmt(v: np.ndarray) -> str:
    flat = np.ravel(v)
    return f"{flat[0]:g}" if flat.size == 1 else f"an array containing {flat[0]:g}"


def _check_domain(name: str, v: np.ndarray, derived_from: str | None = None, shown: str | None = None) -> None:
    """Raise ParameterError (naming ``shown``, the spelling the user typed) if ``v`` is outside the domain."""
    p = lexicon.get(name)
    v = np.atleast_1d(v)
    name = shown or name
    if not np.all(np.isfinite(v)):
        bad = v[~np.isfinite(v)]
        raise ParameterError(name, f"must be finite (got {_fmt(bad)})")
    dom = p.domain
    if dom == "positive":
        bad = v[v <= 0]
    elif dom in ("nonneg", "count0"):
        bad = v[v < 0]
    elif dom == "count":
        bad = v[v < 1]
    elif dom == "fraction":
        bad = v[(v <= 0) | (v > 1)]
    else:
        bad = v[:0]
    if bad.size == 0 and p.integer and derived_from is None:
        bad = v[v != np.round(v)]
    if bad.size:
        how = f" (derived as {derived_from})" if derived_from else ""
        raise ParameterError(name, f"{_DOMAIN_RULE[dom]}{how} (got {_fmt(bad)})")


@dataclass
class Resolved:
    """User parameters validated, defaults filled in (:func:`resolve_full`)."""

    values: dict[str, Value]  # canonical name -> value
    derived: dict[str, str]  # names filled in by a default -> its formula
    unused: list[str]  # given names the result does not use
    rounded: dict[str, Value] = field(default_factory=dict)  # derived counts made whole -> the value derived
    rounded_how: dict[str, str] = field(default_factory=dict)  # ... -> how ("rounded up to a whole count")


def resolve(
    result: Result | str, params: Mapping[str, ArrayLike], required: Sequence[str] | None = None
) -> tuple[dict[str, Value], dict[str, str], list[str]]:
    """Validate user parameters for ``result`` and fill in its defaults.

    Returns ``(values, derived, unused)``: canonical name -> value, the names filled in by a default
    (name -> formula), and the given names the result does not use (:func:`resolve_full` also says which
    derived counts were made whole).
    """
    res = resolve_full(result, params, required)
    return res.values, res.derived, res.unused


def resolve_full(
    result: Result | str, params: Mapping[str, ArrayLike], required: Sequence[str] | None = None
) -> Resolved:
    """:func:`resolve`, with the derived counts made whole (name -> the value the rule derived)."""
    r = as_result(result)
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    aliases = lexicon.aliases_for(r.paper)
    values: dict[str, Value] = {}
    given_as: dict[str, str] = {}
    for key, raw in params.items():
        name = key if lexicon.is_known(key) else aliases.get(key)
        if name is None:
            hint = f"; {r.paper} aliases: {', '.join(sorted(aliases))}" if aliases else ""
            raise ParameterError(key, f"unknown parameter name (see `sfltheory vocabulary`){hint}")
        if name in given_as:
            raise ParameterError(key, f"given twice (as '{given_as[name]}' and '{key}')")
        given_as[name] = key
        arr = _as_array(key, raw)
        _check_domain(name, arr, shown=key)
        values[name] = float(arr) if arr.ndim == 0 else arr
    sweeps = {given_as[n]: np.shape(v) for n, v in values.items() if np.ndim(v)}
    try:
        np.broadcast_shapes(*sweeps.values())
    except ValueError:
        desc = ", ".join(f"{k} has {s[0] if len(s) == 1 else s}" for k, s in sweeps.items())
        raise ParameterError(
            next(iter(sweeps)), f"sweeps must have the same number of values to be evaluated together ({desc})"
        ) from None
    for small, large, why in _ORDER_RULES:
        if small in values and large in values and np.any(np.asarray(values[small]) > values[large]):
            raise ParameterError(small, f"must be <= {large}: {why} (got {small} > {large})")
    _check_fixed(r, values, given_as)
    if all(k in values for k in ("d", "d_c", "d_s")):
        if np.any(np.abs(np.asarray(values["d_c"]) + values["d_s"] - values["d"]) > 1e-9 * np.asarray(values["d"])):
            raise ParameterError("d", "must equal d_c + d_s")

    derived: dict[str, str] = {}
    rounded: dict[str, Value] = {}
    how: dict[str, str] = {}
    fired: dict[str, Default] = {}
    for rule in defaults.firing_order(r.defaults, values):
        (got,) = call([rule.expr], values)
        formula = f"{rule.expr}"
        used, before = _made_whole(rule, got, formula)
        if before is not None:
            rounded[rule.name], how[rule.name] = before, defaults.ROUNDING_WORDS[rule.rounding]
        values[rule.name] = used
        derived[rule.name] = formula
        fired[rule.name] = rule
    fixed.check_chosen(r, given_as, fired, papers=results(r.paper))

    need = r.parameters() if required is None else list(required)
    missing = [(name, _missing_hint(r, name)) for name in need if name not in values]
    if missing:
        raise MissingParametersError(r.id, missing)
    unused = sorted(given_as[n] for n in given_as if n not in need and n not in _used_by_defaults(r, need))
    return Resolved(values, derived, unused, rounded, how)


def _made_whole(rule: Default, v: Value, formula: str) -> tuple[Value, Value | None]:
    """A derived value checked against its domain; a count (an integer parameter) that lands between integers
    made whole as the rule says (``Default.rounding``: rounds needed are rounded up). Returns the value to use and
    the value derived when it was rounded (None otherwise): the rounding is reported, never silent."""
    p = lexicon.get(rule.name)
    if not p.integer or rule.rounding == "none":
        _check_domain(rule.name, np.asarray(v), derived_from=formula)
        return v, None
    _check_domain_finite(rule.name, np.asarray(v), formula)
    w = defaults.whole(v, rule.rounding)
    changed = bool(np.any(np.asarray(w) != np.asarray(v)))
    how = f"{formula} = {_fmt(np.asarray(v))}, {defaults.ROUNDING_WORDS[rule.rounding]}" if changed else formula
    _check_domain(rule.name, np.asarray(w), derived_from=how)
    return w, (v if changed else None)


def _check_domain_finite(name: str, v: np.ndarray, formula: str) -> None:
    """A derived value that is inf or NaN is refused before any rounding (ceil(inf) would hide nothing)."""
    a = np.atleast_1d(v)
    if not np.all(np.isfinite(a)):
        raise ParameterError(name, f"must be finite (derived as {formula}) (got {_fmt(a[~np.isfinite(a)])})")


def _missing_hint(r: Result, name: str) -> str:
    """:func:`missing_hint`, except for a name the edition sets itself: then the rule and what it reads."""
    rule = fixed.chosen(r).get(name)
    if rule is None:
        return missing_hint(r.id, name)
    return f"{r.id} sets it, {name} = {sp.sstr(rule.expr)}: give {', '.join(sorted(rule.reads))}"


def _check_fixed(r: Result, values: Mapping[str, Value], given_as: Mapping[str, str]) -> None:
    """A result stated at a fixed value of a parameter its bound does not contain (eta_g = 1, P = 1 baked into
    an edition) cannot be evaluated at another: the given value is refused, never silently replaced by the fixed
    one (issue 12: sl_noniid/thm3 and sec4.3.speedup@explicit at eta_g != 1, mu_splitfed/thm4.3@appendix at
    P != 1 used to report that the bound applies)."""
    # the common case -- no constant default given -- costs one pass over the defaults, no SymPy traversal
    given = [(d.name, d.expr) for d in r.defaults if d.fixed and d.name in values]
    if not given or not r.explicit:
        return
    in_bound = {s.name for t in r.terms for s in t.expr.free_symbols}
    for name, expr in given:
        if name in in_bound:
            continue
        fixed = float(expr)
        if np.allclose(np.asarray(values[name], dtype=float), fixed, rtol=1e-12, atol=0.0):
            continue
        others = [e.id for e in editions(r) if e is not r and e.explicit
                  and name in {s.name for s in e.bound_expr.free_symbols}]  # fmt: skip
        where = f"; {', '.join(others)} takes {name}" if others else ""
        raise ParameterError(
            given_as[name],
            f"{r.id} is stated at {name} = {fixed:g} only (its bound does not contain {name}), so it cannot be "
            f"evaluated at another value{where}",
        )


def missing_hint(result_id: str, name: str) -> str:
    """A missing parameter's meaning and where its value comes from: a constant is measured on the user's model
    (``sfltheory measure --for ID``), a step is what ``check-lr`` checks (or ``max-step`` gives), a count or
    dimension is a setting of the run or the model (``sfltheory cuts`` lists d_c per cut)."""
    if not lexicon.is_known(name):
        return "not in the vocabulary"
    e = lexicon.get(name)
    how = {
        "constant": f"measure it: sfltheory measure --for {result_id}",
        "step": f"your step size; the largest admissible: sfltheory check-lr {result_id}",
        "dimension": "from your model: sfltheory cuts --model NAME lists it per cut",
        "zo": "a setting of your zeroth-order estimator",
    }.get(e.group, "a setting of your run")
    return f"{e.meaning}; {how}"


def refuse_unused(results: Sequence[Result | str], names: Sequence[str]) -> None:
    """A given name that none of ``results`` uses (its bound, hypotheses or the defaults that fill them in) is
    refused in one line, never silently dropped. Unknown names are left to :func:`resolve`, which says so."""
    rs = [as_result(x) for x in results]
    for key in names:
        if all(_unused_by(r, key) for r in rs):
            uses = sorted(set().union(*(set(r.parameters()) for r in rs)))
            ids = ", ".join(r.id for r in rs)
            raise ParameterError(key, f"not used by {ids}: give only its names ({', '.join(uses)})")


def _unused_by(r: Result, key: str) -> bool:
    name = key if lexicon.is_known(key) else lexicon.aliases_for(r.paper).get(key)
    if name is None:
        return False  # unknown: resolve() refuses it, listing the paper's aliases
    need = set(r.parameters()) | {d.name for d in r.defaults}
    return name not in need and name not in _used_by_defaults(r, sorted(need))


def _used_by_defaults(r: Result, need: Sequence[str]) -> set[str]:
    used: set[str] = set()
    for d in (*r.defaults, *defaults.GENERIC):
        if d.name in need:
            used |= d.reads
    return used


# ---------------------------------------------------------------------------------------------------
@dataclass
class HypothesisCheck:
    """One hypothesis of a result evaluated: its name, kind and source (statement, proof, implicit) and the condition
    as printed; whether it ``holds`` (per point of a sweep), its ``slack`` (the margin, >= 0 where it holds; for an
    equality minus the gap), the two evaluated sides and which of them lie beyond the float range (``beyond``)."""

    name: str
    kind: str
    source: str
    printed: str
    holds: bool | np.ndarray
    slack: Value  # >= 0 (> 0 for strict) when it holds; for equalities -|lhs - rhs|
    lhs: Value
    rhs: Value
    note: str = ""
    # which of "lhs", "rhs", "slack" are, at some point, beyond the float range (kept as +-inf, compared exactly):
    # an upper limit of 2.6e317 on the step is no limit a float step can reach -- the condition holds, unbounded
    beyond: tuple[str, ...] = ()


@dataclass
class Evaluation:
    """A result evaluated at some parameters (scalars, or arrays for a sweep): the bound ``value`` and each term,
    every hypothesis checked, the parameters used, what the defaults derived (``derived``) or rounded to a whole
    count (``rounded``), and the names given but unused. :meth:`verdict` says whether the bound applies."""

    id: str
    value: Value
    terms: dict[str, Value]
    hypotheses: list[HypothesisCheck]
    params: dict[str, Value]
    derived: dict[str, str] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)
    rounded: dict[str, Value] = field(default_factory=dict)  # derived counts made whole -> the value derived
    rests_on_proof: bool = False  # the statement prints no step-size condition (Result.rests_on_proof)
    rounded_how: dict[str, str] = field(default_factory=dict)  # derived counts made whole -> how

    @property
    def statement_holds(self) -> bool | np.ndarray:
        """Every hypothesis the statement prints holds (validity conditions included)."""
        return _all(h.holds for h in self.hypotheses if h.source == "statement")

    @property
    def applies(self) -> bool | np.ndarray:
        """The bound applies: the conditions the edition rests on hold and the bound is not void.

        The conditions an edition rests on are its statement's; for an edition whose statement prints no
        step-size condition while its proof needs some (:attr:`Result.rests_on_proof`: a proof display such as
        ``mu_splitfed/eq24``), every condition it carries. A void bound (a validity condition fails, or the bound
        is +inf: a division by zero) applies nowhere, whatever the statement says (issue 24)."""
        conds = (h.holds for h in self.hypotheses if self.rests_on_proof or h.source == "statement")
        out = np.logical_and(_all(conds), not_(self.void))
        return bool(out) if np.ndim(out) == 0 else out

    @property
    def proof_conditions_hold(self) -> bool | np.ndarray:
        """Every condition the proof uses beyond the statement holds."""
        return _all(h.holds for h in self.hypotheses if h.source != "statement")

    @property
    def void(self) -> bool | np.ndarray:
        """The bound is meaningless, not merely unproven: a validity condition fails, or the bound is not a finite
        number (x/0 in exact arithmetic: no bound at all)."""
        bad = _any(not_(h.holds) for h in self.hypotheses if h.kind == "validity")
        nonfinite = ~np.isfinite(np.asarray(self.value, dtype=float))
        out = np.logical_or(bad, nonfinite)
        return bool(out) if np.ndim(out) == 0 else out

    def failed(self, source: str | None = None) -> list[HypothesisCheck]:
        """Hypotheses that fail (at any point of an array evaluation)."""
        return [h for h in self.hypotheses if (source is None or h.source == source) and not bool(np.all(h.holds))]

    def verdict(self) -> str:
        """One plain sentence on whether the bound applies (scalar evaluations)."""
        if bool(np.any(self.void)):
            names = ", ".join(h.name for h in self.hypotheses if h.kind == "validity" and not np.all(h.holds))
            if names:
                return f"the bound is void: validity condition {names} fails"
            return "the bound is void: it is not a finite number at these inputs (a division by zero)"
        stated = self.failed("statement")
        if stated:
            return "the bound does not apply: " + "; ".join(f"{h.name} fails" for h in stated)
        extra = [h for h in self.failed() if h.source != "statement"]
        if extra and self.rests_on_proof:
            return "the bound does not apply: its statement prints no step-size condition, and the conditions it " \
                "rests on fail: " + "; ".join(f"{h.name} ({h.source})" for h in extra)  # fmt: skip
        if extra:
            return "the statement's conditions hold, but the proof also needs " + "; ".join(
                f"{h.name} ({h.source}), which fails" for h in extra
            )
        return "every hypothesis holds: the bound applies"


def not_(x: bool | np.ndarray) -> bool | np.ndarray:
    """Logical negation of a flag, element-wise for an array of flags (a plain bool stays a bool)."""
    return np.logical_not(x) if isinstance(x, np.ndarray) else not x


def _all(xs: Any) -> bool | np.ndarray:
    out: bool | np.ndarray = True
    for x in xs:
        out = np.logical_and(out, x) if isinstance(x, np.ndarray) or isinstance(out, np.ndarray) else (out and x)
    return out


def _any(xs: Any) -> bool | np.ndarray:
    out: bool | np.ndarray = False
    for x in xs:
        out = np.logical_or(out, x) if isinstance(x, np.ndarray) or isinstance(out, np.ndarray) else (out or x)
    return out


_INEQ_RTOL = 1e-12


def check_hypothesis(h: Hypothesis, lhs: Value, rhs: Value) -> HypothesisCheck:
    """``h`` at its evaluated sides: whether it holds (non-strict ones up to rounding) and its slack."""
    lhs_a, rhs_a = np.asarray(lhs), np.asarray(rhs)
    # a non-strict condition met with equality up to rounding holds (a default defined as the bound,
    # e.g. lambda = sqrt(rule) checked against lambda^2 <= rule, lands within a few ulps either side)
    tol = _INEQ_RTOL * np.maximum(np.abs(lhs_a), np.abs(rhs_a))
    if h.rel == "<=":
        slack, holds = rhs_a - lhs_a, lhs_a <= rhs_a + tol
    elif h.rel == "<":
        slack, holds = rhs_a - lhs_a, lhs_a < rhs_a
    elif h.rel == ">=":
        slack, holds = lhs_a - rhs_a, lhs_a >= rhs_a - tol
    elif h.rel == ">":
        slack, holds = lhs_a - rhs_a, lhs_a > rhs_a
    else:
        gap = np.abs(lhs_a - rhs_a)
        slack, holds = -gap, gap <= h.atol + h.rtol * np.abs(rhs_a)
    scalar = slack.ndim == 0
    return HypothesisCheck(
        h.name,
        h.kind,
        h.source,
        h.printed,
        bool(holds) if scalar else holds,
        float(slack) if scalar else slack,
        float(lhs_a) if lhs_a.ndim == 0 else lhs_a,
        float(rhs_a) if rhs_a.ndim == 0 else rhs_a,
        h.note,
    )


def evaluate(result: Result | str, params: Mapping[str, ArrayLike] | None = None, **kw: ArrayLike) -> Evaluation:
    """Evaluate a result's bound (total and each term) and check every hypothesis.

    A result whose hypotheses fail is still evaluated; :meth:`Evaluation.verdict` says plainly that the
    bound does not apply. Results stated only up to constants raise an error naming the explicit
    edition to use.
    """
    r = as_result(result)
    if not r.explicit:
        if r.rate is None:
            why = r.notes[0] if r.notes else "the paper states no bound for it"
            raise NoBoundError(r.id, f"no bound to evaluate: {why}")
        see = f"; use {r.see}" if r.see else ""
        raise NoBoundError(r.id, f"stated only up to constants ({r.rate}): the paper gives no bound to evaluate{see}")
    res = resolve_full(r, merge_params(r, params, kw))
    values = res.values
    # the bound and its terms are what is reported: a true value beyond the float range is refused; a hypothesis
    # side is only compared, so one beyond the range is kept (+-inf, flagged) and compared exactly (issue 24)
    out = call_finite(r.id, [t.expr for t in r.terms], [f"term '{t.name}'" for t in r.terms], values)
    n, k = len(r.terms), len(r.hypotheses)
    terms = dict(zip((t.name for t in r.terms), out, strict=True))
    total: Value = sum(out[1:], start=out[0]) if n else 0.0
    if n and np.any(np.isinf(total)) and all(np.all(np.isfinite(t)) for t in out):
        (total,) = call_finite(r.id, [r.bound_expr], ["the bound"], values)
    sides, beyond = call_bounded([h.lhs for h in r.hypotheses] + [h.rhs for h in r.hypotheses], values)
    checks = []
    for i, h in enumerate(r.hypotheses):
        chk = check_hypothesis(h, sides[i], sides[k + i])
        if np.any(beyond[i]) or np.any(beyond[k + i]):
            chk = _check_exactly(h, chk, values, beyond[i], beyond[k + i])
        checks.append(chk)
    return Evaluation(
        r.id, total, terms, checks, values, res.derived, res.unused, res.rounded, r.rests_on_proof, res.rounded_how
    )


def _check_exactly(
    h: Hypothesis, chk: HypothesisCheck, values: Mapping[str, Value], lhs_out: np.ndarray, rhs_out: np.ndarray
) -> HypothesisCheck:
    """``chk`` where a side lies beyond the float range (``lhs_out``/``rhs_out`` mark the points): holds and slack
    recomputed in exact arithmetic there. A slack beyond the range is kept as +-inf and flagged with the sides."""
    shape = np.broadcast_shapes(np.shape(chk.lhs), np.shape(chk.rhs), np.shape(lhs_out), np.shape(rhs_out))
    at = np.broadcast_to(lhs_out, shape) | np.broadcast_to(rhs_out, shape)
    holds = np.array(np.broadcast_to(chk.holds, shape), dtype=bool, ndmin=1)
    slack = np.array(np.broadcast_to(chk.slack, shape), dtype=float, ndmin=1)
    slack_out = False
    for j in np.flatnonzero(np.ravel(at)):
        lo, hi = to_mp(exact(h.lhs, values, int(j), shape)), to_mp(exact(h.rhs, values, int(j), shape))
        if lo is None or hi is None:  # a side that is x/0 in exact arithmetic too: the float comparison stands
            continue
        if h.rel in ("<=", "<"):
            s = hi - lo
        elif h.rel in (">=", ">"):
            s = lo - hi
        else:
            s = -abs(lo - hi)
        if h.rel in ("<", ">"):
            holds[j] = s > 0
        elif h.rel == "==":
            holds[j] = abs(lo - hi) <= h.atol + h.rtol * abs(hi)
        else:
            holds[j] = s >= 0
        slack_out |= abs(s) > FLOAT_MAX
        slack[j] = float(s) if abs(s) <= FLOAT_MAX else (np.inf if s > 0 else -np.inf)
    which = tuple(n for n, f in (("lhs", np.any(lhs_out)), ("rhs", np.any(rhs_out)), ("slack", slack_out)) if f)
    scalar = len(shape) == 0
    return HypothesisCheck(
        chk.name, chk.kind, chk.source, chk.printed,
        bool(holds[0]) if scalar else holds.reshape(shape), float(slack[0]) if scalar else slack.reshape(shape),
        chk.lhs, chk.rhs, chk.note, which,
    )  # fmt: skip


def bound_value(result: Result | str, params: Mapping[str, ArrayLike] | None = None, **kw: ArrayLike) -> Value:
    """Just the bound, with parameters validated and defaults applied: the fast checked path for sweeps."""
    r = as_result(result)
    if not r.explicit:
        evaluate(r)  # raises the explanation
    expr = r.bound_expr
    values, _, _ = resolve(r, merge_params(r, params, kw), required=sorted(s.name for s in expr.free_symbols))
    (v,) = call_finite(r.id, [expr], ["the bound"], values)
    return v


def bound_function(result: Result | str) -> Callable[..., Value]:
    """The bound as a plain vectorised function of keyword arguments (no validation, no defaults).

    For tight loops where inputs are already valid; :func:`evaluate` is the checked entry point.
    """
    r = as_result(result)
    expr = r.bound_expr
    args = symbols_of([expr])
    f = compiled(args, (expr,))

    def bound(**values: ArrayLike) -> Value:
        # the same float64 inputs as every checked entry point: x/0 is inf (a void bound), not ZeroDivisionError
        vals = [as_float64(values[a.name]) for a in args]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            (v,) = f(*vals)
        return v

    bound.__doc__ = f"Bound of {r.id}; arguments: {', '.join(a.name for a in args)}"
    return bound
