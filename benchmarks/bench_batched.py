"""Batched clients against a bare PyTorch per-client loop, on the models issue 23 names (issue 23, part 3).

* **FedAvg CNN on 3x32x32** (the zoo's ``cnn`` sized to CIFAR: 2,156,490 parameters), cut after ``conv2``, K = 2
  local steps of batch 32, 64 samples a client: one FedAvg round with the clients vmapped (``verify.train``,
  batched) against a bare PyTorch loop over the clients with **one resident model** (the global weights copied
  in, K SGD steps with ``torch.autograd.grad``, the result summed), on the same mini-batches. Targets: >= 20x at
  M = 100 on an H100/H200, >= 3x on the 2-core CPU (with a smaller model there, ``--small``).
* **pfl-research-like workload**: a CIFAR-10 CNN (conv 3->32 and 32->64, 3x3, max-pool, dense 12544->128->10,
  1,625,866 parameters), 50 clients a round, 5 local steps of batch 32. Target: >= 12x.
* **Memory**: the peak GPU memory of the batched round at M = 1000 of the FedAvg CNN, with the client axis in
  chunks chosen from free memory under the 24 GiB budget (``verify.ops.clients``). Target: <= 24 GiB.

Also timed: the trainer's own per-client loop (``--loop``) and, with ``--tf32``, the batched round with TF32
matrix products (float32 stays the default). ``--graphs`` instead times the vmapped local update alone on fixed
inputs, eager and replayed as one captured CUDA graph (on the H200: 34.7 ms eager, 33.4 ms replayed at M = 100:
the round is bound by the GPU's work, not by launching it).

Run: python benchmarks/bench_batched.py [--device cpu|cuda] [--small] [--repeat 3] [--big] [--graphs]
"""

from __future__ import annotations

import argparse
import copy
import math
import platform
import time
from collections.abc import Callable

import torch
from bench_train import small_cnn  # benchmarks/ is on sys.path when a script in it runs
from torch import nn
from torch.func import vmap

from verify.data import partition, synthetic_classification
from verify.ops.batch import Batch
from verify.ops.clients import chosen_chunk
from verify.ops.tree import Params
from verify.problems import ModelProblem
from verify.train import get
from verify.train.algorithms.sl_noniid import local_sgd
from verify.train.base import Context, Counters


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def best_of(fn: Callable[[], object], k: int, device: str) -> float:
    fn()  # warm-up (and the chunk probe)
    sync(device)
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        sync(device)
        ts.append(time.perf_counter() - t)
    return min(ts)


def fedavg_cnn(shape: tuple[int, int, int]) -> nn.Module:
    """The FedAvg CNN (McMahan et al. 2017) as the zoo sizes it: 5x5 convolutions 32 and 64 with 2x2 pooling, a
    512-unit dense layer; on 3x32x32, 2,156,490 parameters."""
    c, h, w = shape
    return nn.Sequential(
        nn.Conv2d(c, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (h // 4) * (w // 4), 512), nn.ReLU(), nn.Linear(512, 10),
    )  # fmt: skip


def pfl_cnn() -> nn.Module:
    """A CIFAR-10 CNN of the size pfl-research's benchmarks train (two 3x3 convolutions, one pooling, two dense)."""
    return nn.Sequential(
        nn.Conv2d(3, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 14 * 14, 128), nn.ReLU(), nn.Linear(128, 10),
    )  # fmt: skip


def build(make: Callable[[], nn.Module], shape: tuple[int, ...], M: int, per_client: int, cut: str, device: str
          ) -> tuple[nn.Module, ModelProblem]:  # fmt: skip
    """The model as built (plain torch layers, for the bare loop) and the problem on a copy of it."""
    ds = synthetic_classification(M * per_client, shape, 10, seed=0)
    torch.manual_seed(0)
    model = make()
    idx = partition(ds.y, M, "iid", seed=0)
    prob = ModelProblem.at_cut(copy.deepcopy(model), cut, nn.CrossEntropyLoss(), ds.X, ds.y, idx, aux=False,
                               device=device)  # fmt: skip
    return model, prob


def ours(prob: ModelProblem, batched: bool, K: int, batch: int, eta: float = 0.05) -> Callable[[], object]:
    algo = get("fedavg")(eta_l=eta, K=K)
    state = algo.init_state(prob, prob.init())

    def go() -> object:
        ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=batched, counters=Counters())
        return algo.round(0, state, ctx)

    return go


def bare(model: nn.Module, prob: ModelProblem, K: int, batch: int, eta: float = 0.05) -> Callable[[], object]:
    """FedAvg in plain PyTorch with one resident model: for each client, the global weights copied in, K SGD
    steps, the end weights summed; then the average. Same mini-batches as the trainer (``ctx.batch``)."""
    dev = prob.device
    net = nn.Sequential(*[m for m in model.children()]).to(dev)
    glob = [p.detach().clone() for p in net.parameters()]
    params: list[torch.Tensor] = list(net.parameters())  # the optimisers' fused in-place update below

    def go() -> object:
        ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=False)
        acc = [torch.zeros_like(g) for g in glob]
        for m in range(prob.M):
            with torch.no_grad():
                for p, g in zip(params, glob, strict=True):
                    p.copy_(g)
            for k in range(K):
                b = ctx.batch(m, k)
                loss = nn.functional.cross_entropy(net(b.x), b.y)
                gs = torch.autograd.grad(loss, params)
                with torch.no_grad():
                    torch._foreach_add_(params, gs, alpha=-eta)
            with torch.no_grad():
                torch._foreach_add_(acc, params)
        with torch.no_grad():
            for g, a in zip(glob, acc, strict=True):
                g.copy_(a / prob.M)
        return None

    return go


def peak(fn: Callable[[], object], device: str) -> float:
    """Peak GPU memory of one call, in GiB (0 on the CPU, where PyTorch does not see it)."""
    if not device.startswith("cuda"):
        return 0.0
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() / 2**30


def row(label: str, make: Callable[[], nn.Module], shape: tuple[int, ...], cut: str, M: int, K: int, per: int,
        batch: int, a: argparse.Namespace) -> None:  # fmt: skip
    model, prob = build(make, shape, M, per, cut, a.device)
    b = best_of(bare(model, prob, K, batch), a.repeat, a.device)
    loop = best_of(ours(prob, False, K, batch), a.repeat, a.device) if M <= 100 else float("nan")
    fn = ours(prob, True, K, batch)
    vm = best_of(fn, a.repeat, a.device)
    mem = peak(fn, a.device)
    chunk = chosen_chunk(prob, "fedavg")
    print(f"| {label} | {M} | {b * 1e3:.1f} | {loop * 1e3:.1f} | {vm * 1e3:.1f} | **{b / vm:.2f}** | "
          f"{mem:.2f} | {chunk} |", flush=True)  # fmt: skip
    if a.tf32 and a.device.startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = True
        tf = best_of(fn, a.repeat, a.device)
        torch.backends.cuda.matmul.allow_tf32 = False
        print(f"| {label}, TF32 matmul | {M} | {b * 1e3:.1f} | | {tf * 1e3:.1f} | **{b / tf:.2f}** | | |",
              flush=True)  # fmt: skip
        # cuDNN's autotuner picks the convolution algorithm per shape (the grouped convolutions vmap makes)
        torch.backends.cudnn.benchmark = True
        bb = best_of(bare(model, prob, K, batch), a.repeat, a.device)
        cb = best_of(fn, a.repeat, a.device)
        torch.backends.cudnn.benchmark = False
        print(f"| {label}, cudnn.benchmark (both) | {M} | {bb * 1e3:.1f} | | {cb * 1e3:.1f} | **{bb / cb:.2f}** "
              "| | |", flush=True)  # fmt: skip
    if a.profile and a.device.startswith("cuda") and M == 100:
        from torch.profiler import ProfilerActivity, profile  # only for --profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn()
            sync(a.device)
        print(f"\nwhere the batched round's time goes ({label}, M = {M}): top kernels by CUDA time")
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=60))


def update(prob: ModelProblem, K: int, batch: int, eta: float = 0.05, variant: str = "fp32") -> Callable[[], object]:
    """Every client's K FedAvg steps vmapped (the end models summed) on fixed inputs: ``variant`` ``"fp32"``
    (the trainer's), ``"bf16"`` (under ``torch.autocast`` to bfloat16), ``"channels_last"`` (the inputs in that
    memory format) or ``"compile"`` (``torch.compile`` of the whole update)."""
    ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=True)
    b = ctx.batch_grid(list(range(prob.M)), K)
    start = prob.init()
    x_c, x_s = start["client"], start["server"]
    X = b.x
    if variant == "channels_last":  # each client's (K, B, C, H, W) block stored channels-last
        X = torch.stack([xi.contiguous(memory_format=torch.channels_last_3d) for xi in X])

    def fn() -> tuple[Params, Params]:
        with torch.autocast(prob.device.type, dtype=torch.bfloat16, enabled=variant == "bf16"):
            pcs, pss, _ = vmap(lambda x, y, w: local_sgd(prob, x_c, x_s, Batch(x, y, w), eta),
                               randomness="different")(X, b.y, b.w)  # fmt: skip
        return {k: v.sum(0) for k, v in pcs.items()}, {k: v.sum(0) for k, v in pss.items()}

    return torch.compile(fn) if variant == "compile" else fn


def graphed(fn: Callable[[], object], a: argparse.Namespace) -> tuple[float, float]:
    """``fn`` eager and replayed as one captured CUDA graph (``torch.cuda.graph``): what it costs without the
    per-operation CPU work of launching it (a profiled round on the H200 took 62 ms of CPU time for 48 ms of CUDA
    time at M = 100). Returns (eager, replay) seconds, best of ``a.repeat``; replay is NaN on the CPU."""
    eager = best_of(fn, a.repeat, a.device)
    if not a.device.startswith("cuda"):
        return eager, float("nan")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the default stream, as capture requires
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return eager, best_of(graph.replay, a.repeat, a.device)


def graphs_table(M_fedavg: int, a: argparse.Namespace) -> None:
    """``--graphs``: the bare loop, and the vmapped update eager and replayed as a CUDA graph; with ``--variants``
    also bf16 autocast, channels-last inputs and ``torch.compile`` (eager only)."""
    print("\n| workload | M | variant | bare loop (ms) | vmapped update, eager (ms) | CUDA graph replay (ms) | "
          "bare / eager | bare / replay |\n|---|---|---|---|---|---|---|---|")  # fmt: skip
    for label, make, cut, M, K, per in (
        ("FedAvg CNN 3x32x32, K=2, B=32", lambda: fedavg_cnn((3, 32, 32)), "3", M_fedavg, 2, 64),
        ("pfl CIFAR-10 CNN, K=5, B=32", pfl_cnn, "2", a.pfl_clients, 5, 160),
    ):
        model, prob = build(make, (3, 32, 32), M, per, cut, a.device)
        bare_t = best_of(bare(model, prob, K, 32), a.repeat, a.device)
        for variant in ("fp32", *(("bf16", "channels_last", "compile") if a.variants else ())):
            t0 = time.perf_counter()
            try:
                fn = update(prob, K, 32, variant=variant)
                eager, replay = graphed(fn, a) if variant == "fp32" else (best_of(fn, a.repeat, a.device), math.nan)
            except Exception as e:  # a variant that fails says why, and the other rows still run
                print(f"| {label} | {M} | {variant} | failed: {type(e).__name__}: {str(e).splitlines()[0][:120]} |",
                      flush=True)  # fmt: skip
                continue
            note = f" (first call {time.perf_counter() - t0:.0f} s)" if variant == "compile" else ""
            print(f"| {label} | {M} | {variant}{note} | {bare_t * 1e3:.1f} | {eager * 1e3:.1f} | {replay * 1e3:.1f} | "
                  f"{bare_t / eager:.2f} | **{bare_t / replay:.2f}** |", flush=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--small", action="store_true", help="the 15.9k-parameter CNN only (the CPU target)")
    ap.add_argument("--big", action="store_true", help="also M = 1000 (memory)")
    ap.add_argument("--tf32", action="store_true", help="also TF32 matmuls and cudnn.benchmark (CUDA)")
    ap.add_argument("--profile", action="store_true", help="the top CUDA kernels of the batched round at M = 100")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clients", default="10,100", help="M of the FedAvg CNN rows (a quick check: --clients 4)")
    ap.add_argument("--pfl-clients", type=int, default=50)
    ap.add_argument("--graphs", action="store_true", help="only: the vmapped local update eager and as a CUDA graph")
    ap.add_argument("--variants", action="store_true", help="with --graphs: also bf16, channels-last, torch.compile")
    a = ap.parse_args()
    sizes = [int(m) for m in a.clients.split(",")]
    name = torch.cuda.get_device_name() if a.device.startswith("cuda") else platform.processor() or platform.machine()
    print(f"device {a.device} ({name}), torch {torch.__version__}, threads {torch.get_num_threads()}")
    if a.graphs:
        graphs_table(sizes[-1], a)
        return
    print("\n| workload | M | bare loop (ms) | trainer loop (ms) | batched (ms) | bare / batched | peak GiB | chunk |")
    print("|---|---|---|---|---|---|---|---|")
    if a.small:
        for M in sizes:
            row("small CNN 1x8x8, K=2, B=8", small_cnn, (1, 8, 8), "3", M, 2, 16, 8, a)
        return
    for M in sizes:
        row("FedAvg CNN 3x32x32, K=2, B=32", lambda: fedavg_cnn((3, 32, 32)), (3, 32, 32), "3", M, 2, 64, 32, a)
    row("pfl CIFAR-10 CNN, K=5, B=32", pfl_cnn, (3, 32, 32), "2", a.pfl_clients, 5, 160, 32, a)
    if a.big:
        row("FedAvg CNN 3x32x32, K=2, B=32", lambda: fedavg_cnn((3, 32, 32)), (3, 32, 32), "3", 1000, 2, 64, 32, a)


if __name__ == "__main__":
    main()
