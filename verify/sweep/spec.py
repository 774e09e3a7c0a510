"""A sweep declared once: the configurations to run, what to record and where results go.

A sweep file (TOML, YAML, JSON, or Python defining ``SWEEP``) has up to four parts::

    [sweep]                      # name, kind ("train" or "verify"), out, record, series, num_cpus, num_gpus
    [base]                       # parameters every configuration shares
    [grid]                       # name = [values]: the cartesian product (the last name varies fastest)
    [[configs]]                  # an explicit list; each is combined with every grid point

or, for a trend check of ``sfltheory verify`` run as a sweep, ``trend = "tau_sweep"`` in ``[sweep]`` and the
check's settings in ``[settings]``. Every configuration is made canonical (integral floats become integers, keys
sorted) and named by a hash of itself, its kind, the series it records and the package version
(:func:`config_key`), so a changed configuration, or a new version of the code, never reuses a stale result.

Nothing here imports torch: a sweep can be read, expanded and listed anywhere.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sfltheory
from sfltheory import datafiles
from sfltheory.errors import ParameterError

SWEEP_FORMAT = "sfltheory.sweep/1"
RESULT_FORMAT = "sfltheory.sweep-result/1"
KINDS = ("train", "verify")
TRENDS = ("tau_sweep", "cut_sweep")
SWEEP_KEYS = ("name", "kind", "out", "record", "series", "num_cpus", "num_gpus", "trend", "description")
TOP_KEYS = ("sweep", "base", "grid", "configs", "settings")
# What a train configuration records in the table by default: the last record of the run (t = T unless it diverged)
TRAIN_RECORD = ("run_status", "t", "gradnorm2", "gradnorm2_avg", "gradnorm2_min", "loss", "test_acc", "sim_time",
                "bytes_up", "bytes_down", "wall_time")  # fmt: skip
# What a verify configuration records: the verdict and numbers of its admissible leg, and of the practical one
VERIFY_RECORD = ("verdict", "step", "applies", "tightness", "decay_measured", "decay_predicted", "first_violation",
                 "practical_verdict", "practical_step", "practical_tightness")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Config:
    """One configuration of a sweep: its kind, canonical parameters, the series it records and its key."""

    kind: str
    params: dict[str, Any]
    series: tuple[str, ...] = ()
    key: str = ""

    def label(self, varying: Sequence[str] | None = None) -> str:
        """``name=value`` of the parameters in ``varying`` (all when None), for progress lines and listings."""
        names = list(self.params) if varying is None else [k for k in varying if k in self.params]
        return " ".join(f"{k}={_short(self.params[k])}" for k in names)


@dataclass(frozen=True, kw_only=True)
class Sweep:
    """A declared sweep. ``configs`` and ``grid`` combine as configs x grid, each merged onto ``base`` (later wins;
    a value of None removes a key). ``record``: the scalar columns of the table (default per kind); ``series``: whole
    recorded series to keep per configuration (train); ``num_cpus``/``num_gpus``: what one configuration needs
    (Ray schedules by them; fractional GPUs share one device); ``trend``: build the configurations of that trend
    check of ``sfltheory verify`` (with ``settings``) instead."""

    name: str
    kind: str = "train"
    base: Mapping[str, Any] = field(default_factory=dict)
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    configs: Sequence[Mapping[str, Any]] = ()
    record: tuple[str, ...] = ()
    series: tuple[str, ...] = ()
    out: Path | None = None
    num_cpus: float = 1.0
    num_gpus: float = 0.0
    trend: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]+", self.name):
            raise ParameterError("sweep.name", f"must be letters, digits, _ . + - (got {self.name!r})")
        if self.kind not in KINDS:
            raise ParameterError("sweep.kind", f"must be one of {', '.join(KINDS)} (got {self.kind!r})")
        for name, v in (("sweep.num_cpus", self.num_cpus), ("sweep.num_gpus", self.num_gpus)):
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise ParameterError(name, f"must be a finite number >= 0 (got {v!r})")
        if self.num_cpus <= 0 and self.num_gpus <= 0:
            raise ParameterError("sweep.num_cpus", "a configuration needs some CPU or GPU (both are 0)")
        if self.trend is not None:
            if self.trend not in TRENDS:
                raise ParameterError("sweep.trend", f"must be one of {', '.join(TRENDS)} (got {self.trend!r})")
            for part in ("base", "grid", "configs"):
                if getattr(self, part):
                    raise ParameterError(part, f"a trend sweep builds its own configurations: no [{part}]")
        elif self.settings:
            raise ParameterError("settings", "only a trend sweep (trend = ...) takes [settings]")
        for name, names in (("sweep.record", self.record), ("sweep.series", self.series)):
            if not all(isinstance(x, str) and x for x in names):
                raise ParameterError(name, f"must be a list of names (got {list(names)!r})")

    @property
    def columns(self) -> tuple[str, ...]:
        """The recorded columns of the table."""
        if self.record:
            return self.record
        return VERIFY_RECORD if self.kind == "verify" else TRAIN_RECORD

    def expand(self) -> list[Config]:
        """Every configuration, canonical and keyed, duplicates (the same key) dropped."""
        if self.trend is not None:
            raise ParameterError("sweep.trend", "a trend sweep's configurations come from its check when it runs")
        base = _canonical_dict(self.base, "base")
        grid_names = list(self.grid)
        values = []
        for name in grid_names:
            vs = self.grid[name]
            if isinstance(vs, str | bytes) or not isinstance(vs, Sequence) or len(vs) == 0:
                raise ParameterError(f"grid.{name}", f"must be a non-empty list of values (got {vs!r})")
            values.append([canonical(v, f"grid.{name}") for v in vs])
        entries = [_canonical_dict(c, f"configs[{i}]") for i, c in enumerate(self.configs)] or [{}]
        out: list[Config] = []
        seen: set[str] = set()
        for entry in entries:
            for point in itertools.product(*values):
                merged = {**base, **entry, **dict(zip(grid_names, point, strict=True))}
                c = make_config(self.kind, merged, self.series)
                if c.key not in seen:
                    seen.add(c.key)
                    out.append(c)
        return out

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], *, where: Path | None = None, default_name: str = "sweep") -> Sweep:
        """A sweep from the parsed file (``where``: the file's folder, against which ``out`` is resolved)."""
        if not isinstance(raw, Mapping):
            raise ParameterError("FILE", f"a sweep is a table of sections (got {type(raw).__name__})")
        for k in raw:
            if k not in TOP_KEYS:
                raise ParameterError(str(k), f"unknown section (known: {', '.join(TOP_KEYS)})")
        head = raw.get("sweep", {})
        if not isinstance(head, Mapping):
            raise ParameterError("sweep", f"must be a table (got {head!r})")
        for k in head:
            if k not in SWEEP_KEYS:
                raise ParameterError(f"sweep.{k}", f"unknown setting (known: {', '.join(SWEEP_KEYS)})")
        for part in ("base", "grid", "settings"):
            if not isinstance(raw.get(part, {}), Mapping):
                raise ParameterError(part, f"must be a table of name = value (got {raw[part]!r})")
        configs = raw.get("configs", [])
        if isinstance(configs, Mapping) or not isinstance(configs, Sequence) or isinstance(configs, str):
            raise ParameterError("configs", "must be a list of tables ([[configs]] in TOML)")
        for i, c in enumerate(configs):
            if not isinstance(c, Mapping):
                raise ParameterError(f"configs[{i}]", f"must be a table of name = value (got {c!r})")
        out = head.get("out")
        if out is not None and not isinstance(out, str | Path):
            raise ParameterError("sweep.out", f"must be a folder (got {out!r})")
        out_path = None if out is None else Path(os.path.normpath(where / out if where is not None else Path(out)))
        return cls(
            name=head.get("name", default_name), kind=head.get("kind", "train"), base=dict(raw.get("base", {})),
            grid=dict(raw.get("grid", {})), configs=list(configs), record=_names(head.get("record", ()), "record"),
            series=_names(head.get("series", ()), "series"), out=out_path, num_cpus=head.get("num_cpus", 1.0),
            num_gpus=head.get("num_gpus", 0.0), trend=head.get("trend"), settings=dict(raw.get("settings", {})),
            description=str(head.get("description", "")),
        )  # fmt: skip


def varying(configs: Sequence[Config]) -> list[str]:
    """The parameter names whose value differs between configurations, in order of first appearance."""
    names = list(dict.fromkeys(k for c in configs for k in c.params))
    return [k for k in names if len({json.dumps(c.params.get(k), sort_keys=True) for c in configs}) > 1]


def make_config(kind: str, params: Mapping[str, Any], series: Sequence[str] = ()) -> Config:
    """A canonical, keyed configuration (``kind`` in a configuration's own parameters wins)."""
    p = _canonical_dict(params, "config")
    k = p.pop("kind", kind)
    if k not in KINDS:
        raise ParameterError("kind", f"must be one of {', '.join(KINDS)} (got {k!r})")
    need = "algorithm" if k == "train" else "result"
    if not isinstance(p.get(need), str):
        raise ParameterError(need, f"every {k} configuration names its {need} (missing in {_short(p)})")
    s = tuple(sorted(set(series))) if k == "train" else ()
    return Config(kind=k, params=p, series=s, key=config_key(k, p, s))


def config_key(kind: str, params: Mapping[str, Any], series: Sequence[str] = ()) -> str:
    """The name of a configuration's result: a hash of its canonical form, its kind, its series and the package
    version (a new version recomputes: its algorithms or defaults may have changed)."""

    blob = {
        "format": RESULT_FORMAT,
        "version": sfltheory.__version__,
        "kind": kind,
        "params": params,
        "series": list(series),
    }
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def canonical(v: Any, where: str) -> Any:
    """A parameter value in canonical form: integral floats as integers, finite numbers only, lists of values."""
    if v is None or isinstance(v, bool | str):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ParameterError(where, f"must be a finite number (got {v!r})")
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if isinstance(v, Sequence) and not isinstance(v, bytes):
        return [canonical(x, where) for x in v]
    if hasattr(v, "item") and callable(v.item):  # a NumPy scalar
        return canonical(v.item(), where)
    raise ParameterError(where, f"must be a number, string, boolean or list of them (got {v!r})")


def _canonical_dict(d: Mapping[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(d, Mapping):
        raise ParameterError(where, f"must be a table of name = value (got {d!r})")
    out = {}
    for k, v in d.items():
        if not isinstance(k, str) or not k:
            raise ParameterError(where, f"parameter names are strings (got {k!r})")
        out[k] = canonical(v, k if where == "config" else f"{where}.{k}")
    return {k: v for k, v in sorted(out.items()) if v is not None}


def _names(v: Any, what: str) -> tuple[str, ...]:
    if isinstance(v, str):
        return tuple(x.strip() for x in v.split(",") if x.strip())
    if not isinstance(v, Sequence) or not all(isinstance(x, str) for x in v):
        raise ParameterError(f"sweep.{what}", f"must be a list of names (got {v!r})")
    return tuple(v)


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, list):
        return ",".join(_short(x) for x in v)
    if isinstance(v, dict):
        return " ".join(f"{k}={_short(x)}" for k, x in v.items())
    return str(v)


# --- reading a sweep file ----------------------------------------------------------------------------------------


def load(path: str | Path) -> Sweep:
    """Read a sweep file: ``.toml``, ``.yaml``/``.yml``, ``.json``, or ``.py`` defining ``SWEEP`` (a dict in the
    file's layout, or a :class:`Sweep`). Any problem is one line naming what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise ParameterError("FILE", f"no sweep file {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix == ".py":
        import runpy

        try:
            ns = runpy.run_path(str(p))
        except Exception as e:  # the user's code: report it in one line
            raise ParameterError("FILE", f"{p.name} raised {type(e).__name__}: {_one_line(str(e))}") from None
        sw = ns.get("SWEEP")
        if isinstance(sw, Sweep):
            return sw if sw.out is not None else _with_out(sw, p)
        if not isinstance(sw, Mapping):
            raise ParameterError("SWEEP", f"{p.name} must define SWEEP: a dict or a verify.sweep.Sweep")
        raw: Any = sw
    else:
        text = p.read_text(encoding="utf-8")
        raw = _parse(text, suffix, p.name)
    sweep = Sweep.from_dict(raw, where=p.parent, default_name=_default_name(p))
    return sweep if sweep.out is not None else _with_out(sweep, p)


def _with_out(sweep: Sweep, p: Path) -> Sweep:
    import dataclasses

    return dataclasses.replace(sweep, out=p.parent / f"{p.stem}.results")


def _default_name(p: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", p.stem) or "sweep"


def _parse(text: str, suffix: str, name: str) -> Any:
    if suffix not in datafiles.SUFFIXES:
        raise ParameterError("FILE", f"a sweep file is .toml, .yaml, .yml, .json or .py (got {name!r})")
    try:
        return datafiles.parse(text, suffix)
    except datafiles.MissingReader as e:
        raise ParameterError("FILE", str(e)) from None
    except datafiles.DataFileError as e:
        raise ParameterError("FILE", f"{name} is {e}") from None


def _one_line(s: str) -> str:
    return " ".join(s.split())


__all__ = [
    "KINDS",
    "RESULT_FORMAT",
    "SWEEP_FORMAT",
    "TRAIN_RECORD",
    "TRENDS",
    "VERIFY_RECORD",
    "Config",
    "Sweep",
    "canonical",
    "config_key",
    "load",
    "make_config",
    "varying",
]
