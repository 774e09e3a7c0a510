"""Top Hessian eigenvalue of a small CNN: thick-restart Lanczos (``verify.constants.lanczos.lanczos``) against
PyHessian.

Target: lambda_max within 1e-3 relative of a tight reference in at most 0.5x PyHessian's time. PyHessian (Yao,
Gholami, Keutzer, Mahoney, "PyHessian: Neural Networks Through the Lens of the Hessian", IEEE BigData 2020;
amirgholami/PyHessian, PyPI ``pyhessian`` 0.1, ``pip install --no-deps pyhessian``) finds lambda_max by power
iteration, stopping when the relative change of the Rayleigh quotient is below ``tol`` (default 1e-3, at most 100
iterations), each product a double backward through the graph of one batch that it keeps (``create_graph``). If
the package cannot be imported, the same algorithm is run from this file, labelled "PyHessian algorithm
(re-implemented)". The cross-check of the values (ours, PyHessian's and ``torch.func.hessian`` + eigvalsh on a
small model) is a test: ``tests/verify/constants/test_curvature.py::test_cross_library_pyhessian``.

Setting: ``verify.models`` "cnn" (FedAvg CNN, 1,663,370 parameters), 1x28x28 inputs built from 10 smooth class
templates plus noise, one batch of ``--batch`` samples, CPU, float32, mean cross-entropy, at initialisation. The
reference lambda_max is ours at tol 1e-7 of ||H||. Each method runs once per seed (the start vector),
interleaved, and times are medians over seeds; every time includes building the kept graph. Ours: ``lanczos``
with a convergence test after every product (estimated eigenvalue error and the change over the last product
both below ``tol`` x ||H||), on kept first-order graphs (``retain=True``, as PyHessian) or rebuilding them per
product (the default when they do not fit in memory: by double backward or forward-over-reverse, whichever
``verify.ops.hvp.product_speeds`` measured faster on one chunk).

Run: python benchmarks/bench_curvature.py [--batch 512] [--seeds 3] [--threads N]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from verify.constants.lanczos import lanczos
from verify.models.zoo import cnn
from verify.ops.hvp import HessianOperator
from verify.ops.objective import Objective


def data(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    templates = nn.functional.interpolate(torch.randn(10, 1, 7, 7, generator=g), size=28, mode="bilinear")
    y = torch.randint(0, 10, (n,), generator=g)
    return templates[y] + 0.5 * torch.randn(n, 1, 28, 28, generator=g), y


# ---- PyHessian ---------------------------------------------------------------------------------------------------


def load_pyhessian() -> tuple[Any, str]:
    """PyHessian's ``hessian`` class and a label, or (None, why not)."""
    try:
        from pyhessian import hessian

        meta: Any = importlib.metadata.metadata("pyhessian")
        home = meta.get("Home-page") or ""
    except Exception as e:  # any import failure means: use the re-implementation
        return None, f"pyhessian not importable ({type(e).__name__}: {e})"
    if "amirgholami/PyHessian" not in home or not hasattr(hessian, "eigenvalues"):
        return None, f"pyhessian {meta.get('Version')} is not amirgholami/PyHessian (home page {home!r})"
    return hessian, f"PyHessian {meta.get('Version')} ({home.replace('https://https://', 'https://')})"


def run_pyhessian(hessian: Any, model: nn.Module, X: torch.Tensor, y: torch.Tensor, tol: float) -> tuple[float, int]:
    """PyHessian's ``eigenvalues(maxIter=100, tol)``, counting its Hessian-vector products."""
    mod: Any = sys.modules["pyhessian.hessian"]
    orig = mod.hessian_vector_product
    count = 0

    def counted(*a: Any, **k: Any) -> Any:
        nonlocal count
        count += 1
        return orig(*a, **k)

    mod.hessian_vector_product = counted
    try:
        h = hessian(model, nn.CrossEntropyLoss(), data=(X, y), cuda=False)
        vals, _ = h.eigenvalues(maxIter=100, tol=tol)
    finally:
        mod.hessian_vector_product = orig
        model.zero_grad(set_to_none=True)  # PyHessian leaves create_graph gradients in .grad (a reference cycle)
    return float(vals[0]), count


def power_iteration(model: nn.Module, X: torch.Tensor, y: torch.Tensor, tol: float) -> tuple[float, int]:
    """PyHessian's algorithm (``hessian.eigenvalues``, top_n=1) re-implemented: power iteration on the mean-loss
    Hessian of one batch, double backward through a kept graph, stop at relative change < tol or 100 products."""
    model.eval()
    params = [p for p in model.parameters() if p.requires_grad]
    grads = torch.autograd.grad(nn.functional.cross_entropy(model(X), y), params, create_graph=True)
    v = [torch.randn_like(p) for p in params]
    s = float(sum((t * t).sum() for t in v)) ** 0.5
    v = [t / (s + 1e-6) for t in v]
    eig: float | None = None
    for i in range(100):
        hv = torch.autograd.grad(grads, params, grad_outputs=v, retain_graph=True)
        new = float(sum((a * b).sum() for a, b in zip(hv, v, strict=True)))
        s = float(sum((t * t).sum() for t in hv)) ** 0.5
        v = [t / (s + 1e-6) for t in hv]
        if eig is not None and abs(eig - new) / (abs(eig) + 1e-6) < tol:
            return new, i + 1
        eig = new
    assert eig is not None
    return eig, 100


# ---- timing ------------------------------------------------------------------------------------------------------


def timed(f: Callable[[], tuple[float, int]]) -> tuple[float, int, float]:
    t = time.perf_counter()
    val, count = f()
    return val, count, time.perf_counter() - t


def per_product(f: Callable[[], object], k: int = 3) -> float:
    f()
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--chunk", type=int, default=128, help="Objective chunk")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-3, help="our Lanczos tolerance (of ||H||)")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)

    torch.manual_seed(0)
    model = cnn()
    X, y = data(a.batch, 1)
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=a.chunk, device="cpu")
    hessian, label = load_pyhessian()
    base_label = label if hessian is not None else "PyHessian algorithm (re-implemented)"

    t = time.perf_counter()
    ref = lanczos(obj, tol=1e-7, ncv=30, maxiter=1000, retain=True, which=("largest",)).top
    t_ref = time.perf_counter() - t

    def rel(v: float) -> float:
        return abs(v - ref.value) / abs(ref.value)

    def ours(
        tol: float, retain: bool, seed: int, ends: tuple[str, ...] = ("largest",)
    ) -> Callable[[], tuple[float, int]]:
        def f() -> tuple[float, int]:
            s = lanczos(obj, tol=tol, seed=seed, retain=retain, which=ends)
            return s.top.value, s.matvecs

        return f

    def base(tol: float, seed: int) -> Callable[[], tuple[float, int]]:
        def f() -> tuple[float, int]:
            torch.manual_seed(seed)
            if hessian is not None:
                return run_pyhessian(hessian, model, X, y, tol)
            return power_iteration(model, X, y, tol)

        return f

    rows: dict[str, list[tuple[float, int, float]]] = {}
    configs: list[tuple[str, Callable[[int], Callable[[], tuple[float, int]]]]] = [
        (f"{base_label}, tol 1e-3", lambda s: base(1e-3, s)),
        (f"ours, Lanczos tol {a.tol:g}, retain=True", lambda s: ours(a.tol, True, s)),
        (f"ours, Lanczos tol {a.tol:g}, no kept graph (the measured faster product)", lambda s: ours(a.tol, False, s)),
        (
            f"ours, Lanczos tol {a.tol:g}, lambda_max and lambda_min in one run, retain=True",
            lambda s: ours(a.tol, True, s, ("largest", "smallest")),
        ),
        ("ours, Lanczos tol 1e-4, retain=True", lambda s: ours(1e-4, True, s)),
        (f"{base_label}, tol 1e-4", lambda s: base(1e-4, s)),
    ]
    for seed in range(a.seeds):  # interleaved, so that drifts in machine load hit every method alike
        for name, make in configs:
            rows.setdefault(name, []).append(timed(make(seed)))

    # cost of one product, each path (min of 3)
    v = torch.randn(obj.size())
    t_hvp = per_product(lambda: HessianOperator(obj, method="reverse").mv(v))
    t_fwd = per_product(lambda: HessianOperator(obj, method="forward").mv(v))
    kept = HessianOperator(obj, retain=True)
    t_kept = per_product(lambda: kept.mv(v))
    params = [p for p in model.parameters()]
    grads = torch.autograd.grad(nn.functional.cross_entropy(model.eval()(X), y), params, create_graph=True)
    w = [torch.randn_like(p) for p in params]
    t_pyh = per_product(lambda: torch.autograd.grad(grads, params, grad_outputs=w, retain_graph=True))

    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    print(f"Machine: {cpu}, {torch.get_num_threads()} torch threads; Python {platform.python_version()}, ", end="")
    print(f"torch {torch.__version__}, NumPy {np.__version__}")
    print(f"baseline: {label}")
    print(f"model cnn ({obj.size():,} parameters), batch {a.batch}, float32, CPU; seeds 0..{a.seeds - 1}")
    print(
        f"reference lambda_max = {ref.value:.7g} (residual {ref.residual:.2g}, {ref.matvecs} products, {t_ref:.1f} s)"
    )
    print(
        f"one product: double backward rebuilding the graph (chunk {a.chunk}) {t_hvp:.3f} s, forward-over-reverse "
        f"{t_fwd:.3f} s, kept graph {t_kept:.3f} s, PyHessian's double backward {t_pyh:.3f} s"
    )
    print()
    t_base = statistics.median(r[2] for r in rows[configs[0][0]])
    n_base = statistics.median(r[1] for r in rows[configs[0][0]])
    print(
        "| method | products (per seed) | time, s (per seed) | max rel. error "
        "| time / baseline (medians) | products / baseline (medians) |"
    )
    print("|---|---|---|---|---|---|")
    for name, _ in configs:
        rs = rows[name]
        tm = statistics.median(r[2] for r in rs)
        nm = statistics.median(r[1] for r in rs)
        counts = ", ".join(str(r[1]) for r in rs)
        times = ", ".join(f"{r[2]:.1f}" for r in rs)
        err = max(rel(r[0]) for r in rs)
        print(f"| {name} | {counts} | {times} | {err:.1e} | {tm / t_base:.2f} | {nm / n_base:.2f} |")
    head = rows[configs[1][0]]
    err = max(rel(r[0]) for r in head)
    ratio = statistics.median(r[2] for r in head) / t_base
    print(
        f"\n{configs[1][0]}: within 1e-3 of the reference: {'yes' if err <= 1e-3 else 'NO'} (max {err:.1e}); "
        f"time / baseline {ratio:.2f} (target <= 0.5: {'met' if ratio <= 0.5 else f'missed by {ratio / 0.5:.2f}x'})"
    )


if __name__ == "__main__":
    main()
