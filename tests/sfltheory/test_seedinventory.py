"""The seed inventory (docs/SEEDS.md): every "Figure N:" / "Table N:" caption of the five seed files is listed at its
line (the captions are found here by a pattern over the files, not through the inventory), and every theory entry it
names is one ``sfltheory figs --list`` knows (the experiments are checked by the torch half's test)."""

from __future__ import annotations

import re

import pytest

from sfltheory import seedinventory
from sfltheory.gallery import theory_entries
from sfltheory.seedtables.core import seed_lines

CAPTION = re.compile(r"^(Figure \d+|Table \d+|TABLE [IVX]+)[:.] ")  # sfl_aux writes "Figure 1. CSE-FSL"


def captions() -> set[tuple[str, str, int]]:
    found = set()
    for key, seed in seedinventory.SEEDS.items():
        lines = seed_lines(seed)
        if lines is None:
            pytest.skip(f"seed {seed} not at hand")
        for n, text in enumerate(lines, start=1):
            m = CAPTION.match(text)
            if m:
                found.add((key, m.group(1), n))
    return found


def test_every_caption_is_listed_at_its_line() -> None:
    listed = {(i.paper, i.label, i.line) for i in seedinventory.INVENTORY}
    found = captions()
    assert found == listed, (sorted(found - listed), sorted(listed - found))
    # the count of figures: 4 (MU-SplitFed) + 7 (HERON-SFL) + 7 (SL non-IID) + 1 + 1 = 20
    assert sum(label.startswith("Figure") for _, label, _ in found) == 20


def test_kinds_and_theory_names_are_known() -> None:
    names = {e.name for e in theory_entries()}
    for it in (*seedinventory.INVENTORY, *seedinventory.PASSAGES):
        assert it.kind in seedinventory.KINDS and it.status in seedinventory.STATUSES
        for m in it.made_by:
            assert "/" in m or m in names, (it.paper, it.label, m)  # "/" marks a reproduced experiment's id
        if it.kind in ("experiment", "theory") and not it.made_by:
            assert it.note, (it.paper, it.label)  # a result nothing makes says why


def test_markdown_counts_match_the_items() -> None:
    md = seedinventory.markdown()
    figures = [i for i in seedinventory.INVENTORY if i.label.startswith("Figure")]
    done = sum(i.status == "regenerated" for i in figures)
    assert f"| figures | {len(figures)} | {done} |" in md
    assert md.count("\n## `") == 5
