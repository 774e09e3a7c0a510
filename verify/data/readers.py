"""Real datasets read from local files, and MNIST-1D generated locally: nothing here touches the network.

* Fashion-MNIST (Xiao, Rasul and Vollgraf, "Fashion-MNIST: a Novel Image Dataset for Benchmarking Machine
  Learning Algorithms", arXiv:1708.07747, 2017; MIT licence) from its original idx files, which Debian's
  ``dataset-fashion-mnist`` package installs under :data:`FASHION_MNIST_ROOT`; :func:`read_idx` reads any idx
  file, plain or gzip-compressed, with numpy alone.
* CIFAR-10 and CIFAR-100 (Krizhevsky, "Learning Multiple Layers of Features from Tiny Images", technical
  report, University of Toronto, 2009) from their "python version" directories of pickled batches, read
  with an unpickler that builds numpy arrays and nothing else.
* MNIST-1D (Greydanus and Kobak, "Scaling Down Deep Learning with MNIST-1D", ICML 2024, arXiv:2011.14439;
  the ``mnist1d`` package, Apache-2.0): synthetic 1-D signals drawn by the package's seeded generator.
"""

from __future__ import annotations

import gzip
import math
import pickle
import random
import struct
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sfltheory.errors import ParameterError

from .datasets import DATA, Dataset, check_finite

#: Where Debian's ``dataset-fashion-mnist`` puts the four idx files (gzip-compressed).
FASHION_MNIST_ROOT = Path("/usr/share/datasets/fashion-mnist")

#: The ten Fashion-MNIST classes, by label.
FASHION_MNIST_CLASSES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)

# idx type codes (the third byte of the magic number): numpy dtypes, all big-endian on disk
_IDX_DTYPES: dict[int, np.dtype[Any]] = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}

_FASHION_NOTE = (
    "Fashion-MNIST: Xiao, Rasul & Vollgraf 2017, arXiv:1708.07747, MIT licence (Zalando article images, "
    "28x28 grey, 10 classes)"
)
_CIFAR_CITATION = "Krizhevsky 2009, 'Learning Multiple Layers of Features from Tiny Images', tech. report, U. Toronto"


def _read_bytes(path: Path) -> bytes:
    """The file's content, decompressed when it starts with the gzip magic number (whatever its suffix)."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ParameterError(DATA, f"{path}: cannot be read ({err.strerror or err})") from None
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as err:
        raise ParameterError(DATA, f"{path}: corrupt gzip data ({err})") from None


def read_idx(path: str | Path) -> np.ndarray:
    """The array in an idx file (the MNIST format), plain or gzip-compressed, with native byte order.

    The format (LeCun et al., http://yann.lecun.com/exdb/mnist/): a 4-byte magic number ``0x00 0x00 T D``
    where T is the element type (0x08 unsigned byte, 0x09 signed byte, 0x0B int16, 0x0C int32, 0x0D float32,
    0x0E float64) and D the number of dimensions, then D big-endian uint32 sizes, then the elements in
    row-major order, big-endian. A file that does not follow it exactly (bad magic, unknown type, too few or
    too many bytes) raises a one-line :class:`ParameterError` naming ``data``.
    """
    p = Path(path)
    if not p.is_file():
        raise ParameterError(DATA, f"{p}: no such file")
    buf = _read_bytes(p)
    if len(buf) < 4:
        raise ParameterError(DATA, f"{p}: {len(buf)} bytes, too short for an idx header")
    zero, code, ndim = struct.unpack(">HBB", buf[:4])
    if zero != 0 or code not in _IDX_DTYPES or ndim == 0:
        raise ParameterError(DATA, f"{p}: not an idx file (magic number 0x{buf[:4].hex()})")
    header = 4 + 4 * ndim
    if len(buf) < header:
        raise ParameterError(DATA, f"{p}: truncated idx header ({len(buf)} bytes, {ndim} dimensions need {header})")
    dims = struct.unpack(f">{ndim}I", buf[4:header])
    dtype = _IDX_DTYPES[code]
    expected = header + math.prod(dims) * dtype.itemsize
    if len(buf) != expected:
        what = "truncated" if len(buf) < expected else "has trailing bytes"
        raise ParameterError(
            DATA, f"{p}: {what}: shape {dims} of {dtype.name} needs {expected} bytes, file has {len(buf)}"
        )
    data = np.frombuffer(buf, dtype=dtype, offset=header).reshape(dims)
    return data.astype(dtype.newbyteorder("="))


def _fashion_file(root: Path, stem: str) -> Path:
    for name in (stem, stem + ".gz"):
        if (root / name).is_file():
            return root / name
    raise ParameterError(
        DATA,
        f"fashion-mnist: {root / stem}[.gz] not found; install it with 'apt-get install dataset-fashion-mnist' "
        f"or pass root=DIR holding the idx files",
    )


def fashion_mnist(root: str | Path | None = None, *, train: bool = True) -> Dataset:
    """Fashion-MNIST: 60000 training or 10000 test images of Zalando articles, 10 classes, 6000/1000 per class.

    Xiao, Rasul and Vollgraf, "Fashion-MNIST: a Novel Image Dataset for Benchmarking Machine Learning
    Algorithms" (arXiv:1708.07747, 2017; MIT licence). Read from the original idx files
    ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte`` and
    ``t10k-labels-idx1-ubyte`` (each plain or ``.gz``) in ``root``, by default :data:`FASHION_MNIST_ROOT`
    where ``apt-get install dataset-fashion-mnist`` puts them. ``X``: (n, 1, 28, 28) float32, pixels 0..255
    divided by 255; ``y``: int64 labels 0..9 (names in :data:`FASHION_MNIST_CLASSES`).
    """
    folder = FASHION_MNIST_ROOT if root is None else Path(root)
    prefix = "train" if train else "t10k"
    images_path = _fashion_file(folder, f"{prefix}-images-idx3-ubyte")
    labels_path = _fashion_file(folder, f"{prefix}-labels-idx1-ubyte")
    images, labels = read_idx(images_path), read_idx(labels_path)
    if images.dtype != np.uint8 or images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ParameterError(DATA, f"{images_path}: expected uint8 images of 28x28, got {images.dtype} {images.shape}")
    if labels.dtype != np.uint8 or labels.shape != images.shape[:1]:
        raise ParameterError(
            DATA, f"{labels_path}: expected {images.shape[0]} uint8 labels, got {labels.dtype} {labels.shape}"
        )
    if labels.size and int(labels.max()) >= 10:
        raise ParameterError(DATA, f"{labels_path}: labels must be 0..9, found {int(labels.max())}")
    X = torch.from_numpy(images).to(torch.float32).div_(255.0).unsqueeze(1)
    y = torch.from_numpy(labels.astype(np.int64))
    split = "train" if train else "test"
    return Dataset(
        X=X,
        y=y,
        name=f"fashion-mnist[{split}]",
        input_shape=(1, 28, 28),
        classes=10,
        note=f"{_FASHION_NOTE}; {split} split read from {images_path.parent}; pixels 0..255 divided by 255",
    )


# --- CIFAR --------------------------------------------------------------------------------------------------

# What a CIFAR batch may reference: numpy's array and dtype reconstructors (numpy 1 and 2 spell the module
# differently) and the codec that protocol <= 2 pickles use for bytes. Anything else is refused.
_PICKLE_GLOBALS = {
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("_codecs", "encode"),
}
_OTHER_SPELLING = {
    "numpy.core.multiarray": "numpy._core.multiarray",
    "numpy._core.multiarray": "numpy.core.multiarray",
    "numpy.core.numeric": "numpy._core.numeric",
    "numpy._core.numeric": "numpy.core.numeric",
}


class _ArrayUnpickler(pickle.Unpickler):
    """An unpickler that builds dicts, lists, bytes, numbers and numpy arrays, and refuses every other global."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _PICKLE_GLOBALS:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        try:
            return super().find_class(module, name)
        except ModuleNotFoundError:  # a numpy 2 pickle read by numpy 1, or the other way round
            if module not in _OTHER_SPELLING:
                raise
            return super().find_class(_OTHER_SPELLING[module], name)


def _load_batch(path: Path) -> dict[Any, Any]:
    if not path.is_file():
        raise ParameterError(DATA, f"{path}: no such file")
    try:
        with path.open("rb") as f:
            obj = _ArrayUnpickler(f, encoding="bytes").load()
    except Exception as err:  # any unpickling failure means "not a CIFAR batch"
        raise ParameterError(DATA, f"{path}: not a CIFAR python batch ({type(err).__name__}: {err})") from None
    if not isinstance(obj, dict):
        raise ParameterError(DATA, f"{path}: not a CIFAR python batch (holds {type(obj).__name__}, not a dict)")
    return obj


def _entry(batch: dict[Any, Any], key: str, path: Path) -> Any:
    for k in (key.encode(), key):  # the files use bytes keys; accept str keys from a re-pickled copy
        if k in batch:
            return batch[k]
    raise ParameterError(DATA, f"{path}: no '{key}' entry (has {sorted(map(str, batch))})")


def _cifar_arrays(paths: list[Path], label_key: str, classes: int) -> tuple[np.ndarray, np.ndarray]:
    images, labels = [], []
    for path in paths:
        batch = _load_batch(path)
        data = _entry(batch, "data", path)
        lab = _entry(batch, label_key, path)
        if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
            got = f"{data.dtype} {data.shape}" if isinstance(data, np.ndarray) else type(data).__name__
            raise ParameterError(DATA, f"{path}: 'data' must be a uint8 array (N, 3072), got {got}")
        try:
            lab_arr = np.asarray(lab)
        except Exception:
            lab_arr = np.asarray([])
        if lab_arr.ndim != 1 or lab_arr.shape[0] != data.shape[0] or not np.issubdtype(lab_arr.dtype, np.integer):
            raise ParameterError(DATA, f"{path}: '{label_key}' must be {data.shape[0]} integer labels")
        if lab_arr.size and (int(lab_arr.min()) < 0 or int(lab_arr.max()) >= classes):
            raise ParameterError(DATA, f"{path}: '{label_key}' must lie in 0..{classes - 1}")
        images.append(data)
        labels.append(lab_arr.astype(np.int64))
    return np.concatenate(images), np.concatenate(labels)


def _cifar_dir(root: str | Path, sub: str, first: str) -> Path:
    base = Path(root)
    if not base.is_dir():
        raise ParameterError(DATA, f"{base}: no such directory")
    for folder in (base / sub, base):
        if (folder / first).is_file():
            return folder
    raise ParameterError(
        DATA,
        f"{base}: holds neither {sub}/{first} nor {first}; download and unpack the python version from "
        f"https://www.cs.toronto.edu/~kriz/cifar.html",
    )


def _cifar_dataset(images: np.ndarray, labels: np.ndarray, name: str, classes: int, note: str) -> Dataset:
    X = torch.from_numpy(images.reshape(-1, 3, 32, 32)).to(torch.float32).div_(255.0)
    return Dataset(X=X, y=torch.from_numpy(labels), name=name, input_shape=(3, 32, 32), classes=classes, note=note)


def cifar10(root: str | Path, *, train: bool = True) -> Dataset:
    """CIFAR-10: 50000 training or 10000 test 32x32 colour images, 10 classes (6000 per class in all).

    Krizhevsky, "Learning Multiple Layers of Features from Tiny Images" (technical report, University of
    Toronto, 2009). ``root`` is the ``cifar-10-batches-py`` directory of the python version, or the directory
    holding it: pickled batches ``data_batch_1`` .. ``data_batch_5`` (training) and ``test_batch``, each a dict
    with ``b'data'`` (N, 3072) uint8 -- 1024 red, then green, then blue values of a row-major 32x32 image --
    and ``b'labels'``. ``X``: (n, 3, 32, 32) float32 in [0, 1]; ``y``: int64 labels 0..9.
    """
    folder = _cifar_dir(root, "cifar-10-batches-py", "test_batch")
    names = [f"data_batch_{i}" for i in range(1, 6)] if train else ["test_batch"]
    images, labels = _cifar_arrays([folder / n for n in names], "labels", 10)
    split = "train" if train else "test"
    note = f"CIFAR-10: {_CIFAR_CITATION}; {split} split read from {folder}; pixels 0..255 divided by 255"
    return _cifar_dataset(images, labels, f"cifar10[{split}]", 10, note)


def cifar100(root: str | Path, *, train: bool = True, labels: str = "fine") -> Dataset:
    """CIFAR-100: 50000 training or 10000 test 32x32 colour images, 100 fine classes in 20 coarse superclasses.

    Krizhevsky, "Learning Multiple Layers of Features from Tiny Images" (technical report, University of
    Toronto, 2009). ``root`` is the ``cifar-100-python`` directory, or the directory holding it: pickles
    ``train`` and ``test``, dicts with ``b'data'`` (N, 3072) uint8 (as in CIFAR-10), ``b'fine_labels'`` (0..99)
    and ``b'coarse_labels'`` (0..19). ``labels``: ``"fine"`` (100 classes) or ``"coarse"`` (20).
    """
    if labels not in ("fine", "coarse"):
        raise ParameterError("labels", f"must be 'fine' or 'coarse', got {labels!r}")
    classes = 100 if labels == "fine" else 20
    folder = _cifar_dir(root, "cifar-100-python", "test")
    split = "train" if train else "test"
    images, y = _cifar_arrays([folder / split], f"{labels}_labels", classes)
    note = (
        f"CIFAR-100 ({labels} labels, {classes} classes): {_CIFAR_CITATION}; {split} split read from {folder}; "
        "pixels 0..255 divided by 255"
    )
    return _cifar_dataset(images, y, f"cifar100-{labels}[{split}]", classes, note)


# --- MNIST-1D -----------------------------------------------------------------------------------------------

#: The ``mnist1d`` generator's defaults: 5000 samples (4000 train + 1000 test), seed 42.
MNIST1D_SAMPLES = 5000
MNIST1D_SEED = 42


@lru_cache(maxsize=2)
def _mnist1d_arrays(samples: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    try:
        from importlib.metadata import version

        from mnist1d.data import get_dataset_args, make_dataset
    except ImportError as err:
        raise ParameterError(DATA, "mnist1d needs the mnist1d package: pip install mnist1d") from err
    args = get_dataset_args()
    args.num_samples = samples
    args.seed = seed
    # make_dataset seeds Python's and numpy's global generators: put them back afterwards
    py_state, np_state = random.getstate(), np.random.get_state()
    try:
        d = make_dataset(args)  # the generator; get_dataset would download a pickle from GitHub by default
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    arrays = (np.asarray(d[k]) for k in ("x", "y", "x_test", "y_test"))
    x, y, x_test, y_test = (a.copy() for a in arrays)
    for a in (x, y, x_test, y_test):
        a.setflags(write=False)  # cached: callers get copies
    return x, y, x_test, y_test, version("mnist1d")


def mnist1d(*, train: bool = True, samples: int = MNIST1D_SAMPLES, seed: int = MNIST1D_SEED) -> Dataset:
    """MNIST-1D: synthetic 1-D signals of length 40 in 10 classes, generated locally (no download).

    Greydanus and Kobak, "Scaling Down Deep Learning with MNIST-1D" (ICML 2024, arXiv:2011.14439); the
    ``mnist1d`` package (Apache-2.0) draws ``samples // 10`` signals per class from ten templates (padding,
    scaling, translation, correlated and iid noise, shear), shuffles them with ``seed`` and keeps the first
    80% for training. The defaults (5000 samples, seed 42) are the package's: 4000 train + 1000 test, about a
    second to generate. ``X``: (n, 1, 40) float32 (one channel, so an MLP flattens it to 40 features and a
    ``Conv1d`` takes it as is), standardised over the whole set by the package; ``y``: int64 labels 0..9.
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 10 or samples % 10:
        raise ParameterError("samples", f"must be a multiple of 10 >= 10 (samples per class x 10), got {samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ParameterError("seed", f"must be an integer in [0, 2^32), got {seed!r}")
    x, y, x_test, y_test, pkg = _mnist1d_arrays(samples, seed)
    xs, ys = (x, y) if train else (x_test, y_test)
    split = "train" if train else "test"
    X = torch.tensor(xs, dtype=torch.float32).unsqueeze(1)
    labels = torch.tensor(ys, dtype=torch.int64)
    check_finite(X, labels, f"mnist1d[{split}]")  # floats from a third-party generator: a cheap check (n x 40)
    return Dataset(
        X=X,
        y=labels,
        name=f"mnist1d[{split}]",
        input_shape=tuple(X.shape[1:]),
        classes=10,
        note=(
            f"synthetic: MNIST-1D generated locally by mnist1d {pkg} make_dataset (samples={samples}: "
            f"{len(y)} train + {len(y_test)} test, seed={seed}); Greydanus & Kobak, ICML 2024, "
            f"arXiv:2011.14439, Apache-2.0"
        ),
    )
