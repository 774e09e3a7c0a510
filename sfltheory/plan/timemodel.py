"""Wall-clock time of a round with stragglers, as a function of the server steps tau and the cut.

The model (all times in seconds, sizes in bytes):

* client ``m`` spends ``c_m * f`` computing, where ``c_m`` is its time for one round of work on the *whole*
  model and ``f`` the share of the per-sample work on the client side of the cut (FLOPs when known, else
  parameters: :attr:`~sfltheory.plan.cuts.CutPoint.client_fraction`), then uploads ``messages * batch *
  activation * bytes_per_value`` bytes at ``bandwidth_m`` bytes/s;
* the round waits for the slowest client: ``t_straggler = E[max_m (c_m f + upload_m)]``; client times
  are given per client, or drawn i.i.d. from a ``scipy.stats`` distribution (the expectation of the maximum
  of ``M`` draws is integrated exactly, not sampled);
* the server makes ``tau`` steps of ``s (1 - f)`` each (``s``: one server step on the whole model);
* ``overlap=True`` (MU-SplitFed, Sec. 4.2): the server steps run while the stragglers finish, so
  ``t_round = max(t_straggler, tau t_server)``; ``overlap=False``: ``t_round = t_straggler + tau t_server``.

MU-SplitFed's eq. (12) ``tau = t_straggler / t_server`` (encoded with the paper as ``mu_splitfed/eq12``,
``sfltheory/papers/mu_splitfed/eq12.py``; ``tests/sfltheory/plan/test_timemodel.py`` keeps the two equal) is the
tau at which the two overlapped paths take equally long: the largest tau that costs no time per round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ParameterError


def _positive(name: str, v: float, allow_zero: bool = False) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ParameterError(name, f"must be a number (got {v!r})") from None
    if not math.isfinite(f) or f < 0 or (f == 0 and not allow_zero):
        raise ParameterError(name, f"must be a finite number {'>= 0' if allow_zero else '> 0'} (got {v!r})")
    return f


def _finite(name: str, v: Any, what: str) -> Any:
    """``v`` if every value is finite; otherwise the parameter that made ``what`` overflow, named."""
    if np.all(np.isfinite(v)):
        return v
    raise ParameterError(name, f"{what} overflows the float range at this value (> 1.8e308 s): give a realistic value")


def expected_max(dist: Any, n: int) -> float:
    r"""The expected maximum of ``n`` i.i.d. draws of ``dist`` (CDF :math:`F`), integrated numerically:
    :math:`E[\max_{i \le n} X_i] = \int_0^\infty (1 - F(x)^n)\,dx - \int_{-\infty}^0 F(x)^n\,dx`."""
    from scipy import integrate  # imported on use: scipy.stats/integrate cost ~0.4 s at import

    if n < 1:
        raise ParameterError("M", f"must be an integer >= 1 (got {n})")
    lo, hi = dist.support()
    start = max(lo, 0.0)  # below the support 1 - F^n = 1: that stretch contributes its length
    pos, _ = integrate.quad(lambda x: 1.0 - dist.cdf(x) ** n, start, hi, limit=200)
    pos += start
    neg = 0.0
    if lo < 0:
        neg, _ = integrate.quad(lambda x: dist.cdf(x) ** n, lo, min(hi, 0.0), limit=200)
    return float(pos - neg)


def parse_distribution(spec: str) -> Any:
    """``name:k=v,k=v`` -> a frozen ``scipy.stats`` distribution, e.g. ``expon:loc=1,scale=0.5``."""
    from scipy import stats

    name, _, args = spec.partition(":")
    dist = getattr(stats, name, None)
    if not isinstance(dist, stats.rv_continuous):
        raise ParameterError("spec", f"'{name}' is not a continuous scipy.stats distribution")
    kw: dict[str, float] = {}
    for item in filter(None, args.split(",")):
        k, sep, v = item.partition("=")
        if not sep:
            raise ParameterError("spec", f"expected key=value after '{name}:' (got {item!r})")
        try:
            kw[k] = float(v)
        except ValueError:
            raise ParameterError("spec", f"{k} must be a number (got {v!r})") from None
    try:
        frozen = dist(**kw)
        frozen.cdf(1.0)
        if not np.isfinite(frozen.mean()):
            raise ValueError("its mean is not finite")
    except (TypeError, ValueError) as e:
        raise ParameterError("spec", f"{spec}: {e}") from None
    if frozen.support()[0] < 0:
        raise ParameterError("spec", f"{spec} can take negative times (support starts at {frozen.support()[0]})")
    return frozen


@dataclass(frozen=True)
class TimeModel:
    """Per-round wall-clock time with stragglers (see the module docstring for the model)."""

    server_step: float  # seconds for one server step on the whole model
    client_time: tuple[float, ...] = ()  # seconds per round on the whole model, one per client
    client_dist: Any = None  # or: a frozen scipy.stats distribution of that time ...
    n_clients: int | None = None  # ... and the number of clients drawn from it
    bandwidth: float | tuple[float, ...] | None = None  # bytes/s per client link (None: free links)
    batch: int = 1  # samples per client per round whose activations cross the cut
    messages: int = 1  # activation uploads per sample per round (MU-SplitFed: 2P + 1 forward passes)
    bytes_per_value: int = 4  # float32
    overlap: bool = True
    _straggler_compute: float = field(init=False, repr=False, default=0.0)

    def __post_init__(self) -> None:
        _positive("server_step", self.server_step)
        if self.client_dist is None and not self.client_time:
            raise ParameterError("client_time", "give the client times (one per client) or a distribution")
        if self.client_dist is not None and self.client_time:
            raise ParameterError("client_time", "give either per-client times or a distribution, not both")
        for i, t in enumerate(self.client_time):
            _positive(f"client_time[{i}]", t, allow_zero=True)
        if self.client_dist is not None and (self.n_clients is None or self.n_clients < 1):
            raise ParameterError("M", "a client-time distribution needs the number of clients M >= 1")
        for name in ("batch", "messages", "bytes_per_value"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ParameterError(name, f"must be an integer >= 1 (got {v!r})")
        bw = self.bandwidth
        if isinstance(bw, tuple):
            if self.client_dist is not None:
                raise ParameterError("bandwidth", "per-client bandwidths need per-client times")
            if len(bw) != len(self.client_time):
                raise ParameterError(
                    "bandwidth", f"one per client: got {len(bw)} for {len(self.client_time)} client times"
                )
            for i, b in enumerate(bw):
                _positive(f"bandwidth[{i}]", b)
        elif bw is not None:
            _positive("bandwidth", bw)
        if self.client_dist is not None:
            assert self.n_clients is not None
            object.__setattr__(self, "_straggler_compute", expected_max(self.client_dist, self.n_clients))

    @property
    def clients(self) -> int:
        """The number of clients M: one per client time given, else ``n_clients``."""
        return len(self.client_time) if self.client_time else int(self.n_clients or 0)

    def upload_bytes(self, activation: Any) -> Any:
        """Bytes one client uploads per round at a cut with ``activation`` values per sample."""
        return self.messages * self.batch * np.asarray(activation, dtype=float) * self.bytes_per_value

    def straggler(self, fraction: Any, activation: Any) -> Any:
        """Expected time until the slowest client's activations have arrived (broadcasts over cuts)."""
        f = np.asarray(fraction, dtype=float)
        q = np.asarray(activation, dtype=float)
        if self.bandwidth is not None and np.any(np.isnan(q)):
            raise ParameterError("activation", "the time model needs the activation size at every cut")
        size = self.upload_bytes(np.nan_to_num(q))
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if self.client_dist is not None:
                comm = 0.0 if self.bandwidth is None else size / float(self.bandwidth)  # type: ignore[arg-type]
                out = _finite("bandwidth", comm, "the upload time") + self._straggler_compute * f
                return _finite("client_dist", out, "the straggler's time")
            c = np.asarray(self.client_time, dtype=float)
            if self.bandwidth is None:
                comm_m: Any = 0.0
            else:
                bw = np.asarray(self.bandwidth, dtype=float) * np.ones_like(c)
                comm_m = _finite("bandwidth", size[..., None] / bw, "the upload time")
            return _finite("client_time", np.max(c * f[..., None] + comm_m, axis=-1), "the straggler's time")

    def server(self, fraction: Any) -> Any:
        """Time of one server step at the cut."""
        share = 1.0 - np.asarray(fraction, dtype=float)
        out = self.server_step * share
        if np.any((out == 0) & (share > 0)):  # a positive time flushed to 0: eq. (12)'s tau would read as inf
            raise ParameterError(
                "server_step", f"{self.server_step:g} s is too small: the server's time at a cut underflows to 0"
            )
        return out

    def round_time(self, tau: Any, fraction: Any, activation: Any) -> Any:
        r"""Seconds per round with ``tau`` server steps at a cut (its client share ``fraction`` and ``activation``):
        :math:`\max(t_{straggler}, \tau t_{server})` with ``overlap``, else their sum; broadcasts over cuts and
        values, and a time that overflows is refused."""
        strag = self.straggler(fraction, activation)
        with np.errstate(over="ignore"):
            srv = _finite("server_step", np.asarray(tau, dtype=float) * self.server(fraction), "the server's time")
            return _finite("client_time", np.maximum(strag, srv) if self.overlap else strag + srv, "a round's time")

    def eq12_tau(self, fraction: Any, activation: Any) -> Any:
        """MU-SplitFed eq. (12): tau = t_straggler / t_server at the cut (a real number)."""
        srv = self.server(fraction)
        with np.errstate(divide="ignore", over="ignore"):
            out = self.straggler(fraction, activation) / srv
        if np.any(np.isinf(out) & (np.asarray(srv) > 0)):
            raise ParameterError(
                "server_step",
                f"{self.server_step:g} s is too small: eq. (12)'s tau = t_straggler/t_server overflows the float range",
            )
        return out

    def describe(self) -> dict[str, Any]:
        """The model's settings as JSON-ready data (times in s, bandwidth in bytes/s), as a plan records them."""
        clients: Any = (
            list(self.client_time) if self.client_time else f"{self.client_dist.dist.name}{self.client_dist.kwds}"
        )
        return {
            "server_step_s": self.server_step,
            "client_time_s": clients,
            "clients": self.clients,
            "bandwidth_Bps": list(self.bandwidth) if isinstance(self.bandwidth, tuple) else self.bandwidth,
            "batch": self.batch,
            "messages": self.messages,
            "bytes_per_value": self.bytes_per_value,
            "overlap": self.overlap,
        }
