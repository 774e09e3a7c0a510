"""Heterogeneity across clients: eps^2 from client gradients, and the bounded-dissimilarity pair (B^2, G^2).

With M clients holding index sets D_m, f_m is the mean loss on D_m and f = (1/M) sum_m f_m -- the clients
weigh equally, as in the seeds' definitions, even when their data sizes differ (then f is not the mean loss
over all samples; ``meta["objective"]`` says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective, Params


def client_gradients(obj: Objective, clients: Sequence[Tensor], params: Params | None = None) -> list[Params]:
    """grad f_m for every client (each client's data in chunks)."""
    for m, idx in enumerate(clients):
        if idx.numel() == 0:
            raise ParameterError("clients", f"client {m} holds no samples: every client needs data")
    return [obj.grad(params, idx) for idx in clients]


def average(grads: Sequence[Params]) -> Params:
    """The mean of the client gradients, tensor by tensor: grad f = (1/M) sum_m grad f_m (the clients weigh equally)."""
    return {k: torch.stack([g[k] for g in grads]).mean(0) for k in grads[0]}


def sqdist(obj: Objective, a: Params, b: Params | None, part: str | None) -> float:
    """||a - b||^2 over one part (b = None: ||a||^2), in float64."""
    names = obj.part_names(part)
    if b is None:
        return float(sum(a[n].double().pow(2).sum() for n in names))
    return float(sum((a[n].double() - b[n].double()).pow(2).sum() for n in names))


@dataclass(frozen=True)
class Dissimilarity:
    r"""The (B^2, G^2) pairs for which :math:`\frac1M\sum_m\|\nabla f_m(x)\|^2 \le B^2\|\nabla f(x)\|^2 + G^2`
    holds at every measured point x_t (sl_noniid, Assumption 3).

    With :math:`A_t = \frac1M\sum_m\|\nabla f_m(x_t)\|^2` and :math:`g_t = \|\nabla f(x_t)\|^2`, the least G^2
    for a given B^2 is :math:`G^2(B^2) = \max_t (A_t - B^2 g_t)`, a convex, decreasing, piecewise-linear
    frontier. :math:`A_t \ge g_t` (Jensen), so B^2 >= 1 is the meaningful range; G^2(1) is the largest mean
    heterogeneity :math:`\max_t \frac1M\sum_m\|\nabla f_m - \nabla f\|^2`, and G^2 reaches 0 at
    :math:`B^2_0 = \max_t A_t/g_t`.
    """

    A: tuple[float, ...]
    g: tuple[float, ...]

    def G2(self, B2: float) -> float:
        r"""The least G^2 for a given B^2, :math:`G^2(B^2) = \max_t (A_t - B^2 g_t)` (negative where B^2 alone bounds
        every point)."""
        return max(a - B2 * g for a, g in zip(self.A, self.g, strict=True))

    @property
    def B2_zero(self) -> float:
        """The least B^2 with G^2 = 0 (infinite when some point has grad f = 0 but heterogeneity > 0)."""
        ratios = [a / g if g > 0 else (np.inf if a > 0 else 1.0) for a, g in zip(self.A, self.g, strict=True)]
        return float(max(1.0, *ratios))

    def frontier(self) -> list[tuple[float, float]]:
        """Vertices (B^2, G^2) of the frontier from B^2 = 1 to G^2 = 0 (the upper envelope of the lines)."""
        pts = [(1.0, self.G2(1.0))]
        b = 1.0
        while True:
            # the active line at b (largest value, then smallest slope g), and where another overtakes it
            vals = [a - b * g for a, g in zip(self.A, self.g, strict=True)]
            top = max(vals)
            tied = [t for t, v in enumerate(vals) if v >= top - 1e-12 * max(1.0, abs(top))]
            act = min(tied, key=lambda t: self.g[t])  # of lines meeting here, the flattest stays on top
            nxt = np.inf
            for t in range(len(self.A)):
                if self.g[t] < self.g[act]:
                    cross = (self.A[act] - self.A[t]) / (self.g[act] - self.g[t])
                    if cross > b + 1e-15:
                        nxt = min(nxt, cross)
            zero = self.A[act] / self.g[act] if self.g[act] > 0 else np.inf
            if zero <= nxt:
                if np.isfinite(zero):
                    pts.append((float(zero), 0.0))
                return pts
            b = float(nxt)
            pts.append((b, self.G2(b)))
