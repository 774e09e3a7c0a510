"""The names of measured constants, shared by both halves.

``verify`` writes each measured constant under a key -- a canonical name (:mod:`sfltheory.vocabulary`),
optionally with variants in brackets: ``sigma_c2[max]``, ``L[clients]``, ``eps2[mean,server]``,
``zo_mse[client]``. An assumption (:class:`sfltheory.assumptions.Assumption`) says which key serves each
constant it introduces (its ``picks``). Both sides build keys with :func:`key` from the constants below, so a
renamed variant breaks at import, not silently at a lookup.

Variants
--------
``MAX``       the supremum over samples (an assumption stated "for every sample")
``POOLED``    the mean over all samples of all clients
``BATCH``     a mini-batch gradient rather than a one-sample one
``MEAN``      the mean over clients rather than the worst client
``CLIENTS``   the worst client's own objective f_m
``CLIENT``    the client-side block of the parameters (``SERVER``: the server side)
``ALL``       the whole model (a zeroth-order estimate over every parameter)
``GRADIENT``  G2 read as the mean squared gradient norm (not fitted)
``MIN``       the most negative Hessian eigenvalue
``ZERO``      B2 fitted with G2 = 0
``SECANT``    L as the secant ||grad f(x_t+1) - grad f(x_t)|| / ||x_t+1 - x_t|| along a run
quantiles     ``q50``, ``q90`` ... of a constant tracked along a run (:func:`quantile`)
"""

from __future__ import annotations

MAX = "max"
POOLED = "pooled"
BATCH = "batch"
MEAN = "mean"
CLIENTS = "clients"
CLIENT = "client"
SERVER = "server"
ALL = "all"
GRADIENT = "gradient"
MIN = "min"
ZERO = "zero"
SECANT = "secant"

VARIANTS: tuple[str, ...] = (MAX, POOLED, BATCH, MEAN, CLIENTS, CLIENT, SERVER, ALL, GRADIENT, MIN, ZERO, SECANT)

# measured names that are not canonical vocabulary parameters (read into one through a pick)
ZO_MSE = "zo_mse"  # mean squared error of the zeroth-order gradient estimator


def key(name: str, *variants: str) -> str:
    """``key("sigma_c2", MAX)`` -> ``sigma_c2[max]``; ``key("eps2", MEAN, SERVER)`` -> ``eps2[mean,server]``."""
    return f"{name}[{','.join(variants)}]" if variants else name


def with_variant(k: str, variant: str) -> str:
    """``sigma_c2`` + ``max`` -> ``sigma_c2[max]``; ``sigma2[aux]`` + ``max`` -> ``sigma2[aux,max]``."""
    return f"{k[:-1]},{variant}]" if k.endswith("]") else f"{k}[{variant}]"


def either(*keys: str) -> str:
    """Several keys whose maximum serves one constant: ``either(key("L", CLIENT), key("L", SERVER))``."""
    return "|".join(keys)


def quantile(q: float) -> str:
    """The variant of a tracked constant's ``q`` quantile: ``quantile(0.9)`` -> ``q90``."""
    return f"q{round(q * 100)}"


def split(k: str) -> tuple[str, tuple[str, ...]]:
    """``eps2[mean,server]`` -> ``("eps2", ("mean", "server"))``."""
    base, _, rest = k.partition("[")
    return base, tuple(v for v in rest.rstrip("]").split(",") if v)


def bounded_below(k: str) -> bool:
    """A key whose value bounds from below (``L[min]``, the most negative eigenvalue): over several measurements
    the worst case is their inf; for every other key it is their sup."""
    base, variants = split(k)
    return base == "L" and MIN in variants
