"""``measure`` on CUDA against the same measurement on the CPU (issue 23), skipped where there is no CUDA device.

The model stays on the CPU, as the command line leaves it (``sfltheory measure --device cuda``); the objective holds
device copies of its parameters and buffers. Both runs are in float64, so that the two devices differ only by the
rounding of their kernels: exact constants (per-sample norms, heterogeneity, F) agree to 1e-9, eigenvalues within
their residual intervals, traces within their standard errors. The batch-norm model is the case that failed
(``persample._bn_rule`` read the module's running statistics, on the CPU, against cuda:0 activations).
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from torch import Tensor, nn  # noqa: E402

from sfltheory.constants import Constants, Estimate  # noqa: E402
from verify.constants.measure import measure  # noqa: E402
from verify.constants.persample import persample_norms  # noqa: E402
from verify.models.zoo import BasicBlock  # noqa: E402
from verify.ops.hvp import (  # noqa: E402
    HessianOperator,
    forward_over_reverse_product,
    hessian_vector_product,
    product_speeds,
)
from verify.ops.objective import Objective  # noqa: E402

NO_CUDA = not torch.cuda.is_available()
ALL_GROUPS = ["L", "L_min", "sigma2", "eps2", "kappa", "F", "gradnorm2_f", "zo", "L_clients"]
SPLIT = {"client": ["0", "1"], "server": ["3", "6", "7"]}


def bn_cnn(dtype: torch.dtype = torch.float64) -> tuple[nn.Module, Tensor, Tensor]:
    """Conv2d + BatchNorm2d, a residual block (conv, BN, projection shortcut, in-place ReLU), BatchNorm1d, Linear;
    running statistics away from 0 and 1 so that the batch-norm rule matters; 48 samples of 3x8x8, 4 classes."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
        BasicBlock(4, 6, stride=2), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.BatchNorm1d(24), nn.Linear(24, 4),
    ).to(dtype)  # fmt: skip
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d | nn.BatchNorm2d):
            nn.init.uniform_(m.running_mean, -0.5, 0.5)  # type: ignore[arg-type]
            nn.init.uniform_(m.running_var, 0.5, 2.0)  # type: ignore[arg-type]
            nn.init.uniform_(m.weight, 0.5, 1.5)
    return model, torch.randn(48, 3, 8, 8, dtype=dtype), torch.randint(0, 4, (48,))


def agree(key: str, gpu: Estimate, cpu: Estimate) -> None:
    """The two devices' estimates of ``key`` agree as its kind allows (see the module docstring)."""
    a, b = gpu.value, cpu.value
    if gpu.interval is not None and cpu.interval is not None:  # Lanczos: each interval holds an eigenvalue
        ra, rb = (gpu.interval[1] - gpu.interval[0]) / 2, (cpu.interval[1] - cpu.interval[0]) / 2
        assert abs(a - b) <= ra + rb + 1e-9 * abs(b), (key, a, b)
    elif key.startswith("kappa"):  # a stochastic trace over the same probes, on a basis equal to rounding
        assert abs(a - b) <= 4 * math.hypot(gpu.se or 0.0, cpu.se or 0.0) + 1e-6 * abs(b), (key, a, b)
    elif key.startswith("zo_mse"):  # finite differences at radius lam of the same directions
        assert a == pytest.approx(b, rel=1e-6), key
    else:  # exact: per-sample norms, client gradients, f(x0)
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), key


@pytest.mark.skipif(NO_CUDA, reason="no CUDA device here")
@pytest.mark.cuda
def test_measure_every_group_on_cuda_matches_the_cpu() -> None:
    model, X, y = bn_cnn()
    kw = {"what": ALL_GROUPS, "clients": 3, "lam": 1e-3, "zo_reps": 4, "tol": 1e-6, "batch": 4, "chunk": 16}
    state = {k: v.clone() for k, v in model.state_dict().items()}
    gpu: Constants = measure(model, nn.CrossEntropyLoss(), (X, y), SPLIT, device="cuda", **kw)  # type: ignore[arg-type]
    cpu: Constants = measure(model, nn.CrossEntropyLoss(), (X, y), SPLIT, device="cpu", **kw)  # type: ignore[arg-type]
    assert gpu.meta["device"].startswith("cuda") and cpu.meta["device"] == "cpu"
    # the model is left where it was, as it was
    assert all(t.device.type == "cpu" and torch.equal(t, state[k]) for k, t in model.state_dict().items())
    g, c = dict(gpu.items()), dict(cpu.items())
    assert set(g) == set(c) and len(g) > 30
    assert {"L[client]", "L[server]", "kappa[client]", "sigma_c2", "L[clients]", "zo_mse[server]"} <= set(g)
    assert "hooks engine" in g["sigma2"].method  # the per-sample rules ran, batch norm's included
    for key in g:
        agree(key, g[key], c[key])


@pytest.mark.skipif(NO_CUDA, reason="no CUDA device here")
@pytest.mark.cuda
@pytest.mark.parametrize("engine", ["hooks", "vmap", "loop"])
def test_persample_engines_on_cuda_match_the_cpu(engine: str) -> None:
    model, X, y = bn_cnn()
    on = {d: Objective(model, nn.CrossEntropyLoss(), X, y, chunk=16, device=d) for d in ("cuda", "cpu")}
    ref = persample_norms(on["cpu"], center=on["cpu"].grad(), engine="loop")
    got = persample_norms(on["cuda"], center=on["cuda"].grad(), engine=engine)
    assert got.engine == engine
    for part in ref.raw:
        torch.testing.assert_close(got.raw[part], ref.raw[part], rtol=1e-9, atol=1e-12)
        torch.testing.assert_close(got.centred[part], ref.centred[part], rtol=1e-9, atol=1e-12)


@pytest.mark.skipif(NO_CUDA, reason="no CUDA device here")
@pytest.mark.cuda
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_both_products_on_cuda_match_the_cpu(dtype: torch.dtype) -> None:
    # float32 runs cuDNN's batch norm (float64 may not): its forward-mode and double-backward derivatives both
    model, X, y = bn_cnn(torch.float64)
    ref_obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=16, device="cpu", dtype=torch.float64)
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=16, device="cuda", dtype=dtype)
    gen = torch.Generator().manual_seed(1)
    v = {k: torch.randn(t.shape, generator=gen, dtype=torch.float64) for k, t in ref_obj.params0.items()}
    want = hessian_vector_product(ref_obj, ref_obj.params0, v)
    scale = max(float(t.abs().max()) for t in want.values())
    tol = 1e-10 if dtype == torch.float64 else 1e-4
    for product in (hessian_vector_product, forward_over_reverse_product):
        got = product(obj, obj.params0, v)  # v on the CPU in float64: placed on the objective's device and dtype
        for k in want:
            assert got[k].device.type == "cuda" and got[k].dtype == dtype
            torch.testing.assert_close(got[k].double().cpu(), want[k], rtol=0, atol=tol * scale)
    s = product_speeds(obj)
    assert all(0 < t < math.inf for t in (s.reverse, s.kept)) and s.device.startswith("cuda")
    assert s.forward < math.inf, s.why  # forward-over-reverse runs through cuDNN batch norm
    op = HessianOperator(obj, retain="auto")  # the measured method (kept graphs where they win and fit)
    flat = torch.cat([want[k].reshape(-1) for k in obj.names])
    got_op = op.mv(torch.cat([v[k].reshape(-1) for k in obj.names]))
    torch.testing.assert_close(got_op.double().cpu(), flat, rtol=0, atol=tol * scale)
