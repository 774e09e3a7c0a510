"""verify.ops.zo: the seeds' zeroth-order estimator, shared by MU-SplitFed, HERON-SFL and the measured error.

On a quadratic f(x) = 1/2 x^T A x + b^T x the central difference is exact along any direction,
(f(x + lam u) - f(x - lam u)) / (2 lam) = u^T grad f(x), and on a linear f so is the forward one; so the estimates
are known in closed form from the directions alone.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from verify.ops import zo  # noqa: E402
from verify.ops.tree import Params  # noqa: E402

torch.set_num_threads(1)


def tree_draws(seed: int, P: int) -> Params:
    gen = torch.Generator().manual_seed(seed)
    return zo.gaussian_draws(
        lambda _: {
            "w": torch.randn(3, 2, generator=gen, dtype=torch.float64),
            "b": torch.randn(2, generator=gen, dtype=torch.float64),
        },
        P,
    )


def flat(t: Params) -> torch.Tensor:
    return torch.cat([v.reshape(v.shape[0], -1) for v in t.values()], 1)


def test_draws_are_consumed_in_the_order_of_a_loop() -> None:
    gen = torch.Generator().manual_seed(3)
    by_hand = [torch.randn(4, generator=gen, dtype=torch.float64) for _ in range(5)]
    gen = torch.Generator().manual_seed(3)
    stacked = zo.gaussian_draws(lambda _: {"x": torch.randn(4, generator=gen, dtype=torch.float64)}, 5)
    assert torch.equal(stacked["x"], torch.stack(by_hand))


@pytest.mark.parametrize(("law", "radius", "scale"), [("unit_sphere", 1.0, 8.0), ("sqrt_d_sphere", math.sqrt(8), 1.0)])
def test_sphere_laws_normalise_the_whole_tree_jointly(law: str, radius: float, scale: float) -> None:
    z = tree_draws(0, 4)
    U, s = zo.directions(z, law)
    assert s == scale  # d = 3 * 2 + 2 = 8 coordinates in one draw of the tree
    norms = flat(U).norm(dim=1)
    torch.testing.assert_close(norms, torch.full((4,), radius, dtype=torch.float64), rtol=1e-14, atol=0)
    # the direction of each draw is kept: u_p is a positive multiple of z_p
    ratio = flat(U) / flat(z)
    torch.testing.assert_close(ratio, ratio[:, :1].expand_as(ratio), rtol=1e-13, atol=0)
    G, one = zo.directions(z, "gaussian")
    assert one == 1.0 and all(torch.equal(G[k], z[k]) for k in z)


def quadratic() -> tuple[Params, torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    A = torch.randn(8, 8, generator=g, dtype=torch.float64)
    A = A @ A.T
    b = torch.randn(8, generator=g, dtype=torch.float64)
    x = {
        "w": torch.randn(3, 2, generator=g, dtype=torch.float64),
        "b": torch.randn(2, generator=g, dtype=torch.float64),
    }
    return x, A, b, A @ torch.cat([x["w"].reshape(-1), x["b"]]) + b


def f_quad(A: torch.Tensor, b: torch.Tensor):  # type: ignore[no-untyped-def]
    def f(p: Params) -> torch.Tensor:
        v = torch.cat([p["w"].reshape(-1), p["b"]])
        return 0.5 * v @ A @ v + b @ v

    return f


@pytest.mark.parametrize("vec", [True, False])
def test_spsa_is_exact_along_each_direction_on_a_quadratic(vec: bool) -> None:
    x, A, b, grad = quadratic()
    U, _ = zo.directions(tree_draws(2, 5), zo.SQRT_D_SPHERE)
    est = zo.estimate(f_quad(A, b), x, U, 1e-2, form=zo.SPSA, vec=vec)
    u = flat(U)
    want = (u @ grad) @ u / 5  # (1/P) sum_p (u_p . grad f) u_p
    torch.testing.assert_close(torch.cat([est["w"].reshape(-1), est["b"]]), want, rtol=1e-9, atol=1e-10)


def test_forward_estimate_with_its_scale_on_a_linear_function() -> None:
    _, _, b, _ = quadratic()
    x = {"w": torch.zeros(3, 2, dtype=torch.float64), "b": torch.zeros(2, dtype=torch.float64)}
    U, s = zo.directions(tree_draws(4, 3), zo.UNIT_SPHERE)

    def f(p: Params) -> torch.Tensor:
        return b @ torch.cat([p["w"].reshape(-1), p["b"]])

    est = zo.estimate(f, x, U, 0.5, form=zo.FORWARD, scale=s, vec=False)
    u = flat(U)
    want = 8.0 * (u @ b) @ u / 3  # (1/P) sum_p (d / mu) (mu u_p . b) u_p
    torch.testing.assert_close(torch.cat([est["w"].reshape(-1), est["b"]]), want, rtol=1e-12, atol=1e-14)
    batched = zo.estimate(f, x, U, 0.5, form=zo.FORWARD, scale=s, f0=f(x), vec=True)
    for k in est:
        torch.testing.assert_close(batched[k], est[k], rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("law", ["unit_sphere", "sqrt_d_sphere", "gaussian"])
def test_directions_batched_normalises_each_client_and_perturbation(law: str) -> None:
    z = {k: torch.stack([tree_draws(3, 4)[k], tree_draws(4, 4)[k]]) for k in ("w", "b")}  # (client, P, ...)
    U, s = zo.directions_batched(z, law)
    assert s == (8.0 if law == "unit_sphere" else 1.0)
    u = torch.cat([U["w"].reshape(2, 4, -1), U["b"]], 2)
    raw = torch.cat([z["w"].reshape(2, 4, -1), z["b"]], 2)
    radius = {"unit_sphere": 1.0, "sqrt_d_sphere": math.sqrt(8)}.get(law)
    if radius is None:
        assert torch.equal(u, raw)
    else:  # each (client, p) row is raw / |raw| * radius
        torch.testing.assert_close(u, raw / raw.norm(dim=2, keepdim=True) * radius, rtol=1e-14, atol=0)


def test_split_flat_is_views_in_key_order() -> None:
    z = torch.arange(2 * 3 * 8, dtype=torch.float64).reshape(2, 3, 8)
    t = zo.split_flat(z, {"w": torch.zeros(3, 2), "b": torch.zeros(2)})
    assert torch.equal(t["w"][1, 2], z[1, 2, :6].reshape(3, 2)) and torch.equal(t["b"][0, 1], z[0, 1, 6:])
    assert t["w"].data_ptr() == z.data_ptr()  # a view: no copy of the draws
