r"""Recurrent layers that ``torch.func.vmap`` can batch: :func:`vmappable_rnns_` (issue 23).

torch has no batching rule for the fused kernels behind ``nn.RNN``, ``nn.GRU`` and ``nn.LSTM``
(``aten::rnn_tanh``, ``aten::gru``, ``aten::lstm``): under ``vmap`` over the clients with per-client weights (the
trainer's batched path, ``functional_call`` with stacked parameters) they fail ("Batching rule not implemented
for aten::gru.input"; torch 2.13), or, where a fallback exists, run it one client at a time. Here the same
layers are written with ``F.linear`` and elementwise operations over the time steps, which ``vmap`` batches.

:func:`vmappable_rnns_` changes the class of every ``nn.RNN``/``nn.GRU``/``nn.LSTM`` of a module, in place, to a
subclass (:class:`VmappableRNN`, :class:`VmappableGRU`, :class:`VmappableLSTM`) whose only difference is its
``forward``: the parameters (their names ``weight_ih_l{k}[_reverse]``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
``bias_hh_l{k}``, ``weight_hr_l{k}``, their shapes and the tensors themselves), hooks and training mode are
kept, so a state dict, an optimiser or a ``functional_call`` dictionary built for the original still fits.

The equations are PyTorch's documented ones (``torch.nn.RNN``/``GRU``/``LSTM`` docs), for layer :math:`k` and
direction :math:`d` with input :math:`x_t` (the sequence, or the previous layer's output, both directions
concatenated) and :math:`W_{i\cdot}, W_{h\cdot}` the row blocks of ``weight_ih``/``weight_hh`` in the order
printed:

.. math::

    \text{RNN:}\quad h_t &= \phi(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),
        \qquad \phi \in \{\tanh, \mathrm{ReLU}\} \\
    \text{GRU:}\quad r_t &= \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}), \quad
        z_t = \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}), \\
    n_t &= \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})), \quad
        h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1} \\
    \text{LSTM:}\quad (i_t, f_t, g_t, o_t) &= (\sigma, \sigma, \tanh, \sigma)(W_{i\cdot} x_t + b_{i\cdot}
        + W_{h\cdot} h_{t-1} + b_{h\cdot}), \quad c_t = f_t \odot c_{t-1} + i_t \odot g_t, \quad
        h_t = W_{hr}\,(o_t \odot \tanh c_t)

(:math:`W_{hr}` only with ``proj_size > 0``). The reverse direction runs :math:`t = L, \dots, 1`; the initial
states default to zeros; between layers (not after the last) dropout with probability ``dropout`` in training
mode, drawn from the global generator as torch's CPU kernel draws it. The input projection
:math:`W_{i\cdot} x_t + b_{i\cdot}` is one ``F.linear`` over all time steps; only the recurrence is a Python loop.

What the original returns is returned: ``(output, h_n)``, or ``(output, (h_n, c_n))`` for an LSTM, with the
same shapes for batched (``(L, N, H_in)``, or ``(N, L, H_in)`` with ``batch_first``) and unbatched
(``(L, H_in)``) input. A ``PackedSequence`` is refused in one line naming the module (pad it instead). Dropout in
training mode under ``vmap`` needs ``randomness="different"`` or ``"same"``, as any ``nn.Dropout`` does.

Cost (``benchmarks/bench_recurrent.py``, 2-core shared CPU, one thread, hidden 32, length 20, batch 8): one FedAvg
round with the clients vmapped through this cell against the per-client loop through torch's fused kernel is 2.5-5.5x
faster for a GRU at M = 10 and 8-12x at M = 100; for an LSTM about even at M = 10 (0.8-1.2x) and 1.4-2.8x faster at
M = 100. Outside ``vmap`` the cell costs what torch's kernel costs at batch 1600 (forward + backward 1.0-1.2x) but
is slower at batch 8, where dispatching the small operations dominates (LSTM 4.7x, GRU 1.2x).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import PackedSequence

from sfltheory.errors import ParameterError

__all__ = ["VmappableGRU", "VmappableLSTM", "VmappableRNN", "recurrent_forward", "vmappable_rnns_"]

Hidden = Tensor | tuple[Tensor, Tensor]


def _where(module: nn.Module) -> str:
    """The module's qualified name as :func:`vmappable_rnns_` recorded it (for one-line errors)."""
    return str(getattr(module, "vmappable_name", "") or type(module).__name__)


def _rnn_step(act: Callable[[Tensor], Tensor]) -> Callable[..., tuple[Tensor, Tensor | None]]:
    def step(gi: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None, w_hr: Any) -> Any:
        return act(gi + F.linear(h, w_hh, b_hh)), None

    return step


def _gru_step(gi: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None, w_hr: Any) -> Any:
    gh = F.linear(h, w_hh, b_hh)
    H = h.shape[-1]
    # r and z in one sigmoid, and h' = (1 - z) n + z h as one lerp(n, h, z) = n + z (h - n): fewer operations, since
    # at small batches the time goes to dispatching them (LSTM, batch 8: 6.4 ms -> 3.3 ms forward + backward)
    r, z = torch.sigmoid(gi[..., : 2 * H] + gh[..., : 2 * H]).chunk(2, -1)
    n = torch.tanh(torch.addcmul(gi[..., 2 * H :], r, gh[..., 2 * H :]))
    return torch.lerp(n, h, z), None


def _lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> Any:
    gates = gi + F.linear(h, w_hh, b_hh)
    H = c.shape[-1]
    i, f, _, o = torch.sigmoid(gates).chunk(4, -1)  # one sigmoid for i, f, o (g's is computed and not used)
    c = torch.addcmul(f * c, i, torch.tanh(gates[..., 2 * H : 3 * H]))
    h = o * torch.tanh(c)
    return (h if w_hr is None else F.linear(h, w_hr)), c


_STEPS: dict[str, Callable[..., Any]] = {
    "RNN_TANH": _rnn_step(torch.tanh),
    "RNN_RELU": _rnn_step(torch.relu),
    "GRU": _gru_step,
    "LSTM": _lstm_step,
}


def _initial(module: nn.RNNBase, hx: Hidden | None, x: Tensor, batched: bool) -> tuple[Tensor, Tensor | None]:
    """(h0, c0) as (D * num_layers, N, H): given (checked, unbatched ones given a batch axis) or zeros."""
    D = 2 if module.bidirectional else 1
    N = x.shape[1]
    h_out = module.proj_size if module.proj_size > 0 else module.hidden_size
    lstm = module.mode == "LSTM"
    want = [(D * module.num_layers, N, h_out)] + ([(D * module.num_layers, N, module.hidden_size)] if lstm else [])
    if hx is None:
        zeros = [torch.zeros(s, dtype=x.dtype, device=x.device) for s in want]
        return zeros[0], zeros[1] if lstm else None
    where = _where(module)
    given = list(hx) if isinstance(hx, tuple | list) else [hx]
    if len(given) != len(want) or not all(isinstance(t, Tensor) for t in given):
        what = "a tuple (h_0, c_0) of tensors" if lstm else "a tensor h_0"
        raise ParameterError(f"{where}.hx", f"must be {what}")
    out = []
    for t, shape, name in zip(given, want, ("h_0", "c_0"), strict=False):
        if t.dim() != (3 if batched else 2):
            raise ParameterError(f"{where}.hx", f"{name} must be {3 if batched else 2}-D for "
                                 f"{'batched' if batched else 'unbatched'} input (got {t.dim()}-D)")  # fmt: skip
        t = t if batched else t.unsqueeze(1)
        if tuple(t.shape) != shape:
            got = tuple(t.shape) if batched else (t.shape[0], t.shape[2])
            raise ParameterError(f"{where}.hx", f"{name} must have shape {shape if batched else (shape[0], shape[2])}"
                                 f" (got {got})")  # fmt: skip
        out.append(t)
    return out[0], out[1] if lstm else None


def recurrent_forward(module: nn.RNNBase, input: Any, hx: Hidden | None = None) -> tuple[Tensor, Hidden]:
    """The forward of ``module`` (an ``nn.RNN``, ``nn.GRU`` or ``nn.LSTM``, read for its configuration and
    parameters) by the equations of the module docstring, with operations ``vmap`` batches."""
    where = _where(module)
    if isinstance(input, PackedSequence):
        raise ParameterError(f"{where}.input", "a PackedSequence is not supported by the vmappable recurrent layer "
                             "(verify.models.recurrent): pass a padded tensor")  # fmt: skip
    if not isinstance(input, Tensor) or input.dim() not in (2, 3):
        got = f"{input.dim()}-D" if isinstance(input, Tensor) else type(input).__name__
        raise ParameterError(f"{where}.input", f"must be a 2-D (unbatched) or 3-D (batched) tensor (got {got})")
    if input.shape[-1] != module.input_size:
        raise ParameterError(f"{where}.input", f"must have {module.input_size} features (got {input.shape[-1]})")
    batched = input.dim() == 3
    # unbatched (L, H_in) gets a batch axis where batch_first puts it, as torch does; then time-major (L, N, H_in)
    x = input if batched else input.unsqueeze(0 if module.batch_first else 1)
    if module.batch_first:
        x = x.transpose(0, 1)
    if x.shape[0] == 0:
        raise ParameterError(f"{where}.input", "needs at least one time step")
    h0, c0 = _initial(module, hx, x, batched)
    step = _STEPS[module.mode]
    D = 2 if module.bidirectional else 1
    L = x.shape[0]
    h_n: list[Tensor] = []
    c_n: list[Tensor] = []
    layer_in = x
    for layer in range(module.num_layers):
        outs = []
        for d in range(D):
            sfx = f"l{layer}{'_reverse' if d else ''}"
            w_ih, w_hh = getattr(module, f"weight_ih_{sfx}"), getattr(module, f"weight_hh_{sfx}")
            b_ih = getattr(module, f"bias_ih_{sfx}") if module.bias else None
            b_hh = getattr(module, f"bias_hh_{sfx}") if module.bias else None
            w_hr = getattr(module, f"weight_hr_{sfx}") if module.proj_size > 0 else None
            gis = F.linear(layer_in, w_ih, b_ih).unbind(0)  # the input projection of every step at once
            k = layer * D + d
            h, c = h0[k], (c0[k] if c0 is not None else None)
            ys: list[Tensor] = [h] * L
            for t in range(L - 1, -1, -1) if d else range(L):
                h, c = step(gis[t], h, c, w_hh, b_hh, w_hr)
                ys[t] = h
            outs.append(torch.stack(ys))
            h_n.append(h)
            if c is not None:
                c_n.append(c)
        layer_in = outs[0] if D == 1 else torch.cat(outs, -1)
        if module.dropout > 0 and module.training and layer < module.num_layers - 1:
            layer_in = F.dropout(layer_in, module.dropout, training=True)
    output = layer_in.transpose(0, 1) if module.batch_first else layer_in
    hn = torch.stack(h_n)
    cn = torch.stack(c_n) if c_n else None
    if not batched:
        output = output.squeeze(0 if module.batch_first else 1)
        hn = hn.squeeze(1)
        cn = cn.squeeze(1) if cn is not None else None
    return output, ((hn, cn) if cn is not None else hn)


class VmappableRNN(nn.RNN):
    """``nn.RNN`` with :func:`recurrent_forward` (same parameters; see the module docstring)."""

    def forward(self, input: Any, hx: Tensor | None = None) -> Any:
        """``(output, h_n)`` for ``input`` of shape (L, N, H_in), or (N, L, H_in) with ``batch_first`` (no N:
        unbatched), by :func:`recurrent_forward`."""
        return recurrent_forward(self, input, hx)


class VmappableGRU(nn.GRU):
    """``nn.GRU`` with :func:`recurrent_forward` (same parameters; see the module docstring)."""

    def forward(self, input: Any, hx: Tensor | None = None) -> Any:
        """``(output, h_n)`` for ``input`` of shape (L, N, H_in), or (N, L, H_in) with ``batch_first`` (no N:
        unbatched), by :func:`recurrent_forward`."""
        return recurrent_forward(self, input, hx)


class VmappableLSTM(nn.LSTM):
    """``nn.LSTM`` with :func:`recurrent_forward` (same parameters; see the module docstring)."""

    def forward(self, input: Any, hx: tuple[Tensor, Tensor] | None = None) -> Any:
        """``(output, (h_n, c_n))`` for ``input`` of shape (L, N, H_in), or (N, L, H_in) with ``batch_first`` (no N:
        unbatched), by :func:`recurrent_forward`."""
        return recurrent_forward(self, input, hx)


# Exact types only: a subclass may have its own forward, which changing its class would drop.
_REPLACE: dict[type[nn.Module], type[nn.Module]] = {nn.RNN: VmappableRNN, nn.GRU: VmappableGRU, nn.LSTM: VmappableLSTM}


def vmappable_rnns_(module: nn.Module, prefix: str = "") -> list[str]:
    """Make every ``nn.RNN``, ``nn.GRU`` and ``nn.LSTM`` in ``module`` (``module`` itself included) vmappable, in
    place: its class becomes :class:`VmappableRNN`/:class:`VmappableGRU`/:class:`VmappableLSTM`, which keeps its
    parameters, buffers, hooks and mode and changes only ``forward``. Returns the qualified names changed
    (``""`` for ``module`` itself); layers already vmappable, and subclasses of the three (whose own ``forward``
    is kept), are left as they are. ``prefix`` is put before the names in error messages (``"client"``)."""
    if not isinstance(module, nn.Module):
        raise ParameterError("module", f"must be a torch.nn.Module (got {type(module).__name__})")
    changed = []
    for name, m in module.named_modules():
        new = _REPLACE.get(type(m))
        if new is None:
            continue
        m.__class__ = new
        m.vmappable_name = ".".join(p for p in (prefix, name) if p)
        changed.append(name)
    return changed
