"""Cut points of a ``torch.nn.Module``: its blocks in forward order, with parameters, activations and FLOPs.

A model is read as a chain of blocks. :func:`enumerate_blocks` walks the top-level children, opens every
*plain* ``nn.Sequential``, ``nn.ModuleList`` and ``nn.ModuleDict`` (and any module named in ``expand``) and
keeps every other module whole: a residual block, a conv, a transformer block, and also a *subclass* of a
container (it may override ``forward``, e.g. a DenseNet block; name it in ``expand`` to open it). The order is
the order in which the blocks finish in a real forward pass, not the order they are registered in.

:func:`model_cuts` turns the blocks into a :class:`~sfltheory.plan.cuts.CutTable`: blocks without
parameters (activation, pooling, dropout, flatten) join the block before them, since a cut after them has the
same ``d_c`` and sends the smaller, pooled activation; a cut is named by its block with parameters.

The chain view assumes that the output of the block before a cut is all that crosses it. Where a skip
connection or a side input spans a cut (inside an opened residual block, a U-Net, an attention mask) the
activation reported is a lower bound.

Errors name spec fields (``problem.model``, ``problem.input_shape``, ``problem.cut``; ``expand`` for the
argument of that name), which the command line shows as flags (``verify.spec.FLAGS``). A forward pass that
fails names the input shape only for a genuine shape mismatch (:func:`verify.models.forward.forward_error`).
"""

from __future__ import annotations

import functools
import importlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import torch
from torch import nn

from sfltheory.errors import ParameterError
from sfltheory.plan.cuts import Block, CutPoint, CutTable, cuts_from_blocks

from . import zoo
from .forward import CUT, INPUT_SHAPE, MODEL, first_line, forward_error

# Exactly these types are opened; a subclass keeps its own forward and is a block.
_CONTAINERS = (nn.Sequential, nn.ModuleList, nn.ModuleDict)


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: how to build it, its default per-sample input shape, and its reference count.

    ``published_params`` is the parameter count the ``source`` states (library docs, a paper, or a hand count
    spelt out there when no publication gives one) for the default configuration.
    """

    factory: Callable[..., nn.Module]
    input_shape: tuple[int, ...]
    description: str
    published_params: int | None
    source: str


MODELS: dict[str, ModelSpec] = {
    "mlp": ModelSpec(
        zoo.mlp,
        (1, 28, 28),
        "MLP 784-256-128-10 (MNIST)",
        235_146,
        "hand count: 784*256+256 + 256*128+128 + 128*10+10",
    ),
    "cnn": ModelSpec(
        zoo.cnn,
        (1, 28, 28),
        "FedAvg CNN: conv 32@5x5, conv 64@5x5, fc 512, fc 10 (MNIST)",
        1_663_370,
        "McMahan et al. 2017, Communication-Efficient Learning of Deep Networks from Decentralized Data, Sec. 3",
    ),
    "lenet5": ModelSpec(
        zoo.lenet5,
        (1, 28, 28),
        "LeNet-5 on 28x28 (MNIST/Fashion-MNIST), as in sl_noniid",
        44_426,
        "hand count 156 + 2,416 + 30,840 + 10,164 + 850; matches sl_noniid's '6% of the model at the client' "
        "for its cut after the second max-pooling (2,572/44,426 = 5.8%); 61,706 at 32x32 (input_size=32)",
    ),
    "alexnet": ModelSpec(
        zoo.alexnet,
        (3, 224, 224),
        "AlexNet, torchvision layout, 10 classes (MU-SplitFed)",
        57_044_810,
        "torchvision docs: 61,100,840 at 1000 classes; - (4096*1000+1000) + (4096*10+10) for 10 classes",
    ),
    "vgg11": ModelSpec(
        zoo.vgg11,
        (3, 32, 32),
        "VGG-11 with BN for CIFAR-10 (kuangliu/pytorch-cifar layout), as in sl_noniid",
        9_231_114,
        "hand count: convs 9,220,480 + BN 5,504 + fc 5,130; the cut after the third max-pooling holds 10.4%, "
        "sl_noniid states 10%",
    ),
    "resnet18": ModelSpec(
        zoo.resnet18,
        (3, 32, 32),
        "ResNet-18, CIFAR variant (3x3 stem, no max-pooling), 10 classes",
        11_173_962,
        "kuangliu/pytorch-cifar ResNet18 (the count SFL papers quote for CIFAR-10)",
    ),
    "resnet18_imagenet": ModelSpec(
        functools.partial(zoo.resnet18, num_classes=1000, cifar=False),
        (3, 224, 224),
        "ResNet-18, ImageNet layout, 1000 classes",
        11_689_512,
        "torchvision docs, ResNet18_Weights.IMAGENET1K_V1",
    ),
    "resnet50": ModelSpec(
        zoo.resnet50,
        (3, 32, 32),
        "ResNet-50, CIFAR variant, 100 classes (cut_layer on CIFAR-100)",
        # 25,557,032 (torchvision, 1000 classes) - (2048*1000+1000) + (2048*100+100) - 9,408 (7x7 stem conv,
        # 64*3*7*7) + 1,728 (3x3 stem conv, 64*3*3*3) = 23,705,252
        23_705_252,
        "hand count from torchvision's 25,557,032: 100-class fc and 3x3 stem",
    ),
    "resnet50_imagenet": ModelSpec(
        functools.partial(zoo.resnet50, num_classes=1000, cifar=False),
        (3, 224, 224),
        "ResNet-50, ImageNet layout, 1000 classes",
        25_557_032,
        "torchvision docs, ResNet50_Weights.IMAGENET1K_V1",
    ),
}


def _spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ParameterError(
            MODEL, f"unknown model '{name}'; known: {', '.join(MODELS)} (or give package.module:factory)"
        )
    return MODELS[name]


def build(name: str, **kwargs: Any) -> nn.Module:
    """Build a registered model; ``kwargs`` go to its factory (e.g. ``num_classes``)."""
    spec = _spec(name)
    try:
        model = spec.factory(**kwargs)
    except ParameterError:
        raise
    except Exception as e:  # a factory's own error, e.g. an unknown keyword
        raise ParameterError(MODEL, f"'{name}' does not build: {first_line(e)}") from e
    return model


def load_model(spec: str) -> nn.Module:
    """Import ``package.module:factory`` (or ``path/to/file.py:factory``) and call ``factory()``; it must return
    an ``nn.Module``.

    A module is looked up on ``sys.path`` with the working directory first -- the ``sfltheory`` console script
    does not put it there itself, so ``mymodels:net`` finds ``./mymodels.py`` as ``python -c`` would; a spec
    whose module part ends in ``.py`` is loaded from that file."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise ParameterError(
            MODEL, f"must be a registered name, 'package.module:factory' or 'file.py:factory' (got '{spec}')"
        )
    try:
        if module_name.endswith(".py"):
            from importlib import util
            from pathlib import Path

            path = Path(module_name)
            if not path.is_file():
                raise ParameterError(MODEL, f"no such file: {module_name}")
            loader_spec = util.spec_from_file_location(path.stem, path)
            assert loader_spec is not None and loader_spec.loader is not None
            module = util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            import os
            import sys

            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except ParameterError:
        raise
    except Exception as e:  # ImportError, or an error raised while importing
        raise ParameterError(MODEL, f"cannot import '{module_name}': {first_line(e)}") from e
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ParameterError(MODEL, f"'{module_name}' has no callable '{attr}'")
    try:
        model = factory()
    except Exception as e:
        raise ParameterError(MODEL, f"'{spec}' does not build: {first_line(e)}") from e
    if not isinstance(model, nn.Module):
        raise ParameterError(MODEL, f"'{spec}' returned {type(model).__name__}, not a torch.nn.Module")
    return model


def _check_shape(shape: object) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Iterable):
        raise ParameterError(INPUT_SHAPE, f"must be a sequence of positive integers (got {shape!r})")
    out = tuple(shape)
    if not out or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in out):
        raise ParameterError(INPUT_SHAPE, f"entries must be positive integers (got {shape!r})")
    return out


def _resolve(
    model: str | nn.Module, input_shape: Sequence[int] | None, name: str | None, meta: bool
) -> tuple[nn.Module, tuple[int, ...], str]:
    """The module, its per-sample input shape and its label. Registered models are built on ``meta`` on request:
    no memory, no initialisation, and the counts are the same."""
    if isinstance(model, str):
        if model in MODELS:
            if meta:
                with torch.device("meta"):
                    module = build(model)
            else:
                module = build(model)
            return (
                module,
                _check_shape(MODELS[model].input_shape if input_shape is None else input_shape),
                name or model,
            )
        if ":" not in model:
            _spec(model)  # raises the "unknown model" error
        module, label = load_model(model), name or model
    elif isinstance(model, nn.Module):
        module, label = model, name or type(model).__name__
    else:
        raise ParameterError(MODEL, f"must be a model name or a torch.nn.Module (got {type(model).__name__})")
    if input_shape is None:
        raise ParameterError(INPUT_SHAPE, "required for a model given as a module")
    return module, _check_shape(input_shape), label


def _normalise_expand(expand: str | Iterable[str]) -> tuple[str, ...]:
    return (expand,) if isinstance(expand, str) else tuple(expand)


def _walk(model: nn.Module, expand: tuple[str, ...]) -> tuple[list[tuple[str, nn.Module]], list[nn.Module]]:
    """Candidate blocks in registration order, and the opened modules (the root included)."""
    named = dict(model.named_modules())
    for e in expand:
        if e not in named or e == "":
            raise ParameterError("expand", f"no submodule named '{e}' in the model")
        if not any(True for _ in named[e].children()):
            raise ParameterError("expand", f"'{e}' has no submodules to open")
    # Opening 'a.b.c' opens its ancestors too, or it would never be reached.
    opened_names = {".".join(e.split(".")[:k]) for e in expand for k in range(1, e.count(".") + 2)}
    if not any(True for _ in model.children()):
        return [(type(model).__name__, model)], []
    blocks: list[tuple[str, nn.Module]] = []
    opened: list[nn.Module] = [model]
    seen: set[int] = {id(model)}

    def visit(module: nn.Module, prefix: str) -> None:
        for child_name, child in module.named_children():
            if id(child) in seen:  # registered twice: keep the first name
                continue
            seen.add(id(child))
            q = f"{prefix}.{child_name}" if prefix else child_name
            if type(child) in _CONTAINERS or q in opened_names:
                opened.append(child)
                visit(child, q)
            else:
                blocks.append((q, child))

    visit(model, "")
    return blocks, opened


def _numel(out: object) -> int:
    if isinstance(out, torch.Tensor):
        return out.numel()
    if isinstance(out, Mapping):
        return sum(_numel(v) for v in out.values())
    if isinstance(out, (tuple, list)):
        return sum(_numel(v) for v in out)
    return 0


def _owns_params(module: nn.Module) -> bool:
    return any(True for _ in module.parameters())


@dataclass
class _Call:
    name: str
    module: nn.Module
    activation: int
    flops: float | None


def _trace(
    model: nn.Module,
    shape: tuple[int, ...],
    blocks: list[tuple[str, nn.Module]],
    label: str,
    count_flops: bool,
    dtype: torch.dtype,
) -> tuple[list[_Call], bool]:
    """One forward pass at batch size 1, recording each block's completion. Returns the calls and whether
    FLOPs were counted. Tries ``meta`` tensors first (no memory), then a real no-grad pass on zeros."""
    from torch.utils.flop_counter import FlopCounterMode

    calls: list[_Call] = []
    start: dict[str, float] = {}
    counter: list[FlopCounterMode] = []  # the active counter, if any

    def pre(name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: Any) -> None:
            if counter:
                start[name] = counter[0].get_total_flops()

        return hook

    def post(name: str) -> Callable[..., None]:
        def hook(module: nn.Module, args: Any, out: Any) -> None:
            flops = counter[0].get_total_flops() - start.pop(name, 0) if counter else None
            calls.append(_Call(name, module, _numel(out), flops))

        return hook

    tensors = list(chain(model.named_parameters(), model.named_buffers()))
    on_meta = any(t.is_meta for _, t in tensors)

    def run_meta() -> None:
        state = {n: torch.empty_like(t, device="meta") for n, t in tensors}
        x = torch.empty((1, *shape), device="meta", dtype=dtype)
        torch.func.functional_call(model, state, (x,))

    def run_real() -> None:
        device = tensors[0][1].device if tensors else torch.device("cpu")
        with torch.no_grad():
            model(torch.zeros((1, *shape), device=device, dtype=dtype))

    attempts: list[Callable[[], None]] = [run_meta] if on_meta else [run_meta, run_real]
    handles = []
    training = {m: m.training for m in model.modules()}
    error: BaseException | None = None
    try:
        for name, module in blocks:
            handles.append(module.register_forward_pre_hook(pre(name)))
            handles.append(module.register_forward_hook(post(name)))
        model.eval()  # BN/dropout in inference form; no running-stat updates
        for run in attempts:
            for with_flops in (True, False) if count_flops else (False,):
                calls.clear()
                start.clear()
                counter.clear()
                try:
                    if with_flops:
                        counter.append(FlopCounterMode(display=False))
                        with counter[0]:
                            run()
                    else:
                        run()
                except Exception as e:  # a bad shape, or an op the meta device or the counter lacks
                    error = e
                    continue
                return calls, with_flops
    finally:
        for h in handles:
            h.remove()
        for m, t in training.items():  # per module: m.train(t) would overwrite the children's flags
            m.training = t
    assert error is not None
    # a shape mismatch names the input shape, any other failure (the model's own bug) the model
    raise forward_error(error, shape, label) from error


def _checked_calls(calls: list[_Call]) -> list[_Call]:
    counts = Counter(c.name for c in calls)
    for c in calls:
        if counts[c.name] > 1 and _owns_params(c.module):
            raise ParameterError(
                MODEL,
                f"block '{c.name}' runs {counts[c.name]} times in one forward pass: a model that reuses a block "
                "with parameters cannot be cut into a chain",
            )
    return calls


def enumerate_blocks(
    model: str | nn.Module,
    expand: str | Iterable[str] = (),
    input_shape: Sequence[int] | None = None,
    *,
    input_dtype: torch.dtype = torch.float32,
) -> list[tuple[str, nn.Module]]:
    """The model's blocks in forward order, as ``(qualified name, module)``, before parameterless ones are merged.

    ``model`` is a module (``input_shape`` per sample, required) or a registered name (built on the CPU,
    default input shape). Blocks that never run are dropped; a parameterless module used more than once (a
    shared ReLU) is listed at its first use; a block with parameters that runs twice raises
    ``ParameterError("problem.model", ...)``.
    """
    module, shape, label = _resolve(model, input_shape, None, meta=False)
    blocks, _ = _walk(module, _normalise_expand(expand))
    calls = _checked_calls(_trace(module, shape, blocks, label, False, input_dtype)[0])
    out: list[tuple[str, nn.Module]] = []
    listed: set[str] = set()
    for c in calls:
        if c.name not in listed:
            listed.add(c.name)
            out.append((c.name, c.module))
    return out


@dataclass
class _Group:
    name: str
    module: nn.Module
    activation: int
    flops: float


def _merge(calls: list[_Call]) -> list[_Group]:
    """Parameterless calls join the group before them; leading ones join the first group with parameters."""
    groups: list[_Group] = []
    leading = 0.0
    for c in calls:
        if _owns_params(c.module):
            groups.append(_Group(c.name, c.module, c.activation, (c.flops or 0.0) + leading))
            leading = 0.0
        elif groups:
            groups[-1].activation = c.activation  # what is sent is the output after the pooling etc.
            groups[-1].flops += c.flops or 0.0
        else:
            leading += c.flops or 0.0
    return groups


def model_cuts(
    model_or_name: str | nn.Module,
    input_shape: Sequence[int] | None = None,
    expand: str | Iterable[str] = (),
    name: str | None = None,
    flops: bool = True,
    *,
    input_dtype: torch.dtype = torch.float32,
) -> CutTable:
    """Every cut of a model: ``d_c``/``d_s``, the activation per sample at the cut and forward FLOPs per sample.

    ``model_or_name``: a registered name (:data:`MODELS`; built on the meta device, default input shape unless
    ``input_shape`` is given), ``package.module:factory``, or an ``nn.Module`` (``input_shape`` per sample,
    without the batch dimension, required). Parameters are counted once even when tied; parameters held
    directly by an opened container (or the root) and by no block count on the client. FLOPs come from
    ``torch.utils.flop_counter.FlopCounterMode`` (a Linear is ``2*in*out`` per sample; elementwise ops count
    zero) and are ``None`` where counting fails. The model is run in eval mode and its parameters, buffers and
    training flags are left as they were.
    """
    module, shape, label = _resolve(model_or_name, input_shape, name, meta=True)
    blocks, opened = _walk(module, _normalise_expand(expand))
    try:
        calls, counted = _trace(module, shape, blocks, label, flops, input_dtype)
    except ParameterError as e:
        if e.name not in (INPUT_SHAPE, MODEL) or not isinstance(model_or_name, str) or model_or_name not in MODELS:
            raise
        # Built on meta, so no real pass was tried: build on the CPU for it (and for torch's clearer message).
        module = build(model_or_name)
        blocks, opened = _walk(module, _normalise_expand(expand))
        calls, counted = _trace(module, shape, blocks, label, flops, input_dtype)
    groups = _merge(_checked_calls(calls))
    if not groups:
        raise ParameterError(MODEL, f"no block with parameters ran in the forward pass of {label}")
    seen: set[int] = set()

    def unique(params: Iterator[nn.Parameter]) -> int:
        n = 0
        for p in params:
            if id(p) not in seen:  # tied weights count once, where they are first used
                seen.add(id(p))
                n += p.numel()
        return n

    out = [
        Block(
            g.name,
            unique(g.module.parameters()),
            g.activation or None,
            g.flops if counted else None,
            type(g.module).__name__,
        )
        for g in groups
    ]
    extra = sum(unique(m.parameters(recurse=False)) for m in opened)
    try:
        return cuts_from_blocks(label, out, shape, extra)
    except ParameterError as e:
        if e.name != "model":  # the table's "no place to cut it"
            raise
        raise _no_cut(label, out) from None


def _no_cut(label: str, blocks: Sequence[Block]) -> ParameterError:
    """The error for a model without a cut, saying what counts as a block."""
    held = ", ".join(f"'{b.name}' ({b.layer})" for b in blocks)
    which = f"its only block with parameters is {held}" if len(blocks) == 1 else f"its blocks are {held}"
    return ParameterError(
        MODEL,
        f"{label} has no cut: {which}, and a cut needs parameters on both sides. "
        "A block is a child module with parameters: a plain nn.Sequential, nn.ModuleList or nn.ModuleDict is "
        "opened into its children (layers without parameters join the block before them), any other module, "
        "a subclass of those included, is one block unless named in expand",
    )


def resolve_cut(table: CutTable, cut: str | int) -> CutPoint:
    """The cut named ``cut`` (a block name), or at 1-based index ``cut`` as ``sfltheory cuts`` lists it, or after
    the stage (an opened container) named ``cut``: ``layer2`` of a ResNet is the cut after its last block,
    ``layer2.1`` (:func:`stage_cuts`). A name wins over an index: an ``nn.Sequential``'s blocks are named "0",
    "1", ..., and ``"1"`` is the block named "1" (the second), not the first cut."""
    names = [c.name for c in table.cuts]
    if isinstance(cut, str) and cut in names:
        return table.cuts[names.index(cut)]
    stages = stage_cuts(table) if isinstance(cut, str) else {}
    if isinstance(cut, str) and cut in stages:
        return stages[cut]
    if isinstance(cut, int) or (isinstance(cut, str) and cut.isdigit()):
        i = int(cut)
        if not 1 <= i <= len(table.cuts):
            raise ParameterError(CUT, f"must be a cut index in 1..{len(table.cuts)} or a cut name (got {cut})")
        return table.cuts[i - 1]
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    staged = f"; stages: {', '.join(stages)}" if stages else ""
    raise ParameterError(CUT, f"'{cut}' is not a cut of this model (cuts: {shown}{staged})")


def stage_cuts(table: CutTable) -> dict[str, CutPoint]:
    """The cuts that end an opened container, by its name: for a ResNet ``{"layer1": <cut layer1.1>, ...}``.

    cut_layer's L_c = i (a cut "following the i-th residual block", i.e. between macro blocks) is the i-th
    value for a ResNet here.
    """
    names = [b.name for b in table.blocks]
    out: dict[str, CutPoint] = {}
    for c in table.cuts:
        parent = c.name.rpartition(".")[0]
        following = names[c.index] if c.index < len(names) else ""
        if parent and not following.startswith(parent + "."):
            out[parent] = c
    return out
