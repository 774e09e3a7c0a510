"""Check 6: rates.

Does the stated O-rate match the leading order of the explicit bound under the stated choices? The rate's
O-terms are parsed (:mod:`sfltheory.latex`); the explicit bound is the result itself or the edition it
names in ``see``, evaluated with its defaults (the choices) applied. Exponents are compared numerically in
log-log: in T, and, for the terms that lead in T, in every other parameter the rate names and in d, tau, M.
A rate whose step size is not fixed by an encoded choice is skipped (its T-exponent is undefined).

Every condition the result and its proof print is honoured (:func:`direction`): a parameter grows only along a
direction on which those conditions keep holding. Where a condition bounds it by others (the corollaries' tau <= d,
a step choice 1/sqrt(d tau T) that must stay below 1/(64 L (tau + 2 d_s))), those others grow with it: a rate is a
claim about the region the result is stated on, and tau cannot outgrow d there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import sympy as sp

from .. import lexicon
from ..errors import SflTheoryError
from ..evaluate import Evaluation, evaluate
from ..latex import LatexError
from ..result import Result
from .context import Context, seed_location
from .findings import Finding
from .sampling import HONOURED_SOURCES, base_names
from .search import numeric

O_TERM = re.compile(r"\\mathcal\s*\{?O\}?\s*(?:\\left|\\big|\\Big)?\s*\(")
BIG, HUGE = 1e12, 1e14
POINT = 7.0  # every other parameter; counts of the dimension group get DIM
DIM = 1e6
GROW = 1e3  # how far a parameter grows to measure its exponent
FAR = 1e9  # how far it must be able to grow, with the conditions holding, for an exponent to mean anything


def o_terms(rate: str) -> list[str]:
    """The arguments of every \\mathcal O(...) in ``rate``."""
    out = []
    for m in O_TERM.finditer(rate):
        depth, j = 1, m.end()
        while j < len(rate) and depth:
            depth += {"(": 1, ")": -1}.get(rate[j], 0)
            j += 1
        body = rate[m.end() : j - 1]
        out.append(re.sub(r"\\(right|big|Big)\s*$", "", body.strip()))
    return out


def _standin(r: Result, ctx: Context) -> Result | None:
    if r.explicit:
        return r
    return next((c for c in ctx.catalogue if c.id == r.see and c.explicit), None)


def _points(base: dict[str, float], names: Sequence[str], factor: float) -> dict[str, np.ndarray]:
    """Two points: ``base``, and ``base`` with every one of ``names`` multiplied by ``factor``."""
    pts = {k: np.full(2, v) for k, v in base.items()}
    for n in names:
        pts[n] = np.array([base[n], base[n] * factor])
    return pts


def _evaluate(e: Result, pts: dict[str, np.ndarray]) -> Evaluation | None:
    try:
        return evaluate(e, pts)
    except SflTheoryError:
        return None


def _terms(e: Result, base: dict[str, float], names: Sequence[str], factor: float) -> np.ndarray | None:
    ev = _evaluate(e, _points(base, names, factor))
    if ev is None:
        return None
    return np.stack([np.broadcast_to(np.asarray(v, dtype=float), (2,)) for v in ev.terms.values()])


def _broken(e: Result, base: dict[str, float], names: Sequence[str], factor: float) -> tuple[int, set[str]]:
    """How many conditions of ``e`` its statement or proof prints hold at ``base`` and fail once ``names`` have grown
    by ``factor``, and the names those conditions read. A grown point ``e`` refuses (a derived count below 1: the
    split d_c = sqrt(d/tau) once tau > d) breaks more than any condition can."""
    ev = _evaluate(e, _points(base, names, factor))
    if ev is None:
        return len(e.hypotheses) + 1, set()
    count, read = 0, set()
    for c in ev.hypotheses:
        held = np.broadcast_to(np.asarray(c.holds, dtype=bool), (2,))
        if c.source in HONOURED_SOURCES and held[0] and not held[1]:
            h = next(h for h in e.hypotheses if h.name == c.name)
            count += 1
            read |= {x.name for x in h.lhs.free_symbols | h.rhs.free_symbols}
    return count, read


def direction(e: Result, base: dict[str, float], name: str, names: Sequence[str]) -> list[str] | None:
    """The parameters that grow with ``name`` so that every condition ``e``'s statement and proof print, holding at
    ``base``, still holds far out (``name`` and its company multiplied by :data:`FAR`): ``[name]`` when nothing
    bounds it; with tau <= d, ``[tau, d]``. Greedy: while a condition breaks, add the drawn parameter whose growth
    mends the most of the broken ones (the condition's own names first). None when none mends them: the conditions
    bound ``name``, and no exponent in it is a rate."""
    group = [name]
    while True:
        broken, own = _broken(e, base, group, FAR)
        if not broken:
            return group
        best: tuple[int, int, str] | None = None
        for cand in names:
            if cand in group:
                continue
            key = (broken - _broken(e, base, [*group, cand], FAR)[0], int(cand in own), cand)
            if key[0] > 0 and (best is None or key[:2] > best[:2]):
                best = key
        if best is None:
            return None
        group.append(best[2])


def _grown(group: Sequence[str]) -> str:
    return "" if len(group) == 1 else f" (with {', '.join(group[1:])} growing alike, so that its conditions hold)"


def _slope(a: np.ndarray, x: tuple[float, float]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (np.log(np.abs(a[..., 1])) - np.log(np.abs(a[..., 0]))) / np.log(x[1] / x[0])


def check(r: Result, ctx: Context) -> list[Finding]:
    """The rates check on ``r``: findings where the stated O-rate's exponent in T differs from the explicit
    bound's (``bound invalid`` when the bound decays more slowly, else ``cosmetic``), or, that exponent agreeing,
    where the bound's leading terms grow faster than the rate's in another parameter (``constant off``)."""
    if not r.rate:
        return []
    e = _standin(r, ctx)
    if e is None:
        ctx.skip(r, "rates", "no explicit bound to compare the rate with")
        return []
    names = base_names(e, e.parameters())
    if e.step is not None and e.step in names:
        ctx.skip(r, "rates", f"the rate's choice of {e.step} is not encoded in {e.id}")
        return []
    try:
        rate = sp.Add(*(ctx.read(t, r) for t in o_terms(r.rate)))
    except LatexError as err:
        ctx.skip(r, "rates", f"the rate is not comparable: {err}")
        return []
    if "T" not in names:
        return []
    base = {n: (DIM if lexicon.get(n).group == "dimension" else POINT) for n in names}
    base["T"] = BIG
    tt = (BIG, HUGE)
    at_base = _evaluate(e, _points(base, [], 1.0))
    if at_base is None or not all(
        bool(np.all(c.holds)) for c in at_base.hypotheses if c.source in HONOURED_SOURCES and c.kind != "validity"
    ):
        ctx.skip(r, "rates", "the conditions of the explicit bound fail at the point the exponents are measured from")
        return []
    terms = _terms(e, base, ["T"], HUGE / BIG)
    if terms is None:
        ctx.skip(r, "rates", "the explicit bound cannot be evaluated at large T")
        return []
    rate_vals = {n: np.array([base.get(n, POINT)] * 2) for n in {x.name for x in rate.free_symbols}}
    rate_vals["T"] = np.array(tt)
    r_terms = [numeric(t, rate_vals) * np.ones(2) for t in sp.Add.make_args(rate)]
    e_bound = float(np.max(_slope(terms, tt)))
    e_rate = float(np.max(_slope(np.stack(r_terms), tt)))
    out = []
    if abs(e_bound - e_rate) > 0.02:
        out.append(
            _finding(
                r,
                e,
                f"in T the explicit bound {e.id} decays as T^{e_bound:.3g}, the rate says T^{e_rate:.3g}",
                "bound invalid" if e_bound > e_rate else "cosmetic",
            )
        )
        return out
    lead = _slope(terms, tt) > e_bound - 0.02
    r_lead = _slope(np.stack(r_terms), tt) > e_rate - 0.02
    lead_rate = sp.Add(*(t for t, k in zip(sp.Add.make_args(rate), r_lead, strict=True) if k))
    for n in sorted(({x.name for x in rate.free_symbols} | {"d", "tau", "M"}) & set(names) - {"T"}):
        group = direction(e, base, n, names)
        if group is None:
            continue  # the conditions bound n: it cannot grow on the region the result is stated on
        xs = (base[n], base[n] * GROW)
        t2 = _terms(e, base, group, GROW)
        if t2 is None:
            continue
        # the largest exponent among the leading terms: what dominates as the parameter grows
        b = float(np.nanmax(_slope(t2[lead], xs)))
        rv = {k: v.copy() for k, v in rate_vals.items()}
        rv["T"] = np.full(2, BIG)
        for g in group:
            rv[g] = np.array([base[g], base[g] * GROW])
        a = float(np.nanmax([_slope(numeric(t, rv) * np.ones(2), xs) for t in sp.Add.make_args(lead_rate)]))
        if np.isfinite(a) and np.isfinite(b) and b > a + 0.05:
            out.append(
                _finding(
                    r,
                    e,
                    f"the terms of {e.id} that lead in T grow as {n}^{b:.3g}, the rate's as {n}^{a:.3g}{_grown(group)}",
                    "constant off",
                )
            )
    return out


def _finding(r: Result, e: Result, found: str, severity: str) -> Finding:
    return Finding(
        result=r.id,
        check="rates",
        printed=r.rate or "",
        found=found,
        severity="bound invalid"
        if severity == "bound invalid"
        else ("cosmetic" if severity == "cosmetic" else "constant off"),
        seed=seed_location(r.provenance),
    )
