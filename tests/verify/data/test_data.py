"""verify.data: the bundled digits, file loading, synthetic sets and client partitions (all on the CPU, seconds)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sfltheory.errors import ParameterError  # noqa: E402
from verify.data import (  # noqa: E402
    MAX_DIRICHLET_DRAWS,
    Dataset,
    digits,
    load,
    load_tensors,
    partition,
    synthetic_classification,
    synthetic_regression,
)

# --- digits -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dig() -> Dataset:
    pytest.importorskip("sklearn")
    return digits()


def test_digits_shape_dtype_range(dig: Dataset) -> None:
    assert dig.X.shape == (1797, 1, 8, 8) and dig.X.dtype == torch.float32
    assert dig.y.shape == (1797,) and dig.y.dtype == torch.int64
    assert float(dig.X.min()) == 0.0 and float(dig.X.max()) == 1.0  # raw pixels run 0..16
    assert dig.input_shape == (1, 8, 8) and dig.classes == 10 and len(dig) == 1797
    # class counts of sklearn's load_digits (UCI optdigits test part)
    assert torch.bincount(dig.y).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert "CC BY 4.0" in dig.note


def test_digits_without_sklearn(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # None in sys.modules makes the import fail
    with pytest.raises(ParameterError, match="scikit-learn") as err:
        digits()
    assert err.value.name == "problem.data"


def test_load_specs(dig: Dataset) -> None:
    assert torch.equal(load("digits").X, dig.X)
    ds = load("synthetic:n=100,shape=3x4,classes=5,seed=2")
    assert ds.X.shape == (100, 3, 4) and ds.input_shape == (3, 4) and ds.classes == 5
    assert torch.equal(ds.X, synthetic_classification(100, (3, 4), 5, 2).X)
    assert load("synthetic").X.shape == (512, 1, 8, 8)  # defaults
    reg = load("regression:n=50,dim=7,noise=0,seed=1")
    assert reg.X.shape == (50, 7) and reg.y.shape == (50, 1) and reg.classes is None


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "mnist",
        "synthetic:n=10,colour=3",
        "synthetic:n=ten",
        "synthetic:n",
        "synthetic:n=1,n=2",
        "regression:noise=x",
        "data.csv",
    ],
)
def test_load_bad_spec(spec: str) -> None:
    with pytest.raises(ParameterError) as err:
        load(spec)
    assert err.value.name == "problem.data"


def test_load_bad_values_name_the_parameter() -> None:
    # a generator's own error is named by the field the string came from, the option quoted in the rule
    with pytest.raises(ParameterError) as err:
        load("synthetic:classes=0")
    assert err.value.name == "problem.data" and "'synthetic:classes=0': classes must be" in err.value.rule
    with pytest.raises(ParameterError) as err:
        load("regression:noise=-1")
    assert err.value.name == "problem.data" and "noise must be" in err.value.rule


# --- files --------------------------------------------------------------------------------------------------


def test_load_tensors_round_trip(tmp_path: Path) -> None:
    X = torch.randn(12, 2, 3, dtype=torch.float64)
    y = torch.arange(12) % 4
    torch.save({"X": X, "y": y}, tmp_path / "d.pt")
    np.savez(tmp_path / "d.npz", X=X.numpy(), y=y.numpy().astype(np.int32))
    for name in ("d.pt", "d.npz"):
        ds = load_tensors(tmp_path / name)
        assert ds.X.dtype == torch.float32 and torch.allclose(ds.X, X.float())
        assert ds.y.dtype == torch.int64 and torch.equal(ds.y, y)
        assert ds.input_shape == (2, 3) and ds.classes == 4 and ds.name == "d"
        assert torch.equal(load(str(tmp_path / name)).y, y)
    # float targets are regression targets
    torch.save({"X": X, "y": torch.randn(12, 1)}, tmp_path / "r.pt")
    assert load_tensors(tmp_path / "r.pt").classes is None


def test_load_tensors_errors(tmp_path: Path) -> None:
    X, y = torch.randn(4, 3), torch.arange(4)
    cases = {
        "missing.pt": None,
        "noX.pt": {"y": y},
        "noy.npz": {"X": X.numpy()},
        "len.pt": {"X": X, "y": y[:3]},
        "empty.npz": {"X": np.zeros((0, 3)), "y": np.zeros(0, dtype=np.int64)},
        "scalar.pt": {"X": torch.tensor(1.0), "y": torch.tensor(1)},
        "list.pt": [X, y],
        "neg.pt": {"X": X, "y": y - 2},
        "garbage.pt": b"not a zip",
        "data.txt": b"",
    }
    for name, content in cases.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, dict) and name.endswith(".npz"):
            np.savez(path, **content)
        elif content is not None:
            torch.save(content, path)
        with pytest.raises(ParameterError) as err:
            load_tensors(path)
        assert err.value.name == "problem.data", name


# --- synthetic ----------------------------------------------------------------------------------------------


def test_synthetic_classification() -> None:
    a = synthetic_classification(103, (1, 4, 4), 10, seed=3)
    assert a.X.shape == (103, 1, 4, 4) and a.X.dtype == torch.float32 and a.y.dtype == torch.int64
    counts = torch.bincount(a.y, minlength=10)
    assert int(counts.max() - counts.min()) <= 1
    b = synthetic_classification(103, (1, 4, 4), 10, seed=3)
    assert torch.equal(a.X, b.X) and torch.equal(a.y, b.y)
    assert not torch.equal(a.X, synthetic_classification(103, (1, 4, 4), 10, seed=4).X)
    for kwargs, name in [
        ({"n": 0}, "n"),
        ({"input_shape": (3, 0)}, "input_shape"),
        ({"input_shape": ()}, "input_shape"),
        ({"classes": 0}, "classes"),
        ({"seed": -1}, "seed"),
    ]:
        args = {"n": 10, "input_shape": (4,), "classes": 2, "seed": 0, **kwargs}
        with pytest.raises(ParameterError) as err:
            synthetic_classification(**args)  # type: ignore[arg-type]
        assert err.value.name == name


def test_synthetic_regression() -> None:
    a = synthetic_regression(200, 5, noise=0.0, seed=1)
    assert a.X.shape == (200, 5) and a.y.shape == (200, 1) and a.classes is None
    w = torch.linalg.lstsq(a.X, a.y).solution  # noiseless: exactly linear
    assert torch.allclose(a.X @ w, a.y, atol=1e-5)
    assert torch.equal(a.y, synthetic_regression(200, 5, noise=0.0, seed=1).y)
    for kwargs, name in [
        ({"n": 0}, "n"),
        ({"dim": 0}, "dim"),
        ({"noise": -0.1}, "noise"),
        ({"noise": float("nan")}, "noise"),
    ]:
        args = {"n": 10, "dim": 2, "noise": 0.1, "seed": 0, **kwargs}
        with pytest.raises(ParameterError) as err:
            synthetic_regression(**args)  # type: ignore[arg-type]
        assert err.value.name == name


# --- partition ----------------------------------------------------------------------------------------------

SCHEMES = ["iid", "sorted", "shards:2", "shards:3", "dirichlet:0.1", "dirichlet:1", "dirichlet:1000"]


def assert_partition(parts: list, n: int, clients: int) -> None:
    assert len(parts) == clients
    for p in parts:
        assert p.dtype == torch.int64 and p.ndim == 1 and len(p) >= 1
        assert torch.equal(p, torch.sort(p).values)
    assert torch.equal(torch.sort(torch.cat(parts)).values, torch.arange(n))


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("clients", [1, 7, 20])
def test_partition_is_exact(dig: Dataset, scheme: str, clients: int) -> None:
    parts = partition(dig.y, clients, scheme, seed=5)
    assert_partition(parts, 1797, clients)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_partition_reproducible(dig: Dataset, scheme: str) -> None:
    a = partition(dig.y, 10, scheme, seed=1)
    b = partition(dig.y, 10, scheme, seed=1)
    assert all(torch.equal(p, q) for p, q in zip(a, b, strict=True))
    if scheme != "sorted":  # sorted uses no randomness
        c = partition(dig.y, 10, scheme, seed=2)
        assert not all(torch.equal(p, q) for p, q in zip(a, c, strict=True))


def test_iid_sizes(dig: Dataset) -> None:
    sizes = [len(p) for p in partition(dig.y, 13, "iid")]
    assert max(sizes) - min(sizes) <= 1
    # iid needs only a length: regression targets are fine
    assert_partition(partition(torch.randn(10, 1), 3, "iid"), 10, 3)


def test_sorted_blocks(dig: Dataset) -> None:
    parts = partition(dig.y, 10, "sorted")
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1
    # labels never decrease from one client to the next
    for p, q in itertools.pairwise(parts):
        assert int(dig.y[p].max()) <= int(dig.y[q].min())


def test_shards_aligned_with_classes() -> None:
    y = torch.arange(10).repeat_interleave(100)[torch.randperm(1000, generator=torch.Generator().manual_seed(0))]
    k = 2
    parts = partition(y, 10, f"shards:{k}", seed=0)  # 20 shards of 50: each inside one class
    assert_partition(parts, 1000, 10)
    for p in parts:
        assert len(p) == k * 50
        assert len(torch.unique(y[p])) <= k


def test_shards_digits(dig: Dataset) -> None:
    # 1797 = 20 * 89 + 17: shards of 89 or 90 samples, each shorter than the smallest class (174), so a shard
    # spans at most 2 labels and a client at most 2K.
    k = 2
    parts = partition(dig.y, 10, f"shards:{k}", seed=0)
    for p in parts:
        assert k * 89 <= len(p) <= k * 90
        assert len(torch.unique(dig.y[p])) <= 2 * k
    # divisible case: 1780 samples, 20 shards of exactly 89 (the spec's K * shard_size)
    parts = partition(dig.y[:1780], 10, f"shards:{k}", seed=0)
    assert all(len(p) == k * 89 for p in parts)


def label_skew(y: torch.Tensor, parts: list) -> float:
    """Mean total-variation distance between each client's label histogram and the global one."""
    glob = torch.bincount(y, minlength=10).double()
    glob /= glob.sum()
    tv = []
    for p in parts:
        h = torch.bincount(y[p], minlength=10).double()
        tv.append(0.5 * float((h / h.sum() - glob).abs().sum()))
    return sum(tv) / len(tv)


def test_dirichlet_skew(dig: Dataset) -> None:
    skewed = label_skew(dig.y, partition(dig.y, 10, "dirichlet:0.1", seed=0))
    uniform = label_skew(dig.y, partition(dig.y, 10, "dirichlet:1000", seed=0))
    iid = label_skew(dig.y, partition(dig.y, 10, "iid", seed=0))
    assert skewed > 0.5  # Dir(0.1): most of each client's data from a few classes
    # seed 0 gives 0.64 / 0.014 / 0.069: Dir(1000) is stratified per class, so even closer than iid
    assert uniform < 0.05 and iid < 0.15
    # with alpha = 1000 client sizes are near n / clients
    sizes = [len(p) for p in partition(dig.y, 10, "dirichlet:1000", seed=0)]
    assert max(sizes) - min(sizes) < 30


def test_dirichlet_gives_up(dig: Dataset) -> None:
    # 2 samples per class, 4 clients, tiny alpha: a client gets nothing in every draw
    y = torch.tensor([0, 0, 1, 1])
    with pytest.raises(ParameterError, match=str(MAX_DIRICHLET_DRAWS)) as err:
        partition(y, 4, "dirichlet:0.001", seed=0)
    assert err.value.name == "problem.clients"


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((torch.arange(5), 0, "iid"), "problem.clients"),
        ((torch.arange(5), 6, "iid"), "problem.clients"),
        ((torch.arange(5), 2.0, "iid"), "problem.clients"),
        ((torch.arange(5), True, "iid"), "problem.clients"),
        ((torch.arange(0), 1, "iid"), "problem.clients"),
        ((torch.tensor(3), 1, "iid"), "problem.data"),
        (([1, 2, 3], 1, "iid"), "problem.data"),
        ((torch.arange(5), 2, "iid", -1), "problem.seed"),
        ((torch.arange(5), 2, "random"), "problem.partition"),
        ((torch.arange(5), 2, "iid:3"), "problem.partition"),
        ((torch.arange(5), 2, "dirichlet"), "problem.partition"),
        ((torch.arange(5), 2, "dirichlet:abc"), "problem.partition"),
        ((torch.arange(5), 2, "dirichlet:0"), "problem.partition"),
        ((torch.arange(5), 2, "dirichlet:-1"), "problem.partition"),
        ((torch.arange(5), 2, "dirichlet:inf"), "problem.partition"),
        ((torch.arange(5), 2, "shards:0"), "problem.partition"),
        ((torch.arange(5), 2, "shards:1.5"), "problem.partition"),
        ((torch.arange(5), 2, "shards:3"), "problem.partition"),  # 6 shards of 5 samples
        # a label-based scheme on targets that are not class labels: the scheme is what does not fit the data
        ((torch.rand(5), 2, "dirichlet:1"), "problem.partition"),
        ((torch.rand(5), 2, "shards:1"), "problem.partition"),
        ((torch.rand(5), 2, "sorted"), "problem.partition"),
        ((torch.zeros(5, 2, dtype=torch.int64), 2, "sorted"), "problem.partition"),
        ((torch.ones(5, dtype=torch.bool), 2, "sorted"), "problem.partition"),
    ],
)
def test_partition_errors(args: tuple, name: str) -> None:
    with pytest.raises(ParameterError) as err:
        partition(*args)
    assert err.value.name == name
