"""The main job's output reads as a researcher reads: rendered statements, verdicts that say what they are about,
the stages announced as they go, and out/README.md naming every file the job writes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("torch")

from verify.pipeline import outreadme, report
from verify.pipeline.check import check
from verify.pipeline.report.document import HOLDS_OUTSIDE, LegRow
from verify.pipeline.report.mathimg import data_uris, lines, mathtext_source
from verify.pipeline.stages import Progress, Stage, duration
from verify.spec import CheckSpec


def test_the_statement_is_an_embedded_image_not_latex_source(tmp_path: Path) -> None:
    v = check(CheckSpec(result="cut_layer/prop1", T=4))
    report.write([v], tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "<p class='stmt'><img alt=" in page and "src='data:image/svg+xml;base64," in page
    # the LaTeX source is only the image's alt text and the collapsed "LaTeX source": never shown as the statement
    body = page.split("<p>Statement:</p>", 1)[1].split("<details>", 1)[0]
    assert "\\frac" not in body.split("alt=", 1)[0] and "<code>" not in body
    assert "http" not in page.replace("http-equiv", "")  # nothing fetched at view time


def test_every_catalogue_statement_is_drawn_and_long_ones_wrap() -> None:
    import sfltheory as st

    for r in st.results():
        if r.statement:
            assert data_uris(r.statement), r.id
    s = mathtext_source(st.get("mu_splitfed/cor4.4@proof").statement)
    assert len(lines(s)) > 2 and "".join(lines(s)).replace(" ", "") == s.replace(" ", "").replace(",", "")
    assert mathtext_source(r"\frac1R\sum\sqrt\tau\bm{x}") == r"\dfrac{1}{R}\sum\sqrt{\tau}\mathbf{x}"


def _leg(applies: bool, verdict: str = "holds") -> LegRow:
    return LegRow(mode="practical", step=0.1, applies=applies, failing=() if applies else ("eta <= 1/L",),
                  verdict=verdict, first_violation=None, tightness=2.0, slope_measured=-1.0, slope_predicted=-0.5)  # fmt: skip


def test_a_verdict_outside_the_hypotheses_says_what_holds() -> None:
    from verify.pipeline.report import html, markdown

    outside, inside = _leg(False), _leg(True)
    assert outside.outside == HOLDS_OUTSIDE and "makes no claim here" in HOLDS_OUTSIDE and inside.outside == ""
    assert "the bound holds at a step outside the theorem's hypotheses" in markdown._leg_line(outside)
    assert "class='outside'" in html._leg_row(outside) and "class='holds'" not in html._leg_row(outside)
    assert "class='holds'" in html._leg_row(inside) and "outside" not in html._leg_row(inside)
    assert "not a counterexample" in _leg(False, "violated").outside


def test_the_report_explains_the_decay_columns(tmp_path: Path) -> None:
    v = check(CheckSpec(result="cut_layer/prop1", T=4))
    report.write([v], tmp_path)
    for name in ("report.html", "report.md"):
        text = (tmp_path / name).read_text()
        assert "last three quarters of" in text and "log T" in text, name


def test_stages_announce_i_of_n_and_the_time_left() -> None:
    now = [0.0]
    out = io.StringIO()
    p = Progress(stages=(Stage(name="a", does="first", seconds=10), Stage(name="b", does="second", seconds=30)),
                 stream=out, clock=lambda: now[0])  # fmt: skip
    with p.stage("a"):
        now[0] += 30  # three times the reference: the pace, damped by PRIOR = 20 s, is (30 + 20) / (10 + 20)
    with p.stage("b"):
        now[0] += 1
    p.finish()
    text = out.getvalue().splitlines()
    assert text[0] == "[stage 1 of 2] first (about 40 s left)"
    assert text[1] == "[stage 2 of 2] second (about 50 s left)"
    assert text[2] == "[done] 2 stages in 31 s (a 30 s, b 1 s)" and duration(125) == "2 min 05 s"


def test_out_readme_names_every_file_and_each_named_file_exists(tmp_path: Path) -> None:
    written = []
    for rel in ("CATALOGUE.md", "pipeline.txt", "runs/sl/run.json", "runs/sl/state.pt", "runs/fedavg/run.json",
                "verify/report.html", "verify/cut_layer_prop1.png", "verify/cache/x-1.json", "odd.bin"):  # fmt: skip
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
        written.append(p)
    s = outreadme.Settings(measure_every=3, train_T=20, verify_T=30, seeds=8, model_seeds=3, eval_samples=120,
                           pipeline=True)  # fmt: skip
    text = outreadme.readme(tmp_path, written, s)
    (tmp_path / "README.md").write_text(text)
    assert_readme_matches(tmp_path, text)
    assert "`runs/*/run.json` (2 files)" in text and "`odd.bin` | other file" in text and "20 rounds" in text


def assert_readme_matches(out: Path, text: str) -> None:
    """Every file under ``out`` is covered by a row of its README, and every row names files that exist."""
    rows = [ln.split("`")[1] for ln in text.splitlines() if ln.startswith("| `")]
    for pattern in rows:
        assert list(out.glob(pattern)), f"README.md names {pattern}, which the job did not write"
    for f in out.rglob("*"):
        if f.is_file():
            rel = f.relative_to(out).as_posix()
            assert rel in rows or (outreadme.entry_for(rel) is not None and outreadme.entry_for(rel).pattern in rows), (
                rel
            )
