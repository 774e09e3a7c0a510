"""Recurrent layers in the trainer's batched path (issue 23): one FedAvg round with the clients vmapped through the
vmappable cell (:func:`verify.models.recurrent.vmappable_rnns_`) against the per-client loop through torch's fused
kernel (``aten::gru``/``aten::lstm``, the baseline: what the loop ran before), and the loop through the
vmappable cell (the cost of the Python time loop alone), on a GRU and an LSTM split after the recurrent layer.

Sizes: 4 features, sequence length 20, hidden 32, a linear head to 3 classes; FedAvg K = 2, batch 8, 16 samples
per client; M = 10 and 100. Times are the best of ``--repeat`` rounds (``algorithm.round`` alone, no recording).

Run: python benchmarks/bench_recurrent.py [--repeat 3] [--M 10 100] [--threads 1]
"""

from __future__ import annotations

import argparse
import copy
import platform
from collections.abc import Callable

import torch
from bench_train import best_of  # benchmarks/ is on sys.path when a script in it runs
from torch import Tensor, nn

from verify.problems import ModelProblem
from verify.train import get
from verify.train.base import Context, Counters

FEATURES, LENGTH, HIDDEN, CLASSES, PER_CLIENT, K, BATCH = 4, 20, 32, 3, 16, 2, 8


class LastStep(nn.Module):
    """The recurrent layer's output at the last time step (the client's smashed data)."""

    def __init__(self, rnn: nn.Module) -> None:
        super().__init__()
        self.rnn = rnn

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.rnn(x)
        return out[:, -1]


def problem(cell: type[nn.Module], M: int, vmappable: bool) -> ModelProblem:
    g = torch.Generator().manual_seed(0)
    X = torch.randn(M * PER_CLIENT, LENGTH, FEATURES, generator=g)
    y = torch.randint(0, CLASSES, (M * PER_CLIENT,), generator=g)
    torch.manual_seed(0)
    client = LastStep(cell(FEATURES, HIDDEN, batch_first=True))
    server = nn.Linear(HIDDEN, CLASSES)
    clients = list(torch.arange(M * PER_CLIENT).split(PER_CLIENT))
    # vmappable=False keeps torch's fused kernel (a ModelProblem makes its recurrent layers vmappable by default)
    return ModelProblem.from_parts(client, server, nn.CrossEntropyLoss(), X, y, clients, vmappable_rnns=vmappable)


def one_round(prob: ModelProblem, batched: bool) -> Callable[[], object]:
    algo = get("fedavg")(eta_l=0.05, K=K)
    state = algo.init_state(prob, prob.init())

    def go() -> object:
        return algo.round(0, state, Context(problem=prob, t=0, seed=0, batch_size=BATCH, batched=batched,
                                            counters=Counters()))  # fmt: skip

    return go


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--M", type=int, nargs="+", default=[10, 100])
    # one thread by default: on the shared 2-core machine two threads made the tiny per-client steps ~10x slower
    # (GRU, M = 10: 967 ms a round with 2 threads, 100 ms with 1), which measures contention, not the cell
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"machine: {platform.machine()}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"FedAvg K = {K}, batch {BATCH}, {PER_CLIENT} samples per client; {FEATURES} features, length {LENGTH}, "
          f"hidden {HIDDEN}")  # fmt: skip
    print("\n| cell | M | loop, fused (ms) | loop, vmappable (ms) | batched, vmappable (ms) | fused loop / batched |")
    print("|---|---|---|---|---|---|")
    for cell in (nn.GRU, nn.LSTM):
        for M in a.M:
            fused = best_of(one_round(problem(cell, M, False), False), a.repeat)
            vm = problem(cell, M, True)
            loop_vm = best_of(one_round(vm, False), a.repeat)
            batched = best_of(one_round(copy.deepcopy(vm), True), a.repeat)
            print(f"| {cell.__name__} | {M} | {fused * 1e3:.1f} | {loop_vm * 1e3:.1f} | {batched * 1e3:.1f} | "
                  f"{fused / batched:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
