"""Models used by the seed papers and cut enumeration of any ``torch.nn.Module``.

``model_cuts("resnet18")`` gives the :class:`~sfltheory.plan.cuts.CutTable` of a registered model (see
:data:`MODELS`); ``model_cuts(module, input_shape=(3, 32, 32))`` that of your own module; ``check_outputs(model, shape,
classes=10)`` runs a model once and checks it gives what the targets need; ``load_state(model, path)`` loads a
saved state_dict.
"""

from __future__ import annotations

from .cuts import MODELS, ModelSpec, build, enumerate_blocks, load_model, model_cuts, resolve_cut, stage_cuts
from .forward import check_outputs, dry_forward, forward_error
from .state import load_state

__all__ = [
    "MODELS",
    "ModelSpec",
    "build",
    "check_outputs",
    "dry_forward",
    "enumerate_blocks",
    "forward_error",
    "load_model",
    "load_state",
    "model_cuts",
    "resolve_cut",
    "stage_cuts",
]
