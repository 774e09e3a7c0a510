"""``plan`` and ``compare`` with ``--constants FILE``: the variants picked as ``bound --constants`` picks them, and a
file of constants per cut (``sfltheory measure --cuts``) giving each cut its own values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sfltheory.constants import Constants, CutConstants
from sfltheory.errors import ParameterError
from verify.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def record(cut: str | None, sigma_c2: float, **extra: float) -> dict[str, Any]:
    consts = {"L": {"value": 1.0}, "F": {"value": 1.0}, "sigma_c2[max]": {"value": sigma_c2},
              "sigma_s2[max]": {"value": 0.0}, "sigma_c2": {"value": 1.0}}  # fmt: skip
    consts.update({k: {"value": v} for k, v in extra.items()})
    return {"format": "sfltheory.constants/1", "constants": consts, "meta": {} if cut is None else {"cut": cut}}


@pytest.fixture
def toy3(tmp_path: Path) -> Path:
    """Cuts a (d_c = 1, d_s = 2) and b (d_c = 2, d_s = 1)."""
    f = tmp_path / "toy3.json"
    blocks = [{"name": "a", "params": 1, "activation": 10}, {"name": "b", "params": 1, "activation": 10},
              {"name": "c", "params": 1}]  # fmt: skip
    f.write_text(json.dumps({"model": "toy3", "blocks": blocks}))
    return f


def per_cut_file(tmp_path: Path, sigmas: dict[str, float]) -> Path:
    f = tmp_path / "percut.json"
    f.write_text(json.dumps({"format": "sfltheory.constants.cuts/1", "meta": {},
                             "cuts": [record(c, s) for c, s in sigmas.items()]}))  # fmt: skip
    return f


REST = ["T=1", "lam=1e-12", "eta=1e-4"]


def test_plan_constants_equals_typed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps(record(None, 20000.0)))
    rc1, out1, err1 = run(
        capsys, "plan", "mu_splitfed/thm4.1", "--constants", str(f), "d_c=1", "d_s=1", *REST, "--json"
    )
    # thm4.1 assumes the variance bound for every sample: sigma_c2[max] (20000), not the mean sigma_c2 (1)
    typed = ["L=1", "F=1", "sigma_c2=20000", "sigma_s2=0"]
    rc2, out2, _ = run(capsys, "plan", "mu_splitfed/thm4.1", *typed, "d_c=1", "d_s=1", *REST, "--json")
    a, b = json.loads(out1), json.loads(out2)
    assert rc1 == rc2 == 0
    assert a["best"] == b["best"] and a["cuts"] == b["cuts"] and a["params"] == b["params"]
    assert a["best"]["value"] == 50  # tau* = sqrt(4F/(eta T) / (8 eta L d_c sigma_c2)) = sqrt(4e4 / 16) = 50
    assert "# sigma_c2 = sigma_c2[max]" in err1


def test_compare_constants_per_result_variants(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps(record(None, 20000.0)))
    args = ["mu_splitfed/thm4.1", "mu_splitfed/thm4.3", "d_c=1", "d_s=1", "tau=2", "M=2", "eta_g=1", "eps2=1", *REST]
    rc, out, err = run(capsys, "compare", *args, "--constants", str(f), "--json")
    typed = ["L=1", "F=1", "sigma_c2=20000", "sigma_s2=0"]
    rc2, out2, _ = run(capsys, "compare", *args, *typed, "--json")
    assert rc == rc2 == 0
    assert [r["bound"] for r in json.loads(out)] == [r["bound"] for r in json.loads(out2)]
    # thm4.3 needs L[clients]; only L was measured: one warning naming the result
    assert "warning: mu_splitfed/thm4.3: L:" in err


def test_per_cut_constants_change_the_cut(capsys: pytest.CaptureFixture[str], toy3: Path, tmp_path: Path) -> None:
    # Bound(tau) = 4F/(eta tau T) + 8 eta tau L d_c sigma_c2 (sigma_s2 = 0, lambda ~ 0), minimised at
    # tau* = sqrt(4e4 / (8e-4 d_c sigma_c2)), value 2 sqrt(4e4 * 8e-4 d_c sigma_c2) = 2 sqrt(32 d_c sigma_c2).
    # One sigma_c2 = 20000 at both cuts: a (d_c=1) 2 sqrt(6.4e5) = 1600 < b (d_c=2) 2 sqrt(1.28e6) = 2262.7: cut a.
    # Per cut, sigma_c2 = 20000 at a, 5000 at b: b gives 2 sqrt(32 * 2 * 5000) = 1131.4 at tau* = 70.7: cut b.
    typed = ["L=1", "F=1", "sigma_c2=20000", "sigma_s2=0"]
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", "--model", str(toy3), *typed, *REST, "--json")
    assert rc == 0 and json.loads(out)["best"]["cut"]["name"] == "a"
    f = per_cut_file(tmp_path, {"a": 20000.0, "b": 5000.0})
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", "--model", str(toy3), "--constants", str(f), *REST, "--json")
    d = json.loads(out)
    assert rc == 0 and d["best"]["cut"]["name"] == "b" and d["best"]["value"] == 71
    assert d["best"]["bound"] == pytest.approx(4e4 / 71 + 8e-4 * 71 * 2 * 5000, rel=1e-9)  # 1131.4
    assert d["per_cut"] == {"sigma_c2": [20000.0, 5000.0]}
    rc, out, _ = run(capsys, "plan", "mu_splitfed/thm4.1", "--model", str(toy3), "--constants", str(f), *REST)
    assert "measured at each cut: sigma_c2" in out


def test_one_cut_constants_used_for_every_cut_with_a_note(
    capsys: pytest.CaptureFixture[str], toy3: Path, tmp_path: Path
) -> None:
    f = tmp_path / "one.json"
    f.write_text(json.dumps(record("a", 20000.0)))
    rc, out, err = run(
        capsys, "plan", "mu_splitfed/thm4.1", "--model", str(toy3), "--constants", str(f), *REST, "--json"
    )
    assert rc == 0 and json.loads(out)["best"]["cut"]["name"] == "a"
    notes = [x for x in err.splitlines() if "only" in x]
    assert notes == [
        "sfltheory: note: sigma_c2, sigma_s2 measured at cut 'a' only: used for every cut planned "
        "(sfltheory measure --cuts all measures each)"
    ]


def test_per_cut_file_refusals(capsys: pytest.CaptureFixture[str], toy3: Path, tmp_path: Path) -> None:
    f = per_cut_file(tmp_path, {"a": 1.0, "zz": 2.0})
    rc, _, err = run(capsys, "plan", "mu_splitfed/thm4.1", "--model", str(toy3), "--constants", str(f), *REST)
    assert rc == 2 and err.count("\n") == 1 and "'zz', which toy3 does not have" in err
    # without a model, a per-cut file needs the cut named
    rc, _, err = run(capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(f), "tau=1", "d_c=1", "d_s=1", *REST)
    assert rc == 2 and "holds constants per cut" in err and "Traceback" not in err


def test_cut_constants_round_trip(tmp_path: Path) -> None:
    f = per_cut_file(tmp_path, {"a": 1.0, "b": 2.0})
    cc = CutConstants.load(f)
    assert cc.cuts == ("a", "b") and cc.per_cut
    back = CutConstants.from_dict(json.loads(cc.to_json()))
    assert back.at("b").variants["sigma_c2[max]"].value == 2.0
    assert Constants.load(f, cut="a").variants["sigma_c2[max]"].value == 1.0
    with pytest.raises(ParameterError, match="name the cut"):
        Constants.load(f)
    with pytest.raises(ParameterError, match="two records"):
        CutConstants.from_dict({"format": "sfltheory.constants.cuts/1", "cuts": [record("a", 1), record("a", 2)]})
