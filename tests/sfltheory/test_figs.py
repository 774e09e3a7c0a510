"""The paper figures: every script regenerates (coarse settings) into valid, non-blank PNG and PDF files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sfltheory import figs
from sfltheory.plan import load_blocks
from sfltheory.seedtables.catalogue import TABLES
from verify.app import main


def test_every_figure_regenerates_as_valid_png_and_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from matplotlib import image

    rc = main(["figs", "--small", "--out", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    expected = {f"{n}{ext}" for n in figs.FIGURES for ext in (".png", ".pdf")}
    tables = {f"{t}.{ext}" for t in TABLES for ext in ("md", "csv", "tex")} | {"index.md"}
    assert {p.name for p in tmp_path.iterdir()} == expected | {"tables", "gallery.html"}  # no temporary files left
    assert {p.name for p in (tmp_path / "tables").iterdir()} == tables
    assert sorted(line.split("/")[-1] for line in out[:-1]) == sorted([*expected, *tables, "gallery.html"])
    n = len(expected) + len(tables) + 1
    assert out[-1].startswith(f"{n} files ({len(figs.FIGURES)} figures and the gallery) in ")
    page = (tmp_path / "gallery.html").read_text()
    for name in figs.FIGURES:  # every figure shown by its own image, every table linked
        assert f'<img src="{name}.png"' in page, name
    for t in TABLES:
        assert f'href="tables/{t}.md"' in page, t
    for name in figs.FIGURES:
        png = image.imread(tmp_path / f"{name}.png")
        assert png.ndim == 3 and min(png.shape[:2]) > 100, name
        assert float(np.var(png)) > 0, f"{name}.png is blank"
        pdf = (tmp_path / f"{name}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF") and len(pdf) > 1024, name


def test_unknown_figure_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["figs", "terms_cut_layer", "no_such_figure", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith(
        "sfltheory: error: parameter 'NAME': unknown figure 'no_such_figure'"
    )
    assert not (tmp_path / "x").exists()  # checked before anything is drawn


def test_the_list_is_the_scripts_and_the_readme() -> None:
    scripts = {p.stem for p in figs.ROOT.glob("*.py")}
    assert scripts == set(figs.FIGURES)
    readme = (figs.ROOT / "README.md").read_text()
    for name in figs.FIGURES:
        assert f"`{name}`" in readme, f"paper_figs/README.md does not describe {name}"


@pytest.mark.parametrize("model", ["alexnet", "resnet18", "resnet50"])
def test_saved_cut_tables_match_the_models(model: str) -> None:
    pytest.importorskip("torch")
    from verify.models import model_cuts

    path = figs.ROOT / "data" / f"{model}.json"
    live = model_cuts(model)
    assert load_blocks(path).cuts == live.cuts, f"regenerate with: python paper_figs/data/make_cuts.py ({path})"
    assert json.loads(path.read_text())["d"] == live.d
