"""The newcomer's path (issue 15): which paper is which, which results analyse my training, every missing
constant named at once with where to get it, and check-lr's exit status."""

from __future__ import annotations

import json

import pytest

import sfltheory as st
from sfltheory.algorithms import ALGORITHMS, algorithm, results_of, which
from sfltheory.builtin import PAPERS, REFERENCES
from sfltheory.errors import MissingParametersError, ParameterError
from verify.app import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_table_of_algorithms_matches_the_trainer() -> None:
    # the torch-free table (sfltheory.algorithms) and the trainer's registry name the same algorithms, papers and
    # results: the table is what `which` answers from, the registry what `train` runs
    from verify.train import ALGORITHMS as TRAINER

    assert [a.name for a in ALGORITHMS] == list(TRAINER)
    for a in ALGORITHMS:
        assert a.paper == TRAINER[a.name].paper, a.name
        assert a.results == tuple(TRAINER[a.name].results), a.name
        for rid in a.results:
            st.get(rid)
        if a.covered_by:
            assert algorithm(a.covered_by).results


def test_which_filters_by_what_a_user_knows() -> None:
    # zeroth-order clients and a first-order server: HERON-SFL only
    assert [a.name for a in which(client="zeroth", server="first")] == ["heron_sfl"]
    # sequential first-order clients: split learning and SFL-V2
    assert [a.name for a in which(client="first", clients="sequential")] == ["sl", "sfl_v2"]
    # tau server steps: the two MU-SplitFed algorithms
    assert [a.name for a in which(server_steps="yes")] == ["mu_split", "mu_splitfed"]
    # full participation is covered by the partial-participation algorithms at n = M
    assert "sfl_aux" in [a.name for a in which(participation="full", aux="yes")]
    assert [a.name for a in which(participation="partial", aux="yes")] == ["sfl_aux"]
    assert len(which()) == len(ALGORITHMS)
    assert results_of(["fedavg"]) == ["sl_noniid/thm2", "sl_noniid/sec4.3.speedup", "sl_noniid/sec4.3.speedup@explicit"]
    with pytest.raises(ParameterError, match="'clients': must be one of parallel, sequential, one"):
        which(clients="async")
    with pytest.raises(ParameterError, match="unknown algorithm 'sfl_v3'"):
        algorithm("sfl_v3")


def test_the_readme_question_in_two_commands(capsys) -> None:
    # "which theorem covers my first-order SFL-V1 run with 10 clients, and is lr 0.01 admissible?"
    rc, out, _ = run(capsys, "which", "--algorithm", "sfl_v1")
    assert rc == 0 and "cut_layer/prop1" in out and "closest covered variant" in out
    # Prop. 1's stated branch eta <= 1/(16 L K): with L = 1, K = 2 the largest step is 1/32 = 0.03125
    rc, out, _ = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.01", "M=10", "K=2", "L=1")
    assert rc == 0 and "0.03125" in out and "eta = 0.01 satisfies every stated branch" in out
    # 0.05 > 1/32 violates it: exit status 1, so a script can test admissibility
    rc, out, _ = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.05", "M=10", "K=2", "L=1")
    assert rc == 1 and "violates" in out


def test_every_missing_parameter_at_once_with_how_to_get_it(capsys) -> None:
    with pytest.raises(MissingParametersError) as e:
        st.evaluate("cut_layer/prop1", {"eta": 0.01, "M": 10})
    # evaluate needs the whole bound: F, K, L, sigma2, eps2 (T has no default either)
    assert {"F", "K", "L", "sigma2", "eps2", "T"} <= set(e.value.missing) and e.value.name == e.value.missing[0]
    rc, _, err = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.01", "M=10")
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "missing and 1 more" in err and "K (local steps per client per round; a setting of your run)" in err
    assert "measure it: sfltheory measure --for cut_layer/prop1" in err


def test_list_names_the_papers_fits_120_columns_and_filters(capsys) -> None:
    rc, out, _ = run(capsys, "list")
    assert rc == 0 and max(len(line) for line in out.splitlines()) <= 120
    for key in PAPERS:
        assert f"{key}: " in out
    assert "Dachille" in out and "doi:10.20944/preprints202409.0335.v1" in out
    rc, out, _ = run(capsys, "list", "--algorithm", "sfl_v1_analysed")
    ids = [line.split()[0] for line in out.splitlines() if line.startswith("cut_layer/")]
    assert ids == ["cut_layer/prop1", "cut_layer/prop1@proof", "cut_layer/lem1", "cut_layer/lem2", "cut_layer/tau_def"]
    rc, out, _ = run(capsys, "show", "sfl_aux/thm1", "--json")
    assert json.loads(out)["reference"] == REFERENCES["sfl_aux"]
    for argv, needle in ((["list", "--paper", ""], "'--paper': unknown paper key ''"),
                         (["list", "--algorithm", "x"], "'--algorithm': unknown algorithm 'x'")):  # fmt: skip
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as ex:  # argparse's own check of a choice
        main(["which", "--clients", "async"])
    err = capsys.readouterr().err
    assert ex.value.code == 2 and "invalid choice: 'async'" in err and len(err.strip().splitlines()) == 1


def test_a_step_sweep_prints_one_verdict_per_point(capsys) -> None:
    # cut_layer Prop. 1, eta <= 1/(16 L K): K = 1 allows 1/16 = 0.0625, K = 2 allows 1/32 = 0.03125, so
    # eta = 0.01 at K = 1 holds and eta = 0.05 at K = 2 violates (exit 1), each said on its own line
    rc, out, _ = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.01,0.05", "M=10", "K=1,2", "L=1")
    assert rc == 1 and "array(" not in out and "['" not in out
    assert "[1/2] max eta 0.0625 (binding: eta<=1/(16 S tau)); eta = 0.01 satisfies every stated branch" in out
    assert (
        "[2/2] max eta 0.03125 (binding: eta<=1/(16 S tau)); eta = 0.05 violates eta<=1/(16 S tau): reduce eta" in out
    )


def test_a_model_factory_is_found_in_the_working_directory_or_a_file(tmp_path, monkeypatch) -> None:
    # the console script does not put the working directory on sys.path: load_model does, as `python -c` would
    import sys

    from verify.models import load_model

    (tmp_path / "my_nets_for_newcomer.py").write_text(
        "from torch import nn\ndef net():\n    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    m = load_model("my_nets_for_newcomer:net")
    assert sum(p.numel() for p in m.parameters()) == 64 * 32 + 32 + 32 * 10 + 10  # 2,410
    m = load_model(str(tmp_path / "my_nets_for_newcomer.py") + ":net")
    assert sum(p.numel() for p in m.parameters()) == 2410
    with pytest.raises(ParameterError, match=r"no such file: nope\.py"):
        load_model("nope.py:net")


def test_bound_and_check_lr_take_a_cut_by_name(tmp_path, capsys) -> None:
    # a block list: cutting after conv2 leaves d_c = 1,792 + 36,928 = 38,720 and d_s = 10,250 on the server
    blocks = tmp_path / "blocks.csv"
    blocks.write_text("name,params,activation,flops\nconv1,1792,65536,1.8e6\nconv2,36928,16384,3.8e7\nfc,10250\n")
    common = ["L=1", "F=1", "T=100", "tau=2", "eta=1e-6", "sigma_c2=1", "sigma_s2=1", "lam=1e-6"]
    rc, by_cut, _ = run(
        capsys, "bound", "mu_splitfed/thm4.1", "--model", str(blocks), "--cut", "conv2", *common, "--json"
    )
    rc2, direct, _ = run(capsys, "bound", "mu_splitfed/thm4.1", "d_c=38720", "d_s=10250", *common, "--json")
    assert rc == rc2 == 0 and json.loads(by_cut)["value"] == json.loads(direct)["value"]
    rc, _, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "--model", str(blocks), "--cut", "2", "L=1", "tau=2")
    assert rc == 0
    for argv, needle in (
        (["bound", "mu_splitfed/thm4.1", "--model", str(blocks), "--cut", "conv2", "d_c=5", *common], "given twice"),
        (["bound", "mu_splitfed/thm4.1", "--cut", "conv2", *common], "'--cut': needs --model"),
        (["bound", "mu_splitfed/thm4.1", "--model", str(blocks), "--cut", "conv9", *common], "no cut named 'conv9'"),
    ):
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_compare_with_eps_and_no_T_says_what_its_bound_column_is(capsys) -> None:
    args = ["compare", "sl_noniid/thm1", "sl_noniid/thm2", "L=1", "F=1", "sigma2=1", "B2=1", "G2=1", "K=2", "M=10"]
    rc, out, _ = run(capsys, *args, "eta_g=1", "--eps", "0.1")
    assert rc == 0 and "bound: its limit as T -> infinity (no T given)" in out
    rc, out, _ = run(capsys, *args, "eta_g=1", "T=5", "--eps", "0.1")
    assert rc == 0 and "limit as T -> infinity" not in out


def test_the_cuts_of_a_sequential_say_after_which_layer(capsys) -> None:
    # an nn.Sequential's blocks are named 0, 1, 2: the table says which layer each is
    from torch import nn

    from sfltheory.plan.render import cuts_text
    from verify.models import model_cuts

    net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh(), nn.Linear(16, 10))
    text = cuts_text(model_cuts(net, (64,)))
    assert "0 (Linear)" in text and "2 (Linear)" in text
    # d_c after the first Linear: 64*32 + 32 = 2,080
    assert "2,080" in text.splitlines()[3]


def test_the_binding_branch_in_canonical_names(capsys) -> None:
    # cut_layer prints eta <= 1/(16 S tau) with tau its local steps; canonically that is K, and S is L
    rc, out, _ = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.01", "M=10", "K=2", "L=1")
    assert rc == 0 and "eta<=1/(16 S tau) in canonical names: eta <= 1/(16*K*L)" in out
    assert "slack (max eta - eta)" in out
    rc, out, _ = run(capsys, "check-lr", "cut_layer/prop1", "eta=0.01", "M=10", "K=2", "L=1", "--json")
    assert {b["canonical"] for b in json.loads(out)["branches"]} >= {"eta <= 1/(16*K*L)"}
