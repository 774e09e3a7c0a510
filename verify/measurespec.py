"""What ``sfltheory measure`` measures, as one typed value (a :mod:`verify.spec` spec of its own module: the
command's many estimator settings). Errors name ``measure.<field>``; :data:`verify.spec.FLAGS` maps each to its
flag. Imports no torch."""

from __future__ import annotations

from dataclasses import dataclass

from sfltheory.errors import ParameterError
from verify.spec import Keyed, device_name, integer, number, partition_scheme, text


@dataclass(frozen=True, kw_only=True)
class MeasureSpec(Keyed):
    """The constants of a model on data (``sfltheory measure``): at the initialisation (or ``state``), per part of
    the split after ``cut`` (or at each of ``cuts``: one record per cut), across ``clients`` partitioned by
    ``partition``; ``what`` the groups to measure (None: the default set), ``for_id`` a result whose assumptions
    pick what is measured; the estimators' settings
    (``probes``, ``tol``, ``lam``, ``P``, ``zo_form``, ``chunk``, ``fstar``); ``steps`` SGD steps measured every
    ``every`` (a trajectory, saved to and resumed from ``run_dir``); the device, precision, threads and seed."""

    model: str
    data: str
    input_shape: tuple[int, ...] | None = None
    cut: str | None = None
    cuts: tuple[str, ...] | None = None  # measure at each of these cuts (("all",): every cut), one record per cut
    state: str | None = None
    loss: str = "auto"
    what: tuple[str, ...] | None = None
    for_id: str | None = None
    clients: int | None = None
    partition: str = "iid"
    batch: int | None = None
    probes: int = 30
    tol: float = 1e-3
    fstar: float = 0.0
    lam: float | None = None
    P: int = 1
    zo_form: str = "spsa"
    steps: int = 0
    every: int = 50
    lr: float = 0.05
    train_batch: int = 32
    run_dir: str | None = None
    device: str = "auto"
    float64: bool = False
    chunk: int = 256
    threads: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        text("measure.model", self.model)
        text("measure.data", self.data)
        for name in ("clients", "batch", "threads"):
            if getattr(self, name) is not None:
                integer(f"measure.{name}", getattr(self, name), low=1)
        for name in ("probes", "P", "every", "train_batch", "chunk"):
            integer(f"measure.{name}", getattr(self, name), low=1)
        integer("measure.steps", self.steps, low=0)
        integer("measure.seed", self.seed, low=0)
        number("measure.tol", self.tol, positive=True)
        number("measure.lr", self.lr, positive=True)
        number("measure.fstar", self.fstar)
        if self.lam is not None:
            number("measure.lam", self.lam, positive=True)
        if self.zo_form not in ("spsa", "forward"):
            raise ParameterError("measure.zo_form", f"must be spsa or forward (got {self.zo_form!r})")
        device_name("measure.device", self.device)
        partition_scheme("measure.partition", self.partition)
        if self.cuts is not None:
            if self.cut is not None:
                raise ParameterError("measure.cuts", "measures every cut named; not with cut (give one of them)")
            if not self.cuts or any(not isinstance(c, str) or not c for c in self.cuts):
                raise ParameterError("measure.cuts", f"must be 'all' or a list of cut names (got {self.cuts!r})")
            if "all" in self.cuts and len(self.cuts) > 1:
                raise ParameterError("measure.cuts", "'all' or a list of cuts, not both")
            if self.run_dir is not None:
                raise ParameterError("measure.cuts", "one run directory holds one cut's run: measure cuts one by one")


__all__ = ["MeasureSpec"]
