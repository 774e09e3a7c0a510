"""The committed docs pages are the ones the code generates, and the main job writes its reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfltheory import mainjob

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("name", ["CATALOGUE.md", "ERRATA.md", "VOCABULARY.md"])
def test_docs_in_sync(name: str) -> None:
    assert (DOCS / name).read_text() == mainjob.docs()[name], (
        f"docs/{name} is stale: run `python -m sfltheory.mainjob --docs docs`"
    )


def test_main_job_writes_reports(tmp_path: Path) -> None:
    written = mainjob.run(tmp_path)
    assert {p.name for p in written} == {"CATALOGUE.md", "ERRATA.md", "VOCABULARY.md", "example.json"}
    ex = json.loads((tmp_path / "example.json").read_text())
    e = ex["editions"]["mu_splitfed/thm4.3"]
    # main-text first branch at the example: 1/(120 L (tau + 2 d_s)) with L = 10, tau = 2,
    # d_s = 57_000_000 - 23_296 = 56_976_704: 1/(1200 * 113_953_410)
    assert e["max_eta"] == pytest.approx(1 / (1200 * 113_953_410))
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind
