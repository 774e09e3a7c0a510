"""verify on a split torch model: constants measured along the trajectory (sup), the bound evaluated with them,
the left-hand side a mean over seeds, the CLI's model options and name=value sorting (issue 14).

The model and data are the test's own (a tanh MLP on Gaussian blobs), not the package's zoo."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

import sfltheory as st
from sfltheory.errors import ParameterError
from sfltheory.experiments import experiment
from verify.constants import measure
from verify.pipeline.check import check_on_model
from verify.pipeline.trajectory import measured_rounds
from verify.problems import SPLIT, ModelProblem, whole_model
from verify.spec import CheckSpec
from verify.train import get, run


def verify_on_model(result: str, p: ModelProblem, *, given: dict | None = None, **kw):
    """A check of ``result`` on the test's own problem ``p`` (given constants are the spec's overrides)."""
    return check_on_model(CheckSpec(result=result, overrides=given or {}, **kw), experiment(result), p)


def blobs(n: int = 96, d: int = 5, k: int = 3, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % k
    centres = torch.randn(k, d, generator=g) * 2
    return centres[y] + torch.randn(n, d, generator=g), y


def problem(M: int = 3) -> ModelProblem:
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    X, y = blobs()
    clients = [torch.arange(m, len(X), M) for m in range(M)]  # equal round-robin clients
    return ModelProblem.at_cut(net, 1, nn.CrossEntropyLoss(reduction="none"), X, y, clients, aux=False,
                               dtype=torch.float64)  # fmt: skip


def test_measured_rounds_spread_over_the_run() -> None:
    assert measured_rounds(10, 3) == {0, 5, 10}
    assert measured_rounds(10, 1) == {0}
    assert measured_rounds(4, 5) == {0, 1, 2, 3, 4}
    with pytest.raises(ParameterError, match="points"):
        measured_rounds(10, 0)


def test_the_run_observes_every_recorded_model() -> None:
    p = problem()
    seen: list[tuple[int, float]] = []

    def observe(t, pc, ps) -> None:
        # ||grad f||^2 at the observed model, by plain autograd on the whole training set with the clients'
        # equal weights f = (1/M) sum_m f_m (an independent computation of what the recorder records)
        params = {**{f"client.{k}": v.clone().requires_grad_() for k, v in pc.items()},
                  **{f"server.{k}": v.clone().requires_grad_() for k, v in ps.items()}}  # fmt: skip
        model = whole_model(p)
        out = torch.func.functional_call(model, params, (p.X,))
        per = nn.functional.cross_entropy(out, p.y, reduction="none")
        f = sum(per[idx].mean() for idx in p.indices) / p.M
        g = torch.autograd.grad(f, list(params.values()))
        seen.append((t, float(sum((x**2).sum() for x in g))))

    r = run(get("sl")(eta_l=0.1, K=1, order="fixed"), p, T=4, batch=8, seed=0, progress=False, observe=observe)
    assert [t for t, _ in seen] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose([g for _, g in seen], r.series("gradnorm2"), rtol=1e-8)


def test_model_verification_uses_the_sup_of_the_constants_along_the_run() -> None:
    p = problem()
    T, seeds = 6, 2
    v = verify_on_model("sl_noniid/thm1", p, T=T, seeds=seeds, batch=8, points=2, step=0.2, params={"K": 1})
    assert v.algorithm == "sl" and "constants measured at 2 rounds" in v.problem
    adm = v.legs[0]
    assert adm.mode == "admissible"
    # the admissible leg re-measures at x^0 and x^T of its seed-0 run: replay that run and measure there
    rounds: dict[int, dict[str, torch.Tensor]] = {}

    def keep(t, pc, ps) -> None:
        if t in (0, T):
            rounds[t] = {**{f"client.{k}": v.clone() for k, v in pc.items()},
                         **{f"server.{k}": v.clone() for k, v in ps.items()}}  # fmt: skip

    r = st.get("sl_noniid/thm1")
    ev = st.evaluate(r, {**v.constants, "K": 1, "eta_g": 1.0, "eta_l": adm.step, "T": float(T)})
    algo = get("sl")(eta_l=float(np.asarray(ev.params["eta_l"])), eta_g=1.0, K=1, order="fixed")
    run(algo, p, T=T, batch=8, seed=0, progress=False, observe=keep)
    Ls = [measure(whole_model(p), nn.CrossEntropyLoss(reduction="none"), (p.X, p.y), SPLIT, ["L_clients"],
                  clients=p.indices, params=rounds[t], dtype=torch.float64).get("L[clients]").value
          for t in (0, T)]  # fmt: skip
    assert v.constants["L"] == pytest.approx(max(Ls), rel=1e-6)
    # the left-hand side: mean over seeds of (1/T) sum_{t<T} ||grad f(x^t)||^2, from independent runs
    g = [run(algo, p, T=T, batch=8, seed=s, progress=False).series("gradnorm2")[:T] for s in range(seeds)]
    expect = np.mean([np.cumsum(x) / np.arange(1, T + 1) for x in g], axis=0)
    np.testing.assert_allclose(adm.lhs, expect, rtol=1e-9)
    # and the bound at every T is the theorem's with those constants
    bound = st.bound_value(r, {**v.constants, "K": 1, "eta_g": 1.0, "eta_l": adm.step, "T": np.arange(1.0, T + 1)})
    np.testing.assert_allclose(adm.bound, bound, rtol=1e-12)
    assert v.constant_errors.get("L", 0) >= 0
    # the second leg: the step given
    assert [leg.mode for leg in v.legs] == ["admissible", "given"] and v.legs[1].step == 0.2


def test_an_underestimated_constant_is_caught_on_a_model() -> None:
    # the bound of sl_noniid Thm 1 is at least F/(eta_l K T) + ... : with F, sigma2, G2 given 1e-9 it falls far
    # below the measured average gradient norm (about 1 at x^0 for this model), so the verdict must be violated
    v = verify_on_model("sl_noniid/thm1", problem(), T=4, seeds=2, batch=8, points=1, practical=False,
                        given={"F": 1e-9, "sigma2": 1e-9, "G2": 1e-9})  # fmt: skip
    assert v.legs[0].verdict == "violated" and v.legs[0].first_violation == 1
    assert any("F = 1e-09: given (replaces the measured value)" in n for n in v.constant_notes)


def test_bad_model_verification_input() -> None:
    p = problem()
    with pytest.raises(ParameterError, match="sets"):
        verify_on_model("sl_noniid/cor1@explicit", p, T=3, params={"eta_l": 0.1})
    with pytest.raises(ParameterError, match="not a parameter of sl"):
        verify_on_model("sl_noniid/thm1", p, T=3, params={"tau": 2})
    with pytest.raises(ParameterError, match="does not use it"):
        verify_on_model("sl_noniid/thm1", p, T=3, given={"delta": 0.0})


def test_cli_verify_on_a_model_and_a_problem_file(tmp_path, capsys) -> None:
    from verify.app import main
    from verify.pipeline.check import default_problem

    rc = main(["verify", "sl_noniid/thm1", "--model", "mlp", "--input-shape", "64", "--clients", "2", "--T", "3",
               "--seeds", "2", "--points", "1", "--order", "fixed", "eta_l=0.05", "--json"])  # fmt: skip
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    res = out["results"][0]
    assert res["problem"].startswith("mlp on digits[train]: M = 2")
    assert res["params"]["order"] == "fixed" and res["legs"][-1]["step"] == 0.05
    # a problem file: the constants are the file's exact ones
    q = default_problem(experiment("sl_noniid/thm1"), seed=3)
    path = tmp_path / "q.json"
    path.write_text(json.dumps(q.to_dict()))
    assert main(["verify", "sl_noniid/thm1", "--problem", str(path), "--T", "5", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["results"][0]
    assert res["constants"]["L"] == pytest.approx(q.constants(batch=4).get("L").value)
    assert res["problem"].startswith("exact quadratic")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["verify", "heron_sfl/thm1@sum", "--problem", "quadratic"], "no quadratic has"),
        (["verify", "sl_noniid/thm1", "--model", "mlp", "foo=1"], "'foo': neither a parameter of sl"),
        (["verify", "sl_noniid/thm1", "--model", "mlp", "eta_l=0.1,0.2"], "one value per name"),
        (["verify", "sl_noniid/thm1", "--order", "fixed"], "'--order'"),
        (["verify", "sl_noniid/thm1", "--problem", "quadratic", "--model", "mlp"], "'--model'"),
        (["verify", "sl_noniid/thm1", "--model", "mlp", "--worst-case", "2"], "'--worst-case'"),
        # an exact quadratic's moments are computed on the CPU: a device for it would be ignored
        (["verify", "sl_noniid/thm1", "--device", "cuda"], "'--device': runs a model problem on cuda; an exact"),
        (["verify", "sl_noniid/thm1", "--model", "mlp", "--device", "tpu"], "'--device': must be auto, cpu, cuda"),
        (["verify", "sl_noniid/thm1", "--run", "x.csv", "--device", "cpu"], "'--device'"),
    ],
)
def test_cli_verify_model_bad_input(argv, needle, capsys) -> None:
    from verify.app import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_verify_model_on_an_absent_device_is_refused_before_any_run(capsys, monkeypatch) -> None:
    # no CUDA here (patched): one line naming --device, before the data are loaded or a round runs
    import torch

    from verify.app import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["verify", "sl_noniid/thm1", "--model", "mlp", "--input-shape", "64", "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sfltheory: error: parameter '--device': cuda: ") and err.endswith("; use cpu or auto")
    assert len(err.splitlines()) == 1


def test_check_spec_on_the_cpu_keeps_its_key() -> None:
    # checks cached before --device existed are still found: device = cpu is not part of the key
    from verify.spec import CheckSpec

    assert CheckSpec(result="sl_noniid/thm1").key() == CheckSpec(result="sl_noniid/thm1", device="cpu").key()
    assert CheckSpec(result="sl_noniid/thm1").key() != CheckSpec(result="sl_noniid/thm1", device="cuda").key()
