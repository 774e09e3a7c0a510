"""The trainer against a bare PyTorch loop, the batched clients against the per-client loop, and the cost of
recording ||grad f||^2 every round (issue 10).

* **Overhead**: FedAvg rounds through ``verify.train.run`` (per-client reference path, records every round
  excluded: the time of ``algorithm.round`` plus the loop's context, sampling and counters) against a bare
  PyTorch loop doing the same updates on the same mini-batches (``nn.Module`` copies, ``autograd.grad``,
  in-place SGD, averaging). Target: at most 1.10.
* **Batched clients**: one FedAvg round with the clients vmapped (``torch.func``) against the per-client
  loop, at M = 10, 100 (and 1000 with ``--big``), on a 13.7k-parameter CNN. Target: >= 3x at M = 100 on a CPU,
  >= 20x on a GPU.
* **Recording**: one full-objective gradient (the whole training set) relative to one round.

Run: python benchmarks/bench_train.py [--device cpu|cuda] [--big] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import platform
import time
from collections.abc import Callable

import torch
from torch import nn

from verify.data import partition, synthetic_classification
from verify.problems import ModelProblem
from verify.train import get, run
from verify.train.base import Context, Counters


def best_of(fn: Callable[[], object], k: int) -> float:
    fn()  # warm-up
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        ts.append(time.perf_counter() - t)
    return min(ts)


def small_cnn() -> nn.Module:
    """1x8x8 input: conv 1->16 (3x3), conv 16->32 (3x3) with 2x2 pooling, fc 128->80->10.

    Parameters: 160 + 4,640 + 10,320 + 810 = 15,930 ~ the 13.7k-parameter prototype's size."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(128, 80), nn.ReLU(), nn.Linear(80, 10),
    )  # fmt: skip


def problem(M: int, per_client: int, device: str) -> tuple[nn.Module, ModelProblem]:
    ds = synthetic_classification(M * per_client, (1, 8, 8), 10, seed=0)
    torch.manual_seed(0)
    model = small_cnn()
    idx = partition(ds.y, M, "iid", seed=0)
    return model, ModelProblem.at_cut(model, "3", nn.CrossEntropyLoss(), ds.X, ds.y, idx, aux=False, device=device)


def one_round(
    prob: ModelProblem, batched: bool, K: int, batch: int, algo_name: str = "fedavg", **params: object
) -> Callable[[], object]:
    algo = get(algo_name)(**(params or {"eta_l": 0.05, "K": K}))
    state = algo.init_state(prob, prob.init())

    def go() -> object:
        ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=batched, counters=Counters())
        return algo.round(0, state, ctx)

    return go


def bare_round(model: nn.Module, prob: ModelProblem, K: int, batch: int) -> Callable[[], object]:
    """FedAvg written directly in PyTorch: a copy of the module per client, K SGD steps, the average."""
    glob = copy.deepcopy(model).to(prob.device)
    params = list(glob.parameters())

    def go() -> object:
        ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=False)
        ends = []
        for m in range(prob.M):
            local = copy.deepcopy(glob)
            for k in range(K):
                b = ctx.batch(m, k)
                loss = nn.functional.cross_entropy(local(b.x), b.y)
                gs = torch.autograd.grad(loss, list(local.parameters()))
                with torch.no_grad():
                    for p, g in zip(local.parameters(), gs, strict=True):
                        p.sub_(0.05 * g)
            ends.append([p.detach() for p in local.parameters()])
        with torch.no_grad():
            for i, p in enumerate(params):
                p.copy_(torch.stack([e[i] for e in ends]).mean(0))
        return None

    return go


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--big", action="store_true", help="also M = 1000")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"machine: {platform.machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"device {a.device}" + (f" ({torch.cuda.get_device_name()})" if a.device == "cuda" else ""))  # fmt: skip
    K, batch = 2, 8
    model, prob = problem(10, 64, a.device)
    print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters, cut after block 3 "
          f"(d_c = {prob.d_c:,}); FedAvg K = {K}, batch {batch}")  # fmt: skip

    # overhead against the bare loop (per-client path, same batches)
    ours = best_of(one_round(prob, False, K, batch), a.repeat)
    bare = best_of(bare_round(model, prob, K, batch), a.repeat)
    print(f"overhead, M = 10: trainer {ours * 1e3:.1f} ms/round, bare PyTorch {bare * 1e3:.1f} ms: "
          f"ratio {ours / bare:.2f} (target <= 1.10)")  # fmt: skip
    # recording: one full-objective gradient on the whole training set (640 samples)
    x0 = prob.init()
    rec = best_of(lambda: prob.full_gradient(x0["client"], x0["server"]), a.repeat)
    print(f"recording ||grad f||^2 (640 samples): {rec * 1e3:.1f} ms = {rec / ours:.2f} rounds "
          f"({K * batch * 10} samples per round)")  # fmt: skip
    r = run(get("fedavg")(eta_l=0.05, K=K), prob, T=20, batch=batch, progress=False, batched=False)
    total = r.records[-1].wall_time
    print(f"run(): 20 rounds, rounds alone {total:.3f} s")

    sizes = [10, 100] + ([1000] if a.big else [])
    print("\n| M | loop (ms/round) | batched (ms/round) | loop / batched |\n|---|---|---|---|")
    for M in sizes:
        _, pm = problem(M, 16, a.device)
        loop = best_of(one_round(pm, False, K, batch), a.repeat)
        vm = best_of(one_round(pm, True, K, batch), a.repeat)
        print(f"| {M} | {loop * 1e3:.1f} | {vm * 1e3:.1f} | {loop / vm:.2f} |")

    # zeroth-order: MU-SplitFed with P perturbations, one batched forward over them (and the clients)
    print(
        "\n| MU-SplitFed, M = 4, tau = 2 | loop (ms/round) | batched (ms/round) | loop / batched |\n|---|---|---|---|"
    )
    _, pz = problem(4, 64, a.device)
    for P in (10, 100):
        kw = {"P": P, "tau": 2}
        loop = best_of(one_round(pz, False, 1, batch, "mu_splitfed", **kw), a.repeat)
        vm = best_of(one_round(pz, True, 1, batch, "mu_splitfed", **kw), a.repeat)
        print(f"| P = {P} | {loop * 1e3:.1f} | {vm * 1e3:.1f} | {loop / vm:.2f} |")


if __name__ == "__main__":
    main()
