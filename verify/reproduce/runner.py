"""Running the seeds' experiments: each experiment's runs go through the sweep machinery (:mod:`verify.sweep`: one
atomic record per run under a hash of its configuration, so an interrupted ``reproduce`` resumes and a finished run
is never recomputed or lost), then its verdict, figure and record; then the summary.

Layout of ``--out``::

    summary.json, summary.md          every experiment's verdict (merged with what the folder held)
    <id with / as __>/runs/           the sweep's folder: sweep.json, results/KEY.json, table.csv
    <id with / as __>/<scale>.json    the outcome: verdict, numbers, the reproduced table
    <id with / as __>/<scale>.png     the figure (and .pdf)
    <id with / as __>/<scale>_theory.png   the theorems' bounds against a representative run (and .pdf)
    <id with / as __>/theory/         the constants measured for each theory run (a rerun measures nothing again)

Beside the plan's runs, each experiment runs one theory run per analysed algorithm (:mod:`verify.reproduce.theory`:
a plan's run again, recording ||grad f||^2 every round); the verdict is computed from the plan's runs only.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from sfltheory.errors import ParameterError
from sfltheory.outputs import check_dir, write_text
from sfltheory.plotting import save_formats, style
from verify.spec import device_name, integer
from verify.sweep import make_config, run_configs
from verify.sweep.entries import check_all

from .estimate import Estimate, estimate
from .experiment import SCALES, Experiment, Outcome, Scale
from .registry import select
from .summary import write_summary
from .theory import MEASURE_SAMPLES, SERIES, TINY_MEASURE_SAMPLES, theory_cells, theory_of
from .theoryfigure import draw_theory

Say = Callable[[str], None]


@dataclass(frozen=True, kw_only=True)
class Request:
    """What ``sfltheory reproduce`` was asked: the experiment ids (empty: all), the scale, the device, the results
    folder, the number of runs at once (1: in this process), and the folder of CIFAR-10 (the paper scale)."""

    ids: tuple[str, ...] = ()
    scale: str = "small"
    device: str = "cpu"
    out: str = "reproduce"
    workers: int = 2
    data_root: str | None = None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ParameterError("scale", f"must be one of {', '.join(SCALES)} (got {self.scale!r})")
        device_name("device", self.device)
        integer("workers", self.workers, low=1)
        if not isinstance(self.out, str) or not self.out:
            raise ParameterError("out", f"must be a folder (got {self.out!r})")


def scale_of(exp: Experiment, req: Request) -> Scale:
    """The experiment's scale asked for, its data folder filled in (``{root}``: ``data_root``, refused without)."""
    if req.scale not in exp.scales:
        raise ParameterError("scale", f"{exp.id} has no scale '{req.scale}' (it has {', '.join(exp.scales)})")
    s = exp.scales[req.scale]
    if "{root}" in s.data:
        if req.data_root is None:
            raise ParameterError("data_root", f"the {req.scale} scale of {exp.id} reads {s.data.split(':')[0]} from "
                                 "a folder: give it (--data-root DIR)")  # fmt: skip
        s = dataclasses.replace(s, data=s.data.format(root=req.data_root))
    return s


def estimates(req: Request) -> list[Estimate]:
    """The estimated time of each experiment asked for at its scale (a timed step of its model on the device)."""
    out = []
    for exp in select(req.ids):
        s = exp.scales.get(req.scale)
        if s is None:
            raise ParameterError("scale", f"{exp.id} has no scale '{req.scale}' (it has {', '.join(exp.scales)})")
        out.append(estimate(exp, s, req.device))
    return out


def reproduce(req: Request, *, progress: TextIO | None = None, say: Say | None = None) -> list[Outcome]:
    """Run every experiment of ``req`` at its scale, resuming what ``req.out`` holds; write each one's figure and
    outcome, then the summary. Everything is checked before any run (the ids, the scale, the data folder, the
    output folder); ``say`` receives a line per stage (the paper scale's estimate first)."""
    exps = select(req.ids)
    scales = [scale_of(e, req) for e in exps]
    root = check_dir("out", Path(req.out))
    for e, s in zip(exps, scales, strict=True):  # every run's settings, data and model, before any work
        check_all(
            [make_config("train", c.params, e.series) for c in e.plan(s, req.device)]
            + [make_config("train", c.params, (*e.series, *SERIES)) for c in theory_cells(e, s, req.device)]
        )
    if req.scale == "paper" and say is not None:
        for est in estimates(req):
            say(est.line())
    outcomes = [_one(e, s, req, root, progress, say) for e, s in zip(exps, scales, strict=True)]
    j, m = write_summary(root, outcomes)
    if say is not None:
        say(f"summary: {j} and {m}")
    return outcomes


def _one(exp: Experiment, scale: Scale, req: Request, root: Path, progress: TextIO | None, say: Say | None) -> Outcome:
    """One experiment: its runs (resumed), rows, verdict, figure and ``<scale>.json``."""
    t0 = time.perf_counter()
    folder = root / exp.slug
    cells = exp.plan(scale, req.device)
    if say is not None:
        say(f"{exp.id} ({exp.location} of {exp.seed}), scale '{scale.name}': {len(cells)} runs into {folder / 'runs'}")
    configs = [make_config("train", c.params, exp.series) for c in cells]
    tcells = theory_cells(exp, scale, req.device)
    tconfigs = [make_config("train", c.params, (*exp.series, *SERIES)) for c in tcells]
    summary = run_configs(exp.slug, configs + tconfigs, folder / "runs",
                          executor="serial" if req.workers == 1 else "process", max_parallel=req.workers,
                          progress=progress)  # fmt: skip
    table = summary.table
    by_key = {r["key"]: (r, rec) for r, rec in zip(table.rows, table.records, strict=True)}
    rows = tuple(_row(c.labels, *by_key[cfg.key], exp.series) for c, cfg in zip(cells, configs, strict=True))
    finding, numbers = exp.judge(scale, rows)
    failed = sum(1 for r in rows if r["status"] != "ok")
    if failed:
        first = next(r["error"] for r in rows if r["status"] != "ok")
        numbers = {**numbers, "failed_first_error": first}
    with style():  # the house rcParams hold while saving too (savefig.bbox = tight keeps the caption)
        fig = exp.draw(exp, scale, finding, numbers, rows)
        files = save_formats(fig, folder / scale.name, name="out")
    samples = TINY_MEASURE_SAMPLES if scale.name == "tiny" else MEASURE_SAMPLES
    theories = tuple(theory_of(c, cfg.key, *by_key[cfg.key], samples=samples,
                               cache=folder / "theory" / f"{cfg.key}-{c.labels['theorem']}.json".replace("/", "_"))
                     for c, cfg in zip(tcells, tconfigs, strict=True))  # fmt: skip
    tfiles: tuple[Path, ...] = ()
    if theories:
        with style():
            tfig = draw_theory(exp, scale, theories)
            tfiles = tuple(save_formats(tfig, folder / f"{scale.name}_theory", name="out"))
        if say is not None:
            for th in theories:
                say(f"{exp.id}: {th.result} against the {th.algorithm} run: {th.sentence}")
    outcome = Outcome(id=exp.id, scale=scale.name, finding=finding, numbers=numbers, rows=rows,
                      runs_before=summary.skipped, runs_now=summary.finished + summary.failed, failed=failed,
                      seconds=time.perf_counter() - t0,
                      files=tuple(str(f.relative_to(root)) for f in files),
                      theory=tuple(t.to_dict() for t in theories),
                      theory_files=tuple(str(f.relative_to(root)) for f in tfiles))  # fmt: skip
    write_text("out", folder / f"{scale.name}.json", json.dumps(outcome.to_dict(), indent=1, allow_nan=False) + "\n")
    if say is not None:
        say(f"{exp.id}: {finding.verdict}: {finding.sentence} ({summary.skipped} runs done before, "
            f"{summary.finished} now, {failed} failed; {outcome.seconds:.0f} s); figure {files[0]}")  # fmt: skip
    return outcome


def _row(labels: Mapping[str, Any], row: Mapping[str, Any], record: Mapping[str, Any] | None,
         series: Sequence[str]) -> dict[str, Any]:  # fmt: skip
    """A run's labels, its status and error, its seconds and final test accuracy in % (None unless finite), and each
    of ``series`` at the rounds it was recorded (``<name>_recorded``: [t, value] pairs; test_acc in %)."""
    ok = row.get("status") == "ok"
    acc = row.get("test_acc") if ok else None
    pct = round(100.0 * float(acc), 4) if isinstance(acc, int | float) and math.isfinite(acc) else None
    out = {**labels, "status": row.get("status"), "error": row.get("error"), "seconds": row.get("seconds"),
           "acc": pct}  # fmt: skip
    stored = ((record or {}).get("result") or {}).get("series", {}) if ok else {}
    for name in series:
        scale = 100.0 if name == "test_acc" else 1.0
        values = stored.get(name) or []
        out[f"{name}_recorded"] = [[t, round(scale * float(v), 4)] for t, v in enumerate(values) if v is not None]
    return out


def plan_sizes(ids: Sequence[str], scale: str, device: str) -> dict[str, int]:
    """The number of runs of each experiment at ``scale`` (for ``--list``)."""
    return {e.id: len(e.plan(e.scales[scale], device)) for e in select(ids) if scale in e.scales}


__all__ = ["Request", "estimates", "plan_sizes", "reproduce", "scale_of"]
