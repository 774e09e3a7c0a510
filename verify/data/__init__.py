"""Data for the measurements and their split among federated clients.

``load("digits")`` / ``load("synthetic:n=512,shape=1x8x8,classes=10,seed=0")`` / ``load("mine.pt")`` give a
:class:`Dataset`; ``partition(ds.y, clients=10, scheme="dirichlet:0.5")`` gives each client's indices.
"""

from __future__ import annotations

from .datasets import Dataset, digits, load, load_tensors, synthetic_classification, synthetic_regression
from .partition import MAX_DIRICHLET_DRAWS, SCHEMES, partition

__all__ = [
    "MAX_DIRICHLET_DRAWS",
    "SCHEMES",
    "Dataset",
    "digits",
    "load",
    "load_tensors",
    "partition",
    "synthetic_classification",
    "synthetic_regression",
]
