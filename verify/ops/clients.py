r"""The batched paths' client axis, in chunks that fit the device's memory.

The batched paths ``torch.func.vmap`` a pure per-client function over a leading client axis. All M clients at
once is fastest while it fits: on an H200 a FedAvg round of a 2.2M-parameter CNN (3x32x32, K = 2, batch 32)
peaked at 50.5 GiB at M = 1000 (issue 23). :func:`over_clients` maps the function over chunks of the axis and
concatenates the results, so the numbers do not depend on the chunk (vmap computes each client on its own).

The chunk is chosen from free memory (:func:`chunk_for`): the first call runs a probe chunk of a few clients,
measures its peak memory on CUDA (``torch.cuda.max_memory_allocated``), and sizes the chunk so the peak stays
under the memory budget (:func:`memory_budget`: :data:`BUDGET_BYTES` or 80% of what is free, the smaller). On the
CPU the peak is not measurable from PyTorch, so the chunk is estimated from the inputs and outputs of the probe
chunk times :data:`CPU_WORKING_FACTOR`. The chosen chunk is kept per problem and purpose for the rest of the run.
"""

from __future__ import annotations

import math
import os
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor
from torch.func import vmap

from sfltheory.errors import ParameterError

#: The default ceiling of a batched path's peak memory: issue 23 asks M = 1000 clients of the 2.2M-parameter CNN
#: to fit in 24 GiB.
BUDGET_BYTES = 24 * 2**30
#: Clients in the probe chunk that sizes the rest (enough for the per-client share to dominate fixed costs).
PROBE_CLIENTS = 4
#: CPU: working memory per client as a multiple of its inputs and outputs (the activations kept for the backward
#: pass and the gradients; an estimate, as the CPU allocator's peak is not visible to PyTorch).
CPU_WORKING_FACTOR = 8.0
#: Head-room on the probe's per-client peak: on an H200, 352 clients sized from a probe of 4 under 24 GiB peaked
#: at 48.7 GiB when the outputs were concatenated (issue 23's first GPU run); reduced outputs leave the working
#: memory, which grows with the chunk a little faster than linearly (larger kernels' workspaces).
SAFETY = 1.25

_CHOSEN: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def free_bytes(device: torch.device) -> int:
    """Free memory of ``device``: CUDA's ``mem_get_info``, or the system's available memory for the CPU."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def memory_budget(device: torch.device, budget: int | None = None) -> int:
    """The peak a batched path may reach: ``budget`` (default :data:`BUDGET_BYTES`) or 80% of the free memory,
    the smaller."""
    cap = BUDGET_BYTES if budget is None else budget
    return int(min(cap, 0.8 * free_bytes(device)))


def _leaves(tree: Any) -> list[Tensor]:
    if isinstance(tree, Tensor):
        return [tree]
    if isinstance(tree, dict):
        return [t for v in tree.values() for t in _leaves(v)]
    if isinstance(tree, (tuple, list)):
        return [t for v in tree for t in _leaves(v)]
    return []


def _slice(tree: Any, s: slice) -> Any:
    if isinstance(tree, Tensor):
        return tree[s]
    if isinstance(tree, dict):
        return {k: _slice(v, s) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_slice(v, s) for v in tree)
    return tree


def _concat(parts: Sequence[Any]) -> Any:
    first = parts[0]
    if isinstance(first, Tensor):
        return torch.cat(list(parts))
    if isinstance(first, dict):
        return {k: _concat([p[k] for p in parts]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(_concat([p[i] for p in parts]) for i in range(len(first)))
    return first


def _add(parts: Sequence[Any]) -> Any:
    first = parts[0]
    if isinstance(first, Tensor):
        return sum(parts[1:], first)
    if isinstance(first, dict):
        return {k: _add([p[k] for p in parts]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(_add([p[i] for p in parts]) for i in range(len(first)))
    return first


def tree_bytes(tree: Any) -> int:
    """Bytes held by the tensors of a nested dict/tuple/list."""
    return sum(t.numel() * t.element_size() for t in _leaves(tree))


def chunk_for(per_client: float, budget: int, M: int) -> int:
    """Clients per chunk so that ``chunk * per_client <= budget`` (at least one, at most ``M``)."""
    if per_client <= 0:
        return M
    return max(1, min(M, math.floor(budget / per_client)))


def over_clients(
    fn: Callable[..., Any],
    *args: Any,
    owner: Any = None,
    purpose: str = "",
    chunk: int | None = None,
    budget: int | None = None,
    randomness: str = "error",
    reduce: Callable[[Any], Any] | None = None,
) -> Any:
    """``vmap(fn)(*args)`` over the leading client axis of every tensor in ``args`` (nested dicts, tuples and
    lists of tensors), in chunks of clients; the outputs (same nesting) are concatenated along that axis, or, with
    ``reduce``, each chunk's output is reduced (e.g. summed over its clients) and the reductions are added up --
    so the clients' outputs are never all held at once (M = 1000 models of 2.2M parameters are 8.6 GB each copy).

    ``chunk``: clients per chunk (None: chosen from free memory, see the module docstring, and remembered for
    ``owner`` -- the problem -- and ``purpose``, a name for the call site). ``budget``: the peak memory allowed
    (default :func:`memory_budget`)."""
    leaves = _leaves(args)
    if not leaves:
        raise ParameterError("args", "over_clients needs at least one tensor with a client axis")
    M = int(leaves[0].shape[0])
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ParameterError("client_chunk", f"must be an integer >= 1 (got {chunk!r})")
    vmapped = vmap(fn, randomness=randomness)

    def mapped(*a: Any) -> Any:
        out = vmapped(*a)
        return out if reduce is None else reduce(out)

    combine = _concat if reduce is None else _add
    if chunk is None and owner is not None:
        chunk = _CHOSEN.get(owner, {}).get(purpose)
    if chunk is None:
        device = leaves[0].device
        allowed = memory_budget(device, budget)
        probe = min(M, PROBE_CLIENTS)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
            before = torch.cuda.memory_allocated(device)
            torch.cuda.reset_peak_memory_stats(device)
            first = mapped(*_slice(args, slice(0, probe)))
            torch.cuda.synchronize(device)
            per_client = (torch.cuda.max_memory_allocated(device) - before) / probe
        else:
            first = mapped(*_slice(args, slice(0, probe)))
            per_client = CPU_WORKING_FACTOR * (tree_bytes(_slice(args, slice(0, probe))) + tree_bytes(first)) / probe
        chunk = chunk_for(SAFETY * per_client, allowed, M)
        if owner is not None:
            _CHOSEN.setdefault(owner, {})[purpose] = chunk
        if probe == M:
            return first
        parts = [first]
        start = probe
    else:
        parts, start = [], 0
    if start == 0 and chunk >= M:
        return mapped(*args)
    for s in range(start, M, chunk):
        parts.append(mapped(*_slice(args, slice(s, min(M, s + chunk)))))
    return combine(parts)


def chosen_chunk(owner: Any, purpose: str) -> int | None:
    """The chunk :func:`over_clients` chose for ``owner`` and ``purpose`` (None before its first call)."""
    return _CHOSEN.get(owner, {}).get(purpose)


__all__ = [
    "BUDGET_BYTES",
    "SAFETY",
    "chosen_chunk",
    "chunk_for",
    "free_bytes",
    "memory_budget",
    "over_clients",
    "tree_bytes",
]
