"""The command line: JSON shapes, readable output, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verify.app import main

THM41 = [
    "mu_splitfed/thm4.1",
    "L=1",
    "F=1",
    "T=10",
    "tau=2",
    "d_c=1",
    "d_s=1",
    "eta=0.001",
    "sigma_c2=1",
    "sigma_s2=1",
    "lam=0.1",
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_list_shows_every_edition(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "list", "--json")
    ids = {r["id"] for r in json.loads(out)}
    assert rc == 0
    assert {
        "mu_splitfed/thm4.1",
        "mu_splitfed/thm4.1@proof",
        "mu_splitfed/thm4.3@appendix",
        "mu_splitfed/cor4.4",
    } <= ids


def test_show_prints_provenance_and_paper_notation(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "show", "mu_splitfed/thm4.3")
    assert rc == 0
    assert "000_0fb66116fc20c956.txt, Theorem 4.3 (10)" in out
    assert "lam" in out and r"\lambda" in out  # canonical next to the paper's symbol
    assert "Discrepancies recorded" in out
    rc, out, _ = run(capsys, "show", "mu_splitfed/thm4.3", "--json")
    d = json.loads(out)
    assert d["editions"] == ["mu_splitfed/thm4.3", "mu_splitfed/thm4.3@appendix", "mu_splitfed/thm4.3@proof"]
    assert {h["source"] for h in d["hypotheses"]} == {"statement", "proof", "implicit"}


def test_bound_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "bound", *THM41, "--json")
    d = json.loads(out)
    assert rc == 0
    # hand value of test_mu_splitfed.test_thm41_case_a: 200 + 0.016032 + 0.016 + 0.01000016 + 0.01
    assert d["value"] == pytest.approx(200.05203216)
    assert d["terms"]["initialisation"] == pytest.approx(200)
    h = {x["name"]: x for x in d["hypotheses"]}
    # slack of eta <= 1/256 at eta = 0.001
    assert h["eta<=1/(64L(tau+2d_s))"]["holds"] is True
    assert h["eta<=1/(64L(tau+2d_s))"]["slack"] == pytest.approx(1 / 256 - 0.001)
    assert d["applies"] is True


def test_bound_failing_hypothesis_still_evaluates(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a if not a.startswith("eta=") else "eta=0.01" for a in THM41]
    rc, out, _ = run(capsys, "bound", *argv)
    assert rc == 0
    assert "the bound does not apply: eta<=1/(64L(tau+2d_s)) fails" in out


def test_bound_sweep(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a if not a.startswith("tau=") else "tau=1,2,4" for a in THM41]
    _rc, out, _ = run(capsys, "bound", *argv, "--json")
    d = json.loads(out)
    # init 400/tau
    assert d["terms"]["initialisation"] == pytest.approx([400, 200, 100])


def test_check_lr_json(capsys: pytest.CaptureFixture[str]) -> None:
    _rc, out, _ = run(
        capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=2", "d_c=100", "d_s=1", "eta=0.001", "--json"
    )
    d = json.loads(out)
    # min{1/256, 1/(16*2*100)} = 1/3200, so eta = 0.001 violates the second branch
    assert d["max_eta"] == pytest.approx(1 / 3200)
    assert d["binding"] == "eta<=1/(16L tau d_c)"
    assert "reduce eta to <= 0.0003125" in d["advice"]


def test_errata_and_vocabulary(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "errata", "--json")
    assert rc == 0 and any("Corollary 4.4" in e["where"] for e in json.loads(out))
    rc, out, _ = run(capsys, "vocabulary", "--markdown")
    assert "| `sigma_s2` |" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["bound", "nope/x"], "unknown result id 'nope/x'"),
        (["bound", "mu_splitfed/thm4.1", "L=-1"], "parameter 'L': must be > 0"),
        (["bound", "mu_splitfed/thm4.1", "L"], "expected name=value"),
        (["bound", "mu_splitfed/thm4.1", "L=abc"], "parameter 'L': must be a number"),
        (["check-lr", "mu_splitfed/thm4.1", "tau=0"], "parameter 'tau'"),
        (["bound", *THM41[:-1]], "parameter 'lam': missing"),
        (["frobnicate"], "invalid choice"),
        (["list", "--paper", "nope"], "unknown paper key"),
    ],
)
def test_bad_input_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    try:
        rc, out, err = run(capsys, *argv)
    except SystemExit as e:  # argparse's own errors
        rc, (out, err) = int(e.code or 0), capsys.readouterr()
    assert rc == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_console_script_no_traceback_and_no_torch() -> None:
    # A real process: exit status 2, a single stderr line; and the theory half never imports torch.
    p = subprocess.run(
        [sys.executable, "-m", "sfltheory.cli", "bound", "mu_splitfed/thm4.1", "tau=0"], capture_output=True, text=True
    )
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    code = "import sys, sfltheory as st; st.catalogue(); st.evaluate('mu_splitfed/eq12', T0=1, t_straggler=2, t_server=1); print('torch' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )
