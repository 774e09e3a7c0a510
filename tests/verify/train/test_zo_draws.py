"""Where the zeroth-order directions come from (issue 23): the ``draws`` parameter of MU-SplitFed and HERON-SFL.

``"device"``: client m's P Gaussian draws for (purpose, step) are one ``torch.randn((P, d))`` on the parameters'
device from a generator seeded from (seed, round, "randn_block", purpose, step, m) (``Context.randn_block``, the
rule stated in ``verify.ops.zo``); ``"cpu"``: one float64 CPU generator per (client, step, perturbation), the
draws of every run made before. Expected numbers here are regenerated from those documented rules with
``torch.randn`` and ``derive_seed`` directly, or are closed forms (the gradient of a quadratic).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from sfltheory.errors import ParameterError
from verify.ops import zo
from verify.ops.tree import Params
from verify.problems import ModelProblem, QuadraticProblem
from verify.train.algorithms.heron_sfl import HeronSFL
from verify.train.algorithms.mu_splitfed import MUSplitFed
from verify.train.base import Context, SplitAlgorithm, State, derive_seed
from verify.train.loop import run

torch.set_num_threads(1)

LIKE = {"w": torch.zeros(3, 2, dtype=torch.float64), "b": torch.zeros(2, dtype=torch.float64)}  # d = 8


def quad(M: int = 3, device: str = "cpu") -> QuadraticProblem:
    return QuadraticProblem.from_targets(d=6, d_c=2, M=M, sigma2=0.5, seed=3, device=device)


def ctx_for(problem: Any, seed: int = 5, t: int = 2, batched: bool = True) -> Context:
    return Context(problem=problem, t=t, seed=seed, batch_size=4, batched=batched)


def block(seed: int, t: int, keys: tuple[Any, ...], m: int, P: int, d: int, dtype: torch.dtype) -> torch.Tensor:
    """The documented device block of client m, drawn directly."""
    gen = torch.Generator().manual_seed(derive_seed(seed, t, "randn_block", *keys, m))
    return torch.randn(P, d, generator=gen, dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_device_block_is_one_randn_per_client_split_in_key_order(dtype: torch.dtype) -> None:
    like = {k: v.to(dtype) for k, v in LIKE.items()}
    z = ctx_for(quad()).randn_block(like, 4, [0, 2], "u_s", 1)
    assert z["w"].shape == (2, 4, 3, 2) and z["b"].shape == (2, 4, 2) and z["w"].dtype == dtype
    for i, m in enumerate([0, 2]):
        want = block(5, 2, ("u_s", 1), m, 4, 8, dtype)
        assert torch.equal(z["w"][i].reshape(4, 6), want[:, :6])  # "w" first: like's key order
        assert torch.equal(z["b"][i], want[:, 6:])
    # client 2's numbers do not depend on the clients drawn with it (the per-client loop draws [m] alone)
    alone = ctx_for(quad()).randn_block(like, 4, [2], "u_s", 1)
    assert torch.equal(alone["w"][0], z["w"][1]) and torch.equal(alone["b"][0], z["b"][1])
    # another round, step or seed draws other numbers
    for other in (
        ctx_for(quad(), t=3).randn_block(like, 4, [0], "u_s", 1),
        ctx_for(quad()).randn_block(like, 4, [0], "u_s", 2),
    ):
        assert not torch.equal(other["b"][0], z["b"][0])


def test_cpu_draws_are_the_per_perturbation_generators_of_earlier_runs() -> None:
    """``draws="cpu"``: MU-SplitFed's direction p of client m is the sqrt(d)-sphere normalisation of the float64
    draws of one CPU generator seeded from (seed, t, "randn", m, "u_c", p), tensor by tensor in key order; HERON's
    Gaussian draws are those of ("randn", "zo", m, k, p, "client"/"aux")."""
    ctx = ctx_for(quad())
    U = MUSplitFed(P=3, draws="cpu").directions(ctx, LIKE, [0, 1], "u_c")
    for m in (0, 1):
        for p in range(3):
            gen = torch.Generator().manual_seed(derive_seed(5, 2, "randn", m, "u_c", p))
            z = torch.cat([torch.randn(3, 2, generator=gen, dtype=torch.float64).reshape(-1),
                           torch.randn(2, generator=gen, dtype=torch.float64)])  # fmt: skip
            u = torch.cat([U["w"][m, p].reshape(-1), U["b"][m, p]])
            torch.testing.assert_close(u, z * math.sqrt(8) / z.norm(), rtol=1e-15, atol=0)
    zc, za = HeronSFL(P=2, draws="cpu").gaussians(ctx, {"x": LIKE["b"]}, {"x": LIKE["w"]}, [1], 4)
    for p in range(2):
        gc = torch.Generator().manual_seed(derive_seed(5, 2, "randn", "zo", 1, 4, p, "client"))
        ga = torch.Generator().manual_seed(derive_seed(5, 2, "randn", "zo", 1, 4, p, "aux"))
        assert torch.equal(zc["x"][0, p], torch.randn(2, generator=gc, dtype=torch.float64))
        assert torch.equal(za["x"][0, p], torch.randn(3, 2, generator=ga, dtype=torch.float64))


def test_heron_device_draws_are_one_block_of_the_joint_tree() -> None:
    ctx = ctx_for(quad())
    zc, za = HeronSFL(P=3).gaussians(ctx, {"x": LIKE["b"]}, {"x": LIKE["w"]}, [0, 2], 1)
    for i, m in enumerate([0, 2]):
        want = block(5, 2, ("zo", 1), m, 3, 8, torch.float64)  # client part (2 values) first, then the head (6)
        assert torch.equal(zc["x"][i], want[:, :2]) and torch.equal(za["x"][i].reshape(3, 6), want[:, 2:])


def algorithms(draws: str, **kw: Any) -> list[SplitAlgorithm]:
    return [
        MUSplitFed(P=3, tau=2, eta_c=0.05, eta_s=0.05, eta_g=0.7, lam=1e-3, draws=draws, **kw),
        HeronSFL(K=2, l=1, P=3, eta_c=1e-3, eta_s=0.1, lam=1e-3, draws=draws, **kw),
    ]


@pytest.mark.parametrize("draws", ["device", "cpu"])
def test_same_seed_same_curve(draws: str) -> None:
    q = quad(M=2)
    for alg in algorithms(draws):
        a, b, c = (run(alg, q, T=3, seed=s, batch=3, progress=False) for s in (1, 1, 2))
        np.testing.assert_array_equal(a.series("gradnorm2"), b.series("gradnorm2"))
        assert not np.allclose(a.series("gradnorm2")[1:], c.series("gradnorm2")[1:])
        assert a.config["params"]["draws"] == draws  # the run records which draws it used


def test_device_and_cpu_draws_are_different_numbers() -> None:
    q = quad(M=2)
    for dev, cpu in zip(algorithms("device"), algorithms("cpu"), strict=True):
        a = run(dev, q, T=2, seed=1, batch=3, progress=False).series("gradnorm2")
        b = run(cpu, q, T=2, seed=1, batch=3, progress=False).series("gradnorm2")
        assert a[0] == b[0] and np.abs(a[1:] - b[1:]).min() > 0


def digits_problem(device: str = "cpu") -> ModelProblem:
    from verify.data import digits
    from verify.models import build

    ds = digits()
    torch.manual_seed(0)
    model = build("mlp", in_features=64, hidden=(16,), num_classes=10).double()
    idx = torch.randperm(len(ds.y))
    clients = [idx[:5], idx[5:25], idx[25:60]]  # client 0 holds fewer samples than the batch: padded
    return ModelProblem.at_cut(
        model, "fc1", torch.nn.CrossEntropyLoss(), ds.X.double(), ds.y, clients, dtype=torch.float64, device=device
    )


def one_round(alg: SplitAlgorithm, problem: Any, batched: bool) -> State:
    state = alg.init_state(problem, problem.init())
    alg.round(1, state, Context(problem=problem, t=1, seed=4, batch_size=16, batched=batched))
    return state


def assert_states_close(a: State, b: State, tol: float) -> None:
    for part in a:
        for k in a[part]:
            torch.testing.assert_close(a[part][k], b[part][k], rtol=0, atol=tol)


@pytest.mark.parametrize("draws", ["device", "cpu"])
def test_chunks_of_clients_do_not_change_the_numbers(draws: str) -> None:
    """A memory ceiling of 1 byte runs the batched round one client at a time: the same end point as all three
    at once and as the per-client loop (float64, so within rounding)."""
    p = digits_problem()
    for alg in algorithms(draws):
        x0 = p.init()
        assert alg.chunks(p, x0["client"], x0["server"]) == [[0, 1, 2]]  # type: ignore[attr-defined]
        whole = one_round(alg, p, batched=True)
        alg.memory_budget = 1  # type: ignore[attr-defined]
        assert alg.chunks(p, x0["client"], x0["server"]) == [[0], [1], [2]]  # type: ignore[attr-defined]
        chunked = one_round(alg, p, batched=True)
        loop = one_round(alg, p, batched=False)
        assert_states_close(whole, chunked, 1e-12)
        assert_states_close(whole, loop, 1e-10)
        assert not torch.equal(whole["client"]["fc1.weight"], x0["client"]["fc1.weight"])


def test_client_chunks_rule() -> None:
    cpu = torch.device("cpu")
    assert zo.client_chunks(5, 10, cpu, budget=25) == [[0, 1], [2, 3], [4]]
    assert zo.client_chunks(5, 10, cpu, budget=1) == [[0], [1], [2], [3], [4]]  # at least one client a chunk
    assert zo.client_chunks(5, 10, cpu, budget=1000) == [[0, 1, 2, 3, 4]]


def test_split_flat_refuses_a_wrong_size() -> None:
    with pytest.raises(ParameterError) as e:
        zo.split_flat(torch.zeros(4, 7), LIKE)
    assert e.value.name == "z"


@pytest.mark.parametrize(("form", "law"), [(zo.SPSA, zo.SQRT_D_SPHERE), (zo.FORWARD, zo.UNIT_SPHERE)])
def test_estimate_from_device_draws_is_unbiased_on_a_quadratic(form: str, law: str) -> None:
    """E[estimate] = grad f on f(x) = 1/2 x^T A x + b^T x for either form (the central difference is exact, the
    forward one's second-order term is odd in u; E[u u^T] = I for the sqrt(d)-sphere and I/d for the unit
    sphere, which the scale d undoes). 300 rounds of P = 20 device draws: the mean is within 4.5 standard errors
    of the closed-form gradient, and the interval excludes the estimate without the scale (1/d of it)."""
    g = torch.Generator().manual_seed(0)
    A = torch.randn(8, 8, generator=g, dtype=torch.float64)
    A = A @ A.T / 8
    b = torch.randn(8, generator=g, dtype=torch.float64)
    x = {
        "w": torch.randn(3, 2, generator=g, dtype=torch.float64),
        "b": torch.randn(2, generator=g, dtype=torch.float64),
    }

    def flat(p: Params) -> torch.Tensor:
        return torch.cat([p["w"].reshape(-1), p["b"]])

    def f(p: Params) -> torch.Tensor:
        v = flat(p)
        return 0.5 * v @ A @ v + b @ v

    grad = A @ flat(x) + b
    ests = []
    for t in range(300):
        z = ctx_for(quad(), seed=1, t=t).randn_block(x, 20, [0], "u")
        U, s = zo.directions_batched(z, law)
        ests.append(flat(zo.estimate(f, x, {k: v[0] for k, v in U.items()}, 1e-3, form=form, scale=s)))
    e = torch.stack(ests)
    mean, se = e.mean(0), e.std(0) / math.sqrt(len(e))
    assert bool((se > 0).all())
    assert bool(((mean - grad).abs() <= 4.5 * se).all()), (mean, grad, se)
    assert bool(((grad / 8 - grad).abs() > 4.5 * se).any())


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="device draws on CUDA need a GPU")
def test_cuda_device_draws_run_and_the_loop_equals_the_batched_round() -> None:
    """On CUDA the block is CUDA's Philox numbers (torch.randn with a CUDA generator); the per-client loop draws
    each client's block alone and equals the batched round; a second round with the same seed is identical."""
    like = {k: v.cuda() for k, v in LIKE.items()}
    z = ctx_for(quad(device="cuda")).randn_block(like, 4, [0, 1], "u_c")
    gen = torch.Generator(device="cuda").manual_seed(derive_seed(5, 2, "randn_block", "u_c", 1))
    want = torch.randn(4, 8, generator=gen, dtype=torch.float64, device="cuda")
    assert z["b"].is_cuda and torch.equal(z["b"][1], want[:, 6:])
    p = digits_problem(device="cuda")
    for alg in algorithms("device"):
        batched = one_round(alg, p, batched=True)
        assert_states_close(batched, one_round(alg, p, batched=False), 1e-10)
        assert_states_close(batched, one_round(alg, p, batched=True), 1e-12)
