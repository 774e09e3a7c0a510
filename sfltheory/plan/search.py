"""Vectorised searches on a result: the step size to plan with, a bound on a grid, rounds to accuracy.

Every function here takes parameters that may be NumPy arrays broadcast against each other (a grid over
cuts x tau, say) and makes a fixed number of vectorised evaluations, never a Python loop over grid points.

Step modes (the ``step`` argument):

* ``"max"``: the largest step every stated branch allows (``require="all"``: every branch, proof and
  implicit ones included);
* ``"joint"``: the step in ``(0, max]`` that minimises the bound (log-grid search refined by golden
  section, per grid point);
* ``"given"``: the user's step (or the step the result itself defines, e.g. Corollary 4.2's
  eta = 1/sqrt(d tau T)), used as is;
* ``"auto"``: ``"given"`` if the step is given or defined by the result, else ``"max"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np
import sympy as sp

from .. import lexicon
from ..errors import ParameterError
from ..evaluate import ArrayLike, Evaluation, Value, as_result, evaluate, resolve
from ..result import Result
from ..stepsize import max_step, step_family, step_subs

StepMode = Literal["auto", "max", "joint", "given"]
Require = Literal["statement", "all"]
STEP_MODES: tuple[str, ...] = ("auto", "max", "joint", "given")

_JOINT_GRID = 49  # log-spaced candidates per point, then golden section around the best
_JOINT_SPAN = 1e-9  # smallest candidate, relative to the largest feasible step
_GOLDEN_ITERS = 60
_PLACEHOLDER_STEP = 1.0  # stands in where no step is feasible; those points are masked out


@dataclass
class GridEval:
    """A result evaluated on a grid: the step used at each point, the bound, and what holds."""

    step_mode: str
    step: Value | None  # None: the result has no step size
    max_step: Value | None
    binding: Any  # name of the binding step-size branch at each point (str or array of str)
    evaluation: Evaluation
    feasible: bool | np.ndarray  # hypotheses required hold, bound not void, some step feasible

    @property
    def bound(self) -> Value:
        """The bound at each point of the grid."""
        return self.evaluation.value


def _user_gave_step(r: Result, params: Mapping[str, ArrayLike]) -> bool:
    if r.step is None:
        return False
    fam = step_family(r)
    aliases = lexicon.aliases_for(r.paper)
    return any((k if lexicon.is_known(k) else aliases.get(k)) in fam for k in params)


def _step_is_defined(r: Result, params: Mapping[str, ArrayLike]) -> bool:
    """The step is given, or the result's defaults define it from what is given (a paper's choice)."""
    if r.step is None:
        return False
    try:
        values, _, _ = resolve(r, params, required=())
    except ParameterError:
        return False
    return r.step in values


def resolve_mode(r: Result, params: Mapping[str, ArrayLike], mode: str) -> str:
    """The step mode to use for ``r``: ``"none"`` without a step size; ``"auto"`` becomes ``"given"`` when the step
    is given or defined by the result's defaults, else ``"max"``. A mode that contradicts ``params`` is refused
    (``max`` or ``joint`` with a step given, ``given`` without one)."""
    if mode not in STEP_MODES:
        raise ParameterError("step", f"must be one of {', '.join(STEP_MODES)} (got {mode!r})")
    if r.step is None:
        return "none"
    gave = _user_gave_step(r, params)
    if mode in ("max", "joint") and gave:
        raise ParameterError(
            r.step, f"given, but the step mode '{mode}' chooses it: leave the step sizes out or use step=given"
        )
    if mode == "given" and not _step_is_defined(r, params):
        raise ParameterError(r.step, f"missing: step mode 'given' needs the step size {r.step}")
    if mode == "auto":
        return "given" if _step_is_defined(r, params) else "max"
    return mode


@cache
def _bound_in_step(r: Result, step: str) -> tuple[tuple[sp.Symbol, ...], Callable[..., Any]]:
    """The bound with the step sizes derived from the step (eta_c = tau eta, ...) substituted."""
    expr = r.bound_expr.subs(step_subs(r, step))
    args = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return args, sp.lambdify(args, expr, modules="numpy", cse=True)


def _joint_step(r: Result, values: Mapping[str, Value], upper: np.ndarray) -> np.ndarray:
    """Per point, the step in (0, upper] minimising the bound: log grid, then golden section."""
    assert r.step is not None
    args, f = _bound_in_step(r, r.step)
    shape = upper.shape
    ax = (Ellipsis, None)

    def bound_at(eta: np.ndarray) -> np.ndarray:
        vals = [eta if a.name == r.step else np.asarray(values[a.name], dtype=float)[ax] for a in args]
        with np.errstate(all="ignore"):
            out = np.broadcast_to(np.asarray(f(*vals), dtype=float), eta.shape)
        return np.where(np.isnan(out), np.inf, out)

    top = np.log(np.where(upper > 0, upper, 1.0))
    xs = top[ax] + np.linspace(math.log(_JOINT_SPAN), 0.0, _JOINT_GRID)
    vals = bound_at(np.exp(xs))
    i = np.argmin(vals, axis=-1)[ax]
    lo = np.take_along_axis(xs, np.clip(i - 1, 0, _JOINT_GRID - 1), axis=-1)[..., 0]
    hi = np.take_along_axis(xs, np.clip(i + 1, 0, _JOINT_GRID - 1), axis=-1)[..., 0]
    best_x = np.take_along_axis(xs, i, axis=-1)[..., 0]
    best_v = np.take_along_axis(vals, i, axis=-1)[..., 0]
    g = (math.sqrt(5) - 1) / 2
    a, b = lo.copy(), hi.copy()
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = bound_at(np.exp(c)[ax])[..., 0], bound_at(np.exp(d)[ax])[..., 0]
    for _ in range(_GOLDEN_ITERS):
        left = fc <= fd  # the minimum lies in [a, d]: drop (d, b]; else drop [a, c)
        a, b = np.where(left, a, c), np.where(left, d, b)
        c_new = np.where(left, b - g * (b - a), d)  # left: the old c becomes the new d
        d_new = np.where(left, c, a + g * (b - a))  # right: the old d becomes the new c
        f_c_new = np.where(left, bound_at(np.exp(c_new)[ax])[..., 0], fd)
        f_d_new = np.where(left, fc, bound_at(np.exp(d_new)[ax])[..., 0])
        c, d, fc, fd = c_new, d_new, f_c_new, f_d_new
    x = (a + b) / 2
    fx = bound_at(np.exp(x)[ax])[..., 0]
    out = np.where(fx <= best_v, x, best_x)
    return np.broadcast_to(np.minimum(np.exp(out), np.where(upper > 0, upper, 1.0)), shape).copy()


def solve(
    result: Result | str,
    params: Mapping[str, ArrayLike],
    step: str = "auto",
    require: Require = "statement",
) -> GridEval:
    """Evaluate ``result`` at every point of ``params`` with the step chosen by ``step``."""
    r = as_result(result)
    if require not in ("statement", "all"):
        raise ParameterError("require", f"must be 'statement' or 'all' (got {require!r})")
    mode = resolve_mode(r, params, step)
    params = dict(params)
    m: Value | None = None
    binding: Any = None
    step_value: Value | None = None
    step_ok: bool | np.ndarray = True
    if mode == "given":
        sc = max_step(r, params)
        m, binding = (sc.max_step, sc.binding) if require == "statement" else (sc.max_step_all, sc.binding_all)
        ev = evaluate(r, params)
        step_value = ev.params.get(r.step or "")
    elif mode in ("max", "joint"):
        assert r.step is not None
        sc = max_step(r, params)
        m, binding = (sc.max_step, sc.binding) if require == "statement" else (sc.max_step_all, sc.binding_all)
        m_arr = np.asarray(m, dtype=float)
        if np.any(np.isinf(m_arr)):
            raise ParameterError(
                r.step, f"no step-size condition of {r.id} bounds it here: give {r.step}=... (step mode 'given')"
            )
        step_ok = m_arr > 0
        if mode == "max":
            chosen = np.where(step_ok, m_arr, _PLACEHOLDER_STEP)
        else:
            values, _, _ = resolve(r, {**params, r.step: np.where(step_ok, m_arr, _PLACEHOLDER_STEP)})
            chosen = np.where(step_ok, _joint_step(r, values, m_arr), _PLACEHOLDER_STEP)
        step_value = float(chosen) if chosen.ndim == 0 else chosen
        ev = evaluate(r, {**params, r.step: step_value})
    else:
        ev = evaluate(r, params)
    ok = ev.applies if require == "statement" else np.logical_and(ev.applies, ev.proof_conditions_hold)
    feasible = np.logical_and(np.logical_and(ok, np.logical_not(ev.void)), step_ok)
    feasible = np.logical_and(feasible, np.isfinite(np.asarray(ev.value, dtype=float)))
    feasible_out: bool | np.ndarray = bool(feasible) if np.ndim(feasible) == 0 else feasible
    return GridEval(mode, step_value, m, binding, ev, feasible_out)


def failing_reason(g: GridEval, over: str | None = None, grid: np.ndarray | None = None) -> str:
    """Why no point of ``g`` is feasible, naming the hypotheses that fail everywhere (or where)."""
    ev = g.evaluation
    n = np.size(g.feasible)
    parts: list[str] = []
    if g.max_step is not None and np.all(np.asarray(g.max_step) <= 0):
        parts.append(f"no step size satisfies the step-size conditions (binding: {_first(g.binding)})")
    for h in ev.hypotheses:
        holds = np.broadcast_to(np.asarray(h.holds), np.shape(g.feasible))
        bad = int(np.size(holds) - np.count_nonzero(holds))
        if bad == 0 or (h.source != "statement" and h.kind != "validity"):
            continue
        if bad == n:
            lhs, rhs = np.ravel(np.asarray(h.lhs, dtype=float)), np.ravel(np.asarray(h.rhs, dtype=float))
            at = f" (lhs {lhs[0]:.4g}, rhs {rhs[0]:.4g})"
            parts.append(f"{h.name} [{h.printed}] fails everywhere{at}")
        elif over is not None and grid is not None:
            ok_vals = grid[np.any(np.broadcast_to(holds, np.shape(g.feasible)).reshape(-1, grid.size), axis=0)]
            span = f"{over} in {ok_vals.min():g}..{ok_vals.max():g}" if ok_vals.size else "nowhere"
            parts.append(f"{h.name} [{h.printed}] holds only for {span}")
        else:
            parts.append(f"{h.name} [{h.printed}] fails at {bad} of {n} points")
    if not parts:
        parts.append("the bound is infinite or not finite at every point")
    return "; ".join(parts)


def _first(x: Any) -> str:
    a = np.asarray(x)
    return str(a.ravel()[0]) if a.ndim else str(x)


# ---------------------------------------------------------------------------------------------------
T_MAX = 2**53  # integers are exact in float64 up to here


@dataclass
class Rounds:
    """Smallest T with bound <= eps at each point (inf where none up to ``T_MAX``)."""

    eps: float
    T: Value
    reached: np.ndarray | bool
    floor: Value  # the bound at T_MAX (or where it stops applying): what more rounds cannot beat
    reason: str  # why eps is not reached, where it is not


def _with_T(params: Mapping[str, ArrayLike], T: np.ndarray) -> dict[str, ArrayLike]:
    return {**params, "T": T}


def check_decreasing_in_T(r: Result, params: Mapping[str, ArrayLike], step: str, require: Require) -> None:
    """Refuse results whose bound does not decrease in T (rounds to accuracy would be meaningless)."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in params.values()))
    samples = 2.0 ** np.arange(0, 54, 4)
    prev: np.ndarray | None = None
    for t in samples:
        g = solve(r, _with_T(params, np.full(shape, t)), step, require)
        v = np.where(np.asarray(g.feasible), np.asarray(g.bound, dtype=float), np.nan)
        if prev is not None:
            grew = np.asarray(v > prev * (1 + 1e-9) + 1e-300)
            if np.any(grew):
                raise ParameterError(
                    "T",
                    f"the bound of {r.id} does not decrease in T (it grows from T={t / 16:g} to T={t:g}), "
                    "so rounds to accuracy are not defined for it",
                )
        prev = np.where(np.isnan(v), prev if prev is not None else np.nan, v)


def rounds_to(
    result: Result | str,
    eps: float,
    params: Mapping[str, ArrayLike],
    step: str = "auto",
    require: Require = "statement",
) -> Rounds:
    """Smallest integer T with bound <= eps (hypotheses holding), by integer bisection on [1, 2^53]."""
    r = as_result(result)
    if not (isinstance(eps, int | float) and math.isfinite(eps) and eps > 0):
        raise ParameterError("eps", f"must be a finite number > 0 (got {eps!r})")
    if "T" not in r.parameters():
        raise ParameterError("T", f"{r.id} does not depend on the number of rounds T")
    if "T" in params:
        raise ParameterError("T", "rounds to accuracy chooses T: leave it out")
    check_decreasing_in_T(r, params, step, require)
    shape = np.broadcast_shapes(*(np.shape(v) for v in params.values()))

    def ok(T: np.ndarray) -> tuple[np.ndarray, GridEval]:
        g = solve(r, _with_T(params, T), step, require)
        good = np.logical_and(np.asarray(g.feasible), np.asarray(g.bound, dtype=float) <= eps)
        return np.broadcast_to(good, shape), g

    hi = np.full(shape, float(T_MAX))
    top_ok, g_top = ok(hi)
    lo = np.zeros(shape)  # invariant where active: not ok at lo (or lo = 0), ok at hi
    for _ in range(70):
        active = (hi - lo > 1) & top_ok
        if not np.any(active):
            break
        mid = np.where(active, np.floor((lo + hi) / 2), hi)
        good, _ = ok(np.maximum(mid, 1.0))
        hi = np.where(active & good, mid, hi)
        lo = np.where(active & ~good, mid, lo)
    T = np.where(top_ok, np.maximum(hi, 1), np.inf)
    floor = np.asarray(g_top.bound, dtype=float)
    reason = ""
    if not np.all(top_ok):
        feas = np.broadcast_to(np.asarray(g_top.feasible), shape)
        if np.any(~feas & ~top_ok):
            reason = f"at T = 2^53 the bound does not apply: {failing_reason(g_top)}"
        else:
            reason = f"the bound stays above eps = {eps:g} however many rounds: its floor is {np.min(floor):.4g}"
    scalar = T.ndim == 0
    return Rounds(
        eps,
        float(T) if scalar else T,
        bool(top_ok) if scalar else top_ok,
        float(floor) if floor.ndim == 0 else floor,
        reason,
    )
