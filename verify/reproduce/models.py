"""Small models the reproduced experiments substitute for the papers' at the small scale, importable by name
(``verify.reproduce.models:digits_mlp``) so that a sweep's worker process builds them as a spec names them."""

from __future__ import annotations

from torch import nn

from verify.models.zoo import mlp


def digits_mlp() -> nn.Module:
    """An MLP 64-32-10 for scikit-learn's digits (8x8 flattened): 64*32+32 + 32*10+10 = 2,410 parameters (hand
    count), cut after ``fc1`` (client 2,080, server 330). Small enough for zeroth-order training to move in a few
    hundred rounds on a CPU, which the papers' AlexNet (57 M) is not."""
    return mlp(in_features=64, hidden=(32,), num_classes=10)


__all__ = ["digits_mlp"]
