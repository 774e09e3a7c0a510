"""Curvature estimates (extreme eigenvalues, trace, effective rank, secants) against closed forms, in float64.

Least squares f(w) = (1/2n)||Xw - y||^2 has Hessian X^T X / n exactly (with a bias: A^T A / n, A = [X, 1]);
for a tanh MLP the Hessian is computed independently with torch.func.hessian of the flattened loss. The
cross-library test runs PyHessian (skipped when it is not installed) on the same model.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.func import functional_call  # noqa: E402

from sfltheory.errors import ParameterError  # noqa: E402
from verify.constants.curvature import dense_hessian, effective_rank, extreme_eigenvalue, secant_smoothness  # noqa: E402
from verify.constants.lanczos import lanczos  # noqa: E402
from verify.constants.trace import block_traces, hessian_trace  # noqa: E402
from verify.ops.hvp import HessianOperator, forward_over_reverse_product, hessian_vector_product  # noqa: E402
from verify.ops.objective import Objective  # noqa: E402
from verify.split import Split  # noqa: E402

D = torch.float64


def half_squared(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 0.5 * (out.squeeze(-1) - y) ** 2


def least_squares(X: np.ndarray, bias: bool = False, chunk: int = 512) -> Objective:
    n, p = X.shape
    torch.manual_seed(0)
    model = nn.Linear(p, 1, bias=bias).to(D)
    y = torch.randn(n, dtype=D)
    split = Split({"client": ("weight",), "server": ("bias",)}) if bias else None
    return Objective(model, half_squared, torch.from_numpy(X), y, split, chunk=chunk, device="cpu", dtype=D)


def design(n: int = 200, p: int = 30, seed: int = 0, decay: float = 1.0) -> np.ndarray:
    """Columns scaled 2 decay^j: decay < 1 gives a geometrically decaying spectrum, as a trained net's Hessian."""
    rng = np.random.default_rng(seed)
    scale = np.linspace(0.2, 2.0, p) if decay == 1.0 else 2.0 * decay ** np.arange(p)
    return rng.standard_normal((n, p)) * scale


def test_least_squares_extreme_eigenvalues() -> None:
    X = design()
    H = X.T @ X / X.shape[0]
    exact = np.linalg.eigvalsh(H)
    obj = least_squares(X)
    for which, want in (("largest", exact[-1]), ("smallest", exact[0])):
        e = extreme_eigenvalue(obj, which=which)
        assert "Lanczos" in e.method and e.converged  # 30 > ncv: the iterative path
        assert e.value == pytest.approx(want, rel=1e-3)
        assert abs(e.value - want) <= e.residual + 1e-12  # Parlett: an eigenvalue within the residual
        tight = extreme_eigenvalue(obj, which=which, tol=1e-10)
        assert tight.value == pytest.approx(want, rel=1e-8)  # exact arithmetic: only Lanczos' own error
    mag = extreme_eigenvalue(obj, which="magnitude", tol=1e-10)
    assert mag.value == pytest.approx(np.abs(exact).max(), rel=1e-8)


def test_operator_counts_products_and_is_symmetric() -> None:
    X = design(50, 8)
    obj = least_squares(X)
    op = HessianOperator(obj)
    v = np.arange(8.0)
    np.testing.assert_allclose(op @ v, X.T @ (X @ v) / 50, rtol=1e-12)
    np.testing.assert_allclose(op.H @ v, op @ v, rtol=0)
    assert op.matvecs == 3 and op.shape == (8, 8) and op.dtype == np.float64


def test_retained_graph_products_match() -> None:
    obj, H = tanh_mlp_objective()
    v = np.random.default_rng(0).standard_normal(H.shape[0])
    kept = HessianOperator(obj, retain=True)
    np.testing.assert_allclose(kept @ v, H @ v, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(kept @ v, HessianOperator(obj) @ v, rtol=1e-10, atol=1e-13)
    assert kept.matvecs == 2
    part = least_squares(design(40, 3), bias=True, chunk=16)
    A = np.hstack([design(40, 3), np.ones((40, 1))])
    np.testing.assert_allclose(HessianOperator(part, "client", retain=True) @ np.ones(3), (A.T @ A / 40)[:3, :3].sum(1))
    # a loss linear in the parameters: its gradient has no graph, and H = 0
    flat = Objective(
        nn.Linear(3, 1).to(D),
        lambda o, y: o.squeeze(-1) * y,
        torch.randn(10, 3, dtype=D),
        torch.randn(10, dtype=D),
        device="cpu",
    )
    assert not np.any(HessianOperator(flat, retain=True) @ np.ones(4))


def test_the_hessian_vector_product_is_the_operators_product() -> None:
    # hessian_vector_product and HessianOperator share verify.ops.hvp: full rows for a direction on some parameters
    obj, H = tanh_mlp_objective()
    rng = np.random.default_rng(1)
    names = list(obj.params0)
    sizes = [obj.params0[n].numel() for n in names]
    v = {
        n: torch.from_numpy(rng.standard_normal(k)).reshape(obj.params0[n].shape)
        for n, k in zip(names, sizes, strict=True)
    }
    some = {n: v[n] for n in names[:2]}  # the first layer only: the rest of the direction is zero
    full = np.concatenate(
        [v[n].reshape(-1).numpy() if n in some else np.zeros(k) for n, k in zip(names, sizes, strict=True)]
    )
    got = hessian_vector_product(obj, obj.params0, some)
    np.testing.assert_allclose(torch.cat([got[n].reshape(-1) for n in names]).numpy(), H @ full, rtol=1e-9, atol=1e-12)
    flat_v = torch.cat([v[n].reshape(-1) for n in names])
    whole = hessian_vector_product(obj, obj.params0, v)
    np.testing.assert_array_equal(
        torch.cat([whole[n].reshape(-1) for n in names]).numpy(), HessianOperator(obj, method="reverse").mv(flat_v)
    )
    # and forward-over-reverse, the operator's other method, the same product to rounding
    fwd = forward_over_reverse_product(obj, obj.params0, some)
    np.testing.assert_allclose(torch.cat([fwd[n].reshape(-1) for n in names]).numpy(), H @ full, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(
        torch.cat([forward_over_reverse_product(obj, obj.params0, v)[n].reshape(-1) for n in names]).numpy(),
        HessianOperator(obj, method="forward").mv(flat_v),
    )


def test_split_blocks_match_closed_form() -> None:
    X = design(120, 6, seed=1)
    A = np.hstack([X, np.ones((120, 1))])
    H = A.T @ A / 120
    obj = least_squares(X, bias=True, chunk=32)  # sums over 4 chunks
    np.testing.assert_allclose(dense_hessian(obj).numpy(), H, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dense_hessian(obj, "client").numpy(), H[:6, :6], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dense_hessian(obj, "server").numpy(), H[6:, 6:], rtol=1e-12)
    assert H[6, 6] == pytest.approx(1.0)
    e = extreme_eigenvalue(obj, "client")
    assert e.value == pytest.approx(np.linalg.eigvalsh(H[:6, :6])[-1], rel=1e-10)
    assert e.method.startswith("dense") and e.matvecs == 6  # 6 <= ncv: formed densely, exact
    s = extreme_eigenvalue(obj, "server", which="smallest")
    assert s.value == pytest.approx(1.0, rel=1e-12) and s.matvecs == 1
    assert hessian_trace(obj, "client", probes=18).value == pytest.approx(np.trace(H[:6, :6]), rel=1e-10)


def test_trace_estimators_and_hutchpp_exact_at_low_rank() -> None:
    # Hutch++ spends 2/3 of its products on deflation, which pays off for a decaying spectrum (and loses to
    # Hutchinson on a flat one); 30 products, seeded.
    X = design(300, 40, seed=2, decay=0.85)
    H = X.T @ X / 300
    obj = least_squares(X)
    for method in ("hutchinson", "hutch++"):
        t = hessian_trace(obj, probes=30, method=method, seed=3)
        assert t.probes == 30 and t.method == method
        assert t.value == pytest.approx(np.trace(H), rel=0.05)
        assert abs(t.value - np.trace(H)) < 4 * t.se
    # rank 3: with 9 products Q spans range(H) and the deflated remainder is zero.
    rng = np.random.default_rng(4)
    low = rng.standard_normal((100, 3)) @ rng.standard_normal((3, 40))
    obj = least_squares(low)
    t = hessian_trace(obj, probes=9, method="hutch++", seed=5)
    assert t.value == pytest.approx(np.trace(low.T @ low / 100), rel=1e-10)
    assert t.se < 1e-10 * t.value


def tanh_mlp_objective() -> tuple[Objective, np.ndarray]:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 7), nn.Tanh(), nn.Linear(7, 3)).to(D)
    X = torch.randn(96, 4, dtype=D)
    y = torch.randint(0, 3, (96,))
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=40, device="cpu", dtype=D)
    names = [n for n, _ in model.named_parameters()]
    shapes = [p.shape for _, p in model.named_parameters()]
    theta = torch.cat([p.detach().reshape(-1) for _, p in model.named_parameters()])

    def loss(th: torch.Tensor) -> torch.Tensor:
        parts, s = {}, 0
        for n, sh in zip(names, shapes, strict=True):
            k = int(np.prod(sh))
            parts[n] = th[s : s + k].view(sh)
            s += k
        return nn.functional.cross_entropy(functional_call(model, parts, (X,)), y)

    return obj, torch.func.hessian(loss)(theta).numpy()


def test_tanh_mlp_against_torch_func_hessian() -> None:
    obj, H = tanh_mlp_objective()
    d = H.shape[0]  # 4*7+7+7*3+3 = 59
    assert d == 59
    np.testing.assert_allclose(dense_hessian(obj).numpy(), H, rtol=1e-9, atol=1e-12)
    w = np.linalg.eigvalsh(H)
    assert w[0] < 0 < w[-1]  # indefinite: lambda_min is a real test
    top = extreme_eigenvalue(obj, which="largest")
    low = extreme_eigenvalue(obj, which="smallest")
    assert top.value == pytest.approx(w[-1], rel=1e-3) and low.value == pytest.approx(w[0], rel=1e-3)
    kappa = np.trace(H) / np.abs(w).max()
    r = effective_rank(obj, probes=60)  # ||H||_2 by one Lanczos run for the largest |lambda|
    assert r.value == pytest.approx(kappa, rel=0.05)
    assert r.norm.value == pytest.approx(w[-1] if w[-1] > -w[0] else w[0], rel=1e-3)
    assert r.trace.probes == 60 and r.se > 0 and r.probes == 60 + r.norm.matvecs
    given = effective_rank(obj, probes=60, top=top, bottom=low)  # max(|lambda_max|, |lambda_min|), reused
    assert given.value == pytest.approx(kappa, rel=0.05) and given.probes == 60 + top.matvecs + low.matvecs


def test_secant_on_quadratic_is_rayleigh_type_quotient() -> None:
    X = design(80, 5, seed=6)
    A = np.hstack([X, np.ones((80, 1))])
    H = A.T @ A / 80
    obj = least_squares(X, bias=True)
    x0 = obj.params0
    gen = torch.Generator().manual_seed(7)
    d = {k: torch.randn(v.shape, generator=gen, dtype=D) for k, v in x0.items()}
    x1 = {k: v + d[k] for k, v in x0.items()}
    dv = obj.flat(d).numpy()
    assert secant_smoothness(obj, x0, x1) == pytest.approx(np.linalg.norm(H @ dv) / np.linalg.norm(dv), rel=1e-12)
    # a step in the client part only, client rows of the gradient
    x1c = {"weight": x0["weight"] + d["weight"]}
    dc = np.concatenate([d["weight"].numpy().ravel(), [0.0]])
    want = np.linalg.norm((H @ dc)[:5]) / np.linalg.norm(dc)
    assert secant_smoothness(obj, x0, x1c, part="client") == pytest.approx(want, rel=1e-12)
    assert want <= np.linalg.eigvalsh(H[:5, :5])[-1]  # a lower bound on L of the part
    with pytest.raises(ParameterError) as e:
        secant_smoothness(obj, x0, x0)
    assert e.value.name == "x1"


def test_bad_input_names_the_parameter() -> None:
    obj = least_squares(design(30, 4), bias=True)
    calls = [
        lambda: HessianOperator(obj, "nope"),
        lambda: dense_hessian(obj, "nope"),
        lambda: extreme_eigenvalue(obj, "nope"),
        lambda: hessian_trace(obj, "nope"),
        lambda: effective_rank(obj, "nope"),
        lambda: secant_smoothness(obj, obj.params0, obj.params0, part="nope"),
    ]
    for call in calls:
        with pytest.raises(ParameterError) as e:
            call()
        assert e.value.name == "part" and "client" in str(e.value)
    for name, call in (
        ("which", lambda: extreme_eigenvalue(obj, which="top")),
        ("tol", lambda: extreme_eigenvalue(obj, tol=0.0)),
        ("method", lambda: hessian_trace(obj, method="slq")),
        ("probes", lambda: hessian_trace(obj, probes=3)),
        ("probes", lambda: hessian_trace(obj, probes=1, method="hutchinson")),
        ("bottom", lambda: effective_rank(obj, top=extreme_eigenvalue(obj))),
    ):
        with pytest.raises(ParameterError) as e:
            call()
        assert e.value.name == name


def test_lanczos_thick_restarts_and_both_ends() -> None:
    # ncv 8 on 40 parameters: restarts; both ends from one run, to tol 1e-10 of ||H||
    X = design(300, 40, seed=8)
    exact = np.linalg.eigvalsh(X.T @ X / 300)
    obj = least_squares(X)
    s = lanczos(obj, tol=1e-10, ncv=8, maxiter=500)
    assert s.top.converged and s.bottom.converged and s.matvecs > 8  # restarted
    assert s.top.value == pytest.approx(exact[-1], rel=1e-8)
    assert abs(s.bottom.value - exact[0]) <= 1e-8 * exact[-1]
    for e, want in ((s.top, exact[-1]), (s.bottom, exact[0])):
        assert abs(e.value - want) <= e.residual + 1e-12  # the interval holds it (up to the rounding of H)
    # the basis is orthonormal and projects H: V H V^T = T
    V = s.basis.numpy()
    np.testing.assert_allclose(V @ V.T, np.eye(V.shape[0]), atol=1e-12)
    np.testing.assert_allclose(V @ (X.T @ X / 300) @ V.T, s.projected, atol=1e-10)


def test_lanczos_singular_and_rank_deficient() -> None:
    # 30 columns of which 10 repeat others: X^T X has a null space of dimension 10, lambda_min = 0 exactly
    base = design(200, 20, seed=9)
    X = np.hstack([base, base[:, :10]])
    exact = np.linalg.eigvalsh(X.T @ X / 200)
    assert abs(exact[0]) < 1e-12
    e = extreme_eigenvalue(least_squares(X), which="smallest")
    assert e.converged and abs(e.value) <= e.residual and abs(e.value) <= 1e-4 * exact[-1]


def test_block_traces_share_products() -> None:
    # A = [X, 1]: tr H = tr A^T A / n over both parts, from one set of whole-model products
    X = design(120, 30, seed=10, decay=0.8)
    A = np.hstack([X, np.ones((120, 1))])
    H = A.T @ A / 120
    obj = least_squares(X, bias=True)
    op = HessianOperator(obj)
    s = lanczos(op, tol=1e-3)
    before = op.matvecs
    t = block_traces(op, s, [None, "client", "server"], probes=40, seed=1)
    assert op.matvecs - before == 40 and t["client"].probes == 40
    for p, want in ((None, np.trace(H)), ("client", np.trace(H[:30, :30])), ("server", H[30, 30])):
        assert abs(t[p].value - want) <= 4 * t[p].se + 1e-12, (p, t[p], want)
    # the deflated estimator through hessian_trace(basis=...) and effective_rank(spectrum=...)
    assert hessian_trace(op, probes=40, seed=1, basis=s).value == pytest.approx(t[None].value, rel=1e-12)
    r = effective_rank(op, probes=40, seed=1, spectrum=s)
    assert r.value == pytest.approx(t[None].value / s.top.value, rel=1e-12)
    assert r.probes == 40 + s.matvecs
    with pytest.raises(ParameterError) as e:
        block_traces(op.restrict("client"), s, [None], probes=4)
    assert e.value.name == "spectrum"


def test_retain_auto_and_restrict_share_the_graph() -> None:
    obj, H = tanh_mlp_objective()
    v = np.random.default_rng(1).standard_normal(H.shape[0])
    auto = HessianOperator(obj, retain="auto")
    assert auto.retained and auto.graph_bytes > 0
    np.testing.assert_allclose(auto @ v, H @ v, rtol=1e-10, atol=1e-13)
    small = HessianOperator(obj, retain="auto", budget=1.0)  # no graph fits in one byte: products rebuild it
    assert not small.retained
    np.testing.assert_allclose(small @ v, H @ v, rtol=1e-10, atol=1e-13)
    split = Objective(obj.model, nn.CrossEntropyLoss(), obj.X, obj.y,
                      Split({"client": ("0.weight", "0.bias"), "server": ("2.weight", "2.bias")}), device="cpu")  # fmt: skip
    whole = HessianOperator(split, retain=True)
    srv = whole.restrict("server")
    assert srv._graphs is whole._graphs  # one kept graph for every view
    np.testing.assert_allclose(srv @ v[35:], H[35:, 35:] @ v[35:], rtol=1e-10, atol=1e-13)
    with pytest.raises(ParameterError) as e:
        HessianOperator(obj, retain="sometimes")
    assert e.value.name == "retain"


def test_cross_library_pyhessian() -> None:
    """PyHessian's power iteration (Yao et al. 2020) and ours against torch.func.hessian + eigvalsh."""
    pytest.importorskip("pyhessian", reason="PyHessian is not installed (pip install --no-deps pyhessian)")
    from pyhessian import hessian

    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 4))  # float32, as PyHessian assumes
    X = torch.randn(80, 6)
    y = torch.randint(0, 4, (80,))
    ref = model.double()
    names = [n for n, _ in ref.named_parameters()]
    shapes = [p.shape for _, p in ref.named_parameters()]
    theta = torch.cat([p.detach().reshape(-1) for p in ref.parameters()])

    def loss(th: torch.Tensor) -> torch.Tensor:
        ps = dict(zip(names, [t.view(s) for t, s in zip(th.split([int(np.prod(s)) for s in shapes]), shapes,
                                                         strict=True)], strict=True))  # fmt: skip
        return nn.functional.cross_entropy(functional_call(ref, ps, (X.double(),)), y)

    w = torch.linalg.eigvalsh(torch.func.hessian(loss)(theta)).numpy()
    model = model.float()
    top = w[np.argmax(np.abs(w))]
    assert top == w[-1] and abs(w[0]) < 0.5 * top  # a well separated top: power iteration converges
    torch.manual_seed(0)
    vals, _ = hessian(model, nn.CrossEntropyLoss(), data=(X, y), cuda=False).eigenvalues(maxIter=500, tol=1e-7)
    model.zero_grad(set_to_none=True)
    ours = extreme_eigenvalue(Objective(model, nn.CrossEntropyLoss(), X, y, device="cpu"), tol=1e-6)
    assert vals[0] == pytest.approx(top, rel=1e-4)
    assert ours.value == pytest.approx(top, rel=1e-5) and abs(ours.value - top) <= ours.residual + 1e-6 * top
    assert ours.value == pytest.approx(vals[0], rel=1e-4)
