r"""A client's costs of one local update, measured: FLOPs and peak memory, first order against HERON-SFL's zeroth order.

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning" (seed ``001_e8dcbf2a405221d7.txt``), Sec. V-B2 (line 189: first-order clients
cache activations for backpropagation; zeroth order "reduces peak memory to O(1), matching inference cost"), Remark 4
(line 193: the perturbation regenerated from a seed and applied in place), Sec. V-B3 (line 195: first order costs
about :math:`3F_c` (SFLV1/V2) or :math:`3(F_c + F_a)` (CSE-FSL, FSL-SAGE) per update, HERON-SFL's two-point
estimator :math:`2(F_c + F_a)`), and Table II (lines 218-224: Peak FP (MB) and FLOPS (G) per local update).

The updates measured (one local step of one client on one mini-batch ``x``, ``y``):

* ``sflv`` (SFLV1/V2): forward of the client, the server's gradient of the smashed data received (a tensor of the
  activation's shape, allocated inside the update), backward of the client, an SGD step;
* ``cse`` (CSE-FSL, FSL-SAGE): forward of the client and the auxiliary head, cross-entropy, backward of both, SGD;
* ``heron`` (HERON-SFL, two-point): without autograd, the loss through client and head at :math:`\theta` and at
  :math:`\theta + \mu u`, the direction ``u`` regenerated from one seed one parameter tensor at a time and applied in
  place (Remark 4, MeZO's scheme), then the step :math:`\theta \leftarrow \theta - \eta\,
  \frac{f(\theta+\mu u) - f(\theta)}{\mu} u` in place. That is P = 1 direction: 2 forwards. The trainer's
  estimator (:mod:`verify.train.algorithms.heron_sfl`) shares the base point over its P directions: P + 1 forwards,
  i.e. :math:`(P + 1)(F_c + F_a)` (P = 1: the paper's two-point count).

FLOPs: :class:`torch.utils.flop_counter.FlopCounterMode` (matrix products and convolutions, 2 per multiply-add;
batch normalisation, activations and the loss are not counted). Its backward counts what autograd runs: the first
layer, whose input needs no gradient, computes only its weight gradient, so a first-order update measures slightly
less than the paper's :math:`3F` rule.

Peak memory (there is no ``torch.cuda.max_memory_allocated`` on a CPU): :class:`LiveBytes`, a torch dispatch mode
(``TorchDispatchMode``, which torch's own FlopCounterMode is built on; a ``TorchFunctionMode`` would not see the
operations autograd runs in the backward) that sees every ATen operation of the update, the backward included,
records each new storage an operation returns with its bytes, and before every operation drops the storages freed
since (a weak reference to each, :class:`torch.multiprocessing.reductions.StorageWeakRef`). The peak is the largest
sum of live new storages at any operation plus the ``resident`` bytes held before the update (parameters, buffers,
the mini-batch). It counts tensor storages only: no allocator rounding, no library workspaces (cuDNN's), no Python
objects -- so absolute numbers are below a GPU's ``max_memory_allocated``; the ratio zeroth / first order is what
compares with Table II. Everything runs on any device, the ``meta`` device included (shapes only, no arithmetic):
the paper's ResNet-18 setting is measured there in a few seconds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from sfltheory.errors import ParameterError

UPDATES = ("sflv", "cse", "heron")  # SFLV1/V2 (client only), CSE-FSL (client + head, FO), HERON-SFL (ZO, P = 1)


def _tensors(out: Any) -> Iterator[Tensor]:
    """The tensors of an operation's output (a tensor, or a tuple or list of them, nested)."""
    if isinstance(out, Tensor):
        yield out
    elif isinstance(out, tuple | list):
        for o in out:
            yield from _tensors(o)


class LiveBytes(TorchDispatchMode):
    """Tracks the bytes of the storages created inside it and their peak (see the module docstring).

    ``resident``: storages present before (their bytes are the caller's to add: :func:`resident_bytes`); a storage
    that an operation returns and that is resident or already live (an in-place result, a view) is not new."""

    def __init__(self, resident: tuple[Tensor, ...] = ()) -> None:
        super().__init__()
        self.known = {StorageWeakRef(t.untyped_storage()) for t in resident}
        self.live: dict[StorageWeakRef, int] = {}
        self.now = 0
        self.peak = 0

    def sweep(self) -> None:
        """Drop the storages freed since the last operation."""
        gone = [ref for ref in self.live if ref.expired()]
        for ref in gone:
            self.now -= self.live.pop(ref)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.sweep()
        out = func(*args, **(kwargs or {}))
        for t in _tensors(out):
            s = t.untyped_storage()
            ref = StorageWeakRef(s)
            if ref in self.live or ref in self.known:
                continue
            self.live[ref] = s.nbytes()
            self.now += s.nbytes()
        self.peak = max(self.peak, self.now)
        return out


def resident_bytes(*parts: nn.Module | Tensor) -> int:
    """The bytes of the parameters and buffers of the modules and of the tensors given (each storage once)."""
    seen: dict[StorageWeakRef, int] = {}
    for p in parts:
        ts = [*p.parameters(), *p.buffers()] if isinstance(p, nn.Module) else [p]
        for t in ts:
            seen[StorageWeakRef(t.untyped_storage())] = t.untyped_storage().nbytes()
    return sum(seen.values())


def sflv_update(client: nn.Module, x: Tensor, eta: float = 0.01) -> None:
    """SFLV1/V2's client step: forward, the server's gradient of the smashed data (ones here: its values do not
    change the cost), backward, SGD in place."""
    h = client(x)
    h.backward(torch.ones_like(h))
    with torch.no_grad():
        for p in client.parameters():
            if p.grad is not None:
                p.add_(p.grad, alpha=-eta)
                p.grad = None


def cse_update(client: nn.Module, head: nn.Module, x: Tensor, y: Tensor, eta: float = 0.01) -> None:
    """CSE-FSL's (and FSL-SAGE's) client step: forward of client and head, cross-entropy, backward, SGD in place."""
    loss = F.cross_entropy(head(client(x)), y)
    loss.backward()
    with torch.no_grad():
        for p in [*client.parameters(), *head.parameters()]:
            if p.grad is not None:
                p.add_(p.grad, alpha=-eta)
                p.grad = None


def _perturb(params: Sequence[Tensor], seed: int, scale: float) -> None:
    """Add ``scale * u`` in place, u Gaussian regenerated from ``seed`` one tensor at a time (Remark 4)."""
    g = torch.Generator(device=params[0].device if params[0].device.type != "meta" else "cpu").manual_seed(seed)
    for p in params:
        if p.device.type == "meta":
            u = torch.empty_like(p)
        else:
            u = torch.randn(p.shape, generator=g, dtype=p.dtype, device=p.device)
        p.add_(u, alpha=scale)
        del u


def heron_update(client: nn.Module, head: nn.Module, x: Tensor, y: Tensor, lam: float = 1e-3, eta: float = 1e-3,
                 seed: int = 0) -> None:  # fmt: skip
    """HERON-SFL's client step, two-point (P = 1): two forwards of client and head without autograd, the direction
    regenerated from ``seed`` and applied in place (module docstring)."""
    params = [*client.parameters(), *head.parameters()]
    with torch.no_grad():
        f0 = F.cross_entropy(head(client(x)), y)
        _perturb(params, seed, lam)
        f1 = F.cross_entropy(head(client(x)), y)
        _perturb(params, seed, -lam)
        # theta - eta (f1 - f0) / lam * u; on the meta device the difference has no value, the cost is the same
        c = 1.0 if x.device.type == "meta" else float((f1 - f0) / lam)
        _perturb(params, seed, -eta * c)


@dataclass(frozen=True, kw_only=True)
class Cost:
    """One update's measured cost: its FLOPs and its peak memory in bytes (``resident`` of it held before)."""

    update: str
    flops: float
    peak_bytes: int
    resident_bytes: int


def _run(update: str, client: nn.Module, head: nn.Module, x: Tensor, y: Tensor) -> Callable[[], None]:
    """The update named ``update`` on these modules and batch, as a call."""
    if update == "sflv":
        return lambda: sflv_update(client, x)
    if update == "cse":
        return lambda: cse_update(client, head, x, y)
    if update == "heron":
        return lambda: heron_update(client, head, x, y)
    raise ParameterError("update", f"must be one of {', '.join(UPDATES)} (got {update!r})")


def measure(update: str, client: nn.Module, head: nn.Module, x: Tensor, y: Tensor) -> Cost:
    """The FLOPs and peak bytes of one ``update`` (:data:`UPDATES`) of ``client`` (and ``head``) on ``x``, ``y``:
    the update runs twice, once under :class:`FlopCounterMode`, once under :class:`LiveBytes` (each on a copy of the
    modules, so the measured update leaves them as they were)."""
    if update not in UPDATES:
        raise ParameterError("update", f"must be one of {', '.join(UPDATES)} (got {update!r})")
    c1, h1 = copy.deepcopy(client), copy.deepcopy(head)
    with FlopCounterMode(display=False) as fc:
        _run(update, c1, h1, x, y)()
    c2, h2 = copy.deepcopy(client), copy.deepcopy(head)
    held = (x, y) if update != "sflv" else (x,)
    resident = resident_bytes(c2, *((h2,) if update != "sflv" else ()), *held)
    tensors = (*c2.parameters(), *c2.buffers(), *h2.parameters(), *h2.buffers(), x, y)
    with LiveBytes(resident=tensors) as mode:
        _run(update, c2, h2, x, y)()
    return Cost(update=update, flops=float(fc.get_total_flops()), peak_bytes=resident + mode.peak,
                resident_bytes=resident)  # fmt: skip


__all__ = ["UPDATES", "Cost", "LiveBytes", "cse_update", "heron_update", "measure", "resident_bytes", "sflv_update"]
