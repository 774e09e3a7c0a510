r"""A worst case replayed by the trainer, and a claimed bound refuted by a concrete function.

:func:`replay` turns the SDP's solution into concrete functions (one L-smooth interpolant per client,
:mod:`verify.pep.interpolant`; Taylor, Hendrickx and Glineur, Math. Program. 161, 2017, Thm. 3.10 with
:math:`\mu = -L`), runs the trainer's own algorithm on them (:class:`verify.problems.InterpolatedProblem`, the
per-client reference path, deterministic) and measures the left-hand side the spec names:

* ``avg``: :math:`\frac1R\sum_{t<R}\|\nabla f(x^t)\|^2`, ``eta_avg`` the step :math:`\eta` times it;
* ``min``, ``min_server``: :math:`\min_{t<R}\|\nabla f(x^t)\|^2` (sfl_aux: the server model's iterates; the client
  coordinate is then a dummy none of the :math:`f_m` sees, so the trainer's global model is the server's);
* ``at_average``: :math:`\|\nabla f(\bar x^R)\|^2`, :math:`\bar x^R = \frac1R\sum_{t<R}x^t`, the iterates read
  through the trainer's ``observe`` hook.

For an exact spec (one client) the value measured is the SDP's up to the solver's tolerance: the worst case is
attained. :func:`refute` uses this: a bound below the exact worst case is false, and the instance, rescaled to
:math:`f(x^0) - f^* = F` exactly (:math:`f \mapsto \alpha^2 f(\cdot/\alpha)` keeps L and scales the left-hand side
like F), is a counterexample anyone can rerun from its JSON (:meth:`Refutation.to_json`).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from sfltheory.datafiles import json_file
from sfltheory.errors import ParameterError
from verify.problems import InterpolatedProblem
from verify.train import get, run

from .interpolant import Interpolant, instance
from .worst import ClassWorstCase, WorstCaseSpec, worst_case

__all__ = ["FORMAT", "Refutation", "Replay", "refutation_record", "refute", "replay", "replay_file", "trainer_params"]

# The rescaled instance's f(x^0) - f* is F times this: rounding must not put it above F.
_BELOW = 1.0 - 1e-12


def trainer_params(spec: WorstCaseSpec) -> dict[str, Any]:
    """The trainer's parameters for ``spec``'s algorithm: the spec's that it takes (integral ones as int), SL's
    clients in the fixed order 1..M, and every client in every round (``n = 0``, the default)."""
    takes = {s.name: s for s in get(spec.algorithm).takes}
    out: dict[str, Any] = {}
    for k, v in spec.params.items():
        if k in takes:
            out[k] = int(v) if takes[k].kind == "int" else v
    if spec.algorithm == "sl":
        out["order"] = "fixed"
    return out


@dataclass(frozen=True, kw_only=True)
class Replay:
    """The trainer's run on a worst case's instance: ``series`` (:math:`\\|\\nabla f(x^t)\\|^2`, t = 0..R), the
    left-hand side ``lhs`` it gives (``measured``), the SDP's ``value``, the instance's ``F`` (:math:`f(x^0) - f^*`;
    None for several clients, where it is not computed exactly), and ``command``, how to rerun it."""

    algorithm: str
    lhs: str
    R: int
    series: tuple[float, ...]
    measured: float
    value: float
    F: float | None
    command: str
    problem: InterpolatedProblem = field(repr=False, compare=False)

    @property
    def relative_gap(self) -> float:
        """``|measured - value| / max(|value|, tiny)``."""
        return abs(self.measured - self.value) / max(abs(self.value), 1e-300)


def _problem(spec: WorstCaseSpec, fs: list[Interpolant], x0: np.ndarray) -> InterpolatedProblem:
    split = "dummy" if spec.algorithm == "sfl_aux" else None  # sfl_aux: the iterate is the server model alone
    return InterpolatedProblem(fs, x0, split=split, name=f"worst case of {spec.algorithm}, R = {spec.R}")


def _measure(spec: WorstCaseSpec, problem: InterpolatedProblem) -> tuple[tuple[float, ...], float, str]:
    """Run the trainer on ``problem``; the series, the left-hand side and the command."""
    params = trainer_params(spec)
    states: list[np.ndarray] = []

    def observe(t: int, pc: Any, ps: Any) -> None:
        states.append(torch.cat([pc["x"], ps["x"]]).detach().double().cpu().numpy().copy())

    out = run(get(spec.algorithm)(**params), problem, T=spec.R, batch=1, seed=0, progress=False, batched=False,
              observe=observe)  # fmt: skip
    if out.status != "complete":
        raise ParameterError("replay", f"the trainer's run of {spec.algorithm} stopped: {out.status} {out.message}")
    g = out.series("gradnorm2")
    seen = g[: spec.R]
    if spec.lhs == "at_average":
        xbar = np.mean(states[: spec.R], axis=0)
        dev, dt = problem.device, problem.dtype
        grad = problem.full_gradient({"x": torch.as_tensor(xbar[:1], device=dev, dtype=dt)},
                                     {"x": torch.as_tensor(xbar[1:], device=dev, dtype=dt)})  # fmt: skip
        measured = grad.sqnorm_client + grad.sqnorm_server
    elif spec.lhs in ("min", "min_server"):
        measured = float(seen.min())
    else:
        measured = float(seen.mean()) * (float(spec.params["eta"]) if spec.lhs == "eta_avg" else 1.0)
    words = ", ".join(f"{k}={v!r}" for k, v in params.items())
    command = (f"verify.train.run(get({spec.algorithm!r})({words}), InterpolatedProblem.from_dict(<problem>), "
               f"T={spec.R}, batch=1, seed=0, batched=False), then the {spec.lhs} of ||grad f(x^t)||^2")  # fmt: skip
    return tuple(float(v) for v in g), float(measured), command


def replay(wc: ClassWorstCase, spec: WorstCaseSpec, *, normalise: bool = False) -> Replay:
    """Run ``spec``'s algorithm with the trainer on ``wc``'s instance (``wc = worst_case(spec)``) for ``spec.R``
    rounds and measure ``spec.lhs``. ``normalise`` (one client): rescale the instance so that its
    :math:`f(x^0) - f^*` is ``spec.F`` (times 1 - 1e-12, so rounding cannot exceed it) -- the SDP meets its
    constraint up to the solver's tolerance only."""
    fs, x0 = instance(wc)
    value = wc.value
    if normalise and spec.M == 1:
        F0 = _problem(spec, fs, x0).F()
        if F0 > 0:
            alpha = math.sqrt(spec.F / F0 * _BELOW)
            fs, x0 = [f.scaled(alpha) for f in fs], x0 * alpha
            value *= alpha**2
    problem = _problem(spec, fs, x0)
    series, measured, command = _measure(spec, problem)
    F = problem.F() if spec.M == 1 else None
    return Replay(algorithm=spec.algorithm, lhs=spec.lhs, R=spec.R, series=series, measured=measured, value=value,
                  F=F, command=command, problem=problem)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Refutation:
    """A bound shown false: the SDP's exact worst case ``value`` exceeds ``bound``, and the trainer, run on the
    concrete instance ``problem`` (its :meth:`~verify.problems.InterpolatedProblem.to_dict`, with
    :math:`f(x^0) - f^* = F \\le` ``spec.F``), measures ``measured`` > ``bound``."""

    spec: WorstCaseSpec
    bound: float
    value: float
    measured: float
    F: float
    command: str
    problem: dict[str, Any] = field(repr=False, compare=False)

    def message(self) -> str:
        """One line: the bound, what was measured and on what."""
        s = self.spec
        return (f"the bound {self.bound:.6g} on {s.lhs} of {s.algorithm} (R = {s.R}, L = {s.L:g}, F = {s.F:g}) is "
                f"invalid: an L-smooth function with f(x0) - f* = {self.F:.6g} gives {self.measured:.6g} "
                f"(exact worst case {self.value:.6g})")  # fmt: skip

    def to_json(self) -> str:
        """The counterexample's problem file (``InterpolatedProblem.from_dict`` reads it back)."""
        return json.dumps(self.problem)


def refute(spec: WorstCaseSpec, bound: float, *, wc: ClassWorstCase | None = None) -> Refutation | None:
    """Solve ``spec``'s worst case (or take ``wc``, already solved); where it is exact (one client) and exceeds
    ``bound``, replay it (rescaled to :math:`f(x^0) - f^* = F`) and return the refutation, its measured value above
    ``bound``. None where the worst case does not exceed the bound, where it is a relaxation (nothing concrete attains
    it), or where it exceeds the bound by less than the replay's precision (a relative 1e-6) and the measured value
    does not."""
    b = float(bound)
    if not math.isfinite(b):
        raise ParameterError("bound", f"must be a finite number (got {bound!r})")
    wc = worst_case(spec) if wc is None else wc
    if not spec.exact or not wc.value > b:
        return None
    r = replay(wc, spec, normalise=True)
    assert r.F is not None
    if r.F > spec.F:
        raise ParameterError("refute", f"the rescaled instance has f(x0) - f* = {r.F!r} > F = {spec.F!r}")
    if not r.measured > b:
        if wc.value > b + 1e-6 * abs(b) + 1e-12:
            raise ParameterError("refute", f"the replay measured {r.measured:.10g}, the SDP's worst case is "
                                 f"{wc.value:.10g}: the instance does not reproduce it")  # fmt: skip
        return None
    return Refutation(spec=spec, bound=b, value=r.value, measured=r.measured, F=r.F, command=r.command,
                      problem=r.problem.to_dict())  # fmt: skip


FORMAT = "sfltheory.refutation/1"


def refutation_record(ref: Refutation, *, result: str, T: int, step: float) -> dict[str, Any]:
    """A refutation as the JSON file ``python -m verify.pep FILE`` replays: the result and the point (T, step), the
    worst-case problem (``spec``), the bound, the values, and the concrete instance."""
    spec = {**dataclasses.asdict(ref.spec), "params": dict(ref.spec.params)}
    return {"format": FORMAT, "result": result, "T": T, "step": step, "spec": spec, "bound": ref.bound,
            "value": ref.value, "measured": ref.measured, "F": ref.F, "problem": ref.problem}  # fmt: skip


def replay_file(path: str) -> tuple[float, float, str]:
    """Replay a :func:`refutation_record` file with the trainer: (measured, bound, one line saying what it shows)."""
    raw = json_file(path, "FILE")
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ParameterError("FILE", f"{path} is not a {FORMAT} record (verify ID --tightest --out DIR writes them)")
    try:
        spec = WorstCaseSpec(**raw["spec"])
        bound = float(raw["bound"])
    except (KeyError, TypeError) as e:
        raise ParameterError("FILE", f"{path}: field {e} is missing or malformed") from None
    problem = InterpolatedProblem.from_dict(raw["problem"])
    _, measured, _ = _measure(spec, problem)
    F = problem.F() if spec.M == 1 else None
    verdict = "bound invalid" if measured > bound and F is not None and F <= spec.F else "not refuted"
    line = (f"{raw.get('result', '?')} at T = {raw.get('T')}: the trainer's {spec.algorithm} on this L-smooth "
            f"function (L = {spec.L:g}, f(x0) - f* = {F if F is None else f'{F:.6g}'}) gives {spec.lhs} = "
            f"{measured:.6g} against the bound {bound:.6g}: {verdict}")  # fmt: skip
    return measured, bound, line
