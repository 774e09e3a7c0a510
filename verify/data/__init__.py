"""Data for the measurements and their split among federated clients.

``load("digits")`` / ``load("fashion-mnist")`` / ``load("mnist1d")`` / ``load("cifar10:root=DIR")`` /
``load("synthetic:n=512,shape=1x8x8,classes=10,seed=0")`` / ``load("mine.pt")`` give a :class:`Dataset`;
``train_test(spec)`` gives (train, test), the official split where there is one, else a stratified holdout;
``partition(ds.y, clients=10, scheme="dirichlet:0.5")`` gives each client's indices.
"""

from __future__ import annotations

from verify.spec import SCHEMES

from .datasets import Dataset, digits, load_tensors, synthetic_classification, synthetic_regression
from .partition import MAX_DIRICHLET_DRAWS, partition
from .readers import (
    FASHION_MNIST_CLASSES,
    FASHION_MNIST_ROOT,
    MNIST1D_SAMPLES,
    MNIST1D_SEED,
    cifar10,
    cifar100,
    fashion_mnist,
    mnist1d,
    read_idx,
)
from .specs import SPLIT_DATASETS, holdout, load, train_test

__all__ = [
    "FASHION_MNIST_CLASSES",
    "FASHION_MNIST_ROOT",
    "MAX_DIRICHLET_DRAWS",
    "MNIST1D_SAMPLES",
    "MNIST1D_SEED",
    "SCHEMES",
    "SPLIT_DATASETS",
    "Dataset",
    "cifar10",
    "cifar100",
    "digits",
    "fashion_mnist",
    "holdout",
    "load",
    "load_tensors",
    "mnist1d",
    "partition",
    "read_idx",
    "synthetic_classification",
    "synthetic_regression",
    "train_test",
]
