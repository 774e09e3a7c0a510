"""Compiled numeric evaluation of SymPy expressions, shared by :mod:`sfltheory.evaluate` and :mod:`sfltheory.stepsize`.

One rule for inputs: every value reaches a compiled expression as a NumPy float64 (an array, or a NumPy scalar for
a single value; :func:`as_float64`), whichever entry point it came through, so ``x/0`` is ``inf`` (a void bound) and
``0/0`` NaN everywhere, never ``ZeroDivisionError``. Expressions are lambdified once per tuple of expressions (with
common-subexpression elimination) and cached. An inf or NaN in floats can be recomputed exactly
(:func:`call_finite`, :func:`exact`): mpmath arithmetic with any exponent tells an overflow in an intermediate from a
true value beyond the float range (refused with :class:`~sfltheory.errors.NumericRangeError`) and from a genuine
division by zero (kept as inf).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .errors import NumericRangeError, SflTheoryError

Value = float | np.ndarray
ArrayLike = float | int | Sequence[float] | np.ndarray

FLOAT_MAX = float(np.finfo(float).max)


def as_float64(v: Any, dtype: type = np.float64) -> Any:
    """A value as compiled expressions get it: a float64 array, or a NumPy scalar for a 0-d value (a Python float
    would raise ZeroDivisionError on x/0 where NumPy gives inf)."""
    a: np.ndarray = np.asarray(v, dtype=dtype)
    return a[()] if a.ndim == 0 else a


NOT_A_NUMBER = (sp.zoo, sp.oo, sp.nan)  # SymPy's infinities and nan (-oo contains oo): no NumPy function prints them


@cache
def compiled(args: tuple[sp.Symbol, ...], exprs: tuple[sp.Expr, ...]) -> Callable[..., Any]:
    """``exprs`` as one NumPy function of ``args`` returning a list (lambdified once, with CSE). A formula that
    SymPy already reduced to an infinity or nan (``1/(L-L)``, ``log(0)``, ``\\infty``) is refused: lambdify would
    print ``zoo`` as a name NumPy does not know (a ``KeyError`` at the call), and ``oo`` as a bound that "applies"."""
    for e in exprs:
        if sp.sympify(e).has(*NOT_A_NUMBER):
            raise SflTheoryError(f"the formula {e} is not a finite real number for any value of its parameters")
    return sp.lambdify(args, list(exprs), modules="numpy", cse=True)


def symbols_of(exprs: Sequence[sp.Expr]) -> tuple[sp.Symbol, ...]:
    """The free symbols of ``exprs``, sorted by name: the argument order of :func:`compiled`."""
    syms: set[sp.Symbol] = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    return tuple(sorted(syms, key=lambda s: s.name))


@cache
def _compiled_for(exprs: tuple[sp.Expr, ...]) -> tuple[tuple[sp.Symbol, ...], Callable[..., Any]]:
    args = symbols_of(exprs)
    return args, compiled(args, exprs)


def call_raw(exprs: Sequence[sp.Expr], values: Mapping[str, Any], dtype: type = np.float64) -> list[Any]:
    """``exprs`` at ``values`` (name -> value; extra names are ignored), as NumPy returns them."""
    args, f = _compiled_for(tuple(exprs))
    vals = [as_float64(values[a.name], dtype) for a in args]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return list(f(*vals))


def call(exprs: Sequence[sp.Expr], values: Mapping[str, Any]) -> list[Value]:
    """:func:`call_raw` with each output a float array, or a Python float for a scalar. A complex output with a
    non-zero imaginary part (``sqrt(-L)``) is an error, not a ``TypeError`` from ``float()``."""
    outs = call_raw(exprs, values)
    for e, o in zip(exprs, outs, strict=True):
        if np.iscomplexobj(o) and np.any(np.imag(o) != 0):
            raise SflTheoryError(f"the formula {e} is not a real number at these values (it gives {np.ravel(o)[0]})")
    return [np.asarray(np.real(o), dtype=float) if np.ndim(o) else float(np.real(o)) for o in outs]


@cache
def _mp_function(expr: sp.Expr) -> tuple[tuple[str, ...], Callable[..., Any]]:
    args = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return tuple(a.name for a in args), sp.lambdify(args, expr, modules="mpmath")


def exact(expr: sp.Expr, values: Mapping[str, Any], j: int, shape: tuple[int, ...] | None = None) -> Any:
    """``expr`` at element ``j`` of the (broadcast) ``values`` in mpmath arithmetic (30 digits or more, any
    exponent): no overflow or underflow, so a float's inf, NaN or 0 can be told from the true value. A value in
    ``values`` may itself be an mpmath number. ``j`` indexes ``shape`` (default: the broadcast of the values
    ``expr`` reads; a caller whose index runs over more values, a step-size branch over all its inputs, gives
    their shape). Returns an mpmath number, or None for x/0 and forms mpmath cannot evaluate."""
    names, f = _mp_function(expr)
    if shape is None:
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


def to_mp(v: Any) -> Any:
    """A real, finite mpmath number (a complex one with a negligible imaginary part counts), or None."""
    if isinstance(v, mpmath.mpc):
        if abs(v.imag) > 1e-12 * abs(v.real):
            return None
        v = v.real
    if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
        return None
    return v


def out_of_range(rid: str, what: str, v: Any) -> NumericRangeError:
    """The error for a true value ``v`` (an mpmath number) that no float can hold."""
    e = mpmath.log10(abs(v)) if v != 0 else 0
    shown = mpmath.nstr(v, 6) if abs(e) < 1e4 else f"about {'-' if v < 0 else ''}10^({mpmath.nstr(e, 6)})"
    return NumericRangeError(
        rid,
        what,
        f"is {shown}, outside the floating-point range "
        "(1.8e308 in size, 5e-324 the smallest positive): no finite number to report at these inputs",
    )


def _recompute(expr: sp.Expr, o: Value, values: Mapping[str, Any]) -> tuple[Value, list[tuple[int, Any]]]:
    """``o`` (``expr`` at ``values`` in floats) with each inf or NaN replaced by its exact value where that is finite
    in floats; the points whose exact value lies beyond the float range, with that value, are returned apart (``o``
    keeps its inf there). x/0 and 0/0 in exact arithmetic too keep the float's inf or NaN."""
    if np.all(np.isfinite(o)):
        return o, []
    a = np.array(o, dtype=float, ndmin=1)
    beyond: list[tuple[int, Any]] = []
    for j in np.flatnonzero(~np.isfinite(a)):
        v = to_mp(exact(expr, values, int(j)))
        if v is None:  # x/0 or 0/0 in exact arithmetic too: the float is right
            continue
        if abs(v) > FLOAT_MAX:  # j is a flat index: the output may be 2-D (a grid), so assign through .flat
            a.flat[j] = math.inf if v > 0 else -math.inf
            beyond.append((int(j), v))
            continue
        a.flat[j] = float(v)
    return (a.reshape(np.shape(o)) if np.ndim(o) else float(a[0])), beyond


def call_finite(rid: str, exprs: Sequence[sp.Expr], labels: Sequence[str], values: Mapping[str, Any]) -> list[Value]:
    """:func:`call`, with every inf or NaN recomputed exactly: a float overflow in an intermediate (L^2 lambda^2
    as inf * 0) gets its true finite value; a true value beyond the float range is refused with NumericRangeError.
    A genuine division by zero (a void bound) stays inf."""
    out = call(exprs, values)
    for i, o in enumerate(out):
        out[i], beyond = _recompute(exprs[i], o, values)
        if beyond:
            raise out_of_range(rid, labels[i], beyond[0][1])
    return out


def call_bounded(exprs: Sequence[sp.Expr], values: Mapping[str, Any]) -> tuple[list[Value], list[np.ndarray]]:
    """:func:`call_finite` for values that are compared, never reported as a result (a hypothesis side, an upper
    limit on the step): a true value beyond the float range is kept as +-inf and flagged, not refused -- eta = 1e-3
    <= 2.6e317 holds, with unbounded slack (issue 24). Returns the values and, per expression, a boolean array of
    the points beyond the float range (the output's shape)."""
    out = call(exprs, values)
    flags: list[np.ndarray] = []
    for i, o in enumerate(out):
        out[i], beyond = _recompute(exprs[i], o, values)
        f = np.zeros(max(int(np.size(o)), 1), dtype=bool)
        for j, _ in beyond:
            f[j] = True
        flags.append(f.reshape(np.shape(o)))
    return out, flags
