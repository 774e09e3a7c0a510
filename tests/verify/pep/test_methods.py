"""The symbolic algorithms of verify.pep.methods are the trainer's: on a deterministic quadratic (sigma2 = 0) the
iterates they define, evaluated concretely, give the same ||grad f(x^t)||^2 as verify.train's run, round by round.

The concrete evaluation is independent of the SDP: every Gram column is either x^0 or a gradient queried at a
point that is a combination of earlier columns, so the columns are computed in order of creation with the
quadratic's own gradient."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from verify.pep.classes import SmoothFunction
from verify.pep.gram import GramProblem, Vec
from verify.pep.methods import run as symbolic_run
from verify.pep.methods import run_paths
from verify.problems import QuadraticProblem
from verify.train import get, run


def quadratic(M: int, seed: int = 3) -> QuadraticProblem:
    q = QuadraticProblem.from_targets(L=1.0, sigma2=0.0, eps2=0.7, d=6, d_c=3, M=M, F=1.0, seed=seed)
    return q


def concrete(pep: GramProblem, fs: list[SmoothFunction], x0: np.ndarray, grad: list) -> np.ndarray:
    """Coordinates (rows) of every Gram column: x^0, then each queried gradient in order of creation."""
    cols = np.zeros((pep.n, x0.size))
    cols[0] = x0
    queries = sorted((next(iter(g.c)), m, x) for m, f in enumerate(fs) for x, g, _ in f.points)
    for k, m, x in queries:
        point = sum(v * cols[j] for j, v in x.c.items())
        cols[k] = grad[m](point)
    return cols


def at(v: Vec, cols: np.ndarray) -> np.ndarray:
    return sum(c * cols[j] for j, c in v.c.items())


@pytest.mark.parametrize(
    ("algorithm", "params", "extra"),
    [
        ("fedavg", {"K": 2, "eta_l": 0.3, "eta_g": 1.5}, {}),
        ("sl", {"K": 3, "eta_l": 0.2, "eta_g": 0.8}, {"order": "fixed"}),
        ("sfl_v1_analysed", {"K": 2, "eta": 0.25}, {}),
    ],
)
def test_whole_model_algorithms_match_the_trainer(algorithm: str, params: dict, extra: dict) -> None:
    M, R = 3, 4
    q = quadratic(M)
    H = q.H.numpy()
    b = q.b.numpy()
    grad = [lambda x, m=m: H @ (x - b[m]) for m in range(M)]
    pep = GramProblem()
    fs = [SmoothFunction(pep, 1.0) for _ in range(M)]
    x0 = pep.vector()
    xs = symbolic_run(algorithm, fs, x0, R, params)
    cols = concrete(pep, fs, q.x0.numpy(), grad)
    mine = [float(np.sum((H @ (at(x, cols) - b.mean(0))) ** 2)) for x in xs]
    out = run(get(algorithm)(**params, **extra), q, T=R, batch=1, seed=0, progress=False, batched=False)
    theirs = out.series("gradnorm2")
    np.testing.assert_allclose(mine, theirs[: R + 1], rtol=1e-10, atol=1e-14)


def server_side(q: QuadraticProblem) -> tuple[np.ndarray, np.ndarray, list]:
    """sfl_aux's server functions on the diagonal quadratic, F_i^s(x_S) = (1/2)(x_S - b_iS)^T H_SS (x_S - b_iS)
    whatever the client part: H_SS, the shifts b_iS and each client's gradient."""
    dc = q.d_c
    H = q.H.numpy()[dc:, dc:]
    b = q.b.numpy()[:, dc:]
    return H, b, [lambda x, m=m: H @ (x - b[m]) for m in range(q.M)]


def test_sfl_aux_server_side_matches_the_trainer() -> None:
    # server rounds at t = 0 mod l, t != 0, one step per client in sequence (sfl_aux Algorithm 1, lines 9-17)
    M, R, period, eta = 3, 5, 2, 0.3
    q = quadratic(M)
    dc = q.d_c
    H, b, grad = server_side(q)
    pep = GramProblem()
    fs = [SmoothFunction(pep, 1.0) for _ in range(M)]
    x0 = pep.vector()
    xs = symbolic_run("sfl_aux", fs, x0, R, {"eta": eta, "l": period})
    cols = concrete(pep, fs, q.x0.numpy()[dc:], grad)
    mine = [float(np.sum((H @ (at(x, cols) - b.mean(0))) ** 2)) for x in xs]
    alg = get("sfl_aux")(eta=eta, l=period, K=2, eta_l=0.05, n=0)
    out = run(alg, q, T=R, batch=1, seed=0, progress=False, batched=False)
    np.testing.assert_allclose(mine, out.series("gradnorm2_server")[: R + 1], rtol=1e-10, atol=1e-14)


def test_a_point_queried_twice_is_one_column() -> None:
    pep = GramProblem()
    f = SmoothFunction(pep, 2.0)
    x = pep.vector()
    g1, v1 = f.at(x)
    g2, v2 = f.at(1.0 * x + 0.0 * g1)
    assert g1.c == g2.c and v1.lin == v2.lin and pep.n == 2 and pep.p == 1
    assert torch.get_default_dtype() == torch.float32  # the trainer's default is untouched by these tests


def test_sfl_aux_with_draws_is_the_expectation_over_every_sequence() -> None:
    # Theorem 4's partial participation: n of M clients drawn with replacement per server round. The tree of
    # verify.pep.methods.sfl_aux_sampled, evaluated on a quadratic, against (a) every sequence of draws enumerated
    # here by hand (probability M^-n each) and (b) the trainer's own runs averaged over seeds (within 4 standard
    # errors: Monte Carlo).
    M, n, R, eta = 3, 2, 4, 0.3
    q = quadratic(M)
    dc = q.d_c
    H, b, grad = server_side(q)
    pep = GramProblem()
    fs = [SmoothFunction(pep, 1.0) for _ in range(M)]
    layers = run_paths("sfl_aux", fs, pep.vector(), R, {"eta": eta, "l": 1}, n)
    cols = concrete(pep, fs, q.x0.numpy()[dc:], grad)
    mine = [sum(p * float(np.sum((H @ (at(x, cols) - b.mean(0))) ** 2)) for p, x in layer) for layer in layers]
    assert len(layers) == R and [sum(p for p, _ in layer) for layer in layers] == pytest.approx([1.0] * R)

    def by_hand(t: int) -> float:  # server rounds at t = 1, 2, ... (Algorithm 1, line 8: t = 0 mod l, t != 0)
        rounds = max(t - 1, 0)
        total = 0.0
        for seq in itertools.product(range(M), repeat=n * rounds):
            x = q.x0.numpy()[dc:].copy()
            for m in seq:
                x = x - eta * grad[m](x)
            total += float(np.sum((H @ (x - b.mean(0))) ** 2)) / M ** (n * rounds)
        return total

    np.testing.assert_allclose(mine, [by_hand(t) for t in range(R)], rtol=1e-12)
    alg = get("sfl_aux")(eta=eta, l=1, K=1, eta_l=0.05, n=n)
    runs = np.array([run(alg, q, T=R - 1, batch=1, seed=s, progress=False, batched=False).series("gradnorm2_server")
                     for s in range(64)])  # fmt: skip
    mean, se = runs.mean(0), runs.std(0, ddof=1) / 8
    assert np.all(np.abs(mean - np.asarray(mine)) <= 4 * se + 1e-12)
