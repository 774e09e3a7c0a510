"""A user's log of a run: CSV (``# name=value`` header lines carry settings) or JSON Lines, one row per round.

Required columns: ``t`` (the round, 0 = the starting point) and ``gradnorm2`` (||grad f(x^t)||^2 of the global
model on the whole training objective f = (1/M) sum_m f_m); optional ``loss`` and ``test_acc``. Every value is
checked: a missing, non-numeric or non-finite value is one line naming the file, the row and the column.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from sfltheory.errors import ParameterError

from .record import QUANTITIES, RunLog, check_rounds, finite

REQUIRED = ("t", "gradnorm2")


def setting_value(v: str) -> float | str:
    """A header's ``value``: a number where it reads as one, else the text."""
    try:
        return float(v)
    except ValueError:
        return v.strip()


def header_settings(path: Path, lines: list[str]) -> dict[str, Any]:
    """``# name=value`` lines (several per line, separated by spaces or commas, are allowed); other comments are
    notes and are skipped."""
    out: dict[str, Any] = {}
    for i, line in enumerate(lines, 1):
        body = line.lstrip("#").strip()
        for item in body.replace(",", " ").split():
            if "=" not in item:
                continue
            name, _, value = item.partition("=")
            if not name or not value:
                raise ParameterError(f"{path}, line {i}", f"a setting is written name=value (got {item!r})")
            if name in out and out[name] != setting_value(value):
                raise ParameterError(f"{path}, line {i}", f"setting '{name}' given twice with different values")
            out[name] = setting_value(value)
    return out


def from_rows(path: Path, rows: list[dict[str, Any]], where: list[str], settings: dict[str, Any], kind: str) -> RunLog:
    """The log from parsed rows (``where``: each row's name in errors)."""
    if not rows:
        raise ParameterError(str(path), "has no rows: a run needs at least the record at t = 0")
    columns = list(dict.fromkeys(k for r in rows for k in r))
    for need in REQUIRED:
        if need not in columns:
            raise ParameterError(str(path), f"has no column '{need}' (columns: {', '.join(columns) or 'none'}); a log "
                                 "needs t (the round, 0 = start) and gradnorm2 (||grad f(x^t)||^2)")  # fmt: skip
    series: dict[str, list[float]] = {}
    for name in (c for c in (*QUANTITIES, "t") if c in columns):
        vals = []
        for r, w in zip(rows, where, strict=True):
            v = r.get(name)
            if v is None or v == "":
                if name in REQUIRED:
                    raise ParameterError(w, f"column '{name}' is empty")
                v = float("nan")  # an optional column may be empty in some rows: shown as missing there
                vals.append(v)
                continue
            vals.append(finite(w, name, v))
        series[name] = vals
    t = check_rounds(str(path), series.pop("t"), where)
    loss = np.asarray(series["loss"]) if "loss" in series else None
    acc = np.asarray(series["test_acc"]) if "test_acc" in series else None
    unread = tuple(c for c in columns if c not in (*QUANTITIES, "t"))
    return RunLog(t=t, gradnorm2=np.asarray(series["gradnorm2"]), loss=loss, test_acc=acc, settings=settings,
                  source=f"{kind} {path}", path=str(path), unread=unread)  # fmt: skip


def read_csv(path: Path) -> RunLog:
    """A CSV log: ``# name=value`` lines before the header row, then one row per round."""
    text = read_text(path)
    lines = text.splitlines()
    comments = [ln for ln in lines if ln.lstrip().startswith("#")]
    body = [(i, ln) for i, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not body:
        raise ParameterError(str(path), "has no header row: a log needs columns t and gradnorm2")
    reader = csv.reader([ln for _, ln in body])
    header = [h.strip() for h in next(reader)]
    rows, where = [], []
    for (lineno, _), cells in zip(body[1:], reader, strict=True):
        if len(cells) != len(header):
            raise ParameterError(f"{path}, line {lineno}", f"has {len(cells)} values for {len(header)} columns")
        rows.append({h: c.strip() for h, c in zip(header, cells, strict=True)})
        where.append(f"{path}, line {lineno}")
    return from_rows(path, rows, where, header_settings(path, comments), "CSV log")


def read_jsonl(path: Path) -> RunLog:
    """A JSON Lines log: one JSON object per round (blank lines skipped)."""
    rows, where = [], []
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ParameterError(f"{path}, line {lineno}", f"is not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise ParameterError(f"{path}, line {lineno}", "must be a JSON object with t and gradnorm2")
        rows.append(row)
        where.append(f"{path}, line {lineno}")
    return from_rows(path, rows, where, {}, "JSON Lines log")


def read_text(path: Path) -> str:
    """A run log's text (UTF-8); a missing or unreadable file is a ``ParameterError`` naming ``run``."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParameterError("run", f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ParameterError("run", f"{path} is not a readable text file ({type(e).__name__})") from None


__all__ = ["REQUIRED", "header_settings", "read_csv", "read_jsonl"]
