"""The summary of ``sfltheory reproduce``: every experiment's verdict at each scale run into ``--out``, as JSON
(``summary.json``) and Markdown (``summary.md``), both written atomically. An earlier summary in the folder is merged:
an experiment (and scale) run now replaces its entry, the others are kept, so the summary covers the folder."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sfltheory.outputs import write_text

from .experiment import Outcome
from .registry import EXPERIMENTS

SUMMARY_FORMAT = "sfltheory.reproduce-summary/1"


def merged(out: Path, outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """The entries of ``out/summary.json`` (when it is one of ours) with those of ``outcomes`` replacing the same
    (id, scale), in the registry's order."""
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    try:
        old = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = None
    if isinstance(old, dict) and old.get("format") == SUMMARY_FORMAT:
        for e in old.get("experiments", []):
            if isinstance(e, dict) and "id" in e and "scale" in e:
                entries[(str(e["id"]), str(e["scale"]))] = e
    for o in outcomes:
        entries[(o.id, o.scale)] = o.to_dict()
    order = {k: i for i, k in enumerate(EXPERIMENTS)}
    return [entries[k] for k in sorted(entries, key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))]


def markdown(entries: Sequence[Mapping[str, Any]]) -> str:
    """The verdicts as a Markdown page: a table (experiment, scale, verdict, runs, seconds), then each sentence with
    its seed location, the theory verdicts (each theorem against its representative run) and the figures."""
    out = ["# Reproduced experiments", "",
           "Written by `sfltheory reproduce`. Each verdict is computed from the reproduced numbers; the scale and "
           "its substitutions are stated in each figure's caption.", "",
           "| experiment | scale | verdict | runs (done before / now / failed) | seconds |",
           "|---|---|---|---|---|"]  # fmt: skip
    for e in entries:
        out.append(f"| `{e['id']}` | {e['scale']} | **{e['verdict']}** | {e['runs_before']} / {e['runs_now']} / "
                   f"{e['failed']} | {e['seconds']} |")  # fmt: skip
    out.append("")
    for e in entries:
        exp = EXPERIMENTS.get(str(e["id"]))
        where = f" (seed `{exp.seed}`, {exp.location}, lines {exp.lines[0]}-{exp.lines[1]})" if exp else ""
        out += [f"## `{e['id']}`, scale {e['scale']}: {e['verdict']}", ""]
        if exp is not None:
            out += [f"Claim{where}: {exp.claim}", ""]
        out += [f"{e['sentence']}.", ""]
        for t in e.get("theory", []):  # added fields (an older summary has none)
            if isinstance(t, dict):
                v, said = str(t.get("verdict")), str(t.get("sentence"))
                said = f"**{v}**{said[len(v) :]}" if said.startswith(v) else f"**{v}**: {said}"
                out += [f"Theory: `{t.get('result')}` against the reproduced {t.get('algorithm')} run "
                        f"{_labels(t.get('run'))}: {said}.", ""]  # fmt: skip
        pngs = [f for f in [*e.get("files", []), *e.get("theory_files", [])] if str(f).endswith(".png")]
        for f in pngs:
            out += [f"![{e['id']} ({e['scale']})]({f})", ""]
    return "\n".join(out).rstrip() + "\n"


def _labels(run: Any) -> str:
    """A run's labels as ``(name = value, ...)``."""
    return "(" + ", ".join(f"{k} = {v}" for k, v in run.items()) + ")" if isinstance(run, dict) else ""


def write_summary(out: Path, outcomes: Sequence[Outcome]) -> tuple[Path, Path]:
    """Write ``out/summary.json`` and ``out/summary.md`` (merged with an earlier summary there); returns their
    paths."""
    entries = merged(out, outcomes)
    raw = {"format": SUMMARY_FORMAT, "experiments": entries}
    j = write_text("--out", out / "summary.json", json.dumps(raw, indent=1, allow_nan=False) + "\n")
    m = write_text("--out", out / "summary.md", markdown(entries))
    return j, m


__all__ = ["SUMMARY_FORMAT", "markdown", "merged", "write_summary"]
