"""Where a sweep's results live, and the one table they load into.

Layout of a sweep's folder::

    sweep.json          the expanded sweep: its configurations with their keys (written before any work)
    results/KEY.json    one file per finished configuration, written atomically as it finishes
    table.csv           the table of the configurations of sweep.json (rewritten at the end of each run)

A result file names its key, kind, parameters and the package version; one that does not match the
configuration it is read for (a truncated hash that collided, an edited file) is ignored and recomputed. A failed
configuration is stored with its error and run again by the next run of the sweep.

:class:`Table` is one row per configuration: ``key``, ``status`` (ok, failed, pending), ``error``, ``seconds``, the
parameters, then the recorded columns. ``to_csv`` writes it; ``to_pandas`` gives a DataFrame (pandas is optional);
``series`` gives a recorded series per row. No torch here.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sfltheory
from sfltheory.errors import ParameterError
from sfltheory.outputs import write_text
from verify.sweep.spec import load

from .spec import RESULT_FORMAT, SWEEP_FORMAT, TRAIN_RECORD, VERIFY_RECORD, Config, Sweep, varying

BASE_COLUMNS = ("key", "status", "error", "seconds")
# a verification leg's columns -> its field in the verification (the practical leg's columns are prefixed)
LEG_FIELDS = {"step": "step", "applies": "applies", "tightness": "tightness_at_T",
              "decay_measured": "decay_exponent_measured", "decay_predicted": "decay_exponent_predicted",
              "first_violation": "first_violation_T", "verdict": "verdict"}  # fmt: skip
# every column a verify configuration records (sweep.record names some of them)
VERIFY_COLUMNS = ("algorithm", "method", *LEG_FIELDS, *(f"practical_{c}" for c in LEG_FIELDS))


class Store:
    """A sweep's folder: one atomic JSON file per configuration, named by its key."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.results = self.root / "results"

    def path(self, key: str) -> Path:
        """The record file of the configuration with this key: ``results/KEY.json``."""
        return self.results / f"{key}.json"

    def load(self, config: Config) -> dict[str, Any] | None:
        """The stored record of ``config``, or None when there is none that matches it exactly."""
        p = self.path(config.key)
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = (
            isinstance(raw, dict)
            and raw.get("format") == RESULT_FORMAT
            and raw.get("key") == config.key
            and raw.get("kind") == config.kind
            and raw.get("params") == config.params
            and tuple(raw.get("series", ())) == config.series
        )
        return raw if ok else None

    def done(self, config: Config) -> bool:
        """Whether ``config`` has a stored record that matches it and finished (``status`` ok); a failed one is
        retried."""
        rec = self.load(config)
        return rec is not None and rec.get("status") == "ok"

    def save(self, record: Mapping[str, Any]) -> Path:
        """Write a record (from :func:`verify.sweep.entries.execute`) atomically under its key."""

        out = {"format": RESULT_FORMAT, "version": sfltheory.__version__, **record}
        return self.write(self.path(str(record["key"])), json.dumps(out, indent=1, allow_nan=False, default=_jsonable))

    def write(self, path: Path, text: str) -> Path:
        """``text`` written atomically to ``path`` in this folder; when that fails (a full disk, a permission
        changed during the sweep) the text is kept in a fallback file and :class:`sfltheory.outputs.WriteFailed`
        names it (``sweep.out``, the reason, the fallback): a finished configuration is never lost."""
        return write_text("sweep.out", path, text if text.endswith("\n") else text + "\n")

    def write_manifest(self, sweep: Sweep, configs: Sequence[Config]) -> Path:
        """``sweep.json``: the sweep's configurations with their keys, so the table can be read from the folder."""

        raw = {
            "format": SWEEP_FORMAT,
            "name": sweep.name,
            "version": sfltheory.__version__,
            "record": list(sweep.columns),
            "configs": [{"key": c.key, "kind": c.kind, "params": c.params, "series": list(c.series)} for c in configs],
        }
        return self.write(self.root / "sweep.json", json.dumps(raw, indent=1, allow_nan=False))

    def read_manifest(self) -> tuple[str, tuple[str, ...], list[Config]]:
        """The sweep's name, recorded columns and configurations from ``sweep.json`` (:meth:`write_manifest`); a
        ``ParameterError`` naming ``sweep`` for a folder without one or a file that is not a sweep's."""
        p = self.root / "sweep.json"
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
        except OSError:
            raise ParameterError("sweep", f"no sweep in {str(self.root)!r} (sweep.json is missing)") from None
        except ValueError:
            raise ParameterError("sweep", f"{str(p)!r} is not valid JSON") from None
        if raw.get("format") != SWEEP_FORMAT:
            raise ParameterError("sweep", f"{str(p)!r} is not a sweep (format {raw.get('format')!r})")
        configs = [Config(kind=c["kind"], params=c["params"], series=tuple(c["series"]), key=c["key"])
                   for c in raw["configs"]]  # fmt: skip
        return raw["name"], tuple(raw["record"]), configs


def _jsonable(o: Any) -> Any:
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"not JSON-able: {type(o).__name__}")


# --- the table ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Table:
    """A sweep's results, one row per configuration (in the sweep's order)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    records: tuple[dict[str, Any] | None, ...]  # the stored record of each row (None: not run yet)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def column(self, name: str) -> list[Any]:
        """The values of one column, row by row (None where a row has none); an unknown column is a
        ``ParameterError``."""
        if name not in self.columns:
            raise ParameterError(name, f"not a column of the table (columns: {', '.join(self.columns)})")
        return [r.get(name) for r in self.rows]

    def where(self, **equal: Any) -> Table:
        """The rows whose columns equal the given values."""
        keep = [i for i, r in enumerate(self.rows) if all(r.get(k) == v for k, v in equal.items())]
        return Table(name=self.name, columns=self.columns, rows=tuple(self.rows[i] for i in keep),
                     records=tuple(self.records[i] for i in keep))  # fmt: skip

    def series(self, name: str) -> list[list[float] | None]:
        """A recorded series (``series`` in the sweep) per row: floats, NaN where not finite; None where missing."""
        out: list[list[float] | None] = []
        for rec in self.records:
            s = ((rec or {}).get("result") or {}).get("series", {}).get(name)
            out.append(None if s is None else [math.nan if x is None else float(x) for x in s])
        return out

    @property
    def counts(self) -> dict[str, int]:
        """How many rows are ``ok``, ``failed`` and ``pending`` (not run yet)."""
        c = {"ok": 0, "failed": 0, "pending": 0}
        for r in self.rows:
            c[r["status"]] += 1
        return c

    def to_csv(self, path: str | Path | None = None) -> str:
        """The table as CSV (lists as JSON text); written atomically to ``path`` when given."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow([_cell(r.get(c)) for c in self.columns])
        text = buf.getvalue()
        if path is not None:
            write_text("sweep.out", Path(path), text)  # kept in a fallback file when the write fails
        return text

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ParameterError("pandas", "Table.to_pandas needs pandas (pip install pandas)") from None
        return pd.DataFrame([{c: r.get(c) for c in self.columns} for r in self.rows], columns=list(self.columns))


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, list | dict):
        return json.dumps(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def recorded(kind: str, record: Mapping[str, Any] | None, columns: Sequence[str]) -> dict[str, Any]:
    """The recorded columns of one stored record (None where it has no such value)."""
    res = (record or {}).get("result") or {}
    if kind == "verify":
        vals = _verify_columns(res.get("verification") or {})
    else:
        vals = {**(res.get("last") or {}), "run_status": res.get("run_status")} if res else {}
    return {c: vals.get(c) for c in columns}


def _verify_columns(v: Mapping[str, Any]) -> dict[str, Any]:
    legs = {leg["mode"]: leg for leg in v.get("legs", [])}
    first = v["legs"][0] if v.get("legs") else {}
    out: dict[str, Any] = {"verdict": v.get("verdict"), "algorithm": v.get("algorithm"), "method": v.get("method")}

    def leg_columns(leg: Mapping[str, Any], prefix: str) -> None:
        out.update({f"{prefix}{column}": leg.get(name) for column, name in LEG_FIELDS.items()})

    leg_columns(first, "")
    out["verdict"] = v.get("verdict")
    if "practical" in legs:
        leg_columns(legs["practical"], "practical_")
    return out


def build_table(name: str, configs: Sequence[Config], columns: Sequence[str], store: Store) -> Table:
    """The table of ``configs`` from what ``store`` holds for them (a configuration not run yet is pending)."""
    names = list(dict.fromkeys(k for c in configs for k in c.params))
    varies = varying(configs)
    param_cols = varies + [k for k in names if k not in varies]  # what varies first
    rec_cols = [c for c in columns if c not in param_cols]
    rows, records = [], []
    for c in configs:
        rec = store.load(c)
        row: dict[str, Any] = {"key": c.key, "status": "pending" if rec is None else rec.get("status", "failed"),
                               "error": None if rec is None else rec.get("error"),
                               "seconds": None if rec is None else rec.get("seconds")}  # fmt: skip
        row.update({k: c.params.get(k) for k in param_cols})
        row.update(recorded(c.kind, rec if row["status"] == "ok" else None, rec_cols))
        rows.append(row)
        records.append(rec)
    return Table(name=name, columns=(*BASE_COLUMNS, *param_cols, *rec_cols), rows=tuple(rows), records=tuple(records))


def load_table(source: str | Path | Sweep) -> Table:
    """A sweep's table: from a :class:`Sweep`, a sweep file, or a sweep's results folder (its ``sweep.json``).
    Only the sweep's current configurations are in it; results of older configurations in the folder are not."""
    if isinstance(source, Sweep):
        if source.out is None:
            raise ParameterError("sweep.out", "the sweep has no results folder")
        return build_table(source.name, source.expand(), source.columns, Store(source.out))
    p = Path(source)
    if p.is_dir():
        store = Store(p)
        name, record, configs = store.read_manifest()
        return build_table(name, configs, record, store)

    sw = load(p)
    if sw.trend is not None:  # its configurations come from the check: read what the last run wrote
        assert sw.out is not None
        return load_table(sw.out)
    return load_table(sw)


__all__ = [
    "BASE_COLUMNS",
    "LEG_FIELDS",
    "TRAIN_RECORD",
    "VERIFY_COLUMNS",
    "VERIFY_RECORD",
    "Store",
    "Table",
    "build_table",
    "load_table",
    "recorded",
]
