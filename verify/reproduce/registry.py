"""The seeds' experiments that ``sfltheory reproduce`` regenerates: one explicit table, in the order of issue 25
(item 2); no import-time discovery. Adding one: write its module (see :mod:`verify.reproduce.cut_layer_tables`) and
add its ``EXPERIMENT`` here."""

from __future__ import annotations

from collections.abc import Sequence

from sfltheory.errors import ParameterError

from . import (
    cut_layer_tables,
    heron_sfl_fig2,
    heron_sfl_fig3,
    heron_sfl_fig4,
    heron_sfl_fig7,
    heron_sfl_table2,
    mu_splitfed_fig2,
    mu_splitfed_fig3,
    mu_splitfed_fig4,
    mu_splitfed_table1,
    sl_noniid_fig2,
    sl_noniid_table2,
    sl_noniid_tables7_9,
)
from .experiment import Experiment

EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in (
        cut_layer_tables.EXPERIMENT,
        mu_splitfed_table1.EXPERIMENT,
        sl_noniid_table2.EXPERIMENT,
        sl_noniid_tables7_9.EXPERIMENT,
        sl_noniid_fig2.EXPERIMENT,
        mu_splitfed_fig2.EXPERIMENT,
        heron_sfl_fig2.EXPERIMENT,
        heron_sfl_fig3.EXPERIMENT,
        heron_sfl_fig4.EXPERIMENT,
        heron_sfl_fig7.EXPERIMENT,
        heron_sfl_table2.EXPERIMENT,
        mu_splitfed_fig3.EXPERIMENT,
        mu_splitfed_fig4.EXPERIMENT,
    )
}


def get(ident: str) -> Experiment:
    """The experiment registered under ``ident``; a ``ParameterError`` naming ``ID`` otherwise."""
    if ident not in EXPERIMENTS:
        raise ParameterError("ID", f"unknown experiment '{ident}' (known: {', '.join(EXPERIMENTS)})")
    return EXPERIMENTS[ident]


def select(idents: Sequence[str]) -> list[Experiment]:
    """The experiments named (each once, in the order given), or all of them when none is named."""
    if not idents:
        return list(EXPERIMENTS.values())
    return [get(i) for i in dict.fromkeys(idents)]


__all__ = ["EXPERIMENTS", "get", "select"]
