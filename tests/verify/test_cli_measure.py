"""`sfltheory measure` and `--constants`: the CLI end to end (in process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from sfltheory.constants import Constants
from verify.app import main

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
        (["--cut", "nope"], "parameter '--cut'"),  # the library names problem.cut, the command line its flag
        (["--clients", "0"], "--clients"),
        (["--what", "sigma2,wobble"], "parameter '--what'"),
        (["--what", "eps2"], "parameter '--clients'"),
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


# ---- issue 11 ------------------------------------------------------------------------------------------------

SMALL = "synthetic:n=24,shape=4,classes=3"


def four_linears() -> torch.nn.Module:
    """nn.Sequential blocks "0".."3", every one a cut candidate but the last: d = 30 + 35 + 24 + 15 = 104."""
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Linear(4, 6), nn.Linear(6, 5), nn.Linear(5, 4), nn.Linear(4, 3))


class _Tokens(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        nn = torch.nn
        self.emb = nn.Embedding(7, 3)
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(15, 4), nn.Tanh())
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.emb(x)))


def token_model() -> torch.nn.Module:
    torch.manual_seed(1)
    return _Tokens()


def _json(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_cut_on_sequential_is_the_block_name(capsys: pytest.CaptureFixture[str]) -> None:
    # "--cut 1" is the block named "1" (client = blocks 0 and 1: 4*6+6 + 6*5+5 = 65), not the first cut (after
    # block "0", d_c = 30); the help and the site's measuring page say a name wins
    rc = main(["measure", "--model", f"{__name__}:four_linears", "--data", SMALL, "--cut", "1", "--what", "F",
               "--quiet", "--json"])  # fmt: skip
    assert rc == 0
    c = _json(capsys)
    assert c["meta"]["cut"] == "1" and c["constants"]["d_c"]["value"] == 65 and c["constants"]["d_s"]["value"] == 39
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    assert "--cut 1 is the block named '1'" in " ".join(capsys.readouterr().out.split())
    readme = " ".join((Path(__file__).parents[2] / "docs" / "guide" / "measuring.md").read_text().split())
    assert '`--cut 1` is the block named "1"' in readme


def test_token_inputs_with_a_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # verify.data reads every input as float32; a model whose nn.Embedding rejects floats gets its token ids back
    # as int64 (before: the cut was refused, blaming --input-shape). sigma^2 against a per-sample loop.
    g = torch.Generator().manual_seed(2)
    X, y = torch.randint(0, 7, (10, 5), generator=g), torch.randint(0, 2, (10,), generator=g)
    data = tmp_path / "tokens.pt"
    torch.save({"X": X, "y": y}, data)
    rc = main(["measure", "--model", f"{__name__}:token_model", "--data", str(data), "--cut", "emb", "--what",
               "sigma2", "--float64", "--quiet", "--json"])  # fmt: skip
    assert rc == 0
    c = _json(capsys)
    assert c["constants"]["d_c"]["value"] == 21  # the embedding, 7 x 3
    model = token_model().double()
    params = {k: v.detach().requires_grad_() for k, v in model.named_parameters()}
    rows = []
    for i in range(10):
        out = torch.func.functional_call(model, params, (X[i : i + 1],))
        gs = torch.autograd.grad(torch.nn.functional.cross_entropy(out, y[i : i + 1]), list(params.values()))
        rows.append(torch.cat([t.reshape(-1) for t in gs]))
    G = torch.stack(rows)
    sigma2 = float((G - G.mean(0)).pow(2).sum(1).mean())
    assert c["constants"]["sigma2"]["value"] == pytest.approx(sigma2, rel=1e-10)
    assert "token ids" in c["meta"]["data_note"]
    # the Python API with float token ids and a cut: the data is named, not --input-shape
    from sfltheory.errors import ParameterError
    from verify.constants.measure import measure

    with pytest.raises(ParameterError, match="integer token ids") as e:
        measure(token_model(), torch.nn.CrossEntropyLoss(), (X.float(), y), "emb", ["F"], device="cpu")
    assert e.value.name == "data"


def test_measure_steps(capsys: pytest.CaptureFixture[str]) -> None:
    # before: "track() got multiple values for keyword argument 'batch'" whenever --steps was given. --batch is
    # the mini-batch of sigma2[batch], --train-batch the SGD batch; the summary carries the secant
    rc = main(["measure", "--model", f"{__name__}:four_linears", "--data", SMALL, "--what", "L,sigma2", "--steps",
               "2", "--every", "1", "--batch", "4", "--train-batch", "8", "--quiet", "--json"])  # fmt: skip
    assert rc == 0
    c = _json(capsys)
    assert c["meta"]["steps"] == [0, 1, 2] and c["meta"]["points"] == 3
    assert "L[secant]" in c["constants"] and "sigma2[batch]" in c["constants"]


def _client_L(clients: list[torch.Tensor]) -> float:
    """max over clients of the top eigenvalue of f_m's Hessian: torch.func.hessian + eigvalsh, float64."""
    from verify.data import load

    ds = load(SMALL)
    model = four_linears().double()
    names = [n for n, _ in model.named_parameters()]
    shapes = [p.shape for _, p in model.named_parameters()]
    flat0 = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    tops = []
    for idx in clients:
        X, y = ds.X[idx].double(), ds.y[idx]

        def f(flat: torch.Tensor, X: torch.Tensor = X, y: torch.Tensor = y) -> torch.Tensor:
            parts, s = {}, 0
            for n, sh in zip(names, shapes, strict=True):
                parts[n] = flat[s : s + sh.numel()].view(sh)
                s += sh.numel()
            return torch.nn.functional.cross_entropy(torch.func.functional_call(model, parts, (X,)), y)

        tops.append(float(torch.linalg.eigvalsh(torch.func.hessian(f)(flat0))[-1]))
    return max(tops)


def test_measure_for_a_result_and_bound_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # MU-SplitFed Thm 4.3 assumes every local objective L-smooth: --for measures L[clients] (max over the clients'
    # f_m); a record without it makes `bound --constants` warn, in one line naming L and L[clients]
    from verify.data import load, partition

    base = ["measure", "--model", f"{__name__}:four_linears", "--data", SMALL, "--cut", "1", "--clients", "3",
            "--float64", "--tol", "1e-8", "--quiet"]  # fmt: skip
    full, weak = tmp_path / "full.json", tmp_path / "weak.json"
    assert main([*base, "--for", "mu_splitfed/thm4.3", "--out", str(full)]) == 0
    assert main([*base, "--what", "L,sigma2,eps2,F", "--out", str(weak)]) == 0
    capsys.readouterr()
    c = Constants.load(full)
    assert c.meta["for"] == "mu_splitfed/thm4.3" and "kappa" not in c.meta["what"]
    clients = partition(load(SMALL).y, 3, "iid", 0)
    assert c.variants["L[clients]"].value == pytest.approx(_client_L(clients), rel=1e-6)
    args = ["T=100", "tau=2", "M=3", "eta=1e-7", "eta_g=1", "lam=1e-4", "P=1"]
    assert main(["bound", "mu_splitfed/thm4.3", "--constants", str(full), "--json", *args]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["parameters"]["L"] == pytest.approx(c.variants["L[clients]"].value)
    assert main(["bound", "mu_splitfed/thm4.3", "--constants", str(full), *args]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["bound", "mu_splitfed/thm4.3", "--constants", str(weak), *args]) == 0
    warnings = [w for w in capsys.readouterr().err.splitlines() if "warning" in w]
    assert len(warnings) == 1
    assert warnings[0].startswith("sfltheory: warning: L:") and "needs L[clients]" in warnings[0]
    assert "using L in its place" in warnings[0]
    # given on the command line, the value is the user's: no warning
    assert main(["bound", "mu_splitfed/thm4.3", "--constants", str(weak), "L=2", *args]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--for", "mu_splitfed/nope"], "unknown result id"),
        (["--for", "mu_splitfed/thm4.3", "--cut", "", "--clients", "2"], "parameter '--cut'"),
        (["--for", "mu_splitfed/thm4.3", "--cut", "1"], "parameter '--clients'"),
        (["--for", "heron_sfl/lemma3", "--cut", "1", "--clients", "2"], "parameter '--lam'"),
    ],
)
def test_measure_for_bad_input(extra: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["measure", "--model", f"{__name__}:four_linears", "--data", SMALL, "--quiet", *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and needle in err


def test_unreliable_estimate_flagged(tmp_path: Path) -> None:
    # kappa = 1.05 +- 3.2 from 30 probes: se > |value|. se ~ 1/sqrt(probes), so se = |value|/2 = 0.525 needs
    # 30 * (3.2 / 0.525)^2 = 30 * 37.15 = 1114.6 -> 1115 probes
    from sfltheory.constants import Estimate

    bad = Estimate(1.05, se=3.2, probes=30, method="kappa")
    good = Estimate(1.05, se=0.9, probes=30)
    assert bad.unreliable and not good.unreliable and good.reliability == ""
    assert bad.needed() == 1115 and "1,115 probes" in str(bad) and "unreliable" in str(bad)
    c = Constants(kappa=bad, L=good)
    d = c.to_dict()["constants"]
    assert d["kappa"]["unreliable"] is True and d["kappa"]["needed"] == 1115 and "unreliable" not in d["L"]
    assert "unreliable: se 3.2 > |value| 1.05" in str(c)
    c.to_json(tmp_path / "c.json")
    assert Constants.load(tmp_path / "c.json").kappa == bad  # the derived keys are recomputed, not stored
    # an estimate without probes is told the samples: se 0.3 > 0.2 from n = 50 -> 50 * (0.3/0.1)^2 = 450
    assert Estimate(0.2, se=0.3, n=50).needed() == 450


def test_defaults_and_estimated_time() -> None:
    # the parser repeats measure's default precision without importing torch: they must agree
    import importlib

    from verify.cli import PROBES, TOL

    measure_mod = importlib.import_module("verify.constants.measure")  # the package's `measure` is the function

    assert (PROBES, TOL) == (measure_mod.PROBES, measure_mod.TOL)
    # the estimated time is shown right after the gradients, before the curvature (the long work) begins
    events: list[str] = []
    model = four_linears()
    X, y = torch.randn(24, 4), torch.randint(0, 3, (24,))
    measure_mod.measure(model, torch.nn.CrossEntropyLoss(), (X, y), "1", ["L", "kappa"], clients=2, device="cpu",
                        progress=events.append)  # fmt: skip
    assert events[0] == "gradients" and events[1].startswith("est. ") and events[1].endswith((" s", " min"))
    assert any(e.startswith("Lanczos") for e in events[2:])


def test_measure_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    # --seed seeds the registered model's initialisation too: two runs measure the same point (before, each run
    # drew fresh weights: sigma2 2.99 in one run of the README example and 3.38 in the next)
    runs = []
    for _ in range(2):
        assert main([*ARGS, "--clients", "2", "--what", "sigma2,F", "--json"]) == 0
        runs.append(_json(capsys)["constants"])
    assert runs[0] == runs[1]


def test_measure_at_every_cut_writes_one_record_per_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # four_linears has cuts after blocks "0", "1", "2": each record is the same measurement with --cut at that block
    from sfltheory.constants import CutConstants

    base = ["measure", "--model", f"{__name__}:four_linears", "--data", SMALL, "--what", "sigma2", "--float64",
            "--quiet"]  # fmt: skip
    out = tmp_path / "cuts.json"
    assert main([*base, "--cuts", "all", "--out", str(out)]) == 0
    per_cut = CutConstants.load(out)
    assert per_cut.cuts == ("0", "1", "2")
    for cut in ("0", "2"):  # the one-cut measurement, made independently, equals the record of that cut
        one = tmp_path / f"one{cut}.json"
        assert main([*base, "--cut", cut, "--out", str(one)]) == 0
        alone, rec = Constants.load(one), per_cut.at(cut)
        for key in ("sigma_c2[pooled]", "sigma_s2[max]", "d_c"):
            got, want = rec.get(key), alone.get(key)
            assert got is not None and want is not None and got.value == pytest.approx(want.value, rel=1e-12)
    # d_c by hand: 30 parameters in block 0, 30 + 35 + 24 = 89 up to block 2
    d0, d2 = per_cut.at("0").get("d_c"), per_cut.at("2").get("d_c")
    assert d0 is not None and d2 is not None and (d0.value, d2.value) == (30, 89)
    capsys.readouterr()
    assert main([*base, "--cuts", "all", "--cut", "1"]) == 2  # one cut or every cut, not both
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--cut" in err[0], err
