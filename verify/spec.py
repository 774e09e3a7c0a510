"""What to run, as one typed value: every front end parses into these once.

*Spec in, record out*: the command line (``verify/cli.py``), a sweep file (``verify/sweep``), the main job and the
trend checks all build a :class:`RunSpec` (``sfltheory train``) or a :class:`CheckSpec` (``sfltheory verify``)
through :func:`verify.parse.run_spec` / :func:`verify.parse.check_spec`, the one parser of each. This module holds
the values and the checks that need nothing but the values (it imports no other module of ``verify``). Its
errors name spec fields (``problem.clients``, ``T``); the CLI prints the flag a field comes from (:data:`FLAGS`).
Every spec has one :meth:`key` for caches, sweep stores and ``run.json``.

A problem is a :class:`QuadraticSpec` (an exact quadratic: from target constants, a JSON file, or inline data)
or a :class:`ModelSpec` (a torch model on a dataset, split at a cut among partitioned clients);
``verify.problems.build`` turns either into the problem the trainer runs. This module imports no torch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from sfltheory.errors import ParameterError, renamed

# target constants of the default quadratic (QuadraticProblem.from_targets); integers among them
QUADRATIC_TARGETS = ("L", "mu", "sigma2", "eps2", "d", "d_c", "M", "F")
INTEGER_TARGETS = ("d", "d_c", "M")
NOISE_LAWS = ("gaussian", "rademacher")
DTYPES = ("float32", "float64")
MAX_ROUNDS = 10**7  # a run's or check's T: each round keeps a record in memory and run.json (~0.5 kB): ~5 GB

# spec field -> command-line flag, for messages (a library error names the field, the CLI the flag)
FLAGS: dict[str, str] = {
    "problem.file": "--problem", "problem.model": "--model", "problem.data": "--data", "problem.cut": "--cut",
    "problem.clients": "--clients", "problem.partition": "--partition", "problem.loss": "--loss",
    "problem.input_shape": "--input-shape", "problem.eval_samples": "--eval-samples", "problem": "--problem",
    # a run's problem is drawn from its seed (train and verify take it as seed=); cuts/plan's block expansion
    "problem.seed": "seed", "problem.noise": "noise", "expand": "--expand",
    "batched": "--loop", "device": "--device", "out": "--out", "checkpoint_every": "--checkpoint-every",
    "truncate": "--truncate", "record_every": "--record-every",
    "result": "ID",  # verify takes the result ids as positionals
    "time.client_time": "--client-time", "time.server_step": "--server-step", "time.bandwidth": "--bandwidth",
    "seeds": "--seeds", "points": "--points", "params.order": "--order",
    **{f"measure.{k}": f"--{k.replace('_', '-')}" for k in (
        "model", "data", "input_shape", "cut", "state", "loss", "what", "clients", "partition", "batch", "probes",
        "tol", "fstar", "lam", "P", "zo_form", "steps", "every", "lr", "train_batch", "run_dir", "device", "chunk",
        "threads", "seed", "cuts", "float64")},
    "measure.for_id": "--for",
    "run": "--run", "constants": "--constants", "tags": "--tags",
}  # fmt: skip


def flag(name: str) -> str:
    """The command-line flag a spec field is given by, or the name itself (a ``name=value``)."""
    return FLAGS.get(name, name)


def named_by(rename: Callable[[str], str]) -> AbstractContextManager[None]:
    """An error raised inside names the parameter as a front end does (``rename``: :func:`flag` for the command
    line, :func:`name_of` for a sweep file); the library names spec fields (:func:`sfltheory.errors.renamed`)."""
    return renamed(rename)


# --- checked conversions (each error names the field) -------------------------------------------------------------


def integer(name: str, v: Any, *, low: int | None = None) -> int:
    """``v`` as an int (an integral float is accepted, as ``name=value`` gives floats), at least ``low``."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ParameterError(name, f"must be an integer{'' if low is None else f' >= {low}'} (got {v!r})")
    if low is not None and v < low:
        raise ParameterError(name, f"must be an integer >= {low} (got {v})")
    return v


def rounds(name: str, v: Any, *, low: int = 1) -> int:
    """``v`` as a number of rounds: an integer from ``low`` to :data:`MAX_ROUNDS`."""
    T = integer(name, v, low=low)
    if T > MAX_ROUNDS:
        raise ParameterError(name, f"at most {MAX_ROUNDS:.0e} rounds (got {T:.3g}): each keeps a record in memory "
                             "and run.json (~0.5 kB), ~5 GB already; split a longer run")  # fmt: skip
    return T


def number(name: str, v: Any, *, positive: bool = False) -> float:
    """``v`` as a finite float (positive where asked)."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(float(v)):
        raise ParameterError(name, f"must be a finite number (got {v!r})")
    if positive and v <= 0:
        raise ParameterError(name, f"must be > 0 (got {v!r})")
    return float(v)


def text(name: str, v: Any) -> str:
    """``v`` when it is a non-empty string; else a ``ParameterError`` naming ``name``."""
    if not isinstance(v, str) or not v:
        raise ParameterError(name, f"must be a non-empty string (got {v!r})")
    return v


def boolean(name: str, v: Any) -> bool:
    """``v`` when it is ``True`` or ``False`` (not a number or a string); else a ``ParameterError`` naming ``name``."""
    if not isinstance(v, bool):
        raise ParameterError(name, f"must be true or false (got {v!r})")
    return v


def shape(name: str, v: Any) -> tuple[int, ...]:
    """A sample shape: ``"3,32,32"``, ``"3x32x32"`` or a list of integers, each >= 1."""
    if isinstance(v, str):
        try:
            v = [int(x) for x in v.replace("x", ",").split(",") if x.strip()]
        except ValueError:
            raise ParameterError(name, f"must be comma-separated integers, e.g. 3,32,32 (got {v!r})") from None
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list | tuple) or not v:
        raise ParameterError(name, f"must be a list of sizes, e.g. 3,32,32 (got {v!r})")
    return tuple(integer(name, x, low=1) for x in v)


def _jsonable(v: Any) -> Any:
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _jsonable(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in sorted(v.items())}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


class Keyed:
    """A spec's identity: its fields as JSON (:meth:`to_dict`) and a short hash of them (:meth:`key`)."""

    def to_dict(self) -> dict[str, Any]:
        """The spec's fields as JSON-ready data: nested specs as dicts, mappings sorted by key, tuples as lists."""
        out: dict[str, Any] = _jsonable(self)
        return out

    def key(self) -> str:
        """16 hex digits of the SHA-256 of the spec's canonical JSON: equal specs, equal keys."""
        raw = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


# --- problems -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class QuadraticSpec(Keyed):
    """An exact quadratic: built from ``targets`` (``QuadraticProblem.from_targets``: L, mu, sigma2, eps2, d, d_c,
    M, F), read from ``file`` (a JSON problem file, e.g. a saved counterexample), or given inline as ``data`` (a
    ``QuadraticProblem.to_dict()``). ``seed`` draws the targets' shifts and starting point; ``noise`` is the
    gradient-noise law of the targets' problem (a file or data states its own)."""

    kind: Literal["quadratic"] = "quadratic"
    targets: Mapping[str, float] = field(default_factory=dict)
    file: str | None = None
    data: Mapping[str, Any] | None = None
    noise: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        given = [n for n, v in (("file", self.file), ("data", self.data)) if v is not None]
        if len(given) > 1:
            raise ParameterError("problem.file", "a quadratic comes from a file or inline data, not both")
        if given and self.targets:
            raise ParameterError(f"problem.{next(iter(self.targets))}",
                                 "target constants build the default quadratic; not with a file")  # fmt: skip
        if self.noise is not None and self.noise not in NOISE_LAWS:
            raise ParameterError("problem.noise", f"must be one of {', '.join(NOISE_LAWS)} (got {self.noise!r})")
        for k, v in self.targets.items():
            if k not in QUADRATIC_TARGETS:
                raise ParameterError(f"problem.{k}", f"not a target constant ({', '.join(QUADRATIC_TARGETS)})")
            if k in INTEGER_TARGETS:
                integer(k, v, low=1)
            else:
                number(k, v)
        integer("problem.seed", self.seed, low=0)

    @property
    def M(self) -> int | None:
        """The number of clients where the spec states it (targets or inline data), else None (a file's)."""
        if "M" in self.targets:
            return int(self.targets["M"])
        if self.data is not None and isinstance(self.data.get("shifts"), list):
            return len(self.data["shifts"])
        return None


@dataclass(frozen=True, kw_only=True)
class ModelSpec(Keyed):
    """A registered model (sized to the data) or ``package.module:factory``, on a dataset (``verify.data.load``
    specs) with its test split or a seeded 20% holdout, split after ``cut`` (None: the middle cut) among
    ``clients`` clients partitioned by ``partition``; ``seed`` draws the initialisation and the partition."""

    kind: Literal["model"] = "model"
    model: str = "cnn"
    data: str = "digits"
    cut: str | None = None
    clients: int = 4
    partition: str = "iid"
    loss: str = "auto"
    input_shape: tuple[int, ...] | None = None
    eval_samples: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        text("problem.model", self.model)
        text("problem.data", self.data)
        if self.cut is not None:
            text("problem.cut", self.cut)
        integer("problem.clients", self.clients, low=1)
        partition_scheme("problem.partition", self.partition)
        text("problem.loss", self.loss)
        if self.eval_samples is not None:
            integer("problem.eval_samples", self.eval_samples, low=1)
        integer("problem.seed", self.seed, low=0)

    @property
    def M(self) -> int:
        """The number of clients, under the theorems' name."""
        return self.clients


ProblemSpec = QuadraticSpec | ModelSpec
MODEL_FIELDS = tuple(f.name for f in dataclasses.fields(ModelSpec) if f.name not in ("kind", "seed"))


def problem_from_mapping(m: Mapping[str, Any]) -> ProblemSpec:
    """A problem spec from its JSON form (``to_dict()``, or a sweep's ``problem`` table)."""
    kind = m.get("kind")
    if kind == "quadratic":
        return QuadraticSpec(**_known("problem", m, QuadraticSpec))
    if kind == "model":
        kw = _known("problem", m, ModelSpec)
        if kw.get("input_shape") is not None:
            kw["input_shape"] = shape("problem.input_shape", kw["input_shape"])
        for k in ("clients", "eval_samples", "seed"):
            if kw.get(k) is not None:
                kw[k] = integer(f"problem.{k}", kw[k], low=0 if k == "seed" else 1)
        return ModelSpec(**kw)
    raise ParameterError("problem.kind", f"must be 'quadratic' or 'model' (got {kind!r})")


def _known(prefix: str, m: Mapping[str, Any], cls: type) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    for k in m:
        if k not in names:
            raise ParameterError(f"{prefix}.{k}", f"unknown field (known: {', '.join(sorted(names))})")
    return {k: v for k, v in m.items() if v is not None or k == "cut"}


# --- a training run -------------------------------------------------------------------------------------------------

# the names of a run's flat form (a sweep file's, and the command line's after its flags are read), other than the
# algorithm's own parameters and the quadratic's target constants
RUN_KEYS = ("algorithm", "T", "batch", "seed", "problem", "problem_seed", "noise", "loop", "float64", "device",
            "client_time", "server_step", "bandwidth", "out", "checkpoint_every", "truncate",
            "record_every")  # fmt: skip
# a model problem's names in the flat form; ``loss_fn``, as ``loss`` is a recorded quantity
MODEL_KEYS = ("model", "data", "cut", "clients", "partition", "loss_fn", "input_shape", "eval_samples")
# flat name -> spec field, where they differ
FIELDS: dict[str, str] = {
    **{k: f"problem.{k}" for k in MODEL_KEYS if k != "loss_fn"}, "loss_fn": "problem.loss", "loop": "batched",
    "client_time": "time.client_time", "server_step": "time.server_step", "bandwidth": "time.bandwidth",
    "problem_seed": "problem.seed", "noise": "problem.noise",
}  # fmt: skip
NAMES = {v: k for k, v in FIELDS.items()} | {"problem.file": "problem"}


def name_of(field_name: str) -> str:
    """The flat (sweep-file) name of a spec field: ``problem.clients`` -> ``clients``."""
    return NAMES.get(field_name, field_name)


def device_name(name: str, v: Any) -> str:
    """``auto`` (CUDA when present), ``cpu``, ``cuda`` or ``cuda:N``."""
    if not isinstance(v, str) or not (v in ("auto", "cpu", "cuda") or (v.startswith("cuda:") and v[5:].isdigit())):
        raise ParameterError(name, f"must be auto, cpu, cuda or cuda:N (got {v!r})")
    return v


SCHEMES = ("iid", "dirichlet:ALPHA", "shards:K", "sorted")


def partition_scheme(name: str, scheme: Any) -> tuple[str, float]:
    """A client partition ``scheme`` (``iid``, ``dirichlet:ALPHA``, ``shards:K``, ``sorted``) as (kind, parameter):
    alpha for dirichlet, K for shards, 0 otherwise; an error names ``name``. Checked where a spec is made, so a
    scheme a run would not use (a measurement without clients) is refused too, never ignored."""
    if not isinstance(scheme, str):
        raise ParameterError(name, f"must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    kind, sep, arg = scheme.strip().partition(":")
    if kind in ("iid", "sorted") and not sep:
        return kind, 0.0
    if kind == "dirichlet" and sep:
        try:
            alpha = float(arg)
        except ValueError:
            raise ParameterError(name, f"dirichlet:ALPHA needs a number, got '{arg}'") from None
        if not math.isfinite(alpha) or alpha <= 0:
            raise ParameterError(name, f"dirichlet alpha must be a finite number > 0, got {arg}")
        return kind, alpha
    if kind == "shards" and sep:
        try:
            k = int(arg)
        except ValueError:
            raise ParameterError(name, f"shards:K needs an integer, got '{arg}'") from None
        if k < 1:
            raise ParameterError(name, f"shards:K needs K >= 1 shards per client, got {k}")
        return kind, float(k)
    raise ParameterError(name, f"must be one of {', '.join(SCHEMES)}, got '{scheme}'")


@dataclass(frozen=True, kw_only=True)
class TimeSpec(Keyed):
    """The straggler time model (``sfltheory.plan.timemodel.TimeModel``): seconds per client round on the whole
    model (one per client, or one for all), seconds per server step, bytes/s per client link (None: free)."""

    client_time: tuple[float, ...] = (1.0,)
    server_step: float = 0.01
    bandwidth: float | None = None

    def __post_init__(self) -> None:
        if not self.client_time:
            raise ParameterError("time.client_time", "needs at least one time")
        for t in self.client_time:
            number("time.client_time", t, positive=True)
        number("time.server_step", self.server_step, positive=True)
        if self.bandwidth is not None:
            number("time.bandwidth", self.bandwidth, positive=True)

    def times(self, M: int) -> tuple[float, ...]:
        """One time per client: a single time is every client's."""
        if len(self.client_time) == 1:
            return self.client_time * M
        if len(self.client_time) != M:
            raise ParameterError("time.client_time", f"one time per client: got {len(self.client_time)} times for "
                                 f"M = {M} clients")  # fmt: skip
        return self.client_time

    @classmethod
    def from_values(cls, *, client_time: Any = None, server_step: Any = None, bandwidth: Any = None) -> TimeSpec:
        """From a flat form's values: ``client_time`` a number, a list, or ``"1,1,5"``."""
        if isinstance(client_time, str):
            try:
                client_time = [float(x) for x in client_time.split(",")]
            except ValueError:
                raise ParameterError("time.client_time", f"must be comma-separated seconds (got {client_time!r})"
                                     ) from None  # fmt: skip
        times = client_time if isinstance(client_time, list | tuple) else [1.0 if client_time is None else client_time]
        step = 0.01 if server_step is None else number("time.server_step", server_step, positive=True)
        bw = None if bandwidth is None else number("time.bandwidth", bandwidth, positive=True)
        return cls(client_time=tuple(number("time.client_time", t, positive=True) for t in times), server_step=step,
                   bandwidth=bw)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class RunSpec(Keyed):
    """One training run (``sfltheory train``, a sweep's train configuration): the algorithm and its parameters
    (checked by the algorithm itself), the problem, ``T`` rounds of mini-batches of ``batch``, the run's ``seed``,
    the batched path or the per-client loop (the reference), the precision (quadratics always run in float64),
    the device, the time model (None: the stated default), where to checkpoint and resume (``truncate``: a
    ``T`` below what ``out`` holds writes rounds 0..T to ``out/truncated-T<T>``; else it is refused), and when to
    record ||grad f||^2 and the test accuracy (``record_every`` k: t = 0, the multiples of k and T; None: the
    trainer's ``"auto"`` schedule, recording within a quarter of the run)."""

    algorithm: str
    params: Mapping[str, Any] = field(default_factory=dict)
    problem: ProblemSpec = field(default_factory=ModelSpec)
    T: int = 100
    batch: int = 32
    seed: int = 0
    batched: bool = True
    float64: bool = False
    device: str = "auto"
    time: TimeSpec | None = None
    out: str | None = None
    checkpoint_every: int = 10
    truncate: bool = False
    record_every: int | None = None

    def __post_init__(self) -> None:
        text("algorithm", self.algorithm)
        rounds("T", self.T, low=1)
        integer("batch", self.batch, low=1)
        integer("seed", self.seed, low=0)
        integer("checkpoint_every", self.checkpoint_every, low=1)
        if self.record_every is not None:
            integer("record_every", self.record_every, low=1)
        device_name("device", self.device)
        if boolean("truncate", self.truncate) and self.out is None:
            raise ParameterError("truncate", "writes the first T rounds of the run saved in out: give out (--out DIR)")

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Keyed.to_dict`, leaving out ``truncate`` and ``record_every`` at their defaults: a run that uses
        neither keeps the key it had before they were fields."""
        out = super().to_dict()
        if not self.truncate:  # a run that truncates nothing keeps the key it had before truncate was a field
            out.pop("truncate", None)
        if self.record_every is None:  # nor does one on the default schedule, before record_every was
            out.pop("record_every", None)
        return out

    @property
    def dtype(self) -> str:
        """float64 on a quadratic (exact checks) or when asked; float32 otherwise."""
        return "float64" if (self.float64 or self.problem.kind == "quadratic") else "float32"


def run_problem(p: dict[str, Any], *, seed: int) -> ProblemSpec:
    """Take a run's problem out of its flat names ``p`` (removing them): see :meth:`RunSpec.from_mapping`."""
    problem = p.pop("problem", None)
    if problem is not None and (not isinstance(problem, str) or not problem):
        raise ParameterError("problem", f"must be 'quadratic' or a quadratic problem file (got {problem!r})")
    # the problem's seed is the run's unless given: an error names the one the user wrote
    pseed = integer("problem.seed" if "problem_seed" in p else "seed", p.pop("problem_seed", seed), low=0)
    noise = p.pop("noise", None)
    model = {k: p.pop(k) for k in MODEL_KEYS if k in p}
    if problem is None:
        if noise is not None:
            raise ParameterError("problem.noise", "is the noise law of a quadratic: add problem = 'quadratic'")
        if "M" in p:
            raise ParameterError("M", "the number of clients of a model problem is clients")
        kw = {FIELDS[k].split(".")[1]: v for k, v in model.items()}
        if kw.get("input_shape") is not None:
            kw["input_shape"] = shape("problem.input_shape", kw["input_shape"])
        if kw.get("cut") is not None and not isinstance(kw["cut"], str):
            kw["cut"] = str(integer("problem.cut", kw["cut"], low=1))
        for k in ("clients", "eval_samples"):
            if k in kw:
                kw[k] = integer(f"problem.{k}", kw[k], low=1)
        return ModelSpec(**kw, seed=pseed)
    clients = model.pop("clients", None)
    if model:
        raise ParameterError(FIELDS[next(iter(model))], "describes a model problem; not with a quadratic problem")
    if problem != "quadratic":
        if clients is not None:
            raise ParameterError("problem.clients", "the problem file fixes the clients (one row of shifts each)")
        if noise is not None:
            raise ParameterError("problem.noise", "the problem file fixes its noise law")
        return QuadraticSpec(file=problem, seed=pseed)
    targets = {k: p.pop(k) for k in QUADRATIC_TARGETS if k in p}
    if clients is not None:
        if "M" in targets:
            raise ParameterError("problem.clients", "given twice: as the number of clients and as M")
        targets["M"] = integer("problem.clients", clients, low=1)
    for k, v in targets.items():
        targets[k] = integer(k, v, low=1) if k in INTEGER_TARGETS else number(k, v)
    return QuadraticSpec(targets=targets, noise=None if noise is None else text("problem.noise", noise), seed=pseed)


# --- a verification -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CheckSpec(Keyed):
    """One result checked against a run (``sfltheory verify ID``, a sweep's verify configuration).

    ``problem`` None is the result's default problem (an exact quadratic, or the experiment's model). On an exact
    quadratic ``overrides`` replace constants in the bound (the run is unchanged); on a model they are given
    constants (those no run measures, or a measured one replaced), ``step`` is the theorem's step of a ``given``
    leg and ``params`` the algorithm's other parameters; the constants are measured at ``points`` rounds.
    ``seeds`` None: 24 Monte-Carlo seeds on a quadratic, 3 runs on a model; ``batch`` None: 4 on a quadratic,
    32 on a model.

    ``run``: a run that already exists (a ``run.json``, its folder, a CSV / JSON Lines log, a TensorBoard event
    folder) is checked instead of running one (:mod:`verify.pipeline.fromrun`): ``params`` are then the run's
    settings a log does not state, ``overrides`` given constants, ``constants`` measured records (their sup),
    ``tags`` the TensorBoard scalars, ``digest`` the SHA-256 of the files read (the check's identity: a changed
    file is never a stale cache hit). A check without a run has the key it had before these fields. ``tightest``:
    rounds R of the tightest bound (:mod:`verify.pipeline.tightest`; 0: not computed). ``device``:
    where a model problem trains and is measured (``cpu``, ``cuda``, ``cuda:N`` or ``auto``; an exact quadratic's
    moments are computed on the CPU, so it takes only ``cpu``)."""

    result: str
    T: int = 40
    seeds: int | None = None
    batch: int | None = None
    problem: ProblemSpec | None = None
    points: int = 3
    practical: bool = True
    step: float | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, float] = field(default_factory=dict)
    run: str | None = None
    constants: tuple[str, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)
    digest: str | None = None
    device: str = "cpu"
    tightest: int = 0

    def __post_init__(self) -> None:
        text("result", self.result)
        integer("tightest", self.tightest, low=0)
        if self.tightest > 30:
            raise ParameterError("tightest", f"must be at most 30 rounds (got {self.tightest}): the SDP grows as R^2")
        device_name("device", self.device)
        rounds("T", self.T, low=2)
        if self.run is not None:
            text("run", self.run)
        elif self.constants or self.tags:
            raise ParameterError("constants" if self.constants else "tags", "reads a run from disk: add run = PATH")
        for c in self.constants:
            text("constants", c)
        if self.seeds is not None:
            integer("seeds", self.seeds, low=1)
        if self.batch is not None:
            integer("batch", self.batch, low=1)
        integer("points", self.points, low=1)
        if self.step is not None:
            number("step", self.step, positive=True)
        for k, v in self.overrides.items():
            number(k, v)

    @property
    def on_model(self) -> bool:
        """Whether the check runs on a model problem (not the exact quadratic)."""
        return self.problem is not None and self.problem.kind == "model"

    def batch_size(self, on_model: bool) -> int:
        """The mini-batch size: ``batch`` when given, else 32 on a model problem and 4 on a quadratic."""
        return self.batch if self.batch is not None else (32 if on_model else 4)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Keyed.to_dict`, leaving out ``run``, ``constants``, ``tags`` and ``digest`` for a check that reads no
        run, and ``device`` for one on the CPU: such checks keep the keys they had before those fields existed."""
        out = super().to_dict()
        if self.run is None:  # a check that reads no run keeps the key it had before runs could be read
            for k in ("run", "constants", "tags", "digest"):
                out.pop(k, None)
        if self.device == "cpu":  # nor a check on the CPU the key it had before checks ran elsewhere
            out.pop("device", None)
        if not self.tightest:  # nor one without the tightest bound
            out.pop("tightest", None)
        return out


@dataclass(frozen=True, kw_only=True)
class TrendSpec(Keyed):
    """One trend check (a claim about how convergence changes: ``tau_sweep``, ``cut_sweep``, ``cut_invariance``,
    ``sl_vs_fedavg``, ``client_speedup``) with its settings (the check's own defaults where not given)."""

    name: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        text("trend", self.name)


__all__ = [
    "DTYPES",
    "FIELDS",
    "FLAGS",
    "INTEGER_TARGETS",
    "MAX_ROUNDS",
    "MODEL_FIELDS",
    "MODEL_KEYS",
    "NAMES",
    "NOISE_LAWS",
    "QUADRATIC_TARGETS",
    "RUN_KEYS",
    "SCHEMES",
    "CheckSpec",
    "Keyed",
    "ModelSpec",
    "ProblemSpec",
    "QuadraticSpec",
    "RunSpec",
    "TimeSpec",
    "TrendSpec",
    "boolean",
    "device_name",
    "flag",
    "integer",
    "name_of",
    "named_by",
    "number",
    "partition_scheme",
    "problem_from_mapping",
    "rounds",
    "run_problem",
    "shape",
    "text",
]
