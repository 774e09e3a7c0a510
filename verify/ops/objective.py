"""The objective f(x) = (1/n) sum_i l(model(x; X_i), y_i) as a function of the parameters, in chunks.

Scaling convention (as BackPACK documents its own): the objective is the **mean** of per-sample losses. The
loss you pass must return one value per sample -- a ``torch.nn`` loss is used with ``reduction="none"`` -- so
``grad`` is the gradient of the mean, ``hvp`` the Hessian of the mean times a vector, and a per-sample
gradient is the gradient of one sample's loss (not of the mean over a batch, which would be 1/n of it).

The model is evaluated in **eval mode**: batch norm uses its running statistics and dropout is off. In train
mode a batch-norm output depends on the other samples of the batch, so a per-sample gradient (and with it
sigma^2 and G^2) is not defined; eval mode measures the function the trained model computes. The model's
parameters, buffers and training flag are left as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import cast

import torch
from torch import Tensor, nn
from torch.func import functional_call, grad

from sfltheory.errors import ParameterError
from verify.split import Split

Params = dict[str, Tensor]
LossFn = Callable[[Tensor, Tensor], Tensor]


def per_sample_loss(loss: nn.Module | LossFn) -> LossFn:
    """A loss returning one value per sample: a ``torch.nn`` loss is copied with ``reduction="none"``."""
    if isinstance(loss, nn.Module) and hasattr(loss, "reduction"):
        import copy

        copied = copy.copy(loss)
        copied.reduction = "none"  # type: ignore[assignment]
        return cast(LossFn, copied)
    return cast(LossFn, loss)


def pick_device(device: str | torch.device | None) -> torch.device:
    """``None``/``"auto"``: CUDA when present, else the CPU."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class Objective:
    """Mean loss of ``model`` on ``(X, y)`` as a function of the trainable parameters, split into parts.

    ``chunk`` bounds how many samples go through the model at once (memory); results do not depend on it.
    Data stay where they are and are moved to ``device`` a chunk at a time.
    """

    def __init__(
        self,
        model: nn.Module,
        loss: nn.Module | LossFn,
        X: Tensor,
        y: Tensor,
        split: Split | None = None,
        *,
        chunk: int = 256,
        device: str | torch.device | None = "auto",
        dtype: torch.dtype | None = None,
    ) -> None:
        if chunk < 1:
            raise ParameterError("chunk", f"must be a positive number of samples, got {chunk}")
        if X.shape[0] == 0:
            raise ParameterError("data", "holds no samples")
        if X.shape[0] != y.shape[0]:
            raise ParameterError("data", f"inputs and targets differ in length ({X.shape[0]} vs {y.shape[0]})")
        self.model = model
        self.loss_fn = per_sample_loss(loss)
        self.X, self.y = X, y
        self.n = int(X.shape[0])
        self.chunk = chunk
        self.device = pick_device(device)
        self.split = split if split is not None else Split.whole(model)
        self.split.check(model)
        first = next(iter(model.parameters()), None)
        if first is None:
            raise ParameterError("model", "has no parameters")
        self.dtype = dtype or first.dtype
        self.names: tuple[str, ...] = tuple(n for part in self.split.parts.values() for n in part)
        named = dict(model.named_parameters())
        self.params0: Params = {n: named[n].detach().to(self.device, self.dtype).clone() for n in self.names}
        # Frozen parameters and buffers enter the functional call as constants.
        self.fixed: Params = {
            n: t.detach().to(self.device, self.dtype if t.is_floating_point() else t.dtype)
            for n, t in [*model.named_parameters(), *model.named_buffers()]
            if n not in self.params0
        }
        self.part_of = self.split.part_of()
        self._check_shapes()

    # ---- evaluation -------------------------------------------------------------------------------------------
    def _forward(self, params: Mapping[str, Tensor], X: Tensor) -> Tensor:
        was = self.model.training
        self.model.eval()
        try:
            return cast(Tensor, functional_call(self.model, {**self.fixed, **params}, (X,)))
        finally:
            self.model.train(was)

    def losses(self, params: Mapping[str, Tensor], X: Tensor, y: Tensor) -> Tensor:
        """Per-sample losses of one chunk, shape ``(len(X),)``."""
        return self.loss_fn(self._forward(params, X), y)

    def loss_sum(self, params: Mapping[str, Tensor], X: Tensor, y: Tensor) -> Tensor:
        return self.losses(params, X, y).sum()

    def _check_shapes(self) -> None:
        X, y = self.X[:2].to(self.device, self._xdtype), self.y[:2].to(self.device)
        try:
            out = self.losses(self.params0, X, y)
        except RuntimeError as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ParameterError(
                "data", f"the model cannot take inputs of shape {tuple(self.X.shape[1:])}: {msg}"
            ) from None
        if out.shape != (X.shape[0],):
            raise ParameterError(
                "loss", f"must return one value per sample (reduction='none'), got shape {tuple(out.shape)}"
            )

    @property
    def _xdtype(self) -> torch.dtype:
        return self.dtype if self.X.is_floating_point() else self.X.dtype

    def chunks(self, idx: Tensor | None = None, size: int | None = None) -> Iterator[tuple[Tensor, Tensor]]:
        """The data (or the samples ``idx``) in chunks, on the device."""
        size = size or self.chunk
        n = self.n if idx is None else int(idx.numel())
        for s in range(0, n, size):
            if idx is None:
                Xb, yb = self.X[s : s + size], self.y[s : s + size]
            else:
                j = idx[s : s + size]
                Xb, yb = self.X[j], self.y[j]
            yield Xb.to(self.device, self._xdtype), yb.to(self.device)

    def count(self, idx: Tensor | None) -> int:
        return self.n if idx is None else int(idx.numel())

    def value(self, params: Mapping[str, Tensor] | None = None, idx: Tensor | None = None) -> float:
        """f(x): the mean loss over the data (or over ``idx``)."""
        p = self.params0 if params is None else params
        with torch.no_grad():
            total = sum(float(self.loss_sum(p, X, y)) for X, y in self.chunks(idx))
        return total / self.count(idx)

    def grad(self, params: Mapping[str, Tensor] | None = None, idx: Tensor | None = None) -> Params:
        """The gradient of the mean loss, by parameter name."""
        p = dict(self.params0 if params is None else params)
        g = grad(self.loss_sum)
        out = {k: torch.zeros_like(v) for k, v in p.items()}
        for X, y in self.chunks(idx):
            for k, v in g(p, X, y).items():
                out[k] += v
        m = self.count(idx)
        return {k: v / m for k, v in out.items()}

    def hvp(
        self, v: Mapping[str, Tensor], params: Mapping[str, Tensor] | None = None, idx: Tensor | None = None
    ) -> Params:
        """H v, H the Hessian of the mean loss (double backward, one chunk at a time). ``v`` may hold only some
        parameters (then the rest of the direction is zero and H v is returned for all of them)."""
        # Reverse-over-reverse: on the CPU, torch.func's forward-over-reverse (jvp of grad) measured 30x slower
        # per product on small models (forward-mode decompositions), so plain autograd it is.
        p = self.params0 if params is None else params
        names = list(p)
        out = {k: torch.zeros_like(t) for k, t in p.items()}
        for X, y in self.chunks(idx):
            q = {k: t.detach().requires_grad_(True) for k, t in p.items()}
            with torch.enable_grad():
                gs = torch.autograd.grad(self.loss_sum(q, X, y), [q[k] for k in names], create_graph=True)
                keep = [(k, gk) for k, gk in zip(names, gs, strict=True) if k in v and gk.requires_grad]
                if not keep:
                    continue
                hv = torch.autograd.grad(
                    [gk for _, gk in keep], [q[k] for k in names], [v[k] for k, _ in keep], allow_unused=True
                )
            for k, t in zip(names, hv, strict=True):
                if t is not None:
                    out[k] += t
        m = self.count(idx)
        return {k: t / m for k, t in out.items()}

    # ---- flat views of one part ---------------------------------------------------------------------------------
    def part_names(self, part: str | None = None) -> tuple[str, ...]:
        """Parameter names of a part (``None``: every trainable parameter)."""
        if part is None or (part == "all" and "all" not in self.split.parts):
            return self.names
        try:
            return tuple(self.split.parts[part])
        except KeyError:
            raise ParameterError("part", f"must be one of {', '.join(self.split.names)} or all, got '{part}'") from None

    def size(self, part: str | None = None) -> int:
        return sum(self.params0[n].numel() for n in self.part_names(part))

    def flat(self, tensors: Mapping[str, Tensor], part: str | None = None) -> Tensor:
        return torch.cat([tensors[n].reshape(-1) for n in self.part_names(part)])

    def unflat(self, vec: Tensor, part: str | None = None) -> Params:
        out: Params = {}
        s = 0
        for n in self.part_names(part):
            t = self.params0[n]
            out[n] = vec[s : s + t.numel()].view_as(t)
            s += t.numel()
        return out
