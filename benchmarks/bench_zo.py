"""Zeroth-order rounds with the directions drawn on the device (issue 23, part 2).

MU-SplitFed (M = 4, tau = 2) and HERON-SFL (M = 4, K = 2, l = 1) rounds, the per-client loop (each client alone,
its P perturbed forwards one by one) against the batched round (clients and perturbations vmapped), at P = 10
and 100, for both sources of the Gaussian draws (``draws``, :mod:`verify.ops.zo`):

* ``device``: each client's P draws for one (purpose, step) in one ``torch.randn`` on the problem's device;
* ``cpu``: one float64 CPU generator per (client, step, perturbation), cast and moved (the draws of the runs
  made before; on an H200 they made the batched MU-SplitFed round of the 2.2M-parameter CNN at P = 10 no faster
  than the loop, 3.68 s each).

Targets (issue 23): at P = 100 batched >= 3x the loop on a CPU, >= 10x on a GPU. The profile line splits the
batched round at P = 100 (device draws) into the draws (``Context.randn_block`` / ``randn_like``), the forward
passes (the problem's ``client_forward``, ``server_loss``, ``aux_loss``; the device synchronised around each) and
the rest (normalising and applying the perturbations, the P-averages, updates, sampling, HERON's first-order
server backward).

Problems: by default the 15,930-parameter CNN of ``bench_train.py`` on synthetic 1x8x8 inputs, cut after block 3,
batch 8 (runs in about a minute on one CPU core); ``--big``: the FedAvg CNN on synthetic 3x32x32 inputs (2,156,490
parameters, cut at its middle, conv2), batch 32, for a GPU (about a minute there; the CPU draws only at P = 10,
batched only).

Run: python benchmarks/bench_zo.py [--device cpu|cuda] [--big] [--repeat N] [--threads 1]
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from bench_train import small_cnn  # benchmarks/ is on sys.path when a script in it runs
from torch import nn

from verify.data import partition, synthetic_classification
from verify.models import build
from verify.problems import ModelProblem
from verify.train import get
from verify.train.base import Context, Counters

M = 4
ALGOS = {
    "mu_splitfed": {"tau": 2, "eta_c": 0.005, "eta_s": 0.01, "lam": 1e-3},
    "heron_sfl": {"K": 2, "l": 1, "eta_c": 1e-4, "lam": 1e-3},
}


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def clock(device: str) -> float:
    """Wall time on a GPU or with more than one CPU thread; with one CPU thread the process's CPU time, which other
    jobs on a shared machine do not inflate (it is the work done; measured here at load averages of 5-7 on 2
    cores, wall times of one round varied 2-3x between runs)."""
    return time.perf_counter() if device == "cuda" or torch.get_num_threads() > 1 else time.process_time()


def best_of(fn: Callable[[], object], k: int, device: str, warm: bool = True) -> float:
    if warm:
        fn()
    ts = []
    for _ in range(k):
        sync(device)
        t = clock(device)
        fn()
        sync(device)
        ts.append(clock(device) - t)
    return min(ts)


def problem(big: bool, device: str) -> ModelProblem:
    shape = (3, 32, 32) if big else (1, 8, 8)
    ds = synthetic_classification(M * 64, shape, 10, seed=0)
    torch.manual_seed(0)
    model = build("cnn", in_channels=3, num_classes=10, input_size=32) if big else small_cnn()
    idx = partition(ds.y, M, "iid", seed=0)
    return ModelProblem.at_cut(model, "conv2" if big else "3", nn.CrossEntropyLoss(), ds.X, ds.y, idx, device=device)


def one_round(prob: ModelProblem, name: str, P: int, draws: str, batched: bool, batch: int) -> Callable[[], object]:
    algo = get(name)(P=P, draws=draws, **ALGOS[name])
    state = algo.init_state(prob, prob.init())

    def go() -> object:
        ctx = Context(problem=prob, t=0, seed=0, batch_size=batch, batched=batched, counters=Counters())
        return algo.round(0, {k: dict(v) for k, v in state.items()}, ctx)

    return go


@contextmanager
def profiled(prob: ModelProblem, device: str) -> Iterator[dict[str, float]]:
    """Time spent in the draws and in the problem's forward functions (device synchronised around each call)."""
    spent = {"draws": 0.0, "forwards": 0.0}
    depth = [0]

    def timed(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
        def wrapper(*a: Any, **kw: Any) -> Any:
            if depth[0]:
                return fn(*a, **kw)
            depth[0] += 1
            sync(device)
            t = clock(device)
            try:
                return fn(*a, **kw)
            finally:
                sync(device)
                spent[what] += clock(device) - t
                depth[0] -= 1

        return wrapper

    saved = {n: getattr(Context, n) for n in ("randn_block", "randn_like")}
    for n, fn in saved.items():
        setattr(Context, n, timed(fn, "draws"))
    for n in ("client_forward", "server_loss", "aux_loss"):
        setattr(prob, n, timed(getattr(prob, n), "forwards"))
    try:
        yield spent
    finally:
        for n, fn in saved.items():
            setattr(Context, n, fn)
        for n in ("client_forward", "server_loss", "aux_loss"):
            delattr(prob, n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--big", action="store_true", help="the 2.2M-parameter CNN on 3x32x32 (for a GPU)")
    ap.add_argument("--repeat", type=int, default=None, help="rounds timed after a warm-up (default 3; 2 with --big)")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads (1: steadier on a shared machine)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    dev, k = a.device, a.repeat or (2 if a.big else 3)
    t_start = time.perf_counter()
    print(f"machine: {platform.machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"device {dev}" + (f" ({torch.cuda.get_device_name()})" if dev == "cuda" else ""))  # fmt: skip
    batch = 32 if a.big else 8
    prob = problem(a.big, dev)
    c = prob.counts()
    wall = dev == "cuda" or a.threads > 1
    print(f"times: {'wall clock' if wall else 'CPU time of this process'} ({a.threads} CPU thread(s))")
    print(f"model: d = {c.d:,} (client {c.d_c:,}, server {c.d_s:,}, head {c.d_aux:,}), M = {M}, batch {batch}; "
          f"MU-SplitFed tau = 2, HERON-SFL K = 2, l = 1; best of {k} rounds after a warm-up")  # fmt: skip
    print(
        "\n| algorithm | P | draws | loop (ms/round) | batched (ms/round) | loop / batched |\n|---|---|---|---|---|---|"
    )
    for draws in ("device", "cpu"):
        for name in ALGOS:
            for P in (10, 100):
                if a.big and draws == "cpu":
                    if P == 100:
                        continue  # MU-SplitFed: 1.7e9 float64 CPU draws a round (~40 s); P = 10 shows the cost
                    vm = best_of(one_round(prob, name, P, draws, True, batch), 1, dev, warm=False)
                    print(f"| {name} | {P} | {draws} | - | {vm * 1e3:.1f} | - |")
                    continue
                loop = best_of(one_round(prob, name, P, draws, False, batch), k, dev)
                vm = best_of(one_round(prob, name, P, draws, True, batch), k, dev)
                print(f"| {name} | {P} | {draws} | {loop * 1e3:.1f} | {vm * 1e3:.1f} | {loop / vm:.2f} |")
    print()
    for name in ALGOS:
        go = one_round(prob, name, 100, "device", True, batch)
        go()  # warm-up
        if dev == "cuda":
            torch.cuda.reset_peak_memory_stats()
        with profiled(prob, dev) as spent:
            sync(dev)
            t = clock(dev)
            go()
            sync(dev)
            total = clock(dev) - t
        d, f = spent["draws"], spent["forwards"]
        rest = total - d - f
        peak = f"; peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB" if dev == "cuda" else ""
        print(f"profile, {name} batched round, P = 100, device draws: {total * 1e3:.1f} ms (synchronised) = draws "
              f"{d * 1e3:.1f} ms ({d / total:.0%}) + forwards {f * 1e3:.1f} ms ({f / total:.0%}) + rest "
              f"{rest * 1e3:.1f} ms ({rest / total:.0%}){peak}")  # fmt: skip
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
