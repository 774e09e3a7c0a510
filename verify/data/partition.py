"""Split a dataset's sample indices among federated clients: IID or with label skew.

``partition(y, clients, scheme, seed)`` returns one sorted int64 index tensor per client; together they are a
partition of ``range(len(y))`` (every index exactly once) and no client is empty. The heterogeneity that the
bounds call eps^2 / zeta^2 comes from these schemes, so they follow the papers that introduced them.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.spec import partition_scheme

from .datasets import DATA

_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)

#: Draws of the Dirichlet proportions before giving up on leaving every client non-empty.
MAX_DIRICHLET_DRAWS = 1000


# The spec fields the errors name (verify.spec.FLAGS shows them as --partition, --clients, --data).
PARTITION, CLIENTS, SEED = "problem.partition", "problem.clients", "problem.seed"


def _labels(y: Tensor, scheme: str) -> np.ndarray:
    if y.ndim != 1 or y.dtype not in _INT_DTYPES:
        raise ParameterError(
            PARTITION,
            f"scheme '{scheme}' needs a 1-D tensor of integer class labels, got dtype {y.dtype} shape {tuple(y.shape)}",
        )
    return y.detach().cpu().numpy().astype(np.int64)


def _parse_scheme(scheme: str) -> tuple[str, float]:
    """(kind, parameter): the parameter is alpha for dirichlet, K for shards, 0 otherwise."""
    return partition_scheme(PARTITION, scheme)


def _as_tensors(parts: list[np.ndarray]) -> list[Tensor]:
    return [torch.from_numpy(np.sort(p).astype(np.int64)) for p in parts]


def _dirichlet(labels: np.ndarray, clients: int, alpha: float, rng: np.random.Generator) -> list[np.ndarray]:
    classes = np.unique(labels)
    by_class = [np.flatnonzero(labels == c) for c in classes]
    for _ in range(MAX_DIRICHLET_DRAWS):
        parts: list[list[np.ndarray]] = [[] for _ in range(clients)]
        ok = True
        for idx in by_class:
            p = rng.dirichlet(np.full(clients, alpha))
            if not np.all(np.isfinite(p)):  # every gamma variate underflowed: treat as a failed draw
                ok = False
                break
            # rint, not floor: with floor the rounding leftovers all drift to the last client
            cuts = np.rint(np.cumsum(p)[:-1] * len(idx)).astype(np.int64)
            for j, piece in enumerate(np.split(rng.permutation(idx), cuts)):
                parts[j].append(piece)
        if ok:
            merged = [np.concatenate(ps) for ps in parts]
            if min(len(m) for m in merged) > 0:
                return merged
    raise ParameterError(
        CLIENTS,
        f"dirichlet:{alpha:g} left some of {clients} clients empty in {MAX_DIRICHLET_DRAWS} seeded draws "
        f"({len(labels)} samples); use fewer clients, a larger alpha or another seed",
    )


def partition(y: Tensor, clients: int, scheme: str = "iid", seed: int = 0) -> list[Tensor]:
    """Indices of each client's samples: a list of ``clients`` sorted int64 tensors partitioning ``range(len(y))``.

    Schemes (the same ``seed`` gives the same split):

    * ``"iid"``: a uniformly random split into sizes that differ by at most 1.
    * ``"dirichlet:ALPHA"``: label skew. For each class, proportions over the clients are drawn from
      Dir(ALPHA, ..., ALPHA) and that class's samples are dealt out accordingly, as in Yurochkin et al.,
      "Bayesian Nonparametric Federated Learning of Neural Networks" (ICML 2019), Wang et al., "Federated
      Learning with Matched Averaging" (ICLR 2020) and the NIID-Bench of Li et al., "Federated Learning on
      Non-IID Data Silos: An Experimental Study" (ICDE 2022). Hsu, Qi and Brown, "Measuring the Effects of
      Non-Identical Data Distribution for Federated Visual Classification" (arXiv:1909.06335, 2019) brought
      Dirichlet label skew in, drawing each *client's* class mix instead. Small ALPHA: few classes per
      client; ALPHA -> infinity: IID. Draws that leave a client empty are redrawn (at most
      :data:`MAX_DIRICHLET_DRAWS` times), so the result is conditioned on every client having data.
    * ``"shards:K"``: McMahan et al., "Communication-Efficient Learning of Deep Networks from Decentralized
      Data" (AISTATS 2017): sort by label, cut into ``clients * K`` shards of equal size (+-1 when
      ``clients * K`` does not divide n) and give each client K random shards. A shard shorter than every
      class spans at most 2 labels, so a client sees at most 2K labels (K when shards align with classes).
    * ``"sorted"``: sort by label and cut into contiguous blocks (sizes differ by at most 1): the most skewed
      split, deterministic.

    Label-based schemes need ``y`` to be a 1-D tensor of integer class labels; ``"iid"`` uses only ``len(y)``.
    Errors name the spec fields ``problem.partition``, ``problem.clients`` and ``problem.seed``.
    """
    if not isinstance(y, Tensor) or y.ndim == 0:
        raise ParameterError(DATA, "the labels must be a tensor with samples along dim 0")
    n = int(y.shape[0])
    if isinstance(clients, bool) or not isinstance(clients, int | np.integer) or clients < 1:
        raise ParameterError(CLIENTS, f"must be an integer >= 1, got {clients!r}")
    clients = int(clients)
    if clients > n:
        raise ParameterError(CLIENTS, f"{clients} clients cannot each get a sample of {n}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(SEED, f"must be an integer >= 0, got {seed!r}")
    kind, arg = _parse_scheme(scheme)
    rng = np.random.default_rng(int(seed))

    if kind == "iid":
        return _as_tensors(np.array_split(rng.permutation(n), clients))
    labels = _labels(y, scheme)
    if kind == "dirichlet":
        return _as_tensors(_dirichlet(labels, clients, arg, rng))
    by_label = np.argsort(labels, kind="stable")  # stable: ties keep index order, so no hidden randomness
    if kind == "sorted":
        return _as_tensors(np.array_split(by_label, clients))
    k = int(arg)
    if clients * k > n:
        raise ParameterError(PARTITION, f"shards:{k} with {clients} clients needs {clients * k} shards of {n} samples")
    shards = np.array_split(by_label, clients * k)
    order = rng.permutation(clients * k)
    return _as_tensors([np.concatenate([shards[s] for s in order[i * k : (i + 1) * k]]) for i in range(clients)])
