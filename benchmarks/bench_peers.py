r"""The same FedAvg rounds in Flower (Ray simulation engine) and pfl-research (PyTorch) beside the batched trainer
(issue 23).

The rounds: M clients, each from the global model :math:`x^t` makes K SGD steps of batch B on its own data,

.. math:: x_m^{t,k+1} = x_m^{t,k} - \eta\,\nabla \ell(x_m^{t,k}; \xi_m^{t,k}),\qquad
          x^{t+1} = \frac1M \sum_{m=1}^M x_m^{t,K},

FedAvg (McMahan et al. 2017, Algorithm 1, with equal client sizes) = sl_noniid Algorithm 2 with
:math:`\eta_g = 1` (seed ``002_56e5daea794305d7.txt``), which ``verify.train.get("fedavg")`` implements.
Every framework gets the same model, initial weights, mini-batches :math:`\xi_m^{t,k}` (drawn once by the
trainer's ``Context.batch``, the draws its own rounds make) and step size, so after the rounds all of them
must hold the same weights up to float32 rounding -- the check printed under the tables.

* **ours, batched**: ``FedAvg.round`` with the clients vmapped (``Context(batched=True)``); **ours, loop**: the
  per-client path (``batched=False``). Time: ``round`` alone, batch sampling included.
* **Flower** (``flwr`` 1.42, Ray backend), through two engines: ``run_simulation`` (the in-process equivalent
  of ``flwr run``; its ServerApp and the Ray backend exchange messages through an in-memory store that both
  sides poll every 0.1 s: ``InMemoryGrid.pull_interval``, ``vce_api.add_messages_to_queue``) and the deprecated
  (since 1.13) ``start_simulation`` (Ray actor proxies called directly). A ``NumPyClient`` per client doing the
  K SGD steps (``torch.optim.SGD``), the ``FedAvg`` strategy; one Ray actor per CPU (``num_cpus = 1`` each, so
  Ray gives each 1 torch thread; ``--actors``). Time per round: from one ``aggregate_fit`` to the next.
  Ray's start-up (``ray.init``) and the first round (actors start, import torch) are reported apart.
* **pfl** (``pfl`` 0.6, ``FederatedAveraging`` on a ``SimulatedBackend``, ``PyTorchModel``): each user's dataset
  is its K batches of the round in order, ``local_batch_size = B``, ``local_num_epochs = 1`` (= K steps of B),
  central SGD with learning rate 1 (= the average). Time per round: between ``after_central_iteration`` calls.

A round's time is the best of ``--rounds`` rounds after one warm-up round (the machine is shared: the best is
the least disturbed, as in bench_train). Ours and pfl run in this process with ``--threads`` torch threads,
1 by default on the CPU -- as each Flower actor has -- since multi-threaded torch on small ops slows 5-10x on a
shared, oversubscribed CPU (measured at load 7-9 on 2 cores: the loop's round 336-928 ms at 2 threads, 54-115 ms
at 1) -- and torch's default on CUDA.
The peers are installed only in ``benchmarks/.venv-peers`` (``bash benchmarks/peers_env.sh``); without them
their columns say so.

Run: benchmarks/.venv-peers/bin/python benchmarks/bench_peers.py [--device cpu|cuda] [--clients 10,50]
     [--rounds 3] [--model small|fedavg] [--K 2] [--batch 8] [--threads N] [--actors N]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib.metadata as md
import logging
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from bench_train import small_cnn  # benchmarks/ is on sys.path when a script in it runs
from torch import Tensor, nn

from sfltheory.errors import ParameterError
from verify.data import partition, synthetic_classification
from verify.models.zoo import cnn
from verify.problems import ModelProblem
from verify.train import get
from verify.train.base import Context, Counters

ETA = 0.05  # the local step size of every framework (bench_train's)
PER_CLIENT = 64  # samples each client holds; a batch of B is drawn from them without replacement


# name -> (model, input shape): small is bench_train's 15,930-parameter CNN on 1x8x8 inputs (conv 16, conv 32,
# fc 80, fc 10); fedavg is McMahan et al.'s 1,663,370-parameter MNIST CNN.
MODELS: dict[str, tuple[Callable[[], nn.Module], tuple[int, ...]]] = {
    "small": (small_cnn, (1, 8, 8)),
    "fedavg": (lambda: cnn(1, 10, 28), (1, 28, 28)),
}


@dataclass
class Setup:
    """One benchmark point: the model at its initial weights, our problem, and the mini-batches of every round
    (``X[t, m, k]``: client m's k-th batch in round t, on the CPU), as the trainer draws them."""

    M: int
    K: int
    B: int
    rounds: int  # timed rounds; round 0 is the warm-up
    device: str
    model: nn.Module
    problem: ModelProblem
    X: Tensor
    Y: Tensor


def make_setup(model_name: str, M: int, K: int, B: int, rounds: int, device: str) -> Setup:
    factory, shape = MODELS[model_name]
    ds = synthetic_classification(M * PER_CLIENT, shape, 10, seed=0)
    torch.manual_seed(0)
    model = factory()
    idx = partition(ds.y, M, "iid", seed=0)
    prob = ModelProblem.at_cut(model, 1, nn.CrossEntropyLoss(), ds.X, ds.y, idx, aux=False, device=device)
    xs, ys = [], []
    for t in range(rounds + 1):
        ctx = Context(problem=prob, t=t, seed=0, batch_size=B, batched=False)
        bs = [[ctx.batch(m, k) for k in range(K)] for m in range(M)]
        xs.append(torch.stack([torch.stack([b.x.cpu() for b in row]) for row in bs]))
        ys.append(torch.stack([torch.stack([b.y.cpu() for b in row]) for row in bs]))
    return Setup(M, K, B, rounds, device, model, prob, torch.stack(xs), torch.stack(ys))


@dataclass
class Result:
    """What one framework did: seconds per timed round, samples trained on per round, the final weights (in
    the model's parameter order, on the CPU), and start-up costs (name -> seconds)."""

    name: str
    times: list[float] = field(default_factory=list)
    samples: list[int] = field(default_factory=list)
    final: list[Tensor] = field(default_factory=list)
    startup: dict[str, float] = field(default_factory=dict)
    missing: str = ""  # why it did not run
    note: str = ""

    @property
    def per_round(self) -> float:
        return min(self.times)


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def run_ours(s: Setup, batched: bool) -> Result:
    """The trainer's FedAvg rounds t = 0..rounds (``algo.round`` with our own Context, as bench_train times it)."""
    algo = get("fedavg")(eta_l=ETA, K=s.K)
    state = algo.init_state(s.problem, s.problem.init())
    res = Result("ours, batched" if batched else "ours, loop")
    for t in range(s.rounds + 1):
        ctx = Context(problem=s.problem, t=t, seed=0, batch_size=s.B, batched=batched, counters=Counters())
        sync(s.device)
        t0 = time.perf_counter()
        algo.round(t, state, ctx)
        sync(s.device)
        if t > 0:
            res.times.append(time.perf_counter() - t0)
        res.samples.append(ctx.counters.client_forward)
    pc, ps = algo.global_params(state)
    res.final = [v.detach().cpu() for v in [*pc.values(), *ps.values()]]
    return res


def run_flower(s: Setup, engine: str, actors: int | None = None) -> Result:
    """Flower on the same rounds, through ``engine`` (``run_simulation`` or the deprecated ``start_simulation``)
    with ``actors`` Ray actors (default: one per CPU Ray counts; it reads cgroup quotas, which os.cpu_count does
    not); see the module docstring."""
    # Optional: installed only in benchmarks/.venv-peers, so imported here and not at the top.
    import ray

    # Flower logs a few INFO lines per round, and run_simulation resets the logger's level: a filter stays.
    logging.getLogger("flwr").addFilter(lambda record: record.levelno >= logging.ERROR)
    res = Result(f"Flower {engine}")
    t0 = time.perf_counter()
    ray.init(num_cpus=actors, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    res.startup["ray.init"] = time.perf_counter() - t0
    try:
        return flower_rounds(s, res, engine)
    finally:
        ray.shutdown()  # run_simulation shuts Ray down when it ends normally; this covers the rest


def flower_rounds(s: Setup, res: Result, engine: str) -> Result:
    """The simulation itself, on the Ray instance :func:`run_flower` started."""
    import ray  # optional, see run_flower
    from flwr.client import ClientApp, NumPyClient
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server import ServerApp, ServerAppComponents, ServerConfig
    from flwr.server.strategy import FedAvg
    from flwr.simulation import run_simulation, start_simulation

    actors = int(ray.cluster_resources()["CPU"])  # num_cpus = 1 each: one actor per CPU of the Ray instance
    # The data and the model travel once, through Ray's object store (zero-copy numpy in each actor), not in
    # the ClientApp's closure, which the backend pickles with every message.
    data = ray.put((s.X.numpy(), s.Y.numpy()))
    template = ray.put(copy.deepcopy(s.model).cpu())
    K, device = s.K, s.device

    class Client(NumPyClient):
        def __init__(self, m: int) -> None:
            self.m = m

        def fit(self, parameters: list[np.ndarray], config: dict[str, Any]) -> tuple[list[np.ndarray], int, dict]:
            X, Y = ray.get(data)
            net = ray.get(template).to(device)
            with torch.no_grad():
                for p, a in zip(net.parameters(), parameters, strict=True):
                    p.copy_(torch.from_numpy(a))
            opt = torch.optim.SGD(net.parameters(), lr=ETA)
            t, n, losses = int(config["t"]), 0, []
            for k in range(K):
                x = torch.tensor(X[t, self.m, k], device=device)
                y = torch.tensor(Y[t, self.m, k], device=device)
                loss = nn.functional.cross_entropy(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                n += int(y.shape[0])
                losses.append(float(loss.detach()))
            metrics = {"loss": losses[-1], "threads": torch.get_num_threads()}
            return [p.detach().cpu().numpy() for p in net.parameters()], n, metrics

    marks: list[float] = []

    class Timed(FedAvg):
        def aggregate_fit(self, server_round: int, results: list, failures: list) -> Any:
            out = super().aggregate_fit(server_round, results, failures)
            marks.append(time.perf_counter())
            if failures:
                raise RuntimeError(f"Flower round {server_round}: {len(failures)} clients failed: {failures[0]}")
            res.samples.append(sum(r.num_examples for _, r in results))
            threads = sorted({int(r.metrics["threads"]) for _, r in results})
            res.note = f"{actors} Ray actors, torch threads per actor {threads}"
            res.final = [torch.from_numpy(a.copy()) for a in parameters_to_ndarrays(out[0])]
            return out

    x0 = [p.detach().cpu().numpy() for p in s.model.parameters()]

    def server_fn(context: Any) -> Any:
        strategy = Timed(
            fraction_fit=1.0, fraction_evaluate=0.0, min_fit_clients=s.M, min_available_clients=s.M,
            initial_parameters=ndarrays_to_parameters(x0), on_fit_config_fn=lambda r: {"t": r - 1},
        )  # fmt: skip
        return ServerAppComponents(strategy=strategy, config=ServerConfig(num_rounds=s.rounds + 1))

    def client_fn(context: Any) -> Any:
        return Client(int(context.node_config["partition-id"])).to_client()

    resources = {"num_cpus": 1, "num_gpus": 1.0 / actors if s.device == "cuda" else 0.0}
    t1 = time.perf_counter()
    if engine == "run_simulation":
        run_simulation(
            server_app=ServerApp(server_fn=server_fn), client_app=ClientApp(client_fn=client_fn),
            num_supernodes=s.M, backend_config={"client_resources": resources},
        )  # fmt: skip
    else:  # the pre-1.13 engine: Ray actor proxies called directly, no message store polled every 0.1 s
        components = server_fn(None)
        start_simulation(
            client_fn=client_fn, num_clients=s.M, client_resources=resources, strategy=components.strategy,
            config=components.config, ray_init_args={"ignore_reinit_error": True}, keep_initialised=True,
        )  # fmt: skip
    if len(marks) != s.rounds + 1:
        raise RuntimeError(f"Flower ran {len(marks)} rounds, {s.rounds + 1} asked")
    res.startup["first round"] = marks[0] - t1
    res.times = list(np.diff(marks))
    return res


def run_pfl(s: Setup) -> Result:
    """pfl-research's simulated federated averaging (PyTorch) on the same rounds; see the module docstring."""
    os.environ["PFL_PYTORCH_DEVICE"] = s.device  # read when the model is built: pfl picks CUDA by itself otherwise
    # Optional: installed only in benchmarks/.venv-peers, so imported here and not at the top.
    from pfl.aggregate.simulate import SimulatedBackend
    from pfl.algorithm import FederatedAveraging, NNAlgorithmParams
    from pfl.callback.base import TrainingProcessCallback
    from pfl.data.dataset import Dataset
    from pfl.data.federated_dataset import FederatedDataset
    from pfl.data.sampling import get_user_sampler
    from pfl.hyperparam import NNEvalHyperParams, NNTrainHyperParams
    from pfl.metrics import Metrics, Weighted
    from pfl.model.pytorch import PyTorchModel

    class Net(nn.Module):
        """The model with the ``loss``/``metrics`` methods pfl calls; ``loss`` counts the samples trained on."""

        def __init__(self, net: nn.Module) -> None:
            super().__init__()
            self.net = net
            self.seen = 0

        def forward(self, x: Tensor) -> Tensor:
            return self.net(x)

        def loss(self, x: Tensor, y: Tensor, eval: bool = False) -> Tensor:
            self.seen += int(y.shape[0])
            return nn.functional.cross_entropy(self.net(x), y)

        @torch.no_grad()
        def metrics(self, x: Tensor, y: Tensor, eval: bool = True) -> dict[str, Any]:
            return {"loss": Weighted(float(nn.functional.cross_entropy(self.net(x), y, reduction="sum")), len(y))}

    net = Net(copy.deepcopy(s.model).cpu())
    model = PyTorchModel(
        model=net, local_optimizer_create=torch.optim.SGD, central_optimizer=torch.optim.SGD(net.parameters(), lr=1.0)
    )
    res = Result("pfl")
    t_now = [0]  # the round whose batches make_dataset_fn hands out (pfl builds a user's dataset when sampled)

    def user(uid: int) -> Any:
        t = t_now[0]
        n = s.K * s.B
        return Dataset((s.X[t, uid].reshape(n, *s.X.shape[4:]), s.Y[t, uid].reshape(n)), user_id=str(uid))

    data = FederatedDataset(user, get_user_sampler("minimize_reuse", list(range(s.M))))
    marks: list[float] = []

    class Timed(TrainingProcessCallback):
        def after_central_iteration(self, aggregate_metrics: Any, model: Any, *, central_iteration: int) -> Any:
            sync(s.device)
            marks.append(time.perf_counter())
            res.samples.append(net.seen - sum(res.samples))
            t_now[0] = central_iteration + 1
            return False, Metrics()

    t0 = time.perf_counter()
    FederatedAveraging().run(
        # evaluation_frequency beyond the last round: pfl evaluates the cohort at iteration 0 only
        NNAlgorithmParams(
            central_num_iterations=s.rounds + 1, evaluation_frequency=s.rounds + 2, train_cohort_size=s.M,
            val_cohort_size=0,
        ),
        SimulatedBackend(training_data=data, val_data=None),
        model,
        NNTrainHyperParams(local_learning_rate=ETA, local_num_epochs=1, local_batch_size=s.B),
        NNEvalHyperParams(local_batch_size=None),
        callbacks=[Timed()],
        send_metrics_to_platform=False,
    )  # fmt: skip
    res.startup["first round"] = marks[0] - t0
    res.times = list(np.diff(marks))
    res.final = [p.detach().cpu() for p in net.net.parameters()]
    return res


def peer(name: str, package: str, fn: Callable[[Setup], Result], s: Setup) -> Result:
    """``fn(s)``, or a Result saying why it could not run (the peers live only in benchmarks/.venv-peers)."""
    try:
        md.version(package)
    except md.PackageNotFoundError:
        return Result(name, missing="not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both frameworks warn about deprecations on every call
        return fn(s)


def full_loss(s: Setup, params: list[Tensor]) -> float:
    """Mean cross-entropy over every client's data at ``params`` (the f the rounds minimise)."""
    net = copy.deepcopy(s.model).cpu()
    with torch.no_grad():
        for p, v in zip(net.parameters(), params, strict=True):
            p.copy_(v)
        # the problem keeps its data on the device where they fit: the loss is taken on the CPU copy
        return float(nn.functional.cross_entropy(net(s.problem.X.cpu()), s.problem.y.cpu()))


def check(s: Setup, results: list[Result]) -> list[str]:
    r"""The same maths: samples per round and final weights of every framework against ours, batched.

    The weights are compared relative to how far ours moved, :math:`\max|x - x_{ours}| / \max|x_{ours} - x^0|`:
    a framework doing other maths (another step count, batch, step size or average) is off by O(1) there, float32
    rounding in another summation order (vmap, numpy's weighted average, pfl's difference-then-average) by ~1e-5
    (measured on the CPU: at most 3.1e-5, Flower at M = 50). Raises above 1e-3 on the CPU, or 1e-1 on CUDA: on
    an H200 our own loop and batched rounds of this model (M = 10, 4 rounds) differed by 4.3e-2 in float32 with
    cuDNN's TF32 convolutions and 3.6e-2 without them (its convolution algorithms differ between the per-client
    and the grouped, vmapped convolutions), and by 2.5e-14 in float64: rounding, not other maths."""
    ours = results[0]
    x0 = [p.detach().cpu() for p in s.model.parameters()]
    moved = max(float((a - b).abs().max()) for a, b in zip(ours.final, x0, strict=True))
    tol = 1e-1 if s.device == "cuda" else 1e-3
    lines = [
        f"f(x^0) = {full_loss(s, x0):.5f} on all {s.M * PER_CLIENT} samples; ours moved max |x - x^0| = {moved:.2e}"
    ]
    for r in results:
        if r.missing:
            continue
        if r.samples != ours.samples:
            raise AssertionError(f"{r.name}: samples per round {r.samples}, ours {ours.samples}")
        diff = max(float((a - b).abs().max()) for a, b in zip(r.final, ours.final, strict=True)) / moved
        if diff > tol:
            raise AssertionError(f"{r.name}: final weights {diff:.2e} from ours (relative to the distance moved)")
        lines.append(
            f"{r.name}: {r.samples[0]} samples/round, f(x^{s.rounds + 1}) = {full_loss(s, r.final):.5f}, "
            f"max |x - x_ours| / max |x_ours - x^0| = {diff:.1e}" + (f"; {r.note}" if r.note else "")
        )
    return lines


def header(results: list[Result]) -> str:
    """The table's head: seconds per round of each, then each peer over ours (batched / loop)."""
    cols = ["M", "device", *(f"{r.name} (ms/round)" for r in results)]
    cols += [f"{r.name} / ours (batched / loop)" for r in results[2:]]
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def table(s: Setup, results: list[Result]) -> str:
    ours, loop = results[0], results[1]
    cells = []
    for r in results:
        cells.append(r.missing or f"{r.per_round * 1e3:.1f}")
    ratios = []
    for r in results[2:]:
        ratios.append("-" if r.missing else f"{r.per_round / ours.per_round:.1f} / {r.per_round / loop.per_round:.1f}")
    return f"| {s.M} | {s.device} | " + " | ".join(cells + ratios) + " |"


def parse_clients(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise ParameterError("--clients", f"must be integers separated by commas (got {text!r})") from None
    if not values or min(values) < 1:
        raise ParameterError("--clients", f"each must be >= 1 (got {text!r})")
    return values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--clients", default="10,50", help="M values, comma-separated")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds after one warm-up round")
    ap.add_argument("--model", choices=tuple(MODELS), default=None, help="default: small on cpu, fedavg on cuda")
    ap.add_argument("--K", type=int, default=2, help="local steps")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (ours, pfl); default 1 on cpu")
    ap.add_argument("--actors", type=int, default=None, help="Flower's Ray actors (1 thread each); default 1/core")
    a = ap.parse_args()
    try:
        clients = parse_clients(a.clients)
        for name, v in (("--rounds", a.rounds), ("--K", a.K), ("--batch", a.batch), ("--threads", a.threads),
                        ("--actors", a.actors)):  # fmt: skip
            if v is not None and v < 1:
                raise ParameterError(name, f"must be >= 1 (got {v})")
        if a.batch >= PER_CLIENT:
            raise ParameterError("--batch", f"must be < {PER_CLIENT}, the samples each client holds (got {a.batch})")
        if a.device == "cuda" and not torch.cuda.is_available():
            raise ParameterError("--device", "cuda asked but torch sees no CUDA device")
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    model_name = a.model or ("fedavg" if a.device == "cuda" else "small")
    if a.threads is not None or a.device == "cpu":
        torch.set_num_threads(a.threads or 1)

    def version(name: str) -> str:
        with contextlib.suppress(md.PackageNotFoundError):
            return md.version(name)
        return "not installed"

    gpu = f" ({torch.cuda.get_device_name()})" if a.device == "cuda" else ""
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"torch {torch.__version__} ({torch.get_num_threads()} threads), device {a.device}{gpu}")  # fmt: skip
    print(f"peers: flwr {version('flwr')}, ray {version('ray')}, pfl {version('pfl')}")
    n_params = sum(p.numel() for p in MODELS[model_name][0]().parameters())
    print(f"model: {model_name} ({n_params:,} parameters); FedAvg K = {a.K} steps of batch {a.batch}, eta = {ETA}, "
          f"{PER_CLIENT} samples per client; best of {a.rounds} rounds after a warm-up round")  # fmt: skip
    rows, notes, head = [], [], ""
    for M in clients:
        s = make_setup(model_name, M, a.K, a.batch, a.rounds, a.device)
        results = [
            run_ours(s, True),
            run_ours(s, False),
            peer("Flower run_simulation", "flwr", lambda s: run_flower(s, "run_simulation", a.actors), s),
            peer("Flower start_simulation", "flwr", lambda s: run_flower(s, "start_simulation", a.actors), s),
            peer("pfl", "pfl", run_pfl, s),
        ]
        rows.append(table(s, results))
        head = header(results)
        start = [f"{r.name} {k} {v:.1f} s" for r in results for k, v in r.startup.items()]
        notes.append(f"M = {M}: start-up (not in the table): " + (", ".join(start) or "-"))
        notes.extend(f"  {line}" for line in check(s, results))
    print("\n" + head + "\n" + "\n".join(rows))
    print("\n" + "\n".join(notes))
    if "not installed" in (version("flwr"), version("pfl")):
        print("peers not installed here: bash benchmarks/peers_env.sh, then run with benchmarks/.venv-peers/bin/python")


if __name__ == "__main__":
    main()
