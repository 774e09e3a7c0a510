"""Stochastic Lanczos quadrature (verify.constants.density) against independent values: Gauss quadrature's
exactness against explicit matrix powers, the nodes and weights of a full run against the eigendecomposition
(numpy.linalg.eigh) of a known matrix and of a tiny model's dense Hessian (curvature.dense_hessian), the mean first
moment against tr(H)/d, the share near zero of a diagonal matrix counted by hand, and the smoothing's peak against
the Gaussian's closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from sfltheory.errors import ParameterError
from verify.constants.curvature import dense_hessian
from verify.constants.density import (
    gauss_quadrature,
    hessian_density,
    lanczos_tridiagonal,
    mass_near_zero,
    slq,
    smoothed_density,
)
from verify.ops.hvp import HessianOperator
from verify.ops.objective import Objective


def known_matrix(d: int = 30, seed: int = 1) -> np.ndarray:
    """Q diag(lam) Q^T with distinct eigenvalues spread over [-1, 3]."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return np.asarray(Q @ np.diag(np.linspace(-1.0, 3.0, d)) @ Q.T)


@pytest.mark.parametrize("steps", [1, 3, 5])
def test_gauss_quadrature_is_exact_to_degree_2m_minus_1(steps: int) -> None:
    # Golub-Welsch: sum_j w_j theta_j^k = v^T A^k v / ||v||^2 for k <= 2m - 1, here against explicit powers of A
    A = known_matrix()
    At = torch.from_numpy(A)
    v = np.asarray(np.random.default_rng(7).standard_normal(A.shape[0]))
    alpha, beta = lanczos_tridiagonal(lambda u: At @ u, torch.from_numpy(v), steps)
    theta, w = gauss_quadrature(alpha, beta)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    for k in range(2 * steps):
        exact = float(v @ np.linalg.matrix_power(A, k) @ v / (v @ v))
        assert float(np.sum(w * theta**k)) == pytest.approx(exact, rel=1e-9, abs=1e-9), k
    # and degree 2m is not exact in general (the rule is Gauss, not better): A has 30 distinct eigenvalues
    exact = float(v @ np.linalg.matrix_power(A, 2 * steps) @ v / (v @ v))
    assert abs(float(np.sum(w * theta ** (2 * steps))) - exact) > 1e-6


def test_full_dimension_run_gives_every_eigenvalue_and_the_squared_projections() -> None:
    # steps = d on a matrix with distinct eigenvalues: the nodes are eigh's eigenvalues and the weights the squared
    # components of the unit probe along the eigenvectors (e_1^T s_j = q_j^T v / ||v||)
    A = known_matrix(d=25)
    lam, Q = np.linalg.eigh(A)
    At = torch.from_numpy(A)
    d = slq(lambda v: At @ v, 25, probes=2, steps=25, seed=3, grid=200)
    rng = np.random.default_rng(3)  # the probes slq draws: Rademacher signs from the same seed
    for i in range(2):
        v = rng.choice(np.array([-1.0, 1.0]), size=25)
        np.testing.assert_allclose(d.nodes[i], lam, atol=1e-10)
        np.testing.assert_allclose(d.weights[i], (Q.T @ v) ** 2 / 25.0, atol=1e-10)
    assert d.matvecs == 50


def tiny_objective() -> Objective:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 3))  # 16 + 15 = 31 parameters
    X = torch.randn(40, 3)
    y = torch.randint(0, 3, (40,))
    return Objective(model, nn.CrossEntropyLoss(), X, y, device="cpu", dtype=torch.float64)


def test_nodes_of_a_full_run_are_eigenvalues_of_the_dense_hessian() -> None:
    # a tiny network's Hessian (dense_hessian: 31 columns of products, then numpy's eigh): a run of d = 31 steps
    # (stopping early where the Krylov space is invariant: the softmax's null directions repeat the eigenvalue 0)
    # puts every node of positive weight on an eigenvalue, and the weights on each eigenvalue are the probe's
    # squared projection on its eigenspace
    obj = tiny_objective()
    H = dense_hessian(obj).numpy()
    H = (H + H.T) / 2
    lam, Q = np.linalg.eigh(H)
    d = hessian_density(HessianOperator(obj, method="reverse"), probes=1, steps=31, seed=5, grid=200)
    v = np.random.default_rng(5).choice(np.array([-1.0, 1.0]), size=31)
    proj = (Q.T @ v) ** 2 / 31.0
    scale = float(np.max(np.abs(lam)))
    for theta, w in zip(d.nodes[0], d.weights[0], strict=True):
        if w > 1e-8:
            near = np.abs(lam - theta) <= 1e-7 * scale
            assert near.any(), theta
            assert w == pytest.approx(float(proj[near].sum()), abs=1e-7)
    assert d.weights[0].sum() == pytest.approx(1.0, abs=1e-12)


def test_mean_first_moment_approaches_the_trace_over_d() -> None:
    # E[v^T A v / ||v||^2] = tr(A)/d for Rademacher v (||v||^2 = d); the first moment of each probe's quadrature
    # is exactly v^T A v / ||v||^2 (degree 1 <= 2m - 1). Over 400 probes the mean lies within 4 standard errors
    A = known_matrix()
    At = torch.from_numpy(A)
    d = slq(lambda v: At @ v, 30, probes=400, steps=2, seed=11, grid=100)
    m = d.moments
    se = float(np.std(m, ddof=1)) / math.sqrt(len(m))
    assert abs(float(np.mean(m)) - np.trace(A) / 30) <= 4 * se
    assert se < 0.05  # the estimate is informative: tr(A)/d = 1 here


def test_share_near_zero_of_a_diagonal_matrix_by_hand() -> None:
    # diag(0 x 10, 1, 2, ..., 10), d = 20: 11 distinct eigenvalues, so Lanczos becomes invariant after 11 steps.
    # A Rademacher probe has v_i^2 / ||v||^2 = 1/20 on every coordinate: the weight at 0 is 10/20 = 0.5, and
    # |lambda| <= 1% of max |lambda| = 0.1 holds for the 10 zeros only -> share 0.5 for every probe
    D = torch.diag(torch.tensor([0.0] * 10 + [float(i) for i in range(1, 11)], dtype=torch.float64))
    d = slq(lambda v: D @ v, 20, probes=3, steps=15, seed=0, grid=100)
    assert d.matvecs == 3 * 11  # each probe stops at the invariant space
    np.testing.assert_allclose(mass_near_zero(d, 0.01), 0.5, atol=1e-10)
    assert d.largest_modulus == pytest.approx(10.0, abs=1e-10)
    # with the band at 25% (|lambda| <= 2.5): the zeros, 1 and 2 -> 12/20 = 0.6
    np.testing.assert_allclose(mass_near_zero(d, 0.25), 0.6, atol=1e-10)


def test_smoothed_density_peak_against_the_gaussian() -> None:
    # one node at 0 of weight 1: the grid is [-0.01, 0.01], the variance 1e-5 * max(1, 0.02) = 1e-5, so the
    # Gaussian's peak 1 / sqrt(2 pi 1e-5) = 126.157 divided by its mass on the grid, erf(0.01 / sqrt(2e-5)) = 0.99843
    t, dens, s2 = smoothed_density(np.zeros((1, 1)), np.ones((1, 1)), grid=2001)
    assert s2 == pytest.approx(1e-5)
    peak = 1.0 / math.sqrt(2 * math.pi * 1e-5) / math.erf(0.01 / math.sqrt(2e-5))
    assert float(dens[1000]) == pytest.approx(peak, rel=1e-3)
    assert float(np.sum(dens) * (t[1] - t[0])) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"probes": 0}, "probes"),
        ({"steps": 0}, "steps"),
        ({"steps": 31}, "steps"),
        ({"probe": "uniform", "steps": 5}, "probe"),
    ],
)
def test_bad_arguments_name_their_parameter(kwargs: dict[str, object], param: str) -> None:
    A = torch.eye(30, dtype=torch.float64)
    with pytest.raises(ParameterError) as e:
        slq(lambda v: A @ v, 30, **kwargs)  # type: ignore[arg-type]
    assert e.value.name == param
