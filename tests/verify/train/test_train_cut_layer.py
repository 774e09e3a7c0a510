"""SFL-V1 (as printed and as analysed) and SFL-V2 (seed 003_60e24e21677c19f3.txt) against independent computations.

Every expected value is computed here without the code under test: plain NumPy on the quadratic
f_m(x) = 1/2 (x - b_m)^T H (x - b_m) (client block = first d_c coordinates, the smashed data are those coordinates,
so the client Jacobian is the identity), and explicit torch autograd on a one-hidden-layer MLP. Mini-batches are
drawn through the loop's ``Context`` (the infrastructure), the same draws the algorithms see.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

import verify.data
import verify.models
from sfltheory.errors import ParameterError
from verify.problems import ModelProblem, Problem, QuadraticProblem
from verify.train.algorithms.cut_layer import SFLV1, SFLV2, SFLV1Analysed, aggregation_weights, v1_printed_client
from verify.train.algorithms.sl_noniid import FedAvg
from verify.train.base import Context, SplitAlgorithm, State
from verify.train.loop import run

torch.set_num_threads(1)

# A small coupled quadratic: d = 3, d_c = 1 (client coordinate 0, server coordinates 1, 2), M = 2, no noise.
H = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 1.5]])
B = np.array([[1.0, 0.0, -1.0], [-1.0, 2.0, 0.5]])
X0 = np.array([0.5, -0.5, 1.0])
DC = 1
ETA = 0.1


def quad(sigma2: float = 0.0, shifts: np.ndarray = B) -> QuadraticProblem:
    return QuadraticProblem(H, shifts, X0, DC, sigma2)


def one_round(
    alg: SplitAlgorithm,
    problem: Problem,
    *,
    t: int = 0,
    seed: int = 0,
    batch: int = 2,
    batched: bool = False,
    state: State | None = None,
) -> State:
    st = alg.init_state(problem, problem.init()) if state is None else state
    alg.round(t, st, Context(problem=problem, t=t, seed=seed, batch_size=batch, batched=batched))
    return st


def flat(st: State) -> np.ndarray:
    return torch.cat([st["client"]["x"], st["server"]["x"]]).numpy()


def g(z: np.ndarray, m: int) -> np.ndarray:
    """grad f_m(z) = H (z - b_m) (no noise)."""
    return H @ (z - B[m])


# --- (1) one round by hand on the quadratic, for each variant --------------------------------------------------


def test_sfl_v1_printed_round_by_hand() -> None:
    # Algorithm 1 with E = 2: per client, one server step and two client steps with the same cut-layer gradient
    # (the client Jacobian is I): x_s,m = x_s - eta g_s(x; m), x_c,m = x_c - 2 eta g_c(x; m); then average.
    ends = []
    for m in range(2):
        gm = g(X0, m)
        ends.append(np.concatenate([X0[:DC] - 2 * ETA * gm[:DC], X0[DC:] - ETA * gm[DC:]]))
    want = np.mean(ends, axis=0)
    got = flat(one_round(SFLV1(eta=ETA, E_epochs=2), quad()))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    # a worked number: client coordinate = 0.5 - 0.2 * mean(g_c) with g_c(m=0) = 2*(-0.5) + 0.5*(-0.5) = -1.25,
    # g_c(m=1) = 2*1.5 + 0.5*(-2.5) = 1.75: 0.5 - 0.2 * 0.25 = 0.45
    assert got[0] == pytest.approx(0.45, abs=1e-14)


def test_sfl_v1_analysed_round_by_hand() -> None:
    # App. B: K = 3 split-SGD steps of the whole model per client from x^t, then the average.
    ends = []
    for m in range(2):
        z = X0.copy()
        for _ in range(3):
            z = z - ETA * g(z, m)
        ends.append(z)
    got = flat(one_round(SFLV1Analysed(eta=ETA, K=3), quad()))
    np.testing.assert_allclose(got, np.mean(ends, axis=0), rtol=0, atol=1e-14)


def v2_by_hand(order: tuple[int, ...], E: int = 1, K: int = 1, interleave: str = "step") -> np.ndarray:
    """Algorithm 2 on the quadratic: one shared server part stepped client after client in ``order``."""
    xs = X0[DC:].copy()
    xc = [X0[:DC].copy() for _ in range(2)]
    if interleave == "step":
        for _ in range(K):
            smashed = [c.copy() for c in xc]  # every client forwards before the server starts
            gh = {}
            for m in order:
                gm = g(np.concatenate([smashed[m], xs]), m)
                gh[m] = gm[:DC]
                xs = xs - ETA * gm[DC:]
            xc = [xc[m] - E * ETA * gh[m] for m in range(2)]
    else:
        for m in order:
            for _ in range(K):
                gm = g(np.concatenate([xc[m], xs]), m)
                xs = xs - ETA * gm[DC:]
                xc[m] = xc[m] - E * ETA * gm[:DC]
    return np.concatenate([np.mean(xc, axis=0), xs])


def test_sfl_v2_printed_round_by_hand() -> None:
    got = flat(one_round(SFLV2(eta=ETA, E_epochs=2, order="fixed"), quad()))
    np.testing.assert_allclose(got, v2_by_hand((0, 1), E=2), rtol=0, atol=1e-14)
    # worked numbers: client 0 sees x_s = (-0.5, 1): g = H (0.5-1, -0.5-0, 1+1) = (-1.25, -0.25, 2.875);
    # x_s <- (-0.5, 1) - 0.1 (-0.25, 2.875) = (-0.475, 0.7125). Client 1 sees it: z - b_1 = (1.5, -2.475, 0.2125),
    # g = (3 - 1.2375, 0.75 - 2.475 + 0.053125, -0.61875 + 0.31875) = (1.7625, -1.671875, -0.3);
    # x_s <- (-0.475 + 0.1671875, 0.7125 + 0.03) = (-0.3078125, 0.7425)
    np.testing.assert_allclose(got[DC:], [-0.3078125, 0.7425], rtol=0, atol=1e-14)
    # clients: 0.5 - 2*0.1*(-1.25) = 0.75 and 0.5 - 2*0.1*1.7625 = 0.1475; average 0.44875
    assert got[0] == pytest.approx(0.44875, abs=1e-14)


def test_sfl_v2_random_order_is_a_permutation_per_round() -> None:
    # Algorithm 2 line 20: the result is the hand round for pi = (0, 1) or for pi = (1, 0); both occur over seeds.
    alg, q = SFLV2(eta=ETA, order="random"), quad()
    hands = {o: v2_by_hand(o) for o in itertools.permutations(range(2))}
    assert not np.allclose(hands[(0, 1)], hands[(1, 0)])  # the order matters
    seen = set()
    for seed in range(16):
        got = flat(one_round(alg, q, seed=seed))
        match = [o for o, h in hands.items() if np.allclose(got, h, rtol=0, atol=1e-14)]
        assert len(match) == 1
        seen.add(match[0])
    assert seen == set(hands)


@pytest.mark.parametrize("interleave", ["step", "client"])
def test_sfl_v2_repeated_process_by_hand(interleave: str) -> None:
    got = flat(one_round(SFLV2(eta=ETA, K=2, E_epochs=1, order="fixed", interleave=interleave), quad()))
    np.testing.assert_allclose(got, v2_by_hand((0, 1), K=2, interleave=interleave), rtol=0, atol=1e-14)


def test_sfl_v2_interleavings_differ() -> None:
    # the interleaving is a real choice once K > 1 (and none when K = 1)
    assert not np.allclose(v2_by_hand((0, 1), K=2, interleave="step"), v2_by_hand((0, 1), K=2, interleave="client"))
    a = flat(one_round(SFLV2(eta=ETA, E_epochs=2, order="fixed", interleave="step"), quad()))
    b = flat(one_round(SFLV2(eta=ETA, E_epochs=2, order="fixed", interleave="client"), quad()))
    np.testing.assert_array_equal(a, b)


def test_drift_metric_by_hand() -> None:
    # sfl_v1_analysed, K = 1: x_m - x = -eta g(x; m), drift = mean_m ||eta g(x; m)||^2
    alg, q = SFLV1Analysed(eta=ETA, K=1), quad()
    st = alg.init_state(q, q.init())
    out = alg.round(0, st, Context(problem=q, t=0, seed=0, batch_size=2, batched=False))
    want = np.mean([np.sum((ETA * g(X0, m)) ** 2) for m in range(2)])
    assert out["drift"] == pytest.approx(want, rel=1e-12)


# --- (2) reductions ---------------------------------------------------------------------------------------------


def split_sgd_quadratic(problem: QuadraticProblem, T: int, K: int, eta: float, seed: int, batch: int) -> np.ndarray:
    """Plain split SGD on one client: T K steps x <- x - eta (H (x - mean b) + mean xi) on the loop's mini-batches."""
    d = problem.d
    x = X0.copy()
    for t in range(T):
        ctx = Context(problem=problem, t=t, seed=seed, batch_size=batch, batched=False)
        for i in range(K):
            y = ctx.batch(0, i).y.numpy()
            x = x - eta * (H @ (x - y[:, d:].mean(0)) + y[:, :d].mean(0))
    return x


def test_sfl_v1_analysed_one_client_is_split_sgd() -> None:
    q = quad(sigma2=0.7, shifts=B[:1])
    alg = SFLV1Analysed(eta=ETA, K=3)
    st = None
    for t in range(3):
        st = one_round(alg, q, t=t, seed=5, batch=4, state=st)
    assert st is not None
    np.testing.assert_allclose(flat(st), split_sgd_quadratic(q, 3, 3, ETA, 5, 4), rtol=0, atol=1e-13)


def test_sfl_v1_printed_with_one_epoch_is_the_analysed_with_one_step() -> None:
    # Algorithm 1 with E = 1 and App. B with tau = 1 are the same algorithm (the same draws: client m, step 0)
    q = quad(sigma2=0.5, shifts=np.vstack([B, [[0.0, 1.0, 1.0]]]))
    a = one_round(SFLV1(eta=ETA, E_epochs=1), q, seed=3)
    b = one_round(SFLV1Analysed(eta=ETA, K=1), q, seed=3)
    np.testing.assert_allclose(flat(a), flat(b), rtol=0, atol=1e-15)


def test_sfl_v1_analysed_is_fedavg() -> None:
    # Sec. 4 after Proposition 1: SFL-V1 "can be equivalently transformed into FedAvg" (sl_noniid's, eta_g = 1)
    q = quad(sigma2=0.5)
    a = one_round(SFLV1Analysed(eta=ETA, K=2), q, seed=1)
    b = one_round(FedAvg(eta_l=ETA, eta_g=1.0, K=2), q, seed=1)
    np.testing.assert_allclose(flat(a), flat(b), rtol=0, atol=1e-15)


def digits_problem(
    hidden: tuple[int, ...], cut: str, clients: list[torch.Tensor], seed: int = 0
) -> tuple[ModelProblem, torch.nn.Module]:
    """The digits MLP split at ``cut`` in float64, and an untouched float64 copy of the whole model."""
    ds = verify.data.digits()
    torch.manual_seed(seed)
    model = verify.models.build("mlp", in_features=64, hidden=hidden, num_classes=10)
    ref = copy.deepcopy(model).double()
    p = ModelProblem.at_cut(model, cut, torch.nn.CrossEntropyLoss(), ds.X, ds.y, clients, dtype=torch.float64)
    return p, ref


def whole(st: State) -> dict[str, torch.Tensor]:
    return {**st["client"], **st["server"]}


def test_one_client_on_digits_is_split_sgd_and_v2_equals_v1() -> None:
    # one client: SFL-V1 (analysed) = SFL-V2 with E = 1 = plain SGD of the whole model (explicit autograd loop)
    p, ref = digits_problem((32,), "fc1", [torch.arange(300)])
    T, K, eta, bs = 2, 3, 0.3, 16
    params = dict(ref.named_parameters())
    for t in range(T):
        ctx = Context(problem=p, t=t, seed=2, batch_size=bs, batched=False)
        for i in range(K):
            b = ctx.batch(0, i)
            loss = torch.nn.functional.cross_entropy(ref(b.x), b.y)
            grads = torch.autograd.grad(loss, list(params.values()))
            with torch.no_grad():
                for prm, gr in zip(params.values(), grads, strict=True):
                    prm.sub_(eta * gr)
    a = b2 = None
    for t in range(T):
        a = one_round(SFLV1Analysed(eta=eta, K=K), p, t=t, seed=2, batch=bs, state=a)
        b2 = one_round(SFLV2(eta=eta, K=K), p, t=t, seed=2, batch=bs, state=b2)
    assert a is not None and b2 is not None
    for k, v in params.items():
        torch.testing.assert_close(whole(a)[k], v.detach(), rtol=0, atol=1e-12)
        torch.testing.assert_close(whole(b2)[k], v.detach(), rtol=0, atol=1e-12)


def test_one_client_printed_stale_gradient_on_digits() -> None:
    # Algorithm 1 with one client, E = 3, written out: fc1 -> relu on the client, fc2 on the server.
    p, ref = digits_problem((32,), "fc1", [torch.arange(200)])
    eta, E, bs = 0.2, 3, 16
    W1, b1, W2, b2 = (v.detach().clone() for v in ref.parameters())
    b = Context(problem=p, t=0, seed=4, batch_size=bs, batched=False).batch(0, 0)
    x = b.x.reshape(b.x.shape[0], -1)

    def client(w: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ w.T + c)

    a = client(W1, b1).requires_grad_(True)  # smashed data a_k(t) sent to the server
    W2g, b2g = W2.clone().requires_grad_(True), b2.clone().requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(a @ W2g.T + b2g, b.y)
    gW2, gb2, ga = torch.autograd.grad(loss, [W2g, b2g, a])  # at the pre-update server model
    W2n, b2n = W2 - eta * gW2, b2 - eta * gb2
    for _ in range(E):  # backpropagate the same grad a_k(t) through the current client model
        w, c = W1.clone().requires_grad_(True), b1.clone().requires_grad_(True)
        gw, gc = torch.autograd.grad(client(w, c), [w, c], grad_outputs=ga)
        W1, b1 = W1 - eta * gw, b1 - eta * gc
    want = {"fc1.weight": W1, "fc1.bias": b1, "fc2.weight": W2n, "fc2.bias": b2n}
    for alg in (SFLV1(eta=eta, E_epochs=E), SFLV2(eta=eta, E_epochs=E)):
        got = whole(one_round(alg, p, seed=4, batch=bs))
        for k, v in want.items():
            torch.testing.assert_close(got[k], v, rtol=0, atol=1e-13)


def test_cut_invariance_of_sfl_v1_not_of_sfl_v2() -> None:
    # Sec. 4: SFL-V1 (analysed) is FedAvg whatever the cut; SFL-V2 (M > 1) depends on the cut.
    clients = verify.data.partition(verify.data.digits().y, 3, "iid")
    runs: dict[str, dict[str, dict[str, torch.Tensor]]] = {"v1": {}, "v2": {}}
    for cut in ("fc1", "fc2"):
        p, _ = digits_problem((32, 16), cut, clients)
        runs["v1"][cut] = whole(one_round(SFLV1Analysed(eta=0.3, K=2), p, seed=1, batch=16))
        runs["v2"][cut] = whole(one_round(SFLV2(eta=0.3, K=2, order="fixed"), p, seed=1, batch=16))
    for k, v in runs["v1"]["fc1"].items():
        torch.testing.assert_close(runs["v1"]["fc2"][k], v, rtol=0, atol=1e-12)
    gap = max(float((runs["v2"]["fc2"][k] - v).abs().max()) for k, v in runs["v2"]["fc1"].items())
    assert gap > 1e-6


def test_dataset_size_aggregation_weights() -> None:
    # Alg. 1 lines 34-35: theta <- sum_m |D_m| / sum_i |D_i| theta_m; ragged clients of 50 and 150 samples.
    p, _ = digits_problem((32,), "fc1", [torch.arange(50), torch.arange(50, 200)])
    alg = SFLV1(eta=0.2, E_epochs=2, aggregation="dataset_size")
    x0 = p.init()
    ctx = Context(problem=p, t=0, seed=0, batch_size=16, batched=False)
    ends = [v1_printed_client(p, x0["client"], x0["server"], ctx.batch(m, 0), 0.2, 2) for m in range(2)]
    got = one_round(alg, p, seed=0, batch=16)
    for part, j in (("client", 0), ("server", 1)):
        for k in got[part]:
            want = 0.25 * ends[0][j][k] + 0.75 * ends[1][j][k]
            torch.testing.assert_close(got[part][k], want, rtol=0, atol=1e-13)
    eq = one_round(SFLV1(eta=0.2, E_epochs=2), p, seed=0, batch=16)
    torch.testing.assert_close(eq["server"]["fc2.bias"], 0.5 * (ends[0][1]["fc2.bias"] + ends[1][1]["fc2.bias"]))
    assert p.client_sizes() == (50, 150)


def test_dataset_size_weights_of_a_problem_without_datasets() -> None:
    # The algorithm asks the problem for its clients' data sizes (Problem.client_sizes), never for its class: a
    # synthetic problem draws from distributions, holds none, and "dataset_size" falls back to equal weights.
    q = quad()
    assert q.client_sizes() is None
    assert aggregation_weights(q, "dataset_size") is None


# --- (3) batched == loop ------------------------------------------------------------------------------------------

ALGS: list[Callable[[], SplitAlgorithm]] = [
    lambda: SFLV1(eta=ETA, E_epochs=2),
    lambda: SFLV1Analysed(eta=ETA, K=3),
    lambda: SFLV2(eta=ETA, K=2, E_epochs=2),
]


@pytest.mark.parametrize("make", ALGS, ids=["sfl_v1", "sfl_v1_analysed", "sfl_v2"])
def test_batched_equals_loop(make: Callable[[], SplitAlgorithm]) -> None:
    q = quad(sigma2=0.5, shifts=np.vstack([B, [[0.0, 1.0, 1.0]]]))
    clients = [torch.arange(0, 40), torch.arange(40, 140), torch.arange(140, 400)]  # ragged: padding in the stack
    p, _ = digits_problem((32,), "fc1", clients)
    for problem, batch in ((q, 3), (p, 64)):
        a = b = None
        for t in range(2):
            a = one_round(make(), problem, t=t, seed=7, batch=batch, batched=True, state=a)
            b = one_round(make(), problem, t=t, seed=7, batch=batch, batched=False, state=b)
        assert a is not None and b is not None
        for part in ("client", "server"):
            for k in a[part]:
                torch.testing.assert_close(a[part][k], b[part][k], rtol=0, atol=1e-10)


# --- (4) determinism ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ALGS, ids=["sfl_v1", "sfl_v1_analysed", "sfl_v2"])
def test_same_seed_same_curve(make: Callable[[], SplitAlgorithm]) -> None:
    q = quad(sigma2=0.5, shifts=np.vstack([B, [[0.0, 1.0, 1.0]]]))
    r1 = run(make(), q, T=4, seed=11, batch=2, progress=False).series("gradnorm2")
    r2 = run(make(), q, T=4, seed=11, batch=2, progress=False).series("gradnorm2")
    r3 = run(make(), q, T=4, seed=12, batch=2, progress=False).series("gradnorm2")
    np.testing.assert_array_equal(r1, r2)
    assert np.abs(r1[1:] - r3[1:]).max() > 1e-8


def test_resume_reproduces_the_curve(tmp_path: Path) -> None:
    # the state is the global model only (no optimiser state), so a run resumed from a checkpoint is the same run
    q = quad(sigma2=0.5, shifts=np.vstack([B, [[0.0, 1.0, 1.0]]]))
    whole_run = run(SFLV2(eta=ETA, K=2), q, T=4, seed=3, batch=2, progress=False).series("gradnorm2")
    run(SFLV2(eta=ETA, K=2), q, T=2, seed=3, batch=2, progress=False, out=tmp_path)
    resumed = run(SFLV2(eta=ETA, K=2), q, T=4, seed=3, batch=2, progress=False, out=tmp_path).series("gradnorm2")
    np.testing.assert_array_equal(resumed, whole_run)


# --- (5) real data ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [lambda: SFLV1(eta=0.5, E_epochs=2), lambda: SFLV1Analysed(eta=0.3, K=3), lambda: SFLV2(eta=0.3, K=2)],
    ids=["sfl_v1", "sfl_v1_analysed", "sfl_v2"],
)
def test_digits_short_run_decreases_the_loss(make: Callable[[], SplitAlgorithm]) -> None:
    ds = verify.data.digits()
    torch.manual_seed(0)
    model = verify.models.build("mlp", in_features=64, hidden=(32,), num_classes=10)
    clients = verify.data.partition(ds.y, 4, "iid")
    p = ModelProblem.at_cut(model, "fc1", torch.nn.CrossEntropyLoss(), ds.X, ds.y, clients)
    loss = run(make(), p, T=15, seed=0, batch=32, progress=False).series("loss")
    assert np.all(np.isfinite(loss))
    assert loss[-1] < 0.85 * loss[0]  # cross-entropy starts near ln 10 = 2.30


# --- counters -----------------------------------------------------------------------------------------------------


def test_bytes_and_passes() -> None:
    # float64, d_c = 1: one smashed sample or its gradient = 8 bytes; the client model = 8 bytes.
    q = quad()
    counts = {}
    for name, alg in (("v1", SFLV1(eta=ETA, E_epochs=3)), ("v2", SFLV2(eta=ETA, K=2, E_epochs=3))):
        st = alg.init_state(q, q.init())
        ctx = Context(problem=q, t=0, seed=0, batch_size=4, batched=False)
        alg.round(0, st, ctx)
        counts[name] = ctx.counters.as_dict()
    # v1: 2 clients x (4 samples x 8 B up + 8 B model up); the same down; client passes 2 x 4 x E = 24
    assert counts["v1"] == dict(
        bytes_up=2 * (4 * 8 + 8),
        bytes_down=2 * (4 * 8 + 8),
        client_forward=24,
        client_backward=24,
        server_forward=8,
        server_backward=8,
    )
    # v2 with K = 2: twice the smashed traffic and passes, the model once
    assert counts["v2"] == dict(
        bytes_up=2 * (2 * 4 * 8 + 8),
        bytes_down=2 * (2 * 4 * 8 + 8),
        client_forward=48,
        client_backward=48,
        server_forward=16,
        server_backward=16,
    )


# --- (6) bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "kw", "name"),
    [
        (SFLV1, {"eta": -0.1}, "eta"),
        (SFLV1, {"E_epochs": 0}, "E_epochs"),
        (SFLV1, {"K": 2}, "K"),  # the printed SFL-V1 takes E_epochs, not K
        (SFLV1Analysed, {"K": 1.5}, "K"),
        (SFLV1Analysed, {"eta": float("nan")}, "eta"),
        (SFLV1Analysed, {"tau": 2}, "tau"),  # the paper's tau is the canonical K
        (SFLV2, {"order": "sorted"}, "order"),
        (SFLV2, {"interleave": "random"}, "interleave"),
        (SFLV2, {"aggregation": "median"}, "aggregation"),
    ],
)
def test_bad_input_names_the_parameter(cls: type[SplitAlgorithm], kw: dict[str, object], name: str) -> None:
    with pytest.raises(ParameterError) as err:
        cls(**kw)
    assert err.value.name == name
    assert name in str(err.value)


def test_registry_metadata() -> None:
    assert (SFLV1.name, SFLV1Analysed.name, SFLV2.name) == ("sfl_v1", "sfl_v1_analysed", "sfl_v2")
    assert SFLV1Analysed.results == (
        "cut_layer/prop1",
        "cut_layer/prop1@proof",
        "cut_layer/lem1",
        "cut_layer/lem2",
        "cut_layer/tau_def",
    )
    assert SFLV2.results == ("cut_layer/sfl_v2",) and SFLV1.results == ()
    assert {SFLV1.paper, SFLV1Analysed.paper, SFLV2.paper} == {"cut_layer"}
