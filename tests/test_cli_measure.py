"""`sfltheory measure` and `--constants`: the CLI end to end (in process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfltheory.cli import main
from sfltheory.constants import Constants

# FedAvg CNN sized for 1x8x8 inputs: conv1 1*32*25+32 = 832, conv2 32*64*25+64 = 51,264 (client, cut conv2);
# fc1 (64*2*2)*512+512 = 131,584, fc2 512*10+10 = 5,130 (server): d_c = 52,096, d_s = 136,714.
ARGS = ["measure", "--model", "cnn", "--data", "synthetic:n=48,shape=1x8x8,classes=10", "--cut", "conv2", "--quiet"]


def test_measure_json_and_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.json"
    rc = main([*ARGS, "--clients", "2", "--what", "sigma2,eps2,F", "--out", str(out), "--json"])
    assert rc == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out.read_text())
    assert printed == saved
    c = Constants.from_dict(saved)
    assert c.d_c is not None and c.d_c.value == 52_096
    assert c.d_s is not None and c.d_s.value == 136_714
    assert c.sigma_c2 is not None and c.sigma_s2 is not None and c.eps2 is not None
    # the per-part variances add up to the whole model's for the same client (the worst client may differ,
    # so compare the pooled means, which are sums over the same samples)
    pooled = c.variants["sigma2[pooled]"].value
    parts = c.variants["sigma_c2[pooled]"].value + c.variants["sigma_s2[pooled]"].value
    assert pooled == pytest.approx(parts, rel=1e-5)
    assert saved["meta"]["clients"] == 2 and saved["meta"]["cut"] == "conv2"
    # thm4.3 needs L, which was not measured: given on the command line, the rest comes from the file
    rc = main(["bound", "mu_splitfed/thm4.3", "--constants", str(out), "--json", "L=1", "T=100", "tau=2", "M=2",
               "eta=1e-7", "eta_g=1", "lam=1e-4", "P=1"])  # fmt: skip
    assert rc == 0
    res = json.loads(capsys.readouterr().out)
    assert res["parameters"]["sigma_c2"] == pytest.approx(c.variants["sigma_c2[max]"].value)
    assert res["parameters"]["eps2"] == pytest.approx(c.eps2.value)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--cut", "nope"], "parameter 'cut'"),
        (["--clients", "0"], "--clients"),
        (["--what", "sigma2,wobble"], "parameter 'what'"),
        (["--what", "eps2"], "parameter 'clients'"),
        (["--state", "/nonexistent.pt"], "parameter '--state'"),
        (["--input-shape", "65"], "parameter '--input-shape'"),
    ],
)
def test_measure_bad_input_is_one_line_exit_2(
    extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*ARGS[:-3], "--quiet"] if "--cut" in extra else ARGS
    try:
        rc = main([*args, *extra])
    except SystemExit as e:  # argparse's own type errors exit from inside parse_args
        rc = int(e.code or 0)
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1 and needle in err


def test_bad_constants_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    assert main(["bound", "mu_splitfed/thm4.3", "--constants", str(bad), "T=1"]) == 2
    assert "not a sfltheory.constants/1 record" in capsys.readouterr().err
