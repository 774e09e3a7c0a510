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
from verify.spec import MAX_ROUNDS, CheckSpec, RunSpec, rounds

SWEEP_FORMAT = "sfltheory.sweep/1"
RESULT_FORMAT = "sfltheory.sweep-result/1"
KINDS = ("train", "verify")
TRENDS = ("tau_sweep", "cut_sweep")
SWEEP_KEYS = ("name", "kind", "out", "record", "series", "num_cpus", "num_gpus", "trend", "description")
TOP_KEYS = ("sweep", "base", "grid", "configs", "settings")
# What a train configuration records in the table by default: the last record of the run (t = T unless it diverged)
TRAIN_RECORD = ("run_status", "t", "gradnorm2", "gradnorm2_avg", "gradnorm2_min", "loss", "test_acc", "sim_time",
                "bytes_up", "bytes_down", "wall_time")  # fmt: skip
# the T of a configuration that gives none, per kind (the specs' own defaults: a dataclass default is a class
# attribute)
DEFAULT_T: dict[str, int] = {"train": RunSpec.T, "verify": CheckSpec.T}
# what a sweep may declare unless it says it means more (run_sweep's max_configs / max_rounds, sfltheory sweep's
# --max-configs / --max-rounds): 10^5 configurations already take ~100 s to check and ~100 MB to hold; 10^8 rounds
# are 10 of the largest runs a run allows (verify.spec.MAX_ROUNDS)
MAX_CONFIGS = 10**5
MAX_TOTAL_ROUNDS = 10**8
# how a sweep file declares its configurations (said when it declares none)
HOW_TO_DECLARE = (
    'add a [base] table with the algorithm (or, with kind = "verify", the result) and its parameters, then a [grid] '
    "of values to vary or [[configs]] entries (docs/guide/sweeps.md)"
)
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
    # where each parameter was declared in the sweep file ("[base]", "[grid]", "[[configs]] entry 2"): an error
    # about a parameter names its place; not part of the configuration's identity
    origin: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def label(self, varying: Sequence[str] | None = None) -> str:
        """``name=value`` of the parameters in ``varying`` (all when None), for progress lines and listings."""
        names = list(self.params) if varying is None else [k for k in varying if k in self.params]
        return " ".join(f"{k}={_short(self.params[k])}" for k in names)

    def where(self, name: str) -> str:
        """Where parameter ``name`` of this configuration was declared (the configuration itself when it was not
        declared: a rule about the configuration as a whole)."""
        place = self.origin.get(name)
        if place is None:
            return f"the configuration {self.label()}"
        if place == "[grid]":
            return f"[grid] {name} = {_short(self.params.get(name))}"
        return place


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
        """Every configuration, canonical and keyed, duplicates (the same key) dropped; each knows where its
        parameters were declared (:meth:`Config.where`), so an error about one names its place in the file."""
        if self.trend is not None:
            raise ParameterError("sweep.trend", "a trend sweep's configurations come from its check when it runs")
        if self.declares_nothing:
            raise ParameterError("base", f"the sweep declares no configuration: {HOW_TO_DECLARE}")
        base, grid_names, values, entries = self._parts()
        out: list[Config] = []
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            place = f"[[configs]] entry {i + 1}" if self.configs else "[base]"
            declared = {**dict.fromkeys(base, "[base]"), **dict.fromkeys(entry, place),
                        **dict.fromkeys(grid_names, "[grid]")}  # fmt: skip
            missing = " and ".join(dict.fromkeys(["[base]", place, *(["[grid]"] if grid_names else [])]))
            for point in itertools.product(*values):
                merged = {**base, **entry, **dict(zip(grid_names, point, strict=True))}
                c = make_config(self.kind, merged, self.series, origin=declared, missing_in=missing)
                if c.key not in seen:
                    seen.add(c.key)
                    out.append(c)
        return out

    @property
    def declares_nothing(self) -> bool:
        """Whether the sweep declares no configuration at all (an empty file)."""
        return self.trend is None and not (self.base or self.grid or self.configs)

    def size(self) -> tuple[int, int]:
        """``(configurations, rounds)``, computed without expanding the sweep: how many configurations it declares
        (duplicates included) and their rounds ``T`` summed (the default T of a kind where none is given). A T over
        :data:`verify.spec.MAX_ROUNDS` is refused here, naming where it was declared."""
        base, grid_names, values, entries = self._parts()
        points = math.prod(len(v) for v in values)
        total = 0
        for i, entry in enumerate(entries):
            merged = {**base, **entry}  # an entry's None removes the base's value: the default then
            default = DEFAULT_T.get(str(merged.get("kind", self.kind)), DEFAULT_T["train"])
            if "T" in grid_names:
                ts = values[grid_names.index("T")]
                total += points // len(ts) * sum(_rounds(t, default, "[grid]") for t in ts)
            else:
                place = f"[[configs]] entry {i + 1}" if "T" in entry else "[base]"
                total += points * _rounds(merged.get("T"), default, place)
        return len(entries) * points, total

    def check_size(self, *, max_configs: int = MAX_CONFIGS, max_rounds: int = MAX_TOTAL_ROUNDS) -> tuple[int, int]:
        """:meth:`size`, refused (one line, before anything is expanded or run) above ``max_configs``
        configurations or ``max_rounds`` rounds in all; the limits are arguments (``--max-configs``,
        ``--max-rounds`` of ``sfltheory sweep``) so a sweep that is meant to be big can say so."""
        n, total = self.size()
        part = "grid" if self.grid else "configs"
        if n > max_configs:
            raise ParameterError(part, f"declares {n:,} configurations, more than the limit {max_configs:,} "
                                 "(raise it with --max-configs N, or max_configs=N)")  # fmt: skip
        if total > max_rounds:
            raise ParameterError(part, f"runs {total:.3g} rounds in all ({n:,} configurations, T summed), more "
                                 f"than the limit {max_rounds:.3g} (raise it with --max-rounds N, or "
                                 "max_rounds=N)")  # fmt: skip
        return n, total

    def _parts(self) -> tuple[dict[str, Any], list[str], list[list[Any]], list[dict[str, Any]]]:
        """The canonical base, grid names, grid values and explicit entries ([{}] when there are none); a None in an
        entry or the grid is kept: it removes the base's value of that name."""
        base = _canonical_dict(self.base, "base")
        grid_names = list(self.grid)
        values = []
        for name in grid_names:
            vs = self.grid[name]
            if isinstance(vs, str | bytes) or not isinstance(vs, Sequence) or len(vs) == 0:
                raise ParameterError(f"grid.{name}", f"must be a non-empty list of values (got {vs!r})")
            values.append([canonical(v, f"grid.{name}") for v in vs])
        entries = [_canonical_dict(c, f"configs[{i}]", keep_none=True) for i, c in enumerate(self.configs)] or [{}]
        return base, grid_names, values, entries

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


def make_config(kind: str, params: Mapping[str, Any], series: Sequence[str] = (), *,
                origin: Mapping[str, str] | None = None, missing_in: str | None = None) -> Config:  # fmt: skip
    """A canonical, keyed configuration (``kind`` in a configuration's own parameters wins). ``origin``: where each
    parameter was declared; ``missing_in``: where a missing algorithm (or result) should have been."""
    p = _canonical_dict(params, "config")
    origin = dict(origin or {})
    k = p.pop("kind", kind)
    if k not in KINDS:
        where = f" ({origin['kind']})" if "kind" in origin else ""
        raise ParameterError("kind", f"must be one of {', '.join(KINDS)} (got {k!r}){where}")
    need = "algorithm" if k == "train" else "result"
    if not isinstance(p.get(need), str):
        got = f"got {p[need]!r}" if need in p else "missing"
        place = origin.get(need) if need in p else missing_in
        place = place or (f"the configuration {_short(p)}" if p else "an empty configuration")
        raise ParameterError(need, f"every {k} configuration names its {need} ({got} in {place})")
    s = tuple(sorted(set(series))) if k == "train" else ()
    return Config(kind=k, params=p, series=s, key=config_key(k, p, s), origin=origin)


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


def _canonical_dict(d: Mapping[str, Any], where: str, *, keep_none: bool = False) -> dict[str, Any]:
    if not isinstance(d, Mapping):
        raise ParameterError(where, f"must be a table of name = value (got {d!r})")
    out = {}
    for k, v in d.items():
        if not isinstance(k, str) or not k:
            raise ParameterError(where, f"parameter names are strings (got {k!r})")
        out[k] = canonical(v, k if where == "config" else f"{where}.{k}")
    return {k: v for k, v in sorted(out.items()) if keep_none or v is not None}


def _rounds(v: Any, default: int, place: str) -> int:
    """A configuration's T for :meth:`Sweep.size`: the default when absent; over the cap refused here (naming its
    place); a T that is not a number of rounds counts 1 (its configuration's check refuses it with its rule)."""
    if v is None:
        return default
    try:
        return rounds("T", v)
    except ParameterError as e:
        if isinstance(v, int | float) and not isinstance(v, bool) and v > MAX_ROUNDS:
            raise ParameterError("T", f"{e.rule} ({place})") from None
        return 1


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
    file's layout, or a :class:`Sweep`). Any problem is one line naming what is wrong: a file that is not text
    (its first byte that is not UTF-8), not valid in its format (its line and column), or that declares no
    configuration."""
    p = Path(path)
    if not p.is_file():
        raise ParameterError("FILE", f"no sweep file {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix != ".py" and suffix not in datafiles.SUFFIXES:
        raise ParameterError("FILE", f"a sweep file is .toml, .yaml, .yml, .json or .py (got {p.name!r})")
    text = read_text(p)
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
    else:  # an empty file (or an all-comment YAML one) declares nothing, in every format (JSON would call it invalid)
        raw = _parse(text, suffix, p) if text.strip() else {}
    if raw is None:
        raw = {}
    sweep = Sweep.from_dict(raw, where=p.parent, default_name=_default_name(p))
    if sweep.declares_nothing:
        raise ParameterError("FILE", f"{p} declares no configuration: {HOW_TO_DECLARE}")
    return sweep if sweep.out is not None else _with_out(sweep, p)


def read_text(p: Path) -> str:
    """A sweep file's text, or one line: it cannot be read, or it is not UTF-8 text (the first bad byte)."""
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ParameterError("FILE", f"cannot read {p}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ParameterError("FILE", f"{p} is not a text file: byte 0x{data[e.start]:02x} at offset {e.start} is "
                             "not UTF-8") from None  # fmt: skip


def _with_out(sweep: Sweep, p: Path) -> Sweep:
    import dataclasses

    return dataclasses.replace(sweep, out=p.parent / f"{p.stem}.results")


def _default_name(p: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", p.stem) or "sweep"


def _parse(text: str, suffix: str, name: Path) -> Any:
    try:
        return datafiles.parse(text, suffix)
    except datafiles.MissingReader as e:
        raise ParameterError("FILE", str(e)) from None
    except datafiles.DataFileError as e:
        raise ParameterError("FILE", f"{name} is {_located(e)}") from None


def _located(e: datafiles.DataFileError) -> str:
    """The reader's message as ``not valid FORMAT: PROBLEM (at line L, column C)`` (1-based, as TOML's reads):
    YAML's own message spans lines and echoes the text, JSON's says ``line L column C (char N)``; the reader's
    error (the DataFileError's context) has the position."""
    cause = e.__context__
    mark = getattr(cause, "problem_mark", None)  # PyYAML
    if mark is not None:
        what = _one_line(str(getattr(cause, "problem", None) or getattr(cause, "context", None) or "syntax error"))
        return f"not valid YAML: {what} (at line {mark.line + 1}, column {mark.column + 1})"
    if isinstance(cause, json.JSONDecodeError):
        return f"not valid JSON: {cause.msg} (at line {cause.lineno}, column {cause.colno})"
    return str(e)


def _one_line(s: str) -> str:
    return " ".join(s.split())


__all__ = [
    "DEFAULT_T",
    "HOW_TO_DECLARE",
    "KINDS",
    "MAX_CONFIGS",
    "MAX_TOTAL_ROUNDS",
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
    "read_text",
    "varying",
]
