r"""Exact first and second moments of a first-order algorithm on a quadratic with Gaussian noise.

On :class:`~verify.problems.QuadraticProblem` every first-order algorithm of the registry is a linear
recursion: one round maps the state s (every tensor the algorithm keeps: global models, server copies,
auxiliary heads) and the round's noise draws :math:`\xi` (i.i.d. :math:`\mathcal N(0, \frac{\sigma^2}{d}I_d)`,
one per sample) affinely,

.. math:: s^{t+1} = A_t s^t + c_t + N_t \xi^t,

so the mean and covariance propagate exactly,

.. math:: \mu^{t+1} = A_t\mu^t + c_t,\qquad \Sigma^{t+1} = A_t\Sigma^t A_t^\top + \tfrac{\sigma^2}{d} N_tN_t^\top,

and :math:`\mathbb E\|\nabla f(x^t)\|^2 = \|H(\mu_x^t - \bar b)\|^2 + \operatorname{tr}(H\Sigma_{xx}^tH)` exactly
(x the global model inside s). A bound below this number is violated for certain, not in a statistical sense.

The maps are read off the algorithm's own code, not re-derived: the round is run on a copy of the problem whose
noise is injected (zero, or one unit coordinate of one sample), at s = 0 and at the unit vectors, which gives
:math:`c_t`, the columns of :math:`A_t` and of :math:`N_t` exactly (the map is affine; float64 rounding is the only
error). Rounds whose maps coincide (checked at random probe points: two different affine maps agree on a random
point with probability 0) share one computation, so a time-invariant algorithm costs one map for all T.

Requirements, checked: the algorithm draws no discrete randomness in a round (client order, participation), so
``order=fixed`` and full participation; zeroth-order algorithms are not linear in the noise -- use Monte Carlo.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.batch import Batch
from verify.problems import QuadraticProblem
from verify.train.base import Context, Counters, SplitAlgorithm
from verify.train.loop import check_budget

# --- flattening an algorithm state (nested dicts and lists of tensors) -----------------------------------------


def _leaves(state: Any, prefix: str = "") -> list[tuple[str, Tensor]]:
    if isinstance(state, Tensor):
        return [(prefix, state)]
    if isinstance(state, dict):
        return [leaf for k in sorted(state) for leaf in _leaves(state[k], f"{prefix}/{k}")]
    if isinstance(state, list | tuple):
        return [leaf for i, v in enumerate(state) for leaf in _leaves(v, f"{prefix}/{i}")]
    return []


def _rebuild(state: Any, values: dict[str, Tensor], prefix: str = "") -> Any:
    if isinstance(state, Tensor):
        return values[prefix]
    if isinstance(state, dict):
        return {k: _rebuild(v, values, f"{prefix}/{k}") for k, v in state.items()}
    if isinstance(state, list):
        return [_rebuild(v, values, f"{prefix}/{i}") for i, v in enumerate(state)]
    if isinstance(state, tuple):
        return tuple(_rebuild(v, values, f"{prefix}/{i}") for i, v in enumerate(state))
    return state


@dataclass(frozen=True)
class StateLayout:
    """Where each tensor of an algorithm state sits in the flat vector s."""

    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    template: Any

    @classmethod
    def of(cls, state: Any) -> StateLayout:
        """The layout of ``state``: its tensors in a fixed order (dict keys sorted, lists by index), named by path
        (``/client/x``), with their shapes; ``state`` itself is kept as the template :meth:`unflat` rebuilds."""
        leaves = _leaves(state)
        return cls(tuple(n for n, _ in leaves), tuple(tuple(v.shape) for _, v in leaves), state)

    @property
    def size(self) -> int:
        """The dimension of s: the number of scalars in all the state's tensors."""
        return int(sum(int(np.prod(s)) for s in self.shapes))

    def flat(self, state: Any) -> np.ndarray:
        """A state of this layout as the flat vector s (float64, on the CPU)."""
        return np.concatenate([v.detach().double().reshape(-1).cpu().numpy() for _, v in _leaves(state)])

    def unflat(self, vec: np.ndarray) -> Any:
        """The state for a flat vector s: the template's structure with CPU float64 tensors copied from ``vec``."""
        values: dict[str, Tensor] = {}
        i = 0
        for n, s in zip(self.names, self.shapes, strict=True):
            k = int(np.prod(s))
            values[n] = torch.from_numpy(vec[i : i + k].copy()).reshape(s)
            i += k
        return _rebuild(self.template, values)

    def slice_of(self, name: str) -> slice:
        """Where the tensor at path ``name`` (``/server/x``) sits in s (a ``KeyError`` for a path the state lacks)."""
        i = 0
        for n, s in zip(self.names, self.shapes, strict=True):
            k = int(np.prod(s))
            if n == name:
                return slice(i, i + k)
            i += k
        raise KeyError(name)


# --- the probe problem: the same quadratic, with its noise injected --------------------------------------------


class _Injected(QuadraticProblem):
    """The quadratic with every sample's noise vector taken from ``source`` instead of drawn."""

    def __init__(self, base: QuadraticProblem) -> None:
        super().__init__(base.H, base.b, base.x0, base.d_c, base.sigma2, dtype=torch.float64, name=base.name)
        self.source: Callable[[int], Tensor] = lambda n: torch.zeros(n, self.d, dtype=torch.float64)

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        xi = self.source(size)
        y = torch.cat([xi, self.b[m].expand(size, self.d)], 1)
        return Batch(torch.zeros(size, 1, dtype=torch.float64), y, torch.ones(size, dtype=torch.float64))


class _Counter:
    def __init__(self, d: int) -> None:
        self.d, self.n = d, 0

    def __call__(self, size: int) -> Tensor:
        self.n += size * self.d
        return torch.zeros(size, self.d, dtype=torch.float64)


class _Unit:
    """Noise that is zero except coordinate ``j`` of the flat sequence of every sample's vector."""

    def __init__(self, d: int, j: int) -> None:
        self.d, self.j, self.pos = d, j, 0

    def __call__(self, size: int) -> Tensor:
        out = torch.zeros(size * self.d, dtype=torch.float64)
        if self.pos <= self.j < self.pos + size * self.d:
            out[self.j - self.pos] = 1.0
        self.pos += size * self.d
        return out.reshape(size, self.d)


@dataclass(frozen=True)
class RoundMap:
    """s' = A s + c + N xi for one round (xi: the round's noise, all samples' vectors concatenated)."""

    A: np.ndarray
    c: np.ndarray
    N: np.ndarray


@dataclass(frozen=True)
class Moments:
    """Exact E||grad f(x^t)||^2 for t = 0..T, with the mean/covariance parts, and how many distinct maps."""

    gradnorm2: np.ndarray  # E||grad f(x^t)||^2
    mean_part: np.ndarray  # ||H (mu_x^t - bbar)||^2
    noise_part: np.ndarray  # tr(H Sigma_xx^t H)
    maps: int
    gradnorm2_server: np.ndarray | None = None  # E||grad_{x_S} f(x^t)||^2: the server rows of the same

    def series(self, name: str) -> np.ndarray:
        """A recorded quantity by its run-record name: ``gradnorm2`` or ``gradnorm2_server``."""
        if name == "gradnorm2":
            return self.gradnorm2
        if name == "gradnorm2_server" and self.gradnorm2_server is not None:
            return self.gradnorm2_server
        raise KeyError(name)

    @property
    def avg(self) -> np.ndarray:
        """(1/(t+1)) sum_{k<=t} E||grad f(x^k)||^2: the left-hand side of the average-type theorems at T = t+1."""
        return np.cumsum(self.gradnorm2) / np.arange(1, len(self.gradnorm2) + 1)

    @property
    def min(self) -> np.ndarray:
        """min_{k<=t} E||grad f(x^k)||^2."""
        return np.minimum.accumulate(self.gradnorm2)


Step = Callable[..., np.ndarray]  # step(t, flat state, noise source, ctx_seed=seed) -> the flat state after round t


def _stepper(
    algorithm: SplitAlgorithm, problem: QuadraticProblem, *, batch: int, seed: int
) -> tuple[Any, StateLayout, Step]:
    """The algorithm's initial state, its flat layout, and one round as a function of a flat state and a noise
    source (what the round maps are built from)."""
    probe = _Injected(problem)
    state0 = algorithm.init_state(probe, probe.init())
    layout = StateLayout.of(state0)

    def step(t: int, s: np.ndarray, source: Callable[[int], Tensor], ctx_seed: int = seed) -> np.ndarray:
        probe.source = source
        state = layout.unflat(s)
        ctx = Context(problem=probe, t=t, seed=ctx_seed, batch_size=batch, batched=False, counters=Counters())
        algorithm.round(t, state, ctx)
        return layout.flat(state)

    return state0, layout, step


def round_seconds(algorithm: SplitAlgorithm, problem: QuadraticProblem, *, batch: int = 1, probes: int = 2) -> float:
    """The time of one exact round once its map is known, before any is built: the 2 + ``probes`` rounds of the
    algorithm that identify the round's map (:func:`exact_moments` runs them every round) and the covariance
    update ``A C A^T`` on a state of this size. A check refuses a T whose rounds would exceed the time budget
    with this (the first rounds, which build maps, say little of the rest)."""
    state0, layout, step = _stepper(algorithm, problem, batch=batch, seed=0)
    D = layout.size
    s = layout.flat(state0)
    A = np.eye(D)
    start = time.perf_counter()
    for _ in range(2 + probes):
        step(0, s, _Counter(problem.d))
    _ = A @ np.eye(D) @ A.T
    return time.perf_counter() - start


def exact_moments(
    algorithm: SplitAlgorithm, problem: QuadraticProblem, *, T: int, batch: int = 1, seed: int = 0, probes: int = 2
) -> Moments:
    """Exact moments of ``algorithm`` on ``problem`` over T rounds (see the module docstring)."""
    if not isinstance(problem, QuadraticProblem):
        raise ParameterError("problem", "exact moments need a QuadraticProblem (Gaussian noise, linear gradients)")
    state0, layout, step = _stepper(algorithm, problem, batch=batch, seed=seed)
    D = layout.size

    rng = np.random.default_rng(0)
    points = [rng.standard_normal(D) for _ in range(probes)]
    cache: list[tuple[list[np.ndarray], RoundMap]] = []

    def map_for(t: int) -> RoundMap:
        zero = _Counter(problem.d)
        c = step(t, np.zeros(D), zero)
        fingerprint = [step(t, p, _Counter(problem.d)) for p in points]
        other = step(t, np.zeros(D), _Counter(problem.d), ctx_seed=seed + 1)
        if not np.array_equal(other, c):
            raise ParameterError(
                "algorithm",
                f"'{algorithm.name}' draws discrete randomness in a round (client order or participation): "
                "exact moments need order=fixed and every client each round; use Monte Carlo over seeds",
            )
        for fp, m in cache:
            if all(np.array_equal(a, b) for a, b in zip(fp, fingerprint, strict=True)):
                return m
        A = np.empty((D, D))
        for i in range(D):
            e = np.zeros(D)
            e[i] = 1.0
            A[:, i] = step(t, e, _Counter(problem.d)) - c
        n = zero.n
        N = np.empty((D, n))
        for j in range(n):
            N[:, j] = step(t, np.zeros(D), _Unit(problem.d, j)) - c
        m = RoundMap(A, c, N)
        for p, out in zip(points, fingerprint, strict=True):  # the map is affine: it must reproduce the probes
            if not np.allclose(A @ p + c, out, rtol=1e-9, atol=1e-9 * (1 + np.abs(out).max())):
                raise ParameterError("algorithm", f"'{algorithm.name}' is not affine in its state on a quadratic")
        cache.append((fingerprint, m))
        return m

    xs = np.r_[layout.slice_of("/client/x"), layout.slice_of("/server/x")]
    H = problem.H.double().cpu().numpy()
    bbar = problem.b.double().cpu().numpy().mean(0)
    mu = layout.flat(state0)
    cov = np.zeros((D, D))
    s2 = problem.sigma2 / problem.d
    mean_part, noise_part, server_part = [], [], []
    srv = slice(problem.d_c, problem.d)  # the server's rows of grad f

    def record() -> None:
        g = H @ (mu[xs] - bbar)
        hch = H @ cov[np.ix_(xs, xs)] @ H
        mean_part.append(float(g @ g))
        noise_part.append(float(np.trace(hch)))
        server_part.append(float(g[srv] @ g[srv] + np.trace(hch[srv, srv])))

    record()
    for t in range(T):
        start = time.perf_counter()
        m = map_for(t)
        mu = m.A @ mu + m.c
        cov = m.A @ cov @ m.A.T + s2 * (m.N @ m.N.T)
        record()
        if t == 1 and T > 2:  # round 2 times the rest (round 1 builds the map the later rounds mostly reuse)
            check_budget(T, time.perf_counter() - start, T=T, took="round 2")
    mp, npart = np.asarray(mean_part), np.asarray(noise_part)
    return Moments(mp + npart, mp, npart, len(cache), np.asarray(server_part))
