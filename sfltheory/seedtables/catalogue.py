"""The list of regenerated seed tables: id -> (seed location, builder). Explicit, in the seeds' order.

Each builder reads the encoded Results (:mod:`sfltheory.papers`) and returns a
:class:`~sfltheory.seedtables.core.SeedTable`; :func:`check_ids` validates names before anything is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..errors import ParameterError
from . import heron_tables, mu_table2, sl_tables
from .core import SeedTable

Builder = Callable[[], SeedTable]

TABLES: dict[str, tuple[str, Builder]] = {
    "mu_table2": ("MU-SplitFed (seed 000) Table 2, App. A: communication complexity", mu_table2.table2),
    "mu_fn3": ("MU-SplitFed (seed 000) footnote 3, Sec. 4.1: rounds to accuracy eps", mu_table2.footnote3),
    "heron_table1": (
        "HERON-SFL (seed 001) Table I, Sec. V-B: client resource costs per local update",
        heron_tables.table_i,
    ),
    "heron_remark2": (
        "HERON-SFL (seed 001) Remark 2, Sec. V-A: rounds to eps and where Theorem 1 holds",
        heron_tables.remark2,
    ),
    "sl_table1": ("SL non-IID (seed 002) Table 1, Sec. 4.3: FL vs SL bounds and R_eps", sl_tables.table1),
    "sl_table4": ("SL non-IID (seed 002) Table 4, App. A: communication cost of FL and SL", sl_tables.table4),
    "sl_table6": (
        "SL non-IID (seed 002) Table 6, App. C: summary of the SL theories (rebuilt: image missing)",
        sl_tables.table6,
    ),
}


def check_ids(ids: Iterable[str] | None, param: str = "ids") -> list[str]:
    """The table ids ``ids`` (None or empty: all), in the order given and once each; an unknown one is a
    ParameterError naming ``param``."""
    if ids is None:
        return list(TABLES)
    if isinstance(ids, str):  # a string would be read letter by letter
        raise ParameterError(param, f"must be a list of table ids, not the string {ids!r}")
    chosen = list(ids) or list(TABLES)
    for i in chosen:
        if i not in TABLES:
            raise ParameterError(param, f"unknown table '{i}'; tables: {', '.join(TABLES)}")
    return list(dict.fromkeys(chosen))


def build(table_id: str) -> SeedTable:
    """The table ``table_id`` regenerated from the encodings."""
    (tid,) = check_ids([table_id], "table_id")
    return TABLES[tid][1]()
