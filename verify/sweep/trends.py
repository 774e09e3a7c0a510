"""The tau and cut trend checks of ``sfltheory verify`` run as sweeps, and the report built from a sweep.

``tau_sweep`` and ``cut_sweep`` (:mod:`verify.pipeline.trends`) take a ``measure``: the function that does their
training runs. :func:`sweep_measure` gives one that runs them as a sweep -- stored under their hashes in a folder,
on a process pool or Ray, resumable -- and hands the check the series read back from the sweep's table, so the
check, its figure and its report section are built from the sweep. A sweep file declares it with
``trend = "tau_sweep"`` (or ``"cut_sweep"``) and the check's keyword arguments in ``[settings]``.

A ``verify`` sweep's table holds each verification whole: :func:`verifications` rebuilds them and
:func:`write_report` writes the verification report of ``sfltheory verify --out`` from them.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from sfltheory.atomic import write_atomic
from sfltheory.errors import ParameterError, SflTheoryError
from verify.pipeline import report, trends
from verify.pipeline.records import Verification
from verify.pipeline.trends import CHECKS

from .runner import Summary, run_configs
from .spec import TRENDS, Config, Sweep, make_config
from .store import Table

if TYPE_CHECKING:  # the types only: the pipeline is imported when a check or a report runs
    from verify.pipeline.records import Verification
    from verify.pipeline.trends.record import TrendCheck
    from verify.pipeline.trends.runs import MeasureFn


class SweepFailed(SflTheoryError):
    """Some configurations of a sweep failed (their errors are stored); the check cannot be built from it."""


def sweep_measure(
    out: str | Path,
    *,
    name: str = "trend",
    executor: str = "process",
    address: str | None = None,
    max_parallel: int | None = None,
    num_cpus: float = 1.0,
    num_gpus: float = 0.0,
    progress: TextIO | None = None,
    summaries: list[Summary] | None = None,
) -> MeasureFn:
    """A ``measure`` for the ``tau_sweep`` / ``cut_sweep`` checks (:mod:`verify.pipeline.trends`): runs the
    configurations as a sweep in ``out`` and returns their series from its table (``summaries`` collects what each
    call did). Raises :class:`SweepFailed` when a configuration failed, after the others ran."""

    def measure(configs: Sequence[Mapping[str, Any]], series: Sequence[str]) -> list[dict[str, np.ndarray]]:
        cs = [make_config("train", c, series) for c in configs]
        s = run_configs(name, cs, out, executor=executor, address=address, max_parallel=max_parallel,
                        num_cpus=num_cpus, num_gpus=num_gpus, progress=progress)  # fmt: skip
        if summaries is not None:
            summaries.append(s)
        return series_of(s.table, cs, series)

    return measure


def series_of(table: Table, configs: Sequence[Config], series: Sequence[str]) -> list[dict[str, np.ndarray]]:
    """The named series of each configuration, in order, from a sweep's table."""
    rows = {r["key"]: i for i, r in enumerate(table.rows)}
    failed = [r for r in table.rows if r["status"] != "ok"]
    if failed:
        first = failed[0]
        raise SweepFailed(f"sweep {table.name}: {len(failed)} of {len(table)} configurations failed or did not run "
                          f"(first {first['key']}: {first['error']}); rerun the sweep to retry them")  # fmt: skip
    got = {n: table.series(n) for n in series}
    out = []
    for c in configs:
        i = rows[c.key]
        out.append({n: np.asarray(got[n][i], dtype=float) for n in series})
    return out


def check_settings(trend: str, settings: Mapping[str, Any]) -> None:
    """Refuse a setting the check does not take (one line, naming it)."""

    if trend not in TRENDS:
        raise ParameterError("sweep.trend", f"must be one of {', '.join(TRENDS)} (got {trend!r})")
    takes = [p for p in inspect.signature(CHECKS[trend]).parameters if p not in ("progress", "measure")]
    for k in settings:
        if k not in takes:
            raise ParameterError(f"settings.{k}", f"{trend} does not take it (it takes: {', '.join(takes)})")


def run_trend(
    sweep: Sweep,
    *,
    executor: str = "process",
    address: str | None = None,
    max_parallel: int | None = None,
    out: str | Path | None = None,
    progress: TextIO | None = None,
) -> tuple[TrendCheck, list[Summary]]:
    """Run a trend sweep: the check with its training runs done as a sweep in ``out`` (default: the sweep's folder),
    then its figure and report (``report/``: report.html, report.md, report.json, trend_NAME.png) and ``trend.json``
    there. Returns the :class:`~verify.pipeline.trends.record.TrendCheck` and what the sweep did."""

    assert sweep.trend is not None
    check_settings(sweep.trend, sweep.settings)
    folder = Path(out) if out is not None else sweep.out
    if folder is None:
        raise ParameterError("sweep.out", "the sweep needs a results folder (out = ... or --out)")
    summaries: list[Summary] = []
    measure = sweep_measure(folder, name=sweep.name, executor=executor, address=address, max_parallel=max_parallel,
                            num_cpus=sweep.num_cpus, num_gpus=sweep.num_gpus, progress=progress,
                            summaries=summaries)  # fmt: skip
    settings = {k: tuple(v) if isinstance(v, list) else v for k, v in sweep.settings.items()}
    check = trends.CHECKS[sweep.trend](**settings, measure=measure)
    report.write([], folder / "report", trends=[check])
    write_atomic(folder / "trend.json", json.dumps(check.to_dict(), indent=1, allow_nan=False) + "\n")
    return check, summaries


# --- verify sweeps: the report --------------------------------------------------------------------------------


def verifications(table: Table) -> list[Verification]:
    """The verifications of a ``verify`` sweep's finished rows (:class:`verify.pipeline.records.Verification`)."""

    out = []
    for row, rec in zip(table.rows, table.records, strict=True):
        v = ((rec or {}).get("result") or {}).get("verification")
        if row["status"] == "ok" and v is not None:
            out.append(Verification.from_dict(v))
    return out


def write_report(table: Table, out: str | Path) -> list[Path]:
    """The verification report (report.html, .md, .json and one figure per result) of a ``verify`` sweep."""

    return report.write(verifications(table), out)


__all__ = ["SweepFailed", "check_settings", "run_trend", "series_of", "sweep_measure", "verifications", "write_report"]
