"""MU-SplitFed / MU-Split (seed 000_0fb66116fc20c956.txt, Algorithm 1, eqs. (3)-(7)) in the trainer.

Every expected number comes from outside the code under test: a round worked out by hand (comments), a plain
NumPy re-implementation of eqs. (3)-(7) that regenerates the draws from the documented keys (seed, round, keys)
with the infrastructure's ``derive_seed``, the exact gradient of the quadratic, or byte arithmetic.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

import sfltheory as st
from sfltheory.errors import ParameterError
from verify.problems import ModelProblem, QuadraticProblem
from verify.train.algorithms.mu_splitfed import MUSplit, MUSplitFed
from verify.train.base import Context, derive_seed
from verify.train.loop import run

torch.set_num_threads(1)


def one_round(
    alg: Any, prob: Any, *, seed: int = 0, batch: int = 3, batched: bool = False, t: int = 0
) -> tuple[dict[str, Any], dict[str, float], Context]:
    state = alg.init_state(prob, prob.init())
    ctx = Context(problem=prob, t=t, seed=seed, batch_size=batch, batched=batched)
    metrics = alg.round(t, state, ctx)
    return state, metrics, ctx


def flat(state: dict[str, Any]) -> np.ndarray:
    return torch.cat([state["client"]["x"], state["server"]["x"]]).numpy()


def quad(M: int = 2, d: int = 5, d_c: int = 2, sigma2: float = 0.5, seed: int = 0) -> QuadraticProblem:
    """A quadratic with a full (non-diagonal) H, so the client's loss difference depends on the server part."""
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(d, d, generator=g, dtype=torch.float64)
    H = A @ A.T / d + 0.2 * torch.eye(d, dtype=torch.float64)
    B = torch.randn(M, d, generator=g, dtype=torch.float64)
    x0 = torch.randn(d, generator=g, dtype=torch.float64)
    return QuadraticProblem(H, B, x0, d_c, sigma2)


# --- (1) one round by hand ---------------------------------------------------------------------------------------

# d = 2 with d_c = d_s = 1: the sqrt(1)-sphere is {-1, +1}, so u u^T = 1 and, the quadratic's central difference
# being exact, every zeroth-order estimate is the exact gradient whatever the directions: the round is then
# computable by hand. H = [[2, 1], [1, 3]], b_1 = (1, 0), b_2 = (-1, 2), x^0 = (1, 1), sigma2 = 0,
# tau = 2, eta_s = eta_c = 0.1.
#   client 1: d/dx_s = (x_c - 1) + 3 x_s:  x_s 1 -> 1 - 0.1*3 = 0.7 -> 0.7 - 0.1*2.1 = 0.49
#             d/dx_c at (1, 0.49) = 2 (1 - 1) + (0.49 - 0) = 0.49:  x_c -> 1 - 0.049 = 0.951
#   client 2: d/dx_s = (x_c + 1) + 3 (x_s - 2):  x_s 1 -> 1 - 0.1*(2 - 3) = 1.1 -> 1.1 - 0.1*(2 - 2.7) = 1.17
#             d/dx_c at (1, 1.17) = 2 (1 + 1) + (1.17 - 2) = 3.17:  x_c -> 1 - 0.317 = 0.683
#   means: x_c 0.817, x_s 0.83; drift = ((0.049^2 + 0.51^2) + (0.317^2 + 0.17^2)) / 2 = 0.195945
HAND = dict(H=[[2.0, 1.0], [1.0, 3.0]], shifts=[[1.0, 0.0], [-1.0, 2.0]], x0=[1.0, 1.0], d_c=1, sigma2=0.0)
HAND_ALG = dict(tau=2, eta_s=0.1, eta_c=0.1, P=1, lam=0.5)


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        # eta_g = 1: the mean of the end points
        (dict(eta_g=1.0), (0.817, 0.83)),
        # eta_g = 0.5, descending eq. (7): x + 0.5 (mean - x) = (1 - 0.0915, 1 - 0.085)
        (dict(eta_g=0.5), (0.9085, 0.915)),
        # eta_g = 0.5, eq. (7) as printed: x - 0.5 (mean - x) = (1 + 0.0915, 1 + 0.085), an ascent
        (dict(eta_g=0.5, aggregation="printed"), (1.0915, 1.085)),
        # loss difference at the round's start x_s = 1: client grads 2*0 + 1 = 1 and 2*2 - 1 = 3,
        # x_c -> 0.9 and 0.7, mean 0.8; the server is unchanged (0.83)
        (dict(eta_g=1.0, client_delta_at="server_at_start"), (0.8, 0.83)),
    ],
)
def test_round_by_hand(kw: dict[str, Any], expected: tuple[float, float]) -> None:
    prob = QuadraticProblem(**HAND)  # type: ignore[arg-type]
    for batched in (False, True):
        state, metrics, _ = one_round(MUSplitFed(**HAND_ALG, **kw), prob, batched=batched)
        np.testing.assert_allclose(flat(state), expected, rtol=0, atol=1e-12)
    if "client_delta_at" not in kw:
        assert metrics["drift"] == pytest.approx(0.195945, abs=1e-12)


def _directions(seed: int, t: int, keys: tuple[Any, ...], n: int) -> np.ndarray:
    """Uniform on the sqrt(n)-sphere from the documented keys ("randn", *keys) (Context.randn_like's draw)."""
    g = torch.Generator().manual_seed(derive_seed(seed, t, "randn", *keys))
    z = torch.randn(n, generator=g, dtype=torch.float64).numpy()
    return z * math.sqrt(n) / np.linalg.norm(z)


def _device_directions(seed: int, t: int, keys: tuple[Any, ...], m: int, P: int, n: int) -> list[np.ndarray]:
    """The documented device draws (verify.ops.zo, "device"): client m's P draws of keys are one (P, n) block from
    a generator seeded from (seed, t, "randn_block", *keys, m); row p, on the sqrt(n)-sphere."""
    g = torch.Generator().manual_seed(derive_seed(seed, t, "randn_block", *keys, m))
    z = torch.randn(P, n, generator=g, dtype=torch.float64).numpy()
    return [row * math.sqrt(n) / np.linalg.norm(row) for row in z]


def _noise(seed: int, t: int, m: int, i: int, size: int, d: int, sigma2: float) -> np.ndarray:
    """The quadratic's per-sample gradient noise xi of mini-batch ("batch", m, i)."""
    g = torch.Generator().manual_seed(derive_seed(seed, t, "batch", m, i))
    return torch.randn(size, d, generator=g, dtype=torch.float64).numpy() * math.sqrt(sigma2 / d)


def reference_round(prob: QuadraticProblem, p: dict[str, Any], seed: int, batch: int, t: int = 0) -> np.ndarray:
    """Eqs. (3)-(7) in NumPy: F(z; xi) = 1/2 (z - b_m)^T H (z - b_m) + <xi, z>, batch mean."""
    H, B, x = prob.H.numpy(), prob.b.numpy(), prob.x0.numpy()
    d, d_c, M = prob.d, prob.d_c, prob.M
    d_s = d - d_c
    P, tau, lam = p["P"], p["tau"], p["lam"]
    xc, xs = x[:d_c], x[d_c:]
    fresh = p["server_batch"] == "fresh"
    ends = []
    for m in range(M):
        xis = [_noise(seed, t, m, i, batch, d, prob.sigma2) for i in range(tau if fresh else 1)]

        def F(zc: np.ndarray, zs: np.ndarray, xi: np.ndarray, m: int = m) -> float:
            z = np.concatenate([zc, zs])
            r = z - B[m]
            return float(np.mean(0.5 * r @ H @ r + xi @ z))

        device = p["draws"] == "device"
        if device:
            uc = _device_directions(seed, t, ("u_c",), m, P, d_c)
        else:
            uc = [_directions(seed, t, (m, "u_c", q), d_c) for q in range(P)]
        ps = xs.copy()
        for i in range(tau):
            xi = xis[i] if fresh else xis[0]
            G = np.zeros(d_s)
            uss = _device_directions(seed, t, ("u_s", i), m, P, d_s) if device else None
            for q in range(P):
                us = uss[q] if uss is not None else _directions(seed, t, (m, "u_s", i, q), d_s)
                G += (F(xc, ps + lam * us, xi) - F(xc, ps - lam * us, xi)) / (2 * lam) * us / P
            ps = ps - p["eta_s"] * G
        at = ps if p["client_delta_at"] == "server_after_tau" else xs
        Gc = sum((F(xc + lam * u, at, xis[0]) - F(xc - lam * u, at, xis[0])) / (2 * lam) * u / P for u in uc)
        ends.append(np.concatenate([xc - p["eta_c"] * Gc, ps]))
    sign = 1.0 if p["aggregation"] == "descent" else -1.0
    return x + sign * p["eta_g"] * (np.mean(ends, axis=0) - x)


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("server_batch", ["same", "fresh"])
@pytest.mark.parametrize("client_delta_at", ["server_after_tau", "server_at_start"])
@pytest.mark.parametrize("aggregation", ["descent", "printed"])
def test_round_matches_numpy_reference(server_batch: str, client_delta_at: str, aggregation: str, draws: str) -> None:
    """cpu: the draws of every run before device draws existed; device: the documented per-client blocks."""
    prob = quad(M=2, d=5, d_c=2, sigma2=0.7)
    p = dict(
        draws=draws,
        eta_c=0.07,
        eta_s=0.05,
        eta_g=0.8,
        tau=3,
        P=2,
        lam=0.01,
        server_batch=server_batch,
        client_delta_at=client_delta_at,
        aggregation=aggregation,
    )
    alg = MUSplitFed(**p)
    for batched in (False, True):
        state, _, _ = one_round(alg, prob, seed=11, batch=3, t=4, batched=batched)
        want = reference_round(prob, p, seed=11, batch=3, t=4)
        np.testing.assert_allclose(flat(state), want, rtol=0, atol=1e-12)


def test_variants_differ_where_they_should() -> None:
    """With noise, fresh and same batches differ; with a coupled H the client's loss difference depends on the
    server model it is taken at."""
    prob = quad(M=2, d=5, d_c=2, sigma2=0.7)
    base = dict(tau=3, P=2, eta_c=0.1, eta_s=0.1, eta_g=1.0)
    a = flat(one_round(MUSplitFed(**base), prob)[0])
    b = flat(one_round(MUSplitFed(**base, server_batch="fresh"), prob)[0])
    c = flat(one_round(MUSplitFed(**base, client_delta_at="server_at_start"), prob)[0])
    assert np.abs(a - b).max() > 1e-4
    assert np.abs(a[:2] - c[:2]).max() > 1e-4 and np.array_equal(a[2:], c[2:])


# --- (2) reductions -----------------------------------------------------------------------------------------------


def test_expected_zo_step_is_minus_eta_times_gradient() -> None:
    """For a quadratic the central difference is exact, (F(x+lam u)-F(x-lam u))/(2 lam) = <grad F, u>, so the
    sqrt(d)-sphere estimate is u u^T grad F with E[u u^T] = I: E[x^{t+1} - x^t] = -eta grad f(x^t) on each side
    (M = 2 clients, eta_g = 1, tau = 1, client difference at x_s^t as the analysis takes it, noise of mean 0)."""
    prob = quad(M=2, d=6, d_c=3, sigma2=0.5, seed=3)
    eta_c, eta_s = 0.1, 0.05
    alg = MUSplitFed(eta_c=eta_c, eta_s=eta_s, eta_g=1.0, tau=1, P=1, lam=0.01, client_delta_at="server_at_start")
    x0 = prob.x0.numpy()
    grad = prob.H.numpy() @ (x0 - prob.b.numpy().mean(0))  # grad f = H (x - mean b_m)
    target = -np.concatenate([eta_c * grad[:3], eta_s * grad[3:]])
    steps = np.array([flat(one_round(alg, prob, seed=s, batch=2)[0]) - x0 for s in range(1500)])
    mean, se = steps.mean(0), steps.std(0, ddof=1) / math.sqrt(len(steps))
    assert (se > 0).all()
    assert (np.abs(mean - target) <= 4.5 * se).all(), (mean, target, se)
    # the interval is tight enough to see a wrong normalisation (unit sphere: 1/d of the step)
    assert (np.abs(target / 3 - target) > 4.5 * se).any()


def test_mu_split_is_mu_splitfed_with_one_client() -> None:
    """Sec. 4.1: MU-Split is the case M = 1 (no global step, eta_g = 1); only the bytes differ (no Fed Server)."""
    prob = quad(M=1, d=4, d_c=2, sigma2=0.3)
    kw = dict(tau=2, P=2, eta_c=0.05, eta_s=0.05)
    a = run(MUSplit(**kw), prob, T=4, seed=2, batch=3, progress=False)
    b = run(MUSplitFed(**kw, eta_g=1.0), prob, T=4, seed=2, batch=3, progress=False)
    np.testing.assert_array_equal(a.series("gradnorm2"), b.series("gradnorm2"))
    # per round, MU-SplitFed also sends x_c up and down: 2 values * 8 bytes each way
    assert b.records[-1].bytes_up - a.records[-1].bytes_up == 4 * 16
    assert b.records[-1].bytes_down - a.records[-1].bytes_down == 4 * 16


def test_messages_and_counters() -> None:
    # M = 2, batch n = 4, d_c = 2 (the smashed data: 2 float64 = 16 bytes per sample), P = 2, tau = 3.
    prob = quad(M=2, d=5, d_c=2, sigma2=0.1)
    alg = MUSplitFed(P=2, tau=3)
    assert alg.messages() == 5  # 2P + 1 activation uploads per sample
    _, _, ctx = one_round(alg, prob, batch=4)
    c = ctx.counters
    # per client: up (2P+1) n 16 + x_c (16 bytes) = 5*4*16 + 16 = 336; down P*8 + 16 = 32
    assert (c.bytes_up, c.bytes_down) == (2 * 336, 2 * 32)
    # forward passes: client (2P+1) n = 20; server 2P n tau + 2P n = 48 + 16 = 64; no backward pass
    assert (c.client_forward, c.server_forward, c.client_backward, c.server_backward) == (40, 128, 0, 0)
    fresh = MUSplitFed(P=2, tau=3, server_batch="fresh")
    assert fresh.messages() == 7  # 2P + tau
    _, _, ctx = one_round(fresh, prob, batch=4)
    c = ctx.counters
    # per client: up (5*4 + 2*4)*16 + 16 = 464; client forwards 20 + 8 = 28; server 4*(4*3) + 16 = 64
    assert (c.bytes_up, c.client_forward, c.server_forward) == (2 * 464, 56, 128)


def test_results_exist_in_the_catalogue() -> None:
    for cls in (MUSplitFed, MUSplit):
        for rid in cls.results:
            assert st.get(rid) is not None
        assert cls.paper == "mu_splitfed"


# --- (3) batched == per-client loop --------------------------------------------------------------------------------


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("server_batch", ["same", "fresh"])
@pytest.mark.parametrize("client_delta_at", ["server_after_tau", "server_at_start"])
def test_batched_equals_loop_quadratic(server_batch: str, client_delta_at: str, draws: str) -> None:
    prob = quad(M=3, d=6, d_c=3, sigma2=0.5)
    alg = MUSplitFed(
        P=3,
        tau=3,
        eta_c=0.05,
        eta_s=0.05,
        eta_g=0.7,
        server_batch=server_batch,
        client_delta_at=client_delta_at,
        draws=draws,
    )
    a, ma, _ = one_round(alg, prob, seed=5, batch=4, batched=False)
    b, mb, _ = one_round(alg, prob, seed=5, batch=4, batched=True)
    np.testing.assert_allclose(flat(a), flat(b), rtol=0, atol=1e-10)
    assert ma["drift"] == pytest.approx(mb["drift"], abs=1e-10)


@pytest.fixture(scope="module")
def digits() -> Any:
    from verify.data import digits as load

    return load()


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("server_batch", ["same", "fresh"])
def test_batched_equals_loop_model_ragged(digits: Any, server_batch: str, draws: str) -> None:
    """A float64 MLP split at fc1, clients of 5, 20 and 35 samples with batch 16 (client 0 padded)."""
    from verify.models import build

    torch.manual_seed(0)
    model = build("mlp", in_features=64, hidden=(32,), num_classes=10).double()
    idx = torch.randperm(len(digits.y))
    clients = [idx[:5], idx[5:25], idx[25:60]]
    prob = ModelProblem.at_cut(
        model, "fc1", torch.nn.CrossEntropyLoss(), digits.X.double(), digits.y, clients, dtype=torch.float64
    )
    alg = MUSplitFed(P=3, tau=2, eta_c=0.05, eta_s=0.05, eta_g=1.0, lam=1e-3, server_batch=server_batch, draws=draws)
    a, _, ca = one_round(alg, prob, seed=1, batch=16, batched=False)
    b, _, cb = one_round(alg, prob, seed=1, batch=16, batched=True)
    for part in ("client", "server"):
        for k in a[part]:
            torch.testing.assert_close(a[part][k], b[part][k], rtol=0, atol=1e-10)
    assert not torch.equal(a["client"]["fc1.weight"], prob.init()["client"]["fc1.weight"])
    assert ca.counters == cb.counters
    # client 0 holds 5 samples: it uploads (2P+1)*5 embeddings, the others (2P+1)*16
    assert ca.counters.client_forward == 7 * (5 + 16 + 16) + (0 if server_batch == "same" else 5 + 16 + 16)


# --- (4) reproducibility --------------------------------------------------------------------------------------------


def test_same_seed_same_curve_different_seed_different() -> None:
    prob = quad(M=2, d=5, d_c=2, sigma2=0.5)
    alg = MUSplitFed(P=2, tau=2, eta_c=0.05, eta_s=0.05, eta_g=1.0)
    a = run(alg, prob, T=5, seed=3, batch=4, progress=False).series("gradnorm2")
    b = run(alg, prob, T=5, seed=3, batch=4, progress=False).series("gradnorm2")
    c = run(alg, prob, T=5, seed=4, batch=4, progress=False).series("gradnorm2")
    np.testing.assert_array_equal(a, b)
    assert np.abs(a[1:] - c[1:]).min() > 0


# --- (5) real data ----------------------------------------------------------------------------------------------------


def test_digits_loss_decreases(digits: Any) -> None:
    from verify.data import partition
    from verify.models import build

    torch.manual_seed(0)
    model = build("mlp", in_features=64, hidden=(32,), num_classes=10)
    prob = ModelProblem.at_cut(
        model, "fc1", torch.nn.CrossEntropyLoss(), digits.X, digits.y, partition(digits.y, 4, "iid")
    )
    alg = MUSplitFed(eta_c=0.005, eta_s=0.05, eta_g=1.0, P=4, lam=1e-3, tau=4)
    r = run(alg, prob, T=20, seed=0, batch=32, progress=False)
    loss = r.series("loss")
    assert r.status == "complete"
    assert loss[-1] < loss[0] - 0.03, loss


# --- (6) bad input --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        (dict(tau=0), "tau"),
        (dict(P=0), "P"),
        (dict(P=1.5), "P"),
        (dict(lam=0.0), "lam"),
        (dict(lam=-1e-3), "lam"),
        (dict(eta_c=-0.1), "eta_c"),
        (dict(eta_s=float("nan")), "eta_s"),
        (dict(eta_g=0), "eta_g"),
        (dict(server_batch="every"), "server_batch"),
        (dict(client_delta_at="end"), "client_delta_at"),
        (dict(aggregation="sum"), "aggregation"),
        (dict(draws="gpu"), "draws"),
        (dict(K=2), "K"),
    ],
)
def test_bad_parameters(kw: dict[str, Any], name: str) -> None:
    with pytest.raises(ParameterError) as e:
        MUSplitFed(**kw)
    assert e.value.name == name


def test_mu_split_bad_input() -> None:
    with pytest.raises(ParameterError) as e:
        MUSplit(eta_g=1.0)  # MU-Split has no global step
    assert e.value.name == "eta_g"
    with pytest.raises(ParameterError) as e:
        MUSplit().init_state(quad(M=2), quad(M=2).init())
    assert e.value.name == "M"
