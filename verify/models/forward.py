"""One forward pass of a model on one sample, before any work: does the model take the data, and does it give
what the targets need?

:func:`check_outputs` runs the model once and compares its output with the targets: one output per class for
integer labels, the targets' width for float targets. :func:`forward_error` turns an exception of a forward
pass into the one-line error that names its cause: ``problem.input_shape`` for a genuine shape mismatch (torch's
"mat1 and mat2 shapes cannot be multiplied", "expected input[1, 3, 8, 8] to have 1 channels"), ``problem.model``
for anything else the forward raised (a bug in the model, a missing attribute). The cut table's trace
(:func:`verify.models.model_cuts`) uses the same classification.

Errors name spec fields (``problem.model``, ``problem.input_shape``); the command line shows their flags.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from sfltheory.errors import ParameterError

#: The spec fields these errors name (``verify.spec.FLAGS``: ``--model``, ``--input-shape``, ``--cut``, ``--data``).
MODEL, INPUT_SHAPE, CUT, DATA = "problem.model", "problem.input_shape", "problem.cut", "problem.data"

# Words of torch's shape-mismatch messages (linear, conv, pooling, view/reshape, unflatten, broadcasting,
# recurrent layers, meta kernels): "mat1 and mat2 shapes cannot be multiplied", "expected input[1, 3, 8, 8] to
# have 1 channels", "input of size: [1, 64]", "shape '[-1, 400]' is invalid", "Output size is too small",
# "must have same reduction dim". A message without them ("boom", an AttributeError) is the model's own.
_SHAPE_WORDS = re.compile(r"shape|size|dimension|\bdims?\b|channels?\b|mat1|mat2|input\[", re.IGNORECASE)


def first_line(e: BaseException) -> str:
    """The first line of an exception's message, or its type's name when it has none."""
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__


def is_shape_error(e: BaseException) -> bool:
    """Whether a forward pass failed because the input's shape does not fit the model (by torch's wording)."""
    return isinstance(e, RuntimeError | ValueError | IndexError) and bool(_SHAPE_WORDS.search(str(e)))


def forward_error(e: BaseException, shape: Sequence[int], label: str, *, shape_given: bool = True) -> ParameterError:
    """The error to raise for a forward pass of ``label`` on one sample of ``shape`` that raised ``e``. A shape
    mismatch names the input shape when the user gave it (``shape_given``), else the data the shape came from:
    the user wrote no input shape to blame."""
    if is_shape_error(e):
        if not shape_given:
            return ParameterError(DATA, f"samples of shape {tuple(shape)} do not fit {label}: {first_line(e)}; give "
                                  "--input-shape to reshape them")  # fmt: skip
        return ParameterError(INPUT_SHAPE, f"{tuple(shape)} does not fit {label}: {first_line(e)}")
    return ParameterError(
        MODEL,
        f"the model's forward raised {type(e).__name__}: {first_line(e)} on one sample of shape {tuple(shape)}",
    )


def _float_dtype(model: nn.Module) -> torch.dtype:
    first = next((t for t in model.parameters() if t.is_floating_point()), None)
    return first.dtype if first is not None else torch.float32


def _device(model: nn.Module) -> torch.device:
    first = next(iter(model.parameters()), None)
    return first.device if first is not None else torch.device("cpu")


def dry_forward(
    model: nn.Module, input_shape: Sequence[int], label: str | None = None, *, shape_given: bool = True
) -> Any:
    """The model's output on one sample of zeros of ``input_shape`` (no grad, eval mode, every module's training
    flag restored). A model holding an ``nn.Embedding`` that refuses float inputs is run on token ids 0. A
    failure raises :func:`forward_error`'s one-line error (``shape_given``: the user gave ``input_shape``; else
    it is the data's)."""
    shape = tuple(input_shape)
    name = label or type(model).__name__
    device = _device(model)
    if device.type == "meta":
        raise ParameterError(MODEL, f"{name} has no weights (built on the meta device): build it on a real device")
    inputs = [torch.zeros((1, *shape), device=device, dtype=_float_dtype(model))]
    if any(isinstance(m, nn.Embedding | nn.EmbeddingBag) for m in model.modules()):
        inputs.append(torch.zeros((1, *shape), device=device, dtype=torch.long))  # token ids: 0 is always valid
    training = {m: m.training for m in model.modules()}
    model.eval()  # batch norm on one sample needs its inference form; no running statistics are updated
    error: Exception | None = None
    try:
        with torch.no_grad():
            for x in inputs:
                try:
                    return model(x)
                except Exception as e:  # the first input's error is the one to report
                    error = error or e
    finally:
        for m, t in training.items():  # per module: model.train(t) would overwrite the children's flags
            m.training = t
    assert error is not None
    raise forward_error(error, shape, name, shape_given=shape_given) from error


def _outputs(per_sample: tuple[int, ...]) -> str:
    if not per_sample:
        return "one number (no output dimension)"
    return (
        f"{per_sample[0]} output{'s' * (per_sample[0] != 1)}"
        if len(per_sample) == 1
        else f"outputs of shape {per_sample}"
    )


def check_outputs(
    model: nn.Module,
    input_shape: Sequence[int],
    *,
    classes: int | None,
    targets: Tensor | None = None,
    label: str | None = None,
    shape_given: bool = True,
) -> tuple[int, ...]:
    """Run the model once on one sample (:func:`dry_forward`) and check its output against the targets; return
    the shape of one sample's output.

    With ``classes`` (integer labels 0..C-1) the model must give C outputs per sample, one per class: fewer
    would make the loss index past them, more would add classes no sample has. With float ``targets``
    (regression, or class probabilities) it must give as many numbers per sample as a target holds. Refusals
    name ``problem.model``, with what the model gives and what the data needs; ``shape_given``: the user gave
    ``input_shape`` (a shape mismatch names it; else the data, :func:`forward_error`).
    """
    out = dry_forward(model, input_shape, label, shape_given=shape_given)
    if not isinstance(out, Tensor):
        raise ParameterError(
            MODEL, f"returns a {type(out).__name__}, not one tensor of outputs per sample (a batch along dim 0)"
        )
    if out.ndim == 0 or out.shape[0] != 1:
        raise ParameterError(
            MODEL, f"gives an output of shape {tuple(out.shape)} for a batch of one sample: dim 0 must be the batch"
        )
    per = tuple(out.shape[1:])
    if classes is not None:
        if per != (classes,):
            raise ParameterError(
                MODEL, f"gives {_outputs(per)} per sample, the labels need {classes} (classes 0..{classes - 1})"
            )
    elif targets is not None and targets.is_floating_point() and targets.ndim >= 1:
        want = tuple(targets.shape[1:])
        if math.prod(per) != math.prod(want):
            raise ParameterError(
                MODEL, f"gives {_outputs(per)} per sample, the targets hold {math.prod(want)} per sample (shape {want})"
            )
    return per


__all__ = [
    "CUT",
    "DATA",
    "INPUT_SHAPE",
    "MODEL",
    "check_outputs",
    "dry_forward",
    "first_line",
    "forward_error",
    "is_shape_error",
]
