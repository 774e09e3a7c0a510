"""Cut points of a split model as plain data (no torch).

A model is a chain of blocks; a cut after block ``i`` puts blocks ``1..i`` on the client (``d_c``
parameters) and the rest on the server (``d_s``). ``verify.models.cuts`` enumerates the cuts of a
``torch.nn.Module``; :func:`load_blocks` reads a model that is not in Python from a JSON or CSV list of
blocks. Both produce a :class:`CutTable`.

Conventions: ``activation`` is the number of values per sample at the cut (the smashed data a client sends
for one sample), not bytes; ``flops`` counts forward-pass floating-point operations per sample.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError


@dataclass(frozen=True)
class CutPoint:
    """The model split after block ``index`` (1-based, as the papers' L_c), named by that block."""

    name: str
    index: int
    d_c: int
    d_s: int
    activation: int | None = None  # values per sample sent across the cut
    flops_c: float | None = None  # forward FLOPs per sample on the client side
    flops: float | None = None  # forward FLOPs per sample of the whole model
    # the class of the block before the cut (Conv2d ...), where it is a torch module: a label, not part of the cut
    layer: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """The name as tables and figures show it: an ``nn.Sequential``'s blocks are named 0, 1, ..., so a
        numeric name carries its layer type, ``3 (Conv2d)``."""
        return f"{self.name} ({self.layer})" if self.name.isdigit() and self.layer else self.name

    @property
    def d(self) -> int:
        """The whole model's parameter count, ``d_c + d_s``."""
        return self.d_c + self.d_s

    @property
    def client_fraction(self) -> float:
        """Share of the per-sample work done by the client: FLOPs when known, else parameters."""
        if self.flops_c is not None and self.flops:
            return self.flops_c / self.flops
        return self.d_c / self.d


@dataclass(frozen=True)
class Block:
    """One block of a model's chain: its name, parameter count, output values per sample (the activation a cut
    after it sends), forward FLOPs per sample and, for a torch module, its layer class."""

    name: str
    params: int
    activation: int | None = None  # output values per sample
    flops: float | None = None
    layer: str | None = None  # the module's class (Linear, Conv2d ...), where the model is a torch module


@dataclass(frozen=True)
class CutTable:
    """Every candidate cut of one model, in forward order."""

    model: str
    d: int
    cuts: tuple[CutPoint, ...]
    input_shape: tuple[int, ...] | None = None
    blocks: tuple[Block, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if not self.cuts:
            raise ParameterError("model", f"'{self.model}' has fewer than two blocks: there is no place to cut it")

    def by_name(self, name: str) -> CutPoint:
        """The cut after the block ``name``, or at 1-based index ``name`` as ``sfltheory cuts`` lists it; a name
        wins over an index (an ``nn.Sequential``'s blocks are named "0", "1", ...)."""
        for c in self.cuts:
            if c.name == name:
                return c
        for c in self.cuts:
            if str(c.index) == name:
                return c
        raise ParameterError(
            "cut", f"no cut named '{name}' in {self.model}; cuts: {', '.join(c.name for c in self.cuts)}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-ready data: model, d, input shape, every cut and every block."""
        return {
            "model": self.model,
            "d": self.d,
            "input_shape": list(self.input_shape) if self.input_shape else None,
            "cuts": [asdict(c) for c in self.cuts],
            "blocks": [asdict(b) for b in self.blocks],
        }


def cuts_from_blocks(
    model: str, blocks: Sequence[Block], input_shape: tuple[int, ...] | None = None, extra_params: int = 0
) -> CutTable:
    """A cut after every block but the last. ``extra_params`` (parameters no block owns) go to the client."""
    if not blocks:
        raise ParameterError("blocks", "the model has no blocks")
    for b in blocks:
        if b.params < 0:
            raise ParameterError(f"blocks[{b.name}].params", f"must be an integer >= 0 (got {b.params})")
        if b.activation is not None and b.activation < 1:
            raise ParameterError(f"blocks[{b.name}].activation", f"must be an integer >= 1 (got {b.activation})")
    d = extra_params + sum(b.params for b in blocks)
    if d < 1:
        raise ParameterError("blocks", "the model has no parameters")
    known_flops = all(b.flops is not None for b in blocks)
    total_flops = sum(b.flops or 0.0 for b in blocks) if known_flops else None
    cuts = []
    d_c, f_c = extra_params, 0.0
    for i, b in enumerate(blocks[:-1], start=1):
        d_c += b.params
        f_c += b.flops or 0.0
        if d_c == 0 or d_c == d:  # a cut with an empty side is no split
            continue
        cuts.append(CutPoint(b.name, i, d_c, d - d_c, b.activation, f_c if known_flops else None, total_flops, b.layer))
    return CutTable(model, d, tuple(cuts), input_shape, tuple(blocks))


def _int(row: Mapping[str, Any], key: str, where: str, required: bool) -> int | None:
    raw = row.get(key)
    if raw is None or raw == "":
        if required:
            raise ParameterError(f"{where}.{key}", "missing")
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise ParameterError(f"{where}.{key}", f"must be an integer (got {raw!r})")
    # exact decimal parsing: "1e30" is 10**30, not the float 1e30's 1000000000000000019884624838656
    try:
        dec = decimal.Decimal(repr(raw) if isinstance(raw, float) else str(raw).strip())
    except decimal.InvalidOperation:
        raise ParameterError(f"{where}.{key}", f"must be an integer (got {raw!r})") from None
    if not dec.is_finite() or dec != dec.to_integral_value():
        raise ParameterError(f"{where}.{key}", f"must be an integer (got {raw!r})")
    return int(dec)


def _flops(row: Mapping[str, Any], where: str) -> float | None:
    raw = row.get("flops")
    if raw is None or raw == "":
        return None
    try:
        f = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        f = math.nan
    if not math.isfinite(f) or f < 0:
        raise ParameterError(f"{where}.flops", f"must be a finite number >= 0 (got {raw!r})")
    return f


def _blocks_from_rows(rows: Sequence[Mapping[str, Any]], source: str) -> list[Block]:
    out = []
    seen: dict[str, int] = {}
    for i, row in enumerate(rows, start=1):
        where = f"{source} block {i}"
        name = str(row.get("name") or f"block{i}")
        if name in seen:
            raise ParameterError(
                f"{where}.name", f"'{name}' is also the name of block {seen[name]}: names must be unique"
            )
        seen[name] = i
        params = _int(row, "params", where, required=True)
        act = _int(row, "activation", where, required=False)
        out.append(Block(name, int(params or 0), act, _flops(row, where)))
    return out


def load_blocks(path: str | Path) -> CutTable:
    """Read a model given as a list of blocks in forward order.

    JSON: ``{"model": "...", "blocks": [{"name": ..., "params": ..., "activation": ...}, ...]}`` or just the
    list. CSV: a header with ``name,params`` and optionally ``activation`` and ``flops``.
    """
    p = Path(path)
    if p.suffix.lower() not in (".json", ".csv"):
        raise ParameterError("path", f"a model file must end in .json or .csv (got {p.name})")
    if not p.is_file():
        raise ParameterError("path", f"no such file: {p}")
    text = p.read_text()
    name = p.stem
    rows: list[Mapping[str, Any]]
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ParameterError(str(p), f"is not valid JSON ({e.msg}, line {e.lineno})") from None
        if isinstance(data, dict):
            name = str(data.get("model", name))
            data = data.get("blocks")
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ParameterError(str(p), "must hold a list of blocks, each an object with 'name' and 'params'")
        rows = data
    else:
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or "params" not in reader.fieldnames:
            raise ParameterError(str(p), "needs a header row with at least 'name,params'")
        rows = list(reader)
    return cuts_from_blocks(name, _blocks_from_rows(rows, p.name))
