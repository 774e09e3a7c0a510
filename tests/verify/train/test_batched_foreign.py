"""The trainer's batched path (clients vmapped) on foreign models of the shared case list (issue 23): for every
algorithm with a batched path, on a GRU, an LSTM and a plain RNN sequence classifier split after the recurrent
layer, a tanh MLP, a GroupNorm CNN and a Transformer encoder, two rounds batched give the same records as two
rounds of the per-client loop (the reference).

The recurrent layers of the batched run go through :func:`verify.models.recurrent.vmappable_rnns_` (torch has no
batching rule for its fused kernels); the loop's run keeps torch's own ``nn.GRU``/``nn.LSTM``/``nn.RNN``, so the
two runs share no recurrent code: the reference is torch's kernel, run client by client."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

torch = pytest.importorskip("torch")
from torch import Tensor, nn  # noqa: E402

from tests.verify.constants.constants_cases import BY_ID  # noqa: E402
from verify.problems import ModelProblem  # noqa: E402
from verify.problems.model import default_aux  # noqa: E402
from verify.train import ALGORITHMS, get, run  # noqa: E402

torch.set_num_threads(1)  # tiny models: a second thread only adds contention on a shared machine

# Every batchable algorithm, with settings that exercise its local steps and perturbations (mu_split needs M = 1).
PARAMS: dict[str, dict[str, Any]] = {
    "fedavg": {"K": 2},
    "sfl_v1": {"E_epochs": 2},
    "sfl_v1_analysed": {"K": 2},
    "sfl_v2": {"K": 2},
    "sfl_aux": {"K": 2},
    "heron_sfl": {"K": 2, "P": 2},
    "mu_splitfed": {"P": 2},
    "mu_split": {"P": 2},
}
BATCHABLE = [name for name, cls in ALGORITHMS.items() if cls.batchable]


class LastStep(nn.Module):
    """The recurrent layer's output at the last step: SeqClassifier's forward up to its head."""

    def __init__(self, rnn: nn.Module) -> None:
        super().__init__()
        self.rnn = rnn

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.rnn(x)
        return out[:, -1]


class MeanHead(nn.Module):
    """TinyTransformer's forward after its encoder: mean over positions, then the head."""

    def __init__(self, head: nn.Module) -> None:
        super().__init__()
        self.head = head

    def forward(self, h: Tensor) -> Tensor:
        return self.head(h.mean(1))


def parts(case_id: str) -> tuple[nn.Module, nn.Module]:
    """(client, server) of the case's model, split where the case splits it (the recurrent layer, GroupNorm,
    the encoder, the hidden layer)."""
    m = BY_ID[case_id].build()
    if hasattr(m, "rnn"):
        return LastStep(m.rnn), m.head
    if hasattr(m, "norm"):  # GNCNN: pool(relu(norm(conv(x)))) | fc2(tanh(fc1(flatten)))
        return nn.Sequential(m.conv, m.norm, nn.ReLU(), m.pool), nn.Sequential(nn.Flatten(), m.fc1, nn.Tanh(), m.fc2)
    if hasattr(m, "encoder"):
        return nn.Sequential(m.embed, m.encoder), MeanHead(m.head)
    return nn.Sequential(m.hidden, m.act), m.out


MODELS = {
    "gru": "gru-equal-f32",
    "lstm": "lstm-equal-f32",
    "rnn": "rnn-equal-f32",
    "mlp": "mlp_tanh-equal-f32",
    "cnn_groupnorm": "cnn_groupnorm-equal-f32",
    "transformer": "transformer-equal-f32",
}


@cache
def problem(model: str, vmappable: bool, one_client: bool) -> ModelProblem:
    """The case's model and data in float64, three clients (or the first alone), with an auxiliary head."""
    case = BY_ID[MODELS[model]]
    client, server = parts(case.id)
    with torch.no_grad():
        act = client(case.X[:1])
    classes = int(case.y.max()) + 1
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        aux = default_aux(tuple(act.shape[1:]), classes)
    clients = list(case.clients[:1] if one_client else case.clients)
    # the loop's problem keeps torch's own recurrent kernels (the independent reference); the batched one has its
    # recurrent layers made vmappable, as every ModelProblem does by default
    return ModelProblem.from_parts(client, server, nn.CrossEntropyLoss(), case.X, case.y, clients, aux=aux,
                                   dtype=torch.float64, vmappable_rnns=vmappable)  # fmt: skip


def same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-14), f"{where}: batched {a!r}, loop {b!r}"
    else:
        assert a == b, f"{where}: batched {a!r}, loop {b!r}"


# The Transformer's attention has no batching rule either (torch 2.13): vmap runs it through its per-client fallback,
# correct and slower, and says so; the records are what is checked here.
@pytest.mark.filterwarnings("ignore:There is a performance drop.*scaled_dot_product")
@pytest.mark.parametrize("model", list(MODELS))
def test_batched_equals_loop_on_foreign_models(model: str) -> None:
    assert set(BATCHABLE) <= set(PARAMS), "an algorithm with a batched path has no settings here"
    ran = []
    for name in BATCHABLE:
        one = name == "mu_split"
        make: Callable[[], Any] = lambda name=name: get(name)(**PARAMS[name])  # noqa: E731
        kw = {"T": 2, "batch": 4, "seed": 3, "progress": False}
        batched = run(make(), problem(model, True, one), batched=True, **kw)
        loop = run(make(), problem(model, False, one), batched=False, **kw)
        assert batched.config["batched"] and not loop.config["batched"]
        assert batched.status == loop.status == "complete"
        for rb, rl in zip(batched.records, loop.records, strict=True):
            db, dl = rb.to_dict(), rl.to_dict()
            db.pop("wall_time"), dl.pop("wall_time")
            assert db.keys() == dl.keys()
            for k in db:
                same(db[k], dl[k], f"{model}/{name} t={rb.t} {k}")
        # the run moved: a batched path that left the model where it was would match nothing after t = 0
        assert batched.records[-1].loss != batched.records[0].loss
        ran.append(name)
    assert ran == BATCHABLE
