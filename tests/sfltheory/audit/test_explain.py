"""``sfltheory audit --explain FINDING``: the finding, its witness and re-checks, and the seed text with line numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfltheory.audit import explain
from sfltheory.audit.runner import audit
from sfltheory.cli import main
from sfltheory.registry import get

SEED_FILE = "000_0fb66116fc20c956.txt"


def seed_path() -> Path:
    for d in explain.seed_dirs():
        if (d / SEED_FILE).is_file():
            return d / SEED_FILE
    pytest.skip("the seed texts are not beside this checkout (SFLTHEORY_SEEDS names another folder)")


def test_corollary_finding_explained(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--explain", "mu_splitfed/cor4.2:corollary"]) == 0
    out = capsys.readouterr().out
    # the same finding the audit of the whole result makes (every check, not only the one explained)
    f = next(f for f in audit(["mu_splitfed/cor4.2"]).findings if f.check == "corollary")
    assert out.startswith("mu_splitfed/cor4.2:corollary: corollary follows from its theorem — bound invalid")
    for r in f.reevaluations:
        assert f"  {r.command()}   -> {r.value:.6g}" in out
    # the seed text: the statement's header line, found here independently, and the display numbered (9)
    lines = seed_path().read_text(encoding="utf-8").splitlines()
    header = lines.index("Corollary 4.2.") + 1
    display = next(i for i, s in enumerate(lines) if s.rstrip().endswith("(9)")) + 1
    assert f"  {header} | Corollary 4.2." in out
    assert f"lines {header}-" in out and f"\n  {display} | " in out
    assert header == 154 and display == 158  # as the seed file is today


def test_json_carries_the_seed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    seed_path()
    assert main(["audit", "--explain", "mu_splitfed/cor4.2:corollary", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["name"] == "mu_splitfed/cor4.2:corollary"
    assert d["finding"]["severity"] == "bound invalid"
    assert d["seed_lines"][0] == {"line": 154, "text": "Corollary 4.2."}


def test_one_of_several_findings_by_number(capsys: pytest.CaptureFixture[str]) -> None:
    units = [f for f in audit(["mu_splitfed/cor4.2"], checks=["units"]).findings]
    assert len(units) > 1
    assert main(["audit", "--explain", f"mu_splitfed/cor4.2:units:{len(units)}"]) == 0
    assert units[-1].found in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--explain", "mu_splitfed/cor4.2:units"], "name one, mu_splitfed/cor4.2:units:1 ("),
        (["--explain", "mu_splitfed/cor4.2:nope"], "the check must be one of corollary"),
        (["--explain", "mu_splitfed/cor4.2:units:99"], "'units' finding(s) (got N = 99)"),
        (["--explain", "mu_splitfed/cor4.2:units:0"], "N must be an integer >= 1"),
        (["--explain", "cut_layer/prop1:units"], "the audit finds no 'units' finding on cut_layer/prop1"),
        (["--explain", "foo"], "name a finding as RESULT:CHECK[:N]"),
        (["--explain", "mu_splitfed/nope:units"], "unknown result id 'mu_splitfed/nope'"),
        (["mu_splitfed/cor4.2", "--explain", "mu_splitfed/cor4.2:corollary"], "give it without result ids"),
    ],
)
def test_bad_names_are_one_line(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1


def test_without_the_seeds_the_rest_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(explain, "CHECKOUT", tmp_path / "checkout" / "main")
    monkeypatch.setenv("SFLTHEORY_SEEDS", str(tmp_path / "nowhere"))
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--explain", "mu_splitfed/cor4.2:corollary"]) == 0
    out = capsys.readouterr().out
    assert "re-check" in out and f"seed text: not found (looked in {tmp_path / 'nowhere'}, " in out


def test_base_label() -> None:
    assert explain.base_label("Theorem C.1, proof last display of App. C.1.3") == "Theorem C.1"
    assert explain.base_label("Table 2, row 1 (SFL-V1 [2])") == "Table 2"
    assert explain.base_label(get("sfl_aux/thm3").provenance.label) == "Theorem 3"
