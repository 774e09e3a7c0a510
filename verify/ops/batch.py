"""A mini-batch with per-sample weights (0 for padding), so ragged clients stack on a client axis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass(frozen=True)
class Batch:
    """Inputs, targets and per-sample weights (1 for a real sample, 0 for padding) of one mini-batch."""

    x: Tensor
    y: Tensor
    w: Tensor

    @property
    def size(self) -> int:
        """The number of samples, padding included (the last axis of ``w``; batched, the padded size per client)."""
        return int(self.w.shape[-1])

    def to(self, device: torch.device) -> Batch:
        """The same batch with its inputs, targets and weights moved to ``device``."""
        return Batch(self.x.to(device), self.y.to(device), self.w.to(device))

    @staticmethod
    def stack(batches: Sequence[Batch]) -> Batch:
        """One batch with a new leading axis; batches with fewer samples are padded (weight 0) to the largest.

        The sample axis is the last axis of ``w``, so batches that are themselves stacks (e.g. K local steps)
        stack again (clients x steps x samples)."""
        ax = batches[0].w.ndim - 1
        n = max(int(b.w.shape[-1]) for b in batches)

        def pad(t: Tensor, k: int) -> Tensor:
            if k == 0:
                return t
            shape = list(t.shape)
            shape[ax] = k
            return torch.cat([t, t.new_zeros(shape)], ax)

        return Batch(
            torch.stack([pad(b.x, n - int(b.w.shape[-1])) for b in batches]),
            torch.stack([pad(b.y, n - int(b.w.shape[-1])) for b in batches]),
            torch.stack([pad(b.w, n - int(b.w.shape[-1])) for b in batches]),
        )

    def __getitem__(self, i: int) -> Batch:
        """The i-th entry along the leading axis."""
        return Batch(self.x[i], self.y[i], self.w[i])


def weighted_mean(losses: Tensor, w: Tensor) -> Tensor:
    """Mean of the real samples' losses (padding has weight 0)."""
    return (losses * w).sum() / w.sum()
