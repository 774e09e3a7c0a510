"""Measured constants on the command line (``--constants FILE``): the values a result needs, picked by its
assumptions (:meth:`sfltheory.constants.Constants.params_for`). The one place ``bound``, ``check-lr``, ``plan``
and ``compare`` fill them, so every command picks the same variants (``L[clients]``, ``sigma_c2[max]`` ...).

With a model (``plan --model``), a file of constants per cut (``sfltheory measure --cuts all``) gives each cut its
own values (:func:`cut_constants`); a constant measured at one cut only is used for every cut, and a note says so.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from ..constants import Constants, CutConstants, cut_dependent
from ..errors import ParameterError
from ..plan.cuts import CutPoint, CutTable
from ..registry import get
from .cuts import cuts_of

SPLIT = ("d", "d_c", "d_s")  # given by a model's cuts, never taken from a record when planning over cuts


def defer(a: argparse.Namespace, lines: Sequence[str]) -> None:
    """Lines printed on stderr once the command has succeeded (bad input gets its one error line alone); a line
    already deferred is not repeated."""
    deferred: list[str] = a.__dict__.setdefault("deferred_notes", [])
    deferred.extend(x for x in dict.fromkeys(lines) if x not in deferred)


def measured_for(a: argparse.Namespace, c: Constants, rid: str, given: Mapping[str, Any]) -> dict[str, float]:
    """The measured values result ``rid`` needs from ``c``, with its choices deferred as ``# ...`` notes and, where
    another variant stands in for what an assumption needs (L for L[clients] under "every local objective is
    L-smooth"), one warning line each unless the value is ``given`` on the command line."""
    gaps = c.variant_gaps(rid, given, _read_by(a, rid))
    if gaps:  # the file holds the name in another variant: say so, not "missing"
        raise ParameterError("--constants", f"{getattr(a, 'constants', 'the record')} {gaps[0]}")
    measured, notes = c.params_for(rid)
    label = "" if getattr(a, "id", None) == rid else f"{rid}: "
    defer(a, [f"# {label}{n}" for n in notes])
    defer(a, [f"sfltheory: warning: {label}{w}" for w in c.fallbacks(rid, given=given)])
    return measured


def _read_by(a: argparse.Namespace, rid: str) -> set[str] | None:
    """The names the command reads of result ``rid``: for ``check-lr`` those of the conditions that bound or fix
    the step (a constant of the bound alone is not needed there); every name otherwise (None)."""
    if getattr(a, "cmd", None) != "check-lr":
        return None
    kinds = ("step_size", "coupling", "choice")
    return {s.name for h in get(rid).hypotheses if h.kind in kinds for s in h.lhs.free_symbols | h.rhs.free_symbols}


def with_constants(a: argparse.Namespace, params: dict[str, Any], rid: str | None = None) -> dict[str, Any]:
    """Measured constants (``--constants FILE``) result ``rid`` (default: the command's ``id``) needs, overridden by
    name=value pairs. A per-cut file gives the record of ``--cut`` (with ``--model``)."""
    if not getattr(a, "constants", None):
        return params
    cc = CutConstants.load(a.constants)
    if not cc.per_cut:
        c = cc.records[0]
    elif getattr(a, "cut", None) is not None and getattr(a, "model", None) is not None:
        c = cc.at(cuts_of(a).by_name(a.cut).name)
    else:
        raise ParameterError(
            "--constants",
            f"{a.constants} holds constants per cut ({', '.join(cc.cuts)}): pick one with --model M --cut",
        )
    return {**measured_for(a, c, rid or a.id, params), **params}


def cut_constants(
    a: argparse.Namespace, rid: str, table: CutTable, planned: Sequence[CutPoint], params: Mapping[str, Any]
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """``--constants FILE`` for a plan over the ``planned`` cuts of ``table``: the values used at every cut, and
    those that differ by cut (one value per planned cut). A name given as name=value is not taken from the file;
    d, d_c and d_s come from the cuts. A constant measured at one cut only is used for every cut (noted); one
    measured at some planned cuts but not all is refused."""
    cc = CutConstants.load(a.constants)
    model_names = {c.name for c in table.cuts}
    strange = [c for c in cc.cuts if c not in model_names]
    if strange:
        raise ParameterError(
            "--constants", f"measured at cut '{strange[0]}', which {table.model} does not have (its cuts: "
            f"{', '.join(c.name for c in table.cuts[:6])}{', ...' if len(table.cuts) > 6 else ''})"
        )  # fmt: skip
    for r in cc.records:
        if r.d is not None and r.d.value != table.d:
            raise ParameterError(
                "--constants", f"measured on a model with d = {r.d.value:,.0f} parameters; {table.model} has d = "
                f"{table.d:,}: measure the model you plan"
            )  # fmt: skip
    values: dict[str | None, dict[str, float]] = {}  # cut (None: measured without one) -> the values used
    keys: dict[str, str] = {}  # name -> the variant picked (to tell whether it depends on the cut)
    for r in cc.records:
        got = measured_for(a, r, rid, params)
        values[r.meta.get("cut") or None] = {k: v for k, v in got.items() if k not in SPLIT and k not in params}
        keys.update({ch.name: ch.key for ch in r.choices(rid) if ch.key is not None})
    names = list(dict.fromkeys(n for v in values.values() for n in v))
    scalars: dict[str, float] = {}
    columns: dict[str, list[float]] = {}
    once: dict[str, list[str]] = {}  # cut measured at -> cut-dependent names measured there only
    for n in names:
        where = [c for c, v in values.items() if n in v]
        if all(p.name in where for p in planned):
            col = [values[p.name][n] for p in planned]
            if len(set(col)) == 1:
                scalars[n] = col[0]
            else:
                columns[n] = col
        elif len(where) == 1:
            scalars[n] = values[where[0]][n]
            if cut_dependent(keys.get(n, n)):
                once.setdefault(str(where[0]), []).append(n)
        else:
            missing = [p.name for p in planned if p.name not in where]
            raise ParameterError(
                "--constants", f"{n} was measured at {len(where)} cuts but not at {', '.join(missing[:4])}: measure "
                "every cut (sfltheory measure --cuts all) or plan one with --cut"
            )  # fmt: skip
    defer(
        a,
        [
            f"sfltheory: note: {', '.join(ns)} measured at cut '{cut}' only: used for every cut planned "
            "(sfltheory measure --cuts all measures each)"
            for cut, ns in once.items()
        ],
    )
    return scalars, columns
