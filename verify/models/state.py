"""A saved ``state_dict`` loaded into a model, every failure refused in one line naming the option that gave the
file (``measure.state``, shown as ``--state``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import torch
from torch import nn

from sfltheory.errors import ParameterError

from .forward import first_line

#: The spec field of ``sfltheory measure --state``.
STATE = "measure.state"

_MAX_DETAIL = 300  # characters of torch's missing/unexpected key lists kept in the one line


def load_state(model: nn.Module, path: str | Path, *, name: str = STATE) -> None:
    """Load the ``state_dict`` saved at ``path`` into ``model`` (in place), strictly: every key must match.

    The file is read with ``torch.load(weights_only=True)`` (no pickled code runs); it holds a state_dict, or a
    dict whose ``"model"`` entry is one (as a checkpoint of ``sfltheory measure --run-dir`` does). A missing
    file, a file that is not a PyTorch checkpoint (text, a truncated zip), one that holds something else, and a
    state_dict that does not fit the model each raise a one-line :class:`ParameterError` named ``name``.
    """
    p = Path(path)
    if not p.is_file():
        raise ParameterError(name, f"no such file: {path}")
    try:
        state = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # pickle, zip and weights_only errors all mean "not a checkpoint we can read"
        raise ParameterError(
            name, f"{path}: not a PyTorch checkpoint (torch.load: {type(e).__name__}: {first_line(e)})"
        ) from None
    if isinstance(state, Mapping) and isinstance(state.get("model"), Mapping):
        state = state["model"]
    if not isinstance(state, Mapping) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        held = type(state).__name__ if not isinstance(state, Mapping) else "a dict with non-tensor entries"
        raise ParameterError(name, f"{path}: holds {held}, not a state_dict (parameter name -> tensor)")
    try:
        model.load_state_dict(state)
    except RuntimeError as e:
        detail = " ".join(str(e).split())
        if len(detail) > _MAX_DETAIL:
            detail = detail[: _MAX_DETAIL - 3] + "..."
        raise ParameterError(name, f"does not fit the model: {detail}") from None


__all__ = ["STATE", "load_state"]
