"""Models used by the seed papers and cut enumeration of any ``torch.nn.Module``.

``model_cuts("resnet18")`` gives the :class:`~sfltheory.plan.cuts.CutTable` of a registered model (see
:data:`MODELS`); ``model_cuts(module, input_shape=(3, 32, 32))`` that of your own module.
"""

from __future__ import annotations

from .cuts import MODELS, ModelSpec, build, enumerate_blocks, load_model, model_cuts, resolve_cut, stage_cuts

__all__ = ["MODELS", "ModelSpec", "build", "enumerate_blocks", "load_model", "model_cuts", "resolve_cut", "stage_cuts"]
