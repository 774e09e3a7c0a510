r"""The client's peak memory of one update of an OPT-shaped decoder (MU-SplitFed Fig. 4), measured on the ``meta``
device: FedAvg and FedLoRA first order, MU-SplitFed's zeroth-order client the trainer's way and regenerated in
place (MeZO). What is measured, and why each variant, is stated in :mod:`verify.reproduce.mu_splitfed_fig4`, which
reads these numbers in its ``judge`` (through a function-level import: this module needs torch, the experiment's
listing does not)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import functional_call

from sfltheory.errors import ParameterError
from verify.ops import tree, zo
from verify.train.algorithms.mu_splitfed import embed

from .client_costs import LiveBytes, resident_bytes
from .opt_like import OPT_1_3B, OPTShape, add_lora, build, client_part, parameter_count

LORA_RANK = 8
DTYPES = {"fp16": torch.float16, "fp32": torch.float32}
TINY_SHAPE = OPTShape(vocab=64, d_model=16, heads=2, ffn=32, layers=4, positions=16)
SHAPES = {"OPT_1_3B": OPT_1_3B, "TINY_SHAPE": TINY_SHAPE}


def first_order_update(model: nn.Module, tokens: Tensor, labels: Tensor, eta: float = 1e-3) -> None:
    """One first-order local step (FedAvg, or FedLoRA with the base frozen): forward, cross-entropy, backward, SGD
    in place on the parameters that got a gradient."""
    F.cross_entropy(model(tokens), labels).backward()
    with torch.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p.add_(p.grad, alpha=-eta)
                p.grad = None


def in_place(params: Sequence[Tensor], seed: int, scale: float) -> None:
    """``p += scale * u`` for every tensor, u Gaussian regenerated from ``seed`` one tensor at a time (MeZO)."""
    g = torch.Generator().manual_seed(seed)
    for p in params:
        u = torch.empty_like(p) if p.device.type == "meta" else torch.randn(p.shape, generator=g).to(p)
        p.add_(u, alpha=scale)
        del u  # one tensor's draw at a time: the point of regenerating


def regenerated_update(client: nn.Module, tokens: Tensor, lam: float = 5e-3, eta: float = 5e-3,
                       seed: int = 0) -> list[Tensor]:  # fmt: skip
    """MU-SplitFed's client step with the direction regenerated in place: ``h``, ``h+``, ``h-`` (eq. (4)) by three
    forwards without autograd, the point restored, then ``x - eta delta / (2 lam) u`` (eq. (6)); ``delta`` is the
    server's loss difference (1 here: its value does not change the cost). Returns the three uploads."""
    params = list(client.parameters())
    with torch.no_grad():
        h = client(tokens)
        in_place(params, seed, lam)
        hp = client(tokens)
        in_place(params, seed, -2.0 * lam)
        hm = client(tokens)
        in_place(params, seed, lam)
        in_place(params, seed, -eta * 1.0 / (2.0 * lam))
    return [h, hp, hm]


class ClientForward:
    """The trainer's problem interface (``client_forward``) over a module, parameters given as a tree."""

    def __init__(self, module: nn.Module) -> None:
        self.module = module

    def client_forward(self, pc: Mapping[str, Tensor], x: Tensor) -> Tensor:
        """The client part's output at parameters ``pc`` (the trainer's ``Problem.client_forward``)."""
        out: Tensor = functional_call(self.module, dict(pc), (x,))
        return out


def trainer_update(client: nn.Module, tokens: Tensor, lam: float = 5e-3, eta: float = 5e-3) -> list[Tensor]:
    """MU-SplitFed's client step as the trainer's per-client path runs it (``MUSplitFed._client``, P = 1): one flat
    Gaussian block (``Context.randn_block``: ``empty`` then ``normal_``) split into the tree, normalised to
    :math:`\\sqrt{d}\\,\\mathbb S^{d-1}` (``zo.directions_batched``), the embeddings by
    :func:`verify.train.algorithms.mu_splitfed.embed` (new perturbed copies), then ``x - eta_c G`` with G from
    ``zo.spsa_estimate`` (the server's differences: ones). Returns the new client tree and the uploads."""
    pc = {k: v.detach() for k, v in client.named_parameters()}
    with torch.no_grad():
        first = next(iter(pc.values()))
        buf = torch.empty((1, 1, tree.numel(pc)), dtype=first.dtype, device=first.device)
        if buf.device.type != "meta":
            buf[0].normal_(generator=torch.Generator(device=buf.device).manual_seed(0))
        u = tree.unstack(zo.directions_batched(zo.split_flat(buf, pc), zo.SQRT_D_SPHERE)[0])[0]
        del buf
        h, pairs = embed(ClientForward(client), pc, tokens, u, lam, False)  # type: ignore[arg-type]
        deltas = torch.ones(1, dtype=first.dtype, device=first.device)
        new = tree.add(pc, zo.spsa_estimate(deltas, u, lam), -eta)
    return [*new.values(), h, pairs]


# --- measuring -------------------------------------------------------------------------------------------------


def peak_bytes(fn: Callable[..., Any], module: nn.Module, held: tuple[Tensor, ...]) -> int:
    """The peak bytes of ``fn(copy, *inputs)`` (``held``: the inputs, the first the tokens): the parameters, buffers
    and inputs resident before (each storage once), plus the largest sum of live new storages during the call
    (:class:`LiveBytes`), measured on a deep copy so ``module`` is left as it was."""
    m = copy.deepcopy(module)
    resident = resident_bytes(m, *held)
    with LiveBytes(resident=(*m.parameters(), *m.buffers(), *held)) as mode:
        out = fn(m, *held)
        del out
    return resident + mode.peak


def measure_all(shape: OPTShape, *, seq: int, batch: int, cuts: tuple[int, ...], dtype: torch.dtype,
                device: str = "meta") -> dict[str, Any]:  # fmt: skip
    """Each update's peak bytes (:data:`UPDATES`; MU-SplitFed's per cut) for ``shape`` in ``dtype`` on ``device``,
    batch ``batch`` of ``seq`` tokens, and the parameter counts (whole model, LoRA adapters, client part per cut)."""
    if not cuts or any(not isinstance(c, int) or not 1 <= c < shape.layers for c in cuts):
        raise ParameterError("cuts", f"must be integers in [1, {shape.layers - 1}] (got {cuts!r})")
    tokens = torch.zeros(batch, seq, dtype=torch.long, device=device)
    labels = torch.zeros(batch, dtype=torch.long, device=device)
    model = build(shape, dtype=dtype, device=device)
    out: dict[str, Any] = {"fedavg": peak_bytes(first_order_update, model, (tokens, labels))}
    lora = add_lora(copy.deepcopy(model), LORA_RANK)
    out["fedlora"] = peak_bytes(first_order_update, lora, (tokens, labels))
    out["lora_parameters"] = sum(p.numel() for p in lora.parameters() if p.requires_grad)
    out["parameters"] = sum(p.numel() for p in model.parameters())
    for name, fn in (("mu_trainer", trainer_update), ("mu_regenerated", regenerated_update)):
        out[name] = {int(c): peak_bytes(fn, client_part(model, c), (tokens,)) for c in cuts}
    out["client_parameters"] = {int(c): parameter_count(shape, c) for c in cuts}
    return out


__all__ = ["DTYPES", "LORA_RANK", "SHAPES", "TINY_SHAPE", "ClientForward", "first_order_update", "in_place",
           "measure_all", "peak_bytes", "regenerated_update", "trainer_update"]  # fmt: skip
