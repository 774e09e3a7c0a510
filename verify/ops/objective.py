r"""The objective f(x) = sum_i w_i l(model(x; X_i), y_i) as a function of the parameters, in chunks.

Scaling convention (as BackPACK documents its own): the objective is a **mean** of per-sample losses. The
loss you pass must return one value per sample -- a ``torch.nn`` loss is used with ``reduction="none"``; a loss
that returns more than one value per sample (``nn.MSELoss`` on outputs and targets of shape ``(n, 1)``, a
per-token cross-entropy of shape ``(n, T)``) is reduced over its non-batch dimensions by the **mean**, so the
objective equals what the loss's ``reduction="mean"`` gives (except for losses whose ``mean`` divides by a sum
of class weights or skips ``ignore_index`` targets: ours divides by the number of values). ``grad`` is the
gradient of the objective (its Hessian times a vector is :mod:`verify.ops.hvp`'s), and a per-sample gradient is
the gradient of one sample's loss (not of the mean over a batch, which would be 1/n of it).

Weights: by default w_i = 1/n, the mean over all samples. With ``clients`` (index tensors D_1..D_M) the
objective is the theorems' f = (1/M) sum_m f_m, f_m the mean loss on D_m, i.e.
:math:`w_i = \sum_{m: i \in D_m} 1/(M |D_m|)`: clients weigh equally whatever their sizes, which differs from
the pooled mean when they are unequal. Methods given ``idx`` compute the plain mean over those samples (one
client's f_m), whatever the weights.

Outputs: for a model that returns a tuple, list or dict, ``output`` (an index, a key, or a callable from the
model's output to the tensor the loss takes) picks what the loss gets; without it the loss gets the output as it
is, and a loss that cannot take it (a ``torch.nn`` loss given a tuple) is a ``ParameterError`` naming ``output``.
Floating targets are cast to the objective's dtype, so that a float64 objective is float64 throughout (a float32
target would make e.g. ``BCEWithLogitsLoss`` compute in float32).

The model is evaluated in **eval mode**: batch norm uses its running statistics and dropout is off. In train
mode a batch-norm output depends on the other samples of the batch, so a per-sample gradient (and with it
sigma^2 and G^2) is not defined; eval mode measures the function the trained model computes. The model's
parameters, buffers and training flag are left as they were. Second derivatives (:mod:`verify.ops.hvp`,
:meth:`Objective.second_order`) run attention under PyTorch's math kernel: the fused CPU/CUDA kernels have no
double backward.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import torch
from torch import Tensor, nn
from torch.func import functional_call, grad

from sfltheory.errors import ParameterError
from verify.split import Split

Params = dict[str, Tensor]
LossFn = Callable[[Tensor, Tensor], Tensor]
# which tensor of a model's output the loss takes: a tuple/list index, a dict key, or a function of the output
OutputSelector = int | str | Callable[[Any], Tensor]


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


def math_attention() -> contextlib.AbstractContextManager[Any]:
    """A context in which ``scaled_dot_product_attention`` uses the math kernel (which has a double backward);
    a no-op where this PyTorch has no ``torch.nn.attention``."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # pragma: no cover - older PyTorch
        return contextlib.nullcontext()
    return sdpa_kernel(SDPBackend.MATH)


def _unselected(out: Any, why: str = "") -> ParameterError:
    kind = type(out).__name__
    return ParameterError(
        "output",
        f"the model returns a {kind}, not a tensor{why}: say which part the loss takes, e.g. output=0 (an index), "
        "output='logits' (a key) or a function of the model's output",
    )


def _select(out: Any, output: OutputSelector | None) -> Any:
    """What the loss takes from the model's output ``out``: the selected tensor, or ``out`` itself when nothing is
    selected (a loss written for the model's tuple or dict takes it as it is)."""
    if output is None:
        return out
    try:
        if callable(output):
            picked = output(out)
        elif isinstance(output, int) and isinstance(out, (tuple, list)):
            picked = out[output]
        elif isinstance(output, str) and isinstance(out, Mapping):
            picked = out[output]
        elif isinstance(output, str) and hasattr(out, output):
            picked = getattr(out, output)
        else:
            raise TypeError(f"cannot pick {output!r} from a {type(out).__name__}")
    except (IndexError, KeyError, TypeError) as e:
        raise ParameterError("output", f"{output!r} does not select a tensor from the model's output: {e}") from None
    if not isinstance(picked, Tensor):
        raise ParameterError("output", f"{output!r} selects a {type(picked).__name__}, not a tensor")
    return picked


class Objective:
    """The objective of ``model`` on ``(X, y)`` as a function of the trainable parameters, split into parts.

    By default the mean loss over the samples; with ``clients`` the equal-weight mean of the clients' mean
    losses, f = (1/M) sum_m f_m (see the module docstring). ``output`` picks the loss's input from a model that
    returns a tuple or dict. ``chunk`` bounds how many samples go through the model at once (memory); results do
    not depend on it. Data stay where they are and are moved to ``device`` a chunk at a time.
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
        clients: Sequence[Tensor] | None = None,
        output: OutputSelector | None = None,
    ) -> None:
        if chunk < 1:
            raise ParameterError("chunk", f"must be a positive number of samples, got {chunk}")
        if X.shape[0] == 0:
            raise ParameterError("data", "holds no samples")
        if X.shape[0] != y.shape[0]:
            raise ParameterError("data", f"inputs and targets differ in length ({X.shape[0]} vs {y.shape[0]})")
        if isinstance(output, bool) or not (output is None or callable(output) or isinstance(output, (int, str))):
            raise ParameterError("output", f"must be an index, a key or a callable, got {output!r}")
        self.model = model
        self.loss_fn = per_sample_loss(loss)
        self.output = output
        self.n = int(X.shape[0])
        self.chunk = chunk
        self.device = pick_device(device)
        self.split = split if split is not None else Split.whole(model)
        self.split.check(model)
        first = next(iter(model.parameters()), None)
        if first is None:
            raise ParameterError("model", "has no parameters")
        self.dtype = dtype or first.dtype
        # floating targets in the objective's dtype (a float32 target keeps BCE in float32 otherwise)
        self.X, self.y = X, (y.to(self.dtype) if y.is_floating_point() and y.dtype != self.dtype else y)
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
        self.clients: tuple[Tensor, ...] | None = None
        self.weights: Tensor | None = None  # w_i (float64, CPU, summing to 1) when clients are given
        self._support: Tensor | None = None  # the samples with w_i > 0, when some have none
        if clients is not None:
            self._set_clients(clients)
        self._check_shapes()

    def with_clients(self, clients: Sequence[Tensor] | None) -> Objective:
        """This objective with f = (1/M) sum_m f_m over ``clients`` (``None``: the mean over all samples); the
        copy shares the model, the data and the parameters."""
        import copy

        other = copy.copy(self)
        other.clients, other.weights, other._support = None, None, None
        if clients is not None:
            other._set_clients(clients)
        return other

    def _set_clients(self, clients: Sequence[Tensor]) -> None:
        cl = tuple(torch.as_tensor(c, dtype=torch.long).reshape(-1).cpu() for c in clients)
        if not cl:
            raise ParameterError("clients", "needs at least one client")
        w = torch.zeros(self.n, dtype=torch.float64)
        for m, c in enumerate(cl):
            if c.numel() == 0:
                raise ParameterError("clients", f"client {m} holds no samples: every client needs data")
            if int(c.min()) < 0 or int(c.max()) >= self.n:
                raise ParameterError("clients", f"client {m} has an index outside 0..{self.n - 1}")
            w.index_add_(0, c, torch.full((c.numel(),), 1.0 / (len(cl) * c.numel()), dtype=torch.float64))
        self.clients, self.weights = cl, w
        support = torch.nonzero(w > 0).reshape(-1)
        self._support = None if support.numel() == self.n else support

    @property
    def description(self) -> str:
        """The objective in words, for an estimate's ``method``."""
        if self.clients is None:
            return f"f = mean loss over the {self.n} samples"
        sizes = [int(c.numel()) for c in self.clients]
        if len(sizes) == 1 and self._support is None and sizes[0] == self.n:
            return f"f = mean loss over the {self.n} samples"
        if len(set(sizes)) == 1 and sum(sizes) == self.n and self._support is None:
            return f"f = (1/M) sum_m f_m over M = {len(sizes)} equal clients (= the mean over the {self.n} samples)"
        shown = ", ".join(map(str, sizes[:8])) + (", ..." if len(sizes) > 8 else "")
        return f"f = (1/M) sum_m f_m over M = {len(sizes)} clients of sizes {shown} (clients weigh equally)"

    # ---- evaluation -------------------------------------------------------------------------------------------
    def _forward(self, params: Mapping[str, Tensor], X: Tensor) -> Any:
        was = self.model.training
        self.model.eval()
        try:
            out = functional_call(self.model, {**self.fixed, **params}, (X,))
        finally:
            self.model.train(was)
        return _select(out, self.output)

    def losses(self, params: Mapping[str, Tensor], X: Tensor, y: Tensor) -> Tensor:
        """Per-sample losses of one chunk, shape ``(len(X),)``: a loss with more values per sample is averaged
        over its non-batch dimensions (as the loss's ``reduction="mean"`` averages over every value)."""
        pred = self._forward(params, X)
        if isinstance(pred, Tensor):
            out = self.loss_fn(pred, y)
        else:
            try:
                out = self.loss_fn(pred, y)
            except (TypeError, AttributeError, IndexError, KeyError, ValueError, RuntimeError) as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                raise _unselected(pred, f" and the loss cannot take it ({type(e).__name__}: {first})") from None
            if not isinstance(out, Tensor):
                raise _unselected(pred)
        if out.dim() > 1 and out.shape[0] == X.shape[0]:
            out = out.reshape(X.shape[0], -1).mean(1)
        return out

    def loss_sum(self, params: Mapping[str, Tensor], X: Tensor, y: Tensor) -> Tensor:
        """The plain sum of one chunk's per-sample losses (unweighted)."""
        return self.losses(params, X, y).sum()

    def weighted_sum(self, params: Mapping[str, Tensor], X: Tensor, y: Tensor, w: Tensor | None) -> Tensor:
        """sum_i w_i l_i over one chunk (``w=None``: the plain sum), as :meth:`terms` yields the chunks."""
        losses = self.losses(params, X, y)
        return losses.sum() if w is None else (losses * w).sum()

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

    def terms(self, idx: Tensor | None = None) -> tuple[Iterator[tuple[Tensor, Tensor, Tensor | None]], float]:
        """The chunks of the objective with their weights, and a scale: the objective (``idx=None``) or the mean
        over ``idx`` is ``scale * sum over chunks of weighted_sum(params, X, y, w)``."""
        if idx is not None or self.weights is None:
            return ((X, y, None) for X, y in self.chunks(idx)), 1.0 / self.count(idx)
        weights = self.weights
        support = self._support

        def gen() -> Iterator[tuple[Tensor, Tensor, Tensor | None]]:
            n = self.n if support is None else int(support.numel())
            for s in range(0, n, self.chunk):
                j = slice(s, s + self.chunk) if support is None else support[s : s + self.chunk]
                yield (
                    self.X[j].to(self.device, self._xdtype),
                    self.y[j].to(self.device),
                    weights[j].to(self.device, self.dtype),
                )

        return gen(), 1.0

    def count(self, idx: Tensor | None) -> int:
        """The number of samples ``idx`` names (all n for None)."""
        return self.n if idx is None else int(idx.numel())

    def support_size(self, idx: Tensor | None = None) -> int:
        """How many samples :meth:`terms` goes through: ``idx``'s, or those of positive weight."""
        if idx is not None or self._support is None:
            return self.count(idx)
        return int(self._support.numel())

    @staticmethod
    def second_order() -> contextlib.AbstractContextManager[Any]:
        """The context for building graphs that will be differentiated twice (math attention kernel)."""
        return math_attention()

    def placed(self, tensors: Mapping[str, Tensor]) -> Params:
        """``tensors`` detached, on the objective's device, floating ones in its dtype (integer ones keep theirs):
        the one place a point or direction given elsewhere (a run's parameters on the CPU) moves to the objective."""
        return {
            k: t.detach().to(self.device, self.dtype if t.is_floating_point() else t.dtype) for k, t in tensors.items()
        }

    def value(self, params: Mapping[str, Tensor] | None = None, idx: Tensor | None = None) -> float:
        """f(x): the objective (or the mean loss over ``idx``)."""
        p = self.params0 if params is None else self.placed(params)
        it, scale = self.terms(idx)
        with torch.no_grad():
            total = sum(float(self.weighted_sum(p, X, y, w)) for X, y, w in it)
        return total * scale

    def grad(self, params: Mapping[str, Tensor] | None = None, idx: Tensor | None = None) -> Params:
        """The gradient of the objective (or of the mean loss over ``idx``), by parameter name."""
        p = dict(self.params0) if params is None else self.placed(params)
        g = grad(self.weighted_sum)
        out = {k: torch.zeros_like(v) for k, v in p.items()}
        it, scale = self.terms(idx)
        for X, y, w in it:
            for k, v in g(p, X, y, w).items():
                out[k] += v
        return {k: v * scale for k, v in out.items()}

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
        """The number of parameters of a part (``None``: every trainable one), its d."""
        return sum(self.params0[n].numel() for n in self.part_names(part))

    def flat(self, tensors: Mapping[str, Tensor], part: str | None = None) -> Tensor:
        """A part's tensors of ``tensors`` concatenated into one vector, in :meth:`part_names` order."""
        return torch.cat([tensors[n].reshape(-1) for n in self.part_names(part)])

    def unflat(self, vec: Tensor, part: str | None = None) -> Params:
        """A part's vector (as :meth:`flat` makes) split back into its tensors, by name (views of ``vec``)."""
        out: Params = {}
        s = 0
        for n in self.part_names(part):
            t = self.params0[n]
            out[n] = vec[s : s + t.numel()].view_as(t)
            s += t.numel()
        return out
