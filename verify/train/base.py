r"""The algorithm interface, the round context the loop hands an algorithm, and the run record types.

An algorithm is a small class (modelled on Flower's strategies): it names its paper and the results that
analyse it, declares the parameters it takes (canonical vocabulary names, so a run's configuration evaluates
a theorem directly), and implements three methods:

* ``init_state(problem, x0) -> state``: the algorithm's state (global models, per-client server copies,
  optimiser state ...) as a dict of tensors and trees, which the loop checkpoints as it is;
* ``round(t, state, ctx) -> metrics``: one round, updating ``state`` in place; returns extra per-round
  metrics (e.g. ``drift``);
* ``global_params(state) -> (client, server)``: the global model x^t at which the theorems' left-hand side
  :math:`\|\nabla f(x^t)\|^2` is measured (auxiliary heads are not part of it).

A variant overrides one method and calls ``super()``. Everything the loop counts -- bytes each way, forward and
backward passes per side -- the algorithm reports through ``ctx`` (what it sends and computes is part of its
definition); timers, checkpoints, recording and sampling live in the loop, never in the maths.

Randomness: every draw comes from ``ctx.rng(*keys)``, a generator seeded from the run's seed, the round and
the keys (client, step, purpose), so a round is a pure function of the state and the seed. Resuming from a
checkpoint therefore reproduces the uninterrupted curve, and the batched and per-client paths draw the same
mini-batches and perturbations. The zeroth-order directions come either from such CPU generators
(``ctx.randn_like``: the same numbers on every device) or from generators on the problem's device seeded the same
way, one call per client and purpose (``ctx.randn_block``: fast, reproducible on that device).
"""

from __future__ import annotations

import hashlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import torch
from torch import Tensor

from sfltheory.algorithms import algorithm as algorithm_entry
from sfltheory.errors import ParameterError
from verify.ops import tree, zo
from verify.ops.batch import Batch
from verify.ops.tree import Params
from verify.problems import Problem

State = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ParamSpec:
    """A parameter an algorithm takes: canonical name, default, domain rule and meaning.

    ``kind``: ``"int"`` (an integer >= ``low``), ``"float"`` (a finite number > ``low``, or >= when
    ``closed``), ``"choice"`` (one of ``choices``) or ``"bool"``."""

    name: str
    default: Any
    kind: str = "float"
    low: float = 0.0
    closed: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""

    def check(self, value: Any) -> Any:
        """``value`` in the parameter's domain, converted (an integral float to int; ``"true"``/``"1"``/1 and their
        opposites to a bool; a number to float); else a ``ParameterError`` naming the parameter and its rule."""
        if self.kind == "choice":
            if value not in self.choices:
                raise ParameterError(self.name, f"must be one of {', '.join(self.choices)} (got {value!r})")
            return value
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if value in ("true", "1", 1):
                return True
            if value in ("false", "0", 0):
                return False
            raise ParameterError(self.name, f"must be true or false (got {value!r})")
        if self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            if isinstance(value, float) and value.is_integer():
                value, ok = int(value), True
            if not ok or value < self.low:
                raise ParameterError(self.name, f"must be an integer >= {int(self.low)} (got {value!r})")
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ParameterError(self.name, f"must be a number (got {value!r})")
        v = float(value)
        bad = not math.isfinite(v) or (v < self.low if self.closed else v <= self.low)
        if bad:
            rel = ">=" if self.closed else ">"
            what = "a positive number" if (self.low == 0 and not self.closed) else f"a finite number {rel} {self.low:g}"
            raise ParameterError(self.name, f"must be {what} (got {value!r})")
        return v


# Parameters every algorithm shares; an algorithm lists the ones it takes.
def eta(name: str = "eta", default: float = 0.01, help: str = "step size") -> ParamSpec:
    """A step size: a float parameter > 0."""
    return ParamSpec(name=name, default=default, help=help)


def count(name: str, default: int, help: str, low: int = 1) -> ParamSpec:
    """An integer parameter >= ``low`` (local steps, clients per round, perturbations ...)."""
    return ParamSpec(name=name, default=default, kind="int", low=low, help=help)


def draws(per: str) -> ParamSpec:
    """Where a zeroth-order algorithm draws its directions (:mod:`verify.ops.zo`); ``per``: what one CPU generator
    draws for in the ``cpu`` mode (e.g. "(client, step, perturbation)")."""
    return ParamSpec(
        name="draws",
        default=zo.DEVICE_DRAWS,
        kind="choice",
        choices=zo.DRAWS,
        help="device: each client's P Gaussian draws in one call on the problem's device (fast, reproducible on that "
        f"device); cpu: one float64 CPU generator per {per}, the same curves on every device (verify.ops.zo)",
    )


class SplitAlgorithm(ABC):
    """Base class of every algorithm; see the module docstring."""

    name: ClassVar[str]  # the registry key
    title: ClassVar[str]  # a short human name
    paper: ClassVar[str]  # the sfltheory paper key
    source: ClassVar[str]  # the algorithm in the paper: "Algorithm 1, eqs. (3)-(7)"
    results: ClassVar[tuple[str, ...]] = ()  # ids of the results that analyse it: read from the one table
    takes: ClassVar[tuple[ParamSpec, ...]]
    batchable: ClassVar[bool] = True  # has a batched (vmap over clients) path

    def __init_subclass__(cls, **kw: Any) -> None:
        """A registered algorithm (one that names itself) reads the results that analyse it from the one algorithm
        table, :data:`sfltheory.algorithms.ALGORITHMS`: they are kept there only."""
        super().__init_subclass__(**kw)
        if "name" in cls.__dict__:
            cls.results = algorithm_entry(cls.name).results

    def __init__(self, **params: Any) -> None:
        specs = {s.name: s for s in self.takes}
        for k in params:
            if k not in specs:
                raise ParameterError(k, f"algorithm '{self.name}' does not take it (it takes: {', '.join(specs)})")
        self.p: dict[str, Any] = {n: s.check(params[n]) if n in params else s.default for n, s in specs.items()}
        self.validate()

    def validate(self) -> None:
        """Cross-parameter rules (e.g. l <= K); raise ParameterError. Called after each parameter is checked.
        Rules that need the problem (n <= M) belong in ``init_state``."""
        return None

    @abstractmethod
    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        """The state at the start point ``x0`` (global models, per-client copies, optimiser state ...), which the
        loop checkpoints as it is; rules that need the problem (n <= M) are checked here."""

    @abstractmethod
    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Round ``t``: update ``state`` in place, drawing every random number from ``ctx`` and reporting to it what
        is sent and computed; returns extra per-round metrics (e.g. ``drift``)."""

    def global_params(self, state: State) -> tuple[Params, Params]:
        """The global model x^t as (client part, server part), where the theorems' left-hand side is measured: by
        default ``state["client"]`` and ``state["server"]``."""
        return state["client"], state["server"]

    def server_steps(self, M: int) -> float:
        """Server steps per round with ``M`` clients (tau where the algorithm has it; a rate where the server
        steps only every l rounds), for the time model."""
        return float(self.p.get("tau", 1))

    def messages(self) -> int:
        """Activation uploads per sample per round, for the time model (MU-SplitFed: 2P + 1)."""
        return 1

    def config(self) -> dict[str, Any]:
        """The parameters this instance runs with, every default filled in (a run's ``params``)."""
        return dict(self.p)

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The algorithm's registry entry as data: name, title, paper, source, the results that analyse it and its
        parameters with defaults and meanings."""
        return {
            "name": cls.name,
            "title": cls.title,
            "paper": cls.paper,
            "source": cls.source,
            "results": list(cls.results),
            "params": {s.name: {"default": s.default, "help": s.help} for s in cls.takes},
        }


@dataclass
class Counters:
    """What the loop counts: bytes each way and forward/backward passes per side, in samples."""

    bytes_up: int = 0
    bytes_down: int = 0
    client_forward: int = 0
    client_backward: int = 0
    server_forward: int = 0
    server_backward: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return dict(self.__dict__)


def derive_seed(*keys: Any) -> int:
    """A 63-bit seed from any keys (stable across runs, processes and machines)."""
    h = hashlib.blake2b(repr(keys).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") & ((1 << 63) - 1)


@dataclass
class Context:
    """What the loop gives an algorithm in round ``t``: the problem, sampling, random generators and counters."""

    problem: Problem
    t: int
    seed: int
    batch_size: int
    batched: bool
    counters: Counters = field(default_factory=Counters)

    def rng(self, *keys: Any) -> torch.Generator:
        """A CPU generator seeded from (seed, round, keys)."""
        return torch.Generator().manual_seed(derive_seed(self.seed, self.t, *keys))

    def batch(self, m: int, *keys: Any, size: int | None = None) -> Batch:
        """Client ``m``'s mini-batch for ``keys`` (e.g. the local step): the same in every path and on resume."""
        return self.problem.sample(m, size or self.batch_size, self.rng("batch", m, *keys))

    def batches(self, clients: Sequence[int], *keys: Any, size: int | None = None) -> Batch:
        """The mini-batches of several clients, stacked on a leading axis (padded and masked when ragged)."""
        return Batch.stack([self.batch(m, *keys, size=size) for m in clients])

    def batch_grid(self, clients: Sequence[int], steps: int, *keys: Any, size: int | None = None) -> Batch:
        """The mini-batches of ``clients`` for local steps 0..steps-1, axes (client, step, sample): the batch of
        client m at step k is ``self.batch(m, k, *keys)``, drawn with the same generators, gathered in one call
        (:meth:`verify.problems.Problem.sample_many`)."""
        gens = [[self.rng("batch", m, k, *keys) for k in range(steps)] for m in clients]
        return self.problem.sample_many(list(clients), gens, size or self.batch_size)

    def randn_like(self, like: Mapping[str, Tensor], *keys: Any) -> Params:
        """A standard Gaussian tree shaped like ``like`` (drawn on the CPU in float64, then cast: the same
        numbers on every device and dtype)."""
        g = self.rng("randn", *keys)
        return {
            k: torch.randn(v.shape, generator=g, dtype=torch.float64).to(v.device, v.dtype) for k, v in like.items()
        }

    def randn_block(self, like: Mapping[str, Tensor], P: int, clients: Sequence[int], *keys: Any) -> Params:
        """The zeroth-order estimators' device draws: for each client m of ``clients``, P standard Gaussian draws
        of the tree ``like`` as one call ``torch.randn((P, d))`` (d the tree's size) on ``like``'s device and in
        its dtype, from a generator of that device seeded from (seed, round, "randn_block", ``*keys``, m); the flat
        block split into the tree's tensors in ``like``'s key order (:func:`verify.ops.zo.split_flat`). Stacked on
        leading axes (client, perturbation). Reproducible on one device (not across devices or dtypes: that is
        :meth:`randn_like`); a client's numbers do not depend on which other clients are drawn with it."""
        first = next(iter(like.values()))
        buf = torch.empty((len(clients), P, tree.numel(like)), dtype=first.dtype, device=first.device)
        for i, m in enumerate(clients):  # one call per client: see verify.ops.zo ("device" draws) for why
            seed = derive_seed(self.seed, self.t, "randn_block", *keys, m)
            gen = torch.Generator(device=first.device).manual_seed(seed)
            buf[i].normal_(generator=gen)  # what torch.randn((P, d), generator=gen) draws: randn is empty + normal_
        return zo.split_flat(buf, like)

    def upload(self, nbytes: int) -> None:
        """Count ``nbytes`` sent from a client to the server."""
        self.counters.bytes_up += int(nbytes)

    def download(self, nbytes: int) -> None:
        """Count ``nbytes`` sent from the server to a client."""
        self.counters.bytes_down += int(nbytes)

    def work(self, side: str, forward: int = 0, backward: int = 0) -> None:
        """``forward``/``backward`` samples passed through ``side`` ("client" or "server"; "aux" counts as client)."""
        s = "client" if side == "aux" else side
        setattr(self.counters, f"{s}_forward", getattr(self.counters, f"{s}_forward") + int(forward))
        setattr(self.counters, f"{s}_backward", getattr(self.counters, f"{s}_backward") + int(backward))


@dataclass(frozen=True, kw_only=True)
class RoundRecord:
    """What a run records at the global model x^t (t = 0 is the start; record t follows round t - 1).

    ``gradnorm2``: :math:`\\|\\nabla f(x^t)\\|^2` of f = (1/M) sum f_m on the whole training set, with its
    client and server parts; ``gradnorm2_avg``/``gradnorm2_min``: the running average and minimum over the
    records taken so far -- over every t' <= t (the theorems' left-hand sides with T = t + 1) when every round is
    recorded, over the recorded t' only on a sparser schedule (``record_every`` > 1), which is then not the
    theorems' left-hand side; counters are cumulative."""

    t: int
    gradnorm2: float
    gradnorm2_client: float
    gradnorm2_server: float
    gradnorm2_avg: float
    gradnorm2_min: float
    loss: float
    test_acc: float | None = None
    drift: float | None = None
    bytes_up: int = 0
    bytes_down: int = 0
    client_forward: int = 0
    client_backward: int = 0
    server_forward: int = 0
    server_backward: int = 0
    sim_time: float = 0.0
    wall_time: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as one flat dict: its fields with the ``extra`` metrics merged in at the top level."""
        d = dict(self.__dict__)
        d.update(d.pop("extra"))
        return d


RECORD_FIELDS = tuple(f for f in RoundRecord.__dataclass_fields__ if f != "extra")
