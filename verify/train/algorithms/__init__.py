"""The algorithms of the seeds, one module per paper, and the explicit registry ``ALGORITHMS``.

Each module names its paper, the algorithm in it and the results that analyse it; ``sfltheory train --list``
prints this registry. Adding an algorithm: write its class (see :mod:`verify.train.base`) and add it here.
"""

from __future__ import annotations

from sfltheory.errors import ParameterError

from ..base import SplitAlgorithm
from .cut_layer import SFLV1, SFLV2, SFLV1Analysed
from .heron_sfl import HeronSFL
from .mu_splitfed import MUSplit, MUSplitFed
from .sfl_aux import SflAux
from .sl_noniid import FedAvg, SplitLearning

ALGORITHMS: dict[str, type[SplitAlgorithm]] = {
    cls.name: cls
    for cls in (
        MUSplit,
        MUSplitFed,
        SplitLearning,
        FedAvg,
        HeronSFL,
        SFLV1,
        SFLV1Analysed,
        SFLV2,
        SflAux,
    )
}


def get(name: str) -> type[SplitAlgorithm]:
    """The algorithm class registered under ``name``."""
    if name not in ALGORITHMS:
        raise ParameterError("algorithm", f"unknown algorithm '{name}' (known: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[name]


def word_params() -> frozenset[str]:
    """The names of the parameters, of any algorithm, whose value is a word (a choice among names, or true/false):
    a command line keeps their ``name=value`` as text, and the algorithm's check states the values it accepts."""
    return frozenset(s.name for cls in ALGORITHMS.values() for s in cls.takes if s.kind in ("choice", "bool"))


__all__ = ["ALGORITHMS", "get", "word_params"]
