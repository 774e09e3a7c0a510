"""The reproduced experiments in ``sfltheory figs``' list and gallery (:class:`sfltheory.commands.figures.Extras`):
one entry per experiment of :data:`~verify.reproduce.registry.EXPERIMENTS` and, for an output folder, the verdicts
``sfltheory reproduce --out DIR/reproduce`` wrote there. Imports no torch."""

from __future__ import annotations

import json
from pathlib import Path

from sfltheory.commands.figures import Extras
from sfltheory.gallery import Entry

from .registry import EXPERIMENTS
from .summary import SUMMARY_FORMAT
from .theorems import theorem_of

FOLDER = "reproduce"  # under the gallery's folder: sfltheory reproduce --out DIR/reproduce
SHOWN_SCALES = ("small", "paper", "tiny")  # the figure the gallery shows: the first scale run


THEORY = ":theory"  # the suffix of an experiment's second entry: its theorem's bound at a reproduced run


def entries() -> list[Entry]:
    """Every experiment as two gallery entries: its figure (the paper's claim and the reproduced curves, the small
    scale first) and its theory figure (the bound of the theorem that analyses it at a reproduced run)."""
    out = []
    for e in EXPERIMENTS.values():
        command = f"sfltheory reproduce {e.id} --scale small --out DIR/{FOLDER}"
        seed = f"seed {e.seed}, {e.location}"
        out.append(Entry(name=e.id, kind="seed experiment", shows=e.claim, seed=seed, command=command,
                         files=tuple(f"{FOLDER}/{e.slug}/{s}.png" for s in SHOWN_SCALES)))  # fmt: skip
        if not any(theorem_of(a) for a in e.algorithms):  # no result analyses its algorithms: no theory figure
            continue
        if not e.plan(e.scales["small"], "cpu"):  # a measurement with no trainer run (mu_splitfed/fig4): none either
            continue
        out.append(Entry(name=e.id + THEORY, kind="seed experiment", seed=seed, command=command,
                         shows="the bound of the theorem that analyses it, at a reproduced run's settings and "
                         "constants measured on its model and data, against the run's own ||grad f||^2",
                         files=tuple(f"{FOLDER}/{e.slug}/{s}_theory.png" for s in SHOWN_SCALES)))  # fmt: skip
    return out


def verdicts(out: Path) -> dict[str, str]:
    """The verdict on each experiment's claim found in ``out/reproduce/summary.json`` (the first scale of
    :data:`SHOWN_SCALES` run), as one line: verdict, scale and the sentence."""
    try:
        doc = json.loads((out / FOLDER / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != SUMMARY_FORMAT:
        return {}
    found: dict[str, str] = {}
    rank = {s: i for i, s in enumerate(SHOWN_SCALES)}
    for e in sorted(doc.get("experiments", []), key=lambda e: rank.get(str(e.get("scale")), len(rank))):
        if isinstance(e, dict) and "id" in e and str(e["id"]) not in found:
            found[str(e["id"])] = f"{e.get('verdict', '?')} (scale {e.get('scale', '?')}): {e.get('sentence', '')}"
            said = [
                f"{t.get('result', '?')}: {t.get('sentence', '')}" for t in e.get("theory", []) if isinstance(t, dict)
            ]
            if said:
                found[str(e["id"]) + THEORY] = "; ".join(said)
    return found


def extras() -> Extras:
    """What the torch half adds to ``sfltheory figs``."""
    return Extras(entries=entries, verdicts=verdicts)
