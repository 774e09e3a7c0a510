"""verify.data readers: idx files, Fashion-MNIST, CIFAR-10/100, MNIST-1D, and the train/test splits.

Every expected value comes from outside the code under test: bytes these tests write themselves (with
``struct``, ``gzip`` and ``pickle``), the published sizes of the real datasets, or the ``mnist1d`` package's own
generator called directly.
"""

from __future__ import annotations

import gzip
import os
import pickle
import random
import socket
import struct
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sfltheory.errors import ParameterError  # noqa: E402
from verify.data import (  # noqa: E402
    Dataset,
    cifar10,
    cifar100,
    fashion_mnist,
    holdout,
    load,
    mnist1d,
    read_idx,
    train_test,
)

# where `apt-get install dataset-fashion-mnist` puts the files (dpkg -L dataset-fashion-mnist)
DEBIAN_FASHION = Path("/usr/share/datasets/fashion-mnist")


def one_line_data_error(err: pytest.ExceptionInfo[ParameterError]) -> None:
    assert err.value.name == "problem.data"
    assert "\n" not in str(err.value)


# --- idx ----------------------------------------------------------------------------------------------------


def idx_bytes(code: int, dims: tuple[int, ...], fmt: str, values: list) -> bytes:
    """An idx file by the format's definition: 0x00 0x00, type code, ndim, big-endian uint32 dims, big-endian data."""
    header = struct.pack(">BBBB", 0, 0, code, len(dims)) + struct.pack(f">{len(dims)}I", *dims)
    return header + struct.pack(f">{len(values)}{fmt}", *values)


def write(path: Path, content: bytes, gz: bool) -> Path:
    path.write_bytes(gzip.compress(content) if gz else content)
    return path


IDX_CASES = [
    (0x08, "B", (2, 3, 4), list(range(0, 240, 10)), np.uint8),
    (0x09, "b", (5,), [-128, -1, 0, 1, 127], np.int8),
    (0x0B, "h", (2, 2), [-32768, -2, 300, 32767], np.int16),
    (0x0C, "i", (3, 1), [-(2**31), 70000, 2**31 - 1], np.int32),
    (0x0D, "f", (2,), [0.5, -1.25], np.float32),
    (0x0E, "d", (1, 2, 1), [1e-300, -3.141592653589793], np.float64),
]


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize(("code", "fmt", "dims", "values", "dtype"), IDX_CASES)
def test_read_idx(tmp_path: Path, gz: bool, code: int, fmt: str, dims: tuple, values: list, dtype: type) -> None:
    path = write(tmp_path / ("a.idx.gz" if gz else "a.idx"), idx_bytes(code, dims, fmt, values), gz)
    arr = read_idx(path)
    assert arr.shape == dims and arr.dtype == np.dtype(dtype)
    assert arr.dtype.isnative
    assert arr.ravel().tolist() == values


def test_read_idx_gzip_detected_by_content(tmp_path: Path) -> None:
    # a compressed file without the .gz suffix, and a plain one with it
    raw = idx_bytes(0x08, (3,), "B", [7, 8, 9])
    assert read_idx(write(tmp_path / "plain-name", raw, gz=True)).tolist() == [7, 8, 9]
    assert read_idx(write(tmp_path / "gz-name.gz", raw, gz=False)).tolist() == [7, 8, 9]


GOOD = idx_bytes(0x08, (2, 2), "B", [1, 2, 3, 4])
BAD_IDX = {
    "bad-magic": b"\x01\x02" + GOOD[2:],
    "unknown-type": b"\x00\x00\x0a\x02" + GOOD[4:],
    "no-dims": b"\x00\x00\x08\x00",
    "short": b"\x00\x00",
    "empty": b"",
    "short-header": GOOD[:9],
    "truncated": GOOD[:-1],
    "trailing": GOOD + b"\x00",
    "text": b"P5\n28 28\n255\n" + bytes(784),
}


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("case", sorted(BAD_IDX))
def test_read_idx_errors(tmp_path: Path, case: str, gz: bool) -> None:
    path = write(tmp_path / "bad.idx", BAD_IDX[case], gz)
    with pytest.raises(ParameterError) as err:
        read_idx(path)
    one_line_data_error(err)


def test_read_idx_bad_gzip_and_missing(tmp_path: Path) -> None:
    corrupt = gzip.compress(GOOD)
    for name, content in {"cut.gz": corrupt[:-6], "junk.gz": corrupt[:10] + b"\xff" * 20}.items():
        with pytest.raises(ParameterError) as err:
            read_idx(write(tmp_path / name, content, gz=False))
        one_line_data_error(err)
    with pytest.raises(ParameterError) as err:
        read_idx(tmp_path / "missing.idx")
    one_line_data_error(err)


# --- Fashion-MNIST in the idx layout, tiny ------------------------------------------------------------------


def write_fashion(root: Path, n_train: int = 5, n_test: int = 3, gz_train: bool = True, seed: int = 0) -> dict:
    """Four idx files in the Fashion-MNIST layout; training files gzip-compressed, test files plain."""
    rng = np.random.default_rng(seed)
    out = {}
    root.mkdir(parents=True, exist_ok=True)
    for prefix, n, gz in (("train", n_train, gz_train), ("t10k", n_test, False)):
        images = rng.integers(0, 256, size=n * 784).tolist()
        labels = rng.integers(0, 10, size=n).tolist()
        suffix = ".gz" if gz else ""
        write(root / f"{prefix}-images-idx3-ubyte{suffix}", idx_bytes(0x08, (n, 28, 28), "B", images), gz)
        write(root / f"{prefix}-labels-idx1-ubyte{suffix}", idx_bytes(0x08, (n,), "B", labels), gz)
        out[prefix] = (images, labels)
    return out


def test_fashion_mnist_tiny(tmp_path: Path) -> None:
    written = write_fashion(tmp_path)
    for train, prefix in ((True, "train"), (False, "t10k")):
        images, labels = written[prefix]
        ds = fashion_mnist(tmp_path, train=train)
        n = len(labels)
        assert ds.X.shape == (n, 1, 28, 28) and ds.X.dtype == torch.float32
        assert ds.y.dtype == torch.int64 and ds.y.tolist() == labels
        assert ds.input_shape == (1, 28, 28) and ds.classes == 10
        assert torch.allclose(ds.X, torch.tensor(images, dtype=torch.float32).reshape(n, 1, 28, 28) / 255)
        # row-major: byte 16 + 28 r + c of image 0 is pixel (r, c)
        assert float(ds.X[0, 0, 1, 2]) == pytest.approx(images[28 + 2] / 255)
        assert "1708.07747" in ds.note and "MIT" in ds.note
    assert load(f"fashion-mnist:root={tmp_path}").y.tolist() == written["train"][1]
    assert load(f"fashion-mnist:root={tmp_path},split=test").y.tolist() == written["t10k"][1]
    tr, te = train_test(f"fashion-mnist:root={tmp_path}")
    assert (len(tr), len(te)) == (5, 3)
    assert te.y.tolist() == written["t10k"][1]


def test_fashion_mnist_missing(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="apt-get install dataset-fashion-mnist") as err:
        fashion_mnist(tmp_path)
    one_line_data_error(err)
    write_fashion(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(ParameterError, match="t10k-labels-idx1-ubyte") as err:
        load(f"fashion-mnist:root={tmp_path},split=test")
    one_line_data_error(err)


@pytest.mark.parametrize(
    ("images", "labels"),
    [
        ((3, (3, 27, 28), "B", [0] * 3 * 27 * 28), (3, (3,), "B", [0, 1, 2])),  # not 28x28
        ((3, (3, 28, 28), "B", [0] * 3 * 784), (3, (2,), "B", [0, 1])),  # counts differ
        ((3, (3, 28, 28), "B", [0] * 3 * 784), (3, (3,), "B", [0, 1, 10])),  # label 10
        ((3, (3, 28, 28), "B", [0] * 3 * 784), (3, (3,), "h", [0, 1, 2])),  # labels not uint8
    ],
)
def test_fashion_mnist_bad_files(tmp_path: Path, images: tuple, labels: tuple) -> None:
    codes = {"B": 0x08, "h": 0x0B}
    for kind, (_, dims, fmt, values) in (("images-idx3", images), ("labels-idx1", labels)):
        write(tmp_path / f"train-{kind}-ubyte", idx_bytes(codes[fmt], dims, fmt, values), gz=False)
    with pytest.raises(ParameterError) as err:
        fashion_mnist(tmp_path)
    one_line_data_error(err)


# --- Fashion-MNIST, the real files from Debian --------------------------------------------------------------


def debian_file(stem: str) -> Path | None:
    for name in (stem, stem + ".gz"):
        if (DEBIAN_FASHION / name).is_file():
            return DEBIAN_FASHION / name
    return None


def raw(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


@pytest.fixture(scope="module")
def fashion() -> tuple[Dataset, Dataset]:
    stems = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
    if any(debian_file(s) is None for s in stems):
        pytest.skip("dataset-fashion-mnist is not installed: apt-get install dataset-fashion-mnist")
    return train_test("fashion-mnist")


def test_fashion_mnist_real(fashion: tuple[Dataset, Dataset]) -> None:
    train, test = fashion
    # published: 60000 training and 10000 test images, 6000 and 1000 per class (Xiao et al. 2017, table 1)
    assert train.X.shape == (60000, 1, 28, 28) and test.X.shape == (10000, 1, 28, 28)
    assert torch.bincount(train.y, minlength=10).tolist() == [6000] * 10
    assert torch.bincount(test.y, minlength=10).tolist() == [1000] * 10
    for ds in (train, test):
        assert ds.X.dtype == torch.float32 and ds.y.dtype == torch.int64 and ds.classes == 10
        assert float(ds.X.min()) == 0.0 and float(ds.X.max()) == 1.0


def test_fashion_mnist_real_matches_raw_bytes(fashion: tuple[Dataset, Dataset]) -> None:
    train, test = fashion
    for ds, prefix, n in ((train, "train", 60000), (test, "t10k", 10000)):
        labels_path = debian_file(f"{prefix}-labels-idx1-ubyte")
        images_path = debian_file(f"{prefix}-images-idx3-ubyte")
        assert labels_path is not None and images_path is not None
        lab, img = raw(labels_path), raw(images_path)
        assert struct.unpack(">II", lab[:8]) == (2049, n)  # magic 0x00000801: unsigned bytes, 1 dimension
        assert struct.unpack(">IIII", img[:16]) == (2051, n, 28, 28)  # 0x00000803: unsigned bytes, 3 dimensions
        assert int(ds.y[0]) == lab[8] and int(ds.y[-1]) == lab[-1]
        first = torch.tensor(list(img[16 : 16 + 784]), dtype=torch.float32).reshape(28, 28) / 255
        assert torch.equal(ds.X[0, 0], first)
    assert int(train.y[0]) == 9  # the first training image is an ankle boot


# --- CIFAR --------------------------------------------------------------------------------------------------


def cifar_batch(rng: np.random.Generator, n: int, label_keys: dict[bytes, int]) -> dict:
    """A batch as the python version stores it: bytes keys, (n, 3072) uint8 data, labels as lists."""
    batch: dict = {
        b"batch_label": b"testing batch",
        b"data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8),
        b"filenames": [f"img_{i}.png".encode() for i in range(n)],
    }
    for key, classes in label_keys.items():
        batch[key] = rng.integers(0, classes, size=n).tolist()
    return batch


def dump(path: Path, obj: object, protocol: int = 2) -> None:
    with path.open("wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def write_cifar10(root: Path, per_batch: int = 2, n_test: int = 3) -> dict[str, dict]:
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(1)
    batches = {}
    for i, name in enumerate([*(f"data_batch_{i}" for i in range(1, 6)), "test_batch"]):
        batches[name] = cifar_batch(rng, n_test if name == "test_batch" else per_batch, {b"labels": 10})
        dump(folder / name, batches[name], protocol=5 if i == 1 else 2)  # numpy 2's protocol-5 layout too
    return batches


def test_cifar10_tiny(tmp_path: Path) -> None:
    batches = write_cifar10(tmp_path)
    train = cifar10(tmp_path)
    data = np.concatenate([batches[f"data_batch_{i}"][b"data"] for i in range(1, 6)])
    labels = [label for i in range(1, 6) for label in batches[f"data_batch_{i}"][b"labels"]]
    assert train.X.shape == (10, 3, 32, 32) and train.X.dtype == torch.float32
    assert train.y.dtype == torch.int64 and train.y.tolist() == labels
    assert train.input_shape == (3, 32, 32) and train.classes == 10
    # 1024 red, then 1024 green, then 1024 blue values, each a row-major 32x32 image
    assert float(train.X[3, 0, 0, 0]) == pytest.approx(data[3, 0] / 255)
    assert float(train.X[3, 1, 0, 5]) == pytest.approx(data[3, 1024 + 5] / 255)
    assert float(train.X[3, 2, 31, 31]) == pytest.approx(data[3, 3071] / 255)
    assert float(train.X[7, 1, 2, 3]) == pytest.approx(data[7, 1024 + 2 * 32 + 3] / 255)
    test = cifar10(tmp_path / "cifar-10-batches-py", train=False)  # the batches directory itself also works
    assert test.y.tolist() == batches["test_batch"][b"labels"]
    assert torch.allclose(test.X.reshape(3, -1) * 255, torch.from_numpy(batches["test_batch"][b"data"]).float())
    assert "Krizhevsky" in train.note
    assert load(f"cifar10:root={tmp_path},split=test").y.tolist() == batches["test_batch"][b"labels"]
    tr, te = train_test(f"cifar10:root={tmp_path}")
    assert (len(tr), len(te)) == (10, 3) and tr.y.tolist() == labels


def test_cifar100_tiny(tmp_path: Path) -> None:
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    rng = np.random.default_rng(2)
    keys = {b"fine_labels": 100, b"coarse_labels": 20}
    batches = {"train": cifar_batch(rng, 4, keys), "test": cifar_batch(rng, 2, keys)}
    for name, batch in batches.items():
        dump(folder / name, batch)
    fine = cifar100(tmp_path)
    assert fine.y.tolist() == batches["train"][b"fine_labels"] and fine.classes == 100
    coarse = cifar100(tmp_path, train=False, labels="coarse")
    assert coarse.y.tolist() == batches["test"][b"coarse_labels"] and coarse.classes == 20
    assert torch.allclose(coarse.X.reshape(2, -1) * 255, torch.from_numpy(batches["test"][b"data"]).float())
    assert load(f"cifar100:root={tmp_path},labels=coarse").y.tolist() == batches["train"][b"coarse_labels"]
    tr, te = train_test(f"cifar100:root={folder}")
    assert tr.y.tolist() == batches["train"][b"fine_labels"] and te.y.tolist() == batches["test"][b"fine_labels"]
    with pytest.raises(ParameterError) as err:
        cifar100(tmp_path, labels="medium")
    assert err.value.name == "labels"


class Sneaky:
    """Unpickling this would delete a file: a CIFAR reader must refuse it."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple:
        return (os.remove, (str(self.target),))


def test_cifar_refuses_code(tmp_path: Path) -> None:
    write_cifar10(tmp_path)
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("still here")
    batch = tmp_path / "cifar-10-batches-py" / "test_batch"
    dump(batch, {b"data": Sneaky(sentinel), b"labels": [0]})
    with pytest.raises(ParameterError, match="refusing") as err:
        cifar10(tmp_path, train=False)
    one_line_data_error(err)
    assert sentinel.read_text() == "still here"


@pytest.mark.parametrize(
    "batch",
    [
        {b"data": np.zeros((2, 100), dtype=np.uint8), b"labels": [0, 1]},  # not 3072 values
        {b"data": np.zeros((2, 3072), dtype=np.float32), b"labels": [0, 1]},  # not uint8
        {b"data": np.zeros((2, 3072), dtype=np.uint8), b"labels": [0]},  # one label short
        {b"data": np.zeros((2, 3072), dtype=np.uint8), b"labels": [0, 10]},  # label 10 of 10 classes
        {b"data": np.zeros((2, 3072), dtype=np.uint8), b"labels": [0, -1]},
        {b"data": np.zeros((2, 3072), dtype=np.uint8), b"labels": ["a", "b"]},
        {b"data": np.zeros((2, 3072), dtype=np.uint8)},  # no labels
        {b"data": [[0] * 3072] * 2, b"labels": [0, 1]},  # a list, not an array
        [np.zeros((2, 3072), dtype=np.uint8), [0, 1]],  # not a dict
        b"garbage",
    ],
)
def test_cifar_bad_batches(tmp_path: Path, batch: object) -> None:
    write_cifar10(tmp_path)
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    if isinstance(batch, bytes):
        path.write_bytes(batch)
    else:
        dump(path, batch)
    with pytest.raises(ParameterError) as err:
        cifar10(tmp_path, train=False)
    one_line_data_error(err)


def test_cifar_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match=r"cifar\.html") as err:
        cifar10(tmp_path)
    one_line_data_error(err)
    with pytest.raises(ParameterError) as err:
        cifar10(tmp_path / "nowhere")
    one_line_data_error(err)
    write_cifar10(tmp_path)
    (tmp_path / "cifar-10-batches-py" / "data_batch_4").unlink()
    with pytest.raises(ParameterError, match="data_batch_4") as err:
        cifar10(tmp_path)
    one_line_data_error(err)
    cifar10(tmp_path, train=False)  # the test split is still there


# --- load() specs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "fashion-mnist:root",
        "fashion-mnist:root=",
        "fashion-mnist:split=val",
        "fashion-mnist:labels=coarse",
        "fashion-mnist:root=/nonexistent/place",
        "fashion-mnist-test",
        "mnist1d:samples=many",
        "mnist1d:colour=1",
        "mnist1d:root=/x",
        "cifar10",
        "cifar10:split=test",
        "cifar10:root=/nonexistent/place",
        "cifar100:root=/x,labels=medium",
        "cifar",
        "digits:root=/x",
    ],
)
def test_load_bad_new_specs(spec: str) -> None:
    with pytest.raises(ParameterError) as err:
        load(spec)
    one_line_data_error(err)


# --- holdout and train_test ---------------------------------------------------------------------------------


def labelled(counts: list[int], seed: int = 0) -> Dataset:
    """Sample i has X = i (so parts can be traced back), labels with the given counts, shuffled."""
    y = torch.cat([torch.full((c,), k) for k, c in enumerate(counts)])
    y = y[torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))]
    n = len(y)
    X = torch.arange(n, dtype=torch.float32).reshape(n, 1)
    return Dataset(X=X, y=y, name="toy", input_shape=(1,), classes=len(counts) + 1, note="toy data")


def ids(ds: Dataset) -> list[int]:
    return [int(v) for v in ds.X[:, 0]]


def test_holdout_stratified_exact() -> None:
    ds = labelled([50, 30, 20])
    tr, te = holdout(ds, test_fraction=0.2, seed=3)
    assert torch.bincount(te.y, minlength=3).tolist()[:3] == [10, 6, 4]
    assert torch.bincount(tr.y, minlength=3).tolist()[:3] == [40, 24, 16]
    assert sorted(ids(tr) + ids(te)) == list(range(100)) and not set(ids(tr)) & set(ids(te))
    assert ids(tr) == sorted(ids(tr)) and ids(te) == sorted(ids(te))  # original order kept
    assert torch.equal(ds.y[torch.tensor(ids(te))], te.y)  # labels travel with their samples
    assert tr.classes == te.classes == 4 and tr.input_shape == (1,)  # kept, even for a class with no samples
    assert tr.name == "toy[train]" and te.name == "toy[test]" and "seed=3" in te.note


@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5, 0.9])
def test_holdout_stratified_uneven(fraction: float) -> None:
    counts = [7, 5, 3, 1, 13]
    n = sum(counts)  # 29
    tr, te = holdout(labelled(counts), test_fraction=fraction, seed=0)
    assert abs(len(te) - fraction * n) <= 0.5 and len(tr) + len(te) == n
    held = torch.bincount(te.y, minlength=5).tolist()
    for c, k in zip(counts, held, strict=True):
        assert abs(k - fraction * c) < 1, (counts, held)


def test_holdout_deterministic() -> None:
    ds = labelled([40, 40, 40], seed=1)
    a = holdout(ds, test_fraction=0.25, seed=5)
    b = holdout(ds, test_fraction=0.25, seed=5)
    c = holdout(ds, test_fraction=0.25, seed=6)
    assert ids(a[1]) == ids(b[1]) and ids(a[0]) == ids(b[0])
    assert ids(a[1]) != ids(c[1])
    assert torch.bincount(c[1].y).tolist() == [10, 10, 10]


def test_holdout_regression() -> None:
    n = 50
    ds = Dataset(
        X=torch.arange(n, dtype=torch.float32).reshape(n, 1),
        y=torch.randn(n, 1),
        name="reg",
        input_shape=(1,),
        classes=None,
        note="",
    )
    tr, te = holdout(ds, test_fraction=0.3, seed=0)
    assert (len(tr), len(te)) == (35, 15)
    assert sorted(ids(tr) + ids(te)) == list(range(n))
    assert torch.equal(te.y, ds.y[torch.tensor(ids(te))])


def test_train_test_holdout_specs(tmp_path: Path) -> None:
    tr, te = train_test("synthetic:n=100,shape=3,classes=4,seed=1", seed=2)
    assert (len(tr), len(te)) == (80, 20)
    assert torch.bincount(te.y).tolist() == [5, 5, 5, 5]  # 25 per class (balanced), 20% each
    tr2, te2 = train_test("synthetic:n=100,shape=3,classes=4,seed=1", seed=2)
    assert torch.equal(te.X, te2.X) and torch.equal(tr.y, tr2.y)
    X = torch.arange(20, dtype=torch.float32).reshape(20, 1)
    y = torch.tensor([0] * 10 + [1] * 10)
    torch.save({"X": X, "y": y}, tmp_path / "d.pt")
    tr, te = train_test(str(tmp_path / "d.pt"), test_fraction=0.5)
    assert torch.bincount(te.y).tolist() == [5, 5] and len(tr) == 10
    tr, te = train_test("regression:n=40,dim=3", test_fraction=0.25)
    assert (len(tr), len(te)) == (30, 10) and te.classes is None


def test_train_test_digits() -> None:
    pytest.importorskip("sklearn")
    tr, te = train_test("digits")
    # class counts of sklearn's load_digits (UCI optdigits test part); 0.2 * 1797 = 359.4
    counts = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert len(te) == 359 and len(tr) == 1797 - 359
    for c, k in zip(counts, torch.bincount(te.y, minlength=10).tolist(), strict=True):
        assert abs(k - 0.2 * c) < 1


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"test_fraction": 0}, "test_fraction"),
        ({"test_fraction": 1}, "test_fraction"),
        ({"test_fraction": -0.1}, "test_fraction"),
        ({"test_fraction": float("nan")}, "test_fraction"),
        ({"test_fraction": True}, "test_fraction"),
        ({"test_fraction": "0.2"}, "test_fraction"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_train_test_bad_arguments(kwargs: dict, name: str) -> None:
    for spec in ("synthetic:n=20", "mnist1d"):  # checked before anything is loaded, official split or not
        with pytest.raises(ParameterError) as err:
            train_test(spec, **kwargs)
        assert err.value.name == name


def test_train_test_bad_specs(tmp_path: Path) -> None:
    write_fashion(tmp_path)
    for spec in (f"fashion-mnist:root={tmp_path},split=test", "mnist1d:split=train", "", "nothing", "x.csv"):
        with pytest.raises(ParameterError) as err:
            train_test(spec)
        one_line_data_error(err)
    with pytest.raises(ParameterError) as err:
        holdout(labelled([1]))
    one_line_data_error(err)


# --- MNIST-1D -----------------------------------------------------------------------------------------------


def test_mnist1d_default() -> None:
    pytest.importorskip("mnist1d")
    tr, te = train_test("mnist1d")
    # published (Greydanus & Kobak; the package's defaults): 4000 train + 1000 test signals of length 40, 10 classes
    assert tr.X.shape == (4000, 1, 40) and te.X.shape == (1000, 1, 40)
    for ds in (tr, te):
        assert ds.X.dtype == torch.float32 and ds.y.dtype == torch.int64
        assert ds.input_shape == (1, 40) and ds.classes == 10
        assert sorted(torch.unique(ds.y).tolist()) == list(range(10))
        assert "synthetic" in ds.note and "2011.14439" in ds.note
    # one channel of 40: an MLP on the flattened signal and a Conv1d on it as is
    assert torch.nn.Linear(40, 10)(tr.X[:8].flatten(1)).shape == (8, 10)
    assert torch.nn.Conv1d(1, 4, kernel_size=5)(tr.X[:8]).shape == (8, 4, 36)


def test_mnist1d_matches_package_and_leaves_global_rng() -> None:
    m1d = pytest.importorskip("mnist1d.data")
    np_state, py_state = np.random.get_state(), random.getstate()
    ds = mnist1d(samples=300, seed=11)
    test = load("mnist1d:samples=300,seed=11,split=test")
    assert pickle.dumps(np.random.get_state()) == pickle.dumps(np_state)  # make_dataset seeds numpy globally
    assert random.getstate() == py_state
    # the package's generator called directly, with the same arguments
    args = m1d.get_dataset_args()
    args.num_samples, args.seed = 300, 11
    try:
        ref = m1d.make_dataset(args)
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)
    assert (len(ds), len(test)) == (240, 60)  # the package keeps 80% for training
    assert torch.equal(ds.X[:, 0], torch.tensor(ref["x"], dtype=torch.float32))
    assert ds.y.tolist() == ref["y"].tolist() and test.y.tolist() == ref["y_test"].tolist()
    assert not torch.equal(ds.X, mnist1d(samples=300, seed=12).X)


def test_mnist1d_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mnist1d")

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("mnist1d tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.chdir(tmp_path)
    ds = mnist1d(samples=50, seed=4)  # parameters no other test uses: generated here, not cached
    assert len(ds) == 40
    assert list(tmp_path.iterdir()) == []  # and no cache file written


def test_mnist1d_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    for kwargs, name in [({"samples": 15}, "samples"), ({"samples": 0}, "samples"), ({"seed": -1}, "seed")]:
        with pytest.raises(ParameterError) as err:
            mnist1d(**kwargs)  # type: ignore[arg-type]
        assert err.value.name == name
    import sys

    monkeypatch.setitem(sys.modules, "mnist1d.data", None)  # None in sys.modules makes the import fail
    with pytest.raises(ParameterError, match="pip install mnist1d") as err:
        mnist1d(samples=70, seed=9)
    one_line_data_error(err)
