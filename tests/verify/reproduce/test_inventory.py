"""The seed inventory's experiments (sfltheory.seedinventory, docs/SEEDS.md) are the registered ones: every id it
names is registered, and every registered experiment is named by a caption."""

from __future__ import annotations

from sfltheory import seedinventory
from verify.reproduce import EXPERIMENTS


def test_inventory_names_exactly_the_registered_experiments() -> None:
    named = {m for i in seedinventory.INVENTORY for m in i.made_by if "/" in m}
    assert named == set(EXPERIMENTS), (sorted(named - set(EXPERIMENTS)), sorted(set(EXPERIMENTS) - named))
