"""Which parameters belong to which part of a split model (client, server, auxiliary).

A :class:`Split` is a partition of a model's trainable parameters by qualified name. The estimators report
every constant per part, and the parts' names are the ones the theorems use: ``client`` (``d_c``, ``sigma_c2``,
``G_c2``), ``server`` (``d_s``, ``sigma_s2``, ``G_s2``) and, for the auxiliary-network papers, ``aux``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from sfltheory.errors import ParameterError
from verify.models import enumerate_blocks, model_cuts, resolve_cut


@dataclass(frozen=True)
class Split:
    """A partition of the trainable parameters: part name -> parameter names (as ``named_parameters`` gives
    them), in the model's order. Build it with :meth:`whole`, :meth:`at_cut` or :meth:`from_prefixes`."""

    parts: Mapping[str, tuple[str, ...]]
    cut: str | None = None  # the cut's block name, when built at a cut

    @property
    def names(self) -> tuple[str, ...]:
        """The part names, in order (``client``, ``server`` and any others)."""
        return tuple(self.parts)

    def part_of(self) -> dict[str, str]:
        """Parameter name -> its part."""
        return {p: part for part, params in self.parts.items() for p in params}

    def sizes(self, model: nn.Module) -> dict[str, int]:
        """Number of parameters in each part (``d_c``, ``d_s``, ...)."""
        params = dict(model.named_parameters())
        return {part: sum(params[p].numel() for p in names) for part, names in self.parts.items()}

    def check(self, model: nn.Module) -> None:
        """Raise ``ParameterError("split", ...)`` unless the parts partition the model's trainable parameters."""
        trainable = [n for n, p in model.named_parameters() if p.requires_grad]
        seen: dict[str, str] = {}
        for part, names in self.parts.items():
            if not names:
                raise ParameterError("split", f"part '{part}' holds no parameters")
            for n in names:
                if n in seen:
                    raise ParameterError("split", f"parameter '{n}' is in both '{seen[n]}' and '{part}'")
                seen[n] = part
        unknown = sorted(set(seen) - set(trainable))
        if unknown:
            raise ParameterError("split", f"'{unknown[0]}' is not a trainable parameter of the model")
        missing = [n for n in trainable if n not in seen]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise ParameterError("split", f"parameter '{missing[0]}'{more} is in no part: parts must cover them all")

    @classmethod
    def whole(cls, model: nn.Module) -> Split:
        """One part, ``all``: the unsplit model."""
        return cls({"all": tuple(n for n, p in model.named_parameters() if p.requires_grad)})

    @classmethod
    def from_prefixes(cls, model: nn.Module, prefixes: Mapping[str, Iterable[str]]) -> Split:
        """Parts by name prefix, e.g. ``{"client": ["features.0", "features.1"], "server": ["classifier"]}``.
        A prefix matches a parameter name equal to it or starting with ``prefix + "."``; the longest matching
        prefix decides. The result is checked to be a partition."""
        table = [(pre, part) for part, pres in prefixes.items() for pre in pres]
        parts: dict[str, list[str]] = {part: [] for part in prefixes}
        for n, p in model.named_parameters():
            if not p.requires_grad:
                continue
            hits = [(len(pre), part) for pre, part in table if pre == "" or n == pre or n.startswith(pre + ".")]
            if hits:
                parts[max(hits)[1]].append(n)
        split = cls({k: tuple(v) for k, v in parts.items()})
        split.check(model)
        return split

    @classmethod
    def at_cut(
        cls,
        model: nn.Module,
        cut: str | int,
        input_shape: Sequence[int],
        expand: str | Iterable[str] = (),
        *,
        input_dtype: torch.dtype = torch.float32,
    ) -> Split:
        """Client = the blocks up to and including the cut (named by its block, or by its 1-based index L_c as
        ``sfltheory cuts`` lists it; a block name wins, see :func:`verify.models.resolve_cut`), server = the
        rest. Parameters held by no block (directly by the root or an opened container) count on the client, as
        in :func:`verify.models.model_cuts`."""

        table = model_cuts(model, input_shape, expand, flops=False, input_dtype=input_dtype)
        point = resolve_cut(table, cut)
        blocks = enumerate_blocks(model, expand, input_shape, input_dtype=input_dtype)
        end = [b for b, _ in blocks].index(point.name)
        server_ids = {id(p) for _, m in blocks[end + 1 :] for p in m.parameters()}
        client_ids = {id(p) for _, m in blocks[: end + 1] for p in m.parameters()}
        client: list[str] = []
        server: list[str] = []
        for n, p in model.named_parameters():
            if not p.requires_grad:
                continue
            (server if id(p) in server_ids and id(p) not in client_ids else client).append(n)
        split = cls({"client": tuple(client), "server": tuple(server)}, cut=point.name)
        split.check(model)
        return split
