r"""The trainer's first-order algorithms, run on the symbolic vectors of a performance-estimation problem.

Each function takes the clients' functions (:class:`verify.pep.classes.SmoothFunction`) and the starting point,
queries gradients exactly where the trainer's algorithm of the same name does (with full local gradients: the
deterministic part of a stochastic theorem, :math:`\sigma^2 = 0`), and returns the global iterates
:math:`x^0, \dots, x^R`. ``tests/verify/pep/test_methods.py`` checks each against the trainer on a quadratic.

* ``fedavg`` (sl_noniid Algorithm 2): every client makes K steps from :math:`x^r`;
  :math:`x^{r+1} = x^r + \eta_g \frac1M\sum_m (y_m^K - x^r)`.
* ``sl`` (sl_noniid Algorithm 1, eqs. (2)-(4), clients in the fixed order 1..M): client m starts where client m-1
  stopped; :math:`x^{r+1} = x^r + \eta_g (y^{MK} - x^r)`.
* ``sfl_v1_analysed`` (cut_layer App. B): FedAvg with :math:`\eta_g = 1` and the step :math:`\eta`, whatever the cut.
* ``sfl_aux`` (sfl_aux Algorithm 1, lines 8-17, its server side): in round t with :math:`t \equiv 0 \pmod l`,
  :math:`t \ne 0`, the server steps :math:`x_S \leftarrow x_S - \mu\nabla F_i^s(x_S)` once per client, in sequence;
  the iterates are the server model's. With n of M clients drawn with replacement each round
  (:func:`sfl_aux_sampled`) the worst case is over the expectation: every sequence of draws is a path.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .classes import SmoothFunction
from .gram import Vec

__all__ = ["METHODS", "fedavg", "run", "run_paths", "sfl_aux", "sfl_aux_sampled", "sl"]


def _local(f: SmoothFunction, y: Vec, eta: float, K: int) -> Vec:
    for _ in range(K):
        y = y - eta * f.grad(y)
    return y


def fedavg(fs: Sequence[SmoothFunction], x0: Vec, *, R: int, K: int, eta_l: float, eta_g: float = 1.0) -> list[Vec]:
    """FedAvg with a global step: R rounds of K local gradient steps per client, then the averaged update."""
    xs = [x0]
    for _ in range(R):
        x = xs[-1]
        delta = Vec({})
        for f in fs:
            delta = delta + (1.0 / len(fs)) * (_local(f, x, eta_l, K) - x)
        xs.append(x + eta_g * delta)
    return xs


def sl(fs: Sequence[SmoothFunction], x0: Vec, *, R: int, K: int, eta_l: float, eta_g: float = 1.0) -> list[Vec]:
    """Split learning with a global step: the clients one after another, K steps each, then the global step."""
    xs = [x0]
    for _ in range(R):
        x = xs[-1]
        y = x
        for f in fs:
            y = _local(f, y, eta_l, K)
        xs.append(x + eta_g * (y - x))
    return xs


def sfl_aux(fs: Sequence[SmoothFunction], x0: Vec, *, R: int, eta: float, period: int = 1) -> list[Vec]:
    """The server model of sfl_aux: one step per client, in sequence, in each server round (every ``period``-th,
    the paper's l)."""
    xs = [x0]
    for t in range(R):
        x = xs[-1]
        if t % period == 0 and t != 0:
            for f in fs:
                x = x - eta * f.grad(x)
        xs.append(x)
    return xs


def sfl_aux_sampled(fs: Sequence[SmoothFunction], x0: Vec, *, R: int, eta: float, period: int, n: int
                    ) -> list[list[tuple[float, Vec]]]:  # fmt: skip
    r"""The server model of sfl_aux under partial participation (Sec. 3's second strategy): each server round draws
    n clients uniformly *with replacement*, in order, and steps once per draw. Every sequence of draws is a path
    of probability :math:`M^{-n}` a round; returned per t: the distinct iterates with their probabilities (a tree
    of :math:`M^{n\cdot(\text{server rounds})}` leaves, merged where paths meet), for t = 0..R-1."""
    layers = [[(1.0, x0)]]
    for t in range(R - 1):  # t = 0..R-1 only: the left-hand side reads those; x^R would multiply the tree by M^n
        nodes = layers[-1]
        if t % period == 0 and t != 0:
            grown: dict[tuple[tuple[int, float], ...], tuple[float, Vec]] = {}
            for p, x in nodes:
                for draws in itertools.product(range(len(fs)), repeat=n):
                    y = x
                    for m in draws:
                        y = y - eta * fs[m].grad(y)
                    q, _ = grown.get(y.key(), (0.0, y))
                    grown[y.key()] = (q + p / len(fs) ** n, y)
            nodes = list(grown.values())
        layers.append(nodes)
    return layers


METHODS = ("fedavg", "sl", "sfl_v1_analysed", "sfl_aux")


def run_paths(algorithm: str, fs: Sequence[SmoothFunction], x0: Vec, R: int, params: dict[str, float],
              n: int = 0) -> list[list[tuple[float, Vec]]]:  # fmt: skip
    """The iterates of :func:`run` as one path of probability 1 per t, or, for sfl_aux drawing ``n`` > 0 clients a
    round, every path of :func:`sfl_aux_sampled`."""
    if n and algorithm == "sfl_aux":
        return sfl_aux_sampled(fs, x0, R=R, eta=float(params["eta"]), period=int(params.get("l", 1)), n=n)
    return [[(1.0, x)] for x in run(algorithm, fs, x0, R, params)]


def run(algorithm: str, fs: Sequence[SmoothFunction], x0: Vec, R: int, params: dict[str, float]) -> list[Vec]:
    """The iterates of ``algorithm`` (one of :data:`METHODS`) with its parameters (``K``, ``eta_l``, ...)."""
    if algorithm == "sfl_aux":
        return sfl_aux(fs, x0, R=R, eta=float(params["eta"]), period=int(params.get("l", 1)))
    if algorithm == "sfl_v1_analysed":  # FedAvg with eta_g = 1 and the one step eta (cut_layer App. B)
        return fedavg(fs, x0, R=R, K=int(params["K"]), eta_l=float(params["eta"]))
    local = sl if algorithm == "sl" else fedavg
    return local(fs, x0, R=R, K=int(params["K"]), eta_l=float(params["eta_l"]), eta_g=float(params.get("eta_g", 1.0)))
