r"""The measurement behind :mod:`verify.reproduce.heron_sfl_fig7`: train a network briefly by plain SGD, then the
eigenvalue density of its training-loss Hessian by stochastic Lanczos quadrature, at initialisation and after
training, with the effective rank :math:`\kappa = \operatorname{tr}H/\|H\|_2` (HERON-SFL's Assumption 5).

HERON-SFL (seed ``001_e8dcbf2a405221d7.txt``, App. B, line 601) estimates "the Hessian eigenvalue density via the
stochastic Lanczos algorithm [13], following the methodology of [12]" (Ghorbani, Krishnan, Xiao, ICML 2019): the
density is :func:`verify.constants.density.hessian_density` (its docstring states the method); the Hessian is that
of the mean cross-entropy over the training samples (:class:`verify.ops.objective.Objective`, the model in eval
mode, float32: three times faster than float64 on this CPU, the Lanczos basis fully reorthogonalised), :math:`\kappa`
is :func:`verify.constants.curvature.effective_rank` (Hutch++ trace over a Lanczos
:math:`\|H\|_2`). Torch is imported here only: the experiment module imports this in its judge.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from sfltheory.errors import ParameterError
from verify.constants.curvature import effective_rank
from verify.constants.density import Density, hessian_density, mass_near_zero
from verify.data.specs import load
from verify.models.cuts import build, load_model
from verify.models.zoo import mlp
from verify.ops.hvp import HessianOperator
from verify.ops.objective import Objective, pick_device

from .verdicts import standard_error

# the digits MLP: 64-64-64-10, 4,160 + 4,160 + 650 = 8,970 parameters (hand count), fewer than the 1,437 training
# samples x 9 free logits = 12,933 that bound the rank of the Hessian's Gauss-Newton part: unlike ResNet-18 on
# CIFAR-10 (11.2 M parameters against 50,000 x 9 = 450,000), no counting of ranks forces eigenvalues to zero here
DIGITS_HIDDEN = (64, 64)
TINY_HIDDEN = (8,)  # tests only: 64-8-10, 520 + 90 = 610 parameters


def digits_mlp_deep() -> nn.Module:
    """An MLP 64-64-64-10 on scikit-learn's digits (8x8 flattened): 8,970 parameters (hand count above), the
    small scale's stand-in for the paper's "custom ResNet" (a plain ReLU MLP: no residual connection, no batch
    norm)."""
    return mlp(in_features=64, hidden=DIGITS_HIDDEN, num_classes=10)


def digits_mlp_tiny() -> nn.Module:
    """An MLP 64-8-10 (610 parameters): the tiny scale's, for tests."""
    return mlp(in_features=64, hidden=TINY_HIDDEN, num_classes=10)


@dataclass(frozen=True, kw_only=True)
class Setting:
    """What one measurement runs: the ``data`` spec and ``model`` (a registered name or ``package.module:factory``),
    ``train`` samples (the first of a seeded permutation; the rest are the test set), ``steps`` SGD steps of
    ``batch`` at step ``lr``, then SLQ with ``probes`` probes of ``lanczos`` steps on the Hessian of the training
    loss over its first ``hessian_samples`` samples (all when ``None``), and ``kappa_probes`` Hutch++ products for
    the trace of :math:`\\kappa`; ``seed`` draws the model, the permutation, the batches and the probes; ``device``
    runs it all (``"auto"``: CUDA when present)."""

    data: str
    model: str
    train: int
    steps: int
    batch: int
    lr: float
    probes: int
    lanczos: int
    kappa_probes: int
    seed: int
    hessian_samples: int | None = None
    device: str = "cpu"


def check_setting(s: Setting) -> None:
    """The setting's numbers, each refused with its name before any work."""
    for name in ("train", "steps", "batch", "probes", "lanczos", "kappa_probes"):
        v = getattr(s, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ParameterError(name, f"must be an integer >= 1, got {v!r}")
    if not (math.isfinite(s.lr) and s.lr > 0):
        raise ParameterError("lr", f"must be a positive number, got {s.lr}")
    if s.hessian_samples is not None and s.hessian_samples < 1:
        raise ParameterError("hessian_samples", f"must be None or an integer >= 1, got {s.hessian_samples}")


def build_model(name: str) -> nn.Module:
    """A registered model (``resnet18``) or one from ``package.module:factory``."""
    return load_model(name) if ":" in name else build(name)


def accuracy(model: nn.Module, X: Tensor, y: Tensor) -> float:
    """The model's accuracy (%) on ``(X, y)`` in eval mode, 512 samples at a time."""
    was = model.training
    model.eval()
    with torch.no_grad():
        right = sum(int((model(X[i : i + 512]).argmax(1) == y[i : i + 512]).sum()) for i in range(0, len(y), 512))
    model.train(was)
    return 100.0 * right / max(1, len(y))


def sgd(model: nn.Module, X: Tensor, y: Tensor, s: Setting, gen: torch.Generator) -> list[float]:
    """``s.steps`` steps of plain mini-batch SGD (no momentum, no weight decay, step ``s.lr``) on the mean
    cross-entropy, batches drawn uniformly without replacement within each pass; the loss of every step."""
    model.train()
    losses = []
    order = torch.randperm(len(y), generator=gen)
    at = 0
    for _ in range(s.steps):
        if at + s.batch > len(y):
            order, at = torch.randperm(len(y), generator=gen), 0
        idx = order[at : at + s.batch].to(X.device)
        at += s.batch
        loss = nn.functional.cross_entropy(model(X[idx]), y[idx])
        grads = torch.autograd.grad(loss, [p for p in model.parameters() if p.requires_grad])
        with torch.no_grad():
            for p, g in zip((p for p in model.parameters() if p.requires_grad), grads, strict=True):
                p.sub_(s.lr * g)
        losses.append(float(loss.detach()))
    model.eval()
    return losses


def spectrum_summary(d: Density, kappa: float, kappa_se: float, fraction: float) -> dict[str, Any]:
    """The numbers of one density, JSON-ready: the share of mass within ``fraction`` of the largest modulus per
    probe, its mean and standard error over probes, the extreme nodes, tr(H)/d by SLQ, kappa and kappa/d, the
    grid and the density (thinned to 1,000 points for the summary)."""
    share = mass_near_zero(d, fraction)
    se = standard_error(list(share))
    keep = np.linspace(0, len(d.grid) - 1, min(len(d.grid), 1000)).round().astype(int)
    return {
        "share_near_zero": round(float(np.mean(share)), 6),
        "share_se": round(se, 6),
        "share_per_probe": [round(float(v), 6) for v in share],
        "lambda_max": float(np.max(d.nodes)),
        "lambda_min": float(np.min(d.nodes)),
        "largest_modulus": d.largest_modulus,
        "trace_over_d_slq": float(np.mean(d.moments)),
        "kappa": kappa,
        "kappa_se": kappa_se,
        "kappa_over_d": kappa / d.dim,
        "dim": d.dim,
        "matvecs": d.matvecs,
        "method": d.method,
        "sigma2": d.sigma2,
        "nodes": [[float(v) for v in row] for row in d.nodes],
        "weights": [[float(v) for v in row] for row in d.weights],
        "grid": [float(d.grid[i]) for i in keep],
        "density": [float(d.density[i]) for i in keep],
    }


def at_point(model: nn.Module, X: Tensor, y: Tensor, s: Setting, fraction: float) -> dict[str, Any]:
    """SLQ and kappa of the mean training cross-entropy's Hessian at the model's current parameters."""
    obj = Objective(model, nn.CrossEntropyLoss(), X, y, chunk=2048, device=s.device, dtype=torch.float32)
    op = HessianOperator(obj, method="reverse")
    d = hessian_density(op, probes=s.probes, steps=s.lanczos, seed=s.seed)
    r = effective_rank(op, probes=s.kappa_probes, seed=s.seed)
    return spectrum_summary(d, float(r.value), float(r.se), fraction)


def measure(s: Setting, fraction: float = 0.01) -> dict[str, Any]:
    """Train ``s.model`` on ``s.data`` by :func:`sgd` and measure the Hessian's density at initialisation and after
    training (:func:`at_point`); with the training and test accuracy (%) and loss, and the seconds taken."""
    check_setting(s)
    t0 = time.perf_counter()
    ds = load(s.data)
    if s.train >= len(ds):
        raise ParameterError("train", f"must leave test samples: at most {len(ds) - 1} of {len(ds)}, got {s.train}")
    gen = torch.Generator().manual_seed(s.seed)
    perm = torch.randperm(len(ds), generator=gen)
    tr, te = perm[: s.train], perm[s.train :]
    dev = pick_device(s.device)
    X = ds.X.to(dev, torch.float32)
    y = ds.y.to(dev)
    Xtr, ytr, Xte, yte = X[tr.to(dev)], y[tr.to(dev)], X[te.to(dev)], y[te.to(dev)]
    hs = s.train if s.hessian_samples is None else min(s.hessian_samples, s.train)
    torch.manual_seed(s.seed)
    model = build_model(s.model).to(dev, torch.float32)
    init = at_point(model, Xtr[:hs], ytr[:hs], s, fraction)
    init_acc = accuracy(model, Xtr, ytr)
    losses = sgd(model, Xtr, ytr, s, gen)
    if not all(math.isfinite(v) for v in losses):
        raise ParameterError("lr", f"SGD diverged at step {s.lr}: a non-finite loss")
    trained = at_point(model, Xtr[:hs], ytr[:hs], s, fraction)
    return {
        "init": init,
        "trained": trained,
        "train_acc_init": round(init_acc, 4),
        "train_acc": round(accuracy(model, Xtr, ytr), 4),
        "test_acc": round(accuracy(model, Xte, yte), 4),
        "first_loss": losses[0],
        "final_loss": float(np.mean(losses[-max(1, s.steps // 20) :])),
        "parameters": sum(p.numel() for p in model.parameters()),
        "hessian_samples": hs,
        "fraction": fraction,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def setting_of(data: str, model: str, T: int, batch: int, seed: int, params: Mapping[str, Any]) -> Setting:
    """A :class:`Setting` from a scale's fields and ``params`` (``train``, ``lr``, ``probes``, ``lanczos``,
    ``kappa_probes``, ``hessian_samples``, ``device``)."""
    return Setting(data=data, model=model, train=int(params["train"]), steps=T, batch=batch, lr=float(params["lr"]),
                   probes=int(params["probes"]), lanczos=int(params["lanczos"]),
                   kappa_probes=int(params["kappa_probes"]), seed=seed,
                   hessian_samples=params.get("hessian_samples"), device=str(params.get("device", "cpu")))  # fmt: skip


__all__ = ["DIGITS_HIDDEN", "TINY_HIDDEN", "Setting", "accuracy", "at_point", "build_model", "check_setting",
           "digits_mlp_deep", "digits_mlp_tiny", "measure", "setting_of", "sgd", "spectrum_summary"]  # fmt: skip
