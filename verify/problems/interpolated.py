r"""A worst case as a problem the trainer runs: each client's objective an interpolant of a PEP solution.

Client m's objective is the L-smooth interpolant :math:`f_m` of :mod:`verify.pep.interpolant` (Taylor, Hendrickx
and Glineur, Math. Program. 161, 2017, Thm. 3.10 with :math:`\mu = -L`):

.. math:: f_m(x) = \min_{\lambda\in\Delta_n}\Big[a_m^\top\lambda + \tfrac1{4L}\|2Lx - W_m\lambda\|^2\Big]
          - \tfrac L2\|x\|^2,\qquad \nabla f_m(x) = Lx - W_m\lambda^\star(x),

deterministic (:math:`\sigma^2 = 0`: every sample is the full gradient; a client holds one sample, so a
mini-batch is that sample whatever its size). The split is the quadratic's (:mod:`verify.problems.quadratic`):
with ``split="first"`` the first coordinate of :math:`x\in\mathbb R^d` is the client's and its smashed data is
that coordinate itself, the other d - 1 the server's (d >= 2); with ``split="dummy"`` (the default where d < 2,
and what sfl_aux's server-side worst case needs: its iterate is the server model alone) a client coordinate held
at 0, which no :math:`f_m` depends on, is put before the d coordinates, all the server's.

The oracle evaluates :math:`f_m` in numpy (float64) through a custom :class:`torch.autograd.Function` (forward: the
values; backward: the saved gradients times the incoming one), written in the ``setup_context`` form with its own
``vmap`` rule (the samples of every client flattened into one call), so it runs under ``torch.func.grad`` and
``vmap``: the per-client (``eager``) paths and the batched ones alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from sfltheory.constants import Constants, Estimate
from sfltheory.datafiles import json_file
from sfltheory.errors import ParameterError
from verify.ops.batch import Batch
from verify.ops.tree import Params
from verify.pep.interpolant import Interpolant, average_value

from .base import FullGradient, Point, Problem

__all__ = ["SPLITS", "InterpolatedProblem"]

SPLITS = ("first", "dummy")


class _Oracle(torch.autograd.Function):
    """Per-sample values of the clients' interpolants: ``apply(z, idx, fs)`` with ``z`` (n x D) the points (the
    dummy client coordinate included, dropped by ``off``), ``idx`` (n) each sample's client; returns the values and
    the gradients (the latter not differentiable)."""

    @staticmethod
    def forward(z: Tensor, idx: Tensor, fs: Sequence[Interpolant], off: int) -> tuple[Tensor, Tensor]:
        zn = z.detach().to("cpu", torch.float64).numpy()
        ms = np.rint(idx.detach().to("cpu", torch.float64).numpy()).astype(int)
        vals = np.zeros(zn.shape[0])
        grads = np.zeros_like(zn)
        for i, (x, m) in enumerate(zip(zn, ms, strict=True)):
            vals[i], grads[i, off:] = fs[m].evaluate(x[off:])
        return (torch.as_tensor(vals, device=z.device, dtype=z.dtype),
                torch.as_tensor(grads, device=z.device, dtype=z.dtype))  # fmt: skip

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Tensor, Tensor]) -> None:
        ctx.mark_non_differentiable(output[1])
        ctx.save_for_backward(output[1])

    @staticmethod
    def backward(ctx: Any, gv: Tensor, _gg: Tensor) -> tuple[Tensor, None, None, None]:
        (grads,) = ctx.saved_tensors
        return gv.unsqueeze(-1) * grads, None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], z: Tensor, idx: Tensor, fs: Any, off: int) -> Any:
        B = info.batch_size
        zd, xd = in_dims[0], in_dims[1]
        zb = z.movedim(zd, 0) if zd is not None else z.expand(B, *z.shape)
        ib = idx.movedim(xd, 0) if xd is not None else idx.expand(B, *idx.shape)
        lead = zb.shape[:-1]
        v, g = _Oracle.apply(zb.reshape(-1, zb.shape[-1]), ib.reshape(-1), fs, off)
        return (v.reshape(lead), g.reshape(*lead, zb.shape[-1])), (0, 0)


class InterpolatedProblem(Problem):
    """M clients, client m's objective the :class:`~verify.pep.interpolant.Interpolant` ``fs[m]`` (all of one
    dimension d and one L), deterministic, starting at ``x0``; see the module docstring for the split."""

    def __init__(
        self,
        fs: Sequence[Interpolant],
        x0: Any,
        *,
        split: str | None = None,
        device: str | torch.device = "cpu",
        name: str = "interpolated",
    ) -> None:
        if not fs:
            raise ParameterError("clients", "an interpolated problem needs at least one client")
        d, L = fs[0].d, fs[0].L
        if any(f.d != d for f in fs) or any(f.L != L for f in fs):
            raise ParameterError("clients", "every client's interpolant must have the same dimension and L")
        x = np.asarray(x0, dtype=np.float64).reshape(-1)
        if x.shape != (d,) or not np.isfinite(x).all():
            raise ParameterError("x0", f"must be a finite vector of length d = {d} (got shape {x.shape})")
        split = split if split is not None else ("first" if d >= 2 else "dummy")
        if split not in SPLITS:
            raise ParameterError("split", f"must be one of {', '.join(SPLITS)} (got {split!r})")
        if split == "first" and d < 2:
            raise ParameterError("split", "'first' needs d >= 2 (a client and a server coordinate): use 'dummy'")
        self.fs = tuple(fs)
        self.x0 = x
        self.d, self.L, self.split = d, float(L), split
        self.off = 1 if split == "dummy" else 0  # leading coordinates of z that the functions do not see
        self.D = d + self.off  # the trainer's dimension
        self.d_c = 1
        self.M = len(fs)
        self.name = name
        self.device = torch.device(device)
        self.dtype = torch.float64

    # -- the file format ---------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "interpolated", "L", "x0", "split", "clients": [{"X", "G", "f"}, ...]}`` in float64: what
        :meth:`from_dict` reads back."""
        return {"kind": "interpolated", "L": self.L, "x0": self.x0.tolist(), "split": self.split,
                "clients": [f.to_dict() for f in self.fs]}  # fmt: skip

    @classmethod
    def from_dict(cls, raw: Any, **kw: Any) -> InterpolatedProblem:
        """The problem a parsed :meth:`to_dict` object describes (a ``ParameterError`` naming ``problem.file``)."""
        if not isinstance(raw, dict) or raw.get("kind") != "interpolated":
            raise ParameterError("problem.file", 'must be a JSON object with "kind": "interpolated"')
        missing = [k for k in ("L", "x0", "clients") if k not in raw]
        if missing:
            raise ParameterError("problem.file", f"field '{missing[0]}' is missing")
        unknown = sorted(set(raw) - {"kind", "L", "x0", "split", "clients", "name"})
        if unknown:
            raise ParameterError("problem.file", f"unknown field '{unknown[0]}'")
        if not isinstance(raw["clients"], list):
            raise ParameterError("problem.file", "field 'clients' must be a list of {X, G, f} objects")
        fs = [Interpolant.from_dict(c, float(raw["L"])) for c in raw["clients"]]
        if "name" in raw:
            kw.setdefault("name", raw["name"])
        return cls(fs, raw["x0"], split=raw.get("split"), **kw)

    @classmethod
    def from_file(cls, path: str | Path, **kw: Any) -> InterpolatedProblem:
        """:meth:`from_dict` of a JSON file."""
        return cls.from_dict(json_file(path, "problem.file"), **kw)

    # -- the oracle --------------------------------------------------------------------------------------------

    def _full(self, x: np.ndarray) -> np.ndarray:
        """The trainer's coordinates of a point of the functions' space (the dummy coordinate 0 put first)."""
        return np.concatenate([np.zeros(self.off), x])

    def init(self) -> dict[str, Params]:
        """x^0 split: the client coordinate, the server's, and ``aux`` a copy of the server's (sfl_aux's head)."""
        z = torch.as_tensor(self._full(self.x0), dtype=self.dtype, device=self.device)
        return {"client": {"x": z[:1].clone()}, "server": {"x": z[1:].clone()}, "aux": {"x": z[1:].clone()}}

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        """The client coordinate itself, one row per sample (``x`` carries only the batch size)."""
        return pc["x"].expand(x.shape[0], 1) + 0 * x[:, :1]

    def server_loss(self, ps: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        r""":math:`f_m(z)` per sample, z the client coordinate ``h`` joined to the server's ``ps``; ``y`` holds
        each sample's client m."""
        z = torch.cat([h, ps["x"].expand(h.shape[0], self.D - 1)], 1)
        values, _ = _Oracle.apply(z, y[:, 0], self.fs, self.off)
        return values

    def aux_loss(self, pa: Mapping[str, Tensor], h: Tensor, y: Tensor) -> Tensor:
        """The same loss with the client's copy ``pa`` of the server coordinates (sfl_aux's head)."""
        return self.server_loss(pa, h, y)

    def sample(self, m: int, size: int, gen: torch.Generator) -> Batch:
        """Client m's one sample (deterministic: no noise to draw): inputs a zero column, target m, weight 1."""
        x = torch.zeros(1, 1, dtype=self.dtype, device=self.device)
        y = torch.full((1, 1), float(m), dtype=self.dtype, device=self.device)
        return Batch(x, y, torch.ones(1, dtype=self.dtype, device=self.device))

    def full_gradient(self, pc: Mapping[str, Tensor], ps: Mapping[str, Tensor]) -> FullGradient:
        r""":math:`f = \frac1M\sum_m f_m` and its gradient, in float64, by part."""
        z = torch.cat([pc["x"], ps["x"]]).detach().to("cpu", torch.float64).numpy()
        v, g = average_value(self.fs, z[self.off :])
        full = torch.as_tensor(self._full(g), dtype=self.dtype, device=self.device)
        return FullGradient(v, {"x": full[:1]}, {"x": full[1:]})

    @property
    def activation(self) -> int:
        """1: the smashed data is the client coordinate."""
        return 1

    @property
    def client_fraction(self) -> float:
        """``1 / D``, the client's share of the coordinates."""
        return 1.0 / self.D

    # -- constants ---------------------------------------------------------------------------------------------

    def infimum(self) -> float:
        r""":math:`\inf f` for one client (exact: :meth:`Interpolant.infimum`); refused for several, where the
        infimum of the average of the interpolants is not computed exactly."""
        if self.M != 1:
            raise ParameterError("F", f"inf f of the average of {self.M} interpolants is not computed exactly")
        return self.fs[0].infimum()

    def F(self, at: np.ndarray | None = None) -> float:
        """:math:`f(x) - \\inf f` at ``at`` (default x^0), for one client (see :meth:`infimum`)."""
        inf = self.infimum()
        return average_value(self.fs, self.x0 if at is None else at)[0] - inf

    def constants(self, *, at: Point | None = None, needed: Iterable[str] | None = None, batch: int = 1) -> Constants:
        """``L`` (every f_m is L-smooth by construction), ``sigma2`` = 0, the sizes, ``gradnorm2_f`` at ``at``
        (default x^0) and, for one client only, ``F`` (exact, :meth:`F`). ``needed`` and ``batch`` are ignored."""
        c = Constants(meta={"problem": "interpolated", "exact": True, "batch": batch})
        x = self.x0 if at is None else torch.cat([at["client"]["x"], at["server"]["x"]]).double().cpu().numpy()
        x = x if at is None else x[self.off :]
        put = lambda key, value, how: c.set(key, Estimate(float(value), method=f"exact ({how})"))  # noqa: E731
        put("L", self.L, "the interpolants are L-smooth by construction")
        put("L[clients]", self.L, "every f_m is L-smooth")
        for key in ("sigma2", "sigma_c2", "sigma_s2"):
            put(key, 0.0, "deterministic")
        put("d", self.D, "dimension")
        put("d_c", 1, "client coordinates")
        put("d_s", self.D - 1, "server coordinates")
        g = average_value(self.fs, x)[1]
        put("gradnorm2_f", g @ g, "||grad f||^2")
        if self.M == 1:
            put("F", self.F(x), "f - inf f, inf f = min_i f_i - ||g_i||^2/(2L)")
        return c

    def describe(self) -> dict[str, Any]:
        """The name and sizes with :meth:`to_dict`, which reproduces the problem exactly."""
        return {"name": self.name, "d": self.D, "d_c": 1, "M": self.M, **self.to_dict()}
