"""verify.ops.hvp: the two Hessian-vector products (double backward, forward-over-reverse) against closed forms and
each other, the measured choice between them, and products on an objective whose module lives elsewhere.

References: least squares f = (1/2) sum_i w_i (a_i . theta - y_i)^2 has Hessian A^T W A exactly (W the objective's
weights: 1/n, or 1/(M |D_m|) per client); a tanh MLP's Hessian from ``torch.func.hessian`` of the flattened loss (an
independent second-order implementation); for batch norm in eval mode and attention, the central difference of the
gradient, D(h) = (grad f(x + h v) - grad f(x - h v)) / 2h, extrapolated (4 D(h/2) - D(h)) / 3 to an O(h^4) error.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import Tensor, nn  # noqa: E402
from torch.func import functional_call  # noqa: E402

from sfltheory.errors import ParameterError  # noqa: E402
from verify.constants.lanczos import lanczos  # noqa: E402
from verify.constants.trace import hessian_trace  # noqa: E402
from verify.ops import hvp  # noqa: E402
from verify.ops.hvp import (  # noqa: E402
    HessianOperator,
    Speeds,
    forward_over_reverse_product,
    hessian_vector_product,
    product_speeds,
)
from verify.ops.objective import Objective  # noqa: E402
from verify.split import Split  # noqa: E402

D = torch.float64
PRODUCTS = {"reverse": hessian_vector_product, "forward": forward_over_reverse_product}


def flat(t: dict[str, Tensor], names: list[str]) -> np.ndarray:
    return torch.cat([t[n].reshape(-1) for n in names]).numpy()


def half_squared(out: Tensor, y: Tensor) -> Tensor:
    return 0.5 * (out.squeeze(-1) - y) ** 2


def least_squares(n: int = 60, p: int = 5) -> tuple[Objective, np.ndarray]:
    """A linear model with a bias split client (weight) / server (bias), in chunks of 16; A = [X, 1]."""
    torch.manual_seed(0)
    X = torch.randn(n, p, dtype=D)
    model = nn.Linear(p, 1).to(D)
    split = Split({"client": ("weight",), "server": ("bias",)})
    obj = Objective(model, half_squared, X, torch.randn(n, dtype=D), split, chunk=16, device="cpu", dtype=D)
    return obj, np.hstack([X.numpy(), np.ones((n, 1))])


def direction(obj: Objective, seed: int = 0) -> dict[str, Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {k: torch.randn(t.shape, generator=g, dtype=D) for k, t in obj.params0.items()}


@pytest.mark.parametrize("method", list(PRODUCTS))
def test_least_squares_closed_form(method: str) -> None:
    obj, A = least_squares()
    names = ["weight", "bias"]
    H = A.T @ A / A.shape[0]
    v = direction(obj)
    product = PRODUCTS[method]
    np.testing.assert_allclose(flat(product(obj, obj.params0, v), names), H @ flat(v, names), rtol=1e-12)
    # a part: the rows and columns of the client block only
    got = product(obj, obj.params0, v, wrt=["weight"])
    assert set(got) == {"weight"}
    np.testing.assert_allclose(got["weight"].reshape(-1).numpy(), H[:5, :5] @ v["weight"].reshape(-1).numpy())
    # a direction on the bias only: full rows, the weight's column block times zero
    some = product(obj, obj.params0, {"bias": v["bias"]})
    np.testing.assert_allclose(flat(some, names), H[:, 5] * float(v["bias"]), rtol=1e-12)
    # the mean over some samples (one client's f_m), and the clients' f = (1/M) sum_m f_m (weights 1/(M |D_m|))
    idx = torch.tensor([3, 17, 40, 41, 59])
    Ai = A[idx.numpy()]
    np.testing.assert_allclose(flat(product(obj, obj.params0, v, idx=idx), names),
                               Ai.T @ Ai / 5 @ flat(v, names), rtol=1e-12)  # fmt: skip
    clients = [torch.arange(0, 10), torch.arange(10, 60)]
    W = np.concatenate([np.full(10, 1 / 20), np.full(50, 1 / 100)])
    cobj = obj.with_clients(clients)
    np.testing.assert_allclose(flat(product(cobj, cobj.params0, v), names), (A.T * W) @ A @ flat(v, names), rtol=1e-12)


def tanh_mlp() -> tuple[Objective, np.ndarray, list[str]]:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3)).to(D)
    X, y = torch.randn(50, 4, dtype=D), torch.randint(0, 3, (50,))
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=20, device="cpu", dtype=D)
    names = [n for n, _ in model.named_parameters()]
    shapes = [p.shape for _, p in model.named_parameters()]
    sizes = [int(np.prod(s)) for s in shapes]

    def loss(th: Tensor) -> Tensor:
        ps = {n: t.view(s) for n, t, s in zip(names, th.split(sizes), shapes, strict=True)}
        return nn.functional.cross_entropy(functional_call(model, ps, (X,)), y)

    theta = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return obj, torch.func.hessian(loss)(theta).numpy(), names


def test_both_methods_against_torch_func_hessian() -> None:
    obj, H, names = tanh_mlp()
    v = direction(obj, 2)
    want = H @ flat(v, names)
    got = {m: flat(f(obj, obj.params0, v), names) for m, f in PRODUCTS.items()}
    for m in PRODUCTS:
        np.testing.assert_allclose(got[m], want, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got["forward"], got["reverse"], rtol=1e-12, atol=1e-14)
    # the operator by either method (flat NumPy in and out)
    x = np.asarray(np.random.default_rng(3).standard_normal(H.shape[0]))
    for m in PRODUCTS:
        op = HessianOperator(obj, method=m)
        assert op.method == m and op.speeds is None and op.how == m
        np.testing.assert_allclose(op @ x, H @ x, rtol=1e-10, atol=1e-13)


class Attention(nn.Module):
    """Scaled dot-product attention (the fused kernels have no double backward: run under the math kernel) and
    nn.MultiheadAttention on a (B, T, 4) sequence."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(4, 12)
        self.mha = nn.MultiheadAttention(4, 2, batch_first=True)
        self.out = nn.Linear(12, 3)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = self.qkv(x).chunk(3, -1)
        h = nn.functional.scaled_dot_product_attention(q, k, v) + x
        h, _ = self.mha(h, h, h, need_weights=False)
        return self.out(torch.tanh(h).flatten(1))


def bn_cnn() -> nn.Module:
    model = nn.Sequential(
        nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Tanh(), nn.Flatten(), nn.BatchNorm1d(12), nn.Linear(12, 3)
    )
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d | nn.BatchNorm2d):
            m.reset_running_stats()
            nn.init.uniform_(cast(Tensor, m.running_mean), -1, 1)
            nn.init.uniform_(cast(Tensor, m.running_var), 0.5, 2)
            nn.init.uniform_(m.weight, 0.5, 1.5)
    return model


MODELS = {"batchnorm": (bn_cnn, (2, 4, 4)), "attention": (Attention, (3, 4))}


def objective_of(name: str, chunk: int = 7) -> Objective:
    torch.manual_seed(4)
    make, shape = MODELS[name]
    model = make().to(D)
    X, y = torch.randn(16, *shape, dtype=D), torch.randint(0, 3, (16,))
    return Objective(model, nn.CrossEntropyLoss(), X, y, chunk=chunk, device="cpu", dtype=D)


@pytest.mark.parametrize("name", list(MODELS))
def test_batchnorm_and_attention_against_a_gradient_difference(name: str) -> None:
    obj = objective_of(name)
    names = list(obj.names)
    v = direction(obj, 5)

    def central(h: float) -> np.ndarray:
        plus = obj.grad({k: t + h * v[k] for k, t in obj.params0.items()})
        minus = obj.grad({k: t - h * v[k] for k, t in obj.params0.items()})
        return (flat(plus, names) - flat(minus, names)) / (2 * h)

    want = (4 * central(5e-4) - central(1e-3)) / 3  # Richardson: the h^2 error term cancels, O(h^4) is left
    got = {m: flat(f(obj, obj.params0, v), names) for m, f in PRODUCTS.items()}
    scale = np.abs(want).max()
    for m in PRODUCTS:
        np.testing.assert_allclose(got[m], want, rtol=0, atol=1e-7 * scale)
    np.testing.assert_allclose(got["forward"], got["reverse"], rtol=0, atol=1e-12 * scale)
    assert obj.model.training  # the objective's eval mode is temporary


def test_products_read_only_the_objectives_tensors() -> None:
    """Issue 23's bug class for the curvature path: the module moved to the meta device after the objective is
    built, so that reading any of its tensors (a batch norm's running statistics) raises; Lanczos, the deflated
    trace and both products give what they gave before the move."""
    obj = objective_of("batchnorm")
    v = direction(obj, 6)
    before = {m: f(obj, obj.params0, v) for m, f in PRODUCTS.items()}
    spec = lanczos(HessianOperator(obj, method="reverse"), tol=1e-5)
    trace = hessian_trace(HessianOperator(obj, method="reverse"), probes=4, basis=spec)
    obj.model.to("meta")
    for m, f in PRODUCTS.items():
        after = f(obj, obj.params0, v)
        for k in after:
            torch.testing.assert_close(after[k], before[m][k], rtol=1e-12, atol=1e-14)
        op = HessianOperator(obj, method=m)
        again = lanczos(op, tol=1e-5)
        if m == "reverse":  # the same arithmetic as before the move: the same run
            assert again.top.value == pytest.approx(spec.top.value, rel=1e-12)
            assert hessian_trace(op, probes=4, basis=again).value == pytest.approx(trace.value, rel=1e-10)
        for e, was in ((again.top, spec.top), (again.bottom, spec.bottom)):  # each interval holds an eigenvalue
            assert abs(e.value - was.value) <= e.residual + was.residual + 1e-12


def test_placed_follows_the_objective() -> None:
    obj, A = least_squares()
    H = A.T @ A / A.shape[0]
    v32 = {k: torch.ones(t.shape, dtype=torch.float32) for k, t in obj.params0.items()}  # exact in both dtypes
    moved = obj.placed({**v32, "count": torch.arange(3)})
    assert all(moved[k].dtype == D for k in v32) and moved["count"].dtype == torch.long
    for f in PRODUCTS.values():
        got = f(obj, obj.params0, v32)
        assert got["weight"].dtype == D
        np.testing.assert_allclose(flat(got, ["weight", "bias"]), H.sum(1), rtol=1e-12)


# ---- the measured choice -----------------------------------------------------------------------------------------


def test_speeds_choice() -> None:
    fast_forward = Speeds(reverse=2.0, kept=1.5, forward=1.0, samples=8, device="cpu")
    fast_kept = Speeds(reverse=2.0, kept=0.5, forward=1.0, samples=8, device="cpu")
    assert fast_forward.choice(False) == "forward" and fast_forward.choice("auto") == "forward"
    assert fast_kept.choice("auto") == "reverse" and fast_kept.choice(False) == "forward"
    assert fast_forward.choice(True) == "reverse"  # graphs asked for: only the double backward keeps them
    broken = Speeds(reverse=2.0, kept=1.5, forward=float("inf"), samples=8, device="cpu", why="no jvp rule")
    assert broken.choice(False) == "reverse" and broken.choice("auto") == "reverse"


@pytest.mark.parametrize(
    ("speeds", "retain", "method", "retained"),
    [
        (Speeds(2.0, 1.5, 1.0, 8, "cpu"), "auto", "forward", False),
        (Speeds(2.0, 0.5, 1.0, 8, "cpu"), "auto", "reverse", True),
        (Speeds(2.0, 0.5, 1.0, 8, "cpu"), False, "forward", False),
        (Speeds(1.0, 0.5, 2.0, 8, "cpu"), False, "reverse", False),
        (Speeds(2.0, 1.5, 1.0, 8, "cpu"), True, "reverse", True),
    ],
)
def test_operator_takes_the_measured_method(
    speeds: Speeds, retain: bool | str, method: str, retained: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    obj, H, _ = tanh_mlp()
    split = Objective(obj.model, nn.CrossEntropyLoss(), obj.X, obj.y, Split.from_prefixes(obj.model, {"client": ["0"],
                      "server": ["2"]}), chunk=20, device="cpu", dtype=D)  # fmt: skip
    monkeypatch.setattr(hvp, "product_speeds", lambda *_: speeds)
    op = HessianOperator(split, retain=retain)
    assert (op.method, op.retained) == (method, retained) and op.speeds is speeds
    assert method in op.how and "faster on one chunk" in op.how
    x = np.asarray(np.random.default_rng(0).standard_normal(H.shape[0]))
    np.testing.assert_allclose(op @ x, H @ x, rtol=1e-10, atol=1e-13)
    srv = op.restrict("server")  # 6*3 + 3 = 21 server parameters, last in the flat order
    assert srv.method == method and srv.retained == retained
    np.testing.assert_allclose(srv @ x[-21:], H[-21:, -21:] @ x[-21:], rtol=1e-10, atol=1e-13)
    if retained and retain == "auto":  # no room for graphs: the faster of the rebuilding paths
        small = HessianOperator(split, retain="auto", budget=1.0)
        assert not small.retained and small.method == speeds.choice(False)


def test_product_speeds_measured_once_per_model() -> None:
    obj, _, _ = tanh_mlp()
    s = product_speeds(obj)
    assert all(0 < t < float("inf") for t in (s.reverse, s.kept, s.forward)) and s.samples == 20 and not s.why
    assert product_speeds(obj) is s  # cached
    assert product_speeds(obj.with_clients([torch.arange(10)])) is s  # same model, device, dtype and chunk
    other = Objective(obj.model, nn.CrossEntropyLoss(), obj.X, obj.y, chunk=7, device="cpu", dtype=D)
    assert product_speeds(other) is not s and product_speeds(other).samples == 7


def test_a_failing_forward_product_is_never_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    obj, H, _ = tanh_mlp()
    obj = Objective(obj.model, nn.CrossEntropyLoss(), obj.X, obj.y, chunk=11, device="cpu", dtype=D)  # fresh key

    def no_jvp(*_: object) -> None:
        raise NotImplementedError("Trying to use forward AD with some_op that does not support it")

    monkeypatch.setattr(hvp, "forward_chunk", no_jvp)
    s = product_speeds(obj)
    assert s.forward == float("inf") and "forward AD" in s.why
    op = HessianOperator(obj)
    assert op.method == "reverse"
    x = np.ones(H.shape[0])
    np.testing.assert_allclose(op @ x, H @ x, rtol=1e-10, atol=1e-13)


def test_bad_method_and_retain() -> None:
    obj, _ = least_squares()
    with pytest.raises(ParameterError) as e:
        HessianOperator(obj, method="sideways")
    assert e.value.name == "method"
    with pytest.raises(ParameterError) as e:
        HessianOperator(obj, method="forward", retain=True)
    assert e.value.name == "retain"
