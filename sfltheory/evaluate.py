"""Numeric evaluation of results: bounds, hypothesis checks and the largest feasible step size.

Everything is vectorised: parameters may be scalars or NumPy arrays (broadcast together), and each
result's expressions are lambdified once (with common-subexpression elimination) and cached on the
result object, so a sweep over 10^6 points is one call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from . import defaults
from . import vocabulary as vocab
from .errors import MissingParametersError, NoBoundError, NumericRangeError, ParameterError
from .registry import editions, get
from .result import Hypothesis, Result

Value = float | np.ndarray
ArrayLike = float | int | Sequence[float] | np.ndarray

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


def _as_result(result: Result | str) -> Result:
    if isinstance(result, Result):
        return result
    return get(result)  # a non-string id is refused there with the rule


def _merge(result: Result, params: Mapping[str, ArrayLike] | None, kw: Mapping[str, ArrayLike]) -> dict[str, Any]:
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
    p = vocab.get(name)
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


@cache
def _lambdify(args: tuple[sp.Symbol, ...], exprs: tuple[sp.Expr, ...]) -> Callable[..., Any]:
    return sp.lambdify(args, list(exprs), modules="numpy", cse=True)


def _call_raw(exprs: Sequence[sp.Expr], values: Mapping[str, Value], dtype: type = np.float64) -> list[Any]:
    syms: set[sp.Symbol] = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    args = tuple(sorted(syms, key=lambda s: s.name))
    f = _lambdify(args, tuple(exprs))
    # NumPy scalars, not Python floats: x/0 must give inf (a void bound), not ZeroDivisionError.
    vals: list[Any] = [np.asarray(values[a.name], dtype=dtype)[()] for a in args]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return list(f(*vals))


def _call(exprs: Sequence[sp.Expr], values: Mapping[str, Value]) -> list[Value]:
    return [np.asarray(o, dtype=float) if np.ndim(o) else float(o) for o in _call_raw(exprs, values)]


_FLOAT_MAX = float(np.finfo(float).max)


@cache
def _mp_function(expr: sp.Expr) -> tuple[tuple[str, ...], Callable[..., Any]]:
    # the papers' identity wrappers (heron_sfl's _Float64, _Numeric) stand for their argument
    expr = expr.replace(
        lambda e: isinstance(e, sp.Function) and type(e).__module__.startswith("sfltheory") and len(e.args) == 1,
        lambda e: e.args[0],
    )
    args = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return tuple(a.name for a in args), sp.lambdify(args, expr, modules="mpmath")


def _exact(expr: sp.Expr, values: Mapping[str, Any], j: int) -> Any:
    """``expr`` at element ``j`` of the (broadcast) ``values`` in mpmath arithmetic (30 digits or more, any
    exponent): no overflow or underflow, so a float's inf, NaN or 0 can be told from the true value. A value in
    ``values`` may itself be an mpmath number. Returns an mpmath number, or None for x/0 and forms mpmath cannot
    evaluate."""
    names, f = _mp_function(expr)
    shape = np.broadcast_shapes(*(np.shape(values[n]) for n in names))
    args = []
    for n in names:
        v = values[n]
        if not isinstance(v, (mpmath.mpf, mpmath.mpc)):
            v = np.broadcast_to(np.asarray(v, dtype=float), shape).ravel()[j] if shape else float(np.asarray(v))
            v = mpmath.mpf(repr(float(v)))  # the shortest decimal: 1e-320 as typed, not its subnormal float
        args.append(v)
    # enough digits for an input as large as 1e300 used as an exponent (2^(-1.15 l)) to keep 30 significant ones
    digits = max((int(mpmath.log10(abs(a))) for a in args if a != 0 and abs(a) > 1), default=0)
    try:
        with mpmath.workdps(30 + digits):
            return +f(*args)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
        return None


def _to_mp(v: Any) -> Any:
    """A real, finite mpmath number (a complex one with a negligible imaginary part counts), or None."""
    if isinstance(v, mpmath.mpc):
        if abs(v.imag) > 1e-12 * abs(v.real):
            return None
        v = v.real
    if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
        return None
    return v


def _out_of_range(rid: str, what: str, v: Any) -> NumericRangeError:
    e = mpmath.log10(abs(v)) if v != 0 else 0
    shown = mpmath.nstr(v, 6) if abs(e) < 1e4 else f"about {'-' if v < 0 else ''}10^({mpmath.nstr(e, 6)})"
    return NumericRangeError(
        rid,
        what,
        f"is {shown}, outside the floating-point range "
        "(1.8e308 in size, 5e-324 the smallest positive): no finite number to report at these inputs",
    )


def _call_finite(rid: str, exprs: Sequence[sp.Expr], labels: Sequence[str], values: Mapping[str, Value]) -> list[Value]:
    """:func:`_call`, with every inf or NaN recomputed exactly: a float overflow in an intermediate (L^2 lambda^2
    as inf * 0) gets its true finite value; a true value beyond the float range is refused with NumericRangeError.
    A genuine division by zero (a void bound) stays inf."""
    out = _call(exprs, values)
    for i, o in enumerate(out):
        if np.all(np.isfinite(o)):
            continue
        a = np.array(o, dtype=float, ndmin=1)
        for j in np.flatnonzero(~np.isfinite(a)):
            v = _to_mp(_exact(exprs[i], values, int(j)))
            if v is None:  # x/0 or 0/0 in exact arithmetic too: the float is right
                continue
            if abs(v) > _FLOAT_MAX:
                raise _out_of_range(rid, labels[i], v)
            a[j] = float(v)
        out[i] = a.reshape(np.shape(o)) if np.ndim(o) else float(a[0])
    return out


def resolve(
    result: Result | str, params: Mapping[str, ArrayLike], required: Sequence[str] | None = None
) -> tuple[dict[str, Value], dict[str, str], list[str]]:
    """Validate user parameters for ``result`` and fill in its defaults.

    Returns ``(values, derived, unused)``: canonical name -> value, the names filled in by a default
    (name -> formula), and the given names the result does not use.
    """
    r = _as_result(result)
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    aliases = vocab.aliases_for(r.paper)
    values: dict[str, Value] = {}
    given_as: dict[str, str] = {}
    for key, raw in params.items():
        name = key if vocab.is_known(key) else aliases.get(key)
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
    for rule in defaults.firing_order(r.defaults, values):
        (v,) = _call([rule.expr], values)
        formula = f"{rule.expr}"
        _check_domain(rule.name, np.asarray(v), derived_from=formula)
        values[rule.name] = v
        derived[rule.name] = formula

    need = r.parameters() if required is None else list(required)
    missing = [(name, missing_hint(r.id, name)) for name in need if name not in values]
    if missing:
        raise MissingParametersError(r.id, missing)
    unused = sorted(given_as[n] for n in given_as if n not in need and n not in _used_by_defaults(r, need))
    return values, derived, unused


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
    if not vocab.is_known(name):
        return "not in the vocabulary"
    e = vocab.get(name)
    how = {
        "constant": f"measure it: sfltheory measure --for {result_id}",
        "step": f"your step size; the largest admissible: sfltheory check-lr {result_id}",
        "dimension": "from your model: sfltheory cuts --model NAME lists it per cut",
        "zo": "a setting of your zeroth-order estimator",
    }.get(e.group, "a setting of your run")
    return f"{e.meaning}; {how}"


def _used_by_defaults(r: Result, need: Sequence[str]) -> set[str]:
    used: set[str] = set()
    for d in (*r.defaults, *defaults.GENERIC):
        if d.name in need:
            used |= d.reads
    return used


# ---------------------------------------------------------------------------------------------------
@dataclass
class HypothesisCheck:
    name: str
    kind: str
    source: str
    printed: str
    holds: bool | np.ndarray
    slack: Value  # >= 0 (> 0 for strict) when it holds; for equalities -|lhs - rhs|
    lhs: Value
    rhs: Value
    note: str = ""


@dataclass
class Evaluation:
    id: str
    value: Value
    terms: dict[str, Value]
    hypotheses: list[HypothesisCheck]
    params: dict[str, Value]
    derived: dict[str, str] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)

    @property
    def applies(self) -> bool | np.ndarray:
        """Every hypothesis the statement prints holds (validity conditions included)."""
        return _all(h.holds for h in self.hypotheses if h.source == "statement")

    @property
    def proof_conditions_hold(self) -> bool | np.ndarray:
        """Every condition the proof uses beyond the statement holds."""
        return _all(h.holds for h in self.hypotheses if h.source != "statement")

    @property
    def void(self) -> bool | np.ndarray:
        """A validity condition fails: the bound is meaningless, not merely unproven."""
        return _any(not_(h.holds) for h in self.hypotheses if h.kind == "validity")

    def failed(self, source: str | None = None) -> list[HypothesisCheck]:
        """Hypotheses that fail (at any point of an array evaluation)."""
        return [h for h in self.hypotheses if (source is None or h.source == source) and not bool(np.all(h.holds))]

    def verdict(self) -> str:
        """One plain sentence on whether the bound applies (scalar evaluations)."""
        if bool(np.any(self.void)):
            names = ", ".join(h.name for h in self.hypotheses if h.kind == "validity" and not np.all(h.holds))
            return f"the bound is void: validity condition {names} fails"
        stated = self.failed("statement")
        if stated:
            return "the bound does not apply: " + "; ".join(f"{h.name} fails" for h in stated)
        extra = [h for h in self.failed() if h.source != "statement"]
        if extra:
            return "the statement's conditions hold, but the proof also needs " + "; ".join(
                f"{h.name} ({h.source}), which fails" for h in extra
            )
        return "every hypothesis holds: the bound applies"


def not_(x: bool | np.ndarray) -> bool | np.ndarray:
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


def _check(h: Hypothesis, lhs: Value, rhs: Value) -> HypothesisCheck:
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
    r = _as_result(result)
    if not r.explicit:
        if r.rate is None:
            why = r.notes[0] if r.notes else "the paper states no bound for it"
            raise NoBoundError(r.id, f"no bound to evaluate: {why}")
        see = f"; use {r.see}" if r.see else ""
        raise NoBoundError(r.id, f"stated only up to constants ({r.rate}): the paper gives no bound to evaluate{see}")
    values, derived, unused = resolve(r, _merge(r, params, kw))
    exprs = [t.expr for t in r.terms] + [h.lhs for h in r.hypotheses] + [h.rhs for h in r.hypotheses]
    labels = (
        [f"term '{t.name}'" for t in r.terms]
        + [f"the left side of hypothesis '{h.name}'" for h in r.hypotheses]
        + [f"the right side of hypothesis '{h.name}'" for h in r.hypotheses]
    )
    out = _call_finite(r.id, exprs, labels, values)
    n, k = len(r.terms), len(r.hypotheses)
    terms = dict(zip((t.name for t in r.terms), out[:n], strict=True))
    total: Value = sum(out[:n][1:], start=out[0]) if n else 0.0
    if n and np.any(np.isinf(total)) and all(np.all(np.isfinite(t)) for t in out[:n]):
        (total,) = _call_finite(r.id, [r.bound_expr], ["the bound"], values)
    checks = [_check(h, out[n + i], out[n + k + i]) for i, h in enumerate(r.hypotheses)]
    return Evaluation(r.id, total, terms, checks, values, derived, unused)


def bound_value(result: Result | str, params: Mapping[str, ArrayLike] | None = None, **kw: ArrayLike) -> Value:
    """Just the bound, with parameters validated and defaults applied: the fast checked path for sweeps."""
    r = _as_result(result)
    if not r.explicit:
        evaluate(r)  # raises the explanation
    expr = r.bound_expr
    values, _, _ = resolve(r, _merge(r, params, kw), required=sorted(s.name for s in expr.free_symbols))
    (v,) = _call_finite(r.id, [expr], ["the bound"], values)
    return v


def bound_function(result: Result | str) -> Callable[..., Value]:
    """The bound as a plain vectorised function of keyword arguments (no validation, no defaults).

    For tight loops where inputs are already valid; :func:`evaluate` is the checked entry point.
    """
    r = _as_result(result)
    expr = r.bound_expr
    args = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    f = _lambdify(args, (expr,))

    def bound(**values: ArrayLike) -> Value:
        (v,) = f(*(values[a.name] for a in args))
        return v

    bound.__doc__ = f"Bound of {r.id}; arguments: {', '.join(a.name for a in args)}"
    return bound


# ---------------------------------------------------------------------------------------------------
@dataclass
class Branch:
    """One step-size condition solved for the step: ``step <= bound``."""

    name: str
    source: str
    printed: str
    bound: Value  # largest step this branch allows (inf: does not constrain it)
    holds: bool | np.ndarray | None  # at the given step, if one was given
    slack: Value | None  # bound - step
    group: str = ""
    canonical: str = ""  # the condition in canonical names (the printed one keeps the paper's notation)


@dataclass
class StepCheck:
    id: str
    step: str
    given: Value | None
    max_step: Value  # over the statement's branches
    binding: str | np.ndarray
    max_step_all: Value  # statement + proof + implicit branches
    binding_all: str | np.ndarray
    branches: list[Branch]
    other: list[HypothesisCheck]  # couplings and choices on the step (e.g. eta_c = tau * eta_s)

    def advice(self) -> str:
        if self.given is None:
            return f"{self.step} <= {_num(self.max_step)} (binding: {self.binding})"
        failing = [b for b in self.branches if b.holds is not None and not bool(np.all(b.holds))]
        if not failing:
            tail = ""
            if bool(np.any(np.asarray(self.given) > self.max_step_all)):
                tail = (
                    f"; the proof's own conditions need {self.step} <= {_num(self.max_step_all)} "
                    f"(binding: {self.binding_all})"
                )
            return f"{self.step} = {_num(self.given)} satisfies every stated branch; binding: {self.binding}{tail}"
        stated = [b for b in failing if b.source == "statement"]
        target = self.max_step if stated else self.max_step_all
        names = ", ".join(b.name for b in failing)
        return f"{self.step} = {_num(self.given)} violates {names}: reduce {self.step} to <= {_num(target)}"


def _num(v: Value | None) -> str:
    if v is None:
        return "-"
    a = np.asarray(v)
    return f"{float(a):.6g}" if a.ndim == 0 else f"array(min={np.min(a):.6g}, max={np.max(a):.6g})"


@cache
def _step_subs(r: Result, step: str) -> dict[sp.Symbol, sp.Expr]:
    """The result's defaults that are defined from the step (e.g. ``eta_c = tau * eta``)."""
    s = vocab.symbol(step)
    return {vocab.symbol(d.name): d.expr for d in r.defaults if s in d.expr.free_symbols}


@cache
def _slack_in_step(r: Result, h: Hypothesis, step: str) -> sp.Expr:
    """``rhs - lhs`` of a hypothesis written in the step alone (its derived step sizes substituted)."""
    return (h.rhs - h.lhs).subs(_step_subs(r, step))


@cache
def _step_solutions(r: Result, step: str) -> dict[str, tuple[sp.Expr, ...] | None]:
    """For each step-size hypothesis, the roots of ``lhs = rhs`` in the step once the result's
    defaults that depend on the step (e.g. ``eta_c = tau * eta``) are substituted; None when SymPy
    cannot isolate the step (then a numeric search is used)."""
    s = vocab.symbol(step)
    out: dict[str, tuple[sp.Expr, ...] | None] = {}
    for h in _step_hypotheses(r, step):
        diff = sp.simplify(-_slack_in_step(r, h, step))
        if s not in diff.free_symbols:
            out[h.name] = ()
            continue
        try:
            roots = sp.solve(diff, s)
        except (NotImplementedError, ValueError):
            roots = None
        out[h.name] = tuple(roots) if roots else None
    return out


def _step_hypotheses(r: Result, step: str) -> list[Hypothesis]:
    s = vocab.symbol(step)
    return [
        h
        for h in r.hypotheses
        if h.kind == "step_size" and h.rel in ("<=", "<") and s in _slack_in_step(r, h, step).free_symbols
    ]


def _branch_bound(
    r: Result, h: Hypothesis, step: str, roots: tuple[sp.Expr, ...] | None, values: dict[str, Value]
) -> Value:
    slack_expr = _slack_in_step(r, h, step)
    shape = np.broadcast_shapes(*(np.shape(v) for v in values.values()))
    if roots == ():
        (sl,) = _call([slack_expr], values)
        return np.where(np.asarray(sl) >= 0, np.inf, 0.0) if shape else (math.inf if sl >= 0 else 0.0)
    others = {k: v for k, v in values.items() if k != step}
    vals: list[np.ndarray] | None = None
    if roots is not None:
        # complex arithmetic: Cardano's formula reaches real roots through complex intermediates
        try:
            vals = [np.asarray(v, dtype=complex) for v in _call_raw(list(roots), others, dtype=np.complex128)]
        except (NameError, TypeError, AttributeError):  # a special function NumPy lacks (e.g. LambertW)
            vals = None
    if vals is not None:
        # keep real roots only: a complex root is no boundary of the feasible interval
        cand = np.stack(
            [np.broadcast_to(np.where(np.abs(v.imag) <= 1e-12 * np.abs(v.real), v.real, np.nan), shape) for v in vals]
        )
        cand = np.where(cand > 0, cand, np.inf)
        best = cand.min(axis=0)
        # the smallest positive root bounds (0, root] only if the branch holds inside it
        probe = np.where(np.isfinite(best), best / 2, 1.0)
        (sl,) = _call([slack_expr], {**others, step: probe})
        infeasible = np.broadcast_to(~(np.asarray(sl) >= 0), shape)
        best = np.where(infeasible, 0.0, best)
        # a root that overflowed (inf, NaN) or underflowed to 0 in floats, or a probe that may have (an infeasible
        # verdict at extreme magnitudes): recompute it exactly
        assert roots is not None
        flagged = infeasible & _extreme({**others, step: probe}, shape)
        for e, v in zip(roots, vals, strict=True):
            if e.is_zero:
                continue
            flagged |= np.broadcast_to(~np.isfinite(v) | (v == 0), shape)
        if np.any(flagged):
            best = np.array(best, dtype=float, ndmin=1)
            for j in np.flatnonzero(np.ravel(flagged)):
                best.flat[j] = _exact_root(r, h, step, roots, slack_expr, others, int(j))
            best = best.reshape(shape)
    else:
        best = _bisect(slack_expr, step, others, shape)
    return float(best) if np.ndim(best) == 0 else best


def _extreme(values: Mapping[str, Value], shape: tuple[int, ...]) -> np.ndarray:
    """Elements where some input is so large or small (beyond 1e±50) that a float expression may overflow."""
    out = np.zeros(shape, dtype=bool)
    for v in values.values():
        a = np.abs(np.asarray(v, dtype=float))
        out |= np.broadcast_to((a > 1e50) | ((a > 0) & (a < 1e-50)), shape)
    return out


def _exact_root(
    r: Result,
    h: Hypothesis,
    step: str,
    roots: tuple[sp.Expr, ...],
    slack_expr: sp.Expr,
    values: Mapping[str, Value],
    j: int,
) -> float:
    """The branch's largest step at element ``j`` in arbitrary-exponent arithmetic; refused when it lies outside
    the float range (an overflow to inf would read as "unconstrained", an underflow to 0 as "infeasible")."""
    cand = []
    for e in roots:
        re = _to_mp(_exact(e, values, j))
        if re is not None and re > 0:
            cand.append(re)
    if not cand:
        return math.inf
    best = min(cand)
    sl = _to_mp(_exact(slack_expr, {**values, step: best / 2}, j))
    if sl is not None and sl < 0:
        return 0.0
    if abs(best) > _FLOAT_MAX or float(best) == 0.0:
        raise _out_of_range(r.id, f"the largest {step} under {h.name}", best)
    return float(best)


def _bisect(slack_expr: sp.Expr, step: str, values: dict[str, Value], shape: tuple[int, ...]) -> np.ndarray:
    """Largest step with slack >= 0, assuming the feasible set is an interval (0, s*]."""

    def ok(x: np.ndarray) -> np.ndarray:
        (sl,) = _call([slack_expr], {**values, step: x})
        return np.broadcast_to(np.asarray(sl) >= 0, shape)

    lo = np.zeros(shape)
    hi = np.ones(shape)
    for _ in range(2100):  # bracket: grow or shrink by 2 until hi is infeasible and lo feasible
        good = ok(hi)
        if not np.any(good):
            break
        lo = np.where(good, hi, lo)
        hi = np.where(good, hi * 2, hi)
        if np.all(hi > 1e300):
            return np.where(good, np.inf, lo)
    for _ in range(1200):  # halving from 1 reaches the smallest subnormal (5e-324) in 1075 steps
        mid = np.where(lo > 0, (lo + hi) / 2, hi / 2)
        good = ok(mid)
        lo = np.where(good, mid, lo)
        hi = np.where(good, hi, mid)
        if np.all((hi - lo) <= 1e-15 * hi):
            break
    return lo


def max_step(result: Result | str, params: Mapping[str, ArrayLike] | None = None, **kw: ArrayLike) -> StepCheck:
    """The largest step size that satisfies every step-size branch, and which branch binds.

    ``params`` need only hold what the step-size conditions depend on. If the step itself (or the
    parameters it is derived from, e.g. ``eta_s``) is given, each branch also reports its slack.
    """
    r = _as_result(result)
    if r.step is None:
        raise ParameterError(r.id, "this result constrains no step size")
    hyps = _step_hypotheses(r, r.step)
    others = [h for h in r.hypotheses if h.kind in ("coupling", "choice") and _mentions_step(r, h)]
    names: set[str] = set()
    for h in hyps + others:
        names |= {x.name for x in h.lhs.free_symbols | h.rhs.free_symbols}
    raw = _merge(r, params, kw)
    values, _, _ = resolve(r, raw, required=sorted(names - _step_family(r)))
    given = values.get(r.step)
    solutions = _step_solutions(r, r.step)
    branches: list[Branch] = []
    for h in hyps:
        b = _branch_bound(r, h, r.step, solutions[h.name], values)
        holds: bool | np.ndarray | None = None
        slack: Value | None = None
        if all(x.name in values for x in h.lhs.free_symbols | h.rhs.free_symbols):
            lhs, rhs = _call([h.lhs, h.rhs], values)
            chk = _check(h, lhs, rhs)
            holds, slack = chk.holds, (b - given if given is not None else chk.slack)
        canonical = f"{sp.sstr(h.lhs)} {h.rel} {sp.sstr(h.rhs)}"
        branches.append(Branch(h.name, h.source, h.printed, b, holds, slack, h.group, canonical))
    other_checks = []
    for h in others:
        if all(x.name in values for x in h.lhs.free_symbols | h.rhs.free_symbols):
            lhs, rhs = _call([h.lhs, h.rhs], values)
            other_checks.append(_check(h, lhs, rhs))
    stated = [b for b in branches if b.source == "statement"] or branches
    m, bind = _min_branch(stated)
    m_all, bind_all = _min_branch(branches)
    return StepCheck(r.id, r.step, given, m, bind, m_all, bind_all, branches, other_checks)


def _step_family(r: Result) -> set[str]:
    """The step and the step sizes defined from it (eta_s = eta, eta_c = tau * eta, ...)."""
    assert r.step is not None
    return {r.step} | {x.name for x in _step_subs(r, r.step)}


def _mentions_step(r: Result, h: Hypothesis) -> bool:
    fam = _step_family(r)
    return any(x.name in fam for x in h.lhs.free_symbols | h.rhs.free_symbols)


def _min_branch(branches: list[Branch]) -> tuple[Value, str | np.ndarray]:
    if not branches:
        return math.inf, "none"
    stack = np.stack(
        [np.asarray(b.bound, dtype=float) * np.ones(1) if np.ndim(b.bound) == 0 else b.bound for b in branches]
    )
    idx = np.argmin(stack, axis=0)
    m = np.min(stack, axis=0)
    if m.shape == (1,) and all(np.ndim(b.bound) == 0 for b in branches):
        return float(m[0]), branches[int(idx[0])].name
    return m, np.array([branches[i].name for i in np.ravel(idx)]).reshape(idx.shape)
