"""A shared list of model/loss cases for the constant estimators, written as a new user would write them.

Nothing here comes from :mod:`verify.models`: each model is a plain ``torch.nn`` module (logistic and softmax
regression, a tanh MLP, a GroupNorm CNN, LSTM/GRU/RNN sequence classifiers, a Transformer encoder, batch norm
in eval mode, tied weights, tuple and dict outputs, frozen parameters, MSE regression with targets of shape
(n, 1)), each with a tiny seeded data set (60 samples, a few features, so that the Hessian is at most a few
hundred parameters square) and three clients, equal (20/20/20) or unequal (10/20/30) in size, in float32 or
float64 (and float16 for logistic regression and the MLP). Every architecture has an equal-client float32 and
an unequal-client float64 case; the cheap ones have all four combinations.

A :class:`Case` holds what a user passes to :func:`verify.constants.measure` (``build()``, ``loss``, ``X``,
``y``, ``split``, ``clients``, ``dtype``) and, for the independent reference, the per-sample loss written out
by hand (``per_sample``: ``(output, target) -> (n,)``, the convention the package documents: one value per
sample, the mean over non-batch dimensions) and the split as parameter-name prefixes (``parts``), so that a
reference never goes through the package's own loss wrapping or cut resolution.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

N = 60  # samples per data set
SIZES = {"equal": (20, 20, 20), "unequal": (10, 20, 30)}
DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16}

PerSample = Callable[[Any, Tensor], Tensor]


@dataclass(frozen=True)
class Case:
    """One model/loss/data/partition/precision combination.

    ``build()`` returns a fresh float32 model with seeded weights (the same every call); ``loss`` is what the
    user passes to ``measure``; ``per_sample`` the reference per-sample loss; ``split`` what ``measure`` gets
    (``None``, a cut by block name, or ``{part: prefixes}``) and ``parts`` the same partition as prefixes for
    the reference (``None``: the whole model); ``clients`` the index tensors; ``dtype`` passed to ``measure``
    (the model stays float32, as a user's would). ``rtol`` overrides the test's relative tolerance by family
    (``grad``, ``F``, ``eig``, ``kappa``); ``batch`` the mini-batch for ``sigma2[batch]``.
    """

    name: str
    model: str  # the model, data and loss (cases that differ only in split share it, and the reference)
    build: Callable[[], nn.Module]
    loss: nn.Module | Callable[[Any, Tensor], Tensor]
    per_sample: PerSample
    X: Tensor
    y: Tensor
    clients: tuple[Tensor, ...]
    split: str | Mapping[str, list[str]] | None
    parts: Mapping[str, tuple[str, ...]] | None
    dtype: torch.dtype
    partition: str
    rtol: Mapping[str, float] = field(default_factory=dict)
    batch: int | None = 4

    @property
    def id(self) -> str:
        dt = {v: k for k, v in DTYPES.items()}[self.dtype]
        return f"{self.name}-{self.partition}-{dt}"


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def seeded(seed: int, make: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    """``make`` under a fixed seed, leaving the global generator as it was."""

    def build() -> nn.Module:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            return make()

    return build


def partition(kind: str, n: int = N, seed: int = 7) -> tuple[Tensor, ...]:
    """Three clients of the given sizes over a seeded permutation of the samples."""
    perm = torch.randperm(n, generator=_gen(seed))
    return tuple(perm.split(list(SIZES[kind])))


# ---- per-sample losses, written out ------------------------------------------------------------------------


def ce(out: Tensor, y: Tensor) -> Tensor:
    """Cross-entropy of logits (n, C) against class indices (n,): -log softmax(out)_y."""
    return -torch.log_softmax(out, dim=-1).gather(1, y.view(-1, 1)).squeeze(1)


def bce_logits(out: Tensor, y: Tensor) -> Tensor:
    """Binary cross-entropy of logits (n,) against targets in [0, 1]: softplus(z) - y z."""
    return F.softplus(out) - y * out


def sq_mean(out: Tensor, y: Tensor) -> Tensor:
    """Squared error averaged over the non-batch dimensions (torch's ``mean`` reduction, per sample)."""
    return (out - y).pow(2).reshape(out.shape[0], -1).mean(1)


def _first(out: Any, y: Tensor) -> Tensor:
    """Reference: cross-entropy of the first output."""
    return ce(out[0], y)


def _logits(out: Any, y: Tensor) -> Tensor:
    """Reference: cross-entropy of the ``"logits"`` output."""
    return ce(out["logits"], y)


def first_ce(out: Any, y: Tensor) -> Tensor:
    """The user's own loss for a model returning ``(logits, features)``."""
    return F.cross_entropy(out[0], y, reduction="none")


def logits_ce(out: Any, y: Tensor) -> Tensor:
    """The user's own loss for a model returning ``{"logits": ..., "features": ...}``."""
    return F.cross_entropy(out["logits"], y, reduction="none")


def flat_sq(out: Tensor, y: Tensor) -> Tensor:
    """The user's own per-sample squared error for outputs (n, 1) and targets (n,)."""
    return (out[:, 0] - y) ** 2


# ---- models ------------------------------------------------------------------------------------------------


class LogReg(nn.Module):
    def __init__(self, k: int) -> None:
        super().__init__()
        self.linear = nn.Linear(k, 1)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear(x).squeeze(-1)


class MLP(nn.Module):
    """Named blocks (``hidden``, ``act``, ``out``) so that a cut has a name that is no index."""

    def __init__(self, k: int, h: int, c: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(k, h)
        self.act = nn.Tanh()
        self.out = nn.Linear(h, c)

    def forward(self, x: Tensor) -> Tensor:
        return self.out(self.act(self.hidden(x)))


class GNCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.pool = nn.AvgPool2d(2)
        self.fc1 = nn.Linear(36, 4)
        self.fc2 = nn.Linear(4, 3)

    def forward(self, x: Tensor) -> Tensor:
        h = self.pool(torch.relu(self.norm(self.conv(x))))
        return self.fc2(torch.tanh(self.fc1(h.flatten(1))))


class SeqClassifier(nn.Module):
    """A recurrent layer over (n, T, features), its last hidden state through a small head."""

    def __init__(self, cell: type[nn.Module], k: int = 3, h: int = 4, c: int = 2) -> None:
        super().__init__()
        self.rnn = cell(k, h, batch_first=True)
        self.head = nn.Sequential(nn.Linear(h, 3), nn.Tanh(), nn.Linear(3, c))

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


class TinyTransformer(nn.Module):
    """Token ids (n, T) -> embedding -> one encoder layer (d_model 8) -> mean over positions -> logits."""

    def __init__(self, vocab: int = 6, d: int = 8, c: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.encoder = nn.TransformerEncoderLayer(d, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, c)

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.encoder(self.embed(x)).mean(1))


class BNNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin1 = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.lin2 = nn.Linear(6, 4)
        self.lin3 = nn.Linear(4, 3)

    def forward(self, x: Tensor) -> Tensor:
        return self.lin3(torch.tanh(self.lin2(torch.relu(self.bn(self.lin1(x))))))


def bn_net() -> nn.Module:
    """Running statistics and affine parameters set away from their defaults, so that eval mode differs from
    batch statistics and the batch-norm parameters matter in the Hessian. (Set directly: statistics from
    training-mode passes would depend, in float32, on the number of threads that summed them.)"""
    m = BNNet()
    assert m.bn.running_mean is not None and m.bn.running_var is not None
    with torch.no_grad():
        m.bn.running_mean.copy_(torch.randn(6) * 0.5)
        m.bn.running_var.copy_(torch.rand(6) + 0.5)
        m.bn.weight.add_(torch.rand(6))
        m.bn.bias.add_(torch.randn(6) * 0.3)
    return m


class Tied(nn.Module):
    """The encoder's weight used again, transposed, outside its module: F.linear(h, enc.weight.t())."""

    def __init__(self, k: int = 6, h: int = 4, c: int = 3) -> None:
        super().__init__()
        self.enc = nn.Linear(k, h)
        self.head = nn.Linear(k, c)

    def forward(self, x: Tensor) -> Tensor:
        h = torch.tanh(self.enc(x))
        return self.head(torch.tanh(F.linear(h, self.enc.weight.t())))


class TupleOut(MLP):
    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:  # type: ignore[override]
        h = self.act(self.hidden(x))
        return self.out(h), h


class DictOut(MLP):
    def forward(self, x: Tensor) -> dict[str, Tensor]:  # type: ignore[override]
        h = self.act(self.hidden(x))
        return {"logits": self.out(h), "features": h}


class Frozen(nn.Module):
    """A frozen input layer (a "backbone") under a trained two-layer head."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(4, 6)
        self.hidden = nn.Linear(6, 5)
        self.out = nn.Linear(5, 3)
        self.backbone.requires_grad_(False)

    def forward(self, x: Tensor) -> Tensor:
        return self.out(torch.tanh(self.hidden(torch.tanh(self.backbone(x)))))


class Regressor(nn.Module):
    def __init__(self, k: int = 4, h: int = 8) -> None:
        super().__init__()
        self.hidden = nn.Linear(k, h)
        self.act = nn.Tanh()
        self.out = nn.Linear(h, 1)

    def forward(self, x: Tensor) -> Tensor:
        return self.out(self.act(self.hidden(x)))  # (n, 1), as nn.Linear(h, 1) gives it


# ---- data --------------------------------------------------------------------------------------------------


def features(shape: tuple[int, ...], seed: int) -> Tensor:
    return torch.randn((N, *shape), generator=_gen(seed))


def labels(X: Tensor, classes: int, seed: int) -> Tensor:
    """Labels from a random linear teacher on the flattened inputs, with noise (so no class is empty)."""
    g = _gen(seed)
    Z = X.reshape(N, -1).float()
    W = torch.randn(Z.shape[1], classes, generator=g)
    y = (Z @ W + torch.randn(N, classes, generator=g)).argmax(1)
    return y


ALL4 = ("equal-f32", "equal-f64", "unequal-f32", "unequal-f64")
TWO = ("equal-f32", "unequal-f64")


def _cases() -> list[Case]:
    x4 = features((4,), 1)
    x5 = features((5,), 2)
    ximg = features((1, 6, 6), 3)
    xseq = features((5, 3), 4)
    xtok = torch.randint(0, 6, (N, 4), generator=_gen(5))
    x6 = features((6,), 6)
    yb = (labels(x5, 2, 11) == 1).float()
    y3 = labels(x4, 3, 12)
    yimg = labels(ximg, 3, 13)
    yseq = labels(xseq, 2, 14)
    ytok = (xtok == 0).any(1).long()  # "does token 0 occur"
    y6 = labels(x6, 3, 16)
    yreg = torch.sin(x4 @ torch.randn(4, 1, generator=_gen(17))) + 0.1 * torch.randn(N, 1, generator=_gen(18))
    mlp_parts = {"client": ("hidden",), "server": ("out",)}
    rnn_split = {"client": ["rnn"], "server": ["head"]}
    rnn_parts = {"client": ("rnn",), "server": ("head",)}
    cce = nn.CrossEntropyLoss()
    out: list[Case] = []

    def add(
        name: str,
        build: Callable[[], nn.Module],
        loss: Any,
        per_sample: PerSample,
        X: Tensor,
        y: Tensor,
        configs: tuple[str, ...] = TWO,
        split: str | Mapping[str, list[str]] | None = None,
        parts: Mapping[str, tuple[str, ...]] | None = None,
        model: str | None = None,
    ) -> None:
        for cfg in configs:
            kind, dt = cfg.split("-")
            case = Case(name=name, model=model or name, build=build, loss=loss, per_sample=per_sample, X=X, y=y,
                        clients=partition(kind), split=split, parts=parts, dtype=DTYPES[dt], partition=kind)  # fmt: skip
            out.append(case)

    add("logreg", seeded(0, lambda: LogReg(5)), nn.BCEWithLogitsLoss(), bce_logits, x5, yb, (*ALL4, "equal-f16"))
    add("softmax", seeded(1, lambda: nn.Linear(4, 3)), cce, ce, x4, y3, ALL4)
    mlp = seeded(2, lambda: MLP(4, 8, 3))
    add("mlp_tanh", mlp, cce, ce, x4, y3, (*ALL4, "equal-f16"), "hidden", mlp_parts)
    add("mlp_prefix", mlp, cce, ce, x4, y3, ("unequal-f64",), {"client": ["hidden"], "server": ["out"]}, mlp_parts,
        model="mlp_tanh")  # fmt: skip
    add("cnn_groupnorm", seeded(3, GNCNN), cce, ce, ximg, yimg, (*TWO, "unequal-f32"), "norm",
        {"client": ("conv", "norm"), "server": ("fc1", "fc2")})  # fmt: skip
    add("lstm", seeded(4, lambda: SeqClassifier(nn.LSTM)), cce, ce, xseq, yseq, (*TWO, "unequal-f32"), rnn_split,
        rnn_parts)  # fmt: skip
    add("gru", seeded(5, lambda: SeqClassifier(nn.GRU)), cce, ce, xseq, yseq, TWO, rnn_split, rnn_parts)
    add("rnn", seeded(6, lambda: SeqClassifier(nn.RNN)), cce, ce, xseq, yseq, TWO, rnn_split, rnn_parts)
    add("transformer", seeded(7, TinyTransformer), cce, ce, xtok, ytok)
    add("transformer_cut", seeded(7, TinyTransformer), cce, ce, xtok, ytok, ("unequal-f64",), "encoder",
        {"client": ("embed", "encoder"), "server": ("head",)}, model="transformer")  # fmt: skip
    bn_parts = {"client": ("lin1", "bn"), "server": ("lin2", "lin3")}
    add("batchnorm", seeded(8, bn_net), cce, ce, x4, y3, TWO, "bn", bn_parts)
    add("tied", seeded(9, Tied), cce, ce, x6, y6)
    add("tuple_out", seeded(10, lambda: TupleOut(4, 8, 3)), first_ce, _first, x4, y3)
    add("dict_out", seeded(11, lambda: DictOut(4, 8, 3)), logits_ce, _logits, x4, y3)
    add("frozen", seeded(12, Frozen), cce, ce, x4, y3)
    add("mse_n1", seeded(13, Regressor), nn.MSELoss(), sq_mean, x4, yreg, ALL4, "hidden", mlp_parts)
    add("mse_flat", seeded(13, Regressor), flat_sq, flat_sq, x4, yreg[:, 0], TWO, "hidden", mlp_parts)
    return out


CASES: list[Case] = _cases()
BY_ID: dict[str, Case] = {c.id: c for c in CASES}


# ---- models that are not measurable as they stand: measure must say so in one line, or handle them --------


def bn_batch_stats() -> nn.Module:
    """BatchNorm1d(track_running_stats=False): batch statistics even in eval mode, so samples interact."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(20)
        return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6, track_running_stats=False), nn.Linear(6, 3))
