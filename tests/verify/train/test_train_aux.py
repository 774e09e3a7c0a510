"""The auxiliary-head algorithms of the trainer: HERON-SFL (seed 001) and sfl_aux / CSE-SFL (seed 004).

Expected numbers are computed here with plain NumPy from the paper's update rules (HERON-SFL eqs. (2), (6)-(8);
sfl_aux Algorithm 1 and (A24), (A38)), on a quadratic whose every gradient is H (x - b_m). The random draws the
algorithms make (directions, participants) are re-derived from the documented keys through ``Context`` (the loop's
generator), not through the algorithm code.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import sfltheory as st
from sfltheory.errors import ParameterError
from verify.ops import tree
from verify.problems import ModelProblem, QuadraticProblem
from verify.train.algorithms.heron_sfl import HeronSFL
from verify.train.algorithms.sfl_aux import SflAux
from verify.train.base import Context, Counters, SplitAlgorithm, State, derive_seed
from verify.train.loop import run

torch.set_num_threads(1)

# A 3-dimensional quadratic: coordinate 0 is the client's, 1-2 the server's (and the head's local copy).
H = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 1.5]])
SHIFTS = np.array([[1.0, -1.0, 0.5], [-0.5, 2.0, 1.0], [0.25, 0.5, -1.0]])
X0 = np.array([0.3, -0.2, 0.7])


def quad(M: int = 2, sigma2: float = 0.0) -> QuadraticProblem:
    return QuadraticProblem(H, SHIFTS[:M], X0, 1, sigma2)


def f(m: int, z: np.ndarray) -> float:
    r = z - SHIFTS[m]
    return float(0.5 * r @ H @ r)


def grad(m: int, z: np.ndarray) -> np.ndarray:
    return H @ (z - SHIFTS[m])


def one_round(
    alg: SplitAlgorithm, problem: Any, t: int, seed: int, batch: int, batched: bool, state: State | None = None
) -> tuple[State, Context, dict[str, float]]:
    state = alg.init_state(problem, problem.init()) if state is None else state
    ctx = Context(problem=problem, t=t, seed=seed, batch_size=batch, batched=batched)
    metrics = alg.round(t, state, ctx)
    return state, ctx, metrics


def rounds(alg: SplitAlgorithm, problem: Any, T: int, seed: int, batch: int, batched: bool) -> tuple[State, Counters]:
    """T rounds from x^0 with one set of counters (cumulative), as the loop runs them."""
    state = alg.init_state(problem, problem.init())
    counters = Counters()
    for t in range(T):
        alg.round(
            t, state, Context(problem=problem, t=t, seed=seed, batch_size=batch, batched=batched, counters=counters)
        )
    return state, counters


def vec(state: State, part: str) -> np.ndarray:
    return state[part]["x"].numpy()


def assert_states_equal(a: State, b: State, tol: float = 1e-10) -> None:
    for part in ("client", "server", "aux"):
        for k in a[part]:
            torch.testing.assert_close(a[part][k], b[part][k], rtol=tol, atol=tol)


# --- HERON-SFL ---------------------------------------------------------------------------------------------------


def heron_by_hand(
    law: str, server: str, cfg: dict[str, Any], seed: int, M: int = 2, draws: str = "cpu",
    clients: list[int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:  # fmt: skip
    """One round of HERON-SFL on the quadratic (sigma2 = 0, so every sample's loss is f_m), by the paper's rules:
    eq. (2) with P directions, eq. (6) as a recursion, uploads at steps 0, l, ..., the server by (44) or (7),
    the average (8). Directions: the Gaussian draws of keys ("zo", m, k, p, "client"/"aux") (``draws="cpu"``), or
    the documented device block (verify.ops.zo, "device"): client m's P draws of the joint (theta_c, theta_a) at
    step k are one (P, 3) torch.randn from a generator seeded from (seed, 0, "randn_block", "zo", k, m)."""
    K, P, period, lam, eta_c, eta_s = (cfg[k] for k in ("K", "P", "l", "lam", "eta_c", "eta_s"))
    draw = Context(problem=quad(M), t=0, seed=seed, batch_size=1, batched=False)
    d = 3  # |theta_c| + |theta_a| = 1 + 2
    ends, smashed, drift = [], {}, 0.0
    chosen = list(range(M)) if clients is None else clients  # the round's participants (all by default)
    for m in chosen:
        z = X0.copy()  # (theta_c, theta_a): the head starts as the server coordinates x0[1:]
        for k in range(K):
            f0 = f(m, z)
            g = np.zeros(3)
            gen = torch.Generator().manual_seed(derive_seed(seed, 0, "randn_block", "zo", k, m))
            block = torch.randn(P, d, generator=gen, dtype=torch.float64).numpy()
            for p in range(P):
                zc = draw.randn_like({"x": torch.zeros(1, dtype=torch.float64)}, "zo", m, k, p, "client")["x"].numpy()
                za = draw.randn_like({"x": torch.zeros(2, dtype=torch.float64)}, "zo", m, k, p, "aux")["x"].numpy()
                u = np.concatenate([zc, za]) if draws == "cpu" else block[p]
                s = 1.0
                if law == "unit_sphere":
                    u, s = u / np.linalg.norm(u), float(d)
                elif law == "sqrt_d_sphere":
                    u = math.sqrt(d) * u / np.linalg.norm(u)
                g += s / lam * (f(m, z + lam * u) - f0) * u / P
            if k % period == 0:
                smashed[(k, m)] = z[0]  # the client coordinate is the smashed data
            z = z - eta_c * g
        drift += float(((z - X0) ** 2).sum()) / len(chosen)
        ends.append(z)
    xs = X0[1:].copy()
    slots = list(range(0, K, period))
    if server == "sequential":
        for k in slots:
            for m in chosen:
                xs = xs - eta_s * grad(m, np.concatenate([[smashed[(k, m)]], xs]))[1:]
    else:  # eq. (7): sum over clients of the mean over each client's uploads, all at theta_s^t
        total = sum(
            np.mean([grad(m, np.concatenate([[smashed[(k, m)]], X0[1:]]))[1:] for k in slots], axis=0) for m in chosen
        )
        xs = X0[1:] - eta_s * total
    avg = np.mean(ends, axis=0)
    return avg[:1], xs, avg[1:], drift


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("law", ["unit_sphere", "sqrt_d_sphere", "gaussian"])
@pytest.mark.parametrize("server", ["sequential", "sum"])
def test_heron_one_round_by_hand(law: str, server: str, draws: str) -> None:
    cfg: dict[str, Any] = dict(K=3, P=2, l=2, lam=0.05, eta_c=0.02, eta_s=0.1)
    alg = HeronSFL(direction=law, server=server, draws=draws, **cfg)
    state, ctx, metrics = one_round(alg, quad(), t=0, seed=7, batch=2, batched=False)
    xc, xs, xa, drift = heron_by_hand(law, server, cfg, seed=7, draws=draws)
    np.testing.assert_allclose(vec(state, "client"), xc, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(vec(state, "server"), xs, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(vec(state, "aux"), xa, rtol=1e-12, atol=1e-13)
    assert metrics["drift"] == pytest.approx(drift, rel=1e-10)
    c = ctx.counters
    # M = 2 clients, K = 3 steps, B = 2 samples, P = 2; uploads at steps 0 and 2; 8 bytes per value.
    assert c.client_forward == 2 * 3 * (2 + 1) * 2  # (P + 1) forwards per step, no backward (zeroth order)
    assert c.client_backward == 0
    assert c.server_forward == c.server_backward == 2 * 2 * 2  # 2 uploads x 2 clients x B samples
    assert c.bytes_up == 2 * 2 * 2 * 8 + 2 * 3 * 8  # smashed data (d_c = 1) + theta_c, theta_a per client
    assert c.bytes_down == 2 * 3 * 8  # the broadcast only: no gradient comes back


@pytest.mark.parametrize("batched", [False, True])
def test_heron_partial_participation_by_hand(batched: bool) -> None:
    """n = 2 of M = 3 clients (Sec. VI-B5): the round is the hand computation over the drawn clients only (drawn
    as documented: the first n of a permutation from the round's "participants" generator, sorted), their average
    in (8) and the server on their uploads alone; n = M draws nothing and equals full participation exactly."""
    cfg: dict[str, Any] = dict(K=2, P=2, l=1, lam=0.05, eta_c=0.02, eta_s=0.1)
    ctx = Context(problem=quad(3), t=0, seed=11, batch_size=2, batched=batched)
    chosen = sorted(torch.randperm(3, generator=ctx.rng("participants"))[:2].tolist())
    state, ctx, metrics = one_round(HeronSFL(n=2, draws="cpu", **cfg), quad(3), t=0, seed=11, batch=2, batched=batched)
    xc, xs, xa, drift = heron_by_hand("unit_sphere", "sequential", cfg, seed=11, M=3, clients=chosen)
    np.testing.assert_allclose(vec(state, "client"), xc, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(vec(state, "server"), xs, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(vec(state, "aux"), xa, rtol=1e-12, atol=1e-13)
    assert metrics["drift"] == pytest.approx(drift, rel=1e-10)
    assert ctx.counters.bytes_down == 2 * 3 * 8  # the broadcast to the 2 drawn clients only (3 values each)
    full = one_round(HeronSFL(n=3, **cfg), quad(3), t=0, seed=11, batch=2, batched=batched)[0]
    assert_states_equal(full, one_round(HeronSFL(**cfg), quad(3), t=0, seed=11, batch=2, batched=batched)[0], 0.0)
    with pytest.raises(ParameterError, match=r"n.*must be <= M = 3"):
        HeronSFL(n=4).init_state(quad(3), quad(3).init())


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("law", ["unit_sphere", "sqrt_d_sphere", "gaussian"])
def test_heron_expected_step_is_the_gradient(law: str, draws: str) -> None:
    """On a quadratic every law's estimator is unbiased for grad f_l (the second-order term is odd in u), so with
    one client and one step the mean of (theta_l^0 - theta_l^1)/eta_c over independent rounds is H(x0 - b)
    within the Monte-Carlo interval; the factor d of the unit sphere (eq. (2) vs (4)) would be off by 3x."""
    alg = HeronSFL(direction=law, K=1, P=400, lam=0.1, eta_c=1.0, draws=draws)
    est = []
    for seed in range(40):
        state, _, _ = one_round(alg, quad(1), t=0, seed=seed, batch=1, batched=True)
        est.append(X0 - np.concatenate([vec(state, "client"), vec(state, "aux")]))
    e = np.asarray(est)
    g = grad(0, X0)
    se = e.std(0, ddof=1) / math.sqrt(len(e))
    assert np.all(np.abs(e.mean(0) - g) < 4.5 * se + 1e-12), (e.mean(0), g, se)
    assert np.all(se < 0.1 * np.abs(g).max())  # the interval is tight enough to tell a factor d apart


def test_heron_one_client_one_upload_is_a_split_sgd_server_step() -> None:
    """M = 1 and l = K: one upload, at theta_c^t, so (7) and the sequential server coincide, and the server step is
    theta_s - eta_s grad_s f(theta_c^t, theta_s^t)."""
    outs = []
    for server in ("sequential", "sum"):
        alg = HeronSFL(K=3, l=3, P=2, eta_c=0.05, eta_s=0.2, server=server)
        outs.append(one_round(alg, quad(1), t=0, seed=1, batch=2, batched=False)[0])
    assert_states_equal(outs[0], outs[1], tol=1e-14)
    np.testing.assert_allclose(vec(outs[0], "server"), X0[1:] - 0.2 * grad(0, X0)[1:], rtol=1e-13)


@pytest.mark.parametrize("draws", ["cpu", "device"])
@pytest.mark.parametrize("server", ["sequential", "sum"])
def test_heron_batched_equals_loop(server: str, draws: str) -> None:
    q = QuadraticProblem.from_targets(d=5, d_c=2, M=3, sigma2=0.5, seed=3)
    alg = HeronSFL(K=3, l=2, P=3, lam=0.01, eta_c=0.01, eta_s=0.05, server=server, direction="unit_sphere", draws=draws)
    (s0, c0), (s1, c1) = (rounds(alg, q, T=2, seed=5, batch=4, batched=b) for b in (False, True))
    assert_states_equal(s0, s1)
    assert c0 == c1


# --- sfl_aux (CSE-SFL, Algorithm 1) ------------------------------------------------------------------------------


def aux_steps(m: int, c: np.ndarray, a: np.ndarray, steps: int, eta_l: float) -> tuple[np.ndarray, np.ndarray]:
    """Lines 34-35 / 41-42: both parts step along the auxiliary loss's gradient at the same point."""
    for _ in range(steps):
        g = grad(m, np.concatenate([c, a]))
        c, a = c - eta_l * g[:1], a - eta_l * g[1:]
    return c, a


def sfl_aux_round_by_hand(
    t: int,
    x: tuple[np.ndarray, np.ndarray, np.ndarray],
    S: list[int],
    cfg: dict[str, Any],
    M: int,
    over_m: bool = False,
    first: str = "server_gradient",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One round of Algorithm 1 on the quadratic: (x_C, x_S, x_A) -> the next, for the multiset S in drawn order."""
    xc, xs, xa = x
    K, period, eta_l, eta = (cfg[k] for k in ("K", "l", "eta_l", "eta"))
    server_round = t % period == 0 and t != 0
    gh: dict[int, np.ndarray] = {}
    if server_round:
        step = eta / M if over_m else eta
        for m in S:  # lines 9-17, in sequence; z_f = x̄_C
            g = grad(m, np.concatenate([xc, xs]))
            gh.setdefault(m, g[:1])  # dF/dz (summed over the batch's rows, as client backprop does)
            xs = xs - step * g[1:]
    ends = {}
    for m in dict.fromkeys(S):
        c, a = xc.copy(), xa.copy()
        k0 = 0
        if server_round and first == "server_gradient":
            c, k0 = c - eta_l * gh[m], 1  # lines 27-30: server gradient, head frozen
        ends[m] = aux_steps(m, c, a, K - k0, eta_l)
    denom = M if over_m else len(S)
    xc = np.sum([ends[m][0] for m in S], axis=0) / denom
    xa = np.sum([ends[m][1] for m in S], axis=0) / denom
    return xc, xs, xa


@pytest.mark.parametrize("first", ["server_gradient", "aux"])
def test_sfl_aux_two_rounds_by_hand(first: str) -> None:
    """Full participation, l = 1: round 0 has no server update (line 8: t != 0), round 1 does."""
    cfg: dict[str, Any] = dict(K=2, l=1, eta_l=0.1, eta=0.2)
    alg = SflAux(server_round_step=first, **cfg)
    q = quad(2)
    xc, xs, xa = X0[:1], X0[1:], X0[1:]
    state = None
    for t in range(2):
        state, ctx, _ = one_round(alg, q, t=t, seed=0, batch=3, batched=False, state=state)
        xc, xs, xa = sfl_aux_round_by_hand(t, (xc, xs, xa), [0, 1], cfg, M=2, first=first)
        np.testing.assert_allclose(vec(state, "client"), xc, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(vec(state, "server"), xs, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(vec(state, "aux"), xa, rtol=1e-13, atol=1e-14)
    c = ctx.counters  # round 1 (a server round): 2 clients, B = 3, d_c = 1, 8 bytes per value
    assert c.server_forward == c.server_backward == 2 * 3
    assert c.bytes_up == 2 * 3 * 8 + 2 * 3 * 8  # z_f once per client + (x_C, x_A) back
    down_zb = 2 * 3 * 8 if first == "server_gradient" else 0
    assert c.bytes_down == 2 * 3 * 8 + down_zb  # broadcast + z_b per turn (only when the client uses it)
    assert c.client_forward == 2 * 3 * (1 + 2 - (first == "server_gradient"))


def draw_participants(seed: int, t: int, M: int, n: int) -> list[int]:
    g = Context(problem=quad(M), t=t, seed=seed, batch_size=1, batched=False).rng("participants")
    return [int(i) for i in torch.randint(M, (n,), generator=g)]


@pytest.mark.parametrize("aggregation", ["over_n", "over_m"])
def test_sfl_aux_partial_participation_with_a_repeated_client(aggregation: str) -> None:
    """n = 2 of M = 3 drawn with replacement (Sec. 3), at a seed whose draw repeats a client: it trains once and
    counts twice, in the server's sequence and in the average ((A24) 1/n, or line 6's 1/m with line 16's mu/m)."""
    t = 2
    seed = next(s for s in range(200) if len(set(draw_participants(s, t, 3, 2))) == 1)
    S = draw_participants(seed, t, 3, 2)
    over_m = aggregation == "over_m"
    cfg: dict[str, Any] = dict(K=2, l=2, eta_l=0.1, eta=0.2)
    alg = SflAux(n=2, aggregation=aggregation, server_step="eta_over_M" if over_m else "eta", **cfg)
    state, _, metrics = one_round(alg, quad(3), t=t, seed=seed, batch=2, batched=False)
    xc, xs, xa = sfl_aux_round_by_hand(t, (X0[:1], X0[1:], X0[1:]), S, cfg, M=3, over_m=over_m)
    np.testing.assert_allclose(vec(state, "client"), xc, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(vec(state, "server"), xs, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(vec(state, "aux"), xa, rtol=1e-13, atol=1e-14)
    assert metrics["participants"] == 1


def test_sfl_aux_without_replacement_draws_a_subset() -> None:
    M, n, t, seed = 3, 2, 1, 4
    g = Context(problem=quad(M), t=t, seed=seed, batch_size=1, batched=False).rng("participants")
    S = [int(i) for i in torch.randperm(M, generator=g)[:n]]
    cfg: dict[str, Any] = dict(K=1, l=1, eta_l=0.1, eta=0.2)
    alg = SflAux(n=n, sampling="without_replacement", **cfg)
    state, _, _ = one_round(alg, quad(M), t=t, seed=seed, batch=2, batched=False)
    xc, xs, xa = sfl_aux_round_by_hand(t, (X0[:1], X0[1:], X0[1:]), S, cfg, M=M)
    np.testing.assert_allclose(vec(state, "client"), xc, rtol=1e-13)
    np.testing.assert_allclose(vec(state, "server"), xs, rtol=1e-13)
    np.testing.assert_allclose(vec(state, "aux"), xa, rtol=1e-13)


def server_turns(
    monkeypatch: pytest.MonkeyPatch, redraw: str, seed: int, t: int, batch: int
) -> tuple[list[tuple[torch.Tensor, torch.Tensor]], Counters]:
    """One server round of sfl_aux (n = 2 of M = 3, l = 2) on a noisy quadratic: the (smashed data, labels) each
    server turn receives, recorded where the algorithm hands them to the server's gradient, and the counters. On
    the quadratic a batch's samples are its labels y = (xi, b_m) (:meth:`QuadraticProblem.sample`)."""
    import verify.train.algorithms.sfl_aux as mod

    seen: list[tuple[torch.Tensor, torch.Tensor]] = []  # (z, the batch's y: on the quadratic the noise xi)
    real = mod.server_grads

    def spy(problem: Any, ps: Any, z: torch.Tensor, b: Any) -> Any:
        seen.append((z.clone(), b.y.clone()))
        return real(problem, ps, z, b)

    monkeypatch.setattr(mod, "server_grads", spy)
    alg = SflAux(n=2, K=1, l=2, eta_l=0.1, eta=0.2, redraw=redraw)
    _, ctx, _ = one_round(alg, quad(3, sigma2=1.0), t=t, seed=seed, batch=batch, batched=False)
    return seen, ctx.counters


def repeated_seed(t: int) -> int:
    """A seed whose draw of n = 2 from M = 3 (with replacement) repeats a client in round t."""
    return next(s for s in range(200) if len(set(draw_participants(s, t, 3, 2))) == 1)


def test_sfl_aux_redraw_reuse_sends_one_batch_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """redraw="reuse": a client drawn twice sends the same smashed data and batch in both server turns."""
    t = 2
    seed = repeated_seed(t)
    (m,) = set(draw_participants(seed, t, 3, 2))
    seen, _ = server_turns(monkeypatch, "reuse", seed, t, batch=3)
    assert len(seen) == 2
    first = Context(problem=quad(3, sigma2=1.0), t=t, seed=seed, batch_size=3, batched=False).batch(m, 0)
    for z, y in seen:
        assert torch.equal(y, first.y)
        assert torch.equal(z, seen[0][0])


def test_sfl_aux_redraw_fresh_sends_a_new_batch_per_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """redraw="fresh" (the default, (A10)/(A53)): the second draw's turn gets another mini-batch, the documented
    ``ctx.batch(m, "draw", 1)``, and its smashed data at the broadcast x̄_C (on the quadratic z is the client's
    coordinate itself, the same for every sample). It costs one more client forward and one more upload of the
    batch's smashed data: B = 3 samples, d_c = 1 float64 = 8 bytes each."""
    t, B = 2, 3
    seed = repeated_seed(t)
    (m,) = set(draw_participants(seed, t, 3, 2))
    assert SflAux().p["redraw"] == "fresh"
    seen, fresh = server_turns(monkeypatch, "fresh", seed, t, batch=B)
    ctx = Context(problem=quad(3, sigma2=1.0), t=t, seed=seed, batch_size=B, batched=False)
    assert torch.equal(seen[0][1], ctx.batch(m, 0).y)
    assert torch.equal(seen[1][1], ctx.batch(m, "draw", 1).y)
    assert not torch.equal(seen[0][1], seen[1][1])
    _, reuse = server_turns(monkeypatch, "reuse", seed, t, batch=B)
    assert fresh.client_forward - reuse.client_forward == B
    assert fresh.bytes_up - reuse.bytes_up == B * 8
    assert fresh.server_forward == reuse.server_forward == 2 * B


@pytest.mark.parametrize(
    ("M", "extra"), [(1, {"n": 1}), (3, {"n": 0}), (3, {"n": 2, "sampling": "without_replacement"})]
)
def test_sfl_aux_redraw_options_coincide_without_a_repeated_draw(M: int, extra: dict[str, Any]) -> None:
    """No client is drawn twice (M = 1 forces n <= 1; n = 0 draws each client once; a subset has no repeats):
    "fresh" and "reuse" run the same rounds, bit for bit, counters included."""
    q = QuadraticProblem.from_targets(d=5, d_c=2, M=M, sigma2=1.0, seed=3)
    runs = [
        rounds(SflAux(K=2, l=1, redraw=r, **extra), q, T=3, seed=5, batch=4, batched=False) for r in ("fresh", "reuse")
    ]
    assert_states_equal(runs[0][0], runs[1][0], tol=0)
    assert runs[0][1] == runs[1][1]


@pytest.mark.parametrize("redraw", ["fresh", "reuse"])
def test_sfl_aux_redraw_both_converge_on_the_default_quadratic(redraw: str) -> None:
    """The default quadratic of ``sfltheory verify`` (d = 10, d_c = 5, M = 4, sigma2 = 1, f(x^0) - f* = 1),
    n = 3 of 4 drawn with replacement (repeats are frequent: 1 - 4*3*2/4^3 = 5/8 of the rounds), l = 1: with
    either option the gradient norm falls well below its start, by a factor over 10 at t = 150 (steps 0.1 on
    eigenvalues >= 0.1 contract the deterministic part by (1 - 0.01)^150 ~ 0.22 at the slowest, faster elsewhere,
    and the noise floor ~ eta sigma2 / B stays small), averaged over the last 30 records and 2 seeds."""
    q = QuadraticProblem.from_targets(L=1.0, mu=0.1, sigma2=1.0, eps2=1.0, d=10, d_c=5, M=4, F=1.0, seed=0)
    alg = SflAux(n=3, K=2, l=1, eta_l=0.1, eta=0.1, redraw=redraw)
    g = np.mean([run(alg, q, T=150, seed=s, batch=8, progress=False).series("gradnorm2") for s in range(2)], axis=0)
    assert g[-30:].mean() < g[0] / 10


def tiny_digits(sizes: tuple[int, ...], dtype: torch.dtype = torch.float64) -> ModelProblem:
    import verify.models as vm
    from verify.data import digits

    ds = digits()
    total = sum(sizes)
    torch.manual_seed(0)
    model = vm.build("mlp", in_features=64, hidden=(8,), num_classes=10)
    bounds = np.cumsum((0, *sizes))
    clients = [torch.arange(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    return ModelProblem.at_cut(
        model, "fc1", torch.nn.CrossEntropyLoss(), ds.X[:total], ds.y[:total], clients, classes=10, dtype=dtype
    )


def autograd(fn: Callable[..., torch.Tensor], *trees: dict[str, torch.Tensor]) -> list[dict[str, torch.Tensor]]:
    leaves = [{k: v.detach().clone().requires_grad_(True) for k, v in t.items()} for t in trees]
    gs = torch.autograd.grad(fn(*leaves), [v for t in leaves for v in t.values()])
    out, i = [], 0
    for t in leaves:
        out.append({k: gs[i + j] for j, k in enumerate(t)})
        i += len(t)
    return out


def test_sfl_aux_one_client_reduces_to_split_sgd_and_aux_sgd() -> None:
    """M = 1, K = 1, l = 1 on a real model: round 0 is one SGD step of the client and its head on the auxiliary loss;
    round 1 (a server round) is one split-SGD step, (x_C, x_S) - (eta_l grad_C f, eta grad_S f) at the same point,
    with the head unchanged (line 30)."""
    p = tiny_digits((40,))
    alg = SflAux(K=1, l=1, eta_l=0.3, eta=0.2)
    x0 = p.init()
    state, ctx, _ = one_round(alg, p, t=0, seed=2, batch=16, batched=False)
    b = ctx.batch(0, 0)
    gc, ga = autograd(
        lambda c, a: (p.aux_loss(a, p.client_forward(c, b.x), b.y) * b.w).sum() / b.w.sum(), x0["client"], x0["aux"]
    )
    for part, start, g in (("client", x0["client"], gc), ("aux", x0["aux"], ga)):
        for k in start:
            torch.testing.assert_close(state[part][k], start[k] - 0.3 * g[k], rtol=1e-12, atol=1e-13)
    assert_states_equal(
        {"client": {}, "aux": {}, "server": state["server"]}, {"client": {}, "aux": {}, "server": x0["server"]}, tol=0
    )
    x1 = {part: tree.clone(state[part]) for part in ("client", "server", "aux")}
    state, ctx, _ = one_round(alg, p, t=1, seed=2, batch=16, batched=False, state=state)
    b = ctx.batch(0, 0)
    gc, gs = autograd(
        lambda c, s: (p.server_loss(s, p.client_forward(c, b.x), b.y) * b.w).sum() / b.w.sum(),
        x1["client"],
        x1["server"],
    )
    for k in gc:
        torch.testing.assert_close(state["client"][k], x1["client"][k] - 0.3 * gc[k], rtol=1e-12, atol=1e-13)
    for k in gs:
        torch.testing.assert_close(state["server"][k], x1["server"][k] - 0.2 * gs[k], rtol=1e-12, atol=1e-13)
    for k in x1["aux"]:
        assert torch.equal(state["aux"][k], x1["aux"][k])


@pytest.mark.parametrize("first", ["server_gradient", "aux"])
def test_sfl_aux_batched_equals_loop(first: str) -> None:
    q = QuadraticProblem.from_targets(d=5, d_c=2, M=4, sigma2=0.5, seed=2)
    alg = SflAux(n=3, K=3, l=2, eta_l=0.05, eta=0.05, server_round_step=first)
    # t = 2 is a server round
    (s0, c0), (s1, c1) = (rounds(alg, q, T=3, seed=11, batch=4, batched=b) for b in (False, True))
    assert_states_equal(s0, s1)
    assert c0 == c1


# --- both --------------------------------------------------------------------------------------------------------


def both(**heron: Any) -> list[SplitAlgorithm]:
    return [HeronSFL(**heron), SflAux(K=2, l=1, eta_l=0.05, eta=0.05)]


def test_ragged_clients_batched_equals_loop() -> None:
    """Clients holding fewer samples than the batch (5 and 7 < 8) are padded and masked in the batched path."""
    p = tiny_digits((5, 7, 9))
    for alg in both(K=2, l=1, P=2, eta_c=1e-3, eta_s=0.1, lam=1e-3):
        (s0, c0), (s1, c1) = (rounds(alg, p, T=2, seed=3, batch=8, batched=b) for b in (False, True))
        assert_states_equal(s0, s1)
        assert c0 == c1


def test_same_seed_same_curve_other_seed_other_curve() -> None:
    q = quad(2, sigma2=0.3)
    for alg in both(K=2, P=2, eta_c=0.01, eta_s=0.05, lam=0.01):
        a, b, c = (run(alg, q, T=4, seed=s, batch=2, progress=False).series("gradnorm2") for s in (1, 1, 2))
        np.testing.assert_array_equal(a, b)
        assert not np.allclose(a[1:], c[1:])


def test_resume_reproduces_the_uninterrupted_curve(tmp_path: Path) -> None:
    q = quad(2, sigma2=0.3)
    for alg in both(K=2, P=2, eta_c=0.01, eta_s=0.05, lam=0.01):
        whole = run(alg, q, T=4, seed=3, batch=2, progress=False).series("gradnorm2")
        out = tmp_path / alg.name
        run(alg, q, T=2, seed=3, batch=2, out=out, checkpoint_every=1, progress=False)
        resumed = run(alg, q, T=4, seed=3, batch=2, out=out, checkpoint_every=1, progress=False).series("gradnorm2")
        np.testing.assert_array_equal(whole, resumed)


def test_digits_short_run_decreases_the_loss() -> None:
    import verify.models as vm
    from verify.data import digits, partition

    ds = digits()
    torch.manual_seed(0)
    model = vm.build("mlp", in_features=64, hidden=(32,), num_classes=10)
    p = ModelProblem.at_cut(model, "fc1", torch.nn.CrossEntropyLoss(), ds.X, ds.y, partition(ds.y, 4, "iid"))
    for alg in (HeronSFL(K=2, eta_c=1e-4, eta_s=0.1, lam=1e-3, P=2), SflAux(K=2, l=2, eta_l=0.1, eta=0.1)):
        loss = run(alg, p, T=15, seed=0, batch=32, progress=False).series("loss")
        assert loss[-1] < 0.97 * loss[0], (alg.name, loss)


def test_results_exist_and_global_params_exclude_the_head() -> None:
    for alg in both():
        for rid in alg.results:
            assert st.get(rid).id == rid
        state = alg.init_state(quad(), quad().init())
        assert set(state) == {"client", "server", "aux"}
        pc, ps = alg.global_params(state)
        assert pc is state["client"] and ps is state["server"]


@pytest.mark.parametrize(
    ("cls", "params", "name"),
    [
        (HeronSFL, {"l": 0}, "l"),
        (HeronSFL, {"K": 2, "l": 3}, "l"),
        (HeronSFL, {"P": 0}, "P"),
        (HeronSFL, {"lam": -1.0}, "lam"),
        (HeronSFL, {"eta_c": 0.0}, "eta_c"),
        (HeronSFL, {"direction": "ball"}, "direction"),
        (HeronSFL, {"server": "parallel"}, "server"),
        (HeronSFL, {"mu": 0.1}, "mu"),
        (HeronSFL, {"draws": "gpu"}, "draws"),
        (SflAux, {"l": 0}, "l"),
        (SflAux, {"K": 0}, "K"),
        (SflAux, {"eta_l": -0.1}, "eta_l"),
        (SflAux, {"n": -1}, "n"),
        (SflAux, {"sampling": "poisson"}, "sampling"),
        (SflAux, {"aggregation": "sum"}, "aggregation"),
    ],
)
def test_bad_parameters(cls: type[SplitAlgorithm], params: dict[str, Any], name: str) -> None:
    with pytest.raises(ParameterError) as e:
        cls(**params)
    assert e.value.name == name


def test_bad_problem_inputs() -> None:
    with pytest.raises(ParameterError) as e:
        SflAux(n=3).init_state(quad(2), quad(2).init())
    assert e.value.name == "n"
    x0 = {k: v for k, v in quad().init().items() if k != "aux"}
    for alg in both():
        with pytest.raises(ParameterError) as e:
            alg.init_state(quad(), x0)
        assert e.value.name == "aux"
