"""The committed docs pages are the ones the code generates, and the main job writes its reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfltheory import mainjob

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.mark.parametrize("name", ["CATALOGUE.md", "ERRATA.md", "SEEDS.md", "VOCABULARY.md"])
def test_docs_in_sync(name: str) -> None:
    assert (DOCS / name).read_text() == mainjob.docs()[name], (
        f"docs/{name} is stale: run `python -m sfltheory.mainjob --docs docs`"
    )


def test_main_job_writes_reports(tmp_path: Path) -> None:
    from verify.pipeline.main import run

    written = run(tmp_path, measure_every=12, pipeline=False)  # the measured example on 150 images: quick
    names = {p.name for p in written}
    assert {"CATALOGUE.md", "ERRATA.md", "VOCABULARY.md", "example.json"} <= names
    # with torch installed, the ResNet-18 worked example too
    assert (
        not names - {"CATALOGUE.md", "ERRATA.md", "VOCABULARY.md", "example.json"}
        or {
            "cuts_resnet18.json",
            "plan_resnet18.json",
            "plan_resnet18.txt",
            "plan_resnet18.png",
            "constants_digits_cnn.json",
            "thm43_digits_cnn.txt",
        }
        <= names
    )
    ex = json.loads((tmp_path / "example.json").read_text())
    e = ex["editions"]["mu_splitfed/thm4.3"]
    # main-text first branch at the example: 1/(120 L (tau + 2 d_s)) with L = 10, tau = 2,
    # d_s = 57_000_000 - 23_296 = 56_976_704: 1/(1200 * 113_953_410)
    assert e["max_eta"] == pytest.approx(1 / (1200 * 113_953_410))
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind
    if (tmp_path / "thm43_digits_cnn.txt").exists():  # Theorem 4.3 with L[clients] measured, not the global L
        thm43 = (tmp_path / "thm43_digits_cnn.txt").read_text()
        assert "L = L[clients]" in thm43 and "fallback" not in thm43
    # README.md says what each file is: every file the job wrote has its row, every row names files that exist
    readme = (tmp_path / "README.md").read_text()
    rows = [ln.split("`")[1] for ln in readme.splitlines() if ln.startswith("| `")]
    assert all(list(tmp_path.glob(r)) for r in rows), rows
    assert {p.name for p in tmp_path.iterdir() if p.is_file()} <= set(rows)


def test_atomic_write_leaves_an_ordinary_file(tmp_path: Path) -> None:
    import os

    from sfltheory.atomic import write_atomic

    target = tmp_path / "sub" / "report.txt"
    write_atomic(target, "first")
    write_atomic(target, "second")  # replaces, never appends
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text() == "second"
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    assert [p.name for p in target.parent.iterdir()] == ["report.txt"]


def test_readme_training_example_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    # the site's training page shows this run verbatim (an exact quadratic: deterministic); regenerate it if this fails
    pytest.importorskip("torch")
    from verify.app import main

    args = "train sl --problem quadratic L=1 sigma2=0.1 eps2=1 d=10 M=4 T=50 eta_l=0.05 K=2 batch=8 --quiet"
    assert main(args.split()) == 0
    out = capsys.readouterr().out.rstrip()
    readme = (DOCS / "guide" / "training.md").read_text()
    assert f"$ sfltheory {args}\n{out}\n```" in readme


def test_algorithms_page_in_sync() -> None:
    pytest.importorskip("torch")
    from verify.train.catalogue import algorithms_markdown

    assert (DOCS / "ALGORITHMS.md").read_text() == algorithms_markdown(), (
        "docs/ALGORITHMS.md is stale: run `python -m verify.train.catalogue docs/ALGORITHMS.md`"
    )
