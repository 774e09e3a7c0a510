"""The largest admissible step size: every step-size branch of a result solved for its step.

A branch is a hypothesis ``lhs <= rhs`` (or ``<``) of kind ``step_size``, written in the result's step once the step
sizes it derives from it (``eta_c = tau * eta``) are substituted. Its largest admissible step is found one way or the
other, and :attr:`Branch.path` says which, per branch (per point of a sweep where they differ):

* ``"closed form"``: the roots SymPy's ``solve`` gives for ``lhs = rhs`` (solved once per result, cached), evaluated
  at the point -- and **checked there**: a root counts only if it is real, positive and the slack at it is ~0
  relative to the slack's terms (``|sum t_i| <= 1e-8 sum |t_i|``). The smallest checked root ``s`` is the answer if
  the branch holds inside ``(0, s]`` (probed at ``s/2``).
* ``"bisection"``: wherever no checked root answers (SymPy cannot isolate the step; a root is wrong, complex where it
  should be real, or lost to rounding -- Cardano's formula for a cubic; or the branch fails below the smallest
  root), a bisection on the slack itself: the exponent first, then the mantissa to 1e-15, assuming the feasible
  steps form an interval ``(0, s*]``.
* ``"unconstrained"`` (any step: the branch allows inf) and ``"infeasible"`` (no positive step: 0) are the outcomes
  with no boundary to find.

Inputs so large or small (beyond 1e+-50) that a float may overflow, and roots that overflow or underflow in floats,
are recomputed in mpmath arithmetic. A largest step beyond the float range (L = 1e-320: eta <= 2.6e317) is no limit a
float step can reach: the branch reports +inf, flagged :attr:`Branch.beyond` ("unbounded by this condition"), not an
error (issue 24); one that underflows below the smallest float is refused with NumericRangeError.

The largest step is taken over the statement's branches; for an edition whose statement prints none (a proof display,
:attr:`Result.rests_on_proof`) over every branch it carries, and :attr:`StepCheck.basis` names the sources it was
taken over -- the table labels ``max eta (proof)``, never ``(statement)`` for a number no statement gives.

A result stated only up to constants (``explicit=False``) whose step is fixed by a choice and which carries no
step-size condition of its own (sl_noniid's O-form Corollaries 1 and 2) has no largest step to report: ``max_step``
refuses it and names the explicit edition (``see``), which checks the applied theorem's step conditions at the
corollary's choice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp

from . import solvecache
from . import vocabulary as vocab
from .errors import NoBoundError, ParameterError
from .evaluate import HypothesisCheck, as_result, check_hypothesis, merge_params, resolve
from .numeric import FLOAT_MAX, ArrayLike, Value, call, call_raw, exact, out_of_range, to_mp
from .result import Hypothesis, Result

__all__ = ["PATHS", "Branch", "StepCheck", "max_step", "step_family", "step_subs"]

# how a branch's largest step was found (Branch.path)
PATHS: tuple[str, ...] = ("closed form", "bisection", "unconstrained", "infeasible")
_CLOSED, _BISECT, _FREE, _NEVER = range(4)

_ROOT_RTOL = 1e-8  # a root is checked when |slack| <= _ROOT_RTOL * sum |terms of the slack| there
_REAL_RTOL = 1e-12  # a root with |imag| <= _REAL_RTOL * |real| is real (rounding in complex intermediates)
_E_MAX = 997  # bisection: a branch that holds at 2^997 (~1.3e300) allows any step
_E_MIN = -1074  # ... and one that fails at 2^-1074 (the smallest subnormal) allows none
_BISECT_RTOL = 1e-15


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
    path: str | np.ndarray = ""  # how ``bound`` was found, one of PATHS (an array of them over a sweep that mixes)
    beyond: bool | np.ndarray = False  # ``bound`` is inf because the true largest step exceeds the float range


@dataclass
class StepCheck:
    """A result's step size checked: the largest step each branch allows (:class:`Branch`), the largest over the
    statement's branches (``max_step``, and over every branch with the proof's and implicit ones, ``max_step_all``)
    with the branch that binds, the given step's status, and the other conditions on the step (couplings)."""

    id: str
    step: str
    given: Value | None
    max_step: Value  # over the statement's branches
    binding: str | np.ndarray
    max_step_all: Value  # statement + proof + implicit branches
    binding_all: str | np.ndarray
    branches: list[Branch]
    other: list[HypothesisCheck]  # couplings and choices on the step (e.g. eta_c = tau * eta_s)
    # the sources ``max_step`` is taken over: "statement", or -- where the statement prints no step-size branch --
    # those of every branch ("proof", "implicit", "implicit+proof"): the label of the number, and the branches
    # whose failure makes check-lr exit 1
    basis: str = "statement"

    def in_basis(self, b: Branch) -> bool:
        """Whether branch ``b`` is one ``max_step`` is taken over."""
        return b.source == "statement" or self.basis != "statement"

    def violates(self) -> bool:
        """The given step fails a branch ``max_step`` is taken over (at some point of a sweep)."""
        return any(self.in_basis(b) and b.holds is not None and not bool(np.all(b.holds)) for b in self.branches)

    def advice(self) -> str:
        """One line of advice: without a given step, the largest one and what binds; with one, that it satisfies every
        branch (and whether the proof's conditions need it smaller), or which branches it violates and the step to
        reduce it to."""
        if self.given is None:
            return f"{self.step} <= {_num(self.max_step)} (binding: {self.binding})"
        failing = [b for b in self.branches if b.holds is not None and not bool(np.all(b.holds))]
        own = "stated" if self.basis == "statement" else self.basis
        if not failing:
            tail = ""
            if bool(np.any(np.asarray(self.given) > self.max_step_all)):
                tail = (
                    f"; the proof's own conditions need {self.step} <= {_num(self.max_step_all)} "
                    f"(binding: {self.binding_all})"
                )
            return f"{self.step} = {_num(self.given)} satisfies every {own} branch; binding: {self.binding}{tail}"
        target = self.max_step if any(self.in_basis(b) for b in failing) else self.max_step_all
        names = ", ".join(b.name for b in failing)
        return f"{self.step} = {_num(self.given)} violates {names}: reduce {self.step} to <= {_num(target)}"


def _num(v: Value | None) -> str:
    """A step for the advice line: +inf (no branch bounds it, or only beyond the float range) as ``unbounded``."""
    if v is None:
        return "-"
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return f"{float(a):.6g}" if np.isfinite(a) else ("unbounded" if a > 0 else "undefined")
    return f"array(min={np.min(a):.6g}, max={np.max(a):.6g})"


# --- the branches, symbolically (cached per result) ---------------------------------------------------------------
@cache
def step_subs(r: Result, step: str) -> dict[sp.Symbol, sp.Expr]:
    """The result's defaults that are defined from the step (e.g. ``eta_c = tau * eta``)."""
    s = vocab.symbol(step)
    return {vocab.symbol(d.name): d.expr for d in r.defaults if s in d.expr.free_symbols}


def step_family(r: Result) -> set[str]:
    """The step and the step sizes defined from it (eta_s = eta, eta_c = tau * eta, ...)."""
    assert r.step is not None
    return {r.step} | {x.name for x in step_subs(r, r.step)}


@cache
def _slack_in_step(r: Result, h: Hypothesis, step: str) -> sp.Expr:
    """``rhs - lhs`` of a hypothesis written in the step alone (its derived step sizes substituted)."""
    return (h.rhs - h.lhs).subs(step_subs(r, step))


@cache
def _slack_terms(r: Result, h: Hypothesis, step: str) -> tuple[sp.Expr, ...]:
    """The terms whose sum is the slack: a root is checked against their size, not against the slack's."""
    return sp.Add.make_args(_slack_in_step(r, h, step))


@cache
def _step_solutions(r: Result, step: str) -> dict[str, tuple[sp.Expr, ...] | None]:
    """For each step-size hypothesis, the roots of ``lhs = rhs`` in the step once the result's defaults that
    depend on the step are substituted: () when the step cancels out, None when SymPy gives no root (then the
    branch is bisected). Roots are candidates only: each is checked numerically where it is used."""
    s = vocab.symbol(step)
    out: dict[str, tuple[sp.Expr, ...] | None] = {}
    for h in _step_hypotheses(r, step):
        slack = _slack_in_step(r, h, step)

        def solve(slack: sp.Expr = slack) -> tuple[sp.Expr, ...] | None:
            diff = sp.simplify(-slack)
            if s not in diff.free_symbols:
                return ()
            try:
                roots = sp.solve(diff, s)
            except (NotImplementedError, ValueError):
                return None
            return tuple(roots) if roots else None

        # kept on disk between runs (solvecache): these solves were 14 s of a 35 s catalogue audit
        out[h.name] = solvecache.cached(solvecache.key("step roots", slack, s), solve)
    return out


def _step_hypotheses(r: Result, step: str) -> list[Hypothesis]:
    s = vocab.symbol(step)
    return [
        h
        for h in r.hypotheses
        if h.kind == "step_size" and h.rel in ("<=", "<") and s in _slack_in_step(r, h, step).free_symbols
    ]


def _mentions_step(r: Result, h: Hypothesis) -> bool:
    fam = step_family(r)
    return any(x.name in fam for x in h.lhs.free_symbols | h.rhs.free_symbols)


# --- one branch, numerically ---------------------------------------------------------------------------------------
def _branch_bound(
    r: Result, h: Hypothesis, step: str, roots: tuple[sp.Expr, ...] | None, values: Mapping[str, Value]
) -> tuple[Value, str | np.ndarray]:
    """The branch's largest step at every point of ``values`` and the path that found it."""
    slack_expr = _slack_in_step(r, h, step)
    others = {k: v for k, v in values.items() if k != step}
    shape = np.broadcast_shapes(*(np.shape(v) for v in values.values()))  # a swept given step sweeps the answer
    if roots == ():  # the step cancels out: the branch holds for every step or for none
        (sl,) = call([slack_expr], {**others, step: 1.0})
        ok = np.broadcast_to(np.asarray(sl) >= 0, shape)
        return _finish(np.where(ok, math.inf, 0.0), np.where(ok, _FREE, _NEVER))
    bound = np.zeros(shape)
    code = np.full(shape, _BISECT, dtype=np.int8)
    todo = np.ones(shape, dtype=bool)  # points still without an answer
    exact_at = np.zeros(shape, dtype=bool)  # points to solve in exact arithmetic
    vals = _root_values(roots, others, shape) if roots is not None else None
    if roots is not None and vals is not None:
        x, checked, lost = _checked_roots(r, h, step, roots, vals, others)
        best = np.where(checked, x, np.inf).min(axis=0)
        has = np.isfinite(best)
        if np.any(has):
            # the smallest checked root bounds (0, root] only if the branch holds inside it
            (sl,) = call([slack_expr], {**others, step: np.where(has, best / 2, 1.0)})
            closed = has & np.broadcast_to(np.asarray(sl) >= 0, shape)
            bound = np.where(closed, best, bound)
            code = np.where(closed, _CLOSED, code).astype(np.int8)
            todo = ~closed
        if np.any(todo):
            # floats may have lost the answer: a root that overflowed or underflowed (inf, NaN, 0), or inputs or
            # roots so large or small that the slack itself overflows at them -- solve those points exactly
            extreme_root = _extreme({str(i): np.where(np.isnan(xi), 1.0, xi) for i, xi in enumerate(x)}, shape)
            exact_at = todo & (lost | extreme_root | _extreme(others, shape))
    if np.any(exact_at):
        assert roots is not None
        bound, code = np.array(bound, dtype=float, ndmin=1), np.array(code, ndmin=1)
        for j in np.flatnonzero(exact_at.ravel()):
            found = _exact_root(r, h, step, roots, others, int(j), tuple(shape))
            if found is not None:
                bound.flat[j], code.flat[j] = found
                todo.flat[j] = False
        bound, code = bound.reshape(shape), code.reshape(shape)
    if np.any(todo):
        idx = np.flatnonzero(todo.ravel())
        sub = others if idx.size == todo.size and len(shape) <= 1 else _subset(others, shape, idx)
        b, c = _bisect(slack_expr, step, sub, (idx.size,))
        bound, code = np.array(bound, dtype=float, ndmin=1), np.array(code, ndmin=1)
        bound.flat[idx], code.flat[idx] = b, c
        bound, code = bound.reshape(shape), code.reshape(shape)
    return _finish(bound, code)


def _finish(bound: np.ndarray, code: np.ndarray) -> tuple[Value, str | np.ndarray]:
    """A float and one path for a single point; arrays over a sweep (one path name when all points agree)."""
    if np.ndim(bound) == 0:
        return float(bound), PATHS[int(code)]
    lo, hi = int(np.min(code)), int(np.max(code))
    return bound, (PATHS[lo] if lo == hi else np.array(PATHS)[code])


def _root_values(roots: tuple[sp.Expr, ...], others: Mapping[str, Value], shape: tuple[int, ...]) -> np.ndarray | None:
    """The roots at every point, stacked (``(len(roots), *shape)``): in float arithmetic, and again in complex
    where floats give NaN (Cardano's formula reaches real roots through complex intermediates). None when NumPy
    cannot evaluate them (a special function it lacks, e.g. LambertW): the branch is then bisected."""
    try:
        out = call_raw(list(roots), others)
        if any(np.any(np.isnan(o)) for o in out):
            out = call_raw(list(roots), others, dtype=np.complex128)
    except (NameError, TypeError, AttributeError):
        return None
    dtype = complex if any(np.iscomplexobj(o) for o in out) else float
    return np.stack([np.broadcast_to(np.asarray(o, dtype=dtype), shape) for o in out])


def _checked_roots(
    r: Result, h: Hypothesis, step: str, roots: tuple[sp.Expr, ...], vals: np.ndarray, others: Mapping[str, Value]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The real positive roots (NaN elsewhere), which of them the slack confirms (|slack| ~ 0 relative to its
    terms), and where a root was lost in floats (inf, NaN or an underflow to 0 of a root that is not 0)."""
    re = vals.real
    real = np.isfinite(vals) & (np.abs(vals.imag) <= _REAL_RTOL * np.abs(re) if np.iscomplexobj(vals) else True)
    x = np.where(real & (re > 0), re, np.nan)
    terms = _slack_terms(r, h, step)
    checked = np.zeros(x.shape, dtype=bool)
    for i in range(len(roots)):
        pos = np.isfinite(x[i])
        if not np.any(pos):
            continue
        t = call(list(terms), {**others, step: np.where(pos, x[i], 1.0)})
        slack = sum(t[1:], start=t[0])
        scale = sum((np.abs(v) for v in t[1:]), start=np.abs(t[0]))
        checked[i] = pos & np.broadcast_to(np.abs(slack) <= _ROOT_RTOL * scale, pos.shape)
    lost = np.zeros(x.shape[1:], dtype=bool)
    for e, v in zip(roots, vals, strict=True):
        if not e.is_zero:
            lost |= ~np.isfinite(v) | (v == 0)
    return x, checked, lost


def _extreme(values: Mapping[str, Value], shape: tuple[int, ...]) -> np.ndarray:
    """Points where some input is so large or small (beyond 1e+-50) that a float expression may overflow."""
    out = np.zeros(shape, dtype=bool)
    for v in values.values():
        a = np.abs(np.asarray(v, dtype=float))
        out |= np.broadcast_to((a > 1e50) | ((a > 0) & (a < 1e-50)), shape)
    return out


def _subset(values: Mapping[str, Value], shape: tuple[int, ...], idx: np.ndarray) -> dict[str, Value]:
    return {k: (np.broadcast_to(v, shape).ravel()[idx] if np.ndim(v) else v) for k, v in values.items()}


def _exact_root(
    r: Result,
    h: Hypothesis,
    step: str,
    roots: tuple[sp.Expr, ...],
    values: Mapping[str, Value],
    j: int,
    shape: tuple[int, ...],
) -> tuple[float, int] | None:
    """The branch's largest step at point ``j`` in arbitrary-exponent arithmetic, from the roots checked there
    exactly; None when no root is confirmed (then it is bisected). A largest step outside the float range is
    refused (an overflow to inf would read as "unconstrained", an underflow to 0 as "infeasible"). ``j`` indexes
    the branch's ``shape`` (all its inputs broadcast), which a root or term may read only part of."""
    terms = _slack_terms(r, h, step)
    cand = []
    for e in roots:
        v = to_mp(exact(e, values, j, shape))
        if v is None or v <= 0:
            continue
        t = [to_mp(exact(term, {**values, step: v}, j, shape)) for term in terms]
        if any(x is None for x in t):
            continue
        if abs(sum(t)) <= _ROOT_RTOL * sum(abs(x) for x in t):
            cand.append(v)
    if not cand:
        return None
    best = min(cand)
    sl = to_mp(exact(_slack_in_step(r, h, step), {**values, step: best / 2}, j, shape))
    if sl is not None and sl < 0:
        return 0.0, _NEVER
    if abs(best) > FLOAT_MAX:  # no float step reaches it: unbounded by this branch (Branch.beyond), not an error
        return math.inf, _CLOSED
    if float(best) == 0.0:
        raise out_of_range(r.id, f"the largest {step} under {h.name}", best)
    return float(best), _CLOSED


def _bisect(
    slack_expr: sp.Expr, step: str, values: Mapping[str, Value], shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Largest step with slack >= 0 at every point, assuming the feasible set is an interval (0, s*]: the binade
    of s* by bisection on the exponent, then s* to 1e-15. Returns the steps and their path codes."""

    def ok(x: np.ndarray) -> np.ndarray:
        (sl,) = call([slack_expr], {**values, step: x})
        sl = np.broadcast_to(np.asarray(sl), shape)
        good = sl >= 0
        lost = np.isnan(sl)
        if np.any(lost):  # an intermediate overflowed (inf * 0 at a huge step): its sign, exactly
            good = good.copy()
            for j in np.flatnonzero(lost):
                v = to_mp(exact(slack_expr, {**values, step: x}, int(j)))
                good[j] = v is not None and v >= 0
        return good

    one = ok(np.ones(shape))
    edge = ok(np.where(one, math.ldexp(1.0, _E_MAX), math.ldexp(1.0, _E_MIN)))
    free, never = one & edge, ~one & ~edge
    # 2^lo_e feasible, 2^hi_e not (decided points get a dummy bracket)
    lo_e = np.where(one, 0, _E_MIN)
    hi_e = np.where(one, _E_MAX, 0)
    lo_e, hi_e = np.where(free | never, 0, lo_e), np.where(free | never, 1, hi_e)
    while np.any(hi_e - lo_e > 1):
        mid = (lo_e + hi_e) // 2
        good = ok(np.ldexp(1.0, mid))
        lo_e, hi_e = np.where(good, mid, lo_e), np.where(good, hi_e, mid)
    lo, hi = np.ldexp(1.0, lo_e), np.ldexp(1.0, hi_e)
    # halving a binade to 1e-15 takes 50 steps (fewer among subnormals, where the gap stops at one ulp, 5e-324)
    for k in range(64):
        mid = (lo + hi) / 2
        good = ok(mid)
        np.copyto(lo, mid, where=good)
        np.copyto(hi, mid, where=~good)
        if k >= 48 and np.all(hi - lo <= _BISECT_RTOL * hi + 5e-324):
            break
    bound = np.where(free, np.inf, np.where(never, 0.0, lo))
    code = np.where(free, _FREE, np.where(never, _NEVER, _BISECT)).astype(np.int8)
    return bound, code


# --- the result -----------------------------------------------------------------------------------------------------
def max_step(result: Result | str, params: Mapping[str, ArrayLike] | None = None, **kw: ArrayLike) -> StepCheck:
    """The largest step size that satisfies every step-size branch, and which branch binds.

    ``params`` need only hold what the step-size conditions depend on. If the step itself (or the
    parameters it is derived from, e.g. ``eta_s``) is given, each branch also reports its slack. Each
    branch reports how its largest step was found (:attr:`Branch.path`).
    """
    r = as_result(result)
    if r.step is None:
        raise ParameterError(r.id, "this result constrains no step size")
    hyps = _step_hypotheses(r, r.step)
    if not hyps and not r.explicit:
        raise NoBoundError(r.id, _no_own_step_conditions(r, r.step))
    others = [h for h in r.hypotheses if h.kind in ("coupling", "choice") and _mentions_step(r, h)]
    names: set[str] = set()
    for h in hyps + others:
        names |= {x.name for x in h.lhs.free_symbols | h.rhs.free_symbols}
    raw = merge_params(r, params, kw)
    values, _, _ = resolve(r, raw, required=sorted(names - step_family(r)))
    given = values.get(r.step)
    solutions = _step_solutions(r, r.step)
    branches: list[Branch] = []
    for h in hyps:
        b, path = _branch_bound(r, h, r.step, solutions[h.name], values)
        holds: bool | np.ndarray | None = None
        slack: Value | None = None
        chk = _check_at(h, values)
        if chk is not None:
            holds, slack = chk.holds, (b - given if given is not None else chk.slack)
        canonical = f"{sp.sstr(h.lhs)} {h.rel} {sp.sstr(h.rhs)}"
        # a closed form never yields inf but for a largest step beyond the float range (_exact_root)
        out = np.logical_and(np.isinf(np.asarray(b, dtype=float)), np.asarray(path) == PATHS[_CLOSED])
        beyond = bool(out) if np.ndim(out) == 0 else out
        branches.append(Branch(h.name, h.source, h.printed, b, holds, slack, h.group, canonical, path, beyond))
    other_checks = [c for h in others if (c := _check_at(h, values)) is not None]
    stated = [b for b in branches if b.source == "statement"]
    basis = "statement" if stated or not branches else "+".join(sorted({b.source for b in branches}))
    m, bind = _min_branch(stated or branches)
    m_all, bind_all = _min_branch(branches)
    return StepCheck(r.id, r.step, given, m, bind, m_all, bind_all, branches, other_checks, basis)


def _check_at(h: Hypothesis, values: Mapping[str, Value]) -> HypothesisCheck | None:
    """``h`` checked at ``values``; None when they do not hold every name it reads (the step was not given)."""
    if not all(x.name in values for x in h.lhs.free_symbols | h.rhs.free_symbols):
        return None
    lhs, rhs = call([h.lhs, h.rhs], values)
    return check_hypothesis(h, lhs, rhs)


def _no_own_step_conditions(r: Result, step: str) -> str:
    """Why an O-form result with no step-size branch has no largest step (sl_noniid's Corollaries 1 and 2: the
    step is their choice, and the applied theorem's caps on it live in the explicit edition)."""
    choices = [h.name for h in r.hypotheses if h.kind == "choice" and _mentions_step(r, h)]
    fixed = f" (its {step} is set by the choice '{choices[0]}')" if choices else ""
    where = (
        f"use {r.see}, which checks the step-size conditions of the result it applies at that {step}"
        if r.see
        else "no explicit edition is encoded"
    )
    return f"stated only up to constants, with no step-size condition of its own to solve{fixed}; {where}"


def _min_branch(branches: Sequence[Branch]) -> tuple[Value, str | np.ndarray]:
    if not branches:
        return math.inf, "none"
    stack = np.stack(
        [np.asarray(b.bound, dtype=float) * np.ones(1) if np.ndim(b.bound) == 0 else b.bound for b in branches]
    )
    idx = np.argmin(stack, axis=0)
    m = np.min(stack, axis=0)
    if m.shape == (1,) and all(np.ndim(b.bound) == 0 for b in branches):
        return float(m[0]), branches[int(idx[0])].name
    return m, np.array([b.name for b in branches])[idx]
