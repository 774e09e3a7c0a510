"""Datasets for the measurements: a small bundled real one, your own tensors, and seeded synthetic ones.

Everything here runs offline: ``digits`` ships inside the scikit-learn wheel, files are read locally and the
synthetic sets are drawn from a seeded generator. Larger real sets are in :mod:`verify.data.readers`;
:func:`verify.data.load` turns a CLI string into a :class:`Dataset`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError

_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)

#: The spec field every data error names (``verify.spec.FLAGS`` shows it as ``--data``).
DATA = "problem.data"


@dataclass(frozen=True)
class Dataset:
    """Inputs ``X`` (samples along dim 0), targets ``y``, and what a report needs to say about them.

    ``input_shape`` is the shape of one sample; ``classes`` is ``None`` for regression targets; ``note`` gives
    provenance, licence and preprocessing so a printed result can cite its data.
    """

    X: Tensor
    y: Tensor
    name: str
    input_shape: tuple[int, ...]
    classes: int | None
    note: str

    def __len__(self) -> int:
        return int(self.X.shape[0])


def digits() -> Dataset:
    """scikit-learn's handwritten digits: 1797 8x8 grey images of 0-9, as (1797, 1, 8, 8) float32 in [0, 1].

    This is the test set of the UCI "Optical Recognition of Handwritten Digits" data (Alpaydin and Kaynak,
    1998; CC BY 4.0); pixel values are counts 0..16 of a 4x4 block, so they are divided by 16.
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise ParameterError(DATA, "digits needs scikit-learn: pip install scikit-learn") from err
    bunch = load_digits()
    X = torch.from_numpy(np.asarray(bunch.images, dtype=np.float32) / 16.0).unsqueeze(1)
    y = torch.from_numpy(np.asarray(bunch.target, dtype=np.int64))
    return Dataset(
        X=X,
        y=y,
        name="digits",
        input_shape=(1, 8, 8),
        classes=10,
        note=(
            "sklearn.datasets.load_digits: UCI Optical Recognition of Handwritten Digits (test part), "
            "Alpaydin & Kaynak 1998, CC BY 4.0; pixels 0..16 divided by 16"
        ),
    )


def _as_tensor(value: object, key: str, path: Path) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise ParameterError(DATA, f"{path}: '{key}' is an object array, not numbers")
        return torch.from_numpy(value)
    raise ParameterError(DATA, f"{path}: '{key}' must be a tensor or array, got {type(value).__name__}")


def check_finite(X: Tensor, y: Tensor, name: str) -> None:
    """Refuse inputs or targets with a NaN or an infinity: one line naming the data, how many entries and the
    first one's sample. A non-finite input makes every loss NaN from the first step on, so training would
    report a divergence and a measurement a NaN constant: neither is about the model or the step size."""
    for key, t in (("X", X), ("y", y)):
        if not t.is_floating_point() or t.numel() == 0:
            continue  # integer tensors hold no NaN or infinity
        bad = ~torch.isfinite(t)
        if not bool(bad.any()):
            continue
        count = int(bad.sum())
        flat = int(bad.reshape(-1).nonzero()[0, 0])
        value = float(t.reshape(-1)[flat])
        what = "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        per_sample = max(1, t[0].numel()) if t.ndim > 1 else 1
        where = f"{what} at sample {flat // per_sample}"
        entries = "entry" if count == 1 else "entries"
        first = "" if count == 1 else "first: "
        raise ParameterError(DATA, f"{name}: {key} has {count} non-finite {entries} ({first}{where}); clean the data")


def _span(values: list[int]) -> str:
    """``100..109`` for a run of consecutive integers, else the values (at most six, then ``...``)."""
    if len(values) > 2 and values[-1] - values[0] == len(values) - 1:
        return f"{values[0]}..{values[-1]}"
    shown = ", ".join(map(str, values[:6]))
    return shown + (", ..." if len(values) > 6 else "")


def check_labels(y: Tensor, name: str) -> int:
    """The number of classes C of integer labels ``y``, which must take exactly the values 0..C-1.

    The model gets one output per class and the loss indexes them by label, so the labels are the classes'
    numbers: negative labels are refused, and so is a label set with an offset (100..109: a model of 110
    outputs, 100 of them never a target) or with a gap ({3, 8}, or 0..9 without 7: an output that no sample
    trains, and C would count a class the data does not hold). Every value from 0 to the largest label must
    occur at least once; map the labels to 0..C-1 before loading. One class is refused too: nothing to learn.
    """
    low = int(y.min())
    if low < 0:
        raise ParameterError(DATA, f"{name}: integer labels must be >= 0, got {low}")
    values = torch.unique(y).tolist()
    k = len(values)
    if values[-1] != k - 1:  # sorted, distinct and >= 0: exactly 0..k-1 iff the largest is k - 1
        raise ParameterError(
            DATA,
            f"{name}: labels take the values {_span(values)} ({k} classes); classes must be numbered 0..C-1: "
            f"map them to 0..{k - 1}",
        )
    if k < 2:  # one output, always the target: the cross-entropy is 0 and its gradient too, whatever the model
        raise ParameterError(DATA, f"{name}: every label is 0 (one class): a classification needs two classes or more")
    return k


def _float32(t: Tensor, key: str, name: str) -> Tensor:
    """``t`` as float32, refusing finite values beyond float32's range (they would become infinities)."""
    out = t.to(torch.float32)
    if t.dtype == torch.float64 and not bool(torch.isfinite(out).all()):
        count = int((~torch.isfinite(out)).sum())
        biggest = float(t.abs().max())
        raise ParameterError(
            DATA,
            f"{name}: {key} has {count} entries beyond float32's range (largest |value| {biggest:.3g}); rescale it",
        )
    return out


def _from_tensors(X: Tensor, y: Tensor, name: str, note: str, shown: str) -> Dataset:
    """Check lengths, values and labels (errors say ``shown``, the file), and normalise dtypes: float inputs to
    float32 (what the models hold), integer labels to int64."""
    if X.ndim == 0 or y.ndim == 0:
        raise ParameterError(
            DATA, f"{shown}: X and y need a sample dimension, got shapes {tuple(X.shape)} and {tuple(y.shape)}"
        )
    if X.ndim < 2:  # (n,) is n scalars, which no model takes: a model's input is a row (features) per sample
        raise ParameterError(
            DATA, f"{shown}: X has shape {tuple(X.shape)}: expected one row per sample (2 or more dimensions)"
        )
    if X.shape[0] != y.shape[0]:
        raise ParameterError(DATA, f"{shown}: X and y differ in length ({X.shape[0]} vs {y.shape[0]})")
    if X.shape[0] == 0:
        raise ParameterError(DATA, f"{shown}: holds no samples")
    check_finite(X, y, shown)
    if X.is_floating_point() or X.dtype in _INT_DTYPES:
        X = _float32(X, "X", shown)
    classes: int | None = None
    if y.dtype in _INT_DTYPES and y.ndim == 1:
        y = y.to(torch.int64)
        classes = check_labels(y, shown)
    elif y.is_floating_point():
        y = _float32(y, "y", shown)
    return Dataset(X=X, y=y, name=name, input_shape=tuple(X.shape[1:]), classes=classes, note=note)


def load_tensors(path: str | Path) -> Dataset:
    """Your own data: a ``.pt`` file holding ``{"X": tensor, "y": tensor}`` or a ``.npz`` with arrays X and y.

    ``.pt`` is read with ``weights_only=True`` (no pickled code runs) and ``.npz`` without pickle. Inputs become
    float32; 1-D integer targets are class labels, which must be numbered 0..C-1 (:func:`check_labels`); float
    targets are regression targets. Inputs and targets with a NaN or an infinity are refused
    (:func:`check_finite`). Every error names ``problem.data`` and the file.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".pt", ".npz"):
        raise ParameterError(DATA, f"{p}: expected a .pt or .npz file")
    if not p.is_file():
        raise ParameterError(DATA, f"{p}: no such file")
    if suffix == ".pt":
        try:
            obj = torch.load(p, map_location="cpu", weights_only=True)
        except Exception as err:  # pickle, zip and weights_only errors all mean "not a tensor file we can read"
            raise ParameterError(DATA, f"{p}: cannot be read as a torch file ({err})") from err
        if not isinstance(obj, dict):
            raise ParameterError(DATA, f"{p}: must hold a dict with keys 'X' and 'y', got {type(obj).__name__}")
        contents = obj
    else:
        try:
            with np.load(p, allow_pickle=False) as npz:
                contents = {k: npz[k] for k in npz.files}
        except Exception as err:
            raise ParameterError(DATA, f"{p}: cannot be read as an .npz file ({err})") from err
    missing = [k for k in ("X", "y") if k not in contents]
    if missing:
        raise ParameterError(DATA, f"{p}: missing key(s) {', '.join(missing)} (has {sorted(map(str, contents))})")
    X = _as_tensor(contents["X"], "X", p)
    y = _as_tensor(contents["y"], "y", p)
    return _from_tensors(X, y, p.stem, f"loaded from {p}", str(p))


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ParameterError(name, f"must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_shape(shape: object) -> tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, tuple | list) or not shape:
        raise ParameterError("input_shape", f"must be a non-empty tuple of positive integers, got {shape!r}")
    return tuple(_check_int("input_shape", d, 1) for d in shape)


def synthetic_classification(n: int, input_shape: tuple[int, ...], classes: int, seed: int = 0) -> Dataset:
    """Gaussian classes: class means drawn N(0, I), samples = mean of their class + N(0, I) noise.

    Labels are balanced (counts differ by at most 1) and shuffled; the same arguments give the same tensors.
    """
    n = _check_int("n", n, 1)
    shape = _check_shape(input_shape)
    classes = _check_int("classes", classes, 1)
    seed = _check_int("seed", seed, 0)
    gen = torch.Generator().manual_seed(seed)
    dim = math.prod(shape)
    means = torch.randn(classes, dim, generator=gen)
    y = (torch.arange(n) % classes)[torch.randperm(n, generator=gen)]
    X = (means[y] + torch.randn(n, dim, generator=gen)).reshape(n, *shape)
    return Dataset(
        X=X,
        y=y.to(torch.int64),
        name=f"synthetic-classification(n={n}, shape={'x'.join(map(str, shape))}, classes={classes}, seed={seed})",
        input_shape=shape,
        classes=classes,
        note="synthetic: class means ~ N(0, I), samples ~ N(mean, I), balanced shuffled labels (torch.Generator)",
    )


def synthetic_regression(n: int, dim: int, noise: float = 0.1, seed: int = 0) -> Dataset:
    """Linear regression: X ~ N(0, I), y = X w + noise * N(0, 1) with w ~ N(0, I / dim).

    ``y`` has shape (n, 1), matching an ``nn.Linear(dim, 1)`` output so an MSE loss does not broadcast to (n, n).
    """
    n = _check_int("n", n, 1)
    dim = _check_int("dim", dim, 1)
    if isinstance(noise, bool) or not isinstance(noise, int | float) or not math.isfinite(noise) or noise < 0:
        raise ParameterError("noise", f"must be a finite number >= 0, got {noise!r}")
    seed = _check_int("seed", seed, 0)
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(dim, 1, generator=gen) / math.sqrt(dim)  # keeps Var(Xw) = 1 whatever dim
    X = torch.randn(n, dim, generator=gen)
    y = X @ w + float(noise) * torch.randn(n, 1, generator=gen)
    return Dataset(
        X=X,
        y=y,
        name=f"synthetic-regression(n={n}, dim={dim}, noise={noise}, seed={seed})",
        input_shape=(dim,),
        classes=None,
        note="synthetic: X ~ N(0, I), y = X w + noise * N(0, 1), w ~ N(0, I/dim) (torch.Generator)",
    )
