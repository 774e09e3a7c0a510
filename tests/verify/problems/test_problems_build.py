"""verify.problems: build(spec) gives the problems the keyword builders give, a model problem's constants are
verify.constants.measure's on its own model and clients, and a quadratic's exact constants are the hand values."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from verify.constants import measure  # noqa: E402
from verify.problems import Counts, ModelProblem, QuadraticProblem, build, model_problem  # noqa: E402
from verify.spec import ModelSpec, QuadraticSpec  # noqa: E402

TARGETS = {"L": 2.0, "mu": 0.5, "sigma2": 0.3, "eps2": 0.7, "d": 6, "d_c": 2, "M": 3, "F": 1.5}


# --- build(spec) ----------------------------------------------------------------------------------------------


def test_build_quadratic_from_targets_is_from_targets() -> None:
    p = build(QuadraticSpec(targets=TARGETS, seed=3))
    q = QuadraticProblem.from_targets(L=2.0, mu=0.5, sigma2=0.3, eps2=0.7, d=6, d_c=2, M=3, F=1.5, seed=3)
    assert isinstance(p, QuadraticProblem) and p.dtype == torch.float64
    assert torch.equal(p.H, q.H) and torch.equal(p.b, q.b) and torch.equal(p.x0, q.x0)
    assert (p.d, p.d_c, p.M, p.sigma2, p.noise) == (q.d, q.d_c, q.M, q.sigma2, "gaussian")
    assert build(QuadraticSpec(targets=TARGETS, noise="rademacher")).noise == "rademacher"
    assert build(QuadraticSpec(), dtype=torch.float32).dtype == torch.float32


def test_build_quadratic_from_data_and_file(tmp_path) -> None:
    import json

    q = QuadraticProblem.from_targets(d=4, M=2, seed=1, noise="rademacher")
    path = tmp_path / "q.json"
    path.write_text(json.dumps(q.to_dict()))
    for spec in (QuadraticSpec(data=q.to_dict()), QuadraticSpec(file=str(path))):
        p = build(spec)
        assert isinstance(p, QuadraticProblem)
        assert p.to_dict() == q.to_dict()


def test_build_model_is_model_problem() -> None:
    kw = {"model": "mlp", "data": "digits", "input_shape": (64,), "clients": 3, "partition": "dirichlet:0.5",
          "eval_samples": 20, "seed": 1}  # fmt: skip
    p = build(ModelSpec(**kw))
    q = model_problem(**kw)
    assert isinstance(p, ModelProblem) and p.dtype == torch.float32
    assert (p.M, p.d_c, p.d_s) == (q.M, q.d_c, q.d_s) == (3, q.d_c, q.d_s)
    n = sum(v.numel() for part in ("client", "server") for v in p.init()[part].values())
    assert n == sum(v.numel() for part in ("client", "server") for v in q.init()[part].values())
    assert p.counts() == q.counts() and p.counts().d == n
    assert [int(i.numel()) for i in p.indices] == [int(i.numel()) for i in q.indices]


# --- a model problem's constants are measure's ----------------------------------------------------------------


def blobs(n: int = 60, d: int = 5, k: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    y = torch.arange(n) % k
    return torch.randn(k, d, generator=g)[y] * 2 + torch.randn(n, d, generator=g), y


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))


CLIENTS = [torch.arange(m, 60, 3) for m in range(3)]
NEEDED = ["L", "sigma2", "eps2", "F"]
KEYS = ["L", "sigma2", "sigma_c2", "eps2", "eps2[mean]", "F", "gradnorm2_f", "d_c", "d_s"]


def tiny() -> ModelProblem:
    X, y = blobs()
    return ModelProblem.at_cut(net(), 1, nn.CrossEntropyLoss(reduction="none"), X, y, CLIENTS, aux=False,
                               dtype=torch.float64)  # fmt: skip


def direct(params: dict[str, torch.Tensor] | None = None):
    # an independently built objective: the same network (same seed), its first Linear and the Tanh on the client
    X, y = blobs()
    return measure(net(), nn.CrossEntropyLoss(reduction="none"), (X, y), {"client": ["0"], "server": ["2"]},
                   ["L", "sigma2", "eps2", "F", "gradnorm2_f"], clients=CLIENTS, params=params, dtype=torch.float64,
                   device="cpu")  # fmt: skip


def agree(c, ref) -> None:
    for k in KEYS:
        rel = 1e-6 if k == "L" else 1e-10  # L by Lanczos (the same iteration, to its tolerance); the rest exact sums
        assert c.get(k).value == pytest.approx(ref.get(k).value, rel=rel), k


def test_model_constants_at_init_are_measure_s() -> None:
    p = tiny()
    c = p.constants(needed=NEEDED)
    agree(c, direct())
    x0 = p.init()
    agree(p.constants(at={"client": x0["client"], "server": x0["server"]}, needed=NEEDED), c)
    assert c.get("eps2").value >= c.get("eps2[mean]").value  # the record's eps2 is the max over clients
    assert p.counts() == Counts(M=3, d=5 * 8 + 8 + 8 * 3 + 3, d_c=48, d_s=27, d_aux=0)


def test_model_constants_at_another_point() -> None:
    p = tiny()
    x = {part: {k: v + 0.1 for k, v in p.init()[part].items()} for part in ("client", "server")}
    # the parts keep the blocks' names: client 0.weight, 0.bias; server 2.weight, 2.bias -- the network's own
    agree(p.constants(at=x, needed=NEEDED), direct({**x["client"], **x["server"]}))


def test_model_measurement_needs_lam_for_the_zeroth_order_error() -> None:
    from sfltheory.errors import ParameterError

    with pytest.raises(ParameterError, match="lam"):
        tiny().constants(needed=["zo_mse[client]"])


# --- a quadratic's exact constants, by hand -------------------------------------------------------------------


def test_quadratic_constants_by_hand() -> None:
    # H = diag(1, 4), d = 2 (1 client coordinate), sigma2 = 0.5, b_1 = (1, 0), b_2 = (-1, 2), x0 = (2, 3).
    # Curvature: L = 4, L[min] = 1, L[client] = H_cc = 1, L[server] = 4; kappa = tr H / ||H|| = 5/4,
    #   kappa[client] = 1/1.
    # Noise: sigma2 = 0.5 per sample, sigma2[batch] = 0.5/2 at batch 2; split by coordinates: sigma_c2 =
    #   sigma_s2 = 0.5 * 1/2 = 0.25.
    # Heterogeneity: bbar = (0, 1); H (b_1 - bbar) = diag(1, 4) (1, -1) = (1, -4), H (b_2 - bbar) = (-1, 4):
    #   ||.||^2 = 1 + 16 = 17 for both, so eps2 (max) = eps2[mean] = 17, client part 1, server part 16;
    #   G2 = eps2[mean] = 17 at B2 = 1.
    # Gap: x0 - bbar = (2, 2): F = 1/2 (1 * 4 + 4 * 4) = 10; grad f = H (x0 - bbar) = (2, 8): ||.||^2 = 68.
    # At x = (1, 1): x - bbar = (1, 0): F = 1/2, grad f = (1, 0), ||.||^2 = 1.
    q = QuadraticProblem([1.0, 4.0], [[1.0, 0.0], [-1.0, 2.0]], [2.0, 3.0], 1, 0.5)
    c = q.constants(batch=2)
    want = {"L": 4, "L[min]": 1, "L[client]": 1, "L[server]": 4, "L[clients]": 4, "kappa": 1.25, "kappa[client]": 1,
            "sigma2": 0.5, "sigma2[batch]": 0.25, "sigma2[batch=2]": 0.25, "sigma_c2": 0.25, "sigma_s2": 0.25,
            "eps2": 17, "eps2[mean]": 17, "eps2[mean,client]": 1, "eps2[mean,server]": 16, "B2": 1, "G2": 17,
            "F": 10, "gradnorm2_f": 68, "d": 2, "d_c": 1, "d_s": 1}  # fmt: skip
    for k, v in want.items():
        assert c.get(k).value == pytest.approx(v, rel=1e-12), k
    assert c.get("sigma_c2[max]") is None  # Gaussian noise: no per-sample maximum
    moved = q.constants(at={"client": {"x": torch.tensor([1.0])}, "server": {"x": torch.tensor([1.0])}})
    assert moved.get("F").value == pytest.approx(0.5) and moved.get("gradnorm2_f").value == pytest.approx(1.0)
    assert q.counts() == Counts(M=2, d=2, d_c=1, d_s=1, d_aux=1) and q.client_weights() == (0.5, 0.5)


def test_quadratic_eps2_is_the_max_and_eps2_mean_the_mean() -> None:
    # Three clients on the same H: b = (3, 0), (0, 0), (0, 0), bbar = (1, 0); H (b_m - bbar) = (2, 0), (-1, 0),
    # (-1, 0): ||.||^2 = 4, 1, 1 -> eps2 = max = 4, eps2[mean] = 6/3 = 2 (from_targets's eps2 is this mean).
    q = QuadraticProblem([1.0, 4.0], [[3.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [2.0, 3.0], 1, 0.5)
    c = q.constants()
    assert c.get("eps2").value == pytest.approx(4.0) and c.get("eps2[mean]").value == pytest.approx(2.0)
    assert QuadraticProblem.from_targets(eps2=0.7, M=5, seed=2).constants().get("eps2[mean]").value == pytest.approx(
        0.7, rel=1e-12
    )
