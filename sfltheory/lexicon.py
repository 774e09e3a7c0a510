"""The names in use, looked up by name: the canonical vocabulary (:mod:`sfltheory.vocabulary`), the names each
paper adds (its package's ``PARAMS``) and those of the user's loaded result files.

The catalogue (:func:`sfltheory.registry.params_in_use`) holds the merged set and forgets it when a user's files
are loaded or dropped, so a user's names come and go with their results. Each paper's ASCII spellings of its
notation (its package's ``ASCII_ALIASES``) are accepted as aliases where they do not collide with a name in use
(:func:`aliases_for`).
"""

from __future__ import annotations

import sympy as sp

from .builtin import paper_attribute
from .registry import params_in_use
from .vocabulary import Param, symbol


def get(name: str) -> Param:
    """The parameter ``name`` (KeyError for a name not in use)."""
    try:
        return params_in_use()[name]
    except KeyError:
        raise KeyError(name) from None


def is_known(name: str) -> bool:
    """Whether ``name`` is a name in use (canonical, a paper's own, or a loaded user file's)."""
    return name in params_in_use()


def all_params() -> list[Param]:
    """Every parameter in use, in catalogue order (the canonical names first)."""
    return list(params_in_use().values())


def aliases_for(paper: str) -> dict[str, str]:
    """Unambiguous ASCII aliases of a paper (its package's ``ASCII_ALIASES``): alias -> canonical. Aliases that
    spell a canonical name (e.g. ``K``, clients in cut_layer but local steps canonically) are not accepted."""
    known = params_in_use()
    return {a: c for a, c in paper_attribute(paper, "ASCII_ALIASES").items() if a not in known}


def latex_names() -> dict[sp.Symbol, str]:
    """SymPy symbol -> its LaTeX, for every name in use (how ``sp.latex`` prints a bound)."""
    return {symbol(p.name): p.latex for p in params_in_use().values()}
