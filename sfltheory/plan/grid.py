"""The planner's grid: which values of the searched parameter are tried, and at which cuts.

A plan evaluates a result on a (cuts x values) grid. This module holds what spans that grid:

* the searched parameter (``over``, an integer parameter of the result) and its values: the user's list,
  the ``grid`` argument or :data:`DEFAULT_GRID` (1..1000);
* the user's parameters in the vocabulary's names;
* a model's cut table expanded into parameter columns (one row per cut): ``d_c``, ``d_s``, ``d`` and the
  activation size ``q_smash`` where the result has them, plus the client share of the work and the
  activation size the time model reads.

The step size is not a grid axis: :func:`~sfltheory.plan.search.solve` picks it at every grid point.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import lexicon
from ..errors import ParameterError
from ..evaluate import ArrayLike
from ..result import Result
from .cuts import CutPoint, CutTable

DEFAULT_GRID = np.arange(1, 1001, dtype=float)
"""The values of the searched parameter tried when neither a value list nor a grid is given."""

SPLIT_NAMES = ("d", "d_c", "d_s", "q_smash")
"""The parameters a model's cut table gives (the user may not give them as well)."""


def check_search(r: Result, params: Any, cuts: Any, over: str) -> None:
    """Refuse arguments that span no grid: ``params`` not a mapping, ``cuts`` not a cut table, or ``over``
    not an integer parameter of ``r``."""
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"must be a mapping of name to value (got {type(params).__name__})")
    if cuts is not None and not isinstance(cuts, CutTable):
        raise ParameterError(
            "cuts", f"must be a CutTable, e.g. verify.models.model_cuts('resnet18') (got {type(cuts).__name__})"
        )
    if not lexicon.is_known(over) or over not in set(r.parameters()):
        ints = [n for n in r.parameters() if lexicon.get(n).domain == "count"]
        raise ParameterError(
            "over", f"{r.id} has no parameter '{over}' to optimise; its integer parameters: {', '.join(ints) or 'none'}"
        )
    if lexicon.get(over).domain not in ("count", "count0"):
        raise ParameterError("over", f"'{over}' is not an integer parameter (domain {lexicon.get(over).domain})")


def canonical(r: Result, key: str) -> str:
    """The vocabulary's name for ``key`` (itself, or what the result's paper calls an alias of it)."""
    if lexicon.is_known(key):
        return key
    return lexicon.aliases_for(r.paper).get(key, key)


def canonical_params(r: Result, params: Mapping[str, ArrayLike]) -> dict[str, Any]:
    """The user's parameters under their vocabulary names; one given under two names is refused."""
    p: dict[str, Any] = {}
    for k, v in params.items():
        name = canonical(r, k)
        if name in p:
            raise ParameterError(k, "given twice")
        p[name] = v
    return p


def grid_of(over: str, given: Any, grid: ArrayLike | None) -> np.ndarray:
    """The sorted distinct values of ``over`` to try: ``given`` (the user's value or list for ``over``),
    else ``grid``, else :data:`DEFAULT_GRID`. Every value must be an integer >= 1."""
    if given is not None and grid is not None:
        raise ParameterError(over, "given as a value and as a grid; give one")
    raw = given if given is not None else (DEFAULT_GRID if grid is None else grid)
    g = np.atleast_1d(np.asarray(raw, dtype=float))
    if g.ndim != 1 or g.size == 0:
        raise ParameterError(over, "the grid must be a non-empty list of values")
    if not np.all(np.isfinite(g)) or np.any(g < 1) or np.any(g != np.round(g)):
        raise ParameterError(over, f"grid values must be integers >= 1 (got {g[(g < 1) | (g != np.round(g))][:1]})")
    return np.unique(g)


@dataclass
class CutColumns:
    """The grid's cut axis: the cuts tried and the parameter columns (cuts x 1) they give.

    Without a model there is one row, the cut ``None``, and no columns.
    """

    cuts: list[CutPoint | None]
    params: dict[str, np.ndarray] = field(default_factory=dict)  # d_c, d_s and, where the result has them, d, q_smash
    fraction: np.ndarray | None = None  # client share of the work at each cut (for the time model)
    activation: np.ndarray | None = None  # activation size at each cut, NaN where the model table lacks it
    split_free: bool = False  # the result has none of the split parameters: every cut gives the same bound


def _column(xs: Sequence[float | None]) -> np.ndarray:
    return np.asarray(xs, dtype=float)[:, None]


def per_cut_columns(
    r: Result, cuts: CutTable | None, given: Mapping[str, Any], per_cut: Mapping[str, Sequence[float]] | None
) -> dict[str, np.ndarray]:
    """Parameters that differ by cut (measured at each cut: ``sfltheory measure --cuts all``) as columns, one value
    per cut of ``cuts``; a name may not also be given, nor be part of the split."""
    if not per_cut:
        return {}
    if not isinstance(per_cut, Mapping):
        raise ParameterError(
            "per_cut", f"must be a mapping of name to one value per cut (got {type(per_cut).__name__})"
        )
    if cuts is None:
        raise ParameterError("per_cut", "values per cut need the model's cuts")
    out: dict[str, np.ndarray] = {}
    for k, v in per_cut.items():
        name = canonical(r, k)
        if name in SPLIT_NAMES:
            raise ParameterError(k, "the model's cuts give the split: not a value per cut")
        if name in given:
            raise ParameterError(k, "given as a value and as a value per cut; give one")
        try:
            col = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(k, "values per cut must be numbers") from None
        if col.ndim != 1 or col.size != len(cuts.cuts):
            raise ParameterError(k, f"needs one value per cut: {len(cuts.cuts)} cuts, got shape {col.shape}")
        if not np.all(np.isfinite(col)):
            raise ParameterError(k, "values per cut must be finite")
        out[name] = col[:, None]
    return out


def cut_columns(
    r: Result, cuts: CutTable | None, given: Mapping[str, Any], per_cut: Mapping[str, Sequence[float]] | None = None
) -> CutColumns:
    """Expand ``cuts`` into parameter columns for ``r``; ``given`` (the user's parameters) may not hold the
    split the cuts give, and ``q_smash``, when ``r`` needs it and it is not given, needs every cut's
    activation size. ``per_cut``: more parameters, one value per cut (:func:`per_cut_columns`)."""
    extra = per_cut_columns(r, cuts, given, per_cut)
    if cuts is None:
        return CutColumns([None])
    rparams = set(r.parameters())
    clash = [n for n in SPLIT_NAMES if n in given and (n != "q_smash" or "q_smash" in rparams)]
    if clash:
        raise ParameterError(clash[0], "the model's cuts give the split: leave d, d_c, d_s out")
    params = {"d_c": _column([c.d_c for c in cuts.cuts]), "d_s": _column([c.d_s for c in cuts.cuts])}
    if "d" in rparams:
        params["d"] = _column([c.d for c in cuts.cuts])
    acts = [c.activation for c in cuts.cuts]
    if "q_smash" in rparams and "q_smash" not in given:
        if any(a is None for a in acts):
            raise ParameterError("q_smash", f"{r.id} needs the activation size at each cut; the model table lacks it")
        params["q_smash"] = _column(acts)
    params.update(extra)
    return CutColumns(
        list(cuts.cuts),
        params,
        _column([c.client_fraction for c in cuts.cuts]),
        _column([math.nan if a is None else a for a in acts]),
        not (rparams & set(SPLIT_NAMES)),
    )
