"""The tightest bound (``verify --tightest``) in the report: Markdown, HTML, JSON, the figure and the text summary;
a record without it renders as before."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from verify.pipeline import report
from verify.pipeline.job import Outcome, outcome_text
from verify.pipeline.records import Leg, Tightest, TightestPoint, Verification
from verify.pipeline.report import html, markdown
from verify.pipeline.report.document import build

FAILS = "eta<=1/(16 S tau)"
REASON = "zeroth-order: performance estimation needs a method that queries gradients"


def _leg(mode: str, step: float, applies: bool) -> Leg:
    T = np.arange(1, 5)
    lhs, bound = 0.1 / T, 1.0 / np.sqrt(T)
    return Leg(mode=mode, step=step, applies=applies, failing=() if applies else (FAILS,), T=T, lhs=lhs, lhs_se=None,
               bound=bound, verdict="holds", first_violation=None, tightness=float(bound[-1] / lhs[-1]),
               slope_lhs=-1.0, slope_bound=-0.5)  # fmt: skip


def _point(mode: str, step: float, M: int, T: int, paper: float, tightest: float, measured: float | None = None,
           failing: tuple[str, ...] = ()) -> TightestPoint:  # fmt: skip
    kind = "exact" if M == 1 else "relaxation"
    return TightestPoint(mode=mode, step=step, M=M, T=T, paper=paper, tightest=tightest, kind=kind,
                         measured=measured, failing=failing)  # fmt: skip


POINTS = (
    _point("admissible", 0.03125, 1, 1, 2.0, 0.0625),
    _point("admissible", 0.03125, 1, 2, 1.0, 0.05),
    _point("admissible", 0.03125, 4, 1, 2.0, 0.0625, measured=0.036),  # paper / tightest = 2 / 0.0625 = 32
    _point("admissible", 0.03125, 4, 2, 1.5, 0.06, measured=0.034),  # 1.5 / 0.06 = 25
    _point("practical", 0.05, 4, 1, 2.5, 0.1, measured=0.058, failing=(FAILS,)),  # 2.5 / 0.1 = 25
    _point("practical", 0.05, 4, 2, 1.2, 0.08, measured=0.054, failing=(FAILS,)),  # 1.2 / 0.08 = 15
)
TIGHTEST = Tightest(
    quantity="eta (1/T) sum_{t<T} ||grad f(x^t)||^2",
    assumptions="each client L-smooth (L = 1), f(x^0) - f* <= F = 1, bounded deviation eps^2 = 1.13",
    kinds={"exact": "one client: a function attains it", "relaxation": "2 clients: deviation at the iterates only"},
    points=POINTS,
    note="parallel clients: solved at M = 2",
)


def _verification(tightest: Tightest | None = None, result: str = "cut_layer/prop1") -> Verification:
    v = Verification(result=result, algorithm="sfl_v1_analysed", method="exact moments",
                     lhs="eta (1/T) sum_{t<T} E||grad f(x^t)||^2", note="", constants={"L": 1.0, "M": 4.0},
                     constant_notes=["L: exact"], params={"L": 1.0, "M": 4, "T": 4},
                     legs=(_leg("admissible", 0.03125, True), _leg("practical", 0.05, False)))  # fmt: skip
    return v if tightest is None else replace(v, tightest=tightest)


def test_markdown_html_json_and_text_show_every_point() -> None:
    v = _verification(TIGHTEST)
    doc = build([v])
    md = markdown.render(doc)
    assert "### Tightest bound" in md and TIGHTEST.assumptions in md and TIGHTEST.note in md
    assert "| admissible, step 0.03125 | 4 | 1 | 2 | 0.0625 | 32 | relaxation | 0.036 | all hold |" in md
    assert "| admissible, step 0.03125 | 1 | 2 | 1 | 0.05 | 20 | exact | — | all hold |" in md  # 1 / 0.05
    assert f"| practical, step 0.05 | 4 | 2 | 1.2 | 0.08 | 15 | relaxation | 0.054 | {FAILS} |" in md
    assert "- **exact**: the worst case itself" in md and "a function attains it" in md
    assert "](tightest_cut_layer_prop1.png)" in md and "## Tightest bounds" not in md  # one result: no summary
    page = html.render(doc)
    assert "<h3 id='tightest-cut_layer/prop1'>Tightest bound</h3>" in page
    assert ("<tr><td>admissible, step 0.03125</td><td>4</td><td>1</td><td>2</td><td>0.0625</td><td>32</td>"
            "<td>relaxation</td><td>0.036</td><td>all hold</td></tr>") in page  # fmt: skip
    assert "<b>relaxation</b>: an upper bound on the worst case" in page
    data = report.to_json([v])
    points = data["results"][0]["tightest"]["points"]
    assert len(points) == 6 and points[2]["ratio"] == pytest.approx(32.0) and points[4]["failing"] == [FAILS]
    json.dumps(data, allow_nan=False)
    text = outcome_text(Outcome(done=(v,), failed=(), worst=(), trends=()))
    assert "tightest bound (relaxation) admissible, step 0.03125, M = 4: T=1..2 paper / tightest = 32, 25" in text
    assert "tightest bound (exact) admissible, step 0.03125, M = 1: T=1..2 paper / tightest = 32, 20" in text
    assert "tightest bound (relaxation) practical, step 0.05, M = 4: T=1..2 paper / tightest = 25, 15" in text
    assert len(text.splitlines()) == 2 + 3


def test_the_figure_is_written_and_embedded(tmp_path: Path) -> None:
    files = report.write([_verification(TIGHTEST)], tmp_path)
    png = tmp_path / "tightest_cut_layer_prop1.png"
    assert png in files and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert (tmp_path / "report.html").read_text().count("data:image/png;base64,") == 2
    assert json.loads((tmp_path / "report.json").read_text())["results"][0]["tightest"]["points"][3]["ratio"] == 25


def test_a_reason_is_one_line_and_no_figure(tmp_path: Path) -> None:
    v = _verification(Tightest(quantity="q", assumptions="", reason=REASON))
    files = report.write([v], tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert f"**Tightest bound**: not computed: {REASON}." in md and "### Tightest bound" not in md
    assert f"<strong>Tightest bound</strong>: not computed: {REASON}." in (tmp_path / "report.html").read_text()
    assert not any(f.name.startswith("tightest_") for f in files)
    text = outcome_text(Outcome(done=(v,), failed=(), worst=(), trends=()))
    assert text.splitlines()[-1].strip() == f"tightest bound not computed: {REASON}"


def test_points_left_out_are_said() -> None:
    d = _verification(TIGHTEST).to_dict()
    d["tightest"] = {**d["tightest"], "skipped": "M = 4, T = 3: the SDP is above the size limit"}

    class Record:
        def to_dict(self) -> dict[str, object]:
            return d

    doc = build([Record()])
    assert "Left out: M = 4, T = 3: the SDP is above the size limit." in markdown.render(doc)
    assert "<p>Left out: M = 4, T = 3: the SDP is above the size limit.</p>" in html.render(doc)


def test_several_results_get_a_summary_table() -> None:
    vs = [_verification(TIGHTEST), _verification(Tightest(quantity="q", assumptions="", reason=REASON),
                                                 result="sl_noniid/thm1")]  # fmt: skip
    md = markdown.render(build(vs))
    assert "## Tightest bounds" in md
    assert "| `cut_layer/prop1` | relaxation | 25 (T = 2, M = 4) | 20 (T = 2) |" in md  # admissible leg, largest T
    assert "| `sl_noniid/thm1` | not computed: zeroth-order | — | — |" in md
    page = html.render(build(vs))
    assert "<h2 id='tightest'>Tightest bounds</h2>" in page and "<td>25 (T = 2, M = 4)</td>" in page


def test_a_record_without_tightest_renders_as_before(tmp_path: Path) -> None:
    plain, none = _verification(), replace(_verification(TIGHTEST), tightest=None)
    assert "tightest" not in plain.to_dict()
    for render in (markdown.render, html.render):
        assert render(build([plain])) == render(build([none]))
        assert "ightest" not in render(build([plain]))
    assert report.to_json([plain]) == report.to_json([none])
    text = outcome_text(Outcome(done=(plain,), failed=(), worst=(), trends=()))
    assert "tightest" not in text and len(text.splitlines()) == 2
    # with it, the Markdown differs only by the subsection after the result's figure
    md_with, md_without = markdown.render(build([_verification(TIGHTEST)])), markdown.render(build([plain]))
    head, _, tail = md_with.partition("\n\n### Tightest bound")
    assert head + "\n" == md_without and tail.rstrip().endswith("(tightest_cut_layer_prop1.png)")
    files = report.write([plain], tmp_path)
    assert sorted(f.name for f in files) == ["cut_layer_prop1.png", "report.html", "report.json", "report.md"]


@pytest.mark.skipif(importlib.util.find_spec("clarabel") is None, reason="the SDP solver clarabel is not installed")
def test_cli_tightest_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from verify.app import main

    assert main(["verify", "cut_layer/prop1", "--T", "4", "--tightest", "2", "--out", str(tmp_path)]) == 0
    assert "tightest bound (exact) admissible" in capsys.readouterr().out
    md = (tmp_path / "report.md").read_text()
    assert "### Tightest bound" in md and "| admissible, step " in md
    assert (tmp_path / "tightest_cut_layer_prop1.png").is_file()
