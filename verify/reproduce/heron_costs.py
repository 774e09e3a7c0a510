"""The client of HERON-SFL Table II at the paper's setting and at a scale's model, and each algorithm's measured
cost of one update (:mod:`verify.reproduce.client_costs`): what :mod:`verify.reproduce.heron_sfl_table2`'s judge
reads, through a function-level import (this module needs torch; the experiment's listing does not)."""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from verify.models import load_model
from verify.models.zoo import resnet18

from .client_costs import Cost, measure
from .experiment import Scale


def paper_client() -> tuple[nn.Module, nn.Module, torch.Tensor, torch.Tensor]:
    """Sec. VI-A's client on the ``meta`` device: the zoo's ResNet-18 (CIFAR variant) up to its second BatchNorm
    (the stem's conv, BN, ReLU, then ``layer1.0``'s conv1 and bn1; line 203), a Linear head on the flattened
    64x32x32 output (line 203: "a single fully connected layer"), and a batch of 256 CIFAR-10 images and labels."""
    with torch.device("meta"):
        m = resnet18()
        block = next(iter(m.get_submodule("layer1").children()))
        client = nn.Sequential(m.get_submodule("stem"), block.get_submodule("conv1"), block.get_submodule("bn1"))
        head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 32 * 32, 10))
        x = torch.empty(256, 3, 32, 32, device="meta")
        return client, head, x, torch.zeros(256, dtype=torch.long, device="meta")


def scale_client(scale: Scale) -> tuple[nn.Module, nn.Module, torch.Tensor, torch.Tensor] | None:
    """The scale's own model cut after its first block (``fc1``) with a Linear head on the meta device, and a batch
    of ``scale.batch``; None where the scale's model is not an MLP with an ``fc1`` (the paper scale: see
    :func:`paper_client`)."""
    if scale.input_shape is None:
        return None
    with torch.device("meta"):
        m = load_model(scale.model)
        fc1 = getattr(m, "fc1", None)
        if not isinstance(fc1, nn.Linear):
            return None
        client = nn.Sequential(nn.Flatten(), fc1, nn.ReLU())
        head = nn.Linear(fc1.out_features, 10)
        x = torch.empty(scale.batch, *scale.input_shape, device="meta")
        return client, head, x, torch.zeros(scale.batch, dtype=torch.long, device="meta")


def costs(
    parts: tuple[nn.Module, nn.Module, torch.Tensor, torch.Tensor], update_of: Mapping[str, str]
) -> dict[str, Cost]:
    """The measured cost of one client update of each algorithm, ``update_of`` naming its update
    (:data:`verify.reproduce.heron_sfl_table2.UPDATE_OF`: SFLV1 and V2 share theirs)."""
    by_update = {u: measure(u, *parts) for u in dict.fromkeys(update_of.values())}
    return {a: by_update[u] for a, u in update_of.items()}


__all__ = ["costs", "paper_client", "scale_client"]
