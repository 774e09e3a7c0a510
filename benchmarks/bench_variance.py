"""Exact per-sample gradient variance sigma^2 against one full-batch gradient, on the CPU in float32.

sigma^2 = (1/n) sum_i ||g_i - gbar||^2 with g_i the gradient of sample i's loss (issue 5). The baseline is
one gradient of the mean loss over the n samples (``Objective.grad``, 1.0). Target: the exact sigma^2 with
the hooks engine (``obj.grad`` for gbar, then ``persample_norms(center=gbar)``) within 3x of it. Compared:
the vmap engine and a per-sample loop (timed on a slice and scaled to n). The agreement with BackPACK (its
``Variance`` and ``BatchL2Grad``) is a test now,
``tests/verify/constants/test_persample.py::test_against_backpack``, skipped where BackPACK is not installed
(issue 11); the timings of BackPACK are in benchmarks/RESULTS.md (issue 5).

``--memory`` instead runs sigma^2 on a ~10^7-parameter model and reports the peak resident memory of the
process (run it on its own: the peak is the process's lifetime maximum).

Run: python benchmarks/bench_variance.py [--n 1024] [--repeat 3] [--threads N]
     python benchmarks/bench_variance.py --memory [--memory-model resnet18|mlp] [--n 256]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from collections.abc import Callable
from functools import partial

import torch
from torch import nn

from verify.constants.persample import persample_norms
from verify.models import zoo
from verify.ops.objective import Objective


def best_of(fn: Callable[[], object], k: int, budget: float = 2.0) -> float:
    """Best of at least k runs, more (up to 100) while they fit in ``budget`` seconds: fast paths get many tries."""
    fn()  # warm-up: allocator, oneDNN primitives
    ts: list[float] = []
    while len(ts) < k or (sum(ts) < budget and len(ts) < 100):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def build(name: str) -> nn.Module:
    if name == "cnn":
        return zoo.cnn()  # FedAvg CNN, 1x28x28, 1,663,370 parameters
    return zoo.mlp()  # 784-256-128-10, 235,146 parameters


def sigma2(obj: Objective, engine: str) -> float:
    gbar = obj.grad()
    res = persample_norms(obj, center=gbar, engine=engine)
    return float(res.centred["all"].mean())


def loop_sigma2(obj: Objective, gbar: dict[str, torch.Tensor], m: int) -> float:
    """The plain way: one autograd.grad per sample (the first m), against the mean gradient gbar."""
    p = {k: t.detach().requires_grad_() for k, t in obj.params0.items()}
    total = 0.0
    for i in range(m):
        g = torch.autograd.grad(obj.loss_sum(p, obj.X[i : i + 1], obj.y[i : i + 1]), list(p.values()))
        total += float(sum((a - gbar[k]).pow(2).sum() for a, k in zip(g, p, strict=True)))
    return total / m


def speed(a: argparse.Namespace) -> None:
    torch.manual_seed(0)
    X, y = torch.randn(a.n, 1, 28, 28), torch.randint(0, 10, (a.n,))
    print(
        f"Machine: {cpu_name()}, {os.cpu_count()} cores, torch.set_num_threads({torch.get_num_threads()}); "
        f"Python {platform.python_version()}, torch {torch.__version__}"
    )
    print(f"float32, n = {a.n}, chunk = {a.chunk}, best of >= {a.repeat} runs (more while they fit in 2 s)")
    for name in a.models:
        torch.manual_seed(1)  # the same weights whichever models run
        model = build(name)
        obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=a.chunk, device="cpu")
        d = obj.size()
        t_grad = best_of(obj.grad, a.repeat)
        rows: list[tuple[str, float, str]] = []
        s_hooks = sigma2(obj, "hooks")
        t_hooks = best_of(partial(sigma2, obj, "hooks"), a.repeat)
        rows.append(("exact sigma^2, hooks engine (`obj.grad` + `persample_norms`)", t_hooks, f"{s_hooks:.6g}"))
        s_vmap = sigma2(obj, "vmap")
        t_vmap = best_of(partial(sigma2, obj, "vmap"), max(1, a.repeat - 1))
        rows.append(("exact sigma^2, vmap engine", t_vmap, f"{s_vmap:.6g} (rel. diff {abs(s_vmap / s_hooks - 1):.1e})"))
        m = min(a.n, a.loop)
        gbar = obj.grad()
        t_loop = best_of(partial(loop_sigma2, obj, gbar, m), 1) * a.n / m + t_grad
        rows.append((f"`obj.grad` + per-sample loop (timed on {m} samples, scaled to n)", t_loop, ""))
        print(f"\n{name}: {d:,} parameters; one full-batch gradient {t_grad:.3f} s")
        print("\n| path | time (s) | / one gradient | sigma^2 |")
        print("|---|---|---|---|")
        print(f"| one full-batch gradient (`obj.grad`, baseline) | {t_grad:.3f} | 1.00 | |")
        for label, tt, val in rows:
            print(f"| {label} | {tt:.3f} | {tt / t_grad:.2f} | {val} |")


def memory(a: argparse.Namespace) -> None:
    torch.manual_seed(0)
    if a.memory_model == "resnet18":
        model, shape = zoo.resnet18(), (3, 32, 32)
    else:  # width-2200 MLP: 784*2200 + 2 * 2200^2 + 2200*10 + biases = 11.43M parameters
        model, shape = zoo.mlp(784, (2200, 2200, 2200), 10), (1, 28, 28)
    X, y = torch.randn(a.n, *shape), torch.randint(0, 10, (a.n,))
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=a.chunk, device="cpu")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    t = time.perf_counter()
    gbar = obj.grad()
    t_grad = time.perf_counter() - t
    after_grad = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    t = time.perf_counter()
    res = persample_norms(obj, center=gbar, engine="hooks")
    t_ps = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(
        f"Machine: {cpu_name()}, {os.cpu_count()} cores, threads {torch.get_num_threads()}, torch {torch.__version__}"
    )
    print(
        f"{a.memory_model}: {obj.size():,} parameters, n = {a.n}, chunk = {a.chunk}, engine {res.engine}; "
        f"sigma^2 = {float(res.centred['all'].mean()):.6g}"
    )
    print(f"obj.grad {t_grad:.2f} s, persample_norms {t_ps:.2f} s (one cold run each: orientation only)")
    print(
        f"peak RSS: {before:.2f} GiB after building the model and data, {after_grad:.2f} GiB after obj.grad, "
        f"{peak:.2f} GiB after persample_norms (n x d in float32 would be {a.n * obj.size() * 4 / 2**30:.1f} GiB)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=None, help="samples (default 1024; 256 with --memory)")
    ap.add_argument("--chunk", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--loop", type=int, default=64, help="samples the per-sample loop is timed on")
    ap.add_argument("--models", nargs="+", default=["cnn", "mlp"], choices=["cnn", "mlp"])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--memory", action="store_true", help="peak-memory check on a ~10^7-parameter model instead")
    ap.add_argument("--memory-model", default="resnet18", choices=["resnet18", "mlp"])
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.memory:
        a.n = a.n or 256
        memory(a)
    else:
        a.n = a.n or 1024
        speed(a)


if __name__ == "__main__":
    main()
