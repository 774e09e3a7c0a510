"""Every value given as ``name=value`` is used or refused (issue 29, item 3), for every command that takes one.

One parametrised test: a *used* name changes the command's JSON output when its value changes (run twice, the
two outputs differ), or, where running is a training on a model, lands in the parsed spec; a *refused* name exits
2 with one line naming it, before any work. ``bound`` reports a name the result does not use (``unused``), which
is its documented way of not dropping it silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from verify.app import main
from verify.parse import check_spec

CUT = ["L=1", "sigma2=1", "eps2=1", "F=1", "M=4", "sum_alpha2=0.25"]  # cut_layer/prop1's constants, K and T apart
SL = ["B2=1", "G2=1", "eta_g=1"]
V = ["--T", "4", "--seeds", "2", "--json"]  # a short verify: exact moments, or 2 Monte-Carlo seeds

# (command, the arguments around the name, the name with two values, used or refused)
CASES: list[tuple[str, list[str], str, tuple[str, str], str]] = [
    ("bound", ["cut_layer/prop1", *CUT, "T=10", "eta=0.01", "--json"], "K", ("2", "3"), "used"),
    ("bound", ["cut_layer/prop1", *CUT, "K=2", "T=10", "eta=0.01", "--json"], "tau", ("2", "3"), "reported"),
    ("check-lr", ["cut_layer/prop1", *CUT, "T=10", "eta=0.01", "--json"], "K", ("2", "3"), "used"),
    ("check-lr", ["cut_layer/prop1", *CUT, "K=2", "eta=0.01", "--json"], "tau", ("2", "3"), "refused"),
    ("plan", ["cut_layer/prop1", *CUT, "--over", "K", "--grid", "1:3", "--json"], "T", ("10", "100"), "used"),
    ("plan", ["cut_layer/prop1", *CUT, "T=10", "--over", "K", "--grid", "1:3", "--json"], "tau", ("2", "3"), "refused"),
    ("compare", ["cut_layer/prop1", "sl_noniid/thm1", *CUT, *SL, "T=100", "--json"], "K", ("2", "3"), "used"),
    (
        "compare",
        ["cut_layer/prop1", "sl_noniid/thm1", *CUT, *SL, "K=2", "T=100", "--json"],
        "tau",
        ("2", "3"),
        "refused",
    ),
    (
        "compare",
        ["cut_layer/prop1:{}", "sl_noniid/thm1", *CUT, *SL, "K=2", "T=100", "--json"],
        "tau",
        ("2", "3"),
        "refused",
    ),
    ("train", ["sl", "--problem", "quadratic", "T=2", "--json"], "K", ("1", "2"), "used"),
    ("train", ["sl", "--problem", "quadratic", "--json"], "T", ("2", "3"), "used"),
    ("train", ["sl", "--problem", "quadratic", "T=2", "--json"], "tau", ("1", "2"), "refused"),
    # verify on an exact quadratic, first order (exact moments): the step, a shared parameter, T, a constant
    ("verify", ["cut_layer/prop1", *V], "eta", ("0.01", "0.02"), "used"),
    ("verify", ["cut_layer/prop1", *V], "K", ("2", "3"), "used"),
    ("verify", ["cut_layer/prop1", "--seeds", "2", "--json"], "T", ("3", "4"), "used"),
    ("verify", ["cut_layer/prop1", *V], "sigma2", ("1", "2"), "used"),
    ("verify", ["cut_layer/prop1", *V], "tau", ("2", "3"), "refused"),
    # zeroth order (Monte Carlo): the step, tau and lam (run and bound), a parameter the step sets
    ("verify", ["mu_splitfed/thm4.1", *V], "eta", ("0.001", "0.002"), "used"),
    ("verify", ["mu_splitfed/thm4.1", *V], "tau", ("2", "3"), "used"),
    ("verify", ["mu_splitfed/thm4.1", *V], "lam", ("0.001", "0.01"), "used"),
    ("verify", ["mu_splitfed/thm4.1", *V], "eta_s", ("0.001", "0.01"), "refused"),
    # a corollary choosing its step as a function of T: K is used, a step is refused
    ("verify", ["sl_noniid/cor1@explicit", *V], "K", ("2", "3"), "used"),
    ("verify", ["sl_noniid/cor1@explicit", *V], "eta_l", ("0.01", "0.02"), "refused"),
    # on a model (parsed only: running is training): refused before any work
    ("verify", ["sl_noniid/thm1", "--model", "mlp", "--input-shape", "64", *V], "tau", ("2", "3"), "refused"),
    ("verify", ["sl_noniid/thm1", "--model", "mlp", "--input-shape", "64", *V], "eta_s", ("1", "2"), "refused"),
    ("sweep", [], "tau", ("2", "3"), "refused"),
]


def run_cli(capsys: Any, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def argv_of(command: str, args: list[str], name: str, value: str, tmp: Path) -> list[str]:
    if command == "sweep":  # a verify sweep file: the same parser as the command line
        f = tmp / f"s{value}.toml"
        f.write_text(f'[sweep]\nname = "t"\nkind = "verify"\n[base]\nresult = "cut_layer/prop1"\nT = 3\n'
                     f"{name} = {value}\n")  # fmt: skip
        return ["sweep", str(f), "--executor", "serial", "--out", str(tmp / "out")]
    if any("{}" in a for a in args):  # an entry's own override (compare ID:name=value)
        return [command, *(a.format(f"{name}={value}") for a in args)]
    return [command, *args[:1], f"{name}={value}", *args[1:]]


def strip(out: str) -> str:
    """The JSON output without what varies from run to run (times, paths)."""
    d = json.loads(out)
    if isinstance(d, dict):
        for k in ("seconds", "wall_time", "out", "path", "created"):
            d.pop(k, None)
    return json.dumps(d, sort_keys=True, default=str)


@pytest.mark.parametrize(("command", "args", "name", "values", "expect"), CASES,
                         ids=[f"{c[0]}-{(c[1] or ['file'])[0]}-{c[2]}-{c[4]}" for c in CASES])  # fmt: skip
def test_every_given_name_is_used_or_refused(capsys: Any, tmp_path: Path, command: str, args: list[str],
                                             name: str, values: tuple[str, str], expect: str) -> None:  # fmt: skip
    outs = []
    for v in values:
        code, out, err = run_cli(capsys, argv_of(command, args, name, v, tmp_path))
        if expect == "refused":
            assert code == 2, (out, err)
            assert f"parameter '{name}'" in err and "Traceback" not in err
            assert len(err.strip().splitlines()) == 1, err  # one line
            return
        assert code == 0, err
        outs.append(out)
    if expect == "reported":
        assert name in json.loads(outs[0])["unused"]
        return
    a, b = (strip(o) for o in outs)
    assert a != b, f"{command}: {name} changed from {values[0]} to {values[1]} and the output did not"


def test_on_a_model_each_name_lands_in_the_spec() -> None:
    # a model check is a training: its names are checked at the spec -- the step sets the given leg, K goes to
    # the run (and the bound: sl_noniid/thm1 names K), sigma2 is a given constant
    spec = check_spec({"result": "sl_noniid/thm1", "model": "mlp", "input_shape": (64,), "eta_l": 0.05, "K": 3.0,
                       "sigma2": 2.0})  # fmt: skip
    assert spec.step == 0.05 and dict(spec.params) == {"K": 3} and dict(spec.overrides) == {"sigma2": 2.0}


def test_T_as_name_and_flag_is_one_thing(capsys: Any) -> None:
    code, _, err = run_cli(capsys, ["verify", "cut_layer/prop1", "T=5", "--T", "10"])
    assert code == 2 and "parameter 'T'" in err and "give it once" in err
    code, out, _ = run_cli(capsys, ["verify", "cut_layer/prop1", "T=5", "--T", "5", "--json"])
    assert code == 0 and json.loads(out)["results"][0]["legs"][0]["T"] == [1, 2, 3, 4, 5]


def test_list_gives_a_reason_for_every_result_without_an_experiment(capsys: Any) -> None:
    import sfltheory as st
    from sfltheory.experiments import EXPERIMENTS

    code, out, _ = run_cli(capsys, ["verify", "--list"])
    listed = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert code == 0 and {r.id for r in st.results()} <= listed | set(EXPERIMENTS)
    line = next(x for x in out.splitlines() if x.startswith("cut_layer/sfl_v2 "))
    assert "stated only up to constants" in line and "None" not in line
    code, _, err = run_cli(capsys, ["verify", "cut_layer/sfl_v2"])
    assert code == 2 and "no explicit edition is encoded" in err and "(None)" not in err
