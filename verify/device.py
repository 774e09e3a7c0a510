"""Whether a device named in a spec is on this machine: checked before any work, where a spec is turned into a run.

:func:`verify.spec.device_name` checks the form (``auto``, ``cpu``, ``cuda``, ``cuda:N``) and imports no torch;
:func:`present` checks that the CUDA device asked for exists here, so ``--device cuda`` on a machine without CUDA
or ``cuda:7`` on one with two GPUs is one line naming the option, not a traceback from the first tensor moved.
"""

from __future__ import annotations

import torch

from sfltheory.errors import ParameterError


def resolve_device(device: str, auto: str | None = None) -> str:
    """``auto`` is ``auto`` when given (a Ray task given no GPU: the CPU), else CUDA when present, else the CPU."""
    if device != "auto":
        return device
    return auto or ("cuda" if torch.cuda.is_available() else "cpu")


def present(name: str, device: str) -> str:
    """``device`` (of the form :func:`verify.spec.device_name` admits) if this machine has it; ``auto`` and ``cpu``
    always are. ``name``: the spec field the error names (``device``, ``measure.device``)."""
    if not device.startswith("cuda"):
        return device
    if not torch.cuda.is_available():
        why = "torch here is built without CUDA" if torch.version.cuda is None else "no CUDA device is visible"
        raise ParameterError(name, f"{device}: {why}; use cpu or auto")
    count = torch.cuda.device_count()
    index = int(device[5:]) if device.startswith("cuda:") else 0
    if index >= count:
        raise ParameterError(name, f"{device}: this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
    return device


__all__ = ["present", "resolve_device"]
