r"""The exact problem (issue 10): a synthetic quadratic split at a coordinate, whose constants are known exactly.

.. math::
    F_m(x;\xi) = \tfrac12 (x-b_m)^\top H (x-b_m) + \langle \xi, x\rangle,
    \qquad \xi\sim\mathcal N(0, \tfrac{\sigma^2}{d} I_d),

so :math:`\nabla F_m(x;\xi) = H(x-b_m) + \xi` has :math:`\mathbb E\|\nabla F_m - \nabla f_m\|^2 = \sigma^2` exactly
(one sample; a batch of B has :math:`\sigma^2/B`), and zeroth-order algorithms see the same noise through function
values (common random numbers within a perturbation pair). The first ``d_c`` coordinates are the client's; its
"smashed data" is those coordinates themselves, so a split algorithm runs unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from sfltheory.constants import Constants, Estimate
from sfltheory.datafiles import json_file
from sfltheory.errors import ParameterError
from verify.ops.batch import Batch
from verify.ops.tree import Params
from verify.spec import NOISE_LAWS

from .base import FullGradient, Point, Problem

__all__ = ["QuadraticProblem"]


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
# NOISE_LAWS (verify.spec) names the two.


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
        return cls.from_dict(json_file(path, "problem.file"), **kw)

    @classmethod
    def from_dict(cls, raw: Any, **kw: Any) -> QuadraticProblem:
        """The problem a parsed quadratic JSON object describes (the format of :meth:`from_file`, plus optional ``name``
        and ``noise``, and ``lemma``: the settings of a lemma check's witness, :mod:`verify.pipeline.lemmas`, which
        describe where the instance came from and do not change the problem); a ``ParameterError`` naming
        ``problem.file`` for a missing, unknown or ill-typed field."""
        if not isinstance(raw, dict):
            raise ParameterError("problem.file", "must be a JSON object with kind, H, shifts, x0, d_c, sigma2")
        if raw.get("kind") != "quadratic":
            raise ParameterError("problem.file", f"field 'kind' must be \"quadratic\" (got {raw.get('kind')!r})")
        missing = [k for k in ("H", "shifts", "x0", "d_c", "sigma2") if k not in raw]
        if missing:
            raise ParameterError("problem.file", f"field '{missing[0]}' is missing")
        unknown = sorted(set(raw) - {"kind", "H", "shifts", "x0", "d_c", "sigma2", "name", "noise", "lemma"})
        if unknown:
            raise ParameterError("problem.file", f"unknown field '{unknown[0]}'")
        if not isinstance(raw["sigma2"], int | float) or isinstance(raw["sigma2"], bool):
            raise ParameterError("sigma2", f"must be a number (got {raw['sigma2']!r})")
        if "noise" in raw:
            kw = {**kw, "noise": raw["noise"]}
        return cls(raw["H"], raw["shifts"], raw["x0"], raw["d_c"], raw["sigma2"], **kw)

    def to_dict(self) -> dict[str, Any]:
        """The problem as the JSON object :meth:`from_dict` reads (``H`` as its diagonal when it is diagonal), in
        float64."""
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
        """x^0 split at ``d_c``: the client coordinates, the server coordinates, and ``aux`` a copy of the server
        coordinates (the client's local model of them)."""
        return {
            "client": {"x": self.x0[: self.d_c].clone()},
            "server": {"x": self.x0[self.d_c :].clone()},
            "aux": {"x": self.x0[self.d_c :].clone()},  # the client's local model of the server coordinates
        }

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        """The client coordinates themselves, one row per sample: ``x`` holds no information, only the batch size."""
        return pc["x"].expand(x.shape[0], self.d_c) + 0 * x[:, :1]

    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        r""":math:`F_m(z;\xi) = \tfrac12 (z-b_m)^\top H (z-b_m) + \langle \xi, z\rangle` per sample, z the client
        coordinates ``h`` joined to the server's ``ps``; ``y`` packs each sample's noise :math:`\xi` and shift
        :math:`b_m`."""
        z = torch.cat([h, ps["x"].expand(h.shape[0], self.d - self.d_c)], 1)
        xi, b = y[:, : self.d], y[:, self.d :]
        r = z - b
        return 0.5 * ((r @ self.H) * r).sum(1) + (xi * z).sum(1)

    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """The same loss with the client's local copy ``pa`` of the server coordinates in place of the server's."""
        return self.server_loss(pa, h, y)

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        r"""``size`` fresh noise draws for client ``m`` (Gaussian or Rademacher, covariance
        :math:`\frac{\sigma^2}{d} I_d`), packed with :math:`b_m` in the targets; the inputs are a zero column, the
        weights 1."""
        if self.noise == "rademacher":
            signs = torch.randint(0, 2, (size, self.d), generator=gen, dtype=torch.float64) * 2 - 1
            xi = signs * math.sqrt(self.sigma2 / self.d)
        else:
            xi = torch.randn(size, self.d, generator=gen, dtype=torch.float64) * math.sqrt(self.sigma2 / self.d)
        y = torch.cat([xi.to(self.device, self.dtype), self.b[m].expand(size, self.d)], 1)
        x = torch.zeros(size, 1, dtype=self.dtype, device=self.device)
        return Batch(x, y, torch.ones(size, dtype=self.dtype, device=self.device))

    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        r"""Exact, in float64: :math:`f(x) = \frac1M\sum_m \tfrac12 (x-b_m)^\top H (x-b_m)` and
        :math:`\nabla f(x) = H(x - \bar b)`."""
        x = torch.cat([pc["x"], ps["x"]]).to(torch.float64)
        H, b = self.H.double(), self.b.double()
        r = x - b  # M x d
        loss = float(0.5 * ((r @ H) * r).sum(1).mean())
        g = H @ (x - b.mean(0))
        return FullGradient(loss, {"x": g[: self.d_c].to(self.dtype)}, {"x": g[self.d_c :].to(self.dtype)})

    @property
    def activation(self) -> int:
        """``d_c``: the smashed data are the client coordinates."""
        return self.d_c

    @property
    def client_fraction(self) -> float:
        """``d_c / d``, the client's share of the coordinates."""
        return self.d_c / self.d

    def constants(self, *, at: Point | None = None, needed: Iterable[str] | None = None, batch: int = 1) -> Constants:
        """The constants every assumption of the catalogue names, exactly, as a
        :class:`sfltheory.constants.Constants` record (variants included), for a mini-batch of ``batch``; ``F`` and
        ``gradnorm2_f`` at ``at`` (default x^0). ``needed`` is ignored: every exact constant is returned.

        Smoothness: the eigenvalues of H and of its client/server blocks (every f_m has the same H). Variance:
        sigma2 per sample, sigma2/batch for a mini-batch, split over the parts in proportion d_c/d and d_s/d;
        the per-sample maxima (``[max]``) only with Rademacher noise, where ||xi||^2 = sigma2 for every sample.
        Heterogeneity: grad f_m - grad f = -H (b_m - bbar) at every x, so eps2 (max over clients), its mean
        (``eps2[mean]``, what :meth:`from_targets` sets) and parts are exact, and (1/M) sum ||grad f_m||^2 =
        ||grad f||^2 + eps2[mean]: B2 = 1, G2 = eps2[mean]. Bounded gradients (G_c2, G_s2) hold for no quadratic
        on all of R^d and are left out."""
        H = self.H.double().cpu()
        c = Constants(meta={"problem": "quadratic", "exact": True, "batch": batch, "noise": self.noise})
        self._smoothness(c, H)
        self._noise(c, batch)
        self._heterogeneity(c, H)
        _put(c, "d", self.d, "dimension")
        _put(c, "d_c", self.d_c, "client coordinates")
        _put(c, "d_s", self.d - self.d_c, "server coordinates")
        if float(torch.linalg.eigvalsh(H).min()) > 0:  # f* = f(bbar) exists only for a positive definite H
            x = self.x0 if at is None else torch.cat([at["client"]["x"], at["server"]["x"]])
            r = x.double().cpu() - self.b.double().cpu().mean(0)
            _put(c, "F", 0.5 * r @ H @ r, "f(x0) - f*, f* at bbar")
            g = H @ r
            _put(c, "gradnorm2_f", g @ g, "||grad f(x0)||^2")
        return c

    def _smoothness(self, c: Constants, H: Tensor) -> None:
        dc = self.d_c
        eig = torch.linalg.eigvalsh(H)
        top_c = torch.linalg.eigvalsh(H[:dc, :dc]).abs().max()
        _put(c, "L", eig.abs().max(), "largest |eigenvalue| of H")
        _put(c, "L[clients]", eig.abs().max(), "every f_m has Hessian H")
        _put(c, "L[min]", eig.min(), "smallest eigenvalue of H")
        _put(c, "L[client]", top_c, "client block of H")
        _put(c, "L[server]", torch.linalg.eigvalsh(H[dc:, dc:]).abs().max(), "server block of H")
        _put(c, "kappa", eig.abs().sum() / eig.abs().max(), "tr|H| / ||H||")
        _put(c, "kappa[client]", H[:dc, :dc].diagonal().abs().sum() / top_c, "client block")

    def _noise(self, c: Constants, batch: int) -> None:
        s2, dc, d = self.sigma2, self.d_c, self.d
        _put(c, "sigma2", s2, "E||xi||^2 per sample")
        _put(c, f"sigma2[batch={batch}]", s2 / batch, "per mini-batch")
        _put(c, "sigma2[batch]", s2 / batch, "per mini-batch")
        _put(c, "sigma_c2", s2 * dc / d, "client coordinates of xi")
        _put(c, "sigma_s2", s2 * (d - dc) / d, "server coordinates of xi")
        if self.noise == "rademacher":
            _put(c, "sigma_c2[max]", s2 * dc / d, "||xi_c||^2 for every sample (Rademacher)")
            _put(c, "sigma_s2[max]", s2 * (d - dc) / d, "||xi_s||^2 for every sample (Rademacher)")

    def _heterogeneity(self, c: Constants, H: Tensor) -> None:
        b = self.b.double().cpu()
        dev = (b - b.mean(0)) @ H  # grad f_m - grad f = -H (b_m - bbar), the same at every x
        per = dev.pow(2).sum(1)
        _put(c, "eps2", per.max(), "max over clients of ||H (b_m - bbar)||^2")
        _put(c, "eps2[mean]", per.mean(), "mean over clients")
        _put(c, "eps2[mean,client]", dev[:, : self.d_c].pow(2).sum(1).mean(), "client part, mean over clients")
        _put(c, "eps2[mean,server]", dev[:, self.d_c :].pow(2).sum(1).mean(), "server part, mean over clients")
        _put(c, "B2", 1.0, "(1/M) sum ||grad f_m||^2 = ||grad f||^2 + eps2[mean]")
        _put(c, "G2", per.mean(), "(1/M) sum ||grad f_m||^2 = ||grad f||^2 + eps2[mean]")

    def describe(self) -> dict[str, Any]:
        """The name and sizes with :meth:`to_dict`, which reproduces the problem exactly."""
        return {"kind": "quadratic", "name": self.name, "d": self.d, "d_c": self.d_c, "M": self.M, **self.to_dict()}


def _put(c: Constants, key: str, value: Any, how: str) -> None:
    c.set(key, Estimate(float(value), method=f"exact ({how})"))
