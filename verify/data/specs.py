"""Datasets named by a CLI string, and their train/test splits.

``load("fashion-mnist")`` / ``load("cifar10:root=/data")`` / ``load("digits")`` give a :class:`Dataset`;
``train_test(spec)`` gives (train, test): the official split where the dataset has one, otherwise a seeded
holdout (:func:`holdout`) stratified by class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError

from .datasets import DATA, Dataset, digits, load_tensors, synthetic_classification, synthetic_regression
from .readers import MNIST1D_SAMPLES, MNIST1D_SEED, cifar10, cifar100, fashion_mnist, mnist1d

#: Datasets that come with an official train/test split (``split=train|test`` picks one in :func:`load`).
SPLIT_DATASETS = ("fashion-mnist", "mnist1d", "cifar10", "cifar100")

_KNOWN = (
    "'digits', 'fashion-mnist[:root=DIR]', 'mnist1d[:samples=N,seed=S]', 'cifar10:root=DIR', "
    "'cifar100:root=DIR[,labels=coarse]', 'synthetic:...', 'regression:...' or a .pt/.npz path"
)


def _parse_options(spec: str, body: str, allowed: dict[str, str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value.strip():
            raise ParameterError(DATA, f"'{spec}': expected key=value, got '{item}'")
        if key not in allowed:
            raise ParameterError(DATA, f"'{spec}': unknown key '{key}' (known: {', '.join(allowed)})")
        if key in options:
            raise ParameterError(DATA, f"'{spec}': key '{key}' given twice")
        options[key] = value.strip()
    return {**allowed, **options}


def _int_option(spec: str, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ParameterError(DATA, f"'{spec}': {key} must be an integer, got '{value}'") from None


def _split_reader(spec: str, kind: str, body: str) -> tuple[Callable[..., Dataset], str]:
    """(reader called with ``train=``, the ``split=`` option or "" when not given) for a dataset with a split."""
    allowed = {"root": "", "split": ""}
    if kind == "mnist1d":
        allowed = {"samples": str(MNIST1D_SAMPLES), "seed": str(MNIST1D_SEED), "split": ""}
    elif kind == "cifar100":
        allowed = {"root": "", "labels": "fine", "split": ""}
    opts = _parse_options(spec, body, allowed)
    if opts["split"] not in ("", "train", "test"):
        raise ParameterError(DATA, f"'{spec}': split must be 'train' or 'test', got '{opts['split']}'")
    if kind == "fashion-mnist":
        return partial(fashion_mnist, opts["root"] or None), opts["split"]
    if kind == "mnist1d":
        samples = _int_option(spec, "samples", opts["samples"])
        return partial(mnist1d, samples=samples, seed=_int_option(spec, "seed", opts["seed"])), opts["split"]
    if not opts["root"]:
        raise ParameterError(DATA, f"'{spec}': {kind} needs root=DIR (the directory of the python version)")
    if kind == "cifar10":
        return partial(cifar10, opts["root"]), opts["split"]
    if opts["labels"] not in ("fine", "coarse"):
        raise ParameterError(DATA, f"'{spec}': labels must be 'fine' or 'coarse', got '{opts['labels']}'")
    return partial(cifar100, opts["root"], labels=opts["labels"]), opts["split"]


def _check_spec(spec: object) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(DATA, f"must be {_KNOWN}")
    return spec.strip()


@contextmanager
def _named_data(spec: str) -> Iterator[None]:
    """A bad option of a generator or reader (``synthetic:classes=0`` raises ``classes``) named as
    ``problem.data``, with the string it came from and the option."""
    try:
        yield
    except ParameterError as e:
        if e.name == DATA:
            raise
        raise ParameterError(DATA, f"'{spec}': {e.name} {e.rule}") from None


def load(spec: str) -> Dataset:
    """A dataset from a CLI string.

    * ``digits``: :func:`~verify.data.digits`;
    * ``fashion-mnist[:root=DIR,split=train|test]``: :func:`~verify.data.fashion_mnist` (default root: where
      ``apt-get install dataset-fashion-mnist`` puts it);
    * ``mnist1d[:samples=5000,seed=42,split=train|test]``: :func:`~verify.data.mnist1d` (generated locally);
    * ``cifar10:root=DIR[,split=train|test]``, ``cifar100:root=DIR[,labels=fine|coarse,split=train|test]``:
      :func:`~verify.data.cifar10`, :func:`~verify.data.cifar100`;
    * ``synthetic:n=512,shape=1x8x8,classes=10,seed=0``: :func:`~verify.data.synthetic_classification` (keys
      optional, those are the defaults);
    * ``regression:n=512,dim=20,noise=0.1,seed=0``: :func:`~verify.data.synthetic_regression`;
    * a path ending in ``.pt`` or ``.npz``: :func:`~verify.data.load_tensors`.

    Datasets with an official split give their training split unless ``split=test``. Paths may not contain
    commas. A bad string, or a file whose data is refused (:func:`~verify.data.load_tensors`), raises a one-line
    :class:`ParameterError` naming ``problem.data`` (an option's own error is renamed so, the option quoted).
    """
    spec = _check_spec(spec)
    with _named_data(spec):
        return _read_spec(spec)


def _read_spec(spec: str) -> Dataset:
    """The dataset a checked CLI string names (:func:`load`)."""
    kind, _, body = spec.partition(":")
    if spec == "digits":
        return digits()
    if kind in SPLIT_DATASETS:
        read, split = _split_reader(spec, kind, body)
        return read(train=split != "test")
    if kind == "synthetic":
        opts = _parse_options(spec, body, {"n": "512", "shape": "1x8x8", "classes": "10", "seed": "0"})
        shape = tuple(_int_option(spec, "shape", d) for d in opts["shape"].lower().split("x"))
        return synthetic_classification(
            _int_option(spec, "n", opts["n"]),
            shape,
            _int_option(spec, "classes", opts["classes"]),
            _int_option(spec, "seed", opts["seed"]),
        )
    if kind == "regression":
        opts = _parse_options(spec, body, {"n": "512", "dim": "20", "noise": "0.1", "seed": "0"})
        try:
            noise = float(opts["noise"])
        except ValueError:
            raise ParameterError(DATA, f"'{spec}': noise must be a number, got '{opts['noise']}'") from None
        return synthetic_regression(
            _int_option(spec, "n", opts["n"]),
            _int_option(spec, "dim", opts["dim"]),
            noise,
            _int_option(spec, "seed", opts["seed"]),
        )
    if Path(spec).suffix.lower() in (".pt", ".npz"):
        return load_tensors(spec)
    raise ParameterError(DATA, f"'{spec}': expected {_KNOWN}")


def _subset(ds: Dataset, idx: Tensor, part: str, how: str) -> Dataset:
    return replace(ds, X=ds.X[idx], y=ds.y[idx], name=f"{ds.name}[{part}]", note=f"{ds.note}; {part} part of {how}")


def _check_holdout(test_fraction: float, seed: int) -> None:
    number = isinstance(test_fraction, int | float) and not isinstance(test_fraction, bool)
    if not (number and math.isfinite(test_fraction) and 0 < test_fraction < 1):
        raise ParameterError("test_fraction", f"must be a number in (0, 1), got {test_fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError("seed", f"must be an integer >= 0, got {seed!r}")


def holdout(ds: Dataset, *, test_fraction: float = 0.2, seed: int = 0) -> tuple[Dataset, Dataset]:
    """(train, test): a seeded random split of ``ds`` holding out ``round(test_fraction * n)`` samples.

    With class labels (``ds.classes`` set and ``y`` 1-D integers) the split is stratified: class c with n_c
    samples puts ``floor(t n_c / n)`` or one more of them in the test set (largest remainders, ties to the
    smaller label), so each class is within one sample of its share and the total is exactly t. Which samples
    of a class are held out is drawn with ``numpy.random.default_rng(seed)``; without labels the t samples are
    drawn from all. Both parts keep the original order, ``classes`` and ``input_shape`` of ``ds``.
    """
    _check_holdout(test_fraction, seed)
    n = len(ds)
    if n < 2:
        raise ParameterError(DATA, f"{ds.name}: {n} sample(s) cannot be split into a train and a test part")
    t = min(max(math.floor(test_fraction * n + 0.5), 1), n - 1)
    rng = np.random.default_rng(int(seed))
    labelled = ds.classes is not None and ds.y.ndim == 1 and not ds.y.is_floating_point()
    if labelled:
        labels = ds.y.cpu().numpy()
        classes, counts = np.unique(labels, return_counts=True)
        share = t * counts
        take = share // n
        # the leftover t - sum(take) samples go to the largest remainders; argsort is stable, so ties by label
        extra = np.argsort(-(share % n), kind="stable")[: t - int(take.sum())]
        take[extra] += 1
        test_idx = np.concatenate(
            [rng.permutation(np.flatnonzero(labels == c))[:k] for c, k in zip(classes, take, strict=True)]
        )
        how = f"a holdout stratified by class (test_fraction={test_fraction:g}, seed={seed})"
    else:
        test_idx = rng.permutation(n)[:t]
        how = f"a random holdout (test_fraction={test_fraction:g}, seed={seed})"
    is_test = np.zeros(n, dtype=bool)
    is_test[test_idx] = True
    train = torch.from_numpy(np.flatnonzero(~is_test))
    test = torch.from_numpy(np.flatnonzero(is_test))
    return _subset(ds, train, "train", how), _subset(ds, test, "test", how)


def train_test(spec: str, *, seed: int = 0, test_fraction: float = 0.2) -> tuple[Dataset, Dataset]:
    """(train, test) for a :func:`load` string.

    Fashion-MNIST, MNIST-1D and CIFAR-10/100 give their official splits (``seed`` and ``test_fraction`` are
    then not used, and the string may not carry ``split=``); every other dataset (digits, files, synthetic)
    is split by :func:`holdout` with ``seed`` and ``test_fraction``, stratified by class for class labels.
    """
    spec = _check_spec(spec)
    kind, _, body = spec.partition(":")
    if kind not in SPLIT_DATASETS:
        return holdout(load(spec), test_fraction=test_fraction, seed=seed)
    _check_holdout(test_fraction, seed)  # the same argument errors whichever the dataset
    with _named_data(spec):
        read, split = _split_reader(spec, kind, body)
        if split:
            raise ParameterError(DATA, f"'{spec}': train_test gives both splits; drop split={split}")
        return read(train=True), read(train=False)
