"""Exact squared norms of per-sample gradients, per part, without materialising the n x d matrix of them.

For sample i with loss l_i (the objective is f = (1/n) \\sum_i l_i) the per-sample gradient is
g_i = \\nabla l_i, and for a part P of the parameters (client, server, ...)

.. math::  r_{i,P} = \\lVert g_{i,P} \\rVert^2, \\qquad c_{i,P} = \\lVert g_{i,P} - \\bar g_P \\rVert^2,

so that with the centre \\bar g the mean gradient, \\sigma_P^2 = \\frac1m \\sum_i c_{i,P} exactly (two passes:
:meth:`Objective.grad` first, then :func:`persample_norms` once).

Two engines:

* ``"hooks"``: one forward and one backward of \\sum_i l_i per chunk. The gradient of that sum with respect
  to a layer's output is per-sample (samples do not interact in eval mode), so each layer's per-sample
  gradient is a product of its input a_i and that output gradient b_i, which the hooks capture. A linear
  layer's g_i = b_i a_i^T is never formed: \\lVert b_i a_i^T \\rVert^2 = \\lVert a_i\\rVert^2 \\lVert b_i\\rVert^2
  and \\langle b_i a_i^T, C\\rangle = b_i^T C a_i. A layer applied at P positions (convolution, sequence)
  has g_i = \\sum_p b_{ip} a_{ip}^T; it is either formed, one layer at a time (cost P * out * in per sample),
  or its norm taken from Gram matrices, \\lVert g_i\\rVert^2 = \\sum_{p,q} (a_{ip}\\cdot a_{iq})(b_{ip}\\cdot b_{iq})
  (cost P^2 (out + in)), whichever is cheaper for that layer; a convolution's patches a_{ip} are formed a
  slice of samples at a time. Supported: ``nn.Linear``, ``nn.Conv1d``, ``nn.Conv2d``, ``nn.BatchNorm1d``/``2d``
  with running statistics (read from the objective's copies, ``obj.fixed``, on its device and in its dtype, never
  from the module, which may be elsewhere). Memory beyond the usual forward/backward:
  one layer's per-sample gradients for the chunk (formed layers only) and 2^24 numbers of patches.
* ``"vmap"``: ``vmap(grad(l_i))`` over a chunk, chunk x d at a time. Any model ``functional_call`` runs and
  torch.func can batch (not ``nn.RNN``/``nn.GRU``/``nn.LSTM``: torch has no batching rule for them).
* ``"loop"``: one ``autograd.grad`` per sample -- the definition, for any model; the slowest.

``"auto"`` takes the hooks when every module that owns a trainable parameter is of a supported type (exactly,
not a subclass, whose ``forward`` may differ) and no parameter is tied; otherwise, or when a check while
running fails, the vmap engine, and the loop when vmap cannot run the model. The checks while running: a
module called twice in one forward, a parameter gradient no hook accounted for, and a parameter used anywhere
but in its module's one call (``F.linear(h, enc.weight.t())``, ``enc.weight[0]``): the autograd graph of each
chunk is walked and every edge into a parameter counted, so a use the hooks cannot see is found exactly.

A model whose outputs depend on the other samples of the batch in eval mode (batch norm without running
statistics) has no per-sample gradients: :func:`persample_norms` refuses it (:func:`batch_dependence`).

Precision: norms are summed in float64 from float32 blocks of 1024 (``vector_norm`` over a whole float32 row of
10^6 numbers is off by ~1e-4). Where the hooks engine does not form g_i, the centred norm is
\\lVert g_i\\rVert^2 - 2\\langle g_i, C\\rangle + \\lVert C\\rVert^2 (combined in float64 from terms computed in the
working precision), which loses relative precision \\approx \\epsilon \\lVert g_i\\rVert^2 / c_i when per-sample
gradients barely differ from their mean (float32: \\epsilon \\approx 6e-8).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import grad, vmap

from sfltheory.errors import ParameterError
from verify.ops.objective import Objective

ENGINES = ("auto", "hooks", "vmap", "loop")
# The vmap engine holds chunk x d per-sample gradients; its default chunk keeps that near 2^26 numbers.
VMAP_BUDGET = 2**26
# A convolution's patches (k times its input) are formed for at most this many numbers at a time.
UNFOLD_BUDGET = 2**24


@dataclass
class PerSampleNorms:
    """Per-sample squared gradient norms of ``m`` samples, by part (float64, CPU).

    ``raw[part][i]`` = \\lVert g_{i,part}\\rVert^2; ``centred[part][i]`` = \\lVert g_{i,part} - c_{part}\\rVert^2
    (the same tensors as ``raw`` when no centre is given); ``grad_sum[name]`` = \\sum_i g_i for each parameter,
    on the objective's device; ``engine`` the engine that ran (``"hooks"``, ``"vmap"`` or ``"loop"``).
    """

    raw: dict[str, Tensor]
    centred: dict[str, Tensor]
    grad_sum: dict[str, Tensor]
    engine: str


class _Unsupported(Exception):
    """The hooks engine cannot handle this model (the message says why)."""


def _sq(G: Tensor, block: int = 1024) -> Tensor:
    """Row-wise squared norms of (B, k), in float64, without a B x k temporary.

    ``vector_norm`` accumulates a row in order: over 1.6M float32 numbers it was off by 2e-4 relative (and a
    bmm dot product by 1e-3), while ``pow(2).sum`` is exact but needs a B x k temporary and is 10x slower.
    Norms of 1024-blocks, squared and summed in float64, are within 1e-7 at the speed of ``vector_norm``."""
    B, k = G.shape
    nb = k // block
    out = torch.linalg.vector_norm(G[:, : nb * block].reshape(B, nb, block), dim=2).double().square().sum(1)
    if nb * block < k:
        out += torch.linalg.vector_norm(G[:, nb * block :], dim=1).double().square()
    return out


def _use_ghost(positions: int, fan_in: int, fan_out: int) -> bool:
    """Gram form (P^2 (in + out) per sample) when cheaper than forming g_i (P * in * out per sample)."""
    return positions * (fan_in + fan_out) < fan_in * fan_out


def _ghost(A: Tensor, Bm: Tensor) -> Tensor:
    """\\sum_{p,q} (a_p . a_q)(b_p . b_q) for A (N, P, in), Bm (N, P, out): \\lVert \\sum_p b_p a_p^T\\rVert^2."""
    ga = torch.bmm(A, A.transpose(1, 2))
    gb = torch.bmm(Bm, Bm.transpose(1, 2))
    return (ga * gb).sum((1, 2))


Contrib = list[tuple[str, Tensor, Tensor | None]]  # (parameter name, raw (B,), centred (B,) or None)


class _Layer:
    """One module that owns trainable parameters: its local -> full parameter names, its buffers as the objective
    holds them (``obj.fixed``: on its device, in its dtype; the module's own may be on the CPU), the captured input."""

    def __init__(self, module: nn.Module, names: dict[str, str], fixed: dict[str, Tensor]) -> None:
        self.module, self.names, self.fixed = module, names, fixed  # names: local ("weight") -> the objective's
        self.calls, self.fired = 0, False  # calls in this forward; whether its output's gradient hook ran
        self.input, self.version = cast(Tensor | None, None), 0  # the input and its version counter when stored


def _finish(
    G: Tensor, name: str, center: Mapping[str, Tensor] | None, *, inplace: bool = True
) -> tuple[str, Tensor, Tensor | None]:
    """Norms of formed per-sample gradients G (B, k); centred exactly, in place unless ``inplace=False`` (G may
    share memory with another parameter's gradient: vmap returns one tensor for an LSTM's two biases)."""
    raw = _sq(G)
    if center is None:
        return name, raw, None
    C = center[name].reshape(1, -1)
    return name, raw, _sq(G.sub_(C) if inplace else G - C)


def _centred_from_cross(raw: Tensor, cross: Tensor, C: Tensor) -> Tensor:
    """\\lVert g - C\\rVert^2 = \\lVert g\\rVert^2 - 2 \\langle g, C\\rangle + \\lVert C\\rVert^2, in float64."""
    return raw.double() - 2 * cross.double() + C.square().sum(dtype=torch.float64)


def _linear_rule(layer: _Layer, a: Tensor, b: Tensor, center: Mapping[str, Tensor] | None) -> Contrib:
    m = cast(nn.Linear, layer.module)
    B = a.shape[0]
    out: Contrib = []
    if a.dim() == 2:
        if "weight" in layer.names:
            name = layer.names["weight"]
            raw = _sq(a) * _sq(b)
            cen = None
            if center is not None:
                cross = (F.linear(a, center[name]) * b).sum(1)
                cen = _centred_from_cross(raw, cross, center[name])
            out.append((name, raw, cen))
        if "bias" in layer.names:
            out.append(_finish(b.clone(), layer.names["bias"], center))
        return out
    A, Bm = a.reshape(B, -1, m.in_features), b.reshape(B, -1, m.out_features)
    if "weight" in layer.names:
        name = layer.names["weight"]
        if _use_ghost(A.shape[1], m.in_features, m.out_features):
            raw = _ghost(A, Bm)
            cen = None
            if center is not None:
                cross = (F.linear(A, center[name]) * Bm).sum((1, 2))
                cen = _centred_from_cross(raw, cross, center[name])
            out.append((name, raw, cen))
        else:
            out.append(_finish(torch.bmm(Bm.transpose(1, 2), A).reshape(B, -1), name, center))
    if "bias" in layer.names:
        out.append(_finish(Bm.sum(1), layer.names["bias"], center))
    return out


def _unfold(x: Tensor, m: nn.Conv1d | nn.Conv2d, pad: list[int]) -> Tensor:
    """The patches of ``x`` that ``m`` sees, (B, C_in * k, P), in the weight's (C_in, *kernel) order.

    ``F.unfold`` computes the same (for 2-D images only), but on 2 threads of a busy 2-core machine it took
    0.5-2 s where this strided view and one copy took 0.02-0.14 s."""
    if any(pad):
        x = F.pad(x, [q for p in reversed(pad) for q in (p, p)])
    B, C, *size = x.shape
    sb, sc, *st = x.stride()
    ks, ds, ss = m.kernel_size, m.dilation, m.stride
    out = [(n - d * (k - 1) - 1) // s + 1 for n, k, d, s in zip(size, ks, ds, ss, strict=True)]
    window = [t * d for t, d in zip(st, ds, strict=True)]
    step = [t * s for t, s in zip(st, ss, strict=True)]
    patches = x.as_strided((B, C, *ks, *out), (sb, sc, *window, *step), x.storage_offset())
    return patches.reshape(B, C * math.prod(ks), math.prod(out))


def _conv_rule(layer: _Layer, a: Tensor, b: Tensor, center: Mapping[str, Tensor] | None) -> Contrib:
    m = cast(nn.Conv1d | nn.Conv2d, layer.module)
    B, G = a.shape[0], m.groups
    out: Contrib = []
    if "weight" in layer.names:
        name = layer.names["weight"]
        C = None if center is None else center[name]
        cout_g, fan_in, P = m.out_channels // G, m.in_channels // G * math.prod(m.kernel_size), b[0, 0].numel()
        ghost = _use_ghost(P, fan_in, cout_g)
        # Non-zero or 'same' padding is applied here, so the patches need only symmetric zero padding.
        x = a
        if m.padding_mode != "zeros" or isinstance(m.padding, str):
            mode = "constant" if m.padding_mode == "zeros" else m.padding_mode
            x = F.pad(x, m._reversed_padding_repeated_twice, mode=mode)
            pad: list[int] = [0] * len(m.kernel_size)
        else:
            pad = list(m.padding)
        # The patches are k times the layer's input: form them for a slice of the samples at a time.
        step = max(1, UNFOLD_BUDGET // (G * fan_in * P))
        raws, cens = [], []
        for s in range(0, B, step):
            A = _unfold(x[s : s + step], m, pad).view(-1, fan_in, P)  # (samples * G, C_in / G * k, P)
            Bm = b[s : s + step].reshape(-1, cout_g, P)
            if ghost:
                raws.append(_ghost(A.transpose(1, 2), Bm.transpose(1, 2)).view(-1, G).sum(1))
            else:  # g_i per group is B_g A_g^T, (C_out / G, C_in / G * k) as in the weight
                Gw = torch.bmm(Bm, A.transpose(1, 2)).view(-1, G * cout_g * fan_in)
                _, r, c = _finish(Gw, name, center)
                raws.append(r)
                cens.append(c)
            del A
        raw = torch.cat(raws)
        cen = None
        if C is not None:
            if ghost:
                # <g_i, C> = sum_p b_p . (C a_p): the layer's own convolution with weight C
                cross = (m._conv_forward(a, C, None) * b).reshape(B, -1).sum(1)
                cen = _centred_from_cross(raw, cross, C)
            else:
                cen = torch.cat([cast(Tensor, c) for c in cens])
        out.append((name, raw, cen))
    if "bias" in layer.names:
        out.append(_finish(b.reshape(B, m.out_channels, -1).sum(2), layer.names["bias"], center))
    return out


def _bn_rule(layer: _Layer, a: Tensor, b: Tensor, center: Mapping[str, Tensor] | None) -> Contrib:
    m = cast(nn.BatchNorm1d | nn.BatchNorm2d, layer.module)
    B, C = a.shape[0], a.shape[1]
    out: Contrib = []
    b3 = b.reshape(B, C, -1)
    if "weight" in layer.names:
        rm, rv = layer.fixed["running_mean"], layer.fixed["running_var"]  # not m.running_*: maybe on another device
        xhat = (a.reshape(B, C, -1) - rm.view(1, C, 1)) * torch.rsqrt(rv.view(1, C, 1) + m.eps)
        out.append(_finish((b3 * xhat).sum(2), layer.names["weight"], center))
    if "bias" in layer.names:
        out.append(_finish(b3.sum(2), layer.names["bias"], center))
    return out


Rule = Callable[[_Layer, Tensor, Tensor, Mapping[str, Tensor] | None], Contrib]
# The per-sample rules, by exact module type (a subclass may override forward).
RULES: dict[type[nn.Module], Rule] = {
    nn.Linear: _linear_rule,
    nn.Conv1d: _conv_rule,
    nn.Conv2d: _conv_rule,
    nn.BatchNorm1d: _bn_rule,
    nn.BatchNorm2d: _bn_rule,
}


def batch_dependence(model: nn.Module) -> str | None:
    """Why a sample's output depends on the rest of its batch in eval mode (``None`` if it does not): a batch
    norm that keeps no running statistics normalises with the batch's own mean and variance even in eval."""
    for qual, mod in model.named_modules():
        if isinstance(mod, nn.modules.batchnorm._BatchNorm) and mod.running_mean is None:
            return f"{type(mod).__name__} '{qual or 'root'}' keeps no running statistics (track_running_stats=False)"
    return None


def check_per_sample(model: nn.Module) -> None:
    """Raise ``ParameterError("model", ...)`` when per-sample gradients of the model are not defined."""
    why = batch_dependence(model)
    if why is not None:
        raise ParameterError(
            "model",
            f"{why}, so even in eval mode it normalises with the batch's statistics and a sample's loss depends on "
            "the other samples: per-sample gradients (and f itself) are undefined; give it running statistics "
            "(track_running_stats=True, trained or loaded with --state) or use LayerNorm/GroupNorm",
        )


def hooks_layers(obj: Objective) -> dict[str, _Layer]:
    """The modules owning the objective's trainable parameters, by qualified name; raises :class:`_Unsupported`
    (with the reason) when the hooks engine cannot handle the model."""
    model = obj.model
    wanted = set(obj.names)
    seen: dict[int, str] = {}
    for n, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen and (n in wanted or seen[id(p)] in wanted):
            raise _Unsupported(f"parameter '{seen[id(p)]}' is tied to '{n}'")
        seen[id(p)] = n
    mods: dict[int, str] = {}
    layers: dict[str, _Layer] = {}
    for qual, mod in model.named_modules(remove_duplicate=False):
        local = {
            ln: f"{qual}.{ln}" if qual else ln
            for ln, _ in mod.named_parameters(recurse=False)
            if (f"{qual}.{ln}" if qual else ln) in wanted
        }
        if not local:
            continue
        if id(mod) in mods:
            raise _Unsupported(f"module '{mods[id(mod)]}' is registered twice (also as '{qual}')")
        mods[id(mod)] = qual
        if type(mod) not in RULES:
            raise _Unsupported(f"it has no per-sample rule for {type(mod).__name__} (module '{qual or 'root'}')")
        if isinstance(mod, nn.BatchNorm1d | nn.BatchNorm2d) and mod.running_mean is None:
            raise _Unsupported(f"{type(mod).__name__} '{qual}' keeps no running statistics (eval mode uses the batch)")
        fixed = {ln: obj.fixed.get(f"{qual}.{ln}" if qual else ln) for ln, _ in mod.named_buffers(recurse=False)}
        if any(t is None for t in fixed.values()):  # registered under another name first (shared with a module)
            raise _Unsupported(f"module '{qual}' shares a buffer with another module")
        layers[qual] = _Layer(mod, local, cast(dict[str, Tensor], fixed))
    return layers


# ---- engines ------------------------------------------------------------------------------------------------


def _edges_into(root: Tensor, leaves: Mapping[str, Tensor]) -> dict[str, int]:
    """For each leaf, the number of autograd edges into it from the graph of ``root``: how many operations use
    it directly (a view such as ``w.t()`` or ``w[0]`` is one such operation). A parameter of a hooked layer
    used only by that layer's one call has exactly one."""
    ids = {id(t): n for n, t in leaves.items()}
    count: dict[str, int] = {}
    if root.grad_fn is None:
        return count
    stack = [root.grad_fn]
    seen = {root.grad_fn}
    while stack:
        fn = stack.pop()
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            var = getattr(nxt, "variable", None)
            if var is not None:  # AccumulateGrad: the edge reaches a leaf
                name = ids.get(id(var))
                if name is not None:
                    count[name] = count.get(name, 0) + 1
            elif nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return count


class _Acc:
    """Per-part accumulators of one chunk."""

    def __init__(self, obj: Objective, B: int, centred: bool) -> None:
        self.obj = obj
        zeros = {part: torch.zeros(B, dtype=torch.float64, device=obj.device) for part in obj.split.parts}
        self.raw = zeros
        self.cen = {part: t.clone() for part, t in zeros.items()} if centred else None

    def add(self, contrib: Contrib) -> None:
        for name, raw, cen in contrib:
            part = self.obj.part_of[name]
            self.raw[part] += raw.to(torch.float64)
            if self.cen is not None and cen is not None:
                self.cen[part] += cen.to(torch.float64)


def _run_hooks(
    obj: Objective, p: dict[str, Tensor], center: dict[str, Tensor] | None, idx: Tensor | None, chunk: int
) -> tuple[list[_Acc], dict[str, Tensor]]:
    layers = hooks_layers(obj)
    p = {n: t.detach().requires_grad_(True) for n, t in p.items()}
    gsum = {n: torch.zeros_like(t) for n, t in p.items()}
    accs: list[_Acc] = []
    current: list[_Acc] = []
    handles: list[Any] = []

    def on_forward(layer: _Layer) -> Callable[[nn.Module, tuple[Any, ...], Any], Tensor | None]:
        def hook(module: nn.Module, inputs: tuple[Any, ...], output: Any) -> Tensor | None:
            layer.calls += 1
            if layer.calls > 1:
                raise _Unsupported(f"{type(module).__name__} module is called more than once per forward")
            if not isinstance(output, Tensor) or not output.requires_grad:
                return None
            layer.input, layer.version = inputs[0].detach(), inputs[0]._version
            # A hook on the output tensor (not a module backward hook) gets d(sum l)/d(output) as it was before
            # any later in-place op (ReLU(inplace=True)), and leaves those ops legal. But when the output is a
            # view (Linear on 3-D input reshapes a 2-D product), an in-place op rebases the graph onto the view's
            # base and a hook on the view never fires: hook the base instead, or detach the view from it.
            target, replaced = output, None
            if output._is_view():
                base = output._base
                if (
                    base is not None
                    and base.numel() == output.numel()
                    and base.is_contiguous()
                    and output.is_contiguous()
                ):
                    target = base
                else:
                    target = replaced = output.clone()
            shape = output.shape

            def on_grad(g: Tensor) -> None:
                a, layer.input = layer.input, None
                layer.fired = True
                assert a is not None
                # the rules read the input for weights only; autograd itself catches this where it saved the input
                if "weight" in layer.names and a._version != layer.version:
                    raise _Unsupported(f"the input of {type(module).__name__} is modified in place after its forward")
                with torch.no_grad():
                    current[0].add(RULES[type(module)](layer, a, g.detach().view(shape), center))

            handles.append(target.register_hook(on_grad))
            return replaced

        return hook

    try:
        for layer in layers.values():
            handles.append(layer.module.register_forward_hook(on_forward(layer)))
        names = list(p)
        for X, y in obj.chunks(idx, size=chunk):
            for layer in layers.values():
                layer.calls, layer.fired, layer.input = 0, False, None
            current[:] = [_Acc(obj, X.shape[0], center is not None)]
            with torch.enable_grad():
                total = obj.loss_sum(p, X, y)
                uses = _edges_into(total, {full: p[full] for layer in layers.values() for full in layer.names.values()})
                for qual, layer in layers.items():
                    for full in layer.names.values():
                        if uses.get(full, 0) > 1:
                            raise _Unsupported(
                                f"parameter '{full}' is used {uses[full]} times in the forward (outside module "
                                f"'{qual}' too, where no hook sees it)"
                            )
                gs = torch.autograd.grad(total, [p[n] for n in names], allow_unused=True)
            for n, g in zip(names, gs, strict=True):
                if g is not None:
                    gsum[n] += g
            for qual, layer in layers.items():
                # A parameter with a gradient that no hook accounted for: its module never ran (the parameter
                # is used some other way) or the output's hook did not fire (an autograd case not foreseen).
                if not layer.fired and any(
                    gs[names.index(full)] is not None and bool(gs[names.index(full)].any())
                    for full in layer.names.values()
                ):
                    why = "used outside its forward" if layer.calls == 0 else "not reached by the output's hook"
                    raise _Unsupported(f"the gradient of '{qual}' is {why}")
            accs.append(current[0])
    finally:
        for h in handles:
            h.remove()
        for layer in layers.values():
            layer.input = None
    return accs, gsum


def _run_vmap(
    obj: Objective, p: dict[str, Tensor], center: dict[str, Tensor] | None, idx: Tensor | None, chunk: int
) -> tuple[list[_Acc], dict[str, Tensor]]:
    def one(q: dict[str, Tensor], x: Tensor, y: Tensor) -> Tensor:
        return obj.losses(q, x.unsqueeze(0), y.unsqueeze(0)).squeeze(0)

    per = vmap(grad(one), in_dims=(None, 0, 0))
    q = {n: t.detach() for n, t in p.items()}
    gsum = {n: torch.zeros_like(t) for n, t in p.items()}
    accs: list[_Acc] = []
    for X, y in obj.chunks(idx, size=chunk):
        acc = _Acc(obj, X.shape[0], center is not None)
        with warnings.catch_warnings():  # an LSTM in float32 runs through vmap's slow fallback: right, and said
            warnings.filterwarnings("ignore", message="There is a performance drop")
            G = per(q, X, y)
        for n in list(G):
            Gn = G.pop(n)
            gsum[n] += Gn.sum(0)
            with torch.no_grad():
                # not in place: vmap may return one tensor for two parameters (an LSTM's bias_ih and bias_hh
                # have the same gradient), and centring the first in place corrupted the second (issue 11)
                acc.add([_finish(Gn.reshape(X.shape[0], -1), n, center, inplace=False)])
            del Gn
        accs.append(acc)
    return accs, gsum


def _run_loop(
    obj: Objective, p: dict[str, Tensor], center: dict[str, Tensor] | None, idx: Tensor | None, chunk: int
) -> tuple[list[_Acc], dict[str, Tensor]]:
    """One ``autograd.grad`` per sample: the definition, for models neither hooks nor vmap can run."""
    names = list(p)
    q = {n: t.detach().requires_grad_(True) for n, t in p.items()}
    gsum = {n: torch.zeros_like(t) for n, t in p.items()}
    accs: list[_Acc] = []
    for X, y in obj.chunks(idx, size=chunk):
        B = X.shape[0]
        acc = _Acc(obj, B, center is not None)
        rows: dict[str, list[Tensor]] = {n: [] for n in names}
        for i in range(B):
            with torch.enable_grad():
                gs = torch.autograd.grad(obj.loss_sum(q, X[i : i + 1], y[i : i + 1]), [q[n] for n in names],
                                         allow_unused=True)  # fmt: skip
            for n, g in zip(names, gs, strict=True):
                rows[n].append(torch.zeros_like(p[n]) if g is None else g)
        with torch.no_grad():
            for n in names:
                Gn = torch.stack(rows.pop(n))
                gsum[n] += Gn.sum(0)
                acc.add([_finish(Gn.reshape(B, -1), n, center)])
        accs.append(acc)
    return accs, gsum


# ---- entry point --------------------------------------------------------------------------------------------


def _check_tensors(obj: Objective, given: Mapping[str, Tensor], what: str) -> dict[str, Tensor]:
    missing = [n for n in obj.names if n not in given]
    if missing:
        raise ParameterError(what, f"has no entry for parameter '{missing[0]}'")
    unknown = [n for n in given if n not in obj.params0]
    if unknown:
        raise ParameterError(what, f"'{unknown[0]}' is not a trainable parameter of the objective")
    out = {}
    for n in obj.names:
        t = given[n]
        if tuple(t.shape) != tuple(obj.params0[n].shape):
            raise ParameterError(what, f"'{n}' has shape {tuple(t.shape)}, the parameter {tuple(obj.params0[n].shape)}")
        out[n] = t.detach().to(obj.device, obj.dtype)
    return out


def persample_norms(
    obj: Objective,
    params: Mapping[str, Tensor] | None = None,
    center: Mapping[str, Tensor] | None = None,
    idx: Tensor | None = None,
    *,
    engine: str = "auto",
    chunk: int | None = None,
) -> PerSampleNorms:
    """Per-sample \\lVert g_{i,P}\\rVert^2 and \\lVert g_{i,P} - c_P\\rVert^2 for every part P, exactly.

    ``params``: where to evaluate (default the model's parameters); ``center``: c by parameter name (e.g. the
    mean gradient from :meth:`Objective.grad`, then \\sigma_P^2 = mean of ``centred[P]``); ``idx``: the samples,
    in that order (default all); ``engine``: ``"auto"``, ``"hooks"``, ``"vmap"`` or ``"loop"`` (see the module
    docstring; ``PerSampleNorms.engine`` says which ran);
    ``chunk``: samples per forward (default ``obj.chunk``, and for vmap at most 2^26 / d).
    """
    if engine not in ENGINES:
        raise ParameterError("engine", f"must be one of {', '.join(ENGINES)}, got '{engine}'")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ParameterError("chunk", f"must be a positive number of samples, got {chunk!r}")
    if idx is not None:
        if idx.dim() != 1 or idx.is_floating_point() or idx.is_complex() or idx.dtype == torch.bool:
            raise ParameterError("idx", "must be a 1-D tensor of integer sample indices")
        if idx.numel() == 0:
            raise ParameterError("idx", "selects no samples")
        if int(idx.min()) < -obj.n or int(idx.max()) >= obj.n:
            raise ParameterError("idx", f"indices must lie in 0..{obj.n - 1}")
    p = _check_tensors(obj, obj.params0 if params is None else params, "params")
    c = None if center is None else _check_tensors(obj, center, "center")

    check_per_sample(obj.model)
    chosen = engine
    if engine in ("auto", "hooks"):
        try:
            hooks_layers(obj)
            chosen = "hooks"
        except _Unsupported as e:
            if engine == "hooks":
                raise ParameterError("engine", f"'hooks' cannot run this model: {e}; use 'vmap' or 'auto'") from None
            chosen = "vmap"
    if chosen == "hooks":
        try:
            accs, gsum = _run_hooks(obj, p, c, idx, chunk or obj.chunk)
        except _Unsupported as e:  # found only while running (a module called twice, a parameter used elsewhere)
            if engine == "hooks":
                raise ParameterError("engine", f"'hooks' cannot run this model: {e}; use 'vmap' or 'auto'") from None
            chosen = "vmap"
    if chosen in ("auto", "vmap"):
        d = sum(t.numel() for t in p.values())
        try:
            accs, gsum = _run_vmap(obj, p, c, idx, chunk or max(1, min(obj.chunk, VMAP_BUDGET // d)))
            chosen = "vmap"
        except torch.OutOfMemoryError:
            raise
        except (RuntimeError, ValueError, NotImplementedError) as e:
            # torch.func has no batching rule for some operators (aten::gru, aten::rnn_tanh, aten::lstm in float64,
            # ...); the message is torch's first line
            if engine == "vmap":
                why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ParameterError("engine", f"'vmap' cannot run this model ({why}); use 'loop' or 'auto'") from None
            chosen = "loop"
    if chosen == "loop":
        accs, gsum = _run_loop(obj, p, c, idx, chunk or obj.chunk)

    raw = {part: torch.cat([a.raw[part] for a in accs]).cpu() for part in obj.split.parts}
    if c is None:
        centred = dict(raw)
    else:
        centred = {part: torch.cat([cast(dict[str, Tensor], a.cen)[part] for a in accs]).cpu() for part in raw}
    return PerSampleNorms(raw=raw, centred=centred, grad_sum=gsum, engine=chosen)
