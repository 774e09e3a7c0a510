"""The progress bar of :func:`~verify.constants.measure.measure` and its estimate of the whole measurement's time.

The estimate counts the work in passes over all the data (a pass: the gradient of every client, which is timed
first) and multiplies by the measured time of a pass; the costs of the other pieces, in passes, were measured on
the README example (see :data:`HVP_PASSES`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from torch import Tensor

from verify.ops.objective import Objective, Params

from .heterogeneity import client_gradients


class Progress:
    """A tqdm bar over the measurement's steps (stderr), or nothing."""

    def __init__(self, enabled: bool | Callable[[str], None], total: int) -> None:
        self.cb = enabled if callable(enabled) else None
        self.bar: Any = None
        if enabled is True:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="measure", unit="step", leave=False)

    def step(self, what: str) -> None:
        """One step done: the bar advances and shows ``what``; a callback gets ``what``."""
        if self.bar is not None:
            self.bar.set_postfix_str(what)
            self.bar.update(1)
        if self.cb is not None:
            self.cb(what)

    def estimate(self, seconds: float) -> None:
        """Show the estimated time of the whole measurement before the long work begins."""
        text = f"est. {_duration(seconds)}"
        if self.bar is not None:
            self.bar.set_description(f"measure ({text})")
        if self.cb is not None:
            self.cb(text)

    def close(self) -> None:
        """Remove the bar from the terminal (nothing without one)."""
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


# The cost of each piece of work in passes over all the data (a pass: the gradient of every client, timed first).
# Measured on the README example (FedAvg CNN on digits, 1 thread, CPU time): a pass 0.19 s, the per-sample norms
# of every client 0.30 s (1.6 passes), a Hessian-vector product of the whole model 0.18 s (1 pass: the first-order
# graphs are kept between products), a block's less; a Lanczos run took 25-35 products at tol 1e-3.
HVP_PASSES = 1.0
PERSAMPLE_PASSES = 1.6
LANCZOS_PRODUCTS = 30


def client_gradients_timed(obj: Objective, cl: list[Tensor], x: Params) -> tuple[list[Params], float]:
    """grad f_m of every client, and the seconds one pass over all the data takes. The first client's pass also
    pays one-time costs (allocations, kernel selection: 1.25 s of CPU against 0.19 s for a later pass, FedAvg
    CNN on digits), so the rate is taken from the clients after it when there are any."""
    gm: list[Params] = []
    marks = [time.perf_counter()]
    for idx in cl:
        gm.extend(client_gradients(obj, [idx], x))
        marks.append(time.perf_counter())
    first = int(cl[0].numel())
    if len(cl) > 1 and obj.n > first:
        return gm, (marks[-1] - marks[1]) * obj.n / (obj.n - first)
    return gm, marks[-1] - marks[0]


def estimated_passes(groups: set[str], parts: list[str], probes: int, zo: int) -> float:
    """Estimated work of the whole measurement, in passes (see :data:`HVP_PASSES`); ``zo`` is the number of
    zeroth-order function evaluations (each about a third of a pass)."""
    views = _views(parts)
    p = PERSAMPLE_PASSES * ("sigma2" in groups)
    hvps = LANCZOS_PRODUCTS * views * bool(groups & {"L", "L_min", "kappa"}) + (probes // 3) * ("kappa" in groups)
    # M runs, each on a client's share of the data, without kept graphs (a product ~2 passes): 85 products, 10 s here
    hvps += 2 * LANCZOS_PRODUCTS * ("L_clients" in groups)
    return 1 + p + HVP_PASSES * hvps + 0.3 * ("F" in groups) + zo / 3


def _views(parts: list[str]) -> int:
    """The blocks whose curvature is measured: the whole model, and each part when there are several."""
    return 1 if parts == ["all"] else 1 + len(parts)


def step_count(groups: set[str], M: int, parts: list[str]) -> int:
    """The steps the progress bar counts (one per client, view or part a group goes through)."""
    views = _views(parts)
    steps = 1 + ("sigma2" in groups) * M + views * (bool(groups & {"L", "kappa"}) + bool(groups & {"L_min", "kappa"}))
    steps += views * ("kappa" in groups)
    steps += ("L_clients" in groups) * M + ("zo" in groups) * len(parts) + ("F" in groups)
    return steps
