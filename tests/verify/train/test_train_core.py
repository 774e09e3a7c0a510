"""The trainer's core: exact quadratics, SL and FedAvg against hand-computed rounds and plain SGD, the batched
path against the per-client loop, resume, determinism, divergence, counters and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from sfltheory.errors import ParameterError  # noqa: E402
from verify.problems import ModelProblem, QuadraticProblem  # noqa: E402
from verify.train import get, run  # noqa: E402
from verify.train.base import Context  # noqa: E402

torch.set_num_threads(1)

# d = 2, d_c = 1, two clients, no noise: f_m(x) = 1/2 (x - b_m)^T diag(1, 2) (x - b_m).
H2 = [1.0, 2.0]
B2 = [[1.0, 0.0], [0.0, 1.0]]


def tiny(sigma2: float = 0.0) -> QuadraticProblem:
    return QuadraticProblem(H2, B2, [0.0, 0.0], 1, sigma2)


def final(algo, problem, T: int, **kw) -> np.ndarray:
    """The global model after T rounds (through the algorithm's own state)."""
    from verify.train.base import Counters

    state = algo.init_state(problem, problem.init())
    for t in range(T):
        algo.round(t, state, Context(problem=problem, t=t, seed=0, batch_size=kw.get("batch", 1),
                                     batched=kw.get("batched", False), counters=Counters()))  # fmt: skip
    pc, ps = algo.global_params(state)
    return torch.cat([pc["x"], ps["x"]]).numpy()


# --- the quadratic problem ------------------------------------------------------------------------------------


def test_quadratic_targets_are_exact() -> None:
    p = QuadraticProblem.from_targets(L=3.0, mu=0.5, sigma2=2.0, eps2=0.7, d=6, M=5, F=4.0, seed=3)
    H = p.H.numpy()
    b = p.b.numpy()
    # independent: eigenvalues, (1/M) sum ||H (b_m - bbar)||^2, 1/2 (x0 - bbar)^T H (x0 - bbar)
    eig = np.linalg.eigvalsh(H)
    assert eig.max() == pytest.approx(3.0) and eig.min() == pytest.approx(0.5)
    dev = (b - b.mean(0)) @ H
    assert (dev**2).sum(1).mean() == pytest.approx(0.7, rel=1e-12)
    x0 = p.x0.numpy()
    assert 0.5 * (x0 - b.mean(0)) @ H @ (x0 - b.mean(0)) == pytest.approx(4.0, rel=1e-12)
    c = p.constants()  # the record: its eps2 is the max over clients, the mean that from_targets sets is eps2[mean]
    assert c.get("L").value == pytest.approx(3.0) and c.get("eps2[mean]").value == pytest.approx(0.7)
    assert c.get("F").value == pytest.approx(4.0)


def test_quadratic_noise_variance_is_sigma2() -> None:
    # E||grad F(x; xi) - grad f_m(x)||^2 = sigma2 for one sample: Monte Carlo with 20,000 draws, 5 se.
    p = QuadraticProblem.from_targets(L=1.0, sigma2=0.8, eps2=1.0, d=5, M=2, seed=0)
    x0 = p.init()
    batch = p.sample(1, 20000, torch.Generator().manual_seed(1))
    x = torch.cat([x0["client"]["x"], x0["server"]["x"]])

    def one(z, xrow, yrow):  # the loss of one sample as a function of the whole vector
        h = p.client_forward({"x": z[: 5 // 2]}, xrow[None])
        return p.server_loss({"x": z[5 // 2 :]}, h, yrow[None])[0]

    g = torch.func.vmap(torch.func.grad(one), in_dims=(None, 0, 0))(x, batch.x, batch.y)
    true = p.H @ (x - p.b[1])  # grad f_1, by hand
    err = (g - true).pow(2).sum(1)
    assert abs(float(err.mean()) - 0.8) < 5 * float(err.std()) / math.sqrt(len(err))


def test_quadratic_full_gradient_by_hand() -> None:
    p = tiny()
    # at x = (1, 1): grad f = H (x - bbar) = diag(1,2) ((1,1) - (0.5, 0.5)) = (0.5, 1.0)
    g = p.full_gradient(
        {"x": torch.tensor([1.0], dtype=torch.float64)}, {"x": torch.tensor([1.0], dtype=torch.float64)}
    )
    assert g.client["x"].tolist() == pytest.approx([0.5]) and g.server["x"].tolist() == pytest.approx([1.0])
    # f = 1/2 [ 1/2 (0^2*1 + 1^2*2) + 1/2 (1^2*1 + 0^2*2) ] = 1/2 [1 + 0.5] = 0.75
    assert g.loss == pytest.approx(0.75)


def test_quadratic_file_round_trip_and_errors(tmp_path) -> None:
    f = tmp_path / "q.json"
    f.write_text(json.dumps({"kind": "quadratic", "H": H2, "shifts": B2, "x0": [0, 0], "d_c": 1, "sigma2": 0.5}))
    p = QuadraticProblem.from_file(f)
    assert p.M == 2 and p.d_c == 1 and p.sigma2 == 0.5
    assert p.to_dict()["H"] == H2
    for bad, field in [
        ({"kind": "quadratic", "H": H2, "shifts": B2, "x0": [0, 0], "d_c": 1}, "problem.file"),  # sigma2 missing
        ({"kind": "quadratic", "H": [1.0], "shifts": B2, "x0": [0, 0], "d_c": 1, "sigma2": 0}, "H"),
        ({"kind": "quadratic", "H": H2, "shifts": [[1, 2, 3]], "x0": [0, 0], "d_c": 1, "sigma2": 0}, "shifts"),
        ({"kind": "quadratic", "H": H2, "shifts": B2, "x0": [0, 0], "d_c": 2, "sigma2": 0}, "d_c"),
        ({"kind": "quadratic", "H": [[1, 2], [0, 1]], "shifts": B2, "x0": [0, 0], "d_c": 1, "sigma2": 0}, "H"),
        ({"kind": "cubic"}, "problem.file"),
    ]:
        f.write_text(json.dumps(bad))
        with pytest.raises(ParameterError) as e:
            QuadraticProblem.from_file(f)
        assert e.value.name == field
    f.write_text("{not json")
    with pytest.raises(ParameterError, match="not a readable JSON"):
        QuadraticProblem.from_file(f)


# --- hand-computed rounds -------------------------------------------------------------------------------------


def test_sl_one_round_by_hand() -> None:
    # order fixed, K = 1, eta_l = 0.1, eta_g = 0.5, x^0 = (0, 0):
    # client 1: grad = H (x - b_1) = (1*(0-1), 2*(0-0)) = (-1, 0)  -> x = (0.1, 0)
    # client 2 starts there: grad = H (x - b_2) = (0.1, 2*(0-1)) = (0.1, -2) -> x = (0.09, 0.2)
    # global: x^1 = 0 + 0.5 ((0.09, 0.2) - 0) = (0.045, 0.1)
    algo = get("sl")(eta_l=0.1, K=1, eta_g=0.5, order="fixed")
    assert final(algo, tiny(), 1) == pytest.approx([0.045, 0.1], abs=1e-15)


def test_fedavg_one_round_by_hand() -> None:
    # each client from (0, 0): client 1 -> (0.1, 0); client 2: grad = (0, -2) -> (0, 0.2)
    # average (0.05, 0.1); x^1 = 0 + 0.5 (0.05, 0.1) = (0.025, 0.05)
    for batched in (False, True):
        algo = get("fedavg")(eta_l=0.1, K=1, eta_g=0.5)
        assert final(algo, tiny(), 1, batched=batched) == pytest.approx([0.025, 0.05], abs=1e-15)


def test_fedavg_two_local_steps_by_hand() -> None:
    # K = 2, eta_l = 0.1, eta_g = 1: client 1: (0,0) -> (0.1, 0) -> x1 - 0.1 (0.1 - 1) = (0.19, 0)
    # client 2: (0,0) -> (0, 0.2) -> 0.2 - 0.1 * 2 * (0.2 - 1) = 0.36 -> (0, 0.36); average (0.095, 0.18)
    algo = get("fedavg")(eta_l=0.1, K=2, eta_g=1.0)
    assert final(algo, tiny(), 1) == pytest.approx([0.095, 0.18], abs=1e-15)


# --- exact reductions -----------------------------------------------------------------------------------------


def test_fedavg_and_sl_with_one_client_are_gd_on_the_noiseless_quadratic() -> None:
    # M = 1, K = 1, eta_g = 1: x <- x - eta H (x - b), iterated by hand in numpy
    p = QuadraticProblem([1.0, 3.0, 0.5], [[1.0, -1.0, 2.0]], [0.0, 0.0, 0.0], 2, 0.0)
    H, b, x = np.diag([1.0, 3.0, 0.5]), np.array([1.0, -1.0, 2.0]), np.zeros(3)
    for _ in range(7):
        x = x - 0.2 * H @ (x - b)
    for name in ("fedavg", "sl"):
        assert final(get(name)(eta_l=0.2, K=1, eta_g=1.0), p, 7) == pytest.approx(x, abs=1e-14)


def _mlp_problem(sizes=(40, 40), dtype=torch.float64, seed=0):
    from verify.data import digits

    ds = digits()
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.Tanh(), nn.Linear(16, 10))
    start = 0
    idx = []
    for s in sizes:
        idx.append(torch.arange(start, start + s))
        start += s
    prob = ModelProblem.at_cut(model, "1", nn.CrossEntropyLoss(), ds.X[:start], ds.y[:start], idx, dtype=dtype,
                               aux=False)  # fmt: skip
    return model, prob


@pytest.mark.parametrize("name", ["fedavg", "sl"])
def test_one_client_one_step_is_plain_sgd_on_the_whole_model(name: str) -> None:
    # FedAvg with eta_g = 1, K = 1, M = 1 and SL with one client and eta_g = 1 are SGD: compare with
    # torch.optim.SGD on the original (unsplit) module over the same mini-batches.
    model, prob = _mlp_problem(sizes=(60,))
    ref = model.double()  # the problem copied the model: training it leaves the problem's x^0 alone
    opt = torch.optim.SGD(ref.parameters(), lr=0.3)
    for t in range(5):
        ctx = Context(problem=prob, t=t, seed=0, batch_size=8, batched=False)
        b = ctx.batch(0, 0)  # the batch the algorithm draws for client 0, local step 0
        opt.zero_grad()
        nn.functional.cross_entropy(ref(b.x), b.y).backward()
        opt.step()
    algo = get(name)(eta_l=0.3, K=1, eta_g=1.0)
    state = algo.init_state(prob, prob.init())
    for t in range(5):
        algo.round(t, state, Context(problem=prob, t=t, seed=0, batch_size=8, batched=False))
    got = torch.cat([v.reshape(-1) for v in [*state["client"].values(), *state["server"].values()]])
    want = torch.cat([p.detach().reshape(-1) for p in ref.parameters()])
    assert torch.allclose(got, want, rtol=0, atol=1e-12)


# --- batched == loop, ragged clients ---------------------------------------------------------------------------


def test_fedavg_batched_equals_loop_with_ragged_clients() -> None:
    # client 0 holds 3 samples < batch 8: padded and masked in the batched path
    _, prob = _mlp_problem(sizes=(3, 30, 50))
    a = run(get("fedavg")(eta_l=0.5, K=3), prob, T=4, batch=8, batched=True, progress=False)
    b = run(get("fedavg")(eta_l=0.5, K=3), prob, T=4, batch=8, batched=False, progress=False)
    assert a.config["batched"] and not b.config["batched"]
    np.testing.assert_allclose(a.series("gradnorm2"), b.series("gradnorm2"), rtol=1e-10)
    np.testing.assert_allclose(a.series("loss"), b.series("loss"), rtol=1e-12)


def test_model_full_gradient_weights_clients_equally() -> None:
    # f = (1/M) sum_m f_m with unequal clients (3 and 50 samples), against autograd on the original model
    model, prob = _mlp_problem(sizes=(3, 50))
    model = model.double()
    from verify.data import digits

    ds = digits()
    fm = [nn.functional.cross_entropy(model(ds.X[i].double()), ds.y[i]) for i in (torch.arange(3), torch.arange(3, 53))]
    f = (fm[0] + fm[1]) / 2
    want = torch.autograd.grad(f, list(model.parameters()))
    x0 = prob.init()
    g = prob.full_gradient(x0["client"], x0["server"])
    got = [*g.client.values(), *g.server.values()]
    for a, b in zip(got, want, strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    assert g.loss == pytest.approx(float(f.detach()))


def test_recorded_gradient_on_a_fixed_subsample() -> None:
    # eval_samples = 10: client 0 (3 samples) keeps all, client 1 (50) a fixed 10 of its own; f is still the
    # equal-weight mean of the two clients' mean losses, checked with autograd on the original model
    from verify.data import digits

    ds = digits()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.Tanh(), nn.Linear(16, 10)).double()
    idx = [torch.arange(3), torch.arange(3, 53)]
    prob = ModelProblem.at_cut(model, "1", nn.CrossEntropyLoss(), ds.X[:53], ds.y[:53], idx, dtype=torch.float64,
                               aux=False, eval_samples=10)  # fmt: skip
    sub = prob.eval_indices
    assert [len(i) for i in sub] == [3, 10] and set(sub[1].tolist()) <= set(range(3, 53))
    f = sum(nn.functional.cross_entropy(model(ds.X[i].double()), ds.y[i]) for i in sub) / 2
    want = torch.autograd.grad(f, list(model.parameters()))
    x0 = prob.init()
    g = prob.full_gradient(x0["client"], x0["server"])
    for a, b in zip([*g.client.values(), *g.server.values()], want, strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    assert "subsample of at most 10" in prob.describe()["gradient_on"]


# --- the loop: records, resume, determinism, divergence ----------------------------------------------------------


def test_records_and_counters_by_hand() -> None:
    p = QuadraticProblem.from_targets(d=10, M=4, sigma2=0.0, seed=0)
    r = run(get("fedavg")(eta_l=0.1, K=2), p, T=3, batch=4, progress=False)
    assert [x.t for x in r.records] == [0, 1, 2, 3]
    g = r.series("gradnorm2")
    assert r.records[2].gradnorm2_avg == pytest.approx(g[:3].mean())
    assert r.records[3].gradnorm2_min == pytest.approx(g.min())
    assert r.records[1].gradnorm2 == pytest.approx(r.records[1].gradnorm2_client + r.records[1].gradnorm2_server)
    # FedAvg sends the whole model (10 float64 = 80 bytes) each way per client: 4 * 80 = 320 bytes per round
    assert r.records[3].bytes_up == 3 * 320 and r.records[3].bytes_down == 3 * 320
    # K = 2 steps of 4 samples on 4 clients: 32 forward and backward samples per round, all on the client
    assert r.records[1].client_forward == 32 and r.records[1].server_forward == 0
    # default time model: clients take 1 s on the whole model, the client holds d_c/d = 1/2: 0.5 s per round
    # (the server's 0.01 s * 1/2 step overlaps)
    assert r.records[3].sim_time == pytest.approx(1.5)


def test_simulated_time_counts_the_server_schedule() -> None:
    # server step 1 s on the whole model, clients 0.1 s; the client holds d_c/d = 1/2 of the quadratic:
    # straggler 0.1 * 0.5 = 0.05 s; SFL-V1: one step per copy in parallel, 1 * 0.5 = 0.5 s per round;
    # SFL-V2 with M = 2: the shared server steps once per client, 2 * 0.5 = 1.0 s; overlapped: the max
    from sfltheory.plan.timemodel import TimeModel

    tm = TimeModel(server_step=1.0, client_time=(0.1, 0.1))
    for name, per_round in (("sfl_v1", 0.5), ("sfl_v2", 1.0)):
        r = run(get(name)(), tiny(), T=2, time_model=tm, progress=False)
        assert r.records[2].sim_time == pytest.approx(2 * per_round), name


def test_same_seed_same_curve_other_seed_other_curve() -> None:
    p = QuadraticProblem.from_targets(d=6, M=3, sigma2=1.0, seed=0)
    a = run(get("sl")(eta_l=0.1, K=2), p, T=5, seed=7, batch=2, progress=False)
    b = run(get("sl")(eta_l=0.1, K=2), p, T=5, seed=7, batch=2, progress=False)
    c = run(get("sl")(eta_l=0.1, K=2), p, T=5, seed=8, batch=2, progress=False)
    assert np.array_equal(a.series("gradnorm2"), b.series("gradnorm2"))
    assert not np.allclose(a.series("gradnorm2")[1:], c.series("gradnorm2")[1:])


class Crash(Exception):
    pass


def test_resume_after_a_crash_equals_the_uninterrupted_run(tmp_path, monkeypatch) -> None:
    p = QuadraticProblem.from_targets(d=6, M=3, sigma2=1.0, seed=0)
    full = run(get("sl")(eta_l=0.1, K=2), p, T=9, batch=2, progress=False)
    algo = get("sl")(eta_l=0.1, K=2)
    real = algo.round

    def flaky(t, state, ctx):
        if t == 6:
            raise Crash
        return real(t, state, ctx)

    monkeypatch.setattr(algo, "round", flaky)
    with pytest.raises(Crash):
        run(algo, p, T=9, batch=2, out=tmp_path, checkpoint_every=4, progress=False)
    saved = torch.load(tmp_path / "state.pt", weights_only=False)
    assert len(saved["records"]) == 5  # rounds 0..3 were checkpointed at t = 4
    resumed = run(get("sl")(eta_l=0.1, K=2), p, T=9, batch=2, out=tmp_path, checkpoint_every=4, progress=False)
    assert np.array_equal(resumed.series("gradnorm2"), full.series("gradnorm2"))
    assert resumed.records[-1].bytes_up == full.records[-1].bytes_up
    # extend a finished run: T = 12 continues from 9 and equals a fresh T = 12 run
    longer = run(get("sl")(eta_l=0.1, K=2), p, T=12, batch=2, out=tmp_path, progress=False)
    fresh = run(get("sl")(eta_l=0.1, K=2), p, T=12, batch=2, progress=False)
    assert np.array_equal(longer.series("gradnorm2"), fresh.series("gradnorm2"))
    from verify.train import Run

    assert Run.load(tmp_path / "run.json").series("gradnorm2").tolist() == fresh.series("gradnorm2").tolist()
    with pytest.raises(ParameterError, match="different configuration"):
        run(get("sl")(eta_l=0.2, K=2), p, T=12, batch=2, out=tmp_path, progress=False)


def test_divergence_stops_and_keeps_the_records(tmp_path) -> None:
    # GD on L = 1 with eta = 10: |1 - 10| = 9 per step, so ||grad||^2 grows 81x a round and passes 1e150
    p = QuadraticProblem([1.0, 1.0], [[1.0, 1.0]], [0.0, 0.0], 1, 0.0)
    r = run(get("fedavg")(eta_l=10.0), p, T=500, batch=1, out=tmp_path, progress=False)
    assert r.status == "diverged" and "diverged in round" in r.message
    assert 70 < len(r.records) < 90  # 2 * 81^t > 1e150 from t = 78 on: log(5e149)/log(81) = 78.4
    assert all(math.isfinite(x.gradnorm2) for x in r.records)
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "diverged"


def test_bad_input() -> None:
    p = tiny()
    with pytest.raises(ParameterError, match="'eta_l'"):
        get("fedavg")(eta_l=-1)
    with pytest.raises(ParameterError, match=r"'tau'.*does not take"):
        get("fedavg")(tau=2)
    with pytest.raises(ParameterError, match="'K'"):
        get("sl")(K=0)
    with pytest.raises(ParameterError, match="'algorithm'"):
        get("nope")
    with pytest.raises(ParameterError, match="'n'"):
        run(get("fedavg")(n=3), p, T=1, progress=False)
    with pytest.raises(ParameterError, match="'T'"):
        run(get("fedavg")(), p, T=0, progress=False)


def test_a_model_that_is_not_a_chain_is_refused() -> None:
    class Skip(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.b = nn.Linear(4, 2)

        def forward(self, x):
            return self.b(self.a(x) + x)  # the skip crosses the cut

    X, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    with pytest.raises(ParameterError, match="not a chain"):
        ModelProblem.at_cut(Skip(), "a", nn.CrossEntropyLoss(), X, y, [torch.arange(8)], aux=False)
    with pytest.raises(ParameterError, match=r"'(problem\.)?cut'"):
        ModelProblem.at_cut(Skip(), "zz", nn.CrossEntropyLoss(), X, y, [torch.arange(8)], aux=False)


def test_short_runs_on_digits_decrease_the_loss() -> None:
    _, prob = _mlp_problem(sizes=(200, 200, 200), dtype=torch.float32)
    for name in ("fedavg", "sl"):
        r = run(get(name)(eta_l=0.2, K=2), prob, T=15, batch=16, progress=False)
        loss = r.series("loss")
        assert loss[-1] < 0.8 * loss[0], (name, loss)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_cuda_gives_the_cpu_curve() -> None:
    p_cpu = QuadraticProblem.from_targets(d=8, M=4, sigma2=0.5, seed=0)
    p_gpu = QuadraticProblem.from_targets(d=8, M=4, sigma2=0.5, seed=0, device="cuda")
    a = run(get("fedavg")(eta_l=0.1, K=2), p_cpu, T=5, batch=4, progress=False)
    b = run(get("fedavg")(eta_l=0.1, K=2), p_gpu, T=5, batch=4, progress=False)
    np.testing.assert_allclose(a.series("gradnorm2"), b.series("gradnorm2"), rtol=1e-10)


def test_every_listed_result_exists_and_names_its_algorithm() -> None:
    # the registry's result ids are catalogue ids (a typo would silently break verification's mapping)
    import sfltheory as st
    from verify.train import ALGORITHMS

    for cls in ALGORITHMS.values():
        for rid in cls.results:
            assert st.get(rid).paper == cls.paper, (cls.name, rid)
    assert "sl_noniid/thm2" in ALGORITHMS["fedavg"].results and "sl_noniid/thm2" not in ALGORITHMS["sl"].results
