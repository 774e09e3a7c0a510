"""Every constant of ResNet-18 (``sfltheory measure``'s setting of issue 23) timed by group, and one Hessian-vector
product by each method.

Setting (issue 23): ``sfltheory measure --model resnet18 --data synthetic:n=2048,shape=3x32x32,classes=10 --cut
layer2.0 --clients 4``: the model and data built as the command line builds them
(:func:`verify.pipeline.measurement.model_and_data`), cross-entropy, float32, every group that needs no extra
option (``L``, ``L_min``, ``sigma2``, ``eps2``, ``kappa``, ``F``, ``gradnorm2_f``) plus ``L_clients``, on every
part (the whole model, client and server). Goal: all of it in <= 10 s on an H100/H200 after start-up.

What is printed, in this order (the shortest first, so that a run cut short by a time limit still has it): the
device; one product of the whole model's Hessian on ``--hvp-samples`` samples (default 1024, in chunks of 256 as
``measure`` runs them) by double backward and by forward-over-reverse (best of 3 after a warm-up), their ratio and
their largest difference relative to the largest entry, and the speeds ``verify.ops.hvp.product_speeds`` measures
on one chunk to pick the method; then each step of the measurement as it ends, the wall time of each group (from
``measure``'s progress callback: a group's time runs from the previous step's end to its own steps' ends, so
``eps2``, exact and a few milliseconds, is counted with the first Lanczos view) and the total, and the number of
Hessian-vector products by use. Start-up (CUDA context, kernels, allocator, torch's forward-mode decompositions) is
a gradient, the per-sample norms and the three product paths on 256 samples before anything is timed; the
measurement itself includes ``product_speeds``' one-chunk timing on its own model, as a user's run does.

``--small``: n = 256 samples of 3x16x16 and a small residual network (conv-BN stem, two BasicBlocks 8 and 16 wide,
5,266 parameters, cut after the first block), 256 samples for the product: a run in about half a minute on a
2-core CPU (with ``--threads 1`` where the machine is shared).
``--engines``: instead, per-sample gradient norms (``sigma2``'s engine) by the hooks and the vmap engine on the
CPU, on the small residual network (conv + batch norm, 512 samples), ResNet-18 (32 samples) and an MLP
(784-256-128-10, 512 samples), best of 3.

Run: python benchmarks/bench_measure.py [--device cpu|cuda] [--small] [--hvp-samples N] [--what L,sigma2,...]
     [--threads N];  python benchmarks/bench_measure.py --engines [--threads N]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import nn

from verify.constants.measure import measure
from verify.constants.persample import persample_norms
from verify.measurespec import MeasureSpec
from verify.models import zoo
from verify.models.zoo import BasicBlock
from verify.ops.hvp import forward_over_reverse_product, hessian_vector_product, product_speeds
from verify.ops.objective import Objective
from verify.pipeline.measurement import model_and_data
from verify.problems.build import loss_for

WHAT = ["L", "L_min", "sigma2", "eps2", "kappa", "F", "gradnorm2_f", "L_clients"]
# measure's progress steps -> the group they belong to
SMALL_PARAMS = 5266  # small_resnet()'s parameters
GROUP_OF = {
    "gradients": "client gradients, gradnorm2_f",
    "per-sample gradients": "sigma2, G2 (per-sample norms)",
    "Lanczos": "L, L_min (Lanczos, every part)",
    "trace": "kappa (deflated traces)",
    "L per client": "L_clients",
    "F": "F",
}


def small_resnet() -> nn.Module:
    """Conv-BN-ReLU stem and two residual blocks (8 and 16 channels), average pooling, a linear head."""
    stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    return nn.Sequential(OrderedDict(stem=stem, layer1=BasicBlock(8, 8), layer2=BasicBlock(8, 16, stride=2), head=head))


def device_name(device: str) -> str:
    if device.startswith("cuda"):
        return f"{torch.cuda.get_device_name(torch.device(device))} (CUDA {torch.version.cuda})"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        cpu = ""
    cpu = cpu or platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads"


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def problem(n: int, small: bool, seed: int = 0) -> tuple[nn.Module, Any, nn.Module, str]:
    """The model, data, loss and cut, as ``sfltheory measure`` builds them (the small network by hand)."""
    side = 16 if small else 32
    spec = MeasureSpec(model="resnet18", data=f"synthetic:n={n},shape=3x{side}x{side},classes=10", cut="layer2.0",
                       seed=seed)  # fmt: skip
    model, ds = model_and_data(spec)
    if small:
        torch.manual_seed(seed)
        model = small_resnet()
    return model, ds, loss_for("auto", ds.y), "layer1" if small else "layer2.0"


def warm_up(small: bool, device: str) -> None:
    """Start-up on 256 samples (one chunk of the measurement's shape): the CUDA context, the kernels and allocator of
    a gradient, the per-sample norms and all three product paths, torch's forward-mode decompositions."""
    model, ds, loss, _ = problem(256, small)
    obj = Objective(model, loss, ds.X, ds.y, device=device)
    persample_norms(obj, center=obj.grad())
    product_speeds(obj)
    sync(device)


def timed_measure(n: int, small: bool, device: str, what: list[str]) -> tuple[dict[str, float], float, Any]:
    """``measure`` of ``what``, with the time of each group from the progress callback; each step is printed as it
    ends (so that a run cut short by a time limit still shows how far it got)."""
    model, ds, loss, cut = problem(n, small)
    marks: list[tuple[float, str]] = []

    def step(name: str) -> None:
        if not name.startswith("est."):
            sync(device)
            marks.append((time.perf_counter(), name))
            print(f"  {marks[-1][0] - t0:8.2f} s  {name}", flush=True)

    sync(device)
    t0 = time.perf_counter()
    c = measure(model, loss, ds, cut, what, clients=4, device=device, progress=step)
    sync(device)
    total = time.perf_counter() - t0
    groups: dict[str, float] = {}
    last = t0
    for t, name in marks:
        key = next((g for k, g in GROUP_OF.items() if name.startswith(k)), name)
        groups[key] = groups.get(key, 0.0) + t - last
        last = t
    groups["rest (setup, records)"] = total - (last - t0)
    return groups, total, c


def product_counts(c: Any) -> str:
    """The Hessian-vector products the measurement made, from its estimates' ``probes``."""
    items = dict(c.items())
    lanczos = traces = 0
    for view in ("", "client", "server"):
        top = items.get(f"L[{view}]" if view else "L") or items.get(f"L[min,{view}]" if view else "L[min]")
        runs = top.probes if top is not None and top.probes else 0
        lanczos += runs
        kappa = items.get(f"kappa[{view}]" if view else "kappa")
        traces += (kappa.probes or 0) - runs if kappa is not None else 0
    per_client = items["L[clients]"].probes if "L[clients]" in items else 0
    return f"{lanczos} in Lanczos runs, {traces} for traces, {per_client} per-client (each on its client's samples)"


def best_of(f: Callable[[], object], device: str, k: int = 3) -> float:
    f()  # warm-up
    ts = []
    for _ in range(k):
        sync(device)
        t = time.perf_counter()
        f()
        sync(device)
        ts.append(time.perf_counter() - t)
    return min(ts)


def hvp_timing(samples: int, small: bool, device: str) -> None:
    model, ds, loss, _ = problem(samples, small)
    obj = Objective(model, loss, ds.X, ds.y, device=device)
    gen = torch.Generator().manual_seed(0)
    v = {k: torch.randn(t.shape, generator=gen).to(obj.device, obj.dtype) for k, t in obj.params0.items()}
    a = hessian_vector_product(obj, obj.params0, v)
    b = forward_over_reverse_product(obj, obj.params0, v)
    t_rev = best_of(partial(hessian_vector_product, obj, obj.params0, v), device)
    t_fwd = best_of(partial(forward_over_reverse_product, obj, obj.params0, v), device)
    scale = max(float(t.abs().max()) for t in a.values())
    diff = max(float((a[k] - b[k]).abs().max()) for k in a)
    print(f"\nOne Hessian-vector product of the whole model ({obj.size():,} parameters) on {samples} samples, "
          f"chunks of {obj.chunk}, float32, best of 3 after a warm-up:")  # fmt: skip
    print(f"  double backward {t_rev:.3f} s, forward-over-reverse {t_fwd:.3f} s: ratio {t_rev / t_fwd:.2f} (> 1: "
          f"forward-over-reverse faster); max |difference| {diff:.2e} = {diff / scale:.1e} of the largest "
          "entry")  # fmt: skip
    s = product_speeds(obj)
    failed = f"; forward failed: {s.why}" if s.why else ""
    print(f"  product_speeds (one chunk of {s.samples}): double backward {s.reverse:.3f} s, kept graph "
          f"{s.kept:.3f} s, forward-over-reverse {s.forward:.3f} s -> measure takes {s.choice('auto')!r} with kept "
          f"graphs where they fit in 2 GiB, else {s.choice(False)!r}{failed}")  # fmt: skip


def engines() -> None:
    """sigma2's per-sample norms by the hooks and the vmap engine, on the CPU (issue 23 part 5)."""
    print(f"Machine: {device_name('cpu')}; torch {torch.__version__}; float32, per-sample norms centred at the mean "
          "gradient, best of 3 after a warm-up")  # fmt: skip
    cases: list[tuple[str, Callable[[], nn.Module], tuple[int, ...], int]] = [
        (f"small residual network, conv + BatchNorm ({SMALL_PARAMS:,})", small_resnet, (3, 16, 16), 512),
        ("ResNet-18, conv + BatchNorm (11,173,962)", zoo.resnet18, (3, 32, 32), 32),
        ("MLP 784-256-128-10 (235,146)", zoo.mlp, (1, 28, 28), 512),
    ]
    print("\n| model (parameters) | n | one gradient (s) | hooks engine (s) | vmap engine (s) | vmap / hooks | auto |")
    print("|---|---|---|---|---|---|---|")
    for label, make, shape, n in cases:
        torch.manual_seed(0)
        X, y = torch.randn(n, *shape), torch.randint(0, 10, (n,))
        obj = Objective(make(), nn.CrossEntropyLoss(), X, y, device="cpu")
        g = obj.grad()
        t_grad = best_of(obj.grad, "cpu")
        t = {e: best_of(partial(persample_norms, obj, center=g, engine=e), "cpu") for e in ("hooks", "vmap")}
        auto = persample_norms(obj, center=g).engine
        print(f"| {label} | {n} | {t_grad:.3f} | {t['hooks']:.3f} | {t['vmap']:.3f} | {t['vmap'] / t['hooks']:.1f} |"
              f" {auto} |")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--small", action="store_true", help="n = 256 and a small residual network (a CPU run)")
    ap.add_argument("--hvp-samples", type=int, default=None, help="samples of the timed product (default 1024)")
    ap.add_argument("--engines", action="store_true", help="per-sample engines, hooks against vmap, on the CPU")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--what", default="", help=f"comma list of groups (default {','.join(WHAT)})")
    a = ap.parse_args()
    if a.threads:  # on a shared 2-core CPU one thread avoids OpenMP contention with other jobs
        torch.set_num_threads(a.threads)
    if a.engines:
        engines()
        return
    n = 256 if a.small else 2048
    what = a.what.split(",") if a.what else WHAT
    print(f"Device: {a.device}: {device_name(a.device)}; torch {torch.__version__}, Python {platform.python_version()}")
    warm_up(a.small, a.device)
    # the product first: the figure that decides the method, and the shortest
    hvp_timing(a.hvp_samples or (256 if a.small else 1024), a.small, a.device)
    label = f"small residual network ({SMALL_PARAMS:,} parameters), 3x16x16" if a.small else "ResNet-18, 3x32x32"
    print(f"\nmeasure: {label}, cut {'layer1' if a.small else 'layer2.0'}, synthetic data, 10 classes, n = {n}, "
          f"4 clients, float32, what = {what}; steps as they end:")  # fmt: skip
    groups, total, c = timed_measure(n, a.small, a.device, what)
    print("\n| group | wall time (s) |\n|---|---|")
    for g, t in groups.items():
        print(f"| {g} | {t:.2f} |")
    print(f"| **total** | **{total:.2f}** |")
    print(f"Hessian-vector products: {product_counts(c)}")
    if c.L is not None:
        print(f"L = {c.L.value:.4g}: {c.L.method}")


if __name__ == "__main__":
    main()
