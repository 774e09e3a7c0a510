r"""An OPT-shaped decoder for measuring memory: the shapes of OPT-1.3B, torch.nn layers, no weights needed.

Reference: Dandan Liang et al., "Towards Straggler-Resilient Split Federated Learning: An Unbalanced Update
Approach" (seed ``000_0fb66116fc20c956.txt``): line 207 (OPT-1.3B "which has 24 transformer blocks"), line 228 (Fig.
4: fine-tuning OPT-1.3B on SST-2). The shapes are OPT-1.3B's published configuration (Zhang et al., "OPT: Open
Pre-trained Transformer Language Models", 2022, Table 1: 24 layers, 32 heads, d_model 2048; the released
``facebook/opt-1.3b`` config: FFN 8192, vocabulary 50272, 2048 learned positions with OPT's offset of 2, pre-layer
norm, ReLU, the LM head tied to the token embedding). The seed states none of these beyond the 24 blocks.

The layer is OPT's (HF ``OPTDecoderLayer``, eager attention): pre-LN self-attention with biased q, k, v and output
projections, the scores materialised (``q k^T / sqrt(d_head)`` plus a causal mask, softmax), then pre-LN
``fc2(relu(fc1(x)))``; no dropout (it only adds masks the paper's setting may or may not keep). Built on the
``meta`` device (``with torch.device("meta")``) the 1.3 B parameters cost nothing: only shapes flow.

:func:`add_lora` puts rank-r LoRA adapters (Hu et al., 2021) on the q and v projections of every layer (the LoRA
paper's choice for attention) and freezes everything else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from sfltheory.errors import ParameterError

POSITION_OFFSET = 2  # OPT's learned positions are indexed from 2 (HF OPTLearnedPositionalEmbedding)


@dataclass(frozen=True, kw_only=True)
class OPTShape:
    """A decoder's shape: vocabulary, model width, heads, FFN width, layers and learned positions."""

    vocab: int
    d_model: int
    heads: int
    ffn: int
    layers: int
    positions: int

    def __post_init__(self) -> None:
        for name in ("vocab", "d_model", "heads", "ffn", "layers", "positions"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ParameterError(name, f"must be a positive integer (got {v!r})")
        if self.d_model % self.heads:
            raise ParameterError("heads", f"must divide d_model = {self.d_model} (got {self.heads})")


OPT_1_3B = OPTShape(vocab=50272, d_model=2048, heads=32, ffn=8192, layers=24, positions=2048)


def parameter_count(shape: OPTShape, cut: int | None = None) -> int:
    r"""The closed form of the parameter count: token and position embeddings, per layer :math:`4(d^2 + d)`
    (q, k, v, out) :math:`+ 2 d f + f + d` (fc1, fc2) :math:`+ 4d` (two LayerNorms), the final LayerNorm
    :math:`2d`; with ``cut``, the client part (embeddings and the first ``cut`` layers, no final LayerNorm)."""
    d, f = shape.d_model, shape.ffn
    layer = 4 * (d * d + d) + 2 * d * f + f + d + 4 * d
    emb = shape.vocab * d + (shape.positions + POSITION_OFFSET) * d
    if cut is not None:
        return emb + cut * layer
    return emb + shape.layers * layer + 2 * d


class LoRALinear(nn.Module):
    """A frozen ``base`` Linear plus a trainable low-rank update ``B A`` (A: r x in, B: out x r, B zero at start)."""

    def __init__(self, base: nn.Linear, rank: int) -> None:
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.lora_a = nn.Parameter(
            torch.empty(rank, base.in_features, dtype=base.weight.dtype, device=base.weight.device)
        )
        self.lora_b = nn.Parameter(
            torch.zeros(base.out_features, rank, dtype=base.weight.dtype, device=base.weight.device)
        )
        if self.lora_a.device.type != "meta":
            nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))

    def forward(self, x: Tensor) -> Tensor:
        """``base(x) + x A^T B^T``."""
        return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b)


class Attention(nn.Module):
    """OPT's causal self-attention (eager: the score matrix materialised, as HF's OPT does without SDPA)."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.q_proj, self.k_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.v_proj, self.out_proj = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x: Tensor) -> Tensor:
        """Causal multi-head self-attention of ``x`` (batch, sequence, width); the score matrix is materialised."""
        b, s, d = x.shape
        h = self.heads

        def split(t: Tensor) -> Tensor:
            return t.view(b, s, h, d // h).transpose(1, 2)

        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.out_proj(out.transpose(1, 2).reshape(b, s, d))


class DecoderLayer(nn.Module):
    """One OPT decoder layer: pre-LN attention and pre-LN ReLU FFN, each with a residual."""

    def __init__(self, d: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.self_attn = Attention(d, heads)
        self.final_layer_norm = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x: Tensor) -> Tensor:
        """A pre-norm decoder layer: attention, then the feed-forward block, each with its residual."""
        x = x + self.self_attn(self.self_attn_layer_norm(x))
        return x + self.fc2(F.relu(self.fc1(self.final_layer_norm(x))))


class Embeddings(nn.Module):
    """Token embedding plus learned positions (offset 2, as OPT)."""

    def __init__(self, shape: OPTShape) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(shape.vocab, shape.d_model)
        self.embed_positions = nn.Embedding(shape.positions + POSITION_OFFSET, shape.d_model)

    def forward(self, tokens: Tensor) -> Tensor:
        """Token embeddings plus learned positions (OPT's offset)."""
        pos = torch.arange(tokens.shape[1], device=tokens.device) + POSITION_OFFSET
        return self.embed_tokens(tokens) + self.embed_positions(pos)


class DecoderLM(nn.Module):
    """The whole decoder: embeddings, the layers, the final LayerNorm, and the LM head tied to the token embedding;
    ``forward`` gives the logits of the last position (the label word of a prompt-based SST-2 classifier)."""

    def __init__(self, shape: OPTShape) -> None:
        super().__init__()
        self.embeddings = Embeddings(shape)
        self.layers = nn.ModuleList(DecoderLayer(shape.d_model, shape.heads, shape.ffn) for _ in range(shape.layers))
        self.final_layer_norm = nn.LayerNorm(shape.d_model)

    def forward(self, tokens: Tensor) -> Tensor:
        """The logits of the tied LM head at the last position (the prompt classifier of mu_splitfed_fig4)."""
        x = self.embeddings(tokens)
        for layer in self.layers:
            x = layer(x)
        # the full LM head over every position, as HF's OPTForCausalLM computes it, then the last position's row
        logits = F.linear(self.final_layer_norm(x), self.embeddings.embed_tokens.weight)
        return logits[:, -1, :]


def client_part(model: DecoderLM, cut: int) -> nn.Sequential:
    """MU-SplitFed's client model at cut ``L_c = cut``: the embeddings and the first ``cut`` layers (line 207: the
    model "is split after the n-th block"); its output is the smashed data sent to the server."""
    if not isinstance(cut, int) or not 1 <= cut < len(model.layers):
        raise ParameterError("cut", f"must be an integer in [1, {len(model.layers) - 1}] (got {cut!r})")
    return nn.Sequential(model.embeddings, *list(model.layers)[:cut])


def build(shape: OPTShape, *, dtype: torch.dtype, device: str = "meta") -> DecoderLM:
    """The decoder of ``shape`` in ``dtype`` on ``device`` (``meta``: shapes only)."""
    with torch.device(device):
        return DecoderLM(shape).to(dtype)


def add_lora(model: DecoderLM, rank: int) -> DecoderLM:
    """Freeze ``model`` and wrap every layer's q and v projections in :class:`LoRALinear` of ``rank`` (in place)."""
    if not isinstance(rank, int) or rank < 1:
        raise ParameterError("rank", f"must be a positive integer (got {rank!r})")
    model.requires_grad_(False)
    for layer in model.layers:
        assert isinstance(layer, DecoderLayer)
        att = layer.self_attn
        with torch.device(att.q_proj.weight.device):
            att.q_proj = LoRALinear(att.q_proj, rank)  # type: ignore[assignment]
            att.v_proj = LoRALinear(att.v_proj, rank)  # type: ignore[assignment]
    return model


__all__ = ["OPT_1_3B", "POSITION_OFFSET", "Attention", "DecoderLM", "DecoderLayer", "Embeddings", "LoRALinear",
           "OPTShape", "add_lora", "build", "client_part", "parameter_count"]  # fmt: skip
