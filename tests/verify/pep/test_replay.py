"""Worst cases replayed by the trainer: on the interpolants of an exact worst case (one client) the trainer's own
algorithm measures the SDP's value (gradient descent: the closed form 4LF/(3N+2)), a bound below it is refuted
with a rerunnable problem file, and one above it is not. The interpolated problem runs on the trainer's batched
(vmap) paths as on the per-client ones, with the same numbers."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
import torch

from verify.pep import WorstCaseSpec
from verify.pep.interpolant import Interpolant
from verify.problems import InterpolatedProblem
from verify.train import get, run

HAVE_SOLVER = importlib.util.find_spec("clarabel") is not None
needs_solver = pytest.mark.skipif(not HAVE_SOLVER, reason="the worst case needs Clarabel (the optional extra 'pep')")

GD = WorstCaseSpec(algorithm="fedavg", R=4, M=1, params={"K": 1, "eta_l": 1.0, "eta_g": 1.0}, L=1, F=1, lhs="min")


@needs_solver
def test_gradient_descent_replay_reproduces_the_closed_form() -> None:
    from verify.pep import worst_case
    from verify.pep.replay import replay

    wc = worst_case(GD)
    assert wc.value == pytest.approx(4 / 11, rel=1e-6)  # 4LF/(3N+2), N = R - 1 = 3
    r = replay(wc, GD)
    assert r.measured == pytest.approx(wc.value, rel=1e-5)
    assert r.F is not None and r.F <= 1 + 1e-6
    assert len(r.series) == GD.R + 1 and r.measured == min(r.series[: GD.R])
    assert "fedavg" in r.command and r.relative_gap <= 1e-5


@needs_solver
def test_a_bound_below_the_worst_case_is_refuted_and_one_above_is_not() -> None:
    from verify.pep import worst_case
    from verify.pep.replay import refute

    value = worst_case(GD).value
    low = refute(GD, 0.5 * value)
    assert low is not None
    assert low.measured > 0.5 * value and low.measured == pytest.approx(value, rel=1e-5)
    assert low.F <= GD.F and "invalid" in low.message()
    # the problem file reruns: the same algorithm on the problem it describes measures the same
    problem = InterpolatedProblem.from_dict(json.loads(low.to_json()))
    assert problem.F() <= GD.F
    out = run(get("fedavg")(K=1, eta_l=1.0, eta_g=1.0), problem, T=GD.R, batch=1, progress=False, batched=False)
    assert float(out.series("gradnorm2")[: GD.R].min()) == pytest.approx(low.measured, rel=1e-12)
    assert refute(GD, 1.01 * value) is None


@needs_solver
@pytest.mark.parametrize(
    ("algorithm", "params", "lhs"),
    [
        ("sl", {"K": 2, "eta_l": 0.3, "eta_g": 1.2}, "avg"),
        ("sl", {"K": 2, "eta_l": 0.3, "eta_g": 1.2}, "at_average"),
        ("fedavg", {"K": 2, "eta_l": 0.5, "eta_g": 1.0}, "at_average"),
        ("sfl_v1_analysed", {"K": 2, "eta": 0.4}, "eta_avg"),
        ("sfl_aux", {"eta": 0.8, "l": 1}, "min_server"),
    ],
)
def test_exact_worst_cases_are_attained_under_the_trainer(algorithm: str, params: dict, lhs: str) -> None:
    from verify.pep import worst_case
    from verify.pep.replay import replay

    spec = WorstCaseSpec(algorithm=algorithm, R=3, M=1, params=params, L=1.0, F=1.0, lhs=lhs)
    wc = worst_case(spec)
    r = replay(wc, spec)
    assert r.measured == pytest.approx(wc.value, rel=1e-5)
    assert r.F is not None and r.F <= 1 + 1e-6


@needs_solver
def test_a_relaxation_is_replayed_but_never_refutes() -> None:
    from verify.pep import worst_case
    from verify.pep.replay import refute, replay

    spec = WorstCaseSpec(algorithm="fedavg", R=3, M=2, params={"K": 2, "eta_l": 0.5, "eta_g": 1.0}, L=1.0, F=1.0,
                         lhs="avg", heterogeneity="deviation", eps2=0.1)  # fmt: skip
    wc = worst_case(spec)
    r = replay(wc, spec)
    assert r.F is None and r.measured <= wc.value * (1 + 1e-6)  # a concrete instance never beats the relaxation
    assert refute(spec, 0.5 * wc.value) is None


def _random_problem(M: int, split: str | None = None) -> InterpolatedProblem:
    rng = np.random.default_rng(M)
    fs = []
    for _ in range(M):
        U = np.linalg.qr(rng.standard_normal((3, 3)))[0]
        H = U @ np.diag([-1.0, 0.2, 1.0]) @ U.T
        X = rng.standard_normal((6, 3))
        fs.append(Interpolant(X, X @ H, 0.5 * np.einsum("ij,jk,ik->i", X, H, X), 1.0))
    return InterpolatedProblem(fs, rng.standard_normal(3), split=split)


@pytest.mark.parametrize(
    ("algorithm", "params", "split"),
    [
        ("fedavg", {"K": 2, "eta_l": 0.3, "eta_g": 1.0}, None),
        ("sfl_v1_analysed", {"K": 2, "eta": 0.3}, None),
        ("sfl_aux", {"K": 2, "eta": 0.3, "eta_l": 0.2, "l": 1}, "dummy"),
    ],
)
def test_the_batched_paths_run_the_custom_oracle_with_the_same_numbers(algorithm: str, params: dict,
                                                                        split: str | None) -> None:  # fmt: skip
    problem = _random_problem(3, split)
    eager = run(get(algorithm)(**params), problem, T=3, batch=2, progress=False, batched=False)
    vmapped = run(get(algorithm)(**params), problem, T=3, batch=2, progress=False, batched=True)
    np.testing.assert_allclose(eager.series("gradnorm2"), vmapped.series("gradnorm2"), rtol=1e-12, atol=1e-14)
    assert torch.get_default_dtype() == torch.float32


def test_the_oracle_is_the_interpolants_gradient_under_torch_func() -> None:
    problem = _random_problem(2)
    x = problem.init()
    gen = torch.Generator().manual_seed(0)
    for m in range(2):
        b = problem.sample(m, 5, gen)

        def loss(pc: dict, ps: dict, b=b) -> torch.Tensor:
            return problem.server_loss(ps, problem.client_forward(pc, b.x), b.y).mean()

        gc, gs = torch.func.grad(loss, argnums=(0, 1))(x["client"], x["server"])
        want = problem.fs[m].grad(problem.x0)
        np.testing.assert_allclose(torch.cat([gc["x"], gs["x"]]).numpy(), want, rtol=1e-12, atol=1e-14)
    full = problem.full_gradient(x["client"], x["server"])
    assert full.loss == pytest.approx(float(np.mean([f.value(problem.x0) for f in problem.fs])), rel=1e-12)


def test_the_problem_file_round_trips_and_states_its_constants() -> None:
    one = _random_problem(1)
    back = InterpolatedProblem.from_dict(json.loads(json.dumps(one.to_dict())))
    assert back.to_dict() == one.to_dict() and back.counts().d == 3 and back.counts().d_c == 1
    c = one.constants()
    assert c.F is not None and c.F.value == pytest.approx(one.F()) and c.L is not None and c.L.value == 1.0
    several = _random_problem(2)
    assert several.constants().F is None
    with pytest.raises(Exception, match="not computed exactly"):
        several.infimum()
    with pytest.raises(Exception, match="interpolated"):
        InterpolatedProblem.from_dict({"kind": "quadratic"})
    flat = InterpolatedProblem([Interpolant(np.ones((1, 1)), np.ones((1, 1)), np.zeros(1), 1.0)], [2.0])
    assert flat.split == "dummy" and flat.counts().d == 2  # d = 1: a dummy client coordinate makes the split
