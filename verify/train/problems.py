r"""Problems the algorithms run on: a torch model split at a cut, or a synthetic quadratic with exact constants.

Every algorithm sees a problem only through these pure functions, so one algorithm code serves both, and
the batched paths can ``torch.func.vmap`` them over the client axis:

* ``client_forward(pc, x) -> h``: the client part (parameters ``pc``) on inputs ``x``, the smashed data;
* ``server_loss(ps, h, y) -> l``: per-sample losses of the server part on ``h``;
* ``aux_loss(pa, h, y) -> l``: per-sample losses of the client's auxiliary head (HERON-SFL, sfl_aux);
* ``sample(m, size, gen) -> Batch``: a mini-batch of client ``m`` (with per-sample weights, so ragged clients
  can be padded and masked in the batched paths);
* ``full_gradient(pc, ps) -> FullGradient``: the loss and gradient of the objective the theorems define,

.. math:: f(x) = \frac1M \sum_{m=1}^M f_m(x),\qquad f_m(x) = \frac1{n_m}\sum_{i\in\mathcal D_m} \ell(x; \xi_i),

clients weighted equally as in every seed (MU-SplitFed eq. (1), sl_noniid eq. (1), cut_layer eq. (1)).

The quadratic (issue 10's exact problem) is

.. math::
    F_m(x;\xi) = \tfrac12 (x-b_m)^\top H (x-b_m) + \langle \xi, x\rangle,
    \qquad \xi\sim\mathcal N(0, \tfrac{\sigma^2}{d} I_d),

so :math:`\nabla F_m(x;\xi) = H(x-b_m) + \xi` has :math:`\mathbb E\|\nabla F_m - \nabla f_m\|^2 = \sigma^2` exactly
(one sample; a batch of B has :math:`\sigma^2/B`), and zeroth-order algorithms see the same noise through function
values (common random numbers within a perturbation pair). The first ``d_c`` coordinates are the client's; its
"smashed data" is those coordinates themselves, so a split algorithm runs unchanged.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn
from torch.func import functional_call

from sfltheory.errors import ParameterError
from verify.ops import tree
from verify.ops.batch import Batch, weighted_mean
from verify.ops.tree import Params

__all__ = ["Batch", "FullGradient", "ModelProblem", "Problem", "QuadraticProblem", "weighted_mean"]


@dataclass(frozen=True)
class FullGradient:
    """Loss and gradient of f = (1/M) sum_m f_m at one point, by part."""

    loss: float
    client: Params
    server: Params

    @property
    def sqnorm_client(self) -> float:
        return float(tree.sqnorm(self.client))

    @property
    def sqnorm_server(self) -> float:
        return float(tree.sqnorm(self.server))


class Problem(ABC):
    """A split problem: ``M`` clients, a client part, a server part and (optionally) an auxiliary head."""

    M: int
    name: str
    device: torch.device
    dtype: torch.dtype

    @abstractmethod
    def init(self) -> dict[str, Params]:
        """The starting point x^0: ``{"client": ..., "server": ...}`` and ``"aux"`` (the auxiliary head's)."""

    @abstractmethod
    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor: ...

    @abstractmethod
    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor: ...

    @abstractmethod
    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor: ...

    @abstractmethod
    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        """``size`` samples of client ``m`` drawn without replacement (all of them when it holds fewer)."""

    @abstractmethod
    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient: ...

    def evaluate(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> dict[str, float]:
        """Held-out metrics (test accuracy); none for a synthetic problem."""
        return {}

    @property
    @abstractmethod
    def activation(self) -> int:
        """Values per sample that cross the cut (the smashed data's size)."""

    @property
    @abstractmethod
    def client_fraction(self) -> float:
        """The client's share of the per-sample work (FLOPs where known, else parameters), for the time model."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """A JSON-able description that, with the seed, reproduces the problem."""

    @property
    def activation_bytes(self) -> int:
        """Bytes of one sample's smashed data (and of its gradient) as sent."""
        return self.activation * (torch.finfo(self.dtype).bits // 8)

    def loss(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor], batch: Batch) -> Tensor:
        """The mini-batch mean loss of the split model (client then server)."""
        return weighted_mean(self.server_loss(ps, self.client_forward(pc, batch.x), batch.y), batch.w)


# --- the quadratic --------------------------------------------------------------------------------------------


def _as_tensor(name: str, value: Any, dtype: torch.dtype) -> Tensor:
    try:
        t = torch.as_tensor(value, dtype=dtype)
    except (TypeError, ValueError, RuntimeError):
        raise ParameterError(name, "must be a number or a (nested) list of numbers") from None
    if not bool(torch.isfinite(t).all()):
        raise ParameterError(name, "must hold finite numbers only")
    return t


# The law of the noise vector xi: both have mean 0 and covariance (sigma2/d) I, so E||xi||^2 = sigma2.
# "rademacher" (xi = sqrt(sigma2/d) s, s uniform on {-1, 1}^d) has ||xi||^2 = sigma2 for *every* sample, so a
# variance bound stated for every sample (MU-SplitFed Assumption 4.2) holds with equality; a Gaussian one does not.
NOISE_LAWS = ("gaussian", "rademacher")


class QuadraticProblem(Problem):
    r"""f_m(x) = (1/2)(x - b_m)^T H (x - b_m) with Gaussian gradient noise of total variance ``sigma2``; see the module
    docstring. ``H`` is a symmetric d x d matrix or its diagonal; ``shifts`` (M x d) are the b_m; the first ``d_c``
    coordinates are the client's. Every constant the theorems assume is exact: :meth:`constants`."""

    def __init__(
        self,
        H: Any,
        shifts: Any,
        x0: Any,
        d_c: int,
        sigma2: float,
        *,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
        name: str = "quadratic",
        noise: str = "gaussian",
    ) -> None:
        if noise not in NOISE_LAWS:
            raise ParameterError("noise", f"must be one of {', '.join(NOISE_LAWS)} (got {noise!r})")
        self.noise = noise
        Ht = _as_tensor("H", H, torch.float64)
        B = _as_tensor("shifts", shifts, torch.float64)
        x = _as_tensor("x0", x0, torch.float64)
        if x.ndim != 1 or x.numel() < 2:
            raise ParameterError("x0", f"must be a vector of length d >= 2 (got shape {tuple(x.shape)})")
        d = x.numel()
        if Ht.ndim == 1:
            if Ht.numel() != d:
                raise ParameterError("H", f"a diagonal must have d = {d} entries (got {Ht.numel()})")
            Ht = torch.diag(Ht)
        if Ht.shape != (d, d):
            raise ParameterError("H", f"must be {d}x{d} or its diagonal (got shape {tuple(Ht.shape)})")
        if not torch.allclose(Ht, Ht.T, rtol=1e-12, atol=1e-12):
            raise ParameterError("H", "must be symmetric")
        if B.ndim != 2 or B.shape[1] != d or B.shape[0] < 1:
            raise ParameterError("shifts", f"must be an M x d = M x {d} matrix, one row per client")
        if isinstance(d_c, bool) or not isinstance(d_c, int) or not 1 <= d_c < d:
            raise ParameterError("d_c", f"must be an integer in 1..{d - 1} (got {d_c!r})")
        s2 = float(sigma2)
        if not (math.isfinite(s2) and s2 >= 0):
            raise ParameterError("sigma2", f"must be a finite number >= 0 (got {sigma2!r})")
        self.device = torch.device(device)
        self.dtype = dtype
        self.H = Ht.to(self.device, dtype)
        self.b = B.to(self.device, dtype)
        self.x0 = x.to(self.device, dtype)
        self.d, self.d_c, self.sigma2 = d, d_c, s2
        self.M = int(B.shape[0])
        self.name = name

    # -- construction ------------------------------------------------------------------------------------------

    @classmethod
    def from_targets(
        cls,
        *,
        L: float = 1.0,
        mu: float | None = None,
        sigma2: float = 1.0,
        eps2: float = 1.0,
        d: int = 10,
        d_c: int | None = None,
        M: int = 4,
        F: float = 1.0,
        seed: int = 0,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device = "cpu",
        noise: str = "gaussian",
    ) -> QuadraticProblem:
        r"""A diagonal quadratic hitting target constants exactly: eigenvalues evenly spaced in [mu, L] (mu = L/10
        unless given; mu <= 0 gives a nonconvex problem and F is then measured from x^0 to b̄ instead), shifts
        with :math:`\frac1M\sum_m\|\nabla f_m(x)-\nabla f(x)\|^2 = \varepsilon^2` at every x (the mean-over-clients
        heterogeneity; each client's own deviation is reported by :meth:`constants`), and
        :math:`f(x^0) - f^\star = F` (convex case)."""
        for name, v in (("L", L), ("sigma2", sigma2), ("eps2", eps2), ("F", F)):
            if not (isinstance(v, int | float) and math.isfinite(v)) or v < 0 or (name == "L" and v <= 0):
                raise ParameterError(name, f"must be a finite number {'> 0' if name == 'L' else '>= 0'} (got {v!r})")
        for name, v in (("d", d), ("M", M)):
            if isinstance(v, bool) or not isinstance(v, int) or v < (2 if name == "d" else 1):
                raise ParameterError(name, f"must be an integer >= {2 if name == 'd' else 1} (got {v!r})")
        lo = L / 10 if mu is None else float(mu)
        if not math.isfinite(lo) or lo > L:
            raise ParameterError("mu", f"must be a finite number <= L = {L} (got {mu!r})")
        dc = d // 2 if d_c is None else d_c
        gen = torch.Generator().manual_seed(seed)
        eig = torch.linspace(lo, L, d, dtype=torch.float64)
        dirs = torch.randn(M, d, generator=gen, dtype=torch.float64)
        dirs = dirs - dirs.mean(0) if M > 1 else dirs * 0
        hv2 = (dirs * eig).pow(2).sum(1).mean()
        scale = math.sqrt(eps2 / float(hv2)) if float(hv2) > 0 else 0.0
        bbar = torch.randn(d, generator=gen, dtype=torch.float64)
        shifts = bbar + scale * dirs
        r = torch.randn(d, generator=gen, dtype=torch.float64)
        curv = float(0.5 * (r * eig * r).sum())
        x0 = bbar + (r * math.sqrt(F / curv) if curv > 0 and F > 0 else r)
        return cls(eig, shifts, x0, dc, sigma2, dtype=dtype, device=device, name="quadratic(targets)",
                   noise=noise)  # fmt: skip

    @classmethod
    def from_file(cls, path: str | Path, **kw: Any) -> QuadraticProblem:
        """``{"kind": "quadratic", "H": d x d or its diagonal, "shifts": M x d, "x0": d, "d_c": int, "sigma2": x}``."""
        p = Path(path)
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ParameterError("--problem", f"no such file: {p}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ParameterError("--problem", f"{p} is not a readable JSON file ({type(e).__name__})") from None
        return cls.from_dict(raw, **kw)

    @classmethod
    def from_dict(cls, raw: Any, **kw: Any) -> QuadraticProblem:
        if not isinstance(raw, dict):
            raise ParameterError("--problem", "must be a JSON object with kind, H, shifts, x0, d_c, sigma2")
        if raw.get("kind") != "quadratic":
            raise ParameterError("--problem", f"field 'kind' must be \"quadratic\" (got {raw.get('kind')!r})")
        missing = [k for k in ("H", "shifts", "x0", "d_c", "sigma2") if k not in raw]
        if missing:
            raise ParameterError("--problem", f"field '{missing[0]}' is missing")
        unknown = sorted(set(raw) - {"kind", "H", "shifts", "x0", "d_c", "sigma2", "name", "noise"})
        if unknown:
            raise ParameterError("--problem", f"unknown field '{unknown[0]}'")
        if not isinstance(raw["sigma2"], int | float) or isinstance(raw["sigma2"], bool):
            raise ParameterError("sigma2", f"must be a number (got {raw['sigma2']!r})")
        if "noise" in raw:
            kw = {**kw, "noise": raw["noise"]}
        return cls(raw["H"], raw["shifts"], raw["x0"], raw["d_c"], raw["sigma2"], **kw)

    def to_dict(self) -> dict[str, Any]:
        H = self.H.double().cpu()
        diag = bool(torch.equal(H, torch.diag(torch.diagonal(H))))
        return {
            "kind": "quadratic",
            "H": (torch.diagonal(H) if diag else H).tolist(),
            "shifts": self.b.double().cpu().tolist(),
            "x0": self.x0.double().cpu().tolist(),
            "d_c": self.d_c,
            "sigma2": self.sigma2,
            "noise": self.noise,
        }

    # -- the oracle --------------------------------------------------------------------------------------------

    def init(self) -> dict[str, Params]:
        return {
            "client": {"x": self.x0[: self.d_c].clone()},
            "server": {"x": self.x0[self.d_c :].clone()},
            "aux": {"x": self.x0[self.d_c :].clone()},  # the client's local model of the server coordinates
        }

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        # x holds no information (only the batch size): the smashed data are the client coordinates themselves.
        return pc["x"].expand(x.shape[0], self.d_c) + 0 * x[:, :1]

    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        z = torch.cat([h, ps["x"].expand(h.shape[0], self.d - self.d_c)], 1)
        xi, b = y[:, : self.d], y[:, self.d :]
        r = z - b
        return 0.5 * ((r @ self.H) * r).sum(1) + (xi * z).sum(1)

    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        return self.server_loss(pa, h, y)

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        if self.noise == "rademacher":
            signs = torch.randint(0, 2, (size, self.d), generator=gen, dtype=torch.float64) * 2 - 1
            xi = signs * math.sqrt(self.sigma2 / self.d)
        else:
            xi = torch.randn(size, self.d, generator=gen, dtype=torch.float64) * math.sqrt(self.sigma2 / self.d)
        y = torch.cat([xi.to(self.device, self.dtype), self.b[m].expand(size, self.d)], 1)
        x = torch.zeros(size, 1, dtype=self.dtype, device=self.device)
        return Batch(x, y, torch.ones(size, dtype=self.dtype, device=self.device))

    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        x = torch.cat([pc["x"], ps["x"]]).to(torch.float64)
        H, b = self.H.double(), self.b.double()
        r = x - b  # M x d
        loss = float(0.5 * ((r @ H) * r).sum(1).mean())
        g = H @ (x - b.mean(0))
        return FullGradient(loss, {"x": g[: self.d_c].to(self.dtype)}, {"x": g[self.d_c :].to(self.dtype)})

    @property
    def activation(self) -> int:
        return self.d_c

    @property
    def client_fraction(self) -> float:
        return self.d_c / self.d

    def constants(self) -> dict[str, float]:
        """The exact constants: L (largest |eigenvalue|), mu, sigma2, eps2 (mean and max over clients), F
        (f(x^0) - f*, when H is positive definite), d, d_c, d_s, M."""
        H, b = self.H.double().cpu(), self.b.double().cpu()
        eig = torch.linalg.eigvalsh(H)
        dev = (b - b.mean(0)) @ H  # grad f_m - grad f = -H (b_m - b̄), the same at every x
        per = dev.pow(2).sum(1)
        out = {
            "L": float(eig.abs().max()),
            "mu": float(eig.min()),
            "sigma2": self.sigma2,
            "eps2": float(per.mean()),
            "eps2[max]": float(per.max()),
            "d": float(self.d),
            "d_c": float(self.d_c),
            "d_s": float(self.d - self.d_c),
            "M": float(self.M),
        }
        if float(eig.min()) > 0:
            x0 = self.x0.double().cpu()
            bbar = b.mean(0)
            out["F"] = float(0.5 * (x0 - bbar) @ H @ (x0 - bbar))
        return out

    def exact_constants(self, batch: int = 1) -> Any:
        """The constants every assumption of the catalogue names, exactly, as a
        :class:`sfltheory.constants.Constants` record (variants included), for a mini-batch of ``batch``.

        Smoothness: the eigenvalues of H and of its client/server blocks (every f_m has the same H). Variance:
        sigma2 per sample, sigma2/batch for a mini-batch, split over the parts in proportion d_c/d and d_s/d;
        the per-sample maxima (``[max]``) only with Rademacher noise, where ||xi||^2 = sigma2 for every sample.
        Heterogeneity: grad f_m - grad f = -H (b_m - bbar) at every x, so eps2 (max over clients), its mean and
        parts are exact, and (1/M) sum ||grad f_m||^2 = ||grad f||^2 + eps2[mean]: B2 = 1, G2 = eps2[mean].
        Bounded gradients (G_c2, G_s2) hold for no quadratic on all of R^d and are left out."""
        from sfltheory.constants import Constants, Estimate

        H = self.H.double().cpu()
        b = self.b.double().cpu()
        dc = self.d_c
        eig = torch.linalg.eigvalsh(H)
        dev = (b - b.mean(0)) @ H
        per = dev.pow(2).sum(1)
        per_c, per_s = dev[:, :dc].pow(2).sum(1), dev[:, dc:].pow(2).sum(1)
        c = Constants(meta={"problem": "quadratic", "exact": True, "batch": batch, "noise": self.noise})

        def put(key: str, value: Any, how: str) -> None:
            c.set(key, Estimate(float(value), method=f"exact ({how})"))

        put("L", eig.abs().max(), "largest |eigenvalue| of H")
        put("L[clients]", eig.abs().max(), "every f_m has Hessian H")
        put("L[min]", eig.min(), "smallest eigenvalue of H")
        put("L[client]", torch.linalg.eigvalsh(H[:dc, :dc]).abs().max(), "client block of H")
        put("L[server]", torch.linalg.eigvalsh(H[dc:, dc:]).abs().max(), "server block of H")
        put("sigma2", self.sigma2, "E||xi||^2 per sample")
        put(f"sigma2[batch={batch}]", self.sigma2 / batch, "per mini-batch")
        put("sigma2[batch]", self.sigma2 / batch, "per mini-batch")
        put("sigma_c2", self.sigma2 * dc / self.d, "client coordinates of xi")
        put("sigma_s2", self.sigma2 * (self.d - dc) / self.d, "server coordinates of xi")
        if self.noise == "rademacher":
            put("sigma_c2[max]", self.sigma2 * dc / self.d, "||xi_c||^2 for every sample (Rademacher)")
            put("sigma_s2[max]", self.sigma2 * (self.d - dc) / self.d, "||xi_s||^2 for every sample (Rademacher)")
        put("eps2", per.max(), "max over clients of ||H (b_m - bbar)||^2")
        put("eps2[mean]", per.mean(), "mean over clients")
        put("eps2[mean,client]", per_c.mean(), "client part, mean over clients")
        put("eps2[mean,server]", per_s.mean(), "server part, mean over clients")
        put("B2", 1.0, "(1/M) sum ||grad f_m||^2 = ||grad f||^2 + eps2[mean]")
        put("G2", per.mean(), "(1/M) sum ||grad f_m||^2 = ||grad f||^2 + eps2[mean]")
        put("kappa", eig.abs().sum() / eig.abs().max(), "tr|H| / ||H||")
        put("kappa[client]", H[:dc, :dc].diagonal().abs().sum() / torch.linalg.eigvalsh(H[:dc, :dc]).abs().max(),
            "client block")  # fmt: skip
        put("d", self.d, "dimension")
        put("d_c", dc, "client coordinates")
        put("d_s", self.d - dc, "server coordinates")
        if float(eig.min()) > 0:
            x0 = self.x0.double().cpu()
            put("F", 0.5 * (x0 - b.mean(0)) @ H @ (x0 - b.mean(0)), "f(x0) - f*, f* at bbar")
            g = H @ (x0 - b.mean(0))
            put("gradnorm2_f", g @ g, "||grad f(x0)||^2")
        return c

    def describe(self) -> dict[str, Any]:
        return {"kind": "quadratic", "name": self.name, "d": self.d, "d_c": self.d_c, "M": self.M, **self.to_dict()}


# --- a torch model split at a cut -----------------------------------------------------------------------------


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


@dataclass(frozen=True)
class ClientData:
    """Each client's sample indices into the training set."""

    indices: tuple[Tensor, ...] = field(default_factory=tuple)


class ModelProblem(Problem):
    """A torch model split into a client module and a server module, with data partitioned among clients.

    Build it with :meth:`at_cut` (a model that is a chain of its blocks, as every model of ``verify.models``
    is: the client gets the blocks up to the cut and the parameterless ones after it) or :meth:`from_parts`
    (your own client and server modules). Batch norm is used with batch statistics throughout (its running
    statistics are not tracked: ``torch.func.replace_all_batch_norm_modules_``), since a running-statistics
    buffer is state that is not a parameter and would differ per client.
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
    ) -> None:
        from torch.func import replace_all_batch_norm_modules_

        self.device = torch.device(device)
        self.dtype = dtype
        if not clients:
            raise ParameterError("clients", "needs at least one client")
        for i, idx in enumerate(clients):
            if idx.numel() == 0:
                raise ParameterError("clients", f"client {i} holds no sample")
        self.M = len(clients)
        self.indices = [idx.long().cpu() for idx in clients]
        mods = [client, server] + ([aux] if aux is not None else [])
        for mod in mods:
            replace_all_batch_norm_modules_(mod)
            mod.to(self.device, dtype)
        self.client, self.server, self.aux = client, server, aux
        self.lossf = per_sample(loss)
        self.X = X.to(dtype) if X.is_floating_point() else X
        self.y = y
        self.X_test, self.y_test = X_test, y_test
        self.chunk = chunk
        # The recorded gradient uses every training sample, or a fixed seeded subsample of at most
        # eval_samples per client (the same one every round, so the curve is of one function).
        if eval_samples is not None and (isinstance(eval_samples, bool) or eval_samples < 1):
            raise ParameterError("eval_samples", f"must be an integer >= 1 (got {eval_samples!r})")
        self.eval_samples = eval_samples
        gen = torch.Generator().manual_seed(0)
        self.eval_indices = [
            idx if eval_samples is None or idx.numel() <= eval_samples
            else idx[torch.randperm(idx.numel(), generator=gen)[:eval_samples]].sort().values
            for idx in self.indices
        ]  # fmt: skip
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

        from verify.models import enumerate_blocks, model_cuts, resolve_cut

        model = copy.deepcopy(model)  # the parts are converted and trained: never touch the caller's module
        shape = tuple(input_shape) if input_shape is not None else tuple(X.shape[1:])
        xdtype = X.dtype if X.is_floating_point() else torch.float32
        table = model_cuts(model, shape, expand, flops=True, input_dtype=xdtype)
        point = resolve_cut(table, cut)
        if point.index >= len(table.cuts) + 1 or point.d_s == 0:
            raise ParameterError("cut", f"'{point.name}' leaves no parameters on the server")
        blocks = enumerate_blocks(model, expand, shape, input_dtype=xdtype)
        order = [b for b, _ in blocks]
        end = order.index(point.name)
        while end + 1 < len(blocks) and not any(True for _ in blocks[end + 1][1].parameters()):
            end += 1  # parameterless layers after the cut (ReLU, pooling) run on the client, as model_cuts counts
        client = nn.Sequential(OrderedDict((n.replace(".", "/"), m) for n, m in blocks[: end + 1]))
        server = nn.Sequential(OrderedDict((n.replace(".", "/"), m) for n, m in blocks[end + 1 :]))
        was = model.training
        model.eval()
        with torch.no_grad():
            probe = X[:2].to(next(model.parameters()).device, next(model.parameters()).dtype)
            try:
                same = torch.allclose(server(client(probe)), model(probe), rtol=1e-4, atol=1e-5)
            except RuntimeError:
                same = False
        model.train(was)
        if not same:
            raise ParameterError(
                "cut",
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
        out = {
            "client": {k: v.detach().clone() for k, v in self.client.named_parameters()},
            "server": {k: v.detach().clone() for k, v in self.server.named_parameters()},
        }
        if self.aux is not None:
            out["aux"] = {k: v.detach().clone() for k, v in self.aux.named_parameters()}
        return out

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        return functional_call(self.client, dict(pc), (x,))

    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        return self.lossf(functional_call(self.server, dict(ps), (h,)), y)

    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        if self.aux is None:
            raise ParameterError("aux", "this problem has no auxiliary head (build it with aux=True)")
        return self.lossf(functional_call(self.aux, dict(pa), (h,)), y)

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        idx = self.indices[m]
        if size < idx.numel():
            idx = idx[torch.randperm(idx.numel(), generator=gen)[:size]]
        x = self.X[idx].to(self.device)
        return Batch(x, self.y[idx].to(self.device), torch.ones(idx.numel(), dtype=self.dtype, device=self.device))

    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        # One pass over the training set: each client's mean gradient, then their equal-weight average.
        pcs = {k: v.detach().requires_grad_(True) for k, v in pc.items()}
        pss = {k: v.detach().requires_grad_(True) for k, v in ps.items()}
        gc = tree.zeros_like(pcs)
        gs = tree.zeros_like(pss)
        total = 0.0
        for idx in self.eval_indices:
            n = idx.numel()
            for s in range(0, n, self.chunk):
                sl = idx[s : s + self.chunk]
                x, y = self.X[sl].to(self.device), self.y[sl].to(self.device)
                val = self.server_loss(pss, self.client_forward(pcs, x), y).sum() / (n * self.M)
                grads = torch.autograd.grad(val, [*pcs.values(), *pss.values()])
                for k, g in zip(pcs, grads[: len(pcs)], strict=True):
                    gc[k] += g
                for k, g in zip(pss, grads[len(pcs) :], strict=True):
                    gs[k] += g
                total += float(val.detach())
        return FullGradient(total, gc, gs)

    @torch.no_grad()
    def evaluate(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> dict[str, float]:
        if self.X_test is None or self.y_test is None or self.y_test.is_floating_point():
            return {}
        correct = 0
        n = int(self.X_test.shape[0])
        for s in range(0, n, self.chunk):
            x = self.X_test[s : s + self.chunk].to(self.device, self.dtype)
            out = functional_call(self.server, dict(ps), (self.client_forward(pc, x),))
            correct += int((out.argmax(1).cpu() == self.y_test[s : s + self.chunk]).sum())
        return {"test_acc": correct / n}

    @property
    def activation(self) -> int:
        return math.prod(self._activation_shape)

    @property
    def client_fraction(self) -> float:
        return float(self._fraction)

    def describe(self) -> dict[str, Any]:
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
