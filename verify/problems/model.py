"""A torch model split at a cut among partitioned clients: :class:`ModelProblem`, whose constants are measured.

Its :meth:`ModelProblem.constants` measures (:func:`verify.constants.measure`) on the problem's own model and
clients: the client and server modules as one module (:func:`whole_model`, parameters ``client.*`` and
``server.*``) split by :data:`SPLIT`, at any point of a run.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn
from torch.func import functional_call

from sfltheory import variants as var
from sfltheory.constants import Constants
from sfltheory.errors import ParameterError, SflTheoryError
from verify.constants.measure import DEFAULT_WHAT, group_of_key, measure
from verify.models import enumerate_blocks, model_cuts, resolve_cut
from verify.models.recurrent import vmappable_rnns_
from verify.ops import tree
from verify.ops.batch import Batch
from verify.ops.clients import free_bytes
from verify.ops.tree import Params

from .base import FullGradient, Point, Problem

__all__ = ["SPLIT", "ModelProblem", "default_aux", "measurement_plan", "per_sample", "whole_model"]

# The parts of whole_model(problem) for verify.constants.measure: its two submodules.
SPLIT = {"client": ["client"], "server": ["server"]}


def per_sample(loss: Callable[[Tensor, Tensor], Tensor]) -> Callable[[Tensor, Tensor], Tensor]:
    """Per-sample losses from a ``torch.nn`` loss (``reduction="none"``), averaged over any non-batch dims."""
    if isinstance(loss, nn.Module) and hasattr(loss, "reduction"):
        import copy

        loss = copy.copy(loss)
        loss.reduction = "none"  # type: ignore[assignment]

    def f(out: Tensor, y: Tensor) -> Tensor:
        v = loss(out, y)
        return v.reshape(v.shape[0], -1).mean(1) if v.ndim > 1 else v

    return f


def default_aux(activation_shape: Sequence[int], classes: int) -> nn.Module:
    """The auxiliary head HERON-SFL and sfl_aux attach to the client (both papers use a small classifier on the
    smashed data): flatten, then one linear layer to the classes."""
    return nn.Sequential(nn.Flatten(), nn.Linear(math.prod(activation_shape), classes))


class ModelProblem(Problem):
    """A torch model split into a client module and a server module, with data partitioned among clients.

    Build it with :meth:`at_cut` (a model that is a chain of its blocks, as every model of ``verify.models``
    is: the client gets the blocks up to the cut and the parameterless ones after it) or :meth:`from_parts`
    (your own client and server modules). Batch norm is used with batch statistics throughout (its running
    statistics are not tracked: ``torch.func.replace_all_batch_norm_modules_``), since a running-statistics
    buffer is state that is not a parameter and would differ per client. Recurrent layers (``nn.RNN``, ``nn.GRU``,
    ``nn.LSTM``) are made vmappable (:func:`verify.models.recurrent.vmappable_rnns_`: the same parameters, the
    documented equations step by step), since torch has no batching rule for their fused kernels; with
    ``vmappable_rnns=False`` they keep torch's kernels and only the per-client loop can run them.
    """

    def __init__(
        self,
        client: nn.Module,
        server: nn.Module,
        loss: Callable[[Tensor, Tensor], Tensor],
        X: Tensor,
        y: Tensor,
        clients: Sequence[Tensor],
        *,
        X_test: Tensor | None = None,
        y_test: Tensor | None = None,
        aux: nn.Module | None = None,
        client_fraction: float | None = None,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
        chunk: int = 2048,
        eval_samples: int | None = None,
        name: str = "model",
        meta: Mapping[str, Any] | None = None,
        vmappable_rnns: bool = True,
    ) -> None:
        from torch.func import replace_all_batch_norm_modules_

        self.device = torch.device(device)
        self.dtype = dtype
        if not clients:
            raise ParameterError("problem.clients", "needs at least one client")
        for i, idx in enumerate(clients):
            if idx.numel() == 0:
                raise ParameterError("problem.clients", f"client {i} holds no sample")
        self.M = len(clients)
        self.indices = [idx.long().cpu() for idx in clients]
        mods = [client, server] + ([aux] if aux is not None else [])
        for part, mod in zip(("client", "server", "aux"), mods, strict=False):
            replace_all_batch_norm_modules_(mod)
            if vmappable_rnns:  # torch has no batching rule for aten::gru/lstm/rnn_*: the batched path needs it
                vmappable_rnns_(mod, prefix=part)
            mod.to(self.device, dtype)
        self.client, self.server, self.aux = client, server, aux
        self.lossf = per_sample(loss)
        X = X.to(dtype) if X.is_floating_point() else X
        # The data live on the device when they fit in a quarter of its free memory: a mini-batch is then one
        # gather there, not a host-to-device copy per client and step (M = 100 clients, K = 2: 200 copies a round).
        held = sum(t.numel() * t.element_size() for t in (X, y, X_test, y_test) if t is not None)
        on_device = self.device.type != "cpu" and held <= free_bytes(self.device) // 4
        self.data_device = self.device if on_device else torch.device("cpu")
        self.X, self.y = X.to(self.data_device), y.to(self.data_device)
        self.X_test = None if X_test is None else X_test.to(self.data_device)
        self.y_test = None if y_test is None else y_test.to(self.data_device)
        self.chunk = chunk
        # The recorded gradient uses every training sample, or a fixed seeded subsample of at most
        # eval_samples per client (the same one every round, so the curve is of one function).
        if eval_samples is not None and (isinstance(eval_samples, bool) or eval_samples < 1):
            raise ParameterError("problem.eval_samples", f"must be an integer >= 1 (got {eval_samples!r})")
        self.eval_samples = eval_samples
        self.eval_indices = _subsample(self.indices, eval_samples)
        self.name = name
        self.meta = dict(meta or {})
        with torch.no_grad():
            probe = self.X[:2].to(self.device)
            h = client(probe)
        self._activation_shape = tuple(h.shape[1:])
        d_c = sum(p.numel() for p in client.parameters())
        d_s = sum(p.numel() for p in server.parameters())
        self.d_c, self.d_s = d_c, d_s
        self._fraction = client_fraction if client_fraction is not None else d_c / (d_c + d_s)

    @classmethod
    def at_cut(
        cls,
        model: nn.Module,
        cut: str | int,
        loss: Callable[[Tensor, Tensor], Tensor],
        X: Tensor,
        y: Tensor,
        clients: Sequence[Tensor],
        *,
        input_shape: Sequence[int] | None = None,
        expand: Sequence[str] = (),
        classes: int | None = None,
        aux: bool | nn.Module = True,
        **kw: Any,
    ) -> ModelProblem:
        """Split ``model`` after the block ``cut`` (a block name, or its 1-based index as ``sfltheory cuts``
        lists it). The chain of blocks is checked against the model's own forward on two samples; a model that
        does more than call its blocks in order is refused (use :meth:`from_parts`)."""
        import copy

        model = copy.deepcopy(model)  # the parts are converted and trained: never touch the caller's module
        shape = tuple(input_shape) if input_shape is not None else tuple(X.shape[1:])
        xdtype = X.dtype if X.is_floating_point() else torch.float32
        table = model_cuts(model, shape, expand, flops=True, input_dtype=xdtype)
        point = resolve_cut(table, cut)
        if point.index >= len(table.cuts) + 1 or point.d_s == 0:
            raise ParameterError("problem.cut", f"'{point.name}' leaves no parameters on the server")
        blocks = enumerate_blocks(model, expand, shape, input_dtype=xdtype)
        order = [b for b, _ in blocks]
        end = order.index(point.name)
        while end + 1 < len(blocks) and not any(True for _ in blocks[end + 1][1].parameters()):
            end += 1  # parameterless layers after the cut (ReLU, pooling) run on the client, as model_cuts counts
        client = nn.Sequential(OrderedDict((n.replace(".", "/"), m) for n, m in blocks[: end + 1]))
        server = nn.Sequential(OrderedDict((n.replace(".", "/"), m) for n, m in blocks[end + 1 :]))
        if not _is_chain(model, client, server, X):
            raise ParameterError(
                "problem.cut",
                "the model is not a chain of its blocks (its forward does more than call them in order); "
                "build the problem with ModelProblem.from_parts(client, server, ...)",
            )
        fraction = point.client_fraction
        head: nn.Module | None = None
        if isinstance(aux, nn.Module):
            head = aux
        elif aux:
            with torch.no_grad():
                act = client(X[:1].to(next(model.parameters()).dtype))
            k = classes if classes is not None else int(y.max()) + 1 if not y.is_floating_point() else y[0].numel()
            head = default_aux(tuple(act.shape[1:]), k)
        meta = {"cut": point.name, "cut_index": point.index, "d_c": point.d_c, "d_s": point.d_s}
        return cls(client, server, loss, X, y, clients, aux=head, client_fraction=fraction, meta=meta, **kw)

    @classmethod
    def from_parts(
        cls, client: nn.Module, server: nn.Module, loss: Any, X: Tensor, y: Tensor, clients: Sequence[Tensor], **kw: Any
    ) -> ModelProblem:
        """Your own client and server modules (``server(client(x))`` is the model)."""
        return cls(client, server, loss, X, y, clients, **kw)

    # -- the oracle --------------------------------------------------------------------------------------------

    def init(self) -> dict[str, Params]:
        """Copies of the modules' current parameters: ``client``, ``server`` and, with a head, ``aux``."""
        out = {
            "client": {k: v.detach().clone() for k, v in self.client.named_parameters()},
            "server": {k: v.detach().clone() for k, v in self.server.named_parameters()},
        }
        if self.aux is not None:
            out["aux"] = {k: v.detach().clone() for k, v in self.aux.named_parameters()}
        return out

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        """The client module run with the parameters ``pc`` (``torch.func.functional_call``) on ``x``."""
        return functional_call(self.client, dict(pc), (x,))

    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """The per-sample loss of the server module run with ``ps`` on ``h`` (non-batch dims averaged,
        :func:`per_sample`)."""
        return self.lossf(functional_call(self.server, dict(ps), (h,)), y)

    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """The per-sample loss of the auxiliary head run with ``pa`` on ``h``; a ``ParameterError`` without a head."""
        if self.aux is None:
            raise ParameterError("aux", "this problem has no auxiliary head (build it with aux=True)")
        return self.lossf(functional_call(self.aux, dict(pa), (h,)), y)

    def client_sizes(self) -> tuple[int, ...]:
        """The number of training samples each client holds."""
        return tuple(int(idx.numel()) for idx in self.indices)

    def chosen(self, m: int, size: int, gen: torch.Generator) -> Tensor:
        """The indices of client ``m``'s mini-batch of ``size`` (all its samples when it holds fewer), on the CPU."""
        idx = self.indices[m]
        return idx[torch.randperm(idx.numel(), generator=gen)[:size]] if size < idx.numel() else idx

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        """Client ``m``'s mini-batch (:meth:`chosen`) on the problem's device, every weight 1."""
        idx = self.chosen(m, size, gen).to(self.data_device)
        x = self.X[idx].to(self.device)
        return Batch(x, self.y[idx].to(self.device), torch.ones(idx.numel(), dtype=self.dtype, device=self.device))

    def sample_many(self, clients: Sequence[int], gens: Sequence[Sequence[torch.Generator]], size: int) -> Batch:
        """:meth:`sample` for every (client, generator), gathered in one call: the indices are drawn on the CPU
        as :meth:`sample` draws them, padded (weight 0, inputs and targets 0, as :meth:`Batch.stack` pads), and
        the samples gathered at once on the data's device."""
        picks = [[self.chosen(m, size, g) for g in row] for m, row in zip(clients, gens, strict=True)]
        n = max(int(i.numel()) for row in picks for i in row)
        index = torch.zeros(len(picks), len(picks[0]), n, dtype=torch.long)
        real = torch.zeros(len(picks), len(picks[0]), n, dtype=torch.bool)
        for a, row in enumerate(picks):
            for b, i in enumerate(row):
                index[a, b, : i.numel()] = i
                real[a, b, : i.numel()] = True
        index, real = index.to(self.data_device), real.to(self.data_device)
        x, y = self.X[index], self.y[index]
        if not bool(real.all()):
            x = torch.where(real.reshape(*real.shape, *([1] * (x.ndim - 3))), x, torch.zeros((), dtype=x.dtype,
                            device=x.device))  # fmt: skip
            y = torch.where(real.reshape(*real.shape, *([1] * (y.ndim - 3))), y, torch.zeros((), dtype=y.dtype,
                            device=y.device))  # fmt: skip
        return Batch(x.to(self.device), y.to(self.device), real.to(self.device, self.dtype))

    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        """One pass over the training set (or the fixed ``eval_samples`` subsample): each client's mean loss and
        gradient, then their equal-weight average, in chunks of ``chunk`` samples."""
        pcs = {k: v.detach().requires_grad_(True) for k, v in pc.items()}
        pss = {k: v.detach().requires_grad_(True) for k, v in ps.items()}
        gc = tree.zeros_like(pcs)
        gs = tree.zeros_like(pss)
        total = torch.zeros((), dtype=torch.float64, device=self.device)
        for idx in self.eval_indices:
            n = idx.numel()
            for s in range(0, n, self.chunk):
                sl = idx[s : s + self.chunk].to(self.data_device)
                x, y = self.X[sl].to(self.device), self.y[sl].to(self.device)
                val = self.server_loss(pss, self.client_forward(pcs, x), y).sum() / (n * self.M)
                grads = torch.autograd.grad(val, [*pcs.values(), *pss.values()])
                for k, g in zip(pcs, grads[: len(pcs)], strict=True):
                    gc[k] += g
                for k, g in zip(pss, grads[len(pcs) :], strict=True):
                    gs[k] += g
                total += val.detach()
        return FullGradient(float(total), gc, gs)  # one device-to-host copy, not one per chunk

    @torch.no_grad()
    def evaluate(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> dict[str, float]:
        """``test_acc``, the top-1 accuracy on the held-out set; none without one or for float (regression) targets."""
        if self.X_test is None or self.y_test is None or self.y_test.is_floating_point():
            return {}
        correct = torch.zeros((), dtype=torch.long, device=self.device)
        n = int(self.X_test.shape[0])
        for s in range(0, n, self.chunk):
            x = self.X_test[s : s + self.chunk].to(self.device, self.dtype)
            out = functional_call(self.server, dict(ps), (self.client_forward(pc, x),))
            correct += (out.argmax(1) == self.y_test[s : s + self.chunk].to(self.device)).sum()
        return {"test_acc": int(correct) / n}  # one device-to-host copy, not one per chunk

    @property
    def activation(self) -> int:
        """Values per sample of the client module's output (probed once at construction)."""
        return math.prod(self._activation_shape)

    @property
    def client_fraction(self) -> float:
        """The client's share of the FLOPs as ``sfltheory cuts`` counts them (:meth:`at_cut`), given, or else of the
        parameters, :math:`d_c/(d_c+d_s)`."""
        return float(self._fraction)

    def constants(
        self,
        *,
        at: Point | None = None,
        needed: Iterable[str] | None = None,
        batch: int = 1,
        lam: float | None = None,
        seed: int = 0,
    ) -> Constants:
        """The constants ``needed`` (see :func:`measurement_plan`), measured by :func:`verify.constants.measure` at
        the point ``at`` (default: :meth:`init`) on this problem's model, data and clients, in its dtype and on its
        device. ``lam``: the zeroth-order radius (for ``zo_mse``); ``seed``: the measurement's probes.

        kappa = tr(H)/||H|| is 0/0 where a part's Hessian block vanishes (every ReLU of the client dead): the
        assumption tr(H) <= kappa ||H|| then holds for any kappa, so such a point sets no kappa -- the record is
        measured without it and ``meta["unmeasured"]["kappa"]`` says why."""

        groups, kw = measurement_plan(needed, self.M, lam=lam, batch=batch)
        x = self.init() if at is None else at
        params = {**{f"client.{k}": v for k, v in x["client"].items()},
                  **{f"server.{k}": v for k, v in x["server"].items()}}  # fmt: skip
        model = whole_model(self)

        def go(what: list[str]) -> Constants:
            return measure(model, self.lossf, (self.X, self.y), SPLIT, what, clients=self.indices, params=params,
                           device=self.device, dtype=self.dtype, seed=seed, **kw)  # fmt: skip

        try:
            return go(groups)
        except SflTheoryError as e:
            if "kappa" not in groups:
                raise
            c = go([g for g in groups if g != "kappa"])
            c.meta["unmeasured"] = {"kappa": str(e)}
            return c

    def describe(self) -> dict[str, Any]:
        """The problem's name, sizes, per-client sample counts, where the recorded gradient is taken, test set size,
        dtype and the cut (``meta``)."""
        return {
            "kind": "model",
            "name": self.name,
            "M": self.M,
            "d_c": self.d_c,
            "d_s": self.d_s,
            "activation": self.activation,
            "client_fraction": self.client_fraction,
            "client_sizes": [int(i.numel()) for i in self.indices],
            "gradient_on": "all training samples"
            if self.eval_samples is None
            else f"a fixed subsample of at most {self.eval_samples} per client",
            "test_samples": None if self.X_test is None else int(self.X_test.shape[0]),
            "dtype": str(self.dtype).replace("torch.", ""),
            **self.meta,
        }


def _subsample(indices: Sequence[Tensor], most: int | None) -> list[Tensor]:
    """Each client's indices, or a fixed seeded subsample of at most ``most`` of them (sorted)."""
    gen = torch.Generator().manual_seed(0)
    return [
        idx if most is None or idx.numel() <= most
        else idx[torch.randperm(idx.numel(), generator=gen)[:most]].sort().values
        for idx in indices
    ]  # fmt: skip


def _is_chain(model: nn.Module, client: nn.Module, server: nn.Module, X: Tensor) -> bool:
    """Whether ``server(client(x))`` is ``model(x)`` on two samples (in eval mode, the model's mode restored)."""
    was = model.training
    model.eval()
    with torch.no_grad():
        probe = X[:2].to(next(model.parameters()).device, next(model.parameters()).dtype)
        try:
            same = torch.allclose(server(client(probe)), model(probe), rtol=1e-4, atol=1e-5)
        except RuntimeError:
            same = False
    model.train(was)
    return same


def whole_model(problem: ModelProblem) -> nn.Module:
    """The client and server modules as one ``nn.Sequential`` (parameters ``client.*`` and ``server.*``), which
    :func:`verify.constants.measure` takes with the split :data:`SPLIT`."""
    return nn.Sequential(OrderedDict(client=problem.client, server=problem.server))


def measurement_plan(
    needed: Iterable[str] | None, M: int, *, lam: float | None, batch: int
) -> tuple[list[str], dict[str, Any]]:
    """The groups of :func:`verify.constants.measure` that give the keys ``needed`` (None: its default groups),
    and the options they require: F and ||grad f||^2 always, no heterogeneity with one client, ``lam`` for the
    zeroth-order error, ``batch`` where a mini-batch variance is needed."""

    if needed is None:
        found, batched = set(DEFAULT_WHAT), True
    else:
        keys = list(needed)
        found = {g for k in keys if (g := group_of_key(k)) is not None}
        batched = any(var.BATCH in var.split(k)[1] for k in keys)
    groups = sorted(found | {"F", "gradnorm2_f"})
    kw: dict[str, Any] = {}
    if "eps2" in groups and M < 2:
        groups.remove("eps2")  # one client: no heterogeneity (a result's eps2 is then given or 0)
    if "zo" in groups:
        if lam is None:
            raise ParameterError("lam", "the zeroth-order estimator's error (zo_mse) is needed: give its radius lam")
        kw["lam"] = float(lam)
    if batched:
        kw["batch"] = batch
    return groups, kw
